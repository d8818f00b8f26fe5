import DiaryKit
import Foundation

/// Writing to stdout and stderr the Unix way: a reader that went away (broken pipe) ends
/// the program quietly with success; any other failed write is an I/O error.
package enum Output {
    /// Writes one line of readable text to stdout, controls in it shown, not obeyed;
    /// with `highlight`, the search's match marks become colour.
    package static func line(_ text: String, highlight: Bool = false) throws {
        try write(TerminalText.neutralized(text, highlight: highlight) + "\n", to: STDOUT_FILENO)
    }

    /// Writes one JSON Lines object to stdout, exactly.
    package static func json(_ value: JSON) throws {
        try write(value.serialized + "\n", to: STDOUT_FILENO)
    }

    /// Writes text to stdout without a newline (prompts, streamed replies), controls shown.
    package static func fragment(_ text: String) throws {
        try write(TerminalText.neutralized(text), to: STDOUT_FILENO)
    }

    /// Writes text for people to stderr without a newline (a question, a waiting line);
    /// `control` is our own terminal sequence in front of it (clear the line), sent as is.
    package static func standardErrorFragment(_ text: String, control: String = "") throws {
        try write(control + TerminalText.neutralized(text), to: STDERR_FILENO)
    }

    /// Writes a line for people to stderr, controls shown; failures here have nowhere to be reported.
    package static func standardError(_ text: String) {
        try? write(TerminalText.neutralized(text) + "\n", to: STDERR_FILENO)
    }

    private static func write(_ text: String, to descriptor: Int32) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE && descriptor == STDOUT_FILENO { exit(0) }
                throw OutputError.writeFailed(errno)
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// Standard output could not be written.
enum OutputError: Error, Equatable {
    case writeFailed(Int32)
}
