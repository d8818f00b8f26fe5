import Foundation

/// Pictures of a photo or video small enough to send for analysis: the photo downscaled
/// to at most 1024 px on its long side, or 3–4 frames spread over a video, as JPEG.
package enum VisionFrames {
    /// The longest side of a picture sent for analysis.
    package static let maxSide = 1024

    /// JPEG pictures of `item` (stored at `file`); empty when ffmpeg is missing or cannot
    /// decode it (HEIC on older ffmpeg): the analysis then works from the words and context.
    package static func pictures(of item: MediaItem, file: URL, ffmpeg: String? = locateFFmpeg()) -> [Data] {
        guard let ffmpeg else { return [] }
        switch item.kind {
        case .photo:
            return frame(ffmpeg, file, at: nil).map { [$0] } ?? []
        case .video:
            return frameTimes(duration: item.durationSeconds ?? 0).compactMap { frame(ffmpeg, file, at: $0) }
        case .audio, .file:
            return []
        }
    }

    /// Where frames are taken from: 4 points inside the clip (1 for a clip under 2 s).
    static func frameTimes(duration: Double) -> [Double] {
        guard duration >= 2 else { return [0] }
        return [0.1, 0.37, 0.63, 0.9].map { ($0 * duration * 100).rounded() / 100 }
    }

    /// The ffmpeg on this machine's PATH.
    package static func locateFFmpeg() -> String? {
        VideoProbe.locate("ffmpeg", path: ProcessInfo.processInfo.environment["PATH"])
    }

    private static func frame(_ ffmpeg: String, _ file: URL, at seconds: Double?) -> Data? {
        var arguments = ["-v", "error", "-nostdin"]
        if let seconds { arguments += ["-ss", String(format: "%.2f", seconds)] }
        // The file: prefix keeps ffmpeg from reading a name like "concat:x" as a protocol.
        arguments += ["-i", "file:" + file.standardizedFileURL.path, "-frames:v", "1",
                      "-vf", "scale='min(\(maxSide),iw)':'min(\(maxSide),ih)':force_original_aspect_ratio=decrease",
                      "-q:v", "4", "-f", "image2pipe", "-vcodec", "mjpeg", "pipe:1"]
        guard case let .finished(data) = ExternalTool.run(ffmpeg, arguments, timeout: 30),
              data.starts(with: [0xFF, 0xD8]) else { return nil }
        return data
    }
}
