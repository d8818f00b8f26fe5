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
        func time(_ date: Date?) -> JSON { date.map { .string(Timestamps.rfc3339Millis($0, zone: zone)) } ?? .null }
        func clockPairs(_ clock: RowClock) -> [(String, JSON)] {
            [("hlc", .string(clock.hlc)), ("device_id", .string(clock.deviceId)), ("deleted_at", time(clock.deletedAt))]
        }
        var pairs: [(String, JSON)] = [
            ("kind", .string("entry")),
            ("id", .string(id)),
            ("status", .string(status.rawValue)),
            ("created_at", time(createdAt)),
            ("updated_at", time(updatedAt)),
            ("occurred_at", time(occurredAt)),
            ("time_zone", .string(timeZone)),
            ("title", .optional(title)),
            ("summary", .optional(summary)),
            ("tags", .array(tags.map(JSON.string))),
            ("note", .optional(note)),
            ("transcript", .optional(transcript)),
            ("analysis", .optional(analysis)),
            ("analysis_provider", .optional(analysisProvider)),
            ("context", RecordCoding.contextJSON(context)),
            ("persona", .string(persona)),
            ("provider", .optional(provider)),
            ("summarized_at", time(summarizedAt)),
            ("last_error", .optional(lastError)),
            ("digest", .optional(digest)),
            ("digest_through", .optional(digestThrough)),
            ("edited_at", time(editedAt)),
            ("starred", .bool(starred)),
            ("trashed_at", time(trashedAt)),
            ("order_key", .optional(orderKey)),
            ("field_clocks", .object(FieldClocks.Part.allCases.map { ($0.rawValue, .optional(fieldClocks[$0])) })),
        ]
        // Keys that came later are written only when they say something, so a record without
        // them reads the same to a build from before them.
        if let journal { pairs.append(("journal", .string(journal))) }
        if let reflection { pairs.append(("reflection", reflection.json)) }
        pairs += clockPairs(clock)
        pairs.append(("media", .array(media.map { media in
            let item = media.item
            return .object([
                ("id", .string(media.id)),
                ("position", .int(Int64(media.position))),
                ("kind", .string(item.kind.rawValue)),
                ("sha256", .string(item.sha256)),
                ("mime", .string(item.mime)),
                ("ext", .string(item.fileExtension)),
                ("bytes", .int(item.bytes)),
                ("width", .optional(item.width)),
                ("height", .optional(item.height)),
                ("duration", .optional(item.durationSeconds)),
                ("taken_at", time(item.takenAt)),
                ("thumbnail", .optional(item.thumbnail)),
            ] + (media.anchor.map { [("anchor", JSON.int(Int64($0)))] } ?? []) + clockPairs(media.clock))
        })))
        pairs.append(("messages", .array(lines.map { line in
            let message = line.message
            return .object([
                ("id", .string(message.id)),
                ("author", .string(message.author.rawValue)),
                ("persona", .string(message.persona)),
                ("provider", .optional(message.provider)),
                ("text", .string(message.text)),
                ("created_at", time(message.createdAt)),
            ] + clockPairs(line.clock))
        })))
        pairs.append(("tag_links", .array(tagLinks.map { link in
            .object([
                ("name", .string(link.name)),
                ("position", .int(Int64(link.position))),
                ("created_at", time(link.createdAt)),
            ] + (link.label.map { [("label", JSON.string($0))] } ?? []) + clockPairs(link.clock))
        })))
        return .object(pairs)
    }

    /// Reads an `entries.jsonl` line back; the error names the first field that is wrong.
    package init(json: JSON) throws(RecordDecodingError) {
        let reader = RecordReader(json, path: "")
        guard reader.optionalString("kind") == "entry" else { throw RecordDecodingError(field: "kind") }
        let id = try reader.identifier("id")
        let zoneName = try reader.string("time_zone")
        guard TimeZone(identifier: zoneName) != nil else { throw RecordDecodingError(field: "time_zone") }
        guard let status = EntryStatus(rawValue: try reader.string("status")) else { throw RecordDecodingError(field: "status") }
        self.init(id: id, clock: try reader.clock(), status: status, createdAt: try reader.time("created_at"),
                  updatedAt: try reader.time("updated_at"), occurredAt: try reader.time("occurred_at"), timeZone: zoneName,
                  note: try reader.text("note"), transcript: try reader.text("transcript"),
                  analysis: try reader.text("analysis"), analysisProvider: try reader.text("analysis_provider"),
                  context: try RecordCoding.context(reader.value("context")), persona: try reader.string("persona"),
                  provider: try reader.text("provider"), title: try reader.text("title"), summary: try reader.text("summary"),
                  summarizedAt: try reader.optionalTime("summarized_at"), lastError: try reader.text("last_error"),
                  digest: try reader.text("digest"), digestThrough: try reader.text("digest_through"),
                  editedAt: try reader.optionalTime("edited_at"), starred: try reader.optionalBool("starred") ?? false,
                  trashedAt: try reader.optionalTime("trashed_at"), orderKey: try reader.text("order_key"),
                  fieldClocks: try reader.fieldClocks(), journal: try reader.text("journal"))
        if let value = reader.value("reflection"), value != .null {
            guard let reflection = Reflection(json: value) else { throw RecordDecodingError(field: "reflection") }
            self.reflection = reflection
        }
        if let orderKey, !OrderKey.isValid(orderKey) { throw RecordDecodingError(field: "order_key") }
        for (index, value) in try reader.array("media").enumerated() {
            let item = RecordReader(value, path: "media[\(index)].")
            guard let kind = MediaKind(rawValue: try item.string("kind")) else { throw RecordDecodingError(field: "media[\(index)].kind") }
            let sha256 = try item.digest("sha256")
            let fileExtension = try item.string("ext")
            guard RecordCoding.isFileExtension(fileExtension) else { throw RecordDecodingError(field: "media[\(index)].ext") }
            let thumbnail = try item.optionalDigest("thumbnail")
            media.append(Media(id: try item.identifier("id"), position: try item.int("position"), clock: try item.clock(),
                               item: MediaItem(kind: kind, sha256: sha256, mime: try item.string("mime"), fileExtension: fileExtension,
                                               bytes: Int64(try item.int("bytes")), width: try item.optionalInt("width"),
                                               height: try item.optionalInt("height"),
                                               durationSeconds: try item.optionalDouble("duration"),
                                               takenAt: try item.optionalTime("taken_at"), thumbnail: thumbnail),
                               anchor: try item.optionalInt("anchor")))
        }
        for (index, value) in try reader.array("messages").enumerated() {
            let line = RecordReader(value, path: "messages[\(index)].")
            guard let author = Author(rawValue: try line.string("author")) else { throw RecordDecodingError(field: "messages[\(index)].author") }
            lines.append(Line(message: Message(id: try line.identifier("id"), entryId: id, author: author,
                                               persona: try line.string("persona"), provider: try line.text("provider"),
                                               text: try line.string("text"), createdAt: try line.time("created_at")),
                              clock: try line.clock()))
        }
        for (index, value) in try reader.array("tag_links").enumerated() {
            let link = RecordReader(value, path: "tag_links[\(index)].")
            guard let name = TagName.normalize(try link.string("name")) else { throw RecordDecodingError(field: "tag_links[\(index)].name") }
            tagLinks.append(TagLink(name: name, position: try link.int("position"), createdAt: try link.time("created_at"),
                                    // A spelling that is not of this tag is no spelling of it.
                                    clock: try link.clock(), label: try link.text("label").flatMap { TagName.normalize($0) == name ? $0 : nil }))
        }
    }
}

