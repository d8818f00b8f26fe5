import Foundation

/// The search engine: turns a filter into the SQL that finds, counts or tallies entries
/// (words as FTS5 terms, ranking tiers, keyset paging) and has the store run it.
///
/// The full-text table's rowid is the entry's moment_key, which orders entries by when they
/// happened; so "newest first" is a walk down one index, and a word search walks the word's
/// own list in that order and stops after one page, however many thousand entries match.
struct SearchEngine: Sendable {
    let store: DiaryStore

    init(store: DiaryStore) { self.store = store }

    /// One page of entries matching the filter, in the filter's order.
    func find(_ filter: EntryFilter) throws -> [EntryHit] {
        try store.query { reader in
            guard let tags = try TagIds(reader, filter), let match = try Self.match(reader, filter.words) else { return [] }
            var hits: [EntryHit] = []
            for plan in Self.plans(filter, match) {
                if let limit = filter.limit, hits.count >= limit { break }
                var remaining = filter
                if let limit = filter.limit { remaining.limit = limit - hits.count }
                hits += try Self.run(reader, plan, remaining, tags)
            }
            return hits
        }
    }

    /// How many entries match the filter (order and paging ignored).
    func count(_ filter: EntryFilter) throws -> Int {
        try store.query { reader in
            guard let tags = try TagIds(reader, filter), let match = try Self.match(reader, filter.words) else { return 0 }
            if match.expression == nil && filter.isWordsOnly {
                return try reader.integer("SELECT live FROM entry_total") ?? 0
            }
            // The index holds exactly the live entries (every write and delete keeps it so),
            // so words alone are counted without reading a single entry row.
            if let match = match.expression, filter.isWordsOnly {
                return try reader.integer("SELECT count(*) FROM entry_fts WHERE entry_fts MATCH ?", [.text(match)]) ?? 0
            }
            let conditions = Conditions(filter, tags, matching: match.expression)
            return try reader.integer("SELECT count(*) FROM entry e WHERE \(conditions.sql)", conditions.arguments) ?? 0
        }
    }

    /// Entries per local day between two days (inclusive) that match the filter.
    func dayCounts(_ filter: EntryFilter) throws -> [DayCount] {
        try store.query { reader in
            guard let tags = try TagIds(reader, filter), let match = try Self.match(reader, filter.words) else { return [] }
            let conditions = Conditions(filter, tags, matching: match.expression)
            return try reader.counts("""
                SELECT e.local_date, count(*) AS n FROM entry e WHERE \(conditions.sql)
                GROUP BY e.local_date ORDER BY e.local_date
                """, conditions.arguments).map { DayCount(day: $0.0, count: $0.1) }
        }
    }

    /// How many entries carried each of the named tags per local day (or, `monthly`, per
    /// month: `YYYY-MM`), within the filter (its words aside). With only days to narrow
    /// it, the store's own per-tag, per-day counts answer; otherwise the live entries' days
    /// come from their own small index, not from each (large) entry row.
    func tagDayCounts(_ filter: EntryFilter, tags names: [String], monthly: Bool) throws -> [(day: String, tag: String, count: Int)] {
        try store.query { reader in
            guard let tags = try TagIds(reader, filter), !names.isEmpty else { return [] }
            let marks = Array(repeating: "?", count: names.count).joined(separator: ",")
            // Only days narrow it: the counts the store keeps per tag and day (of written
            // moments: no reflections) answer alone.
            if filter.writtenMomentsOnly && filter.allTags.isEmpty && filter.anyTags.isEmpty && filter.notTags.isEmpty && !filter.starredOnly && !filter.inTrash
                && !filter.reflectionsOnly && filter.monthDays.isEmpty && filter.statuses.isEmpty {
                let day = monthly ? "substr(d.local_date, 1, 7)" : "d.local_date"
                var bounds = ""
                var arguments = names.map(SQLValue.text)
                if let from = filter.fromDay { bounds += " AND d.local_date >= ?"; arguments.append(.text(from)) }
                if let to = filter.toDay { bounds += " AND d.local_date <= ?"; arguments.append(.text(to)) }
                return try reader.counts("""
                    SELECT \(day) || char(31) || t.name, sum(d.n) FROM tag t JOIN tag_day d ON d.tag_id = t.id
                    WHERE t.name IN (\(marks)) AND d.n > 0\(bounds) GROUP BY \(day), t.name
                    """, arguments).map(Self.dayTagCount)
            }
            var conditions = Conditions(filter, tags, matching: nil)
            conditions.add("t.name IN (\(marks))", names.map(SQLValue.text))
            let day = monthly ? "substr(e.local_date, 1, 7)" : "e.local_date"
            // SQLite would rather look entries up by their unique id and read each row.
            let index = filter.inTrash ? "" : "INDEXED BY entry_live_day_by_id"
            return try reader.counts("""
                SELECT \(day) || char(31) || t.name, count(*) FROM tag t
                JOIN entry_tag et ON et.tag_id = t.id JOIN entry e \(index) ON e.id = et.entry_id
                WHERE \(conditions.sql) GROUP BY \(day), t.name
                """, conditions.arguments).map(Self.dayTagCount)
        }
    }

