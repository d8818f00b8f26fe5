import Foundation

/// A JSON value whose objects keep their key order, so output reads `kind` first.
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// `.string` or `.null`.
    public static func optional(_ text: String?) -> JSON { text.map(JSON.string) ?? .null }
    /// `.int` or `.null`.
    public static func optional(_ number: Int?) -> JSON { number.map { .int(Int64($0)) } ?? .null }
    /// `.double` or `.null`.
    public static func optional(_ number: Double?) -> JSON { number.map(JSON.double) ?? .null }

    /// The value under `key` of an object.
    public subscript(key: String) -> JSON? {
        guard case let .object(pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    /// The item at `index` of an array.
    public subscript(index: Int) -> JSON? {
        guard case let .array(items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// The text of a `.string`.
    public var stringValue: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    /// The items of an `.array`.
    public var arrayValue: [JSON]? {
        if case let .array(items) = self { return items }
        return nil
    }

    /// The number of an `.int` or `.double`.
    public var doubleValue: Double? {
        switch self {
        case let .int(value): return Double(value)
        case let .double(value): return value
        default: return nil
        }
    }

    /// A whole number that fits in 64 bits (`2`, `2.0`); nil for anything else, however
    /// large or fractional: what a count, a size or a version is read as, so that no value
    /// from outside can trap a conversion.
    public var integerValue: Int64? {
        switch self {
        case let .int(value): return value
        case let .double(value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// Compact, one-line serialization (JSON Lines).
    public var serialized: String {
        // Written as UTF-8 bytes and made a String once: text is copied in whole runs between
        // the characters that need escaping, not a character at a time.
        var out: [UInt8] = []
        out.reserveCapacity(512)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case .null: out += "null".utf8
        case let .bool(value): out += (value ? "true" : "false").utf8
        case let .int(value): out += String(value).utf8
        case let .double(value):
            if value.isFinite {
                // A whole number keeps its ".0" (it stays a double when read back). Not
                // String(format:): its first use wakes the locale machinery, ~25 ms of a command.
                out += (value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) + ".0" : "\(value)").utf8
            } else {
                out += "null".utf8
            }
        case let .string(text): JSON.writeString(text, into: &out)
        case let .array(items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(pairs):
            out.append(UInt8(ascii: "{"))
            for (index, pair) in pairs.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSON.writeString(pair.0, into: &out)
                out.append(UInt8(ascii: ":"))
                pair.1.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string: the text's UTF-8 in runs, with quotes, backslashes, control characters
    /// and U+2028/U+2029 (line breaks to JavaScript) escaped.
    private static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var run = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                var width = 1
                let escape: String
                switch byte {
                case UInt8(ascii: "\""): escape = "\\\""
                case UInt8(ascii: "\\"): escape = "\\\\"
                case UInt8(ascii: "\n"): escape = "\\n"
                case UInt8(ascii: "\r"): escape = "\\r"
                case UInt8(ascii: "\t"): escape = "\\t"
                case 0..<0x20: escape = (byte < 0x10 ? "\\u000" : "\\u00") + String(byte, radix: 16)
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8.
                case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] | 1) == 0xA9:
                    escape = bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029"
                    width = 3
                default:
                    index += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                out += escape.utf8
                index += width
                run = index
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<bytes.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Parses one JSON document; nil when it is not valid JSON (or not UTF-8).
    public static func parse(_ data: Data) -> JSON? {
        var parser = JSONParser(bytes: [UInt8](data))
        return parser.parseDocument()
    }

    /// Reads a JSON file another program wrote: as `parse`, after a leading UTF-8 byte order
    /// mark if there is one (editors on some systems write it; RFC 8259 lets a reader ignore it).
    public static func parse(file bytes: [UInt8]) -> JSON? { parse(Data(withoutByteOrderMark(bytes))) }

    /// The bytes after a leading UTF-8 byte order mark (EF BB BF).
    public static func withoutByteOrderMark(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
    }
}

// A strict RFC 8259 reader: we need to tell people precisely when a line is not JSON,
// and to keep object key order, which Foundation's reader does not.
private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() -> JSON? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        skipSpace()
        guard let value = parseValue() else { return nil }
        skipSpace()
        return index == bytes.count ? value : nil
    }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[index]) { index += 1 }
    }

    mutating func parseValue() -> JSON? {
        guard index < bytes.count, depth < 512 else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return parseObject()
        case UInt8(ascii: "["): return parseArray()
        case UInt8(ascii: "\""): return parseString().map(JSON.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return parseNumber()
        }
    }

    mutating func literal(_ word: String, _ value: JSON) -> JSON? {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else { return nil }
        index += utf8.count
        return value
    }

    mutating func parseObject() -> JSON? {
        index += 1; depth += 1; defer { depth -= 1 }
        var pairs: [(String, JSON)] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(pairs) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = parseString() else { return nil }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipSpace()
            guard let value = parseValue() else { return nil }
            pairs.append((key, value))
            skipSpace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(pairs) }
            return nil
        }
    }

    mutating func parseArray() -> JSON? {
        index += 1; depth += 1; defer { depth -= 1 }
        var items: [JSON] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipSpace()
            guard let value = parseValue() else { return nil }
            items.append(value)
            skipSpace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            return nil
        }
    }

    mutating func parseString() -> String? {
        index += 1
        let start = index
        // Most strings hold no escape: one pass to the closing quote and one decode of the
        // bytes between (the document was checked to be UTF-8 already).
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: bytes[start..<index - 1], as: UTF8.self)
            }
            if byte < 0x20 { return nil }
            if byte == UInt8(ascii: "\\") { break }
            index += 1
        }
        var text = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: text, as: UTF8.self)
            }
            if byte < 0x20 { return nil }
            if byte != UInt8(ascii: "\\") { text.append(byte); index += 1; continue }
            index += 1
            guard index < bytes.count else { return nil }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "u"):
                guard var code = hex4() else { return nil }
                if (0xD800..<0xDC00).contains(code) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
                    index += 2
                    guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { return nil }
                UTF8.encode(scalar) { text.append($0) }
            default: return nil
            }
        }
        return nil
    }

    mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count, let text = String(bytes: bytes[index..<index + 4], encoding: .ascii),
              let value = UInt32(text, radix: 16) else { return nil }
        index += 4
        return value
    }

    /// JSON's number, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, read by hand: a
    /// regular expression here was compiled anew for every number of a pull or a restore.
    mutating func parseNumber() -> JSON? {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - from
        }
        func skip(_ byte: UInt8, or other: UInt8? = nil) -> Bool {
            guard index < bytes.count, bytes[index] == byte || bytes[index] == other else { return false }
            index += 1
            return true
        }
        _ = skip(UInt8(ascii: "-"))
        let whole = index
        let wholeDigits = digits()
        guard wholeDigits > 0, wholeDigits == 1 || bytes[whole] != UInt8(ascii: "0") else { return nil }
        var isInteger = true
        if skip(UInt8(ascii: ".")) {
            isInteger = false
            guard digits() > 0 else { return nil }
        }
        if skip(UInt8(ascii: "e"), or: UInt8(ascii: "E")) {
            isInteger = false
            _ = skip(UInt8(ascii: "+"), or: UInt8(ascii: "-"))
            guard digits() > 0 else { return nil }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        return Double(text).map(JSON.double)
    }
}
