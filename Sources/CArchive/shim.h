#include <archive.h>
#include <archive_entry.h>

// Restore flushes the one file system it wrote to, not every disk (sync): glibc declares
// syncfs only under _GNU_SOURCE, which the Swift Glibc module is not built with.
extern int syncfs(int fd);
