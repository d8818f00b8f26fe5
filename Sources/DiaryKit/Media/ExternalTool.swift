import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a helper program (ffprobe, ffmpeg) with no shell, no stdin and a time limit.
enum ExternalTool {
    enum Outcome {
        /// It exited 0; what it wrote on stdout.
        case finished(Data)
        /// It could not be started (not installed, not executable).
        case notStarted
        /// It exited with an error, was killed, or ran out of time.
        case failed
    }

    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval) -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice

        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            return .notStarted
        }

        // Drain the pipe while the tool runs, so a large output cannot fill it and stall both sides.
        let collected = Locked(Data())
        let drained = DispatchSemaphore(value: 0)
        let reader = stdout.fileHandleForReading
        DispatchQueue.global().async {
            let data = reader.readDataToEndOfFile()
            collected.withLock { $0 = data }
            drained.signal()
        }

        if exited.wait(timeout: .now() + timeout) == .timedOut {
            // SIGKILL rather than SIGTERM: a child spawned from a dispatch thread inherits its blocked signal
            // mask and would ignore SIGTERM, and these tools have nothing to clean up.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            _ = exited.wait(timeout: .now() + 5)
            return .failed
        }
        // The tools start no children, so the pipe closes when they exit; the wait only guards against surprises.
        guard drained.wait(timeout: .now() + 5) == .success,
              process.terminationReason == .exit, process.terminationStatus == 0
        else { return .failed }
        return .finished(collected.withLock { $0 })
    }
}
