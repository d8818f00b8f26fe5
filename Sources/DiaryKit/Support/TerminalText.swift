import Foundation

/// Text from the diary, an import, another device or a model, made safe to print on a
/// terminal: control characters (but line feed and tab) and bidirectional controls are
/// shown, not obeyed, so stored text cannot move the cursor, retitle the window, ring the
/// bell or reorder what a line seems to say. JSON output stays exact; this is for text.
package enum TerminalText {
    /// `text` with each control shown as `^[` (C0 and DEL, as `cat -v` does) or `<U+202E>`
    /// (C1 controls, bidirectional embeddings, overrides and isolates). With `highlight`,
    /// the search's match marks (U+0002, U+0003) become bold yellow instead.
    package static func neutralized(_ text: String, highlight: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: needsCare) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsCare(scalar) else { shown.append(scalar); continue }
            let replacement: String
            switch scalar.value {
            case 0x02 where highlight: replacement = "\u{1B}[1;33m"
            case 0x03 where highlight: replacement = "\u{1B}[0m"
            case 0x00..<0x20: replacement = "^" + String(UnicodeScalar(UInt8(scalar.value + 0x40)))
            case 0x7F: replacement = "^?"
            default: replacement = String(format: "<U+%04X>", scalar.value)
            }
            shown.append(contentsOf: replacement.unicodeScalars)
        }
        return String(shown)
    }

    /// What a message quotes from input: neutralised and cut to `limit` characters, so a
    /// 20 MB argument is not echoed whole.
    package static func quoted(_ text: String, limit: Int = 80) -> String {
        let cut = text.count > limit ? String(text.prefix(limit)) + "…" : text
        return neutralized(cut)
    }

    private static func needsCare(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return false
        case 0x00..<0x20, 0x7F, 0x80..<0xA0: return true
        // LRE, RLE, PDF, LRO, RLO; LRI, RLI, FSI, PDI; the Arabic letter mark.
        case 0x202A...0x202E, 0x2066...0x2069, 0x061C: return true
        default: return false
        }
    }
}
