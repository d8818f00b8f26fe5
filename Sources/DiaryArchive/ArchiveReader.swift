import CArchive
import DiaryKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads an archive member by member from a file descriptor (a file, or stdin), whatever its format and compression.
final class ArchiveReader {
    /// One member's header.
    struct Member: Sendable, Equatable {
        package var path: String
        package var type: MemberType
        /// The size of its data, if the archive says before the data (a streamed zip may not).
        package var size: Int64?
        /// Where a symbolic or hard link points.
        var linkTarget: String?
    }

    /// What kind of file a member is.
    enum MemberType: Sendable, Equatable {
        case regular, directory, symbolicLink, hardLink, characterDevice, blockDevice, fifo, socket, other
    }

    /// How much is read from the descriptor at a time.
    static let blockSize = 1 << 20

    /// Bytes consumed from the input so far (compressed, as stored).
    var compressedBytesRead: Int64 { archive_filter_bytes(archive, -1) }

    /// Member data bytes handed out by `read(into:)` so far (uncompressed).
    private(set) var uncompressedBytesRead: Int64 = 0

    private let archive: OpaquePointer
    private let descriptor: Int32
    private let closesDescriptor: Bool
    /// The source libarchive reads through, when it is not the descriptor itself.
    private var source: PrefixedSource?

    /// Reads from an already open descriptor, which may be a pipe; it is left open.
    convenience init(fileDescriptor: Int32) throws(ArchiveError) {
        self.init(archive: try Self.makeArchive { archive_read_open_fd($0, fileDescriptor, ArchiveReader.blockSize) },
                  descriptor: fileDescriptor, closesDescriptor: false)
    }

    /// Reads `prefix` and then the rest of a pipe: the bytes a caller already took from it to
    /// see what kind of input it is. The descriptor is left open.
    convenience init(fileDescriptor: Int32, after prefix: [UInt8]) throws(ArchiveError) {
        let source = PrefixedSource(descriptor: fileDescriptor, prefix: prefix)
        let client = Unmanaged.passUnretained(source).toOpaque()
        self.init(archive: try Self.makeArchive { archive_read_open($0, client, nil, readPrefixedSource, nil) },
                  descriptor: fileDescriptor, closesDescriptor: false)
        self.source = source
    }

