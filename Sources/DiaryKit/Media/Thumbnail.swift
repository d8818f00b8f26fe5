import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small JPEG preview of a photo or video, stored content-addressed like the media.
package struct Thumbnail: Sendable, Equatable {
    /// The longest side of a thumbnail, in pixels; smaller pictures keep their size.
    package static let maxSide = 320

    /// The SHA-256 of the JPEG bytes, in lowercase hex.
    package var sha256: String
    /// The JPEG's size in bytes.
    package var bytes: Int64
    /// The JPEG's width in pixels, as shown (orientation applied).
    package var width: Int
    /// The JPEG's height in pixels, as shown (orientation applied).
    package var height: Int

    /// A thumbnail from facts already known (read back from the store).
    package init(sha256: String, bytes: Int64, width: Int, height: Int) {
        self.sha256 = sha256
        self.bytes = bytes
        self.width = width
        self.height = height
    }

    /// The file's name inside the thumbnails folder: `ab/<sha256>.jpg`.
    package var relativePath: String { "\(sha256.prefix(2))/\(sha256).jpg" }

    /// Makes (or finds, when identical bytes are already stored) the thumbnail of `source` (a photo or a video; audio → nil) under `thumbsRoot`.
    package static func make(kind: MediaKind, source: URL, into thumbsRoot: URL) throws(MediaError) -> Thumbnail? {
        try make(kind: kind, source: source, into: thumbsRoot, ffmpeg: VisionFrames.locateFFmpeg())
    }

    // MARK: Internals (ffmpeg and its time limit are injectable so tests can simulate a missing or hanging tool)

    /// How long one ffmpeg run may take before it is killed and the file counted as damaged.
    static let defaultTimeout: TimeInterval = 30

    /// Where a video's picture is taken from: past the first second, which is often black or a fade-in.
    static let videoFrameSeconds = 1

    package static func make(kind: MediaKind, source: URL, into thumbsRoot: URL, ffmpeg: String?,
                     timeout: TimeInterval = defaultTimeout) throws(MediaError) -> Thumbnail? {
        guard kind.isPicture else { return nil }
        // Checked here rather than left to ffmpeg, so a missing file is reported as missing, not as damaged.
        let file = try MediaFile(opening: source)
        guard file.length > 0 else { throw .unreadable(kind: kind, problem: .empty) }
        guard let ffmpeg else { throw .toolMissing("ffmpeg") }

        // The picture is made in memory first: a file ffmpeg cannot decode never touches the thumbnails folder.
        let jpeg = try picture(kind: kind, source: source, ffmpeg: ffmpeg, timeout: timeout)
        guard let header = ImageHeaders.photo(.jpeg, in: MemoryBytes(jpeg)) else {
            throw .unreadable(kind: kind, problem: .damaged)
        }
        let digest = SHA256Stream.hex(of: jpeg)
        let thumbnail = Thumbnail(sha256: digest, bytes: Int64(jpeg.count), width: header.width, height: header.height)
        try store(jpeg, as: thumbnail, into: thumbsRoot)
        return thumbnail
    }

    /// The JPEG bytes of a photo, or of a video's frame at 1 s (frame 0 when the clip is shorter or the seek fails).
    private static func picture(kind: MediaKind, source: URL, ffmpeg: String,
                                timeout: TimeInterval) throws(MediaError) -> [UInt8] {
        let damaged = MediaError.unreadable(kind: kind, problem: .damaged)
        guard kind == .video else {
            guard let jpeg = try frame(ffmpeg, source, kind: kind, at: nil, timeout: timeout) else { throw damaged }
            return jpeg
        }
        let started = DispatchTime.now()
        do {
            if let jpeg = try frame(ffmpeg, source, kind: kind, at: videoFrameSeconds, timeout: timeout) { return jpeg }
        } catch .toolMissing(let name) {
            throw .toolMissing(name)
        } catch {
            // A seek can fail on a file with a broken index that still plays from the start; but a run that used
            // up the whole time limit would only use it up again.
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            guard elapsed < timeout else { throw error }
        }
        guard let jpeg = try frame(ffmpeg, source, kind: kind, at: nil, timeout: timeout) else { throw damaged }
        return jpeg
    }

    /// The ffmpeg arguments that turn `source` (from `seconds` in, when given) into one JPEG on stdout.
    static func arguments(source: URL, at seconds: Int?) -> [String] {
        var arguments = ["-v", "error", "-nostdin"]
        // Before -i, -ss seeks in the container to the nearest keyframe and decodes only from there.
        if let seconds { arguments += ["-ss", String(seconds)] }
        let side = maxSide
        // Square the pixels first (anamorphic video), then fit into side×side without ever enlarging.
        // ffmpeg applies EXIF orientation and video rotation itself before the filters (autorotate is on
        // by default), so the sizes the filters see are the sizes as shown.
        let filters = "scale=iw*sar:ih,setsar=1,"
            + "scale='min(\(side),iw)':'min(\(side),ih)':force_original_aspect_ratio=decrease"
        // The file: prefix keeps ffmpeg from reading a name like "concat:x" as a protocol.
        arguments += ["-i", "file:" + source.standardizedFileURL.path,
                      // The first real video stream: never an embedded cover picture.
                      "-map", "0:V:0", "-frames:v", "1", "-vf", filters,
                      "-pix_fmt", "yuvj420p", "-q:v", "5",
                      // No encoder version comment in the JPEG, so the same picture hashes the same across ffmpeg builds.
                      "-flags:v", "+bitexact",
                      "-f", "image2pipe", "-vcodec", "mjpeg", "pipe:1"]
        return arguments
    }

    /// One JPEG frame; nil when ffmpeg ran cleanly but produced nothing (a seek past the end of a short clip).
    private static func frame(_ ffmpeg: String, _ source: URL, kind: MediaKind, at seconds: Int?,
                              timeout: TimeInterval) throws(MediaError) -> [UInt8]? {
        switch ExternalTool.run(ffmpeg, arguments(source: source, at: seconds), timeout: timeout) {
        case let .finished(data):
            if data.isEmpty { return nil }
            guard data.starts(with: [0xFF, 0xD8]) else { throw .unreadable(kind: kind, problem: .damaged) }
            return [UInt8](data)
        case .notStarted:
            throw .toolMissing("ffmpeg")
        case .failed:
            throw .unreadable(kind: kind, problem: .damaged)
        }
    }

    /// Writes `jpeg` to `thumbsRoot/ab/<sha256>.jpg` (temp file, fsync, rename) unless those bytes are already there.
    private static func store(_ jpeg: [UInt8], as thumbnail: Thumbnail, into thumbsRoot: URL) throws(MediaError) {
        let folder = ContentAddressedFolder(thumbsRoot)
        let storeFailed = MediaError.cannotStore(path: folder.rootPath)
        if folder.holds(sha256: thumbnail.sha256, fileExtension: "jpg", bytes: thumbnail.bytes) { return }
        guard let temp = folder.makeTemporaryFile() else { throw storeFailed }
        var tempExists = true
        defer { if tempExists { _ = unlink(temp.path) } }

        let written = jpeg.withUnsafeBytes { FileIO.writeAll(temp.descriptor, $0) }
        // Durable before it gets its final name, so a crash never leaves a short file under a valid hash.
        let synced = written && fsync(temp.descriptor) == 0
        guard close(temp.descriptor) == 0, synced,
              folder.install(temp.path, sha256: thumbnail.sha256, fileExtension: "jpg") else { throw storeFailed }
        tempExists = false
    }
}
