import Foundation

/// The one spelling a tag is stored under, and the spelling it was written in.
package enum TagName {
    /// Folds width (NFKC), trims space and a leading `#`, collapses inner space, lowercases
    /// Latin letters; nil when nothing is left.
    package static func normalize(_ raw: String) -> String? {
        tidied(raw).map(folded)
    }

    /// The tag as written (`Pizza`, `New York`), tidied the same way but keeping its case;
    /// nil when that is just its name, as it nearly always is.
    package static func label(_ raw: String) -> String? {
        guard let written = tidied(raw) else { return nil }
        let label = String(written.prefix(longest))
        return label == folded(written) ? nil : label
    }

    /// The most characters a tag's name keeps.
    package static let longest = 32

    /// True when the tag, tidied, is longer than a name keeps: typed by hand it is refused,
    /// not cut without a word.
    package static func isTooLong(_ raw: String) -> Bool { (tidied(raw)?.count ?? 0) > longest }

    /// The stored name of a tidied tag: lowercased, at most `longest` characters.
    private static func folded(_ written: String) -> String { String(written.lowercased().prefix(longest)) }

    private static func tidied(_ raw: String) -> String? {
        // Nearly every tag is tidy already: a word of printable ASCII or CJK ideographs, which
        // the folding below leaves as it is (a pull reads thousands of tags; the general way
        // costs tens of thousands of instructions each).
        if let first = raw.unicodeScalars.first, first != "#", raw.unicodeScalars.allSatisfy(isTidyAsWritten) { return raw }
        var text = raw.precomposedStringWithCompatibilityMapping
        text = text.trimmingCharacters(in: trimmed)
        while text.hasPrefix("#") { text.removeFirst() }
        let joined = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return joined.isEmpty ? nil : joined
    }

    private static let trimmed = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\"'「」『』"))

    /// Printable ASCII but space and quotes, or a CJK unified ideograph (U+4E00–U+9FFF):
    /// compatibility folding keeps each as it is, and none is trimmed or splits words.
    private static func isTidyAsWritten(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x22, 0x27: false
        case 0x21...0x7E, 0x4E00...0x9FFF: true
        default: false
        }
    }
}
