import Foundation

/// The one spelling a tag is stored under.
public enum TagName {
    /// Folds width (NFKC), trims space and a leading `#`, collapses inner space, lowercases
    /// Latin letters; nil when nothing is left.
    public static func normalize(_ raw: String) -> String? {
        var text = raw.precomposedStringWithCompatibilityMapping
        text = text.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\"'「」『』")))
        while text.hasPrefix("#") { text.removeFirst() }
        let words = text.split(whereSeparator: { $0.isWhitespace })
        let joined = words.joined(separator: " ").lowercased()
        guard !joined.isEmpty else { return nil }
        return String(joined.prefix(32))
    }
}
