import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The largest photo, video and voice memo a person may add, in bytes.
public struct MediaLimits: Sendable {
    public var photoBytes: Int64
    public var videoBytes: Int64
    public var audioBytes: Int64

    /// Limits in bytes for photos, videos and voice memos.
    public init(photoBytes: Int64, videoBytes: Int64, audioBytes: Int64 = 25_000_000) {
        self.photoBytes = photoBytes
        self.videoBytes = videoBytes
        self.audioBytes = audioBytes
    }
}

/// A recognised photo or video, and where it was taken when the file says so.
public struct IntakeResult: Sendable {
    public var item: MediaItem
    public var latitude: Double?
    public var longitude: Double?

    /// A result from its parts.
    public init(item: MediaItem, latitude: Double? = nil, longitude: Double? = nil) {
        self.item = item
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// Photo and video intake: recognising files and keeping them in the content-addressed media store.
public enum MediaIntake {
    /// Inspects without writing anything: type from the bytes (never the name), size limit, dimensions, duration, capture time, GPS.
    public static func inspect(_ file: URL, limits: MediaLimits, timeZone: TimeZone) throws(MediaError) -> IntakeResult {
        try inspect(file, limits: limits, timeZone: timeZone, probe: nil)
    }

    /// Inspects, then copies into `mediaRoot/ab/<sha256>.<ext>`; the same bytes are stored once, and a failure leaves nothing behind.
    public static func store(_ file: URL, limits: MediaLimits, timeZone: TimeZone, into mediaRoot: URL) throws(MediaError) -> IntakeResult {
        try store(file, limits: limits, timeZone: timeZone, into: mediaRoot, probe: nil)
    }

    /// Deletes a stored file (ignores a file already gone).
    public static func remove(_ item: MediaItem, from mediaRoot: URL) {
        // The item may come from a damaged or edited database; never let it name a path outside the store.
        guard isStoreName(item.sha256, item.fileExtension) else { return }
        _ = unlink(mediaRoot.appendingPathComponent(item.relativePath).path)
    }

    /// Removes files no page uses any more, with their thumbnails; returns how many.
    @discardableResult
    public static func remove(_ items: [MediaItem], paths: DiaryPaths) -> Int {
        for item in items {
            remove(item, from: paths.media)
            if let thumbnail = item.thumbnail, isStoreName(thumbnail, "jpg"), let relative = item.thumbnailPath {
                _ = unlink(paths.thumbnails.appendingPathComponent(relative).path)
            }
        }
        return items.count
    }

    // MARK: Internals (the probe is injectable so tests can simulate a missing or hanging ffprobe)

    static func inspect(_ file: URL, limits: MediaLimits, timeZone: TimeZone, probe: VideoProbe?) throws(MediaError) -> IntakeResult {
        let source = try MediaFile(opening: file)
        var result = try examine(source, file: file, limits: limits, timeZone: timeZone, probe: probe)
        let digest = try source.stream(kind: result.item.kind) { _ in true }
        result.item.sha256 = digest
        return result
    }

    static func store(_ file: URL, limits: MediaLimits, timeZone: TimeZone, into mediaRoot: URL,
                      probe: VideoProbe?) throws(MediaError) -> IntakeResult {
        let source = try MediaFile(opening: file)
        let result = try examine(source, file: file, limits: limits, timeZone: timeZone, probe: probe)
        return try copyIn(source, result, into: mediaRoot)
    }

    /// Takes in a voice memo (m4a, mp3, wav, ogg, flac, webm) the same way: recognised,
    /// checked by ffprobe, stored once by content.
    public static func storeVoiceMemo(_ file: URL, limits: MediaLimits, into mediaRoot: URL) throws(MediaError) -> MediaItem {
        try storeVoiceMemo(file, limits: limits, into: mediaRoot, probe: nil)
    }

    static func storeVoiceMemo(_ file: URL, limits: MediaLimits, into mediaRoot: URL, probe: VideoProbe?) throws(MediaError) -> MediaItem {
        let source = try MediaFile(opening: file)
        guard source.length > 0 else { throw .unreadable(kind: .audio, problem: .empty) }
        guard let format = AudioFormat.sniff(source.bytes(at: 0, count: 64)) else {
            throw .unreadable(kind: .audio, problem: .notAudio)
        }
        guard source.length <= limits.audioBytes else {
            throw .unreadable(kind: .audio, problem: .tooLarge(limitMB: Int(limits.audioBytes / 1_000_000)))
        }
        var item = MediaItem(kind: .audio, sha256: "", mime: format.mime, fileExtension: format.fileExtension, bytes: source.length)
        item.durationSeconds = try (probe ?? VideoProbe.system()).probeAudio(file)
        return try copyIn(source, IntakeResult(item: item), into: mediaRoot).item
    }

    /// Copies an examined file into the store under its hash (temp, fsync, rename).
    private static func copyIn(_ source: MediaFile, _ examined: IntakeResult, into mediaRoot: URL) throws(MediaError) -> IntakeResult {
        var result = examined
        let kind = result.item.kind
        let folder = ContentAddressedFolder(mediaRoot)
        let storeFailed = MediaError.cannotStore(path: folder.rootPath)
        guard let temp = folder.makeTemporaryFile() else { throw storeFailed }
        var tempExists = true
        defer { if tempExists { _ = unlink(temp.path) } }

        var writeFailed = false
        let digest: String
        do {
            digest = try source.stream(kind: kind) { chunk in
                writeFailed = !FileIO.writeAll(temp.descriptor, chunk)
                return !writeFailed
            }
        } catch {
            _ = close(temp.descriptor)
            throw writeFailed ? storeFailed : error
        }
        // Durable before it gets its final name, so a crash never leaves a short file under a valid hash.
        let synced = fsync(temp.descriptor) == 0
        guard close(temp.descriptor) == 0, synced, !writeFailed else { throw storeFailed }

        result.item.sha256 = digest
        if folder.holds(sha256: digest, fileExtension: result.item.fileExtension, bytes: result.item.bytes) { return result }
        guard folder.install(temp.path, sha256: digest, fileExtension: result.item.fileExtension) else { throw storeFailed }
        tempExists = false
        return result
    }

    /// Recognises the file and reads its headers (or asks ffprobe); the hash is filled in by the caller.
    private static func examine(_ source: MediaFile, file: URL, limits: MediaLimits, timeZone: TimeZone,
                                probe: VideoProbe?) throws(MediaError) -> IntakeResult {
        guard source.length > 0 else { throw .unreadable(kind: nil, problem: .empty) }
        let wanted = Int(min(source.length, Int64(ImageHeaders.sniffLength)))
        let head = source.bytes(at: 0, count: wanted)
        guard head.count == wanted else { throw .missing(path: source.path) }
        guard let format = ImageHeaders.sniff(head) else { throw .unreadable(kind: nil, problem: .unrecognized) }

        // Decided on the size the file system reports, before any of the content is parsed or hashed.
        let limit = format.kind == .photo ? limits.photoBytes : limits.videoBytes
        guard source.length <= limit else {
            throw .unreadable(kind: format.kind, problem: .tooLarge(limitMB: Int(limit / 1_000_000)))
        }

        var item = MediaItem(kind: format.kind, sha256: "", mime: format.mime,
                             fileExtension: format.fileExtension, bytes: source.length)
        switch format.kind {
        case .photo:
            guard let header = ImageHeaders.photo(format, in: source) else {
                throw .unreadable(kind: .photo, problem: .damaged)
            }
            item.width = header.width
            item.height = header.height
            let exif = header.exifTIFF.map { ExifReader.read(tiff: $0, timeZone: timeZone) } ?? ExifInfo()
            item.takenAt = exif.takenAt
            return IntakeResult(item: item, latitude: exif.latitude, longitude: exif.longitude)
        case .video:
            let info = try (probe ?? VideoProbe.system()).probe(file)
            item.width = info.width
            item.height = info.height
            item.durationSeconds = info.durationSeconds
            item.takenAt = info.takenAt
            return IntakeResult(item: item)
        case .audio, .file:
            // Memos come in through `storeVoiceMemo`, files only from imports; the photo/video
            // sniffer never says either.
            throw .unreadable(kind: nil, problem: .unrecognized)
        }
    }

    private static func isStoreName(_ sha256: String, _ fileExtension: String) -> Bool {
        let hex = sha256.utf8.count == 64 && sha256.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        let ext = (1...8).contains(fileExtension.utf8.count)
            && fileExtension.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }
        return hex && ext
    }
}

/// An open, regular, readable file, read by offset.
final class MediaFile: ByteSource {
    let path: String
    let length: Int64
    private let descriptor: Int32

