import Foundation

/// A folder of files named by their SHA-256 (`ab/<sha256>.<ext>`), as media and thumbnails
/// are stored. A file is written to a hidden temp file, made durable, then renamed into its
/// shard, so a crash never leaves a short file under a valid name.
package struct ContentAddressedFolder {
    package let rootPath: String

    package init(_ root: URL) { rootPath = root.standardizedFileURL.path }

    /// Where the file with these bytes lives.
    package func path(sha256: String, fileExtension: String) -> String {
        "\(rootPath)/\(sha256.prefix(2))/\(sha256).\(fileExtension)"
    }

    /// True when a regular file of this size is already stored under the name: same hash,
    /// same length, same bytes.
    package func holds(sha256: String, fileExtension: String, bytes: Int64) -> Bool {
        var existing = stat()
        return stat(path(sha256: sha256, fileExtension: fileExtension), &existing) == 0
            && existing.st_mode & S_IFMT == S_IFREG && Int64(existing.st_size) == bytes
    }

    /// Creates the folder and a hidden temp file in it (a dot name keeps half-written files
    /// out of the shards and out of listings); nil when either cannot be made.
    package func makeTemporaryFile() -> (path: String, descriptor: Int32)? {
        guard (try? FileManager.default.createDirectory(atPath: rootPath, withIntermediateDirectories: true)) != nil else { return nil }
        let path = "\(rootPath)/.incoming-\(UUID().uuidString).tmp"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        return descriptor >= 0 ? (path, descriptor) : nil
    }

    /// Moves a written, fsynced and closed file to its name; false when it cannot.
    /// `syncing: false` leaves the folders' fsync to a caller that flushes many at once.
    package func install(_ temporaryPath: String, sha256: String, fileExtension: String, syncing: Bool = true) -> Bool {
        let shardPath = "\(rootPath)/\(sha256.prefix(2))"
        let createdShard = mkdir(shardPath, 0o755) == 0
        guard createdShard || errno == EEXIST else { return false }
        guard rename(temporaryPath, path(sha256: sha256, fileExtension: fileExtension)) == 0 else {
            if createdShard { _ = rmdir(shardPath) }
            return false
        }
        guard syncing else { return true }
        FileIO.syncDirectory(shardPath)
        if createdShard { FileIO.syncDirectory(rootPath) }
        return true
    }
}

/// Plain POSIX reads and writes that retry when a signal interrupts them.
package enum FileIO {
    /// Writes every byte; false on an error (errno says which).
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Whether others than its owner may read or write the file at `path`; nil when there is
    /// none. Secrets (credentials, keys) are refused when true.
    package static func readableByOthers(_ path: String) -> Bool? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o077 != 0
    }

    /// Replaces the file `name` in `folder` (made 0700 if missing) with `bytes`, readable by its
    /// owner only: a 0600 file beside it, written, flushed, then renamed over it, so a crash
    /// leaves the old file or the new one. False when any step failed.
    package static func replaceOwnerOnly(_ name: String, in folder: String, with bytes: [UInt8]) -> Bool {
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])) != nil else { return false }
        let temporary = "\(folder)/.\(name)-\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        let written = bytes.withUnsafeBytes { writeAll(descriptor, $0) } && fsync(descriptor) == 0
        close(descriptor)
        guard written, rename(temporary, "\(folder)/\(name)") == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// Reads what is there, up to the buffer's size: 0 at the end, -1 on an error.
    package static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let got = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if got < 0 && errno == EINTR { continue }
            return got
        }
    }

    /// Reads up to the buffer's size from `offset`, leaving the file offset alone (pread): 0 at
    /// the end, -1 on an error.
    package static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        while true {
            let got = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if got < 0 && errno == EINTR { continue }
            return got
        }
    }

    /// Makes a new name in the folder durable; best effort, since a failure here cannot undo
    /// the rename it follows.
    static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }
}
