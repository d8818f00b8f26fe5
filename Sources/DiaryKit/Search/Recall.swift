import Foundation

/// An earlier page the companion may bring up, and why it was picked.
public struct Recollection: Sendable, Equatable {
    public var entryId: String
    public var title: String?
    /// Its local day, `YYYY-MM-DD`.
    public var day: String
    /// The start of its page (or note), on one line.
    public var excerpt: String?
    /// The words it shares with the moment, most telling first; none for this day in an earlier year.
    public var matched: [String]
    /// Picked because it happened on this day of an earlier year.
    public var sameDay: Bool
    /// How strongly it is related (higher is closer); 0 for this day in an earlier year.
    public var score: Double
    /// The cosine of its meaning and the moment's, when it stood out as close in meaning.
    public var meaning: Double?
}

/// Picks the earlier pages related to a moment: any of its words may match (a page need not
/// hold them all), rare words count more than common ones, the person's own words and the
/// page's tags and place more than the companion's description; and this day in an earlier year.
///
/// The index is asked once for the best few by BM25 over the rarer words; those few are
/// then scored by the words they share, so the answer explains itself. With a meaning (an
/// embedder is configured), pages that say the same in other words join them (`Meaning.swift`).
public struct Recall: Sendable {
    public let store: DiaryStore
    /// How many pages at most.
    public var limit = 3

    public init(store: DiaryStore, limit: Int = 3) {
        self.store = store
        self.limit = limit
    }

    /// What the moment is about, in the weights its words carry.
    public struct Moment: Sendable {
        public var entryId: String
        public var occurredAt: Date
        public var zone: TimeZone
        /// Weighted texts: the person's words weigh 2, tags and place 3, the companion's description 1.
        public var texts: [(text: String, weight: Double)]

        public init(entryId: String, occurredAt: Date, zone: TimeZone, texts: [(text: String, weight: Double)]) {
            self.entryId = entryId
            self.occurredAt = occurredAt
            self.zone = zone
            self.texts = texts
        }

        /// An entry and the person's latest messages in it (when it was read with them).
        public init(_ entry: Entry) {
            self.init(entry, said: (entry.messages ?? []).filter { $0.author == .person }.suffix(6).map(\.text))
        }

        /// An entry and what the person has said about it so far.
        public init(_ entry: Entry, said: [String] = []) {
            var texts: [(String, Double)] = [(entry.note, 2), (entry.transcript, 2), (entry.title, 2), (entry.summary, 2),
                                              (entry.analysis, 1)].compactMap { text, weight in text.map { ($0, weight) } }
            texts += said.map { ($0, 2) }
            texts += entry.tags.map { ($0, 3) }
            texts += [entry.context.place, entry.context.locality].compactMap { $0 }.map { ($0, 3) }
            self.init(entryId: entry.id, occurredAt: entry.occurredAt, zone: entry.zone, texts: texts)
        }
    }

    /// Up to `limit` earlier pages for the moment, closest first, this day in an earlier year
    /// among them; by words, and by meaning too when the moment's is given.
    public func recollections(for moment: Moment, meaning: Meaning? = nil) throws -> [Recollection] {
        guard limit > 0 else { return [] }
        return try store.query { reader in
            let before = MomentKey.lowest(at: Timestamps.millis(moment.occurredAt))
            let near = try meaning.map { try Self.nearInMeaning(reader, $0, excluding: moment.entryId) } ?? [:]
            var picks = try Self.related(reader, moment, before: before, limit: limit, near: near)
            if let sameDay = try Self.thisDayEarlier(reader, moment), !picks.contains(where: { $0.entryId == sameDay.entryId }) {
                if picks.count >= limit { picks.removeLast() }
                picks.append(sameDay)
            }
            return picks
        }
    }

    // MARK: - Words

    /// Terms kept for the question: no more than this many, the most telling.
    static let maxTerms = 16
    /// Terms whose pages are counted at most (each is a look into the index).
    static let maxLookups = 32
    /// Candidates the index ranks before they are scored here.
    static let candidates = 12

