import Foundation

/// The one spelling a tag is stored under, and the spelling it was written in.
public enum TagName {
    /// Folds width (NFKC), trims space and a leading `#`, collapses inner space, lowercases
    /// Latin letters; nil when nothing is left.
    public static func normalize(_ raw: String) -> String? {
        guard let written = tidied(raw) else { return nil }
        return String(written.lowercased().prefix(32))
    }

    /// The tag as written (`Pizza`, `New York`), tidied the same way but keeping its case;
    /// nil when that is just its name, as it nearly always is.
    public static func label(_ raw: String) -> String? {
        guard let written = tidied(raw).map({ String($0.prefix(32)) }), written != normalize(raw) else { return nil }
        return written
    }

    private static func tidied(_ raw: String) -> String? {
        var text = raw.precomposedStringWithCompatibilityMapping
        text = text.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\"'「」『』")))
        while text.hasPrefix("#") { text.removeFirst() }
        let joined = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return joined.isEmpty ? nil : joined
    }
}
