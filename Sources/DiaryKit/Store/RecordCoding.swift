import Foundation

/// A record line that cannot be read back: which field, and why.
public struct RecordDecodingError: Error, Equatable, Sendable {
    public var field: String

    public init(field: String) { self.field = field }
}

// The archive's JSON form of records (also what a kept conflict version holds). Times are
// RFC 3339 to the millisecond in the entry's own zone, so a round trip is exact and a
// person reading entries.jsonl sees their own clock.
extension EntryRecord {
    /// The record as one `entries.jsonl` line.
    package var json: JSON {
        let zone = self.zone
        func clockPairs(_ clock: RowClock) -> [(String, JSON)] { RecordCoding.clockPairs(clock, in: zone) }
        var pairs: [(String, JSON)] = [("kind", .string("entry")), ("id", .string(id))]
        pairs += fieldPairs(Self.fields, in: zone)
        pairs += clockPairs(clock)
        pairs.append(("media", .array(media.map { .object(RecordCoding.pairs($0, Self.mediaFields, in: zone) + clockPairs($0.clock)) })))
        pairs.append(("messages", .array(lines.map { .object(RecordCoding.pairs($0, Self.messageFields, in: zone) + clockPairs($0.clock)) })))
        pairs.append(("tag_links", .array(tagLinks.map { .object(RecordCoding.pairs($0, Self.tagLinkFields, in: zone) + clockPairs($0.clock)) })))
        return .object(pairs)
    }

    /// The fields of one part as a record writes them: what a sealed diary seals as that part.
    package func partJSON(_ part: FieldClocks.Part) -> JSON {
        .object(fieldPairs(Self.fields(of: part), in: zone))
    }

    /// Takes one part's fields from what `partJSON` wrote.
    package mutating func readPart(_ part: FieldClocks.Part, from json: JSON) throws(RecordDecodingError) {
        let reader = RecordReader(json, path: "")
        for field in Self.fields(of: part) { try read(field, from: reader) }
    }

    /// `fields` as a record writes them: those written always, then those given.
    private func fieldPairs(_ fields: [EntryField], in zone: TimeZone) -> [(String, JSON)] {
        var pairs: [(String, JSON)] = [], given: [(String, JSON)] = []
        for field in fields {
            let value: JSON = switch field.value {
            case let .plain(value): RecordCoding.json(self, value, in: zone)
            case .zone: .string(timeZone)
            case .status: .string(status.rawValue)
            case .orderKey: .optional(orderKey)
            case .context: RecordCoding.contextJSON(context)
            case .fieldClocks: .object(FieldClocks.Part.allCases.map { ($0.rawValue, .optional(fieldClocks[$0])) })
            case .reflection: reflection?.json ?? .null
            case .tagNames: .array(tags.map(JSON.string))
            }
            // Keys that came later are written only when they say something, so a record
            // without them reads the same to a build from before them.
            if !field.onlyWhenGiven {
                pairs.append((field.name, value))
            } else if value != .null {
                given.append((field.name, value))
            }
        }
        return pairs + given
    }

    /// Reads an `entries.jsonl` line back; the error names the first field that is wrong.
    package init(json: JSON) throws(RecordDecodingError) {
        let reader = RecordReader(json, path: "")
        guard reader.optionalString("kind") == "entry" else { throw RecordDecodingError(field: "kind") }
        let id = try reader.identifier("id")
        self = .unfilled(id: id, clock: RowClock(hlc: "", deviceId: ""))
        for field in Self.fields { try read(field, from: reader) }
        clock = try reader.clock()
        for (index, value) in try reader.array("media").enumerated() {
            let item = RecordReader(value, path: "media[\(index)].")
            var row = Media.unfilled(clock: clock)
            try RecordCoding.read(&row, Self.mediaFields, from: item)
            row.clock = try item.clock()
            media.append(row)
        }
        for (index, value) in try reader.array("messages").enumerated() {
            let item = RecordReader(value, path: "messages[\(index)].")
            var line = Line.unfilled(entryId: id, clock: clock)
            try RecordCoding.read(&line, Self.messageFields, from: item)
            line.clock = try item.clock()
            lines.append(line)
        }
        for (index, value) in try reader.array("tag_links").enumerated() {
            let item = RecordReader(value, path: "tag_links[\(index)].")
            var link = TagLink.unfilled(clock: clock)
            try RecordCoding.read(&link, Self.tagLinkFields, from: item)
            link.clock = try item.clock()
            // A spelling that is not of this tag is no spelling of it.
            link.label = link.label.flatMap { TagName.normalize($0) == link.name ? $0 : nil }
            tagLinks.append(link)
        }
    }
}

