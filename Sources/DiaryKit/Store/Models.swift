import Foundation

/// Where an entry stands: no turn yet, talking, page written, or page pending after a failure.
public enum EntryStatus: String, Sendable, CaseIterable {
    case draft
    case chatting
    case saved
    case summaryFailed = "summary_failed"

    /// The statuses of an entry that is still open for talk and saving.
    public static let open: [EntryStatus] = [.draft, .chatting, .summaryFailed]
}

/// A photo, a video, or a voice memo.
public enum MediaKind: String, Sendable, CaseIterable {
    case photo
    case video
    case audio
    /// Any other attachment, kept as it is (a PDF from a Day One export).
    case file

    /// A photo or a video: what has a picture to show, look at and make a thumbnail of.
    public var isPicture: Bool { self == .photo || self == .video }
}

/// Who wrote a message.
public enum Author: String, Sendable, CaseIterable {
    case person
    case companion
}

/// The place and weather a moment happened in (D-012). Beyond the place name and the
/// weather's words and °C, which every source gives, it keeps what a journal it came from
/// recorded (Day One: town, region, country, and its weather service's readings).
public struct EntryContext: Sendable, Equatable {
    public var place: String?
    public var latitude: Double?
    public var longitude: Double?
    public var weatherDescription: String?
    public var temperatureC: Double?
    /// The town or city.
    public var locality: String?
    /// The state, province or county (Day One's administrative area).
    public var region: String?
    public var country: String?
    public var weather = WeatherDetails()

    public init(place: String? = nil, latitude: Double? = nil, longitude: Double? = nil,
                weatherDescription: String? = nil, temperatureC: Double? = nil,
                locality: String? = nil, region: String? = nil, country: String? = nil, weather: WeatherDetails = WeatherDetails()) {
        self.place = place
        self.latitude = latitude
        self.longitude = longitude
        self.weatherDescription = weatherDescription
        self.temperatureC = temperatureC
        self.locality = locality
        self.region = region
        self.country = country
        self.weather = weather
    }

    /// Every name of the place, most particular first: what search finds it by.
    public var placeNames: [String] { [place, locality, region, country].compactMap { $0 } }

    /// True when nothing is known.
    public var isEmpty: Bool { self == EntryContext() }
}

/// A weather service's readings beyond the words and the temperature, in metric units.
public struct WeatherDetails: Sendable, Equatable {
    public var humidityPercent: Double?
    /// Air pressure in hectopascals (millibars).
    public var pressureHPa: Double?
    public var windKPH: Double?
    /// Where the wind comes from, in degrees clockwise from north.
    public var windBearing: Double?
    public var windChillC: Double?
    public var visibilityKM: Double?
    /// The moon's phase, 0 (new) to 1.
    public var moonPhase: Double?
    public var sunrise: Date?
    public var sunset: Date?
    /// The service's own code for the conditions (`fair`, `rain`).
    public var code: String?
    /// Which service measured it.
    public var service: String?

    public init(humidityPercent: Double? = nil, pressureHPa: Double? = nil, windKPH: Double? = nil, windBearing: Double? = nil,
                windChillC: Double? = nil, visibilityKM: Double? = nil, moonPhase: Double? = nil, sunrise: Date? = nil,
                sunset: Date? = nil, code: String? = nil, service: String? = nil) {
        self.humidityPercent = humidityPercent
        self.pressureHPa = pressureHPa
        self.windKPH = windKPH
        self.windBearing = windBearing
        self.windChillC = windChillC
        self.visibilityKM = visibilityKM
        self.moonPhase = moonPhase
        self.sunrise = sunrise
        self.sunset = sunset
        self.code = code
        self.service = service
    }

    /// True when nothing is known.
    public var isEmpty: Bool { self == WeatherDetails() }
}

/// One stored photo or video of an entry.
public struct MediaItem: Sendable, Equatable {
    public var kind: MediaKind
    public var sha256: String
    public var mime: String
    /// The file extension the content-addressed copy carries (`jpg`, `mp4`, …).
    public var fileExtension: String
    public var bytes: Int64
    public var width: Int?
    public var height: Int?
    public var durationSeconds: Double?
    public var takenAt: Date?
    /// The SHA-256 of its JPEG thumbnail, once one has been made.
    public var thumbnail: String?

    public init(kind: MediaKind, sha256: String, mime: String, fileExtension: String, bytes: Int64,
                width: Int? = nil, height: Int? = nil, durationSeconds: Double? = nil, takenAt: Date? = nil,
                thumbnail: String? = nil) {
        self.kind = kind
        self.sha256 = sha256
        self.mime = mime
        self.fileExtension = fileExtension
        self.bytes = bytes
        self.width = width
        self.height = height
        self.durationSeconds = durationSeconds
        self.takenAt = takenAt
        self.thumbnail = thumbnail
    }

    /// The file's name inside the media store: `ab/abcdef….jpg`.
    public var relativePath: String { "\(sha256.prefix(2))/\(sha256).\(fileExtension)" }
    /// The thumbnail's name inside the thumbnails folder: `ab/abcdef….jpg`.
    public var thumbnailPath: String? { thumbnail.map { "\($0.prefix(2))/\($0).jpg" } }
}

/// One line of the conversation.
public struct Message: Sendable, Equatable {
    public var id: String
    public var entryId: String
    public var author: Author
    public var persona: String
    public var provider: String?
    public var text: String
    public var createdAt: Date

    public init(id: String, entryId: String, author: Author, persona: String, provider: String?, text: String, createdAt: Date) {
        self.id = id
        self.entryId = entryId
        self.author = author
        self.persona = persona
        self.provider = provider
        self.text = text
        self.createdAt = createdAt
    }
}

