import Foundation
import GRDB

/// What a person changes on a page by hand: each field nil when it stays as it is.
package struct EntryEdit: Sendable, Equatable {
    package var title: String?
    /// The page itself.
    package var summary: String?
    /// All the tags, replacing the ones it has (the editor's header).
    package var tags: [String]?
    package var addTags: [String] = []
    package var removeTags: [String] = []
    /// When it happened, with the zone it happened in.
    package var occurredAt: Date?
    package var timeZone: TimeZone?
    /// The place; an empty string clears it.
    package var place: String?

    package init(title: String? = nil, summary: String? = nil, tags: [String]? = nil, addTags: [String] = [],
                removeTags: [String] = [], occurredAt: Date? = nil, timeZone: TimeZone? = nil, place: String? = nil) {
        self.title = title
        self.summary = summary
        self.tags = tags
        self.addTags = addTags
        self.removeTags = removeTags
        self.occurredAt = occurredAt
        self.timeZone = timeZone
        self.place = place
    }

    /// True when it changes nothing.
    package var isEmpty: Bool { self == EntryEdit() }
}

/// Who replaced a version of a page.
public enum VersionSource: String, Sendable {
    case person
    case companion
    /// Another device, through sync.
    case sync
    /// A restore or an import.
    case `import`
}

/// A version of a page that a later change replaced (`diary-find --show ID --history`).
public struct PageVersion: Sendable, Equatable {
    public var title: String?
    public var summary: String?
    public var tags: [String]
    public var occurredAt: Date
    public var timeZone: String
    public var place: String?
    /// The clock of this version, and the device that wrote it.
    public var hlc: String
    public var deviceId: String
    /// When and by whom it was replaced.
    public var replacedAt: Date
    public var replacedBy: VersionSource

    /// The version as kept in the database and in backups.
    package var json: JSON {
        let zone = TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!
        return .object([("title", .optional(title)), ("summary", .optional(summary)), ("tags", .array(tags.map(JSON.string))),
                        ("occurred_at", .string(Timestamps.rfc3339Millis(occurredAt, zone: zone))),
                        ("time_zone", .string(timeZone)), ("place", .optional(place))])
    }
}

// Edits, the star, the trash and the person's own order. Each is one transaction over
// every entry it names (a pipe of 500 ids is one commit), stamps the clock of the part it
// changes and keeps the version of the page it replaced.
extension DiaryStore {
    /// Applies one edit to every entry given, in one transaction; returns the ids that changed.
    package func edit(ids: [String], _ edit: EntryEdit) throws -> [String] {
        try write { db in
            var changed: [String] = []
            for id in ids where try apply(db, edit, to: id) { changed.append(id) }
            return changed
        }
    }

    /// Removes the tags named for each page, in one transaction, without marking the pages
    /// as edited by hand; what was removed is kept on this device so `restoreTidiedTags`
    /// can put it back. Returns the ids that changed.
    package func tidyTags(_ removals: [String: [String]]) throws -> [String] {
        try write { db in
            var kept = try tidiedTags(db)
            var changed: [String] = []
            for (id, tags) in removals.sorted(by: { $0.key < $1.key }) {
                let had = Set(try pageVersion(db, id).tags)
                guard try apply(db, EntryEdit(removeTags: tags), to: id, byHand: false) else { continue }
                kept[id, default: []].append(contentsOf: tags.filter { had.contains($0) && !(kept[id] ?? []).contains($0) })
                changed.append(id)
            }
            try saveTidiedTags(db, kept)
            return changed
        }
    }