    /// A `day <US> tag` key and its count, apart.
    private static func dayTagCount(_ key: String, _ count: Int) -> (day: String, tag: String, count: Int) {
        let parts = key.split(separator: "\u{1F}", maxSplits: 1)
        return (String(parts[0]), String(parts.count > 1 ? parts[1] : ""), count)
    }

    // MARK: - Words

    /// The MATCH expression of the words, if any.
    private struct Match {
        var expression: String?
    }

    /// The person's words as an FTS5 expression; nil when some word occurs nowhere.
    ///
    /// A prefix search in FTS5 first gathers every matching document of every matching
    /// term, which for a common word is slow. So a prefix is looked up in the index's
    /// vocabulary and, when it stands for few terms, searched as those exact terms; FTS5
    /// then walks them newest first and stops after one page.
    private static func match(_ reader: QueryReader, _ words: [SearchWord]) throws -> Match? {
        guard !words.isEmpty else { return Match(expression: nil) }
        var terms: [String] = []
        for word in words {
            switch word {
            case let .phrase(text):
                terms.append(quoted(text))
            case let .prefix(text):
                guard let folded = SearchableText.tokens(text, purpose: .query).first else { return nil }
                let known = try reader.texts("""
                    SELECT term FROM entry_vocabulary WHERE term >= ? AND term < ? LIMIT 17
                    """, [.text(folded), .text(folded + "\u{10FFFF}")])
                if known.isEmpty { return nil }
                terms.append(known.count > 16 ? quoted(folded) + "*" : "(" + known.map(quoted).joined(separator: " OR ") + ")")
            }
        }
        return Match(expression: terms.joined(separator: " AND "))
    }

    // Words hold only letters and digits (quotes separate words), so quoting is enough.
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: - Plans

    /// One query of a search: a walk down a word's list in time order (relevance runs the
    /// person's words first, then the rest), or the matching entries sorted another way.
    private enum Plan {
        case walk(match: String, tier: Int)
        case sort(match: String?)
    }

    private static let personalColumns = "{title summary note transcript tags person_chat place}"

    private static func plans(_ filter: EntryFilter, _ words: Match) -> [Plan] {
        guard let match = words.expression else { return [.sort(match: nil)] }
        switch filter.order {
        case .relevance:
            let personal = "\(personalColumns) : (\(match))"
            let tiers = [Plan.walk(match: personal, tier: 0), Plan.walk(match: "(\(match)) NOT (\(personal))", tier: 1)]
            // A page that ended among the companion-only matches goes on there.
            return Array(tiers.dropFirst(filter.after?.tier ?? 0))
        case .occurred:
            return [.walk(match: match, tier: 0)]
        case .created, .updated, .title, .manual:
            return [.sort(match: match)]
        }
    }