    private static func related(_ reader: QueryReader, _ moment: Moment, before: Int64, limit: Int,
                                near: [String: Near]) throws -> [Recollection] {
        // Each term with the largest weight it came with, and the words as the person wrote them.
        var weights: [String: Double] = [:]
        var written: [String: String] = [:]
        var order: [String] = []
        for (text, weight) in moment.texts {
            for (term, words) in terms(text) where term.count >= 2 && !isFunctionTerm(term) {
                if weights[term] == nil { order.append(term) }
                weights[term] = max(weights[term] ?? 0, weight)
                if written[term] == nil { written[term] = words }
            }
        }
        // Each candidate term costs a look into the index: the heaviest (tags, place, the
        // person's own words) and, among equals, the first written are the ones looked at.
        let asked = order.enumerated().sorted { (weights[$0.element]!, -$0.offset) > (weights[$1.element]!, -$1.offset) }
            .prefix(maxLookups).map(\.element)
        guard let total = try reader.integer("SELECT live FROM entry_total"), total > 1 else { return [] }
        // A word on most pages says nothing about this one (今天, the); it is left out, which
        // also keeps the lists the index walks short. In a small diary a third of the pages
        // is common; in a big one, a hundredth. Each term's pages are counted only up to
        // that (the vocabulary table would read a common word's whole list to count it).
        let common = max(2, total / 100, min(total / 3, 50))
        let found = try asked.map { term in
            (term, try reader.integer("SELECT count(*) FROM (SELECT 1 FROM entry_fts WHERE entry_fts MATCH ? LIMIT ?)",
                                      [.text(quoted(term)), .integer(Int64(common + 1))]) ?? 0)
        }
        // A word found once is found only in the moment itself (its words are in the index too).
        let idf = Dictionary(found.filter { $0.1 > 1 && $0.1 <= common }.map { ($0.0, log(1 + Double(total) / Double($0.1))) },
                             uniquingKeysWith: max)
        let terms = idf.keys.sorted { (weights[$0]! * idf[$0]!, $0) > (weights[$1]! * idf[$1]!, $1) }.prefix(maxTerms)
        guard !terms.isEmpty || !near.isEmpty else { return [] }

        var ranked: [QueriedEntry] = []
        if !terms.isEmpty {
            let match = terms.map(quoted).joined(separator: " OR ")
            // Columns: title, summary, note, transcript, tags, person_chat, analysis, companion_chat, place.
            // Ranked in the index alone; only the best few rows of the (large) entry table are read.
            ranked = Array(try reader.entries("""
                SELECT \(QueryReader.entryColumns) FROM (
                    SELECT rowid AS key, bm25(entry_fts, 3, 2, 2, 2, 3, 2, 0.5, 0.5, 3) AS score FROM entry_fts
                    WHERE entry_fts MATCH ? AND rowid < ? ORDER BY score LIMIT ?
                ) best CROSS JOIN entry e ON e.moment_key = best.key
                WHERE e.id != ? AND e.status = 'saved' ORDER BY best.score
                """, [.text(match), .integer(before), .integer(Int64(candidates * 2)), .text(moment.entryId)], includeMessages: false)
                .prefix(candidates))
        }
        // Pages close in meaning that the words did not bring, under the same rules: saved,
        // live and earlier than the moment.
        let unranked = near.keys.filter { id in !ranked.contains { $0.entry.id == id } }.sorted()
        if !unranked.isEmpty {
            ranked += try reader.entries("""
                SELECT \(QueryReader.entryColumns) FROM entry e
                WHERE e.id IN (\(unranked.map { _ in "?" }.joined(separator: ", "))) AND e.status = 'saved'
                  AND e.deleted_at IS NULL AND e.trashed_at IS NULL AND e.moment_key < ?
                """, unranked.map(SQLValue.text) + [.integer(before)], includeMessages: false)
        }

        var picks: [Recollection] = []
        for candidate in ranked {
            let entry = candidate.entry
            // What the page itself says, and what it is filed under (tags, place), which counts double.
            let said = Set([entry.title, entry.summary, entry.note, entry.transcript].compactMap { $0 }
                .flatMap { SearchableText.tokens($0, purpose: .query) })
            let filed = Set((entry.tags + [entry.context.place, entry.context.locality].compactMap { $0 })
                .flatMap { SearchableText.tokens($0, purpose: .query) })
            var score = 0.0
            var shared: [(String, Double)] = []
            for term in terms where said.contains(term) || filed.contains(term) {
                let value = weights[term]! * idf[term]! * (filed.contains(term) ? 2 : 1)
                score += value
                shared.append((term, value))
            }
            // One shared word is chance unless it is a tag or the place; two are a thread.
            // A page that stands out as close in meaning needs no shared word at all.
            let close = near[entry.id]
            guard shared.count >= 2 || shared.contains(where: { filed.contains($0.0) }) || close != nil else { continue }
            score += (close?.deviations ?? 0) * meaningWeight
            var pick = recollection(entry, matched: shared.sorted { $0.1 > $1.1 }.map { written[$0.0] ?? $0.0 }, sameDay: false, score: score)
            pick.meaning = close.map { ($0.cosine * 1000).rounded() / 1000 }
            picks.append(pick)
        }
        return Array(picks.sorted { ($0.score, $0.day) > ($1.score, $1.day) }.prefix(limit))
    }

