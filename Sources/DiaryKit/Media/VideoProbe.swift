import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What ffprobe says about a video.
struct VideoInfo: Sendable, Equatable {
    var width: Int
    var height: Int
    var durationSeconds: Double
    var takenAt: Date?
}

/// Runs `ffprobe` on a file and reads its JSON report.
struct VideoProbe: Sendable {
    /// The ffprobe to run; nil when it could not be found.
    var executable: String?
    /// How long ffprobe may take before it is killed and the file counted as damaged.
    var timeout: TimeInterval

    init(executable: String?, timeout: TimeInterval = 60) {
        self.executable = executable
        self.timeout = timeout
    }

    /// The ffprobe found on this machine's `PATH` (or in /usr/bin).
    static func system() -> VideoProbe {
        VideoProbe(executable: locate("ffprobe", path: ProcessInfo.processInfo.environment["PATH"]))
    }

    /// The first executable `name` in the directories of `path`, then in `fallbacks`.
    static func locate(_ name: String, path: String?, fallbacks: [String] = ["/usr/bin", "/usr/local/bin"]) -> String? {
        let directories = (path ?? "").split(separator: ":").map(String.init) + fallbacks
        for directory in directories where directory.hasPrefix("/") {
            let candidate = (directory as NSString).appendingPathComponent(name)
            var info = stat()
            guard stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Probes `file`; throws `.toolMissing` when ffprobe cannot be run and `.unreadable(.video, .damaged)` when
    /// it fails, times out, or finds no playable video.
    func probe(_ file: URL) throws(MediaError) -> VideoInfo {
        guard let executable else { throw .toolMissing("ffprobe") }
        let output = try run(executable, file: file)
        guard let info = VideoProbe.parse(output) else { throw .unreadable(kind: .video, problem: .damaged) }
        return info
    }

    /// The length in seconds of a file's audio; throws `.unreadable(.audio, .damaged)` when
    /// ffprobe finds no audio stream in it.
    func probeAudio(_ file: URL) throws(MediaError) -> Double {
        guard let executable else { throw .toolMissing("ffprobe") }
        let output: Data
        do {
            output = try run(executable, file: file)
        } catch .unreadable {
            throw .unreadable(kind: .audio, problem: .damaged)
        }
        guard let report = JSON.parse(output), let streams = report["streams"]?.arrayValue,
              streams.contains(where: { $0["codec_type"]?.stringValue == "audio" }) else {
            throw .unreadable(kind: .audio, problem: .damaged)
        }
        return Self.number(report["format"]?["duration"]) ?? 0
    }

    private func run(_ executable: String, file: URL) throws(MediaError) -> Data {
        // The file: prefix keeps ffprobe from reading a name like "concat:x" or "http:x" as a protocol.
        let arguments = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams",
                         "file:" + file.standardizedFileURL.path]
        switch ExternalTool.run(executable, arguments, timeout: timeout) {
        case let .finished(output): return output
        case .notStarted: throw .toolMissing("ffprobe")
        case .failed: throw .unreadable(kind: .video, problem: .damaged)
        }
    }

    /// Reads ffprobe's JSON: the first real video stream's size, a positive duration, and `creation_time`.
    static func parse(_ output: Data) -> VideoInfo? {
        guard let report = JSON.parse(output), case let .array(streams)? = report["streams"] else { return nil }
        let format = report["format"]
        for stream in streams {
            guard stream["codec_type"]?.stringValue == "video",
                  // Cover art in an audio file is a "video" stream of one picture, not a video.
                  number(stream["disposition"]?["attached_pic"]) != 1,
                  let width = number(stream["width"]).map(Int.init), let height = number(stream["height"]).map(Int.init),
                  width > 0, height > 0
            else { continue }
            let candidates = [number(format?["duration"]), number(stream["duration"])]
            guard let duration = candidates.compactMap({ $0 }).first(where: { $0.isFinite && $0 > 0 }) else { return nil }
            let takenAt = format?["tags"]?["creation_time"]?.stringValue.flatMap(parseCreationTime)
            return VideoInfo(width: width, height: height, durationSeconds: duration, takenAt: takenAt)
        }
        return nil
    }

    /// ffprobe writes most numbers as strings ("12.345000") and some as JSON numbers.
    private static func number(_ value: JSON?) -> Double? {
        switch value {
        case let .int(number)?: return Double(number)
        case let .double(number)?: return number
        case let .string(text)?: return Double(text.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    /// Parses `2024-05-01T10:20:30.000000Z` and similar ISO 8601 UTC stamps.
    static func parseCreationTime(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var date = formatter.date(from: trimmed)
        if date == nil {
            formatter.formatOptions = [.withInternetDateTime]
            date = formatter.date(from: trimmed)
        }
        if date == nil {
            // Some muxers drop the zone; creation_time is defined as UTC, so read it that way.
            formatter.formatOptions = [.withInternetDateTime]
            date = formatter.date(from: trimmed + "Z")
        }
        // Unset clocks show up as the 1904 QuickTime epoch or 1970; neither is a capture time.
        guard let date, date.timeIntervalSince1970 > 0 else { return nil }
        return date
    }
}