    private static func run(_ reader: QueryReader, _ plan: Plan, _ filter: EntryFilter, _ tags: TagIds) throws -> [EntryHit] {
        var conditions: Conditions
        let sql: String
        var tier = 0
        let match: String?
        switch plan {
        case let .walk(expression, planTier):
            tier = planTier
            match = expression
            conditions = Conditions()
            conditions.add("entry_fts MATCH ?", [.text(expression)])
            conditions.add(filter, tags, ftsBounds: true)
            if let after = filter.after, after.tier == planTier {
                conditions.add("entry_fts.rowid < ?", [.integer(after.momentKey)])
            }
            // The snippet comes with the row: FTS5 is already positioned on it, so asking again
            // per hit (another MATCH) is not needed.
            sql = """
                SELECT \(QueryReader.entryColumns), \(Self.snippetColumn) AS snippet
                FROM entry_fts CROSS JOIN entry e ON e.moment_key = entry_fts.rowid
                WHERE \(conditions.sql) ORDER BY entry_fts.rowid DESC
                """
        case let .sort(expression):
            match = expression
            conditions = Conditions(filter, tags, matching: expression)
            if let after = filter.after { conditions.add(Self.keyset(filter.order, after)) }
            sql = "SELECT \(QueryReader.entryColumns) FROM entry e WHERE \(conditions.sql) ORDER BY \(Self.orderBy(filter.order))"
        }
        var arguments = conditions.arguments
        var limited = sql
        if let limit = filter.limit {
            limited += " LIMIT ?"
            arguments.append(.integer(Int64(limit)))
        }
        return try reader.entries(limited, arguments, includeMessages: filter.includeMessages).map { found in
            let position = EntryPosition(tier: tier, value: Self.sortValue(filter.order, found), momentKey: found.momentKey)
            let snippet = try found.snippet ?? match.flatMap { try Self.snippet(reader, match: $0, momentKey: found.momentKey) }
            return EntryHit(entry: found.entry, position: position, snippet: snippet)
        }
    }

    /// A short passage around the match, the matched words between U+0002 and U+0003.
    private static let snippetColumn = "snippet(entry_fts, -1, char(2), char(3), '…', 16)"

    /// The snippet of one entry, for plans where the entry table drives the query.
    private static func snippet(_ reader: QueryReader, match: String, momentKey: Int64) throws -> String? {
        try reader.text("SELECT \(snippetColumn) FROM entry_fts WHERE entry_fts MATCH ? AND rowid = ?", [.text(match), .integer(momentKey)])
    }

    private static func orderBy(_ order: EntryOrder) -> String {
        switch order {
        case .relevance, .occurred: return "e.moment_key DESC"
        case .created: return "e.created_at DESC, e.moment_key DESC"
        case .updated: return "e.updated_at DESC, e.moment_key DESC"
        case .title: return "\(untitled), e.title COLLATE NOCASE, e.moment_key DESC"
        case .manual: return "\(OrderKey.effectiveSQL), e.moment_key DESC"
        }
    }

    private static let untitled = "(coalesce(e.title, '') = '')"

    private static func sortValue(_ order: EntryOrder, _ found: QueriedEntry) -> String? {
        switch order {
        case .relevance, .occurred: return nil
        case .created: return String(found.createdAt)
        case .updated: return String(found.updatedAt)
        case .title: return (found.title ?? "").isEmpty ? nil : found.title
        case .manual: return found.orderKey
        }
    }

    /// "Strictly after `after`" in the given order.
    private static func keyset(_ order: EntryOrder, _ after: EntryPosition) -> (String, [SQLValue]) {
        let key = SQLValue.integer(after.momentKey)
        switch order {
        case .relevance, .occurred:
            return ("e.moment_key < ?", [key])
        case .created, .updated:
            let column = order == .created ? "e.created_at" : "e.updated_at"
            let value = SQLValue.integer(Int64(after.value ?? "") ?? Int64.max)
            return ("(\(column) < ? OR (\(column) = ? AND e.moment_key < ?))", [value, value, key])
        case .title:
            guard let title = after.value else { return ("(\(untitled) AND e.moment_key < ?)", [key]) }
            return ("""
                (\(untitled) OR e.title COLLATE NOCASE > ? OR (e.title COLLATE NOCASE = ? AND e.moment_key < ?))
                """, [.text(title), .text(title), key])
        case .manual:
            let value = SQLValue.text(after.value ?? "")
            return ("(\(OrderKey.effectiveSQL) > ? OR (\(OrderKey.effectiveSQL) = ? AND e.moment_key < ?))", [value, value, key])
        }
    }

    // MARK: - Conditions

    /// Tag names resolved to ids; nil when the filter can match nothing (a required tag
    /// no entry carries).
    private struct TagIds {
        var all: [String] = []
        var any: [String] = []
        var not: [String] = []

