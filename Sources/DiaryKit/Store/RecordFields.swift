import Foundation

// Each field of an entry's own record is declared here once (its items' in
// `ItemFields.swift`). From these lists come the record's JSON form (`RecordCoding.swift`),
// the columns the record exchange reads and writes (`RecordColumns.swift`), which fields move
// with which part in a merge (`EntryRecord.take`), and the sync server's checks and part
// merge (`ServerSchema.swift` in DiarySync). docs/ARCHITECTURE.md, "Adding a synced field",
// shows what else a new one needs.

/// What a field holds, in an entry or one of its items: how a record writes it, how a table
/// keeps it and what the sync server lets through.
package enum FieldValue<Record>: Sendable {
    /// An id: hex digits and dashes.
    case id(WritableKeyPath<Record, String> & Sendable)
    /// Text that is always given.
    case string(WritableKeyPath<Record, String> & Sendable)
    /// Text that may be absent.
    case text(WritableKeyPath<Record, String?> & Sendable)
    /// A time (kept as milliseconds; an entry's written in its own zone).
    case time(WritableKeyPath<Record, Date> & Sendable)
    case optionalTime(WritableKeyPath<Record, Date?> & Sendable)
    /// Yes or no; a record without it says no.
    case flag(WritableKeyPath<Record, Bool> & Sendable)
    /// A whole number from 0.
    case count(WritableKeyPath<Record, Int> & Sendable)
    /// A size in bytes.
    case byteCount(WritableKeyPath<Record, Int64> & Sendable)
    case optionalCount(WritableKeyPath<Record, Int?> & Sendable)
    /// A finite number that may be absent.
    case optionalNumber(WritableKeyPath<Record, Double?> & Sendable)
    /// A SHA-256, 64 lowercase hex digits.
    case digest(WritableKeyPath<Record, String> & Sendable)
    case optionalDigest(WritableKeyPath<Record, String?> & Sendable)
    /// A file's extension: lowercase letters and digits (it becomes part of a path).
    case fileExtension(WritableKeyPath<Record, String> & Sendable)
    case mediaKind(WritableKeyPath<Record, MediaKind> & Sendable)
    case author(WritableKeyPath<Record, Author> & Sendable)
    /// A tag's name, read as `TagName.normalize` reads it.
    case tagName(WritableKeyPath<Record, String> & Sendable)

    /// Copies the field's value from `source` into `target`.
    func copy(from source: Record, into target: inout Record) {
        switch self {
        case let .id(path), let .string(path), let .digest(path), let .fileExtension(path), let .tagName(path):
            target[keyPath: path] = source[keyPath: path]
        case let .text(path), let .optionalDigest(path): target[keyPath: path] = source[keyPath: path]
        case let .time(path): target[keyPath: path] = source[keyPath: path]
        case let .optionalTime(path): target[keyPath: path] = source[keyPath: path]
        case let .flag(path): target[keyPath: path] = source[keyPath: path]
        case let .count(path): target[keyPath: path] = source[keyPath: path]
        case let .byteCount(path): target[keyPath: path] = source[keyPath: path]
        case let .optionalCount(path): target[keyPath: path] = source[keyPath: path]
        case let .optionalNumber(path): target[keyPath: path] = source[keyPath: path]
        case let .mediaKind(path): target[keyPath: path] = source[keyPath: path]
        case let .author(path): target[keyPath: path] = source[keyPath: path]
        }
    }
}

/// What a field of an entry's own record holds: a value of a kind any record may hold, or one
/// of the entry's own.
package enum EntryFieldValue: Sendable {
    case plain(FieldValue<EntryRecord>)
    /// The zone the entry was written in: a name every client knows.
    case zone
    /// Where the entry stands (`EntryStatus`).
    case status
    /// Its key in the person's own order (`OrderKey`), once moved.
    case orderKey
    /// Its place and weather (`EntryRecord.contextFields`).
    case context
    /// The clocks of its parts (`FieldClocks`).
    case fieldClocks
    /// What a reflection page covers.
    case reflection
    /// Its tags' names, for a person reading the file; read back from the tag links.
    case tagNames
}

/// One field of an entry's own record.
package struct EntryField: Sendable {
    /// Its key in records and its column in the `entry` table.
    package let name: String
    package let value: EntryFieldValue
    /// The part whose clock it merges by; nil for what is no part's (the clocks, the tag names).
    package let part: FieldClocks.Part?
    /// Written only when given, after the fields written always: a key that came later, so a
    /// record without it is byte for byte what a build before it wrote.
    package let onlyWhenGiven: Bool

    init(_ name: String, _ value: EntryFieldValue, part: FieldClocks.Part? = .content, onlyWhenGiven: Bool = false) {
        self.name = name
        self.value = value
        self.part = part
        self.onlyWhenGiven = onlyWhenGiven
    }

    init(_ name: String, _ value: FieldValue<EntryRecord>, part: FieldClocks.Part? = .content, onlyWhenGiven: Bool = false) {
        self.init(name, .plain(value), part: part, onlyWhenGiven: onlyWhenGiven)
    }

    /// True when the `entry` table has a column of its name.
    package var isColumn: Bool {
        if case .tagNames = value { return false }
        return true
    }
}

