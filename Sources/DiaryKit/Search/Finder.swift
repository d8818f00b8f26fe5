import Foundation

/// What a person asked `diary-find` for, in their own words.
public struct FindRequest: Sendable {
    public var keywords: String?
    /// Tags the page must all carry (`--tag`, repeatable).
    public var tags: [String] = []
    /// Tags of which it must carry one (`--any-tag`).
    public var anyTags: [String] = []
    /// Tags it must not carry (`--not-tag`).
    public var notTags: [String] = []
    /// `--on`, `--from`, `--to` as typed: `2026`, `2026-11`, `2026-11-21`, `today`, `yesterday`.
    public var on: String?
    public var from: String?
    public var to: String?
    /// This day of the year in earlier years.
    public var todayInHistory = false
    public var statuses: [EntryStatus] = []
    /// Only starred pages.
    public var starredOnly = false
    /// Only reflection pages.
    public var reflectionsOnly = false
    /// The pages in the trash instead of the others.
    public var inTrash = false
    /// Nil: relevance when there are words, else when it happened.
    public var order: EntryOrder?
    /// A cursor printed with an earlier page: go on after it.
    public var after: String?
    public var limit: Int?
    public var includeMessages = false

    public init() {}
}

/// Why a search came back empty, so the person reads the right sentence.
public enum EmptyReason: Sendable, Equatable {
    case noEntries
    case emptyTag
    case noMatch
    case emptyTrash

    /// The seed's empty-state sentence for this reason.
    public var phrase: Phrase {
        switch self {
        case .noEntries: return .emptyDiary
        case .emptyTag: return .emptyTag
        case .noMatch: return .noMatch
        case .emptyTrash: return .emptyTrash
        }
    }
}

/// One page of results: each with the cursor that continues after it.
public struct FindResult: Sendable {
    public var hits: [(hit: EntryHit, cursor: String)]
    /// True when more entries follow the last one shown.
    public var more: Bool
    public var emptyReason: EmptyReason?
}

/// A month laid out for the calendar: every day with its count of pages.
public struct MonthCounts: Sendable, Equatable {
    public var year: Int
    public var month: Int
    public var days: [DayCount]
    /// 0 for Monday … 6 for Sunday: where the 1st falls in a Monday-first week.
    public var firstWeekday: Int
}

/// A date or cursor the person typed that means nothing.
package enum SearchError: Error, Equatable {
    case badDate(String)
    case badCursor(String)
}

/// Turns a person's search into a store query. Their words are data: they become quoted
/// FTS5 terms, so quotes, `*`, `NEAR`, `-` or `:` can neither break nor widen a search.
public struct Finder: Sendable {
    public let store: DiaryStore
    public let today: Date
    public let zone: TimeZone

    /// What runs the store queries of a request.
    private var engine: SearchEngine { SearchEngine(store: store) }

    public init(store: DiaryStore, today: Date = Date(), zone: TimeZone = .current) {
        self.store = store
        self.today = today
        self.zone = zone
    }

    /// One page of the search.
    public func find(_ request: FindRequest) throws -> FindResult {
        guard var filter = try filter(request) else { return try empty(request) }
        let order = filter.order
        if let limit = request.limit { filter.limit = limit + 1 }
        var hits = try engine.find(filter)
        if hits.isEmpty && request.after == nil { return try empty(request) }
        let more = request.limit.map { hits.count > $0 } ?? false
        if more { hits.removeLast() }
        return FindResult(hits: hits.map { ($0, Cursor.encode(order, $0.position)) }, more: more, emptyReason: nil)
    }

    /// Every hit of the search (up to `request.limit`), fetched `pageSize` at a time by the
    /// cursor, so memory stays flat however many pages match. Returns the last page fetched:
    /// its `emptyReason`, whether more follow the limit, and the cursor to go on from.
    public func forEachHit(_ request: FindRequest, pageSize: Int = 500,
                           _ body: (EntryHit, String) throws -> Void) throws -> FindResult {
        var page = request
        var remaining = request.limit
        while true {
            page.limit = min(remaining ?? pageSize, pageSize)
            let result = try find(page)
            for (hit, cursor) in result.hits { try body(hit, cursor) }
            remaining = remaining.map { $0 - result.hits.count }
            guard result.more, remaining != 0, let last = result.hits.last else { return result }
            page.after = last.cursor
        }
    }

    /// How many entries the search matches.
    public func count(_ request: FindRequest) throws -> Int {
        guard let filter = try filter(request) else { return 0 }
        return try engine.count(filter)
    }

    /// The pages per day of a month (`YYYY-MM`, or this month), within the other filters.
    public func calendar(month text: String?, _ request: FindRequest) throws -> MonthCounts {
        let grid: MonthGrid
        if let text {
            guard let parsed = MonthGrid(text) else { throw SearchError.badDate(text) }
            grid = parsed
        } else {
            let parts = Timestamps.calendar(zone).dateComponents([.year, .month], from: today)
            grid = MonthGrid(year: parts.year!, month: parts.month!)!
        }
        var request = request
        request.on = nil
        request.from = Timestamps.day(grid.year, grid.month, 1)
        request.to = Timestamps.day(grid.year, grid.month, grid.length)
        var counted: [DayCount] = []
        if var filter = try filter(request) {
            filter.writtenMomentsOnly = true
            counted = try engine.dayCounts(filter)
        }
        let byDay = Dictionary(counted.map { ($0.day, $0.count) }, uniquingKeysWith: +)
        let days = grid.days.map { DayCount(day: $0, count: byDay[$0] ?? 0) }
        return MonthCounts(year: grid.year, month: grid.month, days: days, firstWeekday: grid.firstWeekday)
    }

