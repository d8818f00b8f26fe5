import Foundation

/// A page as the person edits it in their editor (`diary-save --edit`), like a commit
/// message: a small header (title, when with its zone, place, tags), a `---` line, and the
/// page below it. Lines starting with `#` in the header are help and are ignored.
package enum EditablePage {
    /// The file the editor opens.
    package static func render(_ entry: Entry, language: Language) -> String {
        let keys = Key.names(language)
        var lines = Phrase.editorHelp.text(language).split(separator: "\n").map { "# " + $0 }
        for key in Key.allCases { lines.append("\(keys[key]!): \(shown(key, of: entry))") }
        lines.append(separator)
        lines.append(entry.summary ?? "")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A header field's value as the editor shows it, on one line (a title or place that
    /// came in with a line break from an import shows it as a space, and is kept as it is
    /// unless that line is changed).
    static func shown(_ key: Key, of entry: Entry) -> String {
        let value = switch key {
        case .title: entry.title ?? ""
        case .when: "\(Timestamps.readable(entry.occurredAt, zone: entry.zone)) \(entry.timeZone)"
        case .place: entry.context.place ?? ""
        case .tags: entry.tags.joined(separator: ", ")
        }
        return String(value.map { $0.isNewline ? " " : $0 })
    }

    /// The saved file as text: UTF-8 without NUL, else the first line that is not.
    package static func text(_ data: Data) throws(EditingError) -> String {
        if let text = String(data: data, encoding: .utf8), !text.utf8.contains(0) { return text }
        for (index, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
        where line.contains(0) || String(data: line, encoding: .utf8) == nil {
            throw .notText(index + 1)
        }
        throw .notText(1)
    }

    /// What the person changed, compared with `entry`; an empty edit when nothing was. A
    /// header line left as it was shown changes nothing, even where reading it back would
    /// not give the same value (a tag with a comma in it, the seconds of the time).
    package static func parse(_ text: String, comparedWith entry: Entry) throws(EditingError) -> EntryEdit {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        guard let divider = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == separator }) else {
            throw .missingSeparator
        }
        var fields: [Key: String] = [:]
        for (index, raw) in lines[..<divider].enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(where: { $0 == ":" || $0 == "：" }),
                  let key = Key(name: line[..<colon].trimmingCharacters(in: .whitespaces)) else {
                throw .badLine(index + 1)
            }
            if fields[key] != nil { throw .badLine(index + 1) }
            fields[key] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        func lineNumber(_ key: Key) -> Int {
            (lines[..<divider].firstIndex { line in
                let text = line.trimmingCharacters(in: .whitespaces)
                return !text.hasPrefix("#") && Key.allNames(key).contains { text.hasPrefix($0) }
            } ?? 0) + 1
        }
        for key in Key.allCases where fields[key] == shown(key, of: entry).trimmingCharacters(in: .whitespaces) {
            fields[key] = nil
        }
        var edit = EntryEdit()
        if let title = fields[.title], title != (entry.title ?? "") { edit.title = title }
        if let when = fields[.when] {
            guard let (date, zone) = parseWhen(when, defaultZone: entry.zone) else { throw .badTime(lineNumber(.when)) }
            if date != entry.occurredAt || zone.identifier != entry.timeZone {
                edit.occurredAt = date
                edit.timeZone = zone
            }
        }
        if let place = fields[.place], place != (entry.context.place ?? "") { edit.place = place }
        if let tagText = fields[.tags] {
            var tags: [String] = []
            let typed = tagText.split(whereSeparator: { $0 == "," || $0 == "，" || $0 == "、" }).map(String.init)
            if typed.contains(where: TagName.isTooLong) { throw .tagTooLong(lineNumber(.tags)) }
            for name in typed.compactMap(TagName.normalize) where !tags.contains(name) { tags.append(name) }
            if tags != entry.tags { edit.tags = tags }
        }
        var page = lines[lines.index(after: divider)...].joined(separator: "\n")
        while page.hasSuffix("\n") { page.removeLast() }
        if page != (entry.summary ?? "") { edit.summary = page }
        return edit
    }

    /// `2026-11-20 18:30`, optionally followed by a zone (`Asia/Taipei`, `UTC`, `+08:00`).
    package static func parseWhen(_ text: String, defaultZone: TimeZone) -> (Date, TimeZone)? {
        var parts = text.split(separator: " ").map(String.init)
        var zone = defaultZone
        if parts.count >= 2, let last = parts.last, let named = Self.zone(last) {
            zone = named
            parts.removeLast()
        }
        guard let date = Timestamps.parse(parts.joined(separator: " "), zone: zone) else { return nil }
        return (date, zone)
    }

    /// A zone by IANA name or as an offset (`+08:00`, `-0530`).
    package static func zone(_ text: String) -> TimeZone? {
        if text.contains("/") || text == "UTC" || text == "GMT", let zone = TimeZone(identifier: text) { return zone }
        guard let match = text.wholeMatch(of: /([+-])(\d{2}):?(\d{2})/), let hours = Int(match.2), let minutes = Int(match.3),
              hours <= 14, minutes < 60 else { return nil }
        return TimeZone(secondsFromGMT: (match.1 == "-" ? -1 : 1) * (hours * 3600 + minutes * 60))
    }

    static let separator = "---"

    /// The header's fields, each with its name in both languages.
    enum Key: CaseIterable {
        case title, when, place, tags

        init?(name: String) {
            guard let key = Key.allCases.first(where: { Key.allNames($0).contains(name.lowercased()) }) else { return nil }
            self = key
        }

        static func allNames(_ key: Key) -> [String] {
            [names(.zhHant)[key]!, names(.en)[key]!]
        }

        static func names(_ language: Language) -> [Key: String] {
            language == .en ? [.title: "title", .when: "when", .place: "place", .tags: "tags"]
                : [.title: "標題", .when: "時間", .place: "地點", .tags: "標籤"]
        }
    }
}