    /// Puts back every tag `tidyTags` removed on pages that still exist outside the trash,
    /// in one transaction; returns the ids that changed.
    package func restoreTidiedTags() throws -> [String] {
        try write { db in
            var changed: [String] = []
            for (id, tags) in try tidiedTags(db).sorted(by: { $0.key < $1.key }) {
                guard try Int.fetchOne(db.cachedStatement(sql: """
                    SELECT count(*) FROM entry WHERE id = ? AND deleted_at IS NULL AND trashed_at IS NULL
                    """), arguments: [id]) == 1 else { continue }
                if try apply(db, EntryEdit(addTags: tags), to: id, byHand: false) { changed.append(id) }
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

    /// Applies an edit to one page; `byHand` marks it as the person's (a later page from the
    /// companion asks first).
    private func apply(_ db: Database, _ edit: EntryEdit, to id: String, byHand: Bool = true) throws -> Bool {
        try requireLiveEntry(db, id)
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT moment_key, occurred_at, context FROM entry WHERE id = ?
            """), arguments: [id]) else { throw StoreError.entryNotFound(id) }
        let before = try pageVersion(db, id)
        let now = Timestamps.millis(Date())
        var assignments: [String] = []
        var values: [(any DatabaseValueConvertible)?] = []
        func set(_ column: String, _ value: (any DatabaseValueConvertible)?) {
            assignments.append("\(column) = ?")
            values.append(value)
        }
        // Only what differs is written: an edit to the same values changes nothing at all.
        if let title = edit.title.map({ $0.isEmpty ? nil : $0 }), title != before.title { set("title", title) }
        if let summary = edit.summary, summary != before.summary { set("summary", summary) }
        let occurred = edit.occurredAt ?? before.occurredAt
        let zone = edit.timeZone ?? TimeZone(identifier: before.timeZone) ?? TimeZone(identifier: "UTC")!
        if Timestamps.millis(occurred) != row["occurred_at"] as Int64 || zone.identifier != before.timeZone {
            let millis = Timestamps.millis(occurred)
            set("occurred_at", millis)
            set("time_zone", zone.identifier)
            set("local_date", Timestamps.localDate(occurred, zone: zone))
            if millis != row["occurred_at"] as Int64 {
                // The moment key orders entries by time and is the full-text rowid: it moves with the time.
                try db.cachedStatement(sql: "DELETE FROM entry_fts WHERE rowid = ?").execute(arguments: [row["moment_key"] as Int64])
                set("moment_key", try MomentKey.next(db, occurredAt: millis))
            }
        }
        if let place = edit.place.map({ $0.isEmpty ? nil : $0 }), place != before.place {
            var context = ContextCoding.decode(row["context"])
            context.place = place
            set("context", context.isEmpty ? nil : ContextCoding.encode(context))
        }
        var tags = before.tags
        if let replacement = edit.tags { tags = replacement }
        tags.removeAll { edit.removeTags.contains($0) }
        for tag in edit.addTags where !tags.contains(tag) { tags.append(tag) }
        if assignments.isEmpty && tags == before.tags { return false }
        let hlc = try tick(db)
        if byHand { set("edited_at", now) }
        try touch(db, entryId: id, hlc: hlc, set: assignments.joined(separator: ", "), values)
        if tags != before.tags { try replaceTags(db, entryId: id, names: tags, hlc: hlc, now: now) }
        try keepVersion(db, before, entryId: id, by: .person)
        try Self.reindex(db, entryId: id)
        return true
    }

    /// Stars or unstars pages; returns the ids that changed.
    package func setStarred(ids: [String], _ starred: Bool) throws -> [String] {
        try write { db in
            var changed: [String] = []
            for id in ids {
                try requireLiveEntry(db, id)
                let hlc = try tick(db)
                if try setPart(db, .star, of: id, hlc: hlc, "starred = ?", [starred], unless: "starred = ?", [starred]) { changed.append(id) }
            }
            return changed
        }
    }

    /// Puts saved pages in the trash: hidden everywhere until taken out or purged.
    package func trash(ids: [String]) throws -> [String] {
        try write { db in
            var moved: [String] = []
            for id in ids {
                guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT moment_key, status, trashed_at FROM entry WHERE id = ? AND deleted_at IS NULL"),
                                                 arguments: [id]) else { throw StoreError.entryNotFound(id) }
                if row["trashed_at"] as Int64? != nil { continue }
                // A draft has no page to keep: it is discarded, not trashed.
                if row["status"] as String != EntryStatus.saved.rawValue { throw StoreError.notSaved(id) }
                let hlc = try tick(db)
                _ = try setPart(db, .trash, of: id, hlc: hlc, "trashed_at = ?", [Timestamps.millis(Date())])
                try db.cachedStatement(sql: "DELETE FROM entry_fts WHERE rowid = ?").execute(arguments: [row["moment_key"] as Int64])
                try recountTags(db, entryId: id)
                moved.append(id)
            }
            return moved
        }
    }

    /// Takes pages out of the trash; returns the ids that came back.
    package func untrash(ids: [String]) throws -> [String] {
        try write { db in
            var restored: [String] = []
            for id in ids {
                guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT trashed_at IS NOT NULL FROM entry WHERE id = ? AND deleted_at IS NULL"),
                                        arguments: [id]) == true else { throw StoreError.notInTrash(id) }
                let hlc = try tick(db)
                _ = try setPart(db, .trash, of: id, hlc: hlc, "trashed_at = NULL", [])
                try Self.reindex(db, entryId: id)
                try recountTags(db, entryId: id)
                restored.append(id)
            }
            return restored
        }
    }

    /// The id of the page in the trash whose id starts with `reference`.
    package func resolveInTrash(reference: String) throws -> String {
        let prefix = reference.lowercased()
        let ids = try read { db in
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
        try write { db in
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
                media += try mediaItems(db, entryIds: [id])[id] ?? []
                let hlc = try tick(db)
                let now = Timestamps.millis(Date())
                try db.cachedStatement(sql: """
                    UPDATE entry SET deleted_at = ?, hlc = ?, device_id = ?, note = NULL, transcript = NULL, analysis = NULL,
                        context = NULL, title = NULL, summary = NULL, digest = NULL, last_error = NULL
                    WHERE id = ?
                    """).execute(arguments: [now, hlc, deviceId, id])
                try db.cachedStatement(sql: "UPDATE media SET deleted_at = ?, hlc = ?, device_id = ? WHERE entry_id = ? AND deleted_at IS NULL")
                    .execute(arguments: [now, hlc, deviceId, id])
                // The words go too: each message becomes an empty tombstone.
                try db.cachedStatement(sql: "UPDATE message SET deleted_at = ?, hlc = ?, device_id = ?, text = '' WHERE entry_id = ?")
                    .execute(arguments: [now, hlc, deviceId, id])
                try db.cachedStatement(sql: "DELETE FROM entry_version WHERE entry_id = ?").execute(arguments: [id])
                try enqueue(db, table: .entry, rowId: id, op: .delete, hlc: hlc)
                purged.append(id)
            }
            return (purged, try unused(media, db))
        }
    }

    /// Moves a page just before or just after another in the person's own order.
    package func move(id: String, relativeTo target: String, before: Bool) throws {
        try write { db in
            try requireLiveEntry(db, id)
            try requireLiveEntry(db, target)
            let key = OrderKey.effectiveSQL
            guard let targetKey = try String.fetchOne(db.cachedStatement(sql: "SELECT \(key) FROM entry e WHERE e.id = ?"), arguments: [target]) else {
                throw StoreError.entryNotFound(target)
            }
            // The neighbour on the other side of the target, the page being moved left out.
            let neighbour = try String.fetchOne(db.cachedStatement(sql: """
                SELECT \(key) AS k FROM entry e
                WHERE e.deleted_at IS NULL AND e.trashed_at IS NULL AND e.id != ? AND \(key) \(before ? "<" : ">") ?
                ORDER BY k \(before ? "DESC" : "ASC") LIMIT 1
                """), arguments: [id, targetKey])
            let newKey = before ? OrderKey.between(neighbour, targetKey) : OrderKey.between(targetKey, neighbour)
            let hlc = try tick(db)
            _ = try setPart(db, .order, of: id, hlc: hlc, "order_key = ?", [newKey])
        }
    }

    /// Renames a tag on every page that has it (merging it into `newName` where that exists);
    /// returns how many pages changed.
    package func renameTag(_ oldName: String, to newName: String) throws -> Int {
        try write { db in
            guard oldName != newName,
                  let oldId = try String.fetchOne(db.cachedStatement(sql: "SELECT id FROM tag WHERE name = ?"), arguments: [oldName]) else { return 0 }
            let ids = try String.fetchAll(db.cachedStatement(sql: """
                SELECT e.id FROM entry_tag et JOIN entry e ON e.id = et.entry_id WHERE et.tag_id = ? AND e.deleted_at IS NULL
                ORDER BY e.moment_key
                """), arguments: [oldId])
            let now = Timestamps.millis(Date())
            for id in ids {
                let before = try pageVersion(db, id)
                var tags = before.tags.map { $0 == oldName ? newName : $0 }
                var seen = Set<String>()
                tags = tags.filter { seen.insert($0).inserted }
                let hlc = try tick(db)
                try replaceTags(db, entryId: id, names: tags, hlc: hlc, now: now)
                try touch(db, entryId: id, hlc: hlc, set: "edited_at = ?", [now])
                _ = try keepVersion(db, before, entryId: id, by: .person)
                if try Bool.fetchOne(db.cachedStatement(sql: "SELECT trashed_at IS NULL FROM entry WHERE id = ?"), arguments: [id]) == true {
                    try Self.reindex(db, entryId: id)
                }
            }
            for tagId in [oldId] + (try String.fetchAll(db.cachedStatement(sql: "SELECT id FROM tag WHERE name = ?"), arguments: [newName])) {
                try recountTag(db, tagId: tagId)
            }
            return ids.count
        }
    }

    /// The earlier versions of a page, newest first.
    package func history(entryId: String) throws -> [PageVersion] {
        try read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT * FROM entry_version WHERE entry_id = ? ORDER BY replaced_at DESC, hlc DESC
                """), arguments: [entryId]).compactMap { row in
                guard let json = JSON.parse(Data((row["version"] as String).utf8)) else { return nil }
                return Self.pageVersion(json: json, hlc: row["hlc"], deviceId: row["device_id"],
                                        replacedAt: Timestamps.date(millis: row["replaced_at"]),
                                        replacedBy: VersionSource(rawValue: row["replaced_by"]) ?? .person)
            }
        }
    }

