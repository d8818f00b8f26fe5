import DiaryKit
import SyncSession
import Foundation

/// Splits a SQL script into statements for a driver that runs one at a time: semicolons
/// inside quotes, quoted names, dollar-quoted bodies and comments do not end a statement.
package enum SQLScript {
    package static func statements(_ script: String) -> [String] {
        let text = Array(script.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var index = 0
        func flush() {
            let statement = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
            if !statement.isEmpty { statements.append(statement) }
            current = String.UnicodeScalarView()
        }
        func copy(until end: [Unicode.Scalar]) {
            // Copies through the next occurrence of `end` (or to the end of the script).
            while index < text.count {
                if text[index...].starts(with: end) {
                    current.append(contentsOf: end)
                    index += end.count
                    return
                }
                current.append(text[index])
                index += 1
            }
        }
        while index < text.count {
            let scalar = text[index]
            if scalar == "-", index + 1 < text.count, text[index + 1] == "-" {
                while index < text.count, text[index] != "\n" { index += 1 }
            } else if scalar == "'" || scalar == "\"" {
                current.append(scalar)
                index += 1
                copy(until: [scalar])
            } else if scalar == "$", let tag = dollarTag(text, at: index) {
                current.append(contentsOf: tag)
                index += tag.count
                copy(until: tag)
            } else if scalar == ";" {
                index += 1
                flush()
            } else {
                current.append(scalar)
                index += 1
            }
        }
        flush()
        return statements
    }

    // `$$` or `$name$` (a name starts with a letter or underscore).
    private static func dollarTag(_ text: [Unicode.Scalar], at start: Int) -> [Unicode.Scalar]? {
        var end = start + 1
        while end < text.count, text[end] == "_" || text[end].properties.isAlphabetic || (end > start + 1 && ("0"..."9").contains(text[end])) {
            end += 1
        }
        guard end < text.count, text[end] == "$" else { return nil }
        return Array(text[start...end])
    }
}
