import Foundation
import GRDB

/// The trash, over the store's one writer (`store.trash`): pages put there are hidden
/// everywhere until taken out, or purged for good. Each call is one transaction over every
/// page it names.
package struct DiaryTrash: Sendable {
    let store: DiaryStore
}

extension DiaryStore {
    /// The pages in the trash.
    package var trash: DiaryTrash { DiaryTrash(store: self) }
}

extension DiaryTrash {
    /// Puts saved pages in the trash: hidden everywhere until taken out or purged.
    package func put(ids: [String]) throws -> [String] {
        try store.write { db in
            var moved: [String] = []
            for id in ids {
                guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT moment_key, status, trashed_at FROM entry WHERE id = ? AND deleted_at IS NULL"),
                                                 arguments: [id]) else { throw StoreError.entryNotFound(id) }
                if row["trashed_at"] as Int64? != nil { continue }
                // A draft has no page to keep: it is discarded, not trashed.
                if row["status"] as String != EntryStatus.saved.rawValue { throw StoreError.notSaved(id) }
                let hlc = try store.tick(db)
                _ = try store.setPart(db, .trash, of: id, hlc: hlc, "trashed_at = ?", [Timestamps.millis(Date())])
                try db.cachedStatement(sql: "DELETE FROM entry_fts WHERE rowid = ?").execute(arguments: [row["moment_key"] as Int64])
                try store.recountTags(db, entryId: id)
                moved.append(id)
            }
            return moved
        }
    }

    /// Takes pages out of the trash; returns the ids that came back.
    package func takeOut(ids: [String]) throws -> [String] {
        try store.write { db in
            var restored: [String] = []
            for id in ids {
                guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT trashed_at IS NOT NULL FROM entry WHERE id = ? AND deleted_at IS NULL"),
                                        arguments: [id]) == true else { throw StoreError.notInTrash(id) }
                let hlc = try store.tick(db)
                _ = try store.setPart(db, .trash, of: id, hlc: hlc, "trashed_at = NULL", [])
                try DiaryStore.reindex(db, entryId: id)
                try store.recountTags(db, entryId: id)
                restored.append(id)
            }
            return restored
        }
    }

    /// The id of the page in the trash whose id starts with `reference`.
    package func resolve(reference: String) throws -> String {
        let prefix = reference.lowercased()
        let ids = try store.read { db in
            try String.fetchAll(db.cachedStatement(sql: """
                SELECT id FROM entry WHERE id >= ? AND id < ? AND deleted_at IS NULL AND trashed_at IS NOT NULL LIMIT 2
                """), arguments: [prefix, prefix + "~"])
        }
        guard !prefix.isEmpty, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }), let first = ids.first else {
            throw StoreError.notInTrash(reference)
        }
        if ids.count > 1 { throw StoreError.ambiguous(reference) }
        return first
    }

    /// Purges pages from the trash for good: those given, or every one trashed before
    /// `before`. Each becomes a tombstone without its words (the deletion syncs and never
    /// comes back); returns the media files no live entry uses any more, for the caller to
    /// remove after the commit.
    package func purge(ids: [String]? = nil, trashedBefore before: Date? = nil) throws -> (purged: [String], unusedMedia: [MediaItem]) {
        try store.write { db in
            let candidates: [String]
            if let ids {
                candidates = ids
            } else {
                candidates = try String.fetchAll(db.cachedStatement(sql: """
                    SELECT id FROM entry WHERE deleted_at IS NULL AND trashed_at IS NOT NULL AND trashed_at < ?
                    """), arguments: [Timestamps.millis(before ?? .distantFuture)])
            }
            var purged: [String] = []
            var media: [MediaItem] = []
            for id in candidates {
                guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT trashed_at IS NOT NULL FROM entry WHERE id = ? AND deleted_at IS NULL"),
                                        arguments: [id]) == true else { throw StoreError.notInTrash(id) }
                media += try store.mediaItems(db, entryIds: [id])[id] ?? []
                let hlc = try store.tick(db)
                let now = Timestamps.millis(Date())
                try db.cachedStatement(sql: """
                    UPDATE entry SET deleted_at = ?, hlc = ?, device_id = ?, note = NULL, transcript = NULL, analysis = NULL,
                        context = NULL, title = NULL, summary = NULL, digest = NULL, last_error = NULL
                    WHERE id = ?
                    """).execute(arguments: [now, hlc, store.deviceId, id])
                try db.cachedStatement(sql: "UPDATE media SET deleted_at = ?, hlc = ?, device_id = ? WHERE entry_id = ? AND deleted_at IS NULL")
                    .execute(arguments: [now, hlc, store.deviceId, id])
                // The words go too: each message becomes an empty tombstone.
                try db.cachedStatement(sql: "UPDATE message SET deleted_at = ?, hlc = ?, device_id = ?, text = '' WHERE entry_id = ?")
                    .execute(arguments: [now, hlc, store.deviceId, id])
                try db.cachedStatement(sql: "DELETE FROM entry_version WHERE entry_id = ?").execute(arguments: [id])
                try store.enqueue(db, table: .entry, rowId: id, op: .delete, hlc: hlc)
                purged.append(id)
            }
            return (purged, try store.unused(media, db))
        }
    }
}

/// A page's earlier versions (`store.history`): what each edit, page, sync or import
/// replaced, kept inside the transaction that replaced it (`DiaryStore.keepVersion`).
package struct PageHistory: Sendable {
    let store: DiaryStore
}

extension DiaryStore {
    /// The pages' earlier versions.
    package var history: PageHistory { PageHistory(store: self) }
}

extension PageHistory {
    /// The earlier versions of a page, newest first.
    package func versions(of entryId: String) throws -> [PageVersion] {
        try store.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT * FROM entry_version WHERE entry_id = ? ORDER BY replaced_at DESC, hlc DESC
                """), arguments: [entryId]).compactMap { row in
                guard let json = JSON.parse(Data((row["version"] as String).utf8)) else { return nil }
                return DiaryStore.pageVersion(json: json, hlc: row["hlc"], deviceId: row["device_id"],
                                        replacedAt: Timestamps.date(millis: row["replaced_at"]),
                                        replacedBy: VersionSource(rawValue: row["replaced_by"]) ?? .person)
            }
        }
    }
}
