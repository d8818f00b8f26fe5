import CompanionClient
import DiaryCLI
import DiaryKit
import Foundation

/// A companion message shown on a terminal as it streams in: 「正在等回覆…」 on stderr
/// while nothing has arrived, then the speaker and each piece of text as it comes.
final class LiveReply: @unchecked Sendable {
    private let lock = NSLock()
    private let prefix: String
    private let waitingText: String?
    private var printedAnything = false
    private var waitingShown = false

    /// How long a reply may take before the waiting line appears.
    static let patience: Double = 1.0

    /// `waiting` is nil when nothing should be said on stderr (`--quiet`).
    init(prefix: String, waiting: String?) {
        self.prefix = prefix
        waitingText = waiting
    }

    /// True once any of the reply was printed (the caller then does not print it again).
    var printed: Bool { lock.withLock { printedAnything } }

    /// Prints one piece of the reply.
    func show(_ piece: String) {
        lock.withLock {
            if waitingShown {
                // Erase the waiting line: carriage return, clear to end of line.
                try? Output.standardErrorFragment("", control: "\r\u{1B}[K")
                waitingShown = false
            }
            if !printedAnything { try? Output.fragment(prefix) }
            printedAnything = true
            try? Output.fragment(piece)
        }
    }

    /// Ends the line of a printed reply, or takes back the waiting line.
    func finish() {
        lock.withLock {
            if waitingShown { try? Output.standardErrorFragment("", control: "\r\u{1B}[K") }
            waitingShown = false
            if printedAnything { try? Output.fragment("\n") }
        }
    }

    private func showWaiting() {
        lock.withLock {
            guard !printedAnything, !waitingShown, let waitingText else { return }
            try? Output.standardErrorFragment(waitingText)
            waitingShown = true
        }
    }

    /// Runs one companion step with this display: the waiting line after `patience`, and
    /// Ctrl-C cancelling the step (the person's message is already stored; nothing
    /// half-written is).
    func run<T: Sendable>(_ body: @escaping @Sendable (@escaping @Sendable (String) -> Void) async throws -> T) async throws -> T {
        let waiting = Task { [weak self] in
            try await Task.sleep(nanoseconds: UInt64(Self.patience * 1_000_000_000))
            self?.showWaiting()
        }
        defer {
            waiting.cancel()
            finish()
        }
        return try await Interruption.cancellable { try await body { [weak self] in self?.show($0) } }
    }
}

/// Ctrl-C as cancellation: while a step runs, SIGINT cancels its task instead of killing
/// the process, so the store is left between transactions, never inside one.
enum Interruption {
    static func cancellable<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        // A handler may only do async-signal-safe things: it writes one byte to a pipe, and
        // a dispatch source reading the pipe cancels the task. (A dispatch signal source
        // needs SIGINT ignored, and an ignored SIGINT can be discarded before it is seen.)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return try await wait(task) }
        interruptWriteEnd = ends[1]
        let reader = DispatchSource.makeReadSource(fileDescriptor: ends[0], queue: .global())
        let readEnd = ends[0]
        reader.setEventHandler { task.cancel() }
        reader.setCancelHandler { close(readEnd) }
        reader.resume()
        signal(SIGINT) { _ in
            var byte: UInt8 = 1
            _ = write(interruptWriteEnd, &byte, 1)
        }
        defer {
            signal(SIGINT, SIG_DFL)
            reader.cancel()
            close(ends[1])
        }
        return try await wait(task)
    }

    private static func wait<T: Sendable>(_ task: Task<T, Error>) async throws -> T {
        do {
            return try await task.value
        } catch is CancellationError {
            throw CompanionError.cancelled
        }
    }
}

/// Where the SIGINT handler writes (a C handler cannot capture context).
nonisolated(unsafe) private var interruptWriteEnd: Int32 = -1
