import Foundation

/// The sync fields every stored row carries: when it last changed (hybrid clock), on which
/// device, and whether it is a tombstone.
public struct RowClock: Sendable, Equatable {
    public var hlc: String
    public var deviceId: String
    public var deletedAt: Date?

    public init(hlc: String, deviceId: String, deletedAt: Date? = nil) {
        self.hlc = hlc
        self.deviceId = deviceId
        self.deletedAt = deletedAt
    }

    /// The clock reading, for ordering versions (unreadable clocks sort first).
    var timestamp: HybridTimestamp { HybridTimestamp(hlc) ?? HybridTimestamp(wallMillis: 0, counter: 0, device: "") }
}

/// The clocks of the parts of an entry that merge apart: its words and times (content), its
/// star, its place in the trash and its place in the person's own order. A star or a move
/// on one device then never undoes an edit of the words made on another, or the other way
/// round. A part without a clock of its own dates from the entry's clock (content) or
/// from before it was ever set (the others).
package struct FieldClocks: Sendable, Equatable {
    package var content: String?
    package var star: String?
    package var trash: String?
    package var order: String?

    package init(content: String? = nil, star: String? = nil, trash: String? = nil, order: String? = nil) {
        self.content = content
        self.star = star
        self.trash = trash
        self.order = order
    }

    /// The parts, each with its name in records.
    package enum Part: String, CaseIterable, Sendable {
        case content, star, trash, order
    }

    package subscript(part: Part) -> String? {
        get {
            switch part {
            case .content: return content
            case .star: return star
            case .trash: return trash
            case .order: return order
            }
        }
        set {
            switch part {
            case .content: content = newValue
            case .star: star = newValue
            case .trash: trash = newValue
            case .order: order = newValue
            }
        }
    }
}

