import DiaryKit
import Foundation

/// jrnl both ways: its JSON export (`jrnl --export json`) read into pages, and pages written
/// as jrnl's own plain-text journal, which `jrnl --import` reads.
///
///     {"tags":{"@work":1},"entries":[{"title":"Coffee with Ming.","body":"We talked about @work.",
///       "date":"2026-11-24","time":"09:00","tags":["@work"],"starred":false}]}
///
///     [2026-11-24 09:00] Coffee with Ming. *
///     We talked about @work.
///
/// jrnl keeps no time zone: its times are the wall clock of one zone, chosen by the person.
/// Its tags live in the text, marked by a tag symbol (`@` or `#` by default); ours lose the
/// symbol, and an exported page gets a last line naming those of its tags its text does not.
package enum Jrnl {
    /// Who wrote an imported version: the clock of every record read from jrnl names it.
    package static let device = "jrnl"
    /// How errors name the input (a JSON file has no member name).
    static let member = "jrnl JSON"

    /// True when input that begins with these bytes is a JSON object, as jrnl's export is,
    /// rather than an archive (whose first byte is never `{` after white space).
    static func isJSONObject(_ prefix: [UInt8]) -> Bool { firstVisibleByte(prefix) == UInt8(ascii: "{") }

    /// The first byte that is not JSON's white space, after a UTF-8 byte order mark if any.
    static func firstVisibleByte(_ bytes: [UInt8]) -> UInt8? { JSON.withoutByteOrderMark(bytes).first { ![0x20, 0x09, 0x0a, 0x0d].contains($0) } }

    /// The pages of a jrnl JSON export, their times read in `zone`. Ids come from the
    /// entry's date, time, title and body, and the clock from its time, so importing the
    /// same export again changes nothing; an entry changed in jrnl comes in as a new page.
    static func records(_ bytes: [UInt8], zone: TimeZone, now: Date = Date()) throws -> [EntryRecord] {
        guard let json = JSON.parse(file: bytes), case .object = json else {
            throw ArchiveError.invalidRecord(member: member, line: 1, field: nil)
        }
        guard let entries = json["entries"]?.arrayValue else {
            throw ArchiveError.invalidRecord(member: member, line: 1, field: "entries")
        }
        return try entries.enumerated().map { index, entry in
            func fail(_ field: String) -> ArchiveError { .invalidRecord(member: member, line: 1, field: "entries[\(index)].\(field)") }
            func text(_ field: String, required: Bool = true) throws -> String? {
                switch entry[field] {
                // A NUL byte is not text: the store would cut the entry there.
                case let .string(value)? where !value.utf8.contains(0): return value
                case nil, .null?: if required { throw fail(field) } else { return nil }
                default: throw fail(field)
                }
            }
            let date = try text("date")!, time = try text("time")!
            guard let occurred = Timestamps.parse("\(date) \(time)", zone: zone) else { throw fail("date") }
            let title = try text("title", required: false) ?? ""
            let body = try text("body", required: false) ?? ""
            var names: [String] = []
            switch entry["tags"] {
            case let .array(values)?:
                for (position, value) in values.enumerated() {
                    guard let raw = value.stringValue, !raw.utf8.contains(0) else { throw fail("tags[\(position)]") }
                    if let name = tagName(raw), !names.contains(name) { names.append(name) }
                }
            case nil, .null?: break
            default: throw fail("tags")
            }
            let starred: Bool
            switch entry["starred"] {
            case let .bool(value)?: starred = value
            case nil, .null?: starred = false
            default: throw fail("starred")
            }

            // The entry's time as written is its version, read the same in every zone, so the
            // same entry imported again under another --zone is still the same version. A time
            // far ahead (a broken clock) counts as the oldest, as the store would refuse it.
            var wall = Timestamps.parse("\(date) \(time)", zone: TimeZone(identifier: "UTC")!).map(Timestamps.millis) ?? 0
            if wall > Timestamps.millis(now) + 12 * 3_600_000 { wall = 0 }
            let clock = RowClock(hlc: HybridTimestamp(wallMillis: wall, counter: 0, device: device).description, deviceId: device)
            let trimmedTitle = title.trimmingCharacters(in: .whitespacesAndNewlines)
            let trimmedBody = body.trimmingCharacters(in: .whitespacesAndNewlines)
            return EntryRecord(
                id: ArchiveLayout.derivedId("jrnl:\(date)\u{0}\(time)\u{0}\(title)\u{0}\(body)"), clock: clock, status: .saved,
                createdAt: occurred, updatedAt: occurred, occurredAt: occurred, timeZone: zone.identifier,
                persona: Persona.standard.id, title: trimmedTitle.isEmpty ? nil : trimmedTitle,
                summary: trimmedBody.isEmpty ? nil : trimmedBody, summarizedAt: occurred, starred: starred,
                fieldClocks: FieldClocks(star: starred ? clock.hlc : nil),
                tagLinks: names.enumerated().map { EntryRecord.TagLink(name: $1, position: $0, createdAt: occurred, clock: clock) })
        }
    }

    /// Our tag for one of jrnl's: its tag symbols taken off.
    static func tagName(_ raw: String) -> String? {
        TagName.normalize(String(raw.drop { $0 == "@" || $0 == "#" }))
    }

    /// jrnl's plain-text journal for the pages that are not hidden: `[YYYY-MM-DD HH:MM] title`
    /// (with ` *` when starred) in each page's own zone, then the page, then the tags its text
    /// does not already name; a blank line between pages. Returns how many pages and bytes it wrote.
    package static func write(records: [EntryRecord], to descriptor: Int32) throws -> (entries: Int, bytes: Int64) {
        var count = 0
        var bytes: Int64 = 0
        for record in records where !record.isHidden {
            let entry = Array(text(record).utf8)
            try write(entry, to: descriptor)
            count += 1
            bytes += Int64(entry.count)
        }
        return (count, bytes)
    }

    /// One page as jrnl writes an entry.
    static func text(_ record: EntryRecord) -> String {
        let body = (record.summary ?? record.note ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        // jrnl needs a title on the date's line: a page without one gives its first line.
        var title = (record.title ?? "").split(whereSeparator: \.isNewline).joined(separator: " ")
        var rest = body
        if title.trimmingCharacters(in: .whitespaces).isEmpty {
            let lines = body.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
            title = lines.first.map(String.init) ?? ""
            rest = lines.count > 1 ? String(lines[1]) : ""
        }
        // The tags jrnl will find in the text: a symbol, then letters, digits and -+*#/_ (so
        // `@work.` is @work).
        let written = Set((title + " " + rest).split(whereSeparator: \.isWhitespace).compactMap { word -> String? in
            guard word.first == "@" || word.first == "#" else { return nil }
            return tagName(String(word.prefix { $0.isLetter || $0.isNumber || "@#-+*/_".contains($0) }))
        })
        // A tag is one word in jrnl: inner spaces become underscores.
        let missing = zip(record.tags, record.writtenTags).filter { !written.contains($0.0) }
            .map { "@" + $0.1.replacingOccurrences(of: " ", with: "_") }
        var lines = ["[\(Timestamps.localDate(record.occurredAt, zone: record.zone)) \(clockTime(record))] \(title)\(record.starred ? " *" : "")"]
        if !rest.isEmpty { lines.append(rest) }
        if !missing.isEmpty { lines.append(missing.joined(separator: " ")) }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// HH:MM in the page's zone.
    private static func clockTime(_ record: EntryRecord) -> String {
        let parts = Timestamps.calendar(record.zone).dateComponents([.hour, .minute], from: record.occurredAt)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32) throws {
        guard bytes.withUnsafeBytes({ FileIO.writeAll(descriptor, $0) }) else {
            throw ArchiveError.writeFailed(String(cString: strerror(errno)))
        }
    }
}
