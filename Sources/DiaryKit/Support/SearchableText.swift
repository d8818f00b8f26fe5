import Foundation

/// How text is cut into searchable words: CJK runs as overlapping bigrams plus single
/// characters, everything else as lowercased words.
///
/// SQLite's `unicode61` tokenizer keeps a run of Chinese as one token, so 海邊 would never
/// match 今天去海邊; cutting runs here, for both the index and the query, fixes that.
public enum SearchableText {
    /// One piece of a query: a CJK run or a word.
    public enum Piece: Equatable, Sendable {
        case cjk(String)
        case word(String)
    }

    /// The text as it is stored in the full-text index.
    public static func indexForm(_ text: String) -> String {
        var out: [String] = []
        for piece in pieces(of: text) {
            switch piece {
            case let .word(word): out.append(word)
            case let .cjk(run):
                let characters = Array(run)
                // Bigrams in order, so a longer query is a phrase of adjacent bigrams; then the
                // single characters, which can never be mistaken for part of such a phrase.
                if characters.count > 1 {
                    for index in 0..<(characters.count - 1) { out.append(String(characters[index...index + 1])) }
                }
                out.append(contentsOf: characters.map(String.init))
            }
        }
        return out.joined(separator: " ")
    }

    /// Splits text into CJK runs and lowercased words; punctuation and space separate them.
    public static func pieces(of text: String) -> [Piece] {
        var pieces: [Piece] = []
        var current = ""
        var currentIsCJK = false
        func flush() {
            guard !current.isEmpty else { return }
            pieces.append(currentIsCJK ? .cjk(current) : .word(current.lowercased()))
            current = ""
        }
        for character in text.precomposedStringWithCompatibilityMapping {
            let isCJK = character.unicodeScalars.first.map(isCJKScalar) ?? false
            let isWordCharacter = character.isLetter || character.isNumber
            if !isCJK && !isWordCharacter { flush(); continue }
            if isCJK != currentIsCJK { flush() }
            currentIsCJK = isCJK
            current.append(character)
        }
        flush()
        return pieces
    }

    static func isCJKScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF,
             0xF900...0xFAFF, 0x20000...0x2FA1F:
            return true
        default:
            return false
        }
    }
}
