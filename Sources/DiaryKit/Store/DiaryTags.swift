import Foundation
import GRDB

/// The diary's tags as a whole, over the store's one writer (`store.tags`): which are in use,
/// renaming one on every page, and the clean-up that removes tags a page does not need (and
/// can put them back). A page's own tags change with its edits.
package struct DiaryTags: Sendable {
    let store: DiaryStore
}

extension DiaryStore {
    /// The diary's tags.
    package var tags: DiaryTags { DiaryTags(store: self) }
}

extension DiaryTags {
    /// Every tag in use, most recently used first, then most used.
    package func uses() throws -> [TagUse] {
        try store.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT name, entry_count, last_used_at FROM tag WHERE deleted_at IS NULL AND entry_count > 0
                """)).map { row in
                TagUse(name: row["name"], count: row["entry_count"],
                       lastUsedAt: (row["last_used_at"] as Int64?).map(Timestamps.date(millis:)))
            }.sorted(by: TagUse.mostRecentFirst)
        }
    }

    /// Renames a tag on every page that has it (merging it into `newName` where that exists);
    /// returns how many pages changed.
    package func rename(_ oldName: String, to newName: String) throws -> Int {
        try store.write { db in
            guard oldName != newName,
                  let oldId = try String.fetchOne(db.cachedStatement(sql: "SELECT id FROM tag WHERE name = ?"), arguments: [oldName]) else { return 0 }
            let ids = try String.fetchAll(db.cachedStatement(sql: """
                SELECT e.id FROM entry_tag et JOIN entry e ON e.id = et.entry_id WHERE et.tag_id = ? AND e.deleted_at IS NULL
                ORDER BY e.moment_key
                """), arguments: [oldId])
            let now = Timestamps.millis(Date())
            for id in ids {
                let before = try store.pageVersion(db, id)
                var tags = before.tags.map { $0 == oldName ? newName : $0 }
                var seen = Set<String>()
                tags = tags.filter { seen.insert($0).inserted }
                let hlc = try store.tick(db)
                try store.replaceTags(db, entryId: id, names: tags, hlc: hlc, now: now)
                try store.touch(db, entryId: id, hlc: hlc, set: "edited_at = ?", [now])
                _ = try store.keepVersion(db, before, entryId: id, by: .person)
                if try Bool.fetchOne(db.cachedStatement(sql: "SELECT trashed_at IS NULL FROM entry WHERE id = ?"), arguments: [id]) == true {
                    try DiaryStore.reindex(db, entryId: id)
                }
            }
            for tagId in [oldId] + (try String.fetchAll(db.cachedStatement(sql: "SELECT id FROM tag WHERE name = ?"), arguments: [newName])) {
                try store.recountTag(db, tagId: tagId)
            }
            return ids.count
        }
    }

    /// Removes the tags named for each page, in one transaction, without marking the pages
    /// as edited by hand; what was removed is kept on this device so `restoreTidied`
    /// can put it back. Returns the ids that changed.
    package func tidy(_ removals: [String: [String]]) throws -> [String] {
        try store.write { db in
            var kept = try tidiedTags(db)
            var changed: [String] = []
            for (id, tags) in removals.sorted(by: { $0.key < $1.key }) {
                let had = Set(try store.pageVersion(db, id).tags)
                guard try store.apply(db, EntryEdit(removeTags: tags), to: id, byHand: false) else { continue }
                kept[id, default: []].append(contentsOf: tags.filter { had.contains($0) && !(kept[id] ?? []).contains($0) })
                changed.append(id)
            }
            try saveTidiedTags(db, kept)
            return changed
        }
    }

    /// Puts back every tag `tidy` removed on pages that still exist outside the trash,
    /// in one transaction; returns the ids that changed.
    package func restoreTidied() throws -> [String] {
        try store.write { db in
            var changed: [String] = []
            for (id, tags) in try tidiedTags(db).sorted(by: { $0.key < $1.key }) {
                guard try Int.fetchOne(db.cachedStatement(sql: """
                    SELECT count(*) FROM entry WHERE id = ? AND deleted_at IS NULL AND trashed_at IS NULL
                    """), arguments: [id]) == 1 else { continue }
                if try store.apply(db, EntryEdit(addTags: tags), to: id, byHand: false) { changed.append(id) }
            }
            try saveTidiedTags(db, [:])
            return changed
        }
    }

    /// The tags the clean-up removed, by page: a device setting, so backups carry it.
    private static let tidiedTagsKey = "tags.tidied"

    private func tidiedTags(_ db: Database) throws -> [String: [String]] {
        guard let text = try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM device_setting WHERE key = ?"),
                                             arguments: [Self.tidiedTagsKey]),
              case let .object(pairs)? = JSON.parse(Data(text.utf8)) else { return [:] }
        var kept: [String: [String]] = [:]
        for (id, tags) in pairs { kept[id] = tags.arrayValue?.compactMap(\.stringValue) ?? [] }
        return kept
    }

    private func saveTidiedTags(_ db: Database, _ kept: [String: [String]]) throws {
        if kept.isEmpty {
            try db.cachedStatement(sql: "DELETE FROM device_setting WHERE key = ?").execute(arguments: [Self.tidiedTagsKey])
            return
        }
        let json = JSON.object(kept.sorted { $0.key < $1.key }.map { ($0.key, .array($0.value.map(JSON.string))) })
        try db.cachedStatement(sql: """
            INSERT INTO device_setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value
            """).execute(arguments: [Self.tidiedTagsKey, json.serialized])
    }
}