extension DiaryExtras {
    /// The lines of a backup's `diary.jsonl`: tags, settings, device settings, usage, conflicts.
    package var jsonLines: [JSON] {
        let utc = TimeZone(identifier: "UTC")!
        func time(_ date: Date?) -> JSON { date.map { .string(Timestamps.rfc3339Millis($0, zone: utc)) } ?? .null }
        func clockPairs(_ clock: RowClock) -> [(String, JSON)] {
            [("hlc", .string(clock.hlc)), ("device_id", .string(clock.deviceId)), ("deleted_at", time(clock.deletedAt))]
        }
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
    // The readings and names beyond place, coordinates, words and °C, in the record's names.
    // Written only when known, so a record without them is byte for byte what it was.
    private static let placeNames: [(String, WritableKeyPath<EntryContext, String?> & Sendable)] = [
        ("locality", \.locality), ("region", \.region), ("country", \.country),
    ]
    private static let weatherNumbers: [(String, WritableKeyPath<WeatherDetails, Double?> & Sendable)] = [
        ("humidity_percent", \.humidityPercent), ("pressure_hpa", \.pressureHPa), ("wind_kph", \.windKPH),
        ("wind_bearing", \.windBearing), ("wind_chill_c", \.windChillC), ("visibility_km", \.visibilityKM),
        ("moon_phase", \.moonPhase),
    ]
    private static let weatherTimes: [(String, WritableKeyPath<WeatherDetails, Date?> & Sendable)] = [("sunrise", \.sunrise), ("sunset", \.sunset)]
    private static let weatherTexts: [(String, WritableKeyPath<WeatherDetails, String?> & Sendable)] = [("code", \.code), ("service", \.service)]

    package static func contextJSON(_ context: EntryContext) -> JSON {
        let details = context.weather
        var weatherPairs: [(String, JSON)] = [
            ("description", .optional(context.weatherDescription)),
            ("temperature_c", .optional(context.temperatureC)),
        ]
        for (key, path) in weatherNumbers { if let value = details[keyPath: path] { weatherPairs.append((key, .double(value))) } }
        let utc = TimeZone(identifier: "UTC")!
        for (key, path) in weatherTimes {
            if let value = details[keyPath: path] { weatherPairs.append((key, .string(Timestamps.rfc3339Millis(value, zone: utc)))) }
        }
        for (key, path) in weatherTexts { if let value = details[keyPath: path] { weatherPairs.append((key, .string(value))) } }
        let weather: JSON = context.weatherDescription == nil && context.temperatureC == nil && details.isEmpty ? .null : .object(weatherPairs)
        var pairs: [(String, JSON)] = [
            ("place", .optional(context.place)),
            ("latitude", .optional(context.latitude)),
            ("longitude", .optional(context.longitude)),
            ("weather", weather),
        ]
        for (key, path) in placeNames { if let value = context[keyPath: path] { pairs.append((key, .string(value))) } }
        return .object(pairs)
    }

    package static func context(_ json: JSON?) throws(RecordDecodingError) -> EntryContext {
        guard let json, json != .null else { return EntryContext() }
        guard case .object = json else { throw RecordDecodingError(field: "context") }
        func number(_ value: JSON?, _ field: String) throws(RecordDecodingError) -> Double? {
            guard let value, value != .null else { return nil }
            guard let number = value.doubleValue, number.isFinite else { throw RecordDecodingError(field: "context.\(field)") }
            return number
        }
        func text(_ value: JSON?, _ field: String) throws(RecordDecodingError) -> String? {
            guard let value, value != .null else { return nil }
            guard let text = value.stringValue else { throw RecordDecodingError(field: "context.\(field)") }
            return text
        }
        func time(_ value: JSON?, _ field: String) throws(RecordDecodingError) -> Date? {
            guard let text = try text(value, field) else { return nil }
            guard let date = Timestamps.parseRFC3339(text) else { throw RecordDecodingError(field: "context.\(field)") }
            return date
        }
        let weather = json["weather"]  // not an object: no weather (its fields read as nil)
        var context = EntryContext(place: try text(json["place"], "place"), latitude: try number(json["latitude"], "latitude"),
                                   longitude: try number(json["longitude"], "longitude"),
                                   weatherDescription: try text(weather?["description"], "weather.description"),
                                   temperatureC: try number(weather?["temperature_c"], "weather.temperature_c"))
        for (key, path) in placeNames { context[keyPath: path] = try text(json[key], key) }
        for (key, path) in weatherNumbers { context.weather[keyPath: path] = try number(weather?[key], "weather.\(key)") }
        for (key, path) in weatherTimes { context.weather[keyPath: path] = try time(weather?[key], "weather.\(key)") }
        for (key, path) in weatherTexts { context.weather[keyPath: path] = try text(weather?[key], "weather.\(key)") }
        return context
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
    private func fail(_ key: String) -> RecordDecodingError { RecordDecodingError(field: path + key) }

    package func string(_ key: String) throws(RecordDecodingError) -> String {
        guard let text = object[key]?.stringValue else { throw fail(key) }
        return text
    }

    package func text(_ key: String) throws(RecordDecodingError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw fail(key) }
        return text
    }

    /// An id that is safe to use anywhere (UUID-like: hex digits and dashes).
    package func identifier(_ key: String) throws(RecordDecodingError) -> String {
        let text = try string(key)
        guard (1...64).contains(text.utf8.count),
              text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || $0 == 0x2D }) else { throw fail(key) }
        return text
    }

    package func digest(_ key: String) throws(RecordDecodingError) -> String {
        let text = try string(key)
        guard RecordCoding.isDigest(text) else { throw fail(key) }
        return text
    }

    func optionalDigest(_ key: String) throws(RecordDecodingError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        return try digest(key)
    }

    package func int(_ key: String) throws(RecordDecodingError) -> Int {
        guard case let .int(number)? = object[key], let value = Int(exactly: number), value >= 0 else { throw fail(key) }
        return value
    }

    func optionalInt(_ key: String) throws(RecordDecodingError) -> Int? {
        guard let value = object[key], value != .null else { return nil }
        return try int(key)
    }

    func optionalDouble(_ key: String) throws(RecordDecodingError) -> Double? {
        guard let value = object[key], value != .null else { return nil }
        guard let number = value.doubleValue, number.isFinite else { throw fail(key) }
        return number
    }

    package func time(_ key: String) throws(RecordDecodingError) -> Date {
        guard let text = object[key]?.stringValue, let date = Timestamps.parseRFC3339(text) else { throw fail(key) }
        return date
    }

    func optionalTime(_ key: String) throws(RecordDecodingError) -> Date? {
        guard let value = object[key], value != .null else { return nil }
        return try time(key)
    }

    func optionalBool(_ key: String) throws(RecordDecodingError) -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard case let .bool(flag) = value else { throw fail(key) }
        return flag
    }

    /// The clocks of an entry's parts; absent in records written before they existed.
    func fieldClocks() throws(RecordDecodingError) -> FieldClocks {
        guard let value = object["field_clocks"], value != .null else { return FieldClocks() }
        guard case .object = value else { throw fail("field_clocks") }
        var clocks = FieldClocks()
        for part in FieldClocks.Part.allCases {
            guard let clock = value[part.rawValue], clock != .null else { continue }
            guard let text = clock.stringValue, HybridTimestamp(text) != nil else { throw fail("field_clocks.\(part.rawValue)") }
            clocks[part] = text
        }
        return clocks
    }

    package func array(_ key: String) throws(RecordDecodingError) -> [JSON] {
        guard let value = object[key], value != .null else { return [] }
        guard let items = value.arrayValue else { throw fail(key) }
        return items
    }

    package func clock() throws(RecordDecodingError) -> RowClock {
        let hlc = try string("hlc")
        guard HybridTimestamp(hlc) != nil else { throw fail("hlc") }
        return RowClock(hlc: hlc, deviceId: try string("device_id"), deletedAt: try optionalTime("deleted_at"))
    }
}
