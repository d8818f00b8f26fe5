import CArchive
import Crypto
import DiaryKit
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes an archive member by member to a file descriptor; memory stays flat whatever the members' sizes.
final class ArchiveWriter {
    /// How much of a member is read from its source at a time.
    static let blockSize = 1 << 20

    /// Compressed bytes handed to the file descriptor so far.
    var bytesWritten: Int64 { sink.bytesWritten }

    private var archive: OpaquePointer?
    private let sink: Sink
    private let closesDescriptor: Bool
    /// Set once a member was left half written: the output is unusable and every later call fails with this.
    private var failure: ArchiveError?
    private var block: UnsafeMutableRawBufferPointer?

    /// Writes to an already open descriptor (a file, stdout, a pipe) and leaves it open.
    convenience init(format: ArchiveFormat, fileDescriptor: Int32) throws(ArchiveError) {
        let sink = Sink(fileDescriptor: fileDescriptor)
        self.init(archive: try Self.makeArchive(format, sink), sink: sink, closesDescriptor: false)
    }

    /// Creates (or truncates) the file at `path` and writes to it; `finish()` closes it.
    convenience init(format: ArchiveFormat, path: String) throws(ArchiveError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .cannotCreate(path: path) }
        let sink = Sink(fileDescriptor: descriptor)
        let archive: OpaquePointer
        do {
            archive = try Self.makeArchive(format, sink)
        } catch {
            close(descriptor)
            throw error
        }
        self.init(archive: archive, sink: sink, closesDescriptor: true)
    }

    private init(archive: OpaquePointer, sink: Sink, closesDescriptor: Bool) {
        self.archive = archive
        self.sink = sink
        self.closesDescriptor = closesDescriptor
    }

    deinit {
        if let archive {
            // Marked failed, freeing does not write the end of the archive: an unfinished export stays visibly broken.
            archive_write_fail(archive)
            archive_write_free(archive)
            if closesDescriptor { close(sink.fileDescriptor) }
        }
        block?.deallocate()
    }

    /// Adds a regular file of exactly `size` bytes, pulled from `source` (which fills the buffer it is given
    /// and returns how many bytes it put there, 0 at the end).
    func add(path: String, size: Int64, modified: Date,
                    from source: (UnsafeMutableRawBufferPointer) throws -> Int) throws {
        let archive = try usable()
        let entry = archive_entry_new()
        defer { archive_entry_free(entry) }
        archive_entry_set_pathname_utf8(entry, path)
        archive_entry_set_filetype(entry, 0o100000)
        archive_entry_set_perm(entry, 0o644)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        archive_entry_set_size(entry, size)
        // Whole seconds: a fraction would cost every tar member an extra pax header, and zip cannot keep it anyway.
        archive_entry_set_mtime(entry, time_t(modified.timeIntervalSince1970.rounded(.down)), 0)

        let status = LibArchive.inUTF8 { archive_write_header(archive, entry) }
        guard status >= ARCHIVE_WARN else { throw broken(writeError(archive)) }

        let buffer = block ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockSize, alignment: 16)
        block = buffer
        var remaining = size
        while true {
            let filled: Int
            do {
                filled = try source(buffer)
            } catch {
                _ = broken(.writeFailed("\(path): its source failed after \(size - remaining) bytes"))
                throw error
            }
            guard filled > 0 else { break }
            guard filled <= buffer.count, Int64(filled) <= remaining else {
                throw broken(.writeFailed("\(path): its source gave more than the \(size) bytes announced"))
            }
            try write(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]), to: archive)
            remaining -= Int64(filled)
        }
        guard remaining == 0 else {
            throw broken(.writeFailed("\(path): its source gave \(size - remaining) of the \(size) bytes announced"))
        }
        guard archive_write_finish_entry(archive) >= ARCHIVE_WARN else { throw broken(writeError(archive)) }
    }

    /// Adds a small regular file held in memory.
    func add(path: String, bytes: [UInt8], modified: Date) throws {
        var offset = 0
        try add(path: path, size: Int64(bytes.count), modified: modified) { buffer in
            let count = min(buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { all in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[offset..<(offset + count)]))
            }
            offset += count
            return count
        }
    }

    /// Adds the regular file at `file`, streamed from disk, and returns its SHA-256 (lowercase hex) and size.
    /// Without `modified` the member keeps the file's modification time; `progress` hears of every block.
    @discardableResult
    func add(path: String, file: URL, modified: Date?,
                    progress: (Int) -> Void = { _ in }) throws -> (sha256: String, bytes: Int64) {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ArchiveError.cannotRead(path: file.path) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ArchiveError.cannotRead(path: file.path)
        }
        // Read once, start to end: the kernel may read further ahead.
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
        let size = Int64(info.st_size)
        #if canImport(Darwin)
        let fileTime = info.st_mtimespec.tv_sec
        #else
        let fileTime = info.st_mtim.tv_sec
        #endif
        let mtime = modified ?? Date(timeIntervalSince1970: TimeInterval(fileTime))
        var hasher = SHA256()
        try add(path: path, size: size, modified: mtime) { buffer in
            let got = FileIO.read(descriptor, into: buffer)
            guard got >= 0 else { throw ArchiveError.cannotRead(path: file.path) }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            progress(got)
            return got
        }
        return (Hex.string(hasher.finalize()), size)
    }

    /// Writes the end of the archive, flushes the compressor and frees libarchive's state
    /// (closing the file if this writer opened it). Nothing can be added afterwards.
    func finish() throws {
        guard let archive else { return }
        self.archive = nil
        defer {
            archive_write_free(archive)
            if closesDescriptor && sink.fileDescriptor >= 0 { close(sink.fileDescriptor) }
        }
        if let failure {
            archive_write_fail(archive)
            throw failure
        }
        guard LibArchive.inUTF8({ archive_write_close(archive) }) >= ARCHIVE_WARN else { throw writeError(archive) }
        // A file's last bytes may only fail to reach the disk at close (NFS, quota), so its result counts here.
        if closesDescriptor {
            let closed = close(sink.fileDescriptor)
            sink.fileDescriptor = -1
            if closed != 0 { throw ArchiveError.writeFailed(String(cString: strerror(errno))) }
        }
    }

    /// The open archive, or the error that stopped it.
    private func usable() throws(ArchiveError) -> OpaquePointer {
        if let failure { throw failure }
        guard let archive else { throw .writeFailed("the archive is already finished") }
        return archive
    }

    /// Remembers that the archive can no longer be completed, and hands the error back to throw.
    private func broken(_ error: ArchiveError) -> ArchiveError {
        if failure == nil { failure = error }
        return error
    }

    /// The output error: the system's reason if the descriptor refused the bytes, else libarchive's message.
    private func writeError(_ archive: OpaquePointer) -> ArchiveError {
        .writeFailed(sink.error ?? LibArchive.message(archive, "write failed"))
    }

    private func write(_ bytes: UnsafeRawBufferPointer, to archive: OpaquePointer) throws(ArchiveError) {
        var done = 0
        while done < bytes.count {
            let wrote = archive_write_data(archive, bytes.baseAddress! + done, bytes.count - done)
            guard wrote > 0 else { throw broken(writeError(archive)) }
            done += wrote
        }
    }

    /// A new libarchive writer for `format`, opened on the sink's descriptor.
    private static func makeArchive(_ format: ArchiveFormat, _ sink: Sink) throws(ArchiveError) -> OpaquePointer {
        guard let archive = archive_write_new() else { throw .unsupported("libarchive could not allocate a writer") }
        func check(_ status: Int32, _ what: String) throws(ArchiveError) {
            guard status == ARCHIVE_OK else {
                let error = ArchiveError.unsupported("\(what): \(LibArchive.message(archive, "refused"))")
                archive_write_free(archive)
                throw error
            }
        }
        switch format {
        case .tar, .tarGz, .tarZst, .tarXz:
            // Restricted pax is plain ustar unless a member needs more (a long or non-ASCII name, a size over
            // 8 GiB); then it adds a pax header, which GNU tar, bsdtar and Python all read.
            try check(archive_write_set_format_pax_restricted(archive), "tar format")
        case .zip:
            try check(archive_write_set_format_zip(archive), "zip format")
            try check(archive_write_set_format_option(archive, "zip", "compression", "deflate"), "zip deflate")
        }
        switch format {
        case .tar, .zip:
            break
        case .tarGz:
            try check(archive_write_add_filter_gzip(archive), "gzip")
            try check(archive_write_set_filter_option(archive, "gzip", "compression-level", "6"), "gzip level")
        case .tarZst:
            try check(archive_write_add_filter_zstd(archive), "zstd")
            try check(archive_write_set_filter_option(archive, "zstd", "compression-level", "3"), "zstd level")
        case .tarXz:
            try check(archive_write_add_filter_xz(archive), "xz")
            try check(archive_write_set_filter_option(archive, "xz", "compression-level", "6"), "xz level")
        }
        // 64 KiB writes suit pipes and disks alike. Without bytes_in_last_block = 1 libarchive pads the
        // output with zeros to a whole block, which gzip and zip readers see as trailing garbage.
        try check(archive_write_set_bytes_per_block(archive, 64 * 1024), "block size")
        try check(archive_write_set_bytes_in_last_block(archive, 1), "last block size")
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let status = LibArchive.inUTF8 {
            // No close callback: the descriptor belongs to the caller (or to finish()), never to libarchive.
            archive_write_open2(archive, context, nil, { _, context, buffer, length in
                Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().send(buffer!, length)
            }, nil, nil)
        }
        guard status == ARCHIVE_OK else {
            let error = ArchiveError.writeFailed(sink.error ?? LibArchive.message(archive, "could not start writing"))
            archive_write_free(archive)
            throw error
        }
        return archive
    }
}

/// The descriptor libarchive's write callback writes to, and what it has seen.
private final class Sink {
    var fileDescriptor: Int32
    var bytesWritten: Int64 = 0
    /// Why the descriptor refused bytes; libarchive itself only learns that the callback failed.
    var error: String?

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Writes all `length` bytes, retrying interrupted and partial writes; returns `length`, or -1 on error.
    func send(_ buffer: UnsafeRawPointer, _ length: Int) -> Int {
        var done = 0
        while done < length {
            let wrote = write(fileDescriptor, buffer + done, length - done)
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else {
                error = wrote < 0 ? String(cString: strerror(errno)) : "the output accepted no bytes"
                return -1
            }
            done += wrote
        }
        bytesWritten += Int64(done)
        return done
    }
}