        init?(_ reader: QueryReader, _ filter: EntryFilter) throws {
            func ids(_ names: [String]) throws -> [String] {
                try names.compactMap { try reader.text("SELECT id FROM tag WHERE name = ?", [.text($0)]) }
            }
            let required = Array(Set(filter.allTags))
            all = try ids(required)
            any = try ids(filter.anyTags)
            not = try ids(filter.notTags)
            if all.count < required.count { return nil }
            if !filter.anyTags.isEmpty && any.isEmpty { return nil }
        }
    }

    private struct Conditions {
        var parts: [String] = []
        var arguments: [SQLValue] = []

        var sql: String { parts.joined(separator: " AND ") }

        init() {}

        /// The filter over the entry table, with the words (if any) as a set of rowids.
        init(_ filter: EntryFilter, _ tags: TagIds, matching match: String?) {
            if let match { add("e.moment_key IN (SELECT rowid FROM entry_fts WHERE entry_fts MATCH ?)", [.text(match)]) }
            add(filter, tags, ftsBounds: false)
        }

        mutating func add(_ part: String, _ values: [SQLValue] = []) {
            parts.append(part)
            arguments += values
        }

        mutating func add(_ part: (String, [SQLValue])) { add(part.0, part.1) }

        /// Everything but the words. `ftsBounds` also narrows the word list by time when the
        /// full-text table drives the query.
        mutating func add(_ filter: EntryFilter, _ tags: TagIds, ftsBounds: Bool) {
            // The same words as the partial indexes over live entries, so SQLite can use them.
            add(filter.inTrash ? "e.deleted_at IS NULL AND e.trashed_at IS NOT NULL" : "e.deleted_at IS NULL AND e.trashed_at IS NULL")
            if filter.starredOnly { add("e.starred = 1") }
            if filter.reflectionsOnly { add("e.reflection IS NOT NULL") } else if filter.writtenMomentsOnly { add("e.reflection IS NULL") }
            for tag in tags.all {
                add("EXISTS (SELECT 1 FROM entry_tag et WHERE et.entry_id = e.id AND et.tag_id = ?)", [.text(tag)])
            }
            if !tags.any.isEmpty {
                add("EXISTS (SELECT 1 FROM entry_tag et WHERE et.entry_id = e.id AND et.tag_id IN (\(marks(tags.any.count))))",
                    tags.any.map(SQLValue.text))
            }
            if !tags.not.isEmpty {
                add("NOT EXISTS (SELECT 1 FROM entry_tag et WHERE et.entry_id = e.id AND et.tag_id IN (\(marks(tags.not.count))))",
                    tags.not.map(SQLValue.text))
            }
            let keyColumn = ftsBounds ? "entry_fts.rowid" : "e.moment_key"
            if let from = filter.fromDay {
                add("e.local_date >= ?", [.text(from)])
                // Local days are in each entry's own zone; a day starts no earlier than 14 h
                // before it does in UTC, which bounds the walk through the time order.
                if let day = MomentKey.utcMidnight(from) { add("\(keyColumn) >= ?", [.integer(MomentKey.lowest(at: day - 14 * 3_600_000))]) }
            }
            if let to = filter.toDay {
                add("e.local_date <= ?", [.text(to)])
                if let day = MomentKey.utcMidnight(to) { add("\(keyColumn) < ?", [.integer(MomentKey.lowest(at: day + 38 * 3_600_000))]) }
            }
            if !filter.monthDays.isEmpty {
                add("substr(e.local_date, 6) IN (\(marks(filter.monthDays.count)))", filter.monthDays.map(SQLValue.text))
            }
            if !filter.statuses.isEmpty {
                add("e.status IN (\(marks(filter.statuses.count)))", filter.statuses.map { .text($0.rawValue) })
            }
        }

        private func marks(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ",") }
    }
}

extension EntryFilter {
    /// True when nothing but words narrows the filter.
    var isWordsOnly: Bool {
        allTags.isEmpty && anyTags.isEmpty && notTags.isEmpty && fromDay == nil && toDay == nil && !starredOnly && !inTrash && !reflectionsOnly
            && monthDays.isEmpty && statuses.isEmpty
    }
}