    /// Characters that carry grammar, not a subject (了, 的, 一, 個 …): a two-character term
    /// with one of them (去了, 了一, 一個) is how a sentence is put, and never makes a pick,
    /// whatever the diary's size. In a small diary the "too common" rule cannot see that.
    private static let functionCharacters: Set<Character> = Set("了的一個是在有也就都和與及或著过過把被讓让給给很再又還还並并這这那嗎吗呢吧啊")
    /// English words of the same kind.
    private static let functionWords: Set<String> = ["the", "and", "with", "was", "were", "are", "for", "that", "this", "then",
                                                     "from", "have", "had", "has", "but", "not", "you", "she", "her", "his",
                                                     "him", "they", "them", "our", "its", "into", "onto", "went", "got"]

    /// True when the term says how, not what.
    static func isFunctionTerm(_ term: String) -> Bool {
        if functionWords.contains(term) { return true }
        return term.count == 2 && term.unicodeScalars.allSatisfy { $0.value >= 0x3400 } && term.contains(where: functionCharacters.contains)
    }

    /// A term as an FTS5 string: it matches that token and nothing else.
    private static func quoted(_ term: String) -> String { "\"" + term.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// The text's terms as the index folds them (海边), each with the words as written (海邊).
    static func terms(_ text: String) -> [(term: String, written: String)] {
        var found: [(String, String)] = []
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            SearchableText.tokenize(buffer, purpose: .query) { token, start, end in
                found.append((String(decoding: token, as: UTF8.self), String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self)))
                return true
            }
        }
        return found
    }

    // MARK: - This day

    /// The latest page written on this day of an earlier year, if any.
    private static func thisDayEarlier(_ reader: QueryReader, _ moment: Moment) throws -> Recollection? {
        let day = Timestamps.localDate(moment.occurredAt, zone: moment.zone)
        let found = try reader.entries("""
            SELECT \(QueryReader.entryColumns) FROM entry e
            WHERE e.deleted_at IS NULL AND e.trashed_at IS NULL AND substr(e.local_date, 6) = ? AND e.local_date < ?
              AND e.status = 'saved' AND e.id != ?
            ORDER BY e.local_date DESC LIMIT 1
            """, [.text(String(day.dropFirst(5))), .text(String(day.prefix(4)) + "-01-01"), .text(moment.entryId)], includeMessages: false)
        return found.first.map { recollection($0.entry, matched: [], sameDay: true, score: 0) }
    }

    private static func recollection(_ entry: Entry, matched: [String], sameDay: Bool, score: Double) -> Recollection {
        let text = (entry.summary ?? entry.note).map { $0.split(whereSeparator: \.isNewline).joined(separator: " ") }
        let excerpt = text.map { $0.count > 60 ? String($0.prefix(60)) + "…" : $0 }
        return Recollection(entryId: entry.id, title: entry.title, day: Timestamps.localDate(entry.occurredAt, zone: entry.zone),
                            excerpt: excerpt, matched: matched, sameDay: sameDay, score: score, meaning: nil)
    }
}
