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

// Edits, the star and the person's own order (the trash is `DiaryTrash`, the tags as a
// whole `DiaryTags`). Each is one transaction over every entry it names (a pipe of 500 ids
// is one commit), stamps the clock of the part it changes and keeps the version of the page
// it replaced.
extension DiaryStore {
    /// Applies one edit to every entry given, in one transaction; returns the ids that changed.
    package func edit(ids: [String], _ edit: EntryEdit) throws -> [String] {
        try write { db in
            var changed: [String] = []
            for id in ids where try apply(db, edit, to: id) { changed.append(id) }
            return changed
        }
    }

    /// Applies an edit to one page; `byHand` marks it as the person's (a later page from the
    /// companion asks first).
    func apply(_ db: Database, _ edit: EntryEdit, to id: String, byHand: Bool = true) throws -> Bool {
        try requireLiveEntry(db, id)
        // One line each, as the editor shows them (a line break there would make the page
        // impossible to edit by hand); values from imports and pulls come in as they are.
        for (field, value) in [("title", edit.title), ("place", edit.place)] where value?.contains(where: \.isNewline) == true {
            throw StoreError.lineBreak(field)
        }
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
    func setPart(_ db: Database, _ part: FieldClocks.Part, of id: String, hlc: String, _ assignment: String,
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
    func recountTags(_ db: Database, entryId: String) throws {
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