/// A diary entry: a draft, a conversation, and once saved, its page.
public struct Entry: Sendable, Equatable {
    public var id: String
    public var status: EntryStatus
    public var createdAt: Date
    public var updatedAt: Date
    public var occurredAt: Date
    public var timeZone: String
    public var note: String?
    public var transcript: String?
    public var analysis: String?
    public var context: EntryContext
    public var persona: String
    public var provider: String?
    public var title: String?
    public var summary: String?
    public var tags: [String]
    public var media: [MediaItem]
    public var messageCount: Int
    /// The conversation, when asked for (`--full`, `--show`).
    public var messages: [Message]?
    /// Whether changes wait in the outbox.
    public var syncState: EntrySyncState
    /// Why the last sync attempt of this entry failed, if it did.
    public var syncError: String?
    /// Why the companion's last step on this entry failed, if it did (D-006).
    public var lastError: String?
    /// A running summary of the talk's early turns, once it grew long.
    public var digest: String?
    /// The id of the last message the digest covers.
    public var digestThrough: String?
    /// Marked as a favourite.
    public var starred = false
    /// When it went to the trash; nil when it is not there.
    public var trashedAt: Date?
    /// When the person last changed the page by hand; nil when it is the companion's as written.
    public var editedAt: Date?
    /// Set on a reflection page: the days it looks back on and the pages it cites.
    public var reflection: Reflection?

    /// The photo or video the entry is about (voice memos and files aside).
    public var picture: MediaItem? { media.first { $0.kind.isPicture } }

    /// The entry's time zone, falling back to UTC for an unknown name.
    public var zone: TimeZone { TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")! }
}

/// A tag with how often and how lately it was used.
public struct TagUse: Sendable, Equatable {
    public var name: String
    public var count: Int
    public var lastUsedAt: Date?

    package init(name: String, count: Int, lastUsedAt: Date?) {
        self.name = name
        self.count = count
        self.lastUsedAt = lastUsedAt
    }

    /// The one order of tags wherever they are listed: most recently used first, then the
    /// most used, then by name.
    package static func mostRecentFirst(_ lhs: TagUse, _ rhs: TagUse) -> Bool {
        if lhs.lastUsedAt != rhs.lastUsedAt { return (lhs.lastUsedAt ?? .distantPast) > (rhs.lastUsedAt ?? .distantPast) }
        if lhs.count != rhs.count { return lhs.count > rhs.count }
        return lhs.name < rhs.name
    }
}

/// What a new draft starts with.
public struct NewEntry: Sendable {
    public var occurredAt: Date
    public var timeZone: TimeZone
    public var note: String?
    public var transcript: String?
    public var context: EntryContext
    public var persona: String
    public var media: [MediaItem]

    public init(occurredAt: Date, timeZone: TimeZone, note: String?, transcript: String? = nil,
                context: EntryContext = EntryContext(), persona: String, media: [MediaItem]) {
        self.occurredAt = occurredAt
        self.timeZone = timeZone
        self.note = note
        self.transcript = transcript
        self.context = context
        self.persona = persona
        self.media = media
    }
}

/// How many entries were written on one local day.
public struct DayCount: Sendable, Equatable {
    public var day: String
    public var count: Int
}

/// What the `usage` table counts per day.
package enum UsageKind {
    /// Pages the companion wrote (`[limits] pages_per_day`).
    package static let page = "page"
    /// Tokens the online companions' answers cost (`[limits] tokens_per_day`).
    package static let tokens = "tokens"
}

/// What a reflection page looks back on: a period of days and the pages it draws on.
public struct Reflection: Sendable, Equatable {
    /// `week`, `month`, `year`, or `range` for days given by hand.
    public var period: String
    /// Its first and last local day, `YYYY-MM-DD`.
    public var from: String
    public var to: String
    /// The ids of the pages it cites.
    public var cites: [String]

    public init(period: String, from: String, to: String, cites: [String]) {
        self.period = period
        self.from = from
        self.to = to
        self.cites = cites
    }

    /// Its JSON form, in records and in the entry's `reflection` column.
    public var json: JSON {
        .object([("period", .string(period)), ("from", .string(from)), ("to", .string(to)), ("cites", .array(cites.map(JSON.string)))])
    }

    /// Reads the JSON form; nil unless every field has its type.
    public init?(json: JSON) {
        guard let period = json["period"]?.stringValue, let from = json["from"]?.stringValue, let to = json["to"]?.stringValue,
              let list = json["cites"]?.arrayValue else { return nil }
        let cites = list.compactMap(\.stringValue)
        guard cites.count == list.count else { return nil }
        self.init(period: period, from: from, to: to, cites: cites)
    }

    /// The column's text read back; nil for none (or for a value no build wrote).
    static func decode(_ text: String?) -> Reflection? { text.flatMap { JSON.parse(Data($0.utf8)) }.flatMap(Reflection.init(json:)) }
}

/// Whether an entry's changes still wait to go to the sync server (`sync.state` in its JSON).
public enum EntrySyncState: String, Sendable {
    /// Changes wait in the outbox.
    case pending
    /// None do.
    case synced
}

/// A synced table, as the outbox and the list of kept conflicts name it.
package enum SyncedTable: String, Sendable {
    case entry, media, message, tag, setting
    case entryTag = "entry_tag"
}

/// What an outbox row asks of the server.
package enum OutboxOperation: String, Sendable {
    case upsert, delete
}

/// Where the records of a merge came from, as a kept conflict records it.
package enum MergeSource: String, Sendable {
    case sync
    case `import`
    case restore
}
