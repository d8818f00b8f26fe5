import Foundation

/// A hybrid logical clock reading, `wallms.counter.device`, that sorts as text.
package struct HybridTimestamp: Sendable, Equatable, Comparable, CustomStringConvertible {
    package let wallMillis: Int64
    package let counter: Int
    package let device: String

    package init(wallMillis: Int64, counter: Int, device: String) {
        self.wallMillis = wallMillis
        self.counter = counter
        self.device = device
    }

    /// Parses the text form; nil when malformed.
    package init?(_ text: String) {
        // Every pulled row carries a clock: read the usual form by its bytes, anything else
        // the general way.
        if let quick = Self.digitsDotDigitsDotRest(text) {
            self = quick
            return
        }
        let parts = text.split(separator: ".", maxSplits: 2).map(String.init)
        guard parts.count == 3, let wall = Int64(parts[0]), let counter = Int(parts[1]) else { return nil }
        self.init(wallMillis: wall, counter: counter, device: parts[2])
    }

    private static func digitsDotDigitsDotRest(_ text: String) -> HybridTimestamp? {
        let utf8 = text.utf8
        return utf8.withContiguousStorageIfAvailable { bytes -> HybridTimestamp? in
            var index = 0
            func number(limit: Int) -> Int64? {
                let start = index
                var value: Int64 = 0
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, index - start < limit {
                    value = value * 10 + Int64(bytes[index] - 0x30)
                    index += 1
                }
                guard index > start, index < bytes.count, bytes[index] == 0x2E else { return nil }
                index += 1
                return value
            }
            guard let wall = number(limit: 18), let counter = number(limit: 18), index < bytes.count else { return nil }
            return HybridTimestamp(wallMillis: wall, counter: Int(counter), device: String(decoding: bytes[index...], as: UTF8.self))
        } ?? nil
    }

    // Fixed widths keep text order equal to clock order, so SQL can compare them as strings.
    package var description: String {
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(wallMillis, 15) + "." + padded(Int64(counter), 6) + "." + device
    }

    /// The next reading after `last`, never behind the wall clock nor behind `last`.
    package static func next(after last: HybridTimestamp?, now: Date, device: String) -> HybridTimestamp {
        let wall = Int64(now.timeIntervalSince1970 * 1000)
        guard let last, last.wallMillis >= wall else {
            return HybridTimestamp(wallMillis: wall, counter: 0, device: device)
        }
        return HybridTimestamp(wallMillis: last.wallMillis, counter: last.counter + 1, device: device)
    }

    package static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
        (lhs.wallMillis, lhs.counter, lhs.device) < (rhs.wallMillis, rhs.counter, rhs.device)
    }
}