    static let chunkSize = 1 << 20

    init(opening file: URL) throws(MediaError) {
        let path = file.standardizedFileURL.path
        self.path = file.path
        // O_NONBLOCK so a FIFO given as a "photo" cannot hang the open; it is rejected just below.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw .missing(path: file.path) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            _ = close(descriptor)
            throw .missing(path: file.path)
        }
        // It exists: say what it is rather than "no such file".
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR:
            _ = close(descriptor)
            throw .unreadable(kind: nil, problem: .folder)
        default:
            _ = close(descriptor)
            throw .unreadable(kind: nil, problem: .notAFile)
        }
        self.descriptor = descriptor
        self.length = Int64(info.st_size)
    }

    deinit { _ = close(descriptor) }

    func bytes(at offset: Int64, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { read(into: $0, at: offset) }
        buffer.removeSubrange(max(got, 0)...)
        return buffer
    }

    /// Fills as much of `buffer` as the file has from `offset`; returns how much, or -1 on a read error.
    private func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        var filled = 0
        while filled < buffer.count {
            let got = pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            if got < 0 {
                if errno == EINTR { continue }
                return filled == 0 ? -1 : filled
            }
            if got == 0 { break }
            filled += got
        }
        return filled
    }

    /// Reads the whole file in 1 MiB chunks, handing each to `sink` (false stops), and returns its SHA-256 in hex.
    func stream(kind: MediaKind, _ sink: (UnsafeRawBufferPointer) -> Bool) throws(MediaError) -> String {
        var hasher = SHA256Stream()
        var total: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: MediaFile.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let got = read(into: buffer, at: total)
            guard got >= 0 else { throw .unreadable(kind: kind, problem: .damaged) }
            if got == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<got])
            hasher.update(chunk)
            total += Int64(got)
            guard sink(chunk) else { break }
            // Reading past the size we checked would mean the file is still being written.
            guard total <= length else { throw .unreadable(kind: kind, problem: .damaged) }
        }
        guard total == length else { throw .unreadable(kind: kind, problem: .damaged) }
        return Hex.string(hasher.finalize())
    }
}
