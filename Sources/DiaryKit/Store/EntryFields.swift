import Foundation

// Each field of an entry's own record is declared here once. From these lists come the
// record's JSON form (`RecordCoding.swift`), the entry columns the record exchange reads and
// writes (`RecordExchange.swift`), which fields move with which part in a merge
// (`EntryRecord.take`), and the sync server's checks and part merge (`ServerSchema.swift`
// in DiarySync). docs/ARCHITECTURE.md, "Adding a synced field", shows what else a new one needs.

/// What a field of an entry's own record holds: how a record writes it, how the entry table
/// keeps it and what the sync server lets through.
package enum EntryFieldValue: Sendable {
    /// Text that is always given.
    case string(WritableKeyPath<EntryRecord, String> & Sendable)
    /// Text that may be absent.
    case text(WritableKeyPath<EntryRecord, String?> & Sendable)
    /// A time that is always given (kept as milliseconds, written in the entry's zone).
    case time(WritableKeyPath<EntryRecord, Date> & Sendable)
    /// A time that may be absent.
    case optionalTime(WritableKeyPath<EntryRecord, Date?> & Sendable)
    /// Yes or no; a record without it says no.
    case flag(WritableKeyPath<EntryRecord, Bool> & Sendable)
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

    /// True when the `entry` table has a column of its name.
    package var isColumn: Bool {
        if case .tagNames = value { return false }
        return true
    }
}

/// What a field of an entry's place and weather holds.
package enum ContextFieldValue: Sendable {
    case text(WritableKeyPath<EntryContext, String?> & Sendable)
    /// A finite number.
    case number(WritableKeyPath<EntryContext, Double?> & Sendable)
    /// A time, written in UTC.
    case time(WritableKeyPath<EntryContext, Date?> & Sendable)
}

/// One field of an entry's context: in the context itself, or in its `weather` object.
package struct ContextField: Sendable {
    package let name: String
    package let value: ContextFieldValue
    package let inWeather: Bool
    /// As for entry fields: written only when given, after the fields written always.
    package let onlyWhenGiven: Bool

    init(_ name: String, _ value: ContextFieldValue, inWeather: Bool = false, onlyWhenGiven: Bool = true) {
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
        ContextField("latitude", .number(\.latitude), onlyWhenGiven: false),
        ContextField("longitude", .number(\.longitude), onlyWhenGiven: false),
        ContextField("locality", .text(\.locality)),
        ContextField("region", .text(\.region)),
        ContextField("country", .text(\.country)),
        ContextField("description", .text(\.weatherDescription), inWeather: true, onlyWhenGiven: false),
        ContextField("temperature_c", .number(\.temperatureC), inWeather: true, onlyWhenGiven: false),
        ContextField("humidity_percent", .number(\.weather.humidityPercent), inWeather: true),
        ContextField("pressure_hpa", .number(\.weather.pressureHPa), inWeather: true),
        ContextField("wind_kph", .number(\.weather.windKPH), inWeather: true),
        ContextField("wind_bearing", .number(\.weather.windBearing), inWeather: true),
        ContextField("wind_chill_c", .number(\.weather.windChillC), inWeather: true),
        ContextField("visibility_km", .number(\.weather.visibilityKM), inWeather: true),
        ContextField("moon_phase", .number(\.weather.moonPhase), inWeather: true),
        ContextField("sunrise", .time(\.weather.sunrise), inWeather: true),
        ContextField("sunset", .time(\.weather.sunset), inWeather: true),
        ContextField("code", .text(\.weather.code), inWeather: true),
        ContextField("service", .text(\.weather.service), inWeather: true),
    ]

    /// A record with only its id and clock, for a reader to fill field by field.
    static func unfilled(id: String, clock: RowClock) -> EntryRecord {
        EntryRecord(id: id, clock: clock, status: .draft, createdAt: .distantPast, updatedAt: .distantPast, occurredAt: .distantPast,
                    timeZone: "UTC", persona: "")
    }

    /// The fields that merge with `part`.
    package static func fields(of part: FieldClocks.Part) -> [EntryField] { fieldsByPart[part] ?? [] }
    private static let fieldsByPart = Dictionary(grouping: fields.filter { $0.part != nil }, by: { $0.part! })

    /// Copies one field's value from `other`.
    mutating func copy(_ field: EntryField, from other: EntryRecord) {
        switch field.value {
        case let .string(path): self[keyPath: path] = other[keyPath: path]
        case let .text(path): self[keyPath: path] = other[keyPath: path]
        case let .time(path): self[keyPath: path] = other[keyPath: path]
        case let .optionalTime(path): self[keyPath: path] = other[keyPath: path]
        case let .flag(path): self[keyPath: path] = other[keyPath: path]
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