extension EntryRecord {
    /// Reads one field of an entry record; the error names it when it is wrong.
    private mutating func read(_ field: EntryField, from reader: RecordReader) throws(RecordDecodingError) {
        let name = field.name
        switch field.value {
        case let .plain(value): try RecordCoding.read(&self, value, name, from: reader)
        case .zone:
            timeZone = try reader.string(name)
            guard TimeZone(identifier: timeZone) != nil else { throw RecordDecodingError(field: name) }
        case .status:
            guard let status = EntryStatus(rawValue: try reader.string(name)) else { throw RecordDecodingError(field: name) }
            self.status = status
        case .orderKey:
            orderKey = try reader.text(name)
            if let orderKey, !OrderKey.isValid(orderKey) { throw RecordDecodingError(field: name) }
        case .context: context = try RecordCoding.context(reader.value(name))
        case .fieldClocks: fieldClocks = try reader.fieldClocks()
        case .reflection:
            guard let value = reader.value(name), value != .null else { return }
            guard let reflection = Reflection(json: value) else { throw RecordDecodingError(field: name) }
            self.reflection = reflection
        case .tagNames: break  // the tag links say which tags it has
        }
    }
}

extension DiaryExtras {
    /// The lines of a backup's `diary.jsonl`: tags, settings, device settings, usage, conflicts.
    package var jsonLines: [JSON] {
        func time(_ date: Date?) -> JSON { RecordCoding.time(date, in: RecordCoding.utc) }
        func clockPairs(_ clock: RowClock) -> [(String, JSON)] { RecordCoding.clockPairs(clock, in: RecordCoding.utc) }
        var lines: [JSON] = []
        for tag in tags {
            lines.append(.object([("kind", .string("tag")), ("name", .string(tag.name)), ("created_at", time(tag.createdAt)),
                                  ("last_used_at", time(tag.lastUsedAt))] + clockPairs(tag.clock)))
        }
        for setting in settings {
            lines.append(.object([("kind", .string("setting")), ("key", .string(setting.key)), ("value", .string(setting.value)),
                                  ("updated_at", time(setting.updatedAt))] + clockPairs(setting.clock)))
        }
        for setting in deviceSettings {
            lines.append(.object([("kind", .string("device_setting")), ("key", .string(setting.key)), ("value", .string(setting.value))]))
        }
        for use in usage {
            lines.append(.object([("kind", .string("usage")), ("day", .string(use.day)), ("counter", .string(use.counter)),
                                  ("count", .int(Int64(use.count)))]))
        }
        for (entryId, version) in versions {
            lines.append(.object([("kind", .string("version")), ("entry_id", .string(entryId)), ("hlc", .string(version.hlc)),
                                  ("device_id", .string(version.deviceId)), ("replaced_at", time(version.replacedAt)),
                                  ("replaced_by", .string(version.replacedBy.rawValue)), ("version", version.json)]))
        }
        for conflict in conflicts {
            lines.append(.object([("kind", .string("conflict")), ("id", .string(conflict.id)), ("table", .string(conflict.table)),
                                  ("row_id", .string(conflict.rowId)), ("hlc", .string(conflict.hlc)),
                                  ("winner_hlc", .string(conflict.winnerHlc)), ("source", .string(conflict.source)),
                                  ("kept_at", time(conflict.keptAt)), ("version", conflict.version)]))
        }
        return lines
    }