    // MARK: - Inside a transaction

    /// The page as it stands, with the clock of this version.
    func pageVersion(_ db: Database, _ id: String) throws -> PageVersion {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT title, summary, occurred_at, time_zone, context, hlc, device_id FROM entry WHERE id = ?
            """), arguments: [id]) else { throw StoreError.entryNotFound(id) }
        let tags = try String.fetchAll(db.cachedStatement(sql: """
            SELECT t.name FROM entry_tag et JOIN tag t ON t.id = et.tag_id WHERE et.entry_id = ? ORDER BY et.position
            """), arguments: [id])
        return PageVersion(title: row["title"], summary: row["summary"], tags: tags, occurredAt: Timestamps.date(millis: row["occurred_at"]),
                           timeZone: row["time_zone"], place: ContextCoding.decode(row["context"]).place, hlc: row["hlc"],
                           deviceId: row["device_id"], replacedAt: Date(), replacedBy: .person)
    }

    /// Keeps `before` as an earlier version when the page's words, tags, time or place
    /// changed since; true when they did.
    @discardableResult
    func keepVersion(_ db: Database, _ before: PageVersion, entryId: String, by source: VersionSource) throws -> Bool {
        let after = try pageVersion(db, entryId)
        guard after.json != before.json else { return false }
        // A draft that got its first page has no earlier page worth keeping.
        if before.title == nil && before.summary == nil && source == .companion { return true }
        try db.cachedStatement(sql: """
            INSERT INTO entry_version(id, entry_id, hlc, replaced_at, replaced_by, device_id, version) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(entry_id, hlc) DO NOTHING
            """).execute(arguments: [UUIDv7.make(), entryId, before.hlc, Timestamps.millis(Date()), source.rawValue,
                                     before.deviceId, before.json.serialized])
        return true
    }

    static func pageVersion(json: JSON, hlc: String, deviceId: String, replacedAt: Date, replacedBy: VersionSource) -> PageVersion? {
        guard let zone = json["time_zone"]?.stringValue, let occurred = json["occurred_at"]?.stringValue.flatMap(Timestamps.parseRFC3339) else {
            return nil
        }
        return PageVersion(title: json["title"]?.stringValue, summary: json["summary"]?.stringValue,
                           tags: json["tags"]?.arrayValue?.compactMap(\.stringValue) ?? [], occurredAt: occurred, timeZone: zone,
                           place: json["place"]?.stringValue, hlc: hlc, deviceId: deviceId, replacedAt: replacedAt, replacedBy: replacedBy)
    }

    /// Sets the fields of one part (star, trash, order) with its own clock; the content's
    /// clock is written down first so that the entry's newer clock does not claim it.
    /// False when `unless` held already (nothing to change).
    private func setPart(_ db: Database, _ part: FieldClocks.Part, of id: String, hlc: String, _ assignment: String,
                         _ values: [(any DatabaseValueConvertible)?], unless condition: String? = nil,
                         _ conditionValues: [(any DatabaseValueConvertible)?] = []) throws -> Bool {
        var arguments = StatementArguments(values)
        arguments += [hlc, hlc, deviceId, id]
        arguments += StatementArguments(conditionValues)
        try db.cachedStatement(sql: """
            UPDATE entry SET \(assignment),
                field_clocks = json_set(json_set(coalesce(field_clocks, '{}'), '$.content', coalesce(json_extract(field_clocks, '$.content'), hlc)),
                                        '$.\(part.rawValue)', ?),
                hlc = ?, device_id = ?
            WHERE id = ?\(condition.map { " AND NOT (\($0))" } ?? "")
            """).execute(arguments: arguments)
        guard db.changesCount > 0 else { return false }
        try enqueue(db, table: .entry, rowId: id, hlc: hlc)
        return true
    }

    /// The files among `items` no live media row shows any more, each once. The server no
    /// longer holds them either (it drops a file with its last row), so they are forgotten
    /// in the sync bookkeeping too.
    func unused(_ items: [MediaItem], _ db: Database) throws -> [MediaItem] {
        var seen = Set<String>()
        return try items.filter { item in
            guard seen.insert(item.sha256).inserted,
                  try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM media WHERE sha256 = ? AND deleted_at IS NULL"),
                                   arguments: [item.sha256]) == 0 else { return false }
            try db.cachedStatement(sql: "DELETE FROM media_on_server WHERE sha256 = ?").execute(arguments: [item.sha256])
            try db.cachedStatement(sql: "DELETE FROM media_transfer WHERE sha256 = ?").execute(arguments: [item.sha256])
            return true
        }
    }

    /// Recounts the tags of one entry (after it went into or out of the trash).
    private func recountTags(_ db: Database, entryId: String) throws {
        for tagId in try String.fetchAll(db.cachedStatement(sql: "SELECT tag_id FROM entry_tag WHERE entry_id = ?"), arguments: [entryId]) {
            try recountTag(db, tagId: tagId)
        }
    }

    func recountTag(_ db: Database, tagId: String) throws {
        try db.cachedStatement(sql: """
            UPDATE tag SET entry_count = (SELECT count(*) FROM entry_tag et JOIN entry e ON e.id = et.entry_id
                                          WHERE et.tag_id = tag.id AND e.deleted_at IS NULL AND e.trashed_at IS NULL)
            WHERE id = ?
            """).execute(arguments: [tagId])
    }

    /// An entry that is neither a tombstone nor in the trash.
    func requireLiveEntry(_ db: Database, _ id: String) throws {
        guard let trashed = try Row.fetchOne(db.cachedStatement(sql: "SELECT trashed_at FROM entry WHERE id = ? AND deleted_at IS NULL"),
                                             arguments: [id]) else { throw StoreError.entryNotFound(id) }
        if trashed["trashed_at"] as Int64? != nil { throw StoreError.inTrash(id) }
    }
}
