import DiaryKit
import Foundation
import Testing

/// What one run of a built binary produced.
struct RunResult {
    let status: Int32
    let stdoutData: Data
    let stderr: String
    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    /// stdout as JSON Lines objects.
    var lines: [[String: Any]] {
        stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }
}

/// A fresh, empty diary in a temp folder, and a way to run the tools against it.
final class Sandbox: @unchecked Sendable {
    let root: URL
    var home: URL { root.appendingPathComponent("home") }
    var language = "zh_TW.UTF-8"
    var extraEnvironment: [String: String] = [:]

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("diary-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    static var binaries: URL {
        if let dir = ProcessInfo.processInfo.environment["DIARY_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        // The test bundle sits next to the executables in .build/<config>/.
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("diary-new").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug")
    }

    var environment: [String: String] {
        var env = [
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": root.path,
            "DIARY_HOME": home.path,
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "XDG_STATE_HOME": root.appendingPathComponent("state").path,
            "LANG": language,
            "TZ": "Asia/Taipei",
        ]
        env.merge(extraEnvironment) { $1 }
        return env
    }

    /// Starts a tool with stdin from `input` (or empty) and pipes for stdout and stderr.
    func start(_ tool: String, _ arguments: [String], input: Data = Data()) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = Sandbox.binaries.appendingPathComponent(tool)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = root
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        return (process, stdout, stderr)
    }

    /// Runs a tool to the end.
    @discardableResult
    func run(_ tool: String, _ arguments: [String] = [], input: Data = Data()) throws -> RunResult {
        let (process, stdout, stderr) = try start(tool, arguments, input: input)
        // Read both pipes at once so neither can fill up and stall the child.
        nonisolated(unsafe) var errorData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorData = stderr.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdoutData: outputData,
                         stderr: String(decoding: errorData, as: UTF8.self))
    }

    /// Runs a tool to the end without holding a Swift concurrency thread: the in-process
    /// fake servers answer on those threads while the tool waits for them.
    func runDetached(_ tool: String, _ arguments: [String] = [], input: Data = Data()) async throws -> RunResult {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.run(tool, arguments, input: input) })
            }
        }
    }

    /// Runs a tool with stdin from /dev/null and stdout into `output`, and returns its exit
    /// status and peak resident memory in bytes. GNU time forks the tool from its own small
    /// process and reads wait4's count: measured from here, a child spawned by the test
    /// process would inherit the test process's own peak (Linux keeps it across exec).
    func runMeasuringMemory(_ tool: String, _ arguments: [String], output: URL) throws -> (status: Int32, peakBytes: Int) {
        let report = root.appendingPathComponent("peak-memory")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let time = "/usr/bin/time"
        let argv = ([time, "-f", "%M", "-o", report.path, Sandbox.binaries.appendingPathComponent(tool).path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, time, &actions, nil, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let kilobytes = try String(contentsOf: report, encoding: .utf8).split(separator: "\n").last.flatMap { Int($0) }
        return ((status >> 8) & 0xff, try #require(kilobytes, "GNU time reported a peak") * 1024)
    }

    /// Runs a tool with text on stdin.
    @discardableResult
    func run(_ tool: String, _ arguments: [String] = [], stdin text: String) throws -> RunResult {
        try run(tool, arguments, input: Data(text.utf8))
    }

    /// Runs `a | b | c` through real pipes.
    func pipeline(_ stages: [(String, [String])]) throws -> [RunResult] {
        var results: [RunResult] = []
        var input = Data()
        for (tool, arguments) in stages {
            let result = try run(tool, arguments, input: input)
            results.append(result)
            input = result.stdoutData
        }
        return results
    }

    /// Makes a media file with ffmpeg (a test pattern photo or video).
    func makeMedia(_ name: String, size: String = "320x240", seconds: Int = 1) throws -> URL {
        let url = root.appendingPathComponent(name)
        let isVideo = ["mp4", "mov", "webm", "m4v"].contains(url.pathExtension)
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=\(size):rate=5"]
        arguments += isVideo ? ["-t", "\(seconds)", "-pix_fmt", "yuv420p"] : ["-frames:v", "1"]
        if url.pathExtension == "mp4" || url.pathExtension == "mov" { arguments += ["-c:v", "mpeg4"] }
        arguments.append(url.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "ffmpeg could not make \(name)")
        return url
    }

    /// A file with the given bytes.
    func makeFile(_ name: String, _ bytes: Data) throws -> URL {
        let url = root.appendingPathComponent(name)
        try bytes.write(to: url)
        return url
    }

    /// The diary's logical content: a dump of the database plus every media file and its size.
    /// (Byte images would differ after a harmless WAL checkpoint.)
    func snapshot() throws -> String {
        var lines = [try sql(".dump")]
        let media = home.appendingPathComponent("media")
        if let enumerator = FileManager.default.enumerator(at: media, includingPropertiesForKeys: [.fileSizeKey]) {
            for case let url as URL in enumerator {
                let size = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? -1
                lines.append("\(url.path) \(size)")
            }
        }
        return lines.sorted().joined(separator: "\n")
    }

    /// The full-text index agrees with the entries (checked in-process: the index's
    /// tokenizer lives in DiaryKit, so the sqlite3 shell cannot read it).
    func searchIndexIsConsistent() throws -> Bool {
        try DiaryStore.open(DiaryPaths(homeFlag: home.path, environment: [:])).searchIndexIsConsistent()
    }

    /// Rows of a query, run by the sqlite3 command-line shell.
    func sql(_ query: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [home.appendingPathComponent("diary.sqlite").path, query]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Runs SQL with the real `psql` client; returns its status and trimmed output.
@discardableResult
func psql(_ url: String, _ sql: String) throws -> (status: Int32, output: String) {
    let result = try shell(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", url, "-c", sql])
    return (result.status, result.output.trimmingCharacters(in: .whitespacesAndNewlines))
}

extension Sandbox {
    /// A saved page from a photo, through the real pipeline; returns its id.
    @discardableResult
    func savedPage(_ text: String, photo: URL) throws -> String {
        let results = try pipeline([("diary-new", [photo.path, "--text", text]), ("diary-chat", ["-m", text]), ("diary-save", [])])
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        return try #require(results[2].lines.first?["id"] as? String)
    }
}