/// One field of an entry's context: in the context itself, or in its `weather` object.
package struct ContextField: Sendable {
    package let name: String
    /// Text, a finite number or a time (written in UTC).
    package let value: FieldValue<EntryContext>
    package let inWeather: Bool
    /// As for entry fields: written only when given, after the fields written always.
    package let onlyWhenGiven: Bool

    init(_ name: String, _ value: FieldValue<EntryContext>, inWeather: Bool = false, onlyWhenGiven: Bool = true) {
        self.name = name
        self.value = value
        self.inWeather = inWeather
        self.onlyWhenGiven = onlyWhenGiven
    }
}

extension EntryRecord {
    /// The entry's own fields (its id and clock apart), in the order records write them.
    package static let fields: [EntryField] = [
        EntryField("status", .status),
        EntryField("created_at", .time(\.createdAt)),
        EntryField("updated_at", .time(\.updatedAt)),
        EntryField("occurred_at", .time(\.occurredAt)),
        EntryField("time_zone", .zone),
        EntryField("title", .text(\.title)),
        EntryField("summary", .text(\.summary)),
        EntryField("tags", .tagNames, part: nil),
        EntryField("note", .text(\.note)),
        EntryField("transcript", .text(\.transcript)),
        EntryField("analysis", .text(\.analysis)),
        EntryField("analysis_provider", .text(\.analysisProvider)),
        EntryField("context", .context),
        EntryField("persona", .string(\.persona)),
        EntryField("provider", .text(\.provider)),
        EntryField("summarized_at", .optionalTime(\.summarizedAt)),
        EntryField("last_error", .text(\.lastError)),
        EntryField("digest", .text(\.digest)),
        EntryField("digest_through", .text(\.digestThrough)),
        EntryField("edited_at", .optionalTime(\.editedAt)),
        EntryField("starred", .flag(\.starred), part: .star),
        EntryField("trashed_at", .optionalTime(\.trashedAt), part: .trash),
        EntryField("order_key", .orderKey, part: .order),
        EntryField("field_clocks", .fieldClocks, part: nil),
        EntryField("journal", .text(\.journal), onlyWhenGiven: true),
        EntryField("reflection", .reflection, onlyWhenGiven: true),
    ]

    /// The fields of an entry's place and weather, in the order records write them.
    package static let contextFields: [ContextField] = [
        ContextField("place", .text(\.place), onlyWhenGiven: false),
        ContextField("latitude", .optionalNumber(\.latitude), onlyWhenGiven: false),
        ContextField("longitude", .optionalNumber(\.longitude), onlyWhenGiven: false),
        ContextField("locality", .text(\.locality)),
        ContextField("region", .text(\.region)),
        ContextField("country", .text(\.country)),
        ContextField("description", .text(\.weatherDescription), inWeather: true, onlyWhenGiven: false),
        ContextField("temperature_c", .optionalNumber(\.temperatureC), inWeather: true, onlyWhenGiven: false),
        ContextField("humidity_percent", .optionalNumber(\.weather.humidityPercent), inWeather: true),
        ContextField("pressure_hpa", .optionalNumber(\.weather.pressureHPa), inWeather: true),
        ContextField("wind_kph", .optionalNumber(\.weather.windKPH), inWeather: true),
        ContextField("wind_bearing", .optionalNumber(\.weather.windBearing), inWeather: true),
        ContextField("wind_chill_c", .optionalNumber(\.weather.windChillC), inWeather: true),
        ContextField("visibility_km", .optionalNumber(\.weather.visibilityKM), inWeather: true),
        ContextField("moon_phase", .optionalNumber(\.weather.moonPhase), inWeather: true),
        ContextField("sunrise", .optionalTime(\.weather.sunrise), inWeather: true),
        ContextField("sunset", .optionalTime(\.weather.sunset), inWeather: true),
        ContextField("code", .text(\.weather.code), inWeather: true),
        ContextField("service", .text(\.weather.service), inWeather: true),
    ]

    /// A record with only its id and clock, for a reader to fill field by field.
    package static func unfilled(id: String, clock: RowClock) -> EntryRecord {
        EntryRecord(id: id, clock: clock, status: .draft, createdAt: .distantPast, updatedAt: .distantPast, occurredAt: .distantPast,
                    timeZone: "UTC", persona: "")
    }

    /// The fields that merge with `part`.
    package static func fields(of part: FieldClocks.Part) -> [EntryField] { fieldsByPart[part] ?? [] }
    private static let fieldsByPart = Dictionary(grouping: fields.filter { $0.part != nil }, by: { $0.part! })

    /// Copies one field's value from `other`.
    mutating func copy(_ field: EntryField, from other: EntryRecord) {
        switch field.value {
        case let .plain(value): value.copy(from: other, into: &self)
        case .zone: timeZone = other.timeZone
        case .status: status = other.status
        case .orderKey: orderKey = other.orderKey
        case .context: context = other.context
        case .fieldClocks: fieldClocks = other.fieldClocks
        case .reflection: reflection = other.reflection
        case .tagNames: break
        }
    }
}
