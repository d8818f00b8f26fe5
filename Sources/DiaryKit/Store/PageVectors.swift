import Foundation
import GRDB

/// A saved page whose meaning vector is missing or was made by another model.
public struct PageToEmbed: Sendable, Equatable {
    public var entryId: String
    public var title: String?
    public var page: String?
    public var tags: [String]
}

extension DiaryStore {
    /// Saved pages (newest first) with no vector from `model`, of the local days from `since`
    /// when given; at most `limit`.
    public func pagesToEmbed(model: String, limit: Int, since day: String? = nil) throws -> [PageToEmbed] {
        try read { db in
            // "+status": not by the status index (nearly every entry is saved), but by the
            // live entries' day index when a first day is given, else newest first by key.
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT e.id, e.title, coalesce(e.summary, e.note) AS page,
                       (SELECT group_concat(name, char(31)) FROM (
                            SELECT t.name FROM entry_tag et JOIN tag t ON t.id = et.tag_id
                            WHERE et.entry_id = e.id AND et.deleted_at IS NULL ORDER BY et.position)) AS tags
                FROM entry e
                WHERE +e.status = 'saved' AND e.deleted_at IS NULL AND e.trashed_at IS NULL\(day == nil ? "" : " AND e.local_date >= ?")
                  AND NOT EXISTS (SELECT 1 FROM page_vector v WHERE v.entry_id = e.id AND v.model = ?)
                ORDER BY e.moment_key DESC LIMIT ?
                """), arguments: StatementArguments((day.map { [$0] } ?? []) + [model, limit] as [DatabaseValueConvertible]))
            return rows.map { row in
                PageToEmbed(entryId: row["id"], title: row["title"], page: row["page"],
                            tags: (row["tags"] as String?)?.split(separator: "\u{1F}").map(String.init) ?? [])
            }
        }
    }

    /// Keeps the vectors made for these pages, replacing any made by another model.
    public func keepVectors(model: String, _ vectors: [(entryId: String, vector: Data)]) throws {
        let now = Timestamps.millis(Date())
        try write { db in
            for (entryId, vector) in vectors {
                // A page removed or changed while its vector was being made gets none; the
                // next catch-up makes it from the page as it is now.
                try db.cachedStatement(sql: """
                    INSERT OR REPLACE INTO page_vector (entry_id, model, vector, made_at)
                    SELECT id, ?, ?, ? FROM entry WHERE id = ? AND status = 'saved' AND deleted_at IS NULL
                    """).execute(arguments: [model, vector, now, entryId])
            }
        }
    }

    /// How many saved pages have a vector from `model`.
    public func vectorCount(model: String) throws -> Int {
        try read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM page_vector WHERE model = ?"), arguments: [model]) ?? 0
        }
    }
}
