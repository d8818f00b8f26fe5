import Foundation
import GRDB
import GRDBSQLite

/// A value bound to one `?` of SQL that the search engine hands the store.
enum SQLValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)

    fileprivate var databaseValue: DatabaseValue {
        switch self {
        case let .text(text): return text.databaseValue
        case let .integer(number): return number.databaseValue
        }
    }
}

/// An entry a query selected, with the keys its place in an ordered list is made of.
struct QueriedEntry {
    var entry: Entry
    var momentKey: Int64
    var createdAt: Int64
    var updatedAt: Int64
    var title: String?
    /// Its key in the person's own order.
    var orderKey: String
    /// The `snippet` column, when the query selected one.
    var snippet: String?
}

/// The store's side of searching: it runs the SQL the search engine gives it, all inside one
/// read transaction, and turns rows into entries. The engine (`Search/SearchEngine.swift`)
/// decides what to ask; only the store touches SQLite.
struct QueryReader {
    fileprivate let db: Database
    fileprivate let store: DiaryStore

    /// What a query given to `entries` must select, from `entry` named `e` (a `snippet`
    /// column may follow).
    static let entryColumns = DiaryStore.entryColumns

    /// Whole entries, in the query's order.
    func entries(_ sql: String, _ arguments: [SQLValue], includeMessages: Bool) throws -> [QueriedEntry] {
        var rows = try db.makeStatement(sql: sql).decodeAll(Self.arguments(arguments)) { row in
            QueriedEntry(entry: DiaryStore.entryFields(row), momentKey: row["moment_key"], createdAt: row["created_at"],
                         updatedAt: row["updated_at"], title: row["title"], orderKey: row["effective_order"],
                         snippet: row["snippet"])
        }
        let entries = try store.assemble(db, rows.map(\.entry), includeMessages: includeMessages)
        for index in rows.indices { rows[index].entry = entries[index] }
        return rows
    }

    /// The first column of the first row as a number (a count); nil without a row.
    func integer(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: sql), arguments: Self.arguments(arguments))
    }

    /// The first column of the first row as text; nil without a row or for NULL.
    func text(_ sql: String, _ arguments: [SQLValue] = []) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: sql), arguments: Self.arguments(arguments))
    }

    /// The first column of every row as text.
    func texts(_ sql: String, _ arguments: [SQLValue] = []) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: sql), arguments: Self.arguments(arguments))
    }

    /// Rows of a text and a number (a day and its count).
    func counts(_ sql: String, _ arguments: [SQLValue] = []) throws -> [(String, Int)] {
        try Row.fetchAll(db.cachedStatement(sql: sql), arguments: Self.arguments(arguments)).map { ($0[0], $0[1]) }
    }

    /// Every vector made by `model` but one page's, in the order they are stored; `each` gets its bytes and a
    /// way to read its page's id (asked only for the few worth keeping: 100,000 strings cost more
    /// than the arithmetic).
    func vectors(model: String, except entryId: String, _ each: (UnsafeRawBufferPointer, () -> String) throws -> Void) throws {
        let statement = try db.cachedStatement(sql: "SELECT vector, entry_id FROM page_vector WHERE model = ? AND entry_id != ?")
        let rows = try Row.fetchCursor(statement, arguments: [model, entryId])
        let raw = statement.sqliteStatement
        while try rows.next() != nil {
            let bytes = UnsafeRawBufferPointer(start: sqlite3_column_blob(raw, 0), count: Int(sqlite3_column_bytes(raw, 0)))
            try each(bytes) { String(cString: sqlite3_column_text(raw, 1)) }
        }
    }

    /// The vector `model` made for one page, if there is one.
    func vector(of entryId: String, model: String) throws -> Data? {
        try Data.fetchOne(db.cachedStatement(sql: "SELECT vector FROM page_vector WHERE entry_id = ? AND model = ?"),
                          arguments: [entryId, model])
    }

    private static func arguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(values.map(\.databaseValue))
    }
}

extension DiaryStore {
    /// Runs `body` with a reader of the diary inside one read transaction.
    func query<T>(_ body: (QueryReader) throws -> T) throws -> T {
        try read { db in try body(QueryReader(db: db, store: self)) }
    }

    /// True when the diary holds no entry at all.
    public func isEmpty() throws -> Bool { try liveEntryCount() == 0 }

    /// How many entries the diary holds (kept by triggers, so this reads one row).
    public func liveEntryCount() throws -> Int {
        try read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT live FROM entry_total")) ?? 0 }
    }
}

/// The order key of an entry: the milliseconds of its moment times 4096, plus a tie-break
/// for entries of the same millisecond. Unique, so it can be the full-text rowid.
enum MomentKey {
    static let slots: Int64 = 4096

    /// The smallest key an entry of this moment can have.
    static func lowest(at millis: Int64) -> Int64 { millis * slots }

    /// A free key for a new entry of this moment: after the last one of its millisecond.
    static func next(_ db: Database, occurredAt millis: Int64) throws -> Int64 {
        var window = lowest(at: millis)
        // More than 4096 entries in one millisecond spill into the next millisecond's keys,
        // a window at a time: one indexed max() per full window, never a probe per key, so
        // a crafted file of 50,000 entries at one instant stays linear.
        while true {
            guard let last = try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(moment_key) FROM entry WHERE moment_key >= ? AND moment_key < ?"),
                                                arguments: [window, window + slots]) else { return window }
            if last + 1 < window + slots { return last + 1 }
            window += slots
        }
    }

    /// Milliseconds at 00:00 UTC of a `YYYY-MM-DD` day.
    static func utcMidnight(_ day: String) -> Int64? {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3,
              let date = Timestamps.calendar(TimeZone(identifier: "UTC")!)
                  .date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else { return nil }
        return Timestamps.millis(date)
    }
}
