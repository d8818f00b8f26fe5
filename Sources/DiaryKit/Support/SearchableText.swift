import Foundation

/// How text is cut into searchable tokens: runs of Chinese (and Japanese, Korean) as
/// overlapping two-character tokens, everything else as lowercased words.
///
/// Chinese has no spaces, so a word-based index keeps 今天去海邊 as one token and 海邊 never
/// matches it. Cutting every run into overlapping pairs (今天 天去 去海 海邊) makes any word of
/// two or more characters a phrase of adjacent pairs; the last character of each run is also
/// kept alone, so a one-character search (a prefix of the pairs, or that last character)
/// finds every place the character occurs. Chinese is folded to one script first, so
/// Traditional and Simplified find each other.
public enum SearchableText {
    /// One piece of a search: a CJK run or a word, as typed.
    public enum Piece: Equatable, Sendable {
        case cjk(String)
        case word(String)
    }

    /// Why text is being tokenized: documents get the run-final single characters, queries
    /// do not (a query's pairs already say everything).
    public enum Purpose: Sendable {
        case document
        case query
    }

    /// One token: its folded bytes and the byte range of the original text it stands for.
    public typealias TokenSink = (_ token: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool

    /// Cuts UTF-8 text into tokens, calling `emit` for each in order; stops early (and
    /// returns false) when `emit` does.
    @discardableResult
    public static func tokenize(_ text: UnsafeBufferPointer<UInt8>, purpose: Purpose, emit: TokenSink) -> Bool {
        withoutActuallyEscaping(emit) { emit in
            var cutter = Cutter(purpose: purpose, emit: emit)
            var index = 0
            while index < text.count {
                let (scalar, length) = decode(text, at: index)
                guard cutter.take(scalar, start: index, end: index + length) else { return false }
                index += length
            }
            return cutter.finish()
        }
    }

    /// Cuts a String into tokens (for tests and tools; the index calls the buffer form).
    public static func tokens(_ text: String, purpose: Purpose) -> [String] {
        var tokens: [String] = []
        _ = Array(text.utf8).withUnsafeBufferPointer { buffer in
            tokenize(buffer, purpose: purpose) { token, _, _ in
                tokens.append(String(decoding: token, as: UTF8.self))
                return true
            }
        }
        return tokens
    }

    /// Splits a search into CJK runs and lowercased words; anything else separates them.
    public static func pieces(of text: String) -> [Piece] {
        var pieces: [Piece] = []
        var current = String.UnicodeScalarView()
        var currentKind = Kind.separator
        func flush() {
            guard !current.isEmpty else { return }
            let text = String(current)
            pieces.append(currentKind == .cjk ? .cjk(text) : .word(text.lowercased()))
            current = String.UnicodeScalarView()
        }
        for original in text.unicodeScalars {
            let scalar = Unicode.Scalar(widened(original.value)) ?? original
            let kind = kind(of: scalar.value)
            if kind != currentKind || kind == .separator { flush() }
            currentKind = kind
            if kind != .separator { current.append(scalar) }
        }
        flush()
        return pieces
    }

    // MARK: - Cutting

    enum Kind { case cjk, word, separator }

    private struct Cutter {
        let purpose: Purpose
        let emit: TokenSink
        var word: [UInt8] = []
        var wordIsASCII = true
        var wordStart = 0
        var wordEnd = 0
        // The CJK run so far is only ever needed one character back.
        var previous: (scalar: UInt32, start: Int)?
        var runLength = 0
        var lastEnd = 0

        init(purpose: Purpose, emit: @escaping TokenSink) {
            self.purpose = purpose
            self.emit = emit
        }

        mutating func take(_ raw: UInt32, start: Int, end: Int) -> Bool {
            let scalar = widened(raw)
            switch kind(of: scalar) {
            case .cjk:
                guard endWord() else { return false }
                let folded = ChineseFolding.fold(scalar)
                if let previous {
                    guard send(previous.scalar, folded, start: previous.start, end: end) else { return false }
                }
                previous = (folded, start)
                runLength += 1
                lastEnd = end
                return true
            case .word:
                guard endRun() else { return false }
                if word.isEmpty { wordStart = start }
                wordEnd = end
                if scalar < 0x80 {
                    word.append(UInt8(scalar) | (scalar >= 0x41 && scalar <= 0x5A ? 0x20 : 0))
                } else {
                    wordIsASCII = false
                    appendUTF8(scalar, to: &word)
                }
                return true
            case .separator:
                return endRun() && endWord()
            }
        }

        mutating func finish() -> Bool { endRun() && endWord() }

        /// Ends a CJK run: a lone character is its own token; a document also keeps the
        /// run's last character, so one-character searches find it.
        private mutating func endRun() -> Bool {
            defer { previous = nil; runLength = 0 }
            guard let previous else { return true }
            if runLength == 1 || purpose == .document {
                return send(previous.scalar, nil, start: previous.start, end: lastEnd)
            }
            return true
        }

        private mutating func endWord() -> Bool {
            guard !word.isEmpty else { return true }
            defer { word.removeAll(keepingCapacity: true); wordIsASCII = true }
            if wordIsASCII {
                return word.withUnsafeBufferPointer { emit($0, wordStart, wordEnd) }
            }
            // Rare outside Latin text: case and accents fold the slow, thorough way.
            let folded = String(decoding: word, as: UTF8.self)
                .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            var bytes = Array(folded.utf8)
            return bytes.withUnsafeMutableBufferPointer { emit(UnsafeBufferPointer($0), wordStart, wordEnd) }
        }

        private func send(_ first: UInt32, _ second: UInt32?, start: Int, end: Int) -> Bool {
            // Two characters are at most eight bytes: written on the stack, not into an array.
            var bytes: UInt64 = 0
            return withUnsafeMutableBytes(of: &bytes) { raw in
                var count = writeUTF8(first, to: raw, at: 0)
                if let second { count = writeUTF8(second, to: raw, at: count) }
                return emit(UnsafeBufferPointer(rebasing: raw.assumingMemoryBound(to: UInt8.self)[..<count]), start, end)
            }
        }
    }

    static func kind(of scalar: UInt32) -> Kind {
        if scalar < 0x80 {
            switch scalar {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return .word
            default: return .separator
            }
        }
        switch scalar {
        case 0x4E00...0x9FFF, 0x3040...0x309F, 0x30A0...0x30FF, 0x3400...0x4DBF, 0xAC00...0xD7AF,
             0xF900...0xFAFF, 0x20000...0x323AF:
            return .cjk
        // The spaces and punctuation of Chinese text, answered without Unicode's property
        // tables (a look there is most of the time of cutting a line); a test holds these
        // ranges to what the tables say.
        case 0x2000...0x206F, 0x3000...0x3004, 0x3008...0x3020, 0xFE30...0xFE4F, 0xFF5F...0xFF65:
            return .separator
        default:
            return kindByProperties(of: scalar)
        }
    }

    /// A character's kind as Unicode's properties give it: letters, numbers and marks make words.
    static func kindByProperties(of scalar: UInt32) -> Kind {
        guard let value = Unicode.Scalar(scalar) else { return .separator }
        let properties = value.properties
        if properties.isAlphabetic || properties.numericType != nil { return .word }
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return .word
        default: return .separator
        }
    }

