import DiaryKit
import Foundation

/// Reassembles a `text/event-stream` body into the `data` of each event, whatever way the
/// bytes were cut into network chunks (a line, or a UTF-8 character, may span two).
struct ServerSentEvents {
    private var line: [UInt8] = []
    private var data: [String] = []
    private var lastWasCR = false

    /// Takes the next bytes; returns the data of every event they complete.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [String] {
        var events: [String] = []
        for byte in bytes {
            // A line ends at LF, CR, or CRLF (counted once).
            if byte == 0x0A, lastWasCR { lastWasCR = false; continue }
            lastWasCR = byte == 0x0D
            if byte == 0x0A || byte == 0x0D {
                if let event = endLine() { events.append(event) }
            } else {
                line.append(byte)
            }
        }
        return events
    }

    /// The event left open when the stream ended without a blank line, if any.
    mutating func finish() -> String? {
        if !line.isEmpty { _ = endLine() }
        return dispatch()
    }

    private mutating func endLine() -> String? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty { return dispatch() }
        let text = String(decoding: line, as: UTF8.self)
        // Comments (":" first) keep the connection alive; only "data" matters to us.
        guard !text.hasPrefix(":") else { return nil }
        let field = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard field[0] == "data" else { return nil }
        var value = field.count > 1 ? String(field[1]) : ""
        if value.hasPrefix(" ") { value.removeFirst() }
        data.append(value)
        return nil
    }

    private mutating func dispatch() -> String? {
        guard !data.isEmpty else { return nil }
        defer { data.removeAll() }
        return data.joined(separator: "\n")
    }
}