    /// `全部` and every tag in use, most recent first, with counts.
    public func tagTiles() throws -> (all: Int, tags: [TagUse]) {
        (try store.liveEntryCount(), try store.tags.uses())
    }

    /// The store filter for a request; nil when it can match nothing (words with no letters).
    package func filter(_ request: FindRequest) throws -> EntryFilter? {
        var filter = EntryFilter()
        filter.allTags = request.tags.compactMap(TagName.normalize)
        filter.anyTags = request.anyTags.compactMap(TagName.normalize)
        filter.notTags = request.notTags.compactMap(TagName.normalize)
        filter.statuses = request.statuses
        filter.starredOnly = request.starredOnly
        filter.reflectionsOnly = request.reflectionsOnly
        filter.inTrash = request.inTrash
        filter.includeMessages = request.includeMessages
        if let on = request.on {
            let range = try dayRange(on)
            filter.fromDay = range.first
            filter.toDay = range.last
        }
        if let from = request.from { filter.fromDay = try dayRange(from).first }
        if let to = request.to { filter.toDay = try dayRange(to).last }
        if request.todayInHistory { applyHistory(to: &filter) }
        if let keywords = request.keywords, !keywords.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            // Words with no letters at all (only punctuation) can match nothing.
            filter.words = Self.words(keywords)
            if filter.words.isEmpty { return nil }
        }
        filter.order = request.order ?? (filter.words.isEmpty ? .occurred : .relevance)
        if let cursor = request.after { filter.after = try Cursor.decode(cursor, order: filter.order) }
        return filter
    }

    /// This day of the year in earlier years; on 28 February of a common year, 29 February too.
    private func applyHistory(to filter: inout EntryFilter) {
        let calendar = Timestamps.calendar(zone)
        let parts = calendar.dateComponents([.year, .month, .day], from: today)
        let (year, month, day) = (parts.year!, parts.month!, parts.day!)
        filter.monthDays = [String(Timestamps.day(year, month, day).dropFirst(5))]
        let leap = DateComponents(year: year, month: 2, day: 29).isValidDate(in: calendar)
        if month == 2 && day == 28 && !leap { filter.monthDays.append("02-29") }
        let lastYear = Timestamps.day(year - 1, 12, 31)
        filter.toDay = min(filter.toDay ?? lastYear, lastYear)
    }

    private func empty(_ request: FindRequest) throws -> FindResult {
        let reason: EmptyReason
        if request.inTrash {
            reason = .emptyTrash
        } else if try store.isEmpty() {
            reason = .noEntries
        } else if !(request.tags + request.anyTags).isEmpty && (request.keywords ?? "").isEmpty {
            reason = .emptyTag
        } else {
            reason = .noMatch
        }
        return FindResult(hits: [], more: false, emptyReason: reason)
    }

    /// What a person's words ask for: every piece must match; words and single Chinese
    /// characters by their beginning, longer Chinese runs exactly (the index cuts them into
    /// pairs). Punctuation, quotes and operators only separate pieces.
    public static func words(_ text: String) -> [SearchWord] {
        SearchableText.pieces(of: text).map { piece in
            switch piece {
            case let .word(word): return .prefix(word)
            case let .cjk(run): return run.unicodeScalars.count == 1 ? .prefix(run) : .phrase(run)
            }
        }
    }

    /// The first and last local day a date word covers.
    public func dayRange(_ text: String) throws -> (first: String, last: String) {
        let calendar = Timestamps.calendar(zone)
        let word = text.trimmingCharacters(in: .whitespaces).lowercased()
        switch word {
        case "today":
            let day = Timestamps.localDate(today, zone: zone)
            return (day, day)
        case "yesterday":
            let day = Timestamps.localDate(calendar.date(byAdding: .day, value: -1, to: today)!, zone: zone)
            return (day, day)
        default:
            break
        }
        if let match = word.wholeMatch(of: /(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?/) {
            let year = Int(match.1)!
            guard let monthText = match.2 else { return (Timestamps.day(year, 1, 1), Timestamps.day(year, 12, 31)) }
            let month = Int(monthText)!
            guard (1...12).contains(month) else { throw SearchError.badDate(text) }
            guard let dayText = match.3 else {
                let grid = MonthGrid(year: year, month: month)!
                return (Timestamps.day(year, month, 1), Timestamps.day(year, month, grid.length))
            }
            let day = Int(dayText)!
            guard DateComponents(year: year, month: month, day: day).isValidDate(in: calendar) else { throw SearchError.badDate(text) }
            let formatted = Timestamps.day(year, month, day)
            return (formatted, formatted)
        }
        throw SearchError.badDate(text)
    }
}

/// The text form of a position in a result list: opaque, safe to paste in a shell, and tied
/// to the order it was made for.
enum Cursor {
    static func encode(_ order: EntryOrder, _ position: EntryPosition) -> String {
        let fields = ["1", order.rawValue, String(position.tier), String(position.momentKey)] + (position.value.map { [$0] } ?? [])
        return Data(fields.joined(separator: "\u{1F}").utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String, order: EntryOrder) throws -> EntryPosition {
        var base64 = text.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8) else {
            throw SearchError.badCursor(text)
        }
        let fields = decoded.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 4, fields[0] == "1", fields[1] == order.rawValue,
              let tier = Int(fields[2]), (0...1).contains(tier), let key = Int64(fields[3]) else {
            throw SearchError.badCursor(text)
        }
        return EntryPosition(tier: tier, value: fields.count > 4 ? fields[4...].joined(separator: "\u{1F}") : nil, momentKey: key)
    }
}