    /// Reads the archive file at `path`.
    convenience init(path: String) throws(ArchiveError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(path: path) }
        let archive: OpaquePointer
        do throws(ArchiveError) {
            archive = try Self.makeArchive { archive_read_open_fd($0, descriptor, ArchiveReader.blockSize) }
        } catch {
            close(descriptor)
            throw error
        }
        self.init(archive: archive, descriptor: descriptor, closesDescriptor: true)
    }

    private init(archive: OpaquePointer, descriptor: Int32, closesDescriptor: Bool) {
        self.archive = archive
        self.descriptor = descriptor
        self.closesDescriptor = closesDescriptor
    }

    deinit {
        archive_read_free(archive)
        if closesDescriptor { close(descriptor) }
    }

    /// The next member's header, or nil after the last one.
    func next() throws(ArchiveError) -> Member? {
        try LibArchive.inUTF8 { () throws(ArchiveError) -> Member? in
            var entry: OpaquePointer?
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { return nil }
            // A warning (an odd but readable header) still gives a usable member.
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                throw .corrupt(LibArchive.message(archive, "unreadable member header"))
            }
            return Self.member(entry)
        }
    }

    /// Fills `buffer` with the current member's next data bytes; returns how many, 0 at the end of the member.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        // An empty buffer would read 0 bytes, which means "end of member".
        precondition(buffer.count > 0, "ArchiveReader.read needs room for at least one byte")
        let got = archive_read_data(archive, buffer.baseAddress, buffer.count)
        guard got >= 0 else { throw .corrupt(LibArchive.message(archive, "unreadable member data")) }
        uncompressedBytesRead += Int64(got)
        return got
    }

    /// Passes over the rest of the current member's data.
    func skip() throws(ArchiveError) {
        guard archive_read_data_skip(archive) == ARCHIVE_OK else {
            throw .corrupt(LibArchive.message(archive, "unreadable member data"))
        }
    }

    private static func member(_ entry: OpaquePointer) -> Member {
        let path = string(archive_entry_pathname_utf8(entry)) ?? string(archive_entry_pathname(entry)) ?? ""
        let size = archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : nil
        // A tar hard link says "regular file" in its type; only its link name tells it apart.
        if let target = string(archive_entry_hardlink_utf8(entry)) ?? string(archive_entry_hardlink(entry)) {
            return Member(path: path, type: .hardLink, size: size, linkTarget: target)
        }
        let type: MemberType = switch archive_entry_filetype(entry) {
        case 0o100000: .regular
        case 0o040000: .directory
        case 0o120000: .symbolicLink
        case 0o020000: .characterDevice
        case 0o060000: .blockDevice
        case 0o010000: .fifo
        case 0o140000: .socket
        default: .other
        }
        let target = type == .symbolicLink
            ? string(archive_entry_symlink_utf8(entry)) ?? string(archive_entry_symlink(entry)) : nil
        return Member(path: path, type: type, size: size, linkTarget: target)
    }

    private static func string(_ text: UnsafePointer<CChar>?) -> String? {
        text.map { String(cString: $0) }
    }

    /// A new libarchive reader, opened by `open`.
    private static func makeArchive(open: (OpaquePointer) -> Int32) throws(ArchiveError) -> OpaquePointer {
        guard let archive = archive_read_new() else { throw .corrupt("libarchive could not allocate a reader") }
        // Every decompressor libarchive runs in-process. Not support_filter_all: that adds lrzip, grzip and
        // lzop (no library here), which libarchive runs as external programs — not for an archive's say-so.
        let filters = [
            archive_read_support_filter_gzip, archive_read_support_filter_bzip2, archive_read_support_filter_xz,
            archive_read_support_filter_lzma, archive_read_support_filter_lzip, archive_read_support_filter_zstd,
            archive_read_support_filter_lz4, archive_read_support_filter_compress,
        ]
        // Every real archive format. Not support_format_all: it includes "empty", which takes any empty
        // input as an archive with no members, and mtree, whose entries name local files that libarchive
        // then opens and reads as member data. Raw (any bytes as one member) is left out for the same reason
        // as empty: input that is not an archive must be an error.
        let formats = [
            archive_read_support_format_tar, archive_read_support_format_zip, archive_read_support_format_cpio,
            archive_read_support_format_7zip, archive_read_support_format_ar, archive_read_support_format_iso9660,
            archive_read_support_format_xar, archive_read_support_format_cab, archive_read_support_format_lha,
            archive_read_support_format_rar, archive_read_support_format_rar5, archive_read_support_format_warc,
        ]
        for support in filters + formats { _ = support(archive) }
        let status = LibArchive.inUTF8 { open(archive) }
        guard status == ARCHIVE_OK else {
            let error = ArchiveError.corrupt(LibArchive.message(archive, "not an archive"))
            archive_read_free(archive)
            throw error
        }
        return archive
    }
}

/// A pipe whose first bytes were already read: libarchive gets those, then the rest.
private final class PrefixedSource {
    let descriptor: Int32
    var prefix: [UInt8]
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: ArchiveReader.blockSize, alignment: 16)

    init(descriptor: Int32, prefix: [UInt8]) {
        self.descriptor = descriptor
        self.prefix = prefix
    }

    deinit { buffer.deallocate() }
}

/// libarchive's read callback for a `PrefixedSource`: the next block, 0 at the end, -1 on an error.
private func readPrefixedSource(_ archive: OpaquePointer?, _ client: UnsafeMutableRawPointer?,
                                _ block: UnsafeMutablePointer<UnsafeRawPointer?>?) -> la_ssize_t {
    guard let client, let block else { return -1 }
    let source = Unmanaged<PrefixedSource>.fromOpaque(client).takeUnretainedValue()
    if !source.prefix.isEmpty {
        let count = source.prefix.count
        source.prefix.withUnsafeBytes { source.buffer.copyMemory(from: $0.baseAddress!, byteCount: count) }
        source.prefix = []
        block.pointee = UnsafeRawPointer(source.buffer)
        return count
    }
    block.pointee = UnsafeRawPointer(source.buffer)
    return FileIO.read(source.descriptor, into: UnsafeMutableRawBufferPointer(start: source.buffer, count: ArchiveReader.blockSize))
}
