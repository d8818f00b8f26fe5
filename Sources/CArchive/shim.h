#include <archive.h>
#include <archive_entry.h>

#include <sys/types.h>

// Restore flushes the one file system it wrote to, not every disk (sync), and starts each
// file's writeback while it reads on (sync_file_range). glibc declares both only under
// _GNU_SOURCE, which the Swift Glibc module is not built with.
extern int syncfs(int fd);
extern int sync_file_range(int fd, __off64_t offset, __off64_t nbytes, unsigned int flags);
