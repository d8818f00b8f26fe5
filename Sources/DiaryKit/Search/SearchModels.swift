import Foundation

/// What to list: words, tags, local days, statuses, order and where the last page ended.
package struct EntryFilter: Sendable {
    /// What the person's words must find, every one of them.
    package var words: [SearchWord] = []
    /// Normalised tag names the entry must all carry.
    package var allTags: [String] = []
    /// Normalised tag names of which the entry must carry at least one.
    package var anyTags: [String] = []
    /// Normalised tag names the entry must not carry.
    package var notTags: [String] = []
    /// Inclusive local days, `YYYY-MM-DD`.
    package var fromDay: String?
    package var toDay: String?
    /// Only these days of the year, `MM-DD` (this day in history).
    package var monthDays: [String] = []
    package var statuses: [EntryStatus] = []
    package var starredOnly = false
    /// Only reflection pages (`diary-save --reflect`).
    package var reflectionsOnly = false
    /// Only the written moments: reflections (which look back on them, tagged with their
    /// feelings) left out, so that counts per day and over time count each moment once.
    package var writtenMomentsOnly = false
    /// The pages in the trash (which have no words in the index) instead of the others.
    package var inTrash = false
    package var order: EntryOrder = .occurred
    /// Continue after this entry of an earlier page.
    package var after: EntryPosition?
    package var limit: Int?
    package var includeMessages = false

    package init() {}
}

/// One word of a search, as `Search/` understood it.
public enum SearchWord: Sendable, Equatable {
    /// A word, or a single Chinese character, matched by its beginning.
    case prefix(String)
    /// A run of Chinese characters, matched exactly.
    case phrase(String)
}

/// How a list of entries is ordered.
public enum EntryOrder: String, Sendable, CaseIterable {
    /// The person's own words (page, note, their chat) first, then the companion's; newest first in each.
    case relevance
    /// When it happened, newest first.
    case occurred
    /// When it was written, newest first.
    case created
    /// When it last changed, newest first.
    case updated
    /// By title, A to Z (case ignored); untitled drafts last.
    case title
    /// The person's own order (`diary-save --move`); pages never moved by when they happened.
    case manual
}

/// Where an entry sits in an ordered list; paging continues strictly after it, so pages
/// never skip or repeat an entry while new ones are written.
public struct EntryPosition: Sendable, Equatable {
    /// 0 when the person's own words matched, 1 when only the companion's (relevance only).
    public var tier: Int
    /// The sorted value: milliseconds for created/updated, the title for title, the order
    /// key for manual; nil otherwise.
    public var value: String?
    /// The entry's place in time order, unique per entry.
    public var momentKey: Int64

    public init(tier: Int = 0, value: String? = nil, momentKey: Int64) {
        self.tier = tier
        self.value = value
        self.momentKey = momentKey
    }
}

/// One entry found, where it sits in the list, and the matching words in context.
public struct EntryHit: Sendable {
    public var entry: Entry
    public var position: EntryPosition
    /// A short passage around the match, matches between U+0002 and U+0003; nil without words.
    public var snippet: String?
}