/// Everything stored about one entry, row by row and clock by clock: what a backup carries
/// and what a restore or an import merges back.
package struct EntryRecord: Sendable, Equatable {
    /// One media row of the entry.
    public struct Media: Sendable, Equatable {
        public var id: String
        public var position: Int
        public var clock: RowClock
        public var item: MediaItem
        /// Where it stands in the page's text: how many lines (the title one of them) come
        /// before it; nil when it follows the text, as a photo the person records with does.
        public var anchor: Int?

        public init(id: String, position: Int, clock: RowClock, item: MediaItem, anchor: Int? = nil) {
            self.id = id
            self.position = position
            self.clock = clock
            self.item = item
            self.anchor = anchor
        }
    }

    /// One message of the conversation with its clock.
    public struct Line: Sendable, Equatable {
        public var message: Message
        public var clock: RowClock

        public init(message: Message, clock: RowClock) {
            self.message = message
            self.clock = clock
        }
    }

    /// One tag on the entry, by name (tag ids differ between devices).
    package struct TagLink: Sendable, Equatable {
        package var name: String
        package var position: Int
        package var createdAt: Date
        package var clock: RowClock
        /// The tag as it was written where that differs from its name (`Pizza` for `pizza`):
        /// an import keeps it so that an export writes the tag back the same way.
        package var label: String?

        package init(name: String, position: Int, createdAt: Date, clock: RowClock, label: String? = nil) {
            self.name = name
            self.position = position
            self.createdAt = createdAt
            self.clock = clock
            self.label = label
        }
    }

    package var id: String
    package var clock: RowClock
    package var status: EntryStatus
    package var createdAt: Date
    package var updatedAt: Date
    package var occurredAt: Date
    package var timeZone: String
    package var note: String?
    package var transcript: String?
    package var analysis: String?
    package var analysisProvider: String?
    package var context: EntryContext
    package var persona: String
    package var provider: String?
    package var title: String?
    package var summary: String?
    package var summarizedAt: Date?
    package var lastError: String?
    package var digest: String?
    package var digestThrough: String?
    /// When the person last changed the page by hand (the companion then asks before rewriting it).
    package var editedAt: Date?
    package var starred: Bool
    /// When the page went to the trash; nil when it is not there.
    package var trashedAt: Date?
    /// Its place in the person's own order (`OrderKey`); nil until they move it.
    package var orderKey: String?
    package var fieldClocks: FieldClocks
    /// The journal it came from, when an import brought it from one of several (Day One's
    /// `Travel.json`); nil for the diary's own pages.
    package var journal: String?
    /// Set on a reflection page: its days and the pages it cites.
    package var reflection: Reflection?
    package var media: [Media]
    package var lines: [Line]
    package var tagLinks: [TagLink]

    package init(id: String, clock: RowClock, status: EntryStatus, createdAt: Date, updatedAt: Date, occurredAt: Date,
                timeZone: String, note: String? = nil, transcript: String? = nil, analysis: String? = nil,
                analysisProvider: String? = nil, context: EntryContext = EntryContext(), persona: String,
                provider: String? = nil, title: String? = nil, summary: String? = nil, summarizedAt: Date? = nil,
                lastError: String? = nil, digest: String? = nil, digestThrough: String? = nil,
                editedAt: Date? = nil, starred: Bool = false, trashedAt: Date? = nil, orderKey: String? = nil,
                fieldClocks: FieldClocks = FieldClocks(), journal: String? = nil, reflection: Reflection? = nil,
                media: [Media] = [], lines: [Line] = [], tagLinks: [TagLink] = []) {
        self.id = id
        self.clock = clock
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.occurredAt = occurredAt
        self.timeZone = timeZone
        self.note = note
        self.transcript = transcript
        self.analysis = analysis
        self.analysisProvider = analysisProvider
        self.context = context
        self.persona = persona
        self.provider = provider
        self.title = title
        self.summary = summary
        self.summarizedAt = summarizedAt
        self.lastError = lastError
        self.digest = digest
        self.digestThrough = digestThrough
        self.editedAt = editedAt
        self.starred = starred
        self.trashedAt = trashedAt
        self.orderKey = orderKey
        self.fieldClocks = fieldClocks
        self.journal = journal
        self.reflection = reflection
        self.media = media
        self.lines = lines
        self.tagLinks = tagLinks
    }

    /// The zone the entry was written in.
    package var zone: TimeZone { TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")! }
    /// The names of the tags it has now, in order.
    package var tags: [String] { liveTagLinks.map(\.name) }
    /// The same tags as they were written (`Pizza`), for exports to other diaries.
    package var writtenTags: [String] { liveTagLinks.map { $0.label ?? $0.name } }
    private var liveTagLinks: [TagLink] { tagLinks.filter { $0.clock.deletedAt == nil }.sorted { $0.position < $1.position } }
    /// Its media that are not deleted, in order.
    package var liveMedia: [Media] { media.filter { $0.clock.deletedAt == nil }.sorted { $0.position < $1.position } }
    /// Its messages that are not deleted, oldest first.
    package var liveMessages: [Message] { lines.filter { $0.clock.deletedAt == nil }.map(\.message) }
    /// A tombstone, or a page in the trash: left out of every listing and export.
    package var isHidden: Bool { clock.deletedAt != nil || trashedAt != nil }

    /// The clock a part last changed at (content falls back to the entry's own clock).
    func clock(of part: FieldClocks.Part) -> HybridTimestamp {
        let text = fieldClocks[part] ?? (part == .content ? clock.hlc : nil)
        return text.flatMap(HybridTimestamp.init) ?? HybridTimestamp(wallMillis: 0, counter: 0, device: "")
    }

    /// Takes one part's fields (as `EntryRecord.fields` assigns them) and its clock from `other`.
    mutating func take(_ part: FieldClocks.Part, from other: EntryRecord) {
        for field in Self.fields(of: part) { copy(field, from: other) }
        fieldClocks[part] = other.fieldClocks[part]
    }

    /// The entry's own fields with the children left out: what a kept conflict version holds.
    var fieldsOnly: EntryRecord {
        var copy = self
        copy.media = []
        copy.lines = []
        copy.tagLinks = []
        return copy
    }
}

/// A tag's own row: when it was first and last used (counts are derived).
public struct TagRecord: Sendable, Equatable {
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var clock: RowClock

    public init(name: String, createdAt: Date, lastUsedAt: Date?, clock: RowClock) {
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.clock = clock
    }
}

/// A synced setting (persona, language, …).
public struct SettingRecord: Sendable, Equatable {
    public var key: String
    public var value: String
    public var updatedAt: Date
    public var clock: RowClock

    public init(key: String, value: String, updatedAt: Date, clock: RowClock) {
        self.key = key
        self.value = value
        self.updatedAt = updatedAt
        self.clock = clock
    }
}

/// How many times something was used on a day (companion turns, pages written, …).
public struct UsageRecord: Sendable, Equatable {
    public var day: String
    public var counter: String
    public var count: Int

    public init(day: String, counter: String, count: Int) {
        self.day = day
        self.counter = counter
        self.count = count
    }
}

/// A version of a row that lost a merge, kept so that nothing is ever lost.
public struct ConflictRecord: Sendable, Equatable {
    public var id: String
    public var table: String
    public var rowId: String
    /// The losing version's clock and the winner's.
    public var hlc: String
    public var winnerHlc: String
    /// Where the losing version came from: `import`, `restore` or `sync`.
    public var source: String
    public var keptAt: Date
    /// The losing version, in the archive's JSON form.
    public var version: JSON

    public init(id: String, table: String, rowId: String, hlc: String, winnerHlc: String, source: String, keptAt: Date, version: JSON) {
        self.id = id
        self.table = table
        self.rowId = rowId
        self.hlc = hlc
        self.winnerHlc = winnerHlc
        self.source = source
        self.keptAt = keptAt
        self.version = version
    }
}

/// Everything in a diary besides its entries, as a backup carries it.
public struct DiaryExtras: Sendable, Equatable {
    public var tags: [TagRecord] = []
    public var settings: [SettingRecord] = []
    /// This device's own settings (consents, notices shown), which never sync.
    public var deviceSettings: [(key: String, value: String)] = []
    public var usage: [UsageRecord] = []
    public var conflicts: [ConflictRecord] = []
    /// The earlier versions of pages (their history), by entry.
    public var versions: [(entryId: String, version: PageVersion)] = []

    public init() {}

    public static func == (lhs: DiaryExtras, rhs: DiaryExtras) -> Bool {
        lhs.tags == rhs.tags && lhs.settings == rhs.settings && lhs.usage == rhs.usage && lhs.conflicts == rhs.conflicts
            && lhs.versions.map(\.entryId) == rhs.versions.map(\.entryId) && lhs.versions.map(\.version) == rhs.versions.map(\.version)
            && lhs.deviceSettings.map(\.key) == rhs.deviceSettings.map(\.key)
            && lhs.deviceSettings.map(\.value) == rhs.deviceSettings.map(\.value)
    }
}

/// What a merge did.
package struct MergeReport: Sendable, Equatable {
    package var added = 0
    package var updated = 0
    package var unchanged = 0
    package var conflictsKept = 0
    package var messagesAdded = 0
    package var settingsChanged = 0
    /// Media files the merged records stopped using (a page purged elsewhere), for the
    /// caller to remove after the commit.
    package var unusedMedia: [MediaItem] = []

    package init() {}
}
