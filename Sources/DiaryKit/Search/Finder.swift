import Foundation

/// What a person asked `diary-find` for, in their own words.
public struct FindRequest: Sendable {
    public var keywords: String?
    public var tags: [String] = []
    /// `--on`, `--from`, `--to` as typed: `2026`, `2026-11`, `2026-11-21`, `today`, `yesterday`.
    public var on: String?
    public var from: String?
    public var to: String?
    public var statuses: [EntryStatus] = []
    public var limit: Int?
    public var offset = 0
    public var includeMessages = false

    public init() {}
}

/// Why a search came back empty, so the person reads the right sentence.
public enum EmptyReason: Sendable, Equatable {
    case noEntries
    case emptyTag
    case noMatch

    /// The seed's empty-state sentence for this reason.
    public var phrase: Phrase {
        switch self {
        case .noEntries: return .emptyDiary
        case .emptyTag: return .emptyTag
        case .noMatch: return .noMatch
        }
    }
}

/// One page of results and the size of the whole result.
public struct FindResult: Sendable {
    public var entries: [Entry]
    public var total: Int
    public var emptyReason: EmptyReason?
}

/// A `--on/--from/--to` value that is not a date.
public enum SearchError: Error, Equatable {
    case badDate(String)
}

/// Turns a person's search into a store query. Their words are data: they become quoted
/// FTS5 terms, so quotes, `*`, `NEAR`, `-` or `:` can neither break nor widen a search.
public struct Finder: Sendable {
    public let store: DiaryStore
    public let today: Date
    public let zone: TimeZone

    public init(store: DiaryStore, today: Date = Date(), zone: TimeZone = .current) {
        self.store = store
        self.today = today
        self.zone = zone
    }

    /// Runs the search; newest moment first.
    public func find(_ request: FindRequest) throws -> FindResult {
        var filter = EntryFilter()
        filter.tags = request.tags.compactMap(TagName.normalize)
        filter.statuses = request.statuses
        filter.limit = request.limit
        filter.offset = request.offset
        filter.includeMessages = request.includeMessages
        if let on = request.on {
            let range = try dayRange(on)
            filter.fromDay = range.first
            filter.toDay = range.last
        }
        if let from = request.from { filter.fromDay = try dayRange(from).first }
        if let to = request.to { filter.toDay = try dayRange(to).last }
        if let keywords = request.keywords, !keywords.trimmingCharacters(in: .whitespaces).isEmpty {
            // Words with no letters at all (only punctuation) can match nothing.
            guard let match = Self.matchExpression(keywords) else { return try empty(request) }
            filter.match = match
        }
        let entries = try store.entries(filter)
        if entries.isEmpty { return try empty(request) }
        let total = (request.limit == nil && request.offset == 0) ? entries.count : try store.count(filter)
        return FindResult(entries: entries, total: total, emptyReason: nil)
    }

    /// `全部` and every tag in use, most recent first, with counts.
    public func tagTiles() throws -> (all: Int, tags: [TagUse]) {
        (try store.count(EntryFilter()), try store.tagUses())
    }

    private func empty(_ request: FindRequest) throws -> FindResult {
        let reason: EmptyReason
        if try store.count(EntryFilter()) == 0 {
            reason = .noEntries
        } else if !request.tags.isEmpty && (request.keywords ?? "").isEmpty {
            reason = .emptyTag
        } else {
            reason = .noMatch
        }
        return FindResult(entries: [], total: 0, emptyReason: reason)
    }

    /// The FTS5 expression for a person's words: every piece must match; English words match
    /// as prefixes, Chinese runs as phrases of bigrams (a single character as itself).
    public static func matchExpression(_ words: String) -> String? {
        let terms = SearchableText.pieces(of: words).map { piece -> String in
            switch piece {
            case let .word(word):
                return "\"\(word)\"*"
            case let .cjk(run):
                let characters = Array(run)
                guard characters.count > 1 else { return "\"\(run)\"" }
                let bigrams = (0..<(characters.count - 1)).map { String(characters[$0...$0 + 1]) }
                return "\"\(bigrams.joined(separator: " "))\""
            }
        }
        return terms.isEmpty ? nil : terms.joined(separator: " AND ")
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
            guard let monthText = match.2 else { return (String(format: "%04d-01-01", year), String(format: "%04d-12-31", year)) }
            let month = Int(monthText)!
            guard (1...12).contains(month) else { throw SearchError.badDate(text) }
            guard let dayText = match.3 else {
                let days = calendar.range(of: .day, in: .month,
                                          for: calendar.date(from: DateComponents(year: year, month: month, day: 1))!)!.count
                return (String(format: "%04d-%02d-01", year, month), String(format: "%04d-%02d-%02d", year, month, days))
            }
            let day = Int(dayText)!
            guard DateComponents(year: year, month: month, day: day).isValidDate(in: calendar) else { throw SearchError.badDate(text) }
            let formatted = String(format: "%04d-%02d-%02d", year, month, day)
            return (formatted, formatted)
        }
        throw SearchError.badDate(text)
    }
}