    /// Full-width Latin letters and digits (ＡＢＣ１２３) as their ordinary forms.
    static func widened(_ scalar: UInt32) -> UInt32 {
        (0xFF01...0xFF5E).contains(scalar) ? scalar - 0xFEE0 : scalar
    }

    private static func decode(_ text: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int) {
        let lead = UInt32(text[index])
        func continuation(_ offset: Int) -> UInt32? {
            guard index + offset < text.count else { return nil }
            let byte = UInt32(text[index + offset])
            return byte & 0xC0 == 0x80 ? byte & 0x3F : nil
        }
        // Broken sequences (never written by us, but a file can be damaged) count as one
        // separator byte each.
        switch lead {
        case 0..<0x80:
            return (lead, 1)
        case 0xC0..<0xE0:
            guard let b1 = continuation(1) else { return (0xFFFD, 1) }
            return ((lead & 0x1F) << 6 | b1, 2)
        case 0xE0..<0xF0:
            guard let b1 = continuation(1), let b2 = continuation(2) else { return (0xFFFD, 1) }
            return ((lead & 0x0F) << 12 | b1 << 6 | b2, 3)
        case 0xF0..<0xF8:
            guard let b1 = continuation(1), let b2 = continuation(2), let b3 = continuation(3) else { return (0xFFFD, 1) }
            return ((lead & 0x07) << 18 | b1 << 12 | b2 << 6 | b3, 4)
        default:
            return (0xFFFD, 1)
        }
    }

    /// Writes a character's UTF-8 at `offset` (the buffer has room); returns the offset after it.
    private static func writeUTF8(_ scalar: UInt32, to buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        switch scalar {
        case 0..<0x80:
            buffer[offset] = UInt8(scalar)
            return offset + 1
        case 0x80..<0x800:
            buffer[offset] = UInt8(0xC0 | scalar >> 6)
            buffer[offset + 1] = UInt8(0x80 | scalar & 0x3F)
            return offset + 2
        case 0x800..<0x1_0000:
            buffer[offset] = UInt8(0xE0 | scalar >> 12)
            buffer[offset + 1] = UInt8(0x80 | (scalar >> 6) & 0x3F)
            buffer[offset + 2] = UInt8(0x80 | scalar & 0x3F)
            return offset + 3
        default:
            buffer[offset] = UInt8(0xF0 | scalar >> 18)
            buffer[offset + 1] = UInt8(0x80 | (scalar >> 12) & 0x3F)
            buffer[offset + 2] = UInt8(0x80 | (scalar >> 6) & 0x3F)
            buffer[offset + 3] = UInt8(0x80 | scalar & 0x3F)
            return offset + 4
        }
    }

    private static func appendUTF8(_ scalar: UInt32, to bytes: inout [UInt8]) {
        var encoded: UInt32 = 0
        withUnsafeMutableBytes(of: &encoded) { raw in bytes.append(contentsOf: raw[..<writeUTF8(scalar, to: raw, at: 0)]) }
    }
}