    /// Adds one `diary.jsonl` line; unknown kinds are an error (the format version guards them).
    public mutating func add(json: JSON) throws(RecordDecodingError) {
        let reader = RecordReader(json, path: "")
        switch reader.optionalString("kind") {
        case "tag":
            guard let name = TagName.normalize(try reader.string("name")) else { throw RecordDecodingError(field: "name") }
            tags.append(TagRecord(name: name, createdAt: try reader.time("created_at"),
                                  lastUsedAt: try reader.optionalTime("last_used_at"), clock: try reader.clock()))
        case "setting":
            settings.append(SettingRecord(key: try reader.string("key"), value: try reader.string("value"),
                                          updatedAt: try reader.time("updated_at"), clock: try reader.clock()))
        case "device_setting":
            deviceSettings.append((key: try reader.string("key"), value: try reader.string("value")))
        case "usage":
            let day = try reader.string("day")
            guard day.utf8.count == 10 else { throw RecordDecodingError(field: "day") }
            usage.append(UsageRecord(day: day, counter: try reader.string("counter"), count: try reader.int("count")))
        case "version":
            guard let source = VersionSource(rawValue: try reader.string("replaced_by")) else { throw RecordDecodingError(field: "replaced_by") }
            guard let body = reader.value("version"),
                  let version = DiaryStore.pageVersion(json: body, hlc: try reader.string("hlc"), deviceId: try reader.string("device_id"),
                                                       replacedAt: try reader.time("replaced_at"), replacedBy: source) else {
                throw RecordDecodingError(field: "version")
            }
            versions.append((entryId: try reader.identifier("entry_id"), version: version))
        case "conflict":
            guard let version = reader.value("version"), case .object = version else { throw RecordDecodingError(field: "version") }
            conflicts.append(ConflictRecord(id: try reader.identifier("id"), table: try reader.string("table"),
                                            rowId: try reader.string("row_id"), hlc: try reader.string("hlc"),
                                            winnerHlc: try reader.string("winner_hlc"), source: try reader.string("source"),
                                            keptAt: try reader.time("kept_at"), version: version))
        default:
            throw RecordDecodingError(field: "kind")
        }
    }
}

package enum RecordCoding {
    package static let utc = TimeZone(identifier: "UTC")!

    /// A time as records write it: RFC 3339 to the millisecond in `zone`, or null.
    package static func time(_ date: Date?, in zone: TimeZone) -> JSON {
        date.map { .string(Timestamps.rfc3339Millis($0, zone: zone)) } ?? .null
    }

    /// A row's clock as records write it: its hybrid clock, device and tombstone time.
    package static func clockPairs(_ clock: RowClock, in zone: TimeZone) -> [(String, JSON)] {
        [("hlc", .string(clock.hlc)), ("device_id", .string(clock.deviceId)), ("deleted_at", time(clock.deletedAt, in: zone))]
    }

    /// The context as records write it (its times in UTC): its fields written always, its
    /// weather (null when none of it is known), then the fields written only when given.
    package static func contextJSON(_ context: EntryContext) -> JSON {
        var pairs: [(String, JSON)] = [], given: [(String, JSON)] = []
        var weather: [(String, JSON)] = [], weatherKnown = false
        for field in EntryRecord.contextFields {
            let value = json(context, field.value, in: utc)
            if field.inWeather {
                weatherKnown = weatherKnown || value != .null
                if !field.onlyWhenGiven || value != .null { weather.append((field.name, value)) }
            } else if !field.onlyWhenGiven {
                pairs.append((field.name, value))
            } else if value != .null {
                given.append((field.name, value))
            }
        }
        return .object(pairs + [("weather", weatherKnown ? .object(weather) : .null)] + given)
    }

    /// Reads a record's context back; the error names the field that is wrong.
    package static func context(_ json: JSON?) throws(RecordDecodingError) -> EntryContext {
        guard let json, json != .null else { return EntryContext() }
        guard case .object = json else { throw RecordDecodingError(field: "context") }
        // A weather that is not an object is no weather: its fields read as not given.
        let place = RecordReader(json, path: "context."), weather = RecordReader(json["weather"] ?? .null, path: "context.weather.")
        var context = EntryContext()
        for field in EntryRecord.contextFields { try read(&context, field.value, field.name, from: field.inWeather ? weather : place) }
        return context
    }

    /// An item's fields as a record writes them: those written always, then those given.
    package static func pairs<Item>(_ item: Item, _ fields: [ItemField<Item>], in zone: TimeZone) -> [(String, JSON)] {
        var pairs: [(String, JSON)] = [], given: [(String, JSON)] = []
        for field in fields {
            let value = json(item, field.value, in: zone)
            if !field.onlyWhenGiven {
                pairs.append((field.name, value))
            } else if value != .null {
                given.append((field.name, value))
            }
        }
        return pairs + given
    }

    /// Reads an item's fields in the order declared; the error names the first that is wrong.
    package static func read<Item>(_ item: inout Item, _ fields: [ItemField<Item>], from reader: RecordReader) throws(RecordDecodingError) {
        for field in fields { try read(&item, field.value, field.name, from: reader) }
    }

    /// One field's value as a record writes it (a time in `zone`).
    static func json<Record>(_ record: Record, _ value: FieldValue<Record>, in zone: TimeZone) -> JSON {
        switch value {
        case let .id(path), let .string(path), let .digest(path), let .fileExtension(path), let .tagName(path):
            .string(record[keyPath: path])
        case let .text(path), let .optionalDigest(path): .optional(record[keyPath: path])
        case let .time(path): time(record[keyPath: path], in: zone)
        case let .optionalTime(path): time(record[keyPath: path], in: zone)
        case let .flag(path): .bool(record[keyPath: path])
        case let .count(path): .int(Int64(record[keyPath: path]))
        case let .byteCount(path): .int(record[keyPath: path])
        case let .optionalCount(path): .optional(record[keyPath: path])
        case let .optionalNumber(path): .optional(record[keyPath: path])
        case let .mediaKind(path): .string(record[keyPath: path].rawValue)
        case let .author(path): .string(record[keyPath: path].rawValue)
        }
    }

    /// Reads one field's value under `name`; the error names it when it is wrong.
    static func read<Record>(_ record: inout Record, _ value: FieldValue<Record>, _ name: String,
                             from reader: RecordReader) throws(RecordDecodingError) {
        switch value {
        case let .id(path): record[keyPath: path] = try reader.identifier(name)
        case let .string(path): record[keyPath: path] = try reader.string(name)
        case let .text(path): record[keyPath: path] = try reader.text(name)
        case let .time(path): record[keyPath: path] = try reader.time(name)
        case let .optionalTime(path): record[keyPath: path] = try reader.optionalTime(name)
        case let .flag(path): record[keyPath: path] = try reader.optionalBool(name) ?? false
        case let .count(path): record[keyPath: path] = try reader.int(name)
        case let .byteCount(path): record[keyPath: path] = Int64(try reader.int(name))
        case let .optionalCount(path): record[keyPath: path] = try reader.optionalInt(name)
        case let .optionalNumber(path): record[keyPath: path] = try reader.optionalDouble(name)
        case let .digest(path): record[keyPath: path] = try reader.digest(name)
        case let .optionalDigest(path): record[keyPath: path] = try reader.optionalDigest(name)
        case let .fileExtension(path):
            let text = try reader.string(name)
            guard isFileExtension(text) else { throw reader.wrong(name) }
            record[keyPath: path] = text
        case let .mediaKind(path):
            guard let kind = MediaKind(rawValue: try reader.string(name)) else { throw reader.wrong(name) }
            record[keyPath: path] = kind
        case let .author(path):
            guard let author = Author(rawValue: try reader.string(name)) else { throw reader.wrong(name) }
            record[keyPath: path] = author
        case let .tagName(path):
            guard let tag = TagName.normalize(try reader.string(name)) else { throw reader.wrong(name) }
            record[keyPath: path] = tag
        }
    }

    /// Lowercase letters and digits only: the name becomes part of a file path.
    package static func isFileExtension(_ text: String) -> Bool {
        (1...8).contains(text.utf8.count) && text.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }

    /// 64 lowercase hex digits.
    package static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// Reads typed fields out of one JSON object, naming the field that is missing or wrong.
package struct RecordReader {
    package let object: JSON
    package let path: String

    package init(_ object: JSON, path: String) {
        self.object = object
        self.path = path
    }

    package func value(_ key: String) -> JSON? { object[key] }
    package func optionalString(_ key: String) -> String? { object[key]?.stringValue }
    /// The error naming `key` of this object as wrong.
    package func wrong(_ key: String) -> RecordDecodingError { RecordDecodingError(field: path + key) }

    // A NUL byte is not text: SQLite would cut the value there and Postgres refuses it in
    // JSON, so a value holding one would be kept cut short, or never sync (issue 40, E).
    package func string(_ key: String) throws(RecordDecodingError) -> String {
        guard let text = object[key]?.stringValue, !text.utf8.contains(0) else { throw wrong(key) }
        return text
    }

    package func text(_ key: String) throws(RecordDecodingError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue, !text.utf8.contains(0) else { throw wrong(key) }
        return text
    }

    /// An id that is safe to use anywhere (UUID-like: hex digits and dashes).
    package func identifier(_ key: String) throws(RecordDecodingError) -> String {
        let text = try string(key)
        guard (1...64).contains(text.utf8.count),
              text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || $0 == 0x2D }) else { throw wrong(key) }
        return text
    }

    package func digest(_ key: String) throws(RecordDecodingError) -> String {
        let text = try string(key)
        guard RecordCoding.isDigest(text) else { throw wrong(key) }
        return text
    }

    func optionalDigest(_ key: String) throws(RecordDecodingError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        return try digest(key)
    }

    package func int(_ key: String) throws(RecordDecodingError) -> Int {
        guard case let .int(number)? = object[key], let value = Int(exactly: number), value >= 0 else { throw wrong(key) }
        return value
    }

    func optionalInt(_ key: String) throws(RecordDecodingError) -> Int? {
        guard let value = object[key], value != .null else { return nil }
        return try int(key)
    }

    func optionalDouble(_ key: String) throws(RecordDecodingError) -> Double? {
        guard let value = object[key], value != .null else { return nil }
        guard let number = value.doubleValue, number.isFinite else { throw wrong(key) }
        return number
    }

    package func time(_ key: String) throws(RecordDecodingError) -> Date {
        guard let text = object[key]?.stringValue, let date = Timestamps.parseRFC3339(text) else { throw wrong(key) }
        return date
    }

    func optionalTime(_ key: String) throws(RecordDecodingError) -> Date? {
        guard let value = object[key], value != .null else { return nil }
        return try time(key)
    }

    func optionalBool(_ key: String) throws(RecordDecodingError) -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard case let .bool(flag) = value else { throw wrong(key) }
        return flag
    }

    /// The clocks of an entry's parts; absent in records written before they existed.
    func fieldClocks() throws(RecordDecodingError) -> FieldClocks {
        guard let value = object["field_clocks"], value != .null else { return FieldClocks() }
        guard case .object = value else { throw wrong("field_clocks") }
        var clocks = FieldClocks()
        for part in FieldClocks.Part.allCases {
            guard let clock = value[part.rawValue], clock != .null else { continue }
            guard let text = clock.stringValue, HybridTimestamp(text) != nil else { throw wrong("field_clocks.\(part.rawValue)") }
            clocks[part] = text
        }
        return clocks
    }

    package func array(_ key: String) throws(RecordDecodingError) -> [JSON] {
        guard let value = object[key], value != .null else { return [] }
        guard let items = value.arrayValue else { throw wrong(key) }
        return items
    }

    package func clock() throws(RecordDecodingError) -> RowClock {
        let hlc = try string("hlc")
        guard HybridTimestamp(hlc) != nil else { throw wrong("hlc") }
        return RowClock(hlc: hlc, deviceId: try string("device_id"), deletedAt: try optionalTime("deleted_at"))
    }
}
