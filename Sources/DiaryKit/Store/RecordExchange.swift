import Foundation
import GRDB

// Whole records out (backups, exports) and back in (restore, import, later sync). A merge
// is one transaction: by id, the newer clock wins, the losing version is kept as a
// conflict, deletes never come back to life, messages are a union. Merging the same
// records twice changes nothing.
extension DiaryStore {
    /// The ids of every entry, oldest moment first; tombstones and pages in the trash too when asked.
    package func entryIds(includingDeleted: Bool) throws -> [String] {
        try read { db in
            try String.fetchAll(db.cachedStatement(sql: """
                SELECT id FROM entry \(includingDeleted ? "" : "WHERE deleted_at IS NULL AND trashed_at IS NULL") ORDER BY moment_key
                """))
        }
    }

    /// The full records of these entries (unknown ids are skipped), in the order given.
    package func entryRecords(ids: [String]) throws -> [EntryRecord] {
        try read { db in try ids.compactMap { try Self.record(db, id: $0) } }
    }

    /// Everything besides entries, as a backup carries it.
    public func extras() throws -> DiaryExtras {
        try read { db in
            var extras = DiaryExtras()
            extras.tags = try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM tag ORDER BY name")).map { row in
                TagRecord(name: row["name"], createdAt: Timestamps.date(millis: row["created_at"]),
                          lastUsedAt: (row["last_used_at"] as Int64?).map(Timestamps.date(millis:)), clock: Self.clock(row))
            }
            extras.settings = try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM setting ORDER BY key")).map { row in
                SettingRecord(key: row["key"], value: row["value"], updatedAt: Timestamps.date(millis: row["updated_at"]),
                              clock: RowClock(hlc: row["hlc"], deviceId: row["device_id"]))
            }
            extras.deviceSettings = try Row.fetchAll(db.cachedStatement(sql: "SELECT key, value FROM device_setting ORDER BY key"))
                .map { (key: $0["key"], value: $0["value"]) }
            extras.usage = try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM usage ORDER BY day, kind")).map { row in
                UsageRecord(day: row["day"], counter: row["kind"], count: row["count"])
            }
            extras.conflicts = try Self.conflicts(db)
            extras.versions = try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM entry_version ORDER BY entry_id, replaced_at, hlc")).compactMap { row in
                guard let json = JSON.parse(Data((row["version"] as String).utf8)),
                      let version = Self.pageVersion(json: json, hlc: row["hlc"], deviceId: row["device_id"],
                                                     replacedAt: Timestamps.date(millis: row["replaced_at"]),
                                                     replacedBy: VersionSource(rawValue: row["replaced_by"]) ?? .person) else { return nil }
                return (entryId: row["entry_id"], version: version)
            }
            return extras
        }
    }

    /// The versions that lost a merge, newest first.
    package func conflicts() throws -> [ConflictRecord] { try read { db in try Self.conflicts(db).reversed() } }

    private static func conflicts(_ db: Database) throws -> [ConflictRecord] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM conflict ORDER BY kept_at, id")).map { row in
            ConflictRecord(id: row["id"], table: row["table_name"], rowId: row["row_id"], hlc: row["hlc"],
                           winnerHlc: row["winner_hlc"], source: row["source"], keptAt: Timestamps.date(millis: row["kept_at"]),
                           version: JSON.parse(Data((row["version"] as String).utf8)) ?? .null)
        }
    }

    /// Merges records into the diary in one transaction (all or nothing); `source` names
    /// where they came from in the conflicts kept.
    package func merge(_ records: [EntryRecord], extras: DiaryExtras? = nil, source: MergeSource) throws -> MergeReport {
        let batch = try MergeBatch(records)
        return try write { db in
            var merge = Merge(store: self, db: db, source: source, fromServer: false, userId: nil)
            try merge.entries(batch)
            if let extras { try merge.extras(extras) }
            try merge.finish()
            return merge.report
        }
    }

    /// Merges what the sync server sent inside `db`'s transaction: nothing is queued back
    /// (the server already has it), removed tags arrive as explicit removals, and every
    /// entry belongs to `userId`.
    func mergeFromServer(_ db: Database, batch: MergeBatch, settings: [SettingRecord], userId: String) throws -> MergeReport {
        var merge = Merge(store: self, db: db, source: .sync, fromServer: true, userId: userId)
        try merge.entries(batch)
        var extras = DiaryExtras()
        extras.settings = settings
        try merge.extras(extras)
        try merge.finish()
        return merge.report
    }

    fileprivate static func refuseFutureClocks(_ records: [EntryRecord]) throws {
        let horizon = HybridTimestamp(wallMillis: Timestamps.millis(Date()) + Self.clockSkewAllowed, counter: 0, device: "")
        for record in records {
            let clocks = [record.clock] + record.media.map(\.clock) + record.lines.map(\.clock) + record.tagLinks.map(\.clock)
            if clocks.contains(where: { horizon < $0.timestamp }) { throw StoreError.clockFromFuture(record.id) }
            if FieldClocks.Part.allCases.contains(where: { horizon < record.clock(of: $0) }) { throw StoreError.clockFromFuture(record.id) }
        }
    }

    // A day: a clock further ahead than this is a broken or hostile source, and taking it
    // would make every later local edit lose to it.
    static let clockSkewAllowed: Int64 = 86_400_000

    package static func clock(_ row: Row) -> RowClock {
        RowClock(hlc: row["hlc"], deviceId: row["device_id"], deletedAt: (row["deleted_at"] as Int64?).map(Timestamps.date(millis:)))
    }

    /// The stored clocks of an entry's parts (an unreadable value reads as none).
    static func fieldClocks(_ text: String?) -> FieldClocks {
        guard let text, let json = JSON.parse(Data(text.utf8)) else { return FieldClocks() }
        return (try? RecordReader(.object([("field_clocks", json)]), path: "").fieldClocks()) ?? FieldClocks()
    }

    /// The clocks of an entry's parts as stored: nil while none was ever set apart.
    static func fieldClocksText(_ clocks: FieldClocks) -> String? {
        guard clocks != FieldClocks() else { return nil }
        return JSON.object(FieldClocks.Part.allCases.compactMap { part in clocks[part].map { (part.rawValue, JSON.string($0)) } }).serialized
    }

    private static func clock(_ row: ColumnReader) -> RowClock {
        RowClock(hlc: row["hlc"], deviceId: row["device_id"], deletedAt: (row["deleted_at"] as Int64?).map(Timestamps.date(millis:)))
    }

    // What a record is read back from, column by column.
    private static let recordFields = ColumnList(["hlc", "device_id", "deleted_at"] + EntryRecord.fields.filter(\.isColumn).map(\.name))
    private static let recordMedia = ColumnList(EntryRecord.mediaFields.map(\.name) + ["hlc", "device_id", "deleted_at"])
    private static let recordMessages = ColumnList(EntryRecord.messageFields.map(\.name) + ["hlc", "device_id", "deleted_at"])
    private static let recordTagLinks = ColumnList([
        "t.name", "et.position", "et.created_at", "et.hlc", "et.device_id", "et.deleted_at", "et.label",
    ])

    package static func record(_ db: Database, id: String) throws -> EntryRecord? {
        guard var record = try db.cachedStatement(sql: "SELECT \(recordFields.sql) FROM entry WHERE id = ?")
            .readAll(recordFields, [id], { row in
                var record = EntryRecord.unfilled(id: id, clock: clock(row))
                for field in EntryRecord.fields { record.read(field, from: row) }
                return record
            }).first else { return nil }
        record.media = try db.cachedStatement(sql: "SELECT \(recordMedia.sql) FROM media WHERE entry_id = ? ORDER BY position, id")
            .readAll(recordMedia, [id]) { row in
                var media = EntryRecord.Media.unfilled(clock: clock(row))
                readColumns(&media, EntryRecord.mediaFields, from: row)
                return media
            }
        record.lines = try db.cachedStatement(sql: "SELECT \(recordMessages.sql) FROM message WHERE entry_id = ? ORDER BY hlc, seq")
            .readAll(recordMessages, [id]) { row in
                var line = EntryRecord.Line.unfilled(entryId: id, clock: clock(row))
                readColumns(&line, EntryRecord.messageFields, from: row)
                return line
            }
        // Removed tags travel too, as tombstones, so that add and remove resolve by clock.
        record.tagLinks = try db.cachedStatement(sql: """
            SELECT \(recordTagLinks.sql) FROM entry_tag et JOIN tag t ON t.id = et.tag_id WHERE et.entry_id = ?1
            UNION ALL
            SELECT name, 0, removed_at, hlc, device_id, removed_at, NULL FROM tag_removal WHERE entry_id = ?1
            ORDER BY 2, 1
            """).readAll(recordTagLinks, [id]) { row in
            EntryRecord.TagLink(name: row["name"], position: row["position"], createdAt: Timestamps.date(millis: row["created_at"]),
                                clock: clock(row), label: row["label"])
        }
        return record
    }
}

/// Records made ready to merge, away from the thread that writes the diary: their clocks
/// checked, and each one's search row, for when its entry is new where it lands (a pull
/// decodes its next page meanwhile).
package struct MergeBatch: Sendable {
    package let records: [EntryRecord]
    fileprivate let searchRows: [DiaryStore.SearchRow?]

    /// Refuses the whole batch when any clock in it is more than a day ahead.
    package init(_ records: [EntryRecord]) throws {
        try DiaryStore.refuseFutureClocks(records)
        self.records = records
        searchRows = records.map(Merge.searchRow)
    }
}

/// One merge in progress inside its transaction.
private struct Merge {
    let store: DiaryStore
    let db: Database
    let source: MergeSource
    var report = MergeReport()
    /// How many counted entries each tag gained or lost, written once at the end: recounting
    /// every touched tag after each page read all its links again (a fifth of a big pull).
    var tagCountChanges: [String: Int] = [:]
    /// Media rows this merge turned into tombstones; their files may be unused now.
    var deletedMedia: [MediaItem] = []
    var newest: HybridTimestamp?
    /// Entries whose search index is redone once everything else is written: after a write to
    /// the index, SQLite asks it for a savepoint at every later statement, and FTS5 then writes
    /// out what it holds, a segment each time (most of a big pull's time).
    var reindexing: [String] = []
    /// Entries this merge added and did not meet again: their moment keys, whether they are
    /// live, and their search rows when made from their records (reading an entry back just
    /// to index it was a seventh of a pull's writing).
    var added: [String: (key: Int64, live: Bool, searchRow: DiaryStore.SearchRow?)] = [:]
    /// Tag ids by name, as found or made during this merge (a tag row is never removed here).
    var tagIds: [String: String] = [:]
    /// The newest link each tag got, for its `last_used_at`.
    var lastUsed: [String: Int64] = [:]

    /// From the sync server: nothing to queue back, and tag removals are explicit.
    let fromServer: Bool
    /// The person whose entries these are, when they come from their server.
    let userId: String?

    init(store: DiaryStore, db: Database, source: MergeSource, fromServer: Bool, userId: String?) {
        self.store = store
        self.db = db
        self.source = source
        self.fromServer = fromServer
        self.userId = userId
    }

    mutating func entries(_ batch: MergeBatch) throws {
        for (record, searchRow) in zip(batch.records, batch.searchRows) { try entry(record, searchRow: searchRow) }
    }

    // The row id is only made when it is queued: a pull queues nothing.
    private func queue(table: SyncedTable, rowId: @autoclosure () -> String, op: OutboxOperation = .upsert, hlc: String) throws {
        if !fromServer { try store.enqueue(db, table: table, rowId: rowId(), op: op, hlc: hlc) }
    }

    private static func millis(_ date: Date?) -> Int64? { date.map(Timestamps.millis) }

    /// The tags an entry counts for (`tag.entry_count`): all of its tags while it is
    /// neither a tombstone nor in the trash, as `recountTag` counts them.
    private func countedTagIds(_ entryId: String) throws -> Set<String> {
        Set(try String.fetchAll(db.cachedStatement(sql: """
            SELECT et.tag_id FROM entry_tag et JOIN entry e ON e.id = et.entry_id
            WHERE et.entry_id = ? AND e.deleted_at IS NULL AND e.trashed_at IS NULL
            """), arguments: [entryId]))
    }

    private mutating func saw(_ clock: RowClock) {
        let timestamp = clock.timestamp
        if newest.map({ $0 < timestamp }) ?? true { newest = timestamp }
    }

    /// Merges one record; `searchRow` is its search row should the entry be new here.
    private mutating func entry(_ incoming: EntryRecord, searchRow: DiaryStore.SearchRow?) throws {
        saw(incoming.clock)
        var changed = false
        let local = try DiaryStore.record(db, id: incoming.id)
        // New here, and its record alone says what the tables will hold.
        let fresh = local == nil ? searchRow : nil
        let countedBefore = local == nil ? [] : try countedTagIds(incoming.id)
        if let local {
            // Met again in this merge: read back from its tables at the end.
            added[incoming.id] = nil
            if let userId {
                try db.cachedStatement(sql: "UPDATE entry SET user_id = ? WHERE id = ? AND user_id IS NULL").execute(arguments: [userId, incoming.id])
            }
            changed = try resolve(local: local, incoming: incoming)
            if changed { report.updated += 1 }
        } else {
            added[incoming.id] = (try insertFields(incoming), !incoming.isHidden, fresh)
            report.added += 1
            changed = true
        }
        for media in incoming.media { changed = try self.media(media, entryId: incoming.id) || changed }
        for line in incoming.lines { changed = try self.line(line, entryId: incoming.id) || changed }
        if fresh != nil {
            // Each tag named once and none removed: no link can meet a row.
            changed = try newTagLinks(incoming.tagLinks, entryId: incoming.id) || changed
        } else {
            // An entry new here has no tag links or removals but those this loop writes (their
            // foreign keys cascade from the entry), so a name not met yet needs no look.
            var linked: Set<String> = []
            for link in incoming.tagLinks {
                let mayBeHere = local != nil || !linked.insert(link.name).inserted
                changed = try self.tagLink(link, entryId: incoming.id, mayBeHere: mayBeHere) || changed
            }
        }
        if !fromServer { changed = try dropTagsRemoved(before: incoming) || changed }
        if changed {
            reindexing.append(incoming.id)
            // When the record alone says what the tables hold, it also says what the entry counts for.
            let countedAfter: Set<String>
            if fresh == nil {
                countedAfter = try countedTagIds(incoming.id)
            } else {
                countedAfter = incoming.isHidden ? [] : Set(incoming.tagLinks.compactMap { tagIds[$0.name] })
            }
            for tagId in countedAfter.subtracting(countedBefore) { tagCountChanges[tagId, default: 0] += 1 }
            for tagId in countedBefore.subtracting(countedAfter) { tagCountChanges[tagId, default: 0] -= 1 }
        } else {
            report.unchanged += 1
        }
    }

    /// The search row of an entry new here, as `DiaryStore.reindex` would read it back, when
    /// its record alone says what the tables hold: no message or tag named twice, no tag
    /// removed, no two tags at one position. Nil otherwise.
    static func searchRow(_ record: EntryRecord) -> DiaryStore.SearchRow? {
        let links = record.tagLinks
        guard links.allSatisfy({ $0.clock.deletedAt == nil }), Set(links.map(\.name)).count == links.count,
              Set(links.map(\.position)).count == links.count,
              Set(record.lines.map(\.message.id)).count == record.lines.count else { return nil }
        // Each author's messages by clock (compared as bytes, as SQLite does), then in the order written.
        func chat(_ author: Author) -> String {
            record.lines.enumerated().filter { $0.element.message.author == author }
                .sorted { first, second in
                    first.element.clock.hlc == second.element.clock.hlc
                        ? first.offset < second.offset
                        : first.element.clock.hlc.utf8.lexicographicallyPrecedes(second.element.clock.hlc.utf8)
                }
                .map(\.element.message.text).joined(separator: "\n")
        }
        return DiaryStore.SearchRow(title: record.title, summary: record.summary, note: record.note, transcript: record.transcript,
                                    tags: record.tags.joined(separator: " "),
                                    personChat: chat(.person), analysis: record.analysis, companionChat: chat(.companion),
                                    place: record.context.placeNames.joined(separator: "\n"))
    }

    /// Decides between two versions of an entry's own fields; true when the local row changed.
    ///
    /// A tombstone always wins over a live version (a delete is never undone by an older or
    /// concurrent edit); between two tombstones the newer clock wins. Between two live
    /// versions each part (content, star, trash, order) goes to the side that changed it
    /// last, so a star here and an edit there both stay.
    private mutating func resolve(local: EntryRecord, incoming: EntryRecord) throws -> Bool {
        if local.clock == incoming.clock && local.fieldClocks == incoming.fieldClocks { return false }
        let localDeleted = local.clock.deletedAt != nil
        let incomingDeleted = incoming.clock.deletedAt != nil
        var merged = local.fieldsOnly
        if localDeleted || incomingDeleted {
            let incomingWins = localDeleted != incomingDeleted ? incomingDeleted : local.clock.timestamp < incoming.clock.timestamp
            let (winner, loser) = incomingWins ? (incoming, local) : (local, incoming)
            try keepConflict(table: .entry, rowId: local.id, loser: loser.fieldsOnly.json, loserHlc: loser.clock.hlc,
                             winnerHlc: winner.clock.hlc)
            guard incomingWins else { return false }
            merged = incoming.fieldsOnly
        } else {
            let contentIncoming = local.clock(of: .content) < incoming.clock(of: .content)
            if local.clock(of: .content) != incoming.clock(of: .content) {
                let (winner, loser) = contentIncoming ? (incoming, local) : (local, incoming)
                try keepConflict(table: .entry, rowId: local.id, loser: loser.fieldsOnly.json, loserHlc: loser.clock(of: .content).description,
                                 winnerHlc: winner.clock(of: .content).description)
            }
            for part in FieldClocks.Part.allCases where local.clock(of: part) < incoming.clock(of: part) {
                merged.take(part, from: incoming)
            }
            if local.clock.timestamp < incoming.clock.timestamp { merged.clock = incoming.clock }
            // The content's clock is written down only when it is not the entry's own (one
            // form for one state, so every device and the server hold the same record).
            let content = max(local.clock(of: .content), incoming.clock(of: .content)).description
            merged.fieldClocks.content = content == merged.clock.hlc ? nil : content
        }
        if merged == local.fieldsOnly { return false }
        let before = try store.pageVersion(db, local.id)
        if merged.occurredAt != local.occurredAt {
            let old = try Int64.fetchOne(db.cachedStatement(sql: "SELECT moment_key FROM entry WHERE id = ?"), arguments: [local.id])!
            try db.cachedStatement(sql: "DELETE FROM entry_fts WHERE rowid = ?").execute(arguments: [old])
            let key = try MomentKey.next(db, occurredAt: Timestamps.millis(merged.occurredAt))
            try db.cachedStatement(sql: "UPDATE entry SET moment_key = ? WHERE id = ?").execute(arguments: [key, local.id])
        }
        try db.cachedStatement(sql: Self.updateFieldsSQL).execute(arguments: fieldArguments(merged) + [local.id])
        if merged.clock.deletedAt == nil {
            try store.keepVersion(db, before, entryId: local.id, by: source == .sync ? .sync : .import)
        }
        try queue(table: .entry, rowId: local.id, op: merged.clock.deletedAt != nil ? .delete : .upsert, hlc: merged.clock.hlc)
        return true
    }

    // The entry's columns a merge writes: its clock, its fields, and the day it happened on
    // in its own zone (for search by date).
    private static let fieldColumns = ["device_id", "hlc", "deleted_at"] + EntryRecord.fields.filter(\.isColumn).map(\.name) + ["local_date"]
    // The statements' text is made once: a cached statement is found by its text, and
    // joining it again for every merged entry was nearly 2 % of a pull.
    private static let updateFieldsSQL = "UPDATE entry SET \(fieldColumns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"
    private static let insertFieldsSQL: String = {
        let columns = fieldColumns + ["id", "moment_key", "user_id"]
        return "INSERT INTO entry(\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
    }()

    // A newer version of a media row replaces its clock and what may change (its place, its
    // thumbnail when it has one); a message is only ever added.
    private static let mediaUpsertSQL = DiaryStore.itemInsertSQL(table: "media", EntryRecord.mediaFields, .takesTheNewer)
    private static let messageInsertSQL = DiaryStore.itemInsertSQL(table: "message", EntryRecord.messageFields, .staysAsItIs)

    private func fieldArguments(_ record: EntryRecord) -> StatementArguments {
        var values: [(any DatabaseValueConvertible)?] = [record.clock.deviceId, record.clock.hlc, Self.millis(record.clock.deletedAt)]
        for field in EntryRecord.fields where field.isColumn { values.append(record.columnValue(field)) }
        values.append(Timestamps.localDate(record.occurredAt, zone: record.zone))
        return StatementArguments(values)
    }

    /// Writes a new entry's own fields; returns its moment key.
    private mutating func insertFields(_ record: EntryRecord) throws -> Int64 {
        let key = try MomentKey.next(db, occurredAt: Timestamps.millis(record.occurredAt))
        try db.cachedStatement(sql: Self.insertFieldsSQL).execute(arguments: fieldArguments(record) + [record.id, key, userId])
        try queue(table: .entry, rowId: record.id, op: record.clock.deletedAt == nil ? .upsert : .delete,
                          hlc: record.clock.hlc)
        return key
    }

    private mutating func media(_ media: EntryRecord.Media, entryId: String) throws -> Bool {
        saw(media.clock)
        let local = try Row.fetchOne(db.cachedStatement(sql: "SELECT entry_id, hlc, deleted_at FROM media WHERE id = ?"), arguments: [media.id])
        if let local {
            // A media id belongs to one entry; a record that moves it is not ours to follow.
            guard local["entry_id"] as String == entryId else { throw StoreError.invalidRecord(entryId) }
            let localClock = RowClock(hlc: local["hlc"], deviceId: "", deletedAt: nil)
            guard localClock.timestamp < media.clock.timestamp, local["deleted_at"] as Int64? == nil else { return false }
        }
        try db.cachedStatement(sql: Self.mediaUpsertSQL).execute(arguments: DiaryStore.itemArguments(media, EntryRecord.mediaFields, entryId: entryId))
        try queue(table: .media, rowId: media.id, hlc: media.clock.hlc)
        if media.clock.deletedAt != nil { deletedMedia.append(media.item) }
        return true
    }

    private mutating func line(_ line: EntryRecord.Line, entryId: String) throws -> Bool {
        saw(line.clock)
        let message = line.message
        // Most pulled messages are new here: the insert is tried first, and only a message
        // already held is looked at.
        try db.cachedStatement(sql: Self.messageInsertSQL).execute(arguments: DiaryStore.itemArguments(line, EntryRecord.messageFields, entryId: entryId))
        if db.changesCount > 0 {
            report.messagesAdded += 1
        } else {
            let local = try Row.fetchOne(db.cachedStatement(sql: "SELECT entry_id, deleted_at FROM message WHERE id = ?"), arguments: [message.id])
            guard let local, local["entry_id"] as String == entryId else { throw StoreError.invalidRecord(entryId) }
            // Messages are append-only: the only later change a copy can carry is its deletion.
            guard line.clock.deletedAt != nil, local["deleted_at"] as Int64? == nil else { return false }
            try db.cachedStatement(sql: "UPDATE message SET deleted_at = ?, hlc = ?, device_id = ? WHERE id = ?")
                .execute(arguments: [Self.millis(line.clock.deletedAt), line.clock.hlc, line.clock.deviceId, message.id])
        }
        try queue(table: .message, rowId: message.id, hlc: line.clock.hlc)
        return true
    }

    private mutating func tagLink(_ link: EntryRecord.TagLink, entryId: String, mayBeHere: Bool) throws -> Bool {
        saw(link.clock)
        // The local side is the live link or the kept removal, whichever is newer.
        let local = !mayBeHere ? nil : try Row.fetchOne(db.cachedStatement(sql: """
            SELECT max(hlc) AS hlc, max(removal) AS removal
              FROM (SELECT et.hlc, 0 AS removal FROM entry_tag et JOIN tag t ON t.id = et.tag_id WHERE et.entry_id = ?1 AND t.name = ?2
                    UNION ALL SELECT hlc, 1 FROM tag_removal WHERE entry_id = ?1 AND name = ?2)
            """), arguments: [entryId, link.name])
        let localHlc: String? = local?["hlc"]
        if let localHlc, !(RowClock(hlc: localHlc, deviceId: "").timestamp < link.clock.timestamp) { return false }
        if let removedAt = link.clock.deletedAt {
            // A removal of a tag this diary never had names no tag row; none is made for it.
            let tagId = try String.fetchOne(db.cachedStatement(sql: "SELECT id FROM tag WHERE name = ?"), arguments: [link.name])
            if let tagId {
                try db.cachedStatement(sql: "DELETE FROM entry_tag WHERE entry_id = ? AND tag_id = ?").execute(arguments: [entryId, tagId])
            }
            try db.cachedStatement(sql: """
                INSERT INTO tag_removal(entry_id, name, device_id, hlc, removed_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(entry_id, name) DO UPDATE SET device_id = excluded.device_id, hlc = excluded.hlc,
                    removed_at = excluded.removed_at
                """).execute(arguments: [entryId, link.name, link.clock.deviceId, link.clock.hlc, Timestamps.millis(removedAt)])
            try queue(table: .entryTag, rowId: "\(entryId)/\(tagId ?? link.name)", op: .delete, hlc: link.clock.hlc)
        } else {
            let tagId = try linkedTagId(link)
            if local?["removal"] == 1 {
                try db.cachedStatement(sql: "DELETE FROM tag_removal WHERE entry_id = ? AND name = ?").execute(arguments: [entryId, link.name])
            }
            try db.cachedStatement(sql: """
                INSERT INTO entry_tag(entry_id, tag_id, position, device_id, hlc, created_at, label) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(entry_id, tag_id) DO UPDATE SET position = excluded.position, device_id = excluded.device_id,
                    hlc = excluded.hlc, label = excluded.label
                """).execute(arguments: [entryId, tagId, link.position, link.clock.deviceId, link.clock.hlc,
                                         Timestamps.millis(link.createdAt), link.label])
            try queue(table: .entryTag, rowId: "\(entryId)/\(tagId)", hlc: link.clock.hlc)
        }
        return true
    }

    /// The tag row a live link points at (made when new), noted as used at the link's time.
    private mutating func linkedTagId(_ link: EntryRecord.TagLink) throws -> String {
        let tagId = try tagIds[link.name] ?? store.tagId(db, name: link.name, hlc: link.clock.hlc, now: Timestamps.millis(link.createdAt))
        tagIds[link.name] = tagId
        // Once per tag at the end (finish), not once per link.
        lastUsed[tagId] = max(lastUsed[tagId] ?? 0, Timestamps.millis(link.createdAt))
        return tagId
    }

    // The tag-day trigger makes SQLite keep a statement journal for every statement that
    // writes a link: one INSERT of a new entry's links (without an upsert clause, which
    // SQLite runs row by row) costs 64,000 instructions a link against 77,000 for one
    // statement each.
    private static let linksPerInsert = 8
    private static let newLinksSQL = (1...linksPerInsert).map { count in
        "INSERT INTO entry_tag(entry_id, tag_id, position, device_id, hlc, created_at, label) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
    }

    /// Links a new entry's tags, which its record names once each and removes none of.
    private mutating func newTagLinks(_ links: [EntryRecord.TagLink], entryId: String) throws -> Bool {
        var tagIdsLinked: [String] = []
        for link in links {
            saw(link.clock)
            let tagId = try linkedTagId(link)
            tagIdsLinked.append(tagId)
            try queue(table: .entryTag, rowId: "\(entryId)/\(tagId)", hlc: link.clock.hlc)
        }
        for start in stride(from: 0, to: links.count, by: Self.linksPerInsert) {
            let end = min(start + Self.linksPerInsert, links.count)
            var arguments = StatementArguments()
            for (link, tagId) in zip(links[start..<end], tagIdsLinked[start..<end]) {
                arguments += [entryId, tagId, link.position, link.clock.deviceId, link.clock.hlc, Timestamps.millis(link.createdAt), link.label]
            }
            try db.cachedStatement(sql: Self.newLinksSQL[end - start - 1]).execute(arguments: arguments)
        }
        return !links.isEmpty
    }

    // Removing a tag deletes its row, so a record says "removed" by leaving the tag out: a
    // local tag older than the incoming version, and absent from it, was removed there.
    private mutating func dropTagsRemoved(before incoming: EntryRecord) throws -> Bool {
        let names = Set(incoming.tagLinks.map(\.name))
        var dropped = false
        for row in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT et.tag_id, et.hlc, t.name FROM entry_tag et JOIN tag t ON t.id = et.tag_id WHERE et.entry_id = ?
            """), arguments: [incoming.id]) where !names.contains(row["name"]) {
            guard RowClock(hlc: row["hlc"], deviceId: "").timestamp < incoming.clock.timestamp else { continue }
            let tagId: String = row["tag_id"]
            try db.cachedStatement(sql: "DELETE FROM entry_tag WHERE entry_id = ? AND tag_id = ?").execute(arguments: [incoming.id, tagId])
            try queue(table: .entryTag, rowId: "\(incoming.id)/\(tagId)", op: .delete, hlc: incoming.clock.hlc)
            dropped = true
        }
        return dropped
    }

    private mutating func keepConflict(table: SyncedTable, rowId: String, loser: JSON, loserHlc: String, winnerHlc: String) throws {
        let inserted = try db.cachedStatement(sql: """
            INSERT INTO conflict(id, table_name, row_id, hlc, winner_hlc, source, kept_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(table_name, row_id, hlc) DO NOTHING
            """)
        try inserted.execute(arguments: [UUIDv7.make(), table.rawValue, rowId, loserHlc, winnerHlc, source.rawValue, Timestamps.millis(Date()), loser.serialized])
        if db.changesCount > 0 { report.conflictsKept += 1 }
    }

    mutating func extras(_ extras: DiaryExtras) throws {
        for tag in extras.tags {
            saw(tag.clock)
            let tagId = try store.tagId(db, name: tag.name, hlc: tag.clock.hlc, now: Timestamps.millis(tag.createdAt))
            try db.cachedStatement(sql: """
                UPDATE tag SET created_at = min(created_at, ?), last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?
                """).execute(arguments: [Timestamps.millis(tag.createdAt), Self.millis(tag.lastUsedAt) ?? 0, tagId])
            if try Int64?.fetchOne(db.cachedStatement(sql: "SELECT last_used_at FROM tag WHERE id = ?"), arguments: [tagId]) == 0 {
                try db.cachedStatement(sql: "UPDATE tag SET last_used_at = NULL WHERE id = ?").execute(arguments: [tagId])
            }
        }
        for setting in extras.settings {
            saw(setting.clock)
            if let local = try Row.fetchOne(db.cachedStatement(sql: "SELECT value, hlc, device_id, updated_at FROM setting WHERE key = ?"),
                                            arguments: [setting.key]) {
                let localClock = RowClock(hlc: local["hlc"], deviceId: local["device_id"])
                if localClock == setting.clock { continue }
                let incomingWins = localClock.timestamp < setting.clock.timestamp
                let loser: JSON = incomingWins
                    ? .object([("key", .string(setting.key)), ("value", .string(local["value"])), ("hlc", .string(local["hlc"]))])
                    : .object([("key", .string(setting.key)), ("value", .string(setting.value)), ("hlc", .string(setting.clock.hlc))])
                try keepConflict(table: .setting, rowId: setting.key, loser: loser,
                                 loserHlc: incomingWins ? local["hlc"] : setting.clock.hlc,
                                 winnerHlc: incomingWins ? setting.clock.hlc : local["hlc"])
                if !incomingWins { continue }
            }
            try db.cachedStatement(sql: """
                INSERT INTO setting(key, value, device_id, hlc, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET value = excluded.value, device_id = excluded.device_id, hlc = excluded.hlc,
                    updated_at = excluded.updated_at
                """).execute(arguments: [setting.key, setting.value, setting.clock.deviceId, setting.clock.hlc,
                                         Timestamps.millis(setting.updatedAt)])
            try queue(table: .setting, rowId: setting.key, hlc: setting.clock.hlc)
            report.settingsChanged += 1
        }
        for setting in extras.deviceSettings {
            try db.cachedStatement(sql: "INSERT INTO device_setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING")
                .execute(arguments: [setting.key, setting.value])
        }
        for use in extras.usage {
            try db.cachedStatement(sql: """
                INSERT INTO usage(day, kind, count) VALUES (?, ?, ?)
                ON CONFLICT(day, kind) DO UPDATE SET count = max(count, excluded.count)
                """).execute(arguments: [use.day, use.counter, use.count])
        }
        for (entryId, version) in extras.versions {
            // A version of an entry this diary does not hold has nothing to hang on.
            try db.cachedStatement(sql: """
                INSERT INTO entry_version(id, entry_id, hlc, replaced_at, replaced_by, device_id, version)
                SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM entry WHERE id = ?)
                ON CONFLICT(entry_id, hlc) DO NOTHING
                """).execute(arguments: [UUIDv7.make(), entryId, version.hlc, Timestamps.millis(version.replacedAt),
                                         version.replacedBy.rawValue, version.deviceId, version.json.serialized, entryId])
        }
        for conflict in extras.conflicts {
            try db.cachedStatement(sql: """
                INSERT INTO conflict(id, table_name, row_id, hlc, winner_hlc, source, kept_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """).execute(arguments: [conflict.id, conflict.table, conflict.rowId, conflict.hlc, conflict.winnerHlc,
                                         conflict.source, Timestamps.millis(conflict.keptAt), conflict.version.serialized])
        }
    }

    /// Recounts the tags the merge touched and moves this device's clock past every clock
    /// it took in, so that the next local edit is newer than anything merged.
    mutating func finish() throws {
        for (tagId, change) in tagCountChanges where change != 0 { try store.adjustTagCounts(db, tagIds: [tagId], by: change) }
        for (tagId, millis) in lastUsed {
            try db.cachedStatement(sql: "UPDATE tag SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?").execute(arguments: [millis, tagId])
        }
        report.unusedMedia = try store.unused(deletedMedia, db)
        var indexed: Set<String> = []
        for id in reindexing where indexed.insert(id).inserted {
            let (key, live, searchRow) = try added[id] ?? db.cachedStatement(sql: """
                SELECT moment_key, deleted_at IS NULL AND trashed_at IS NULL FROM entry WHERE id = ?
                """).decodeFirst([id]) { row in (row[0] as Int64, row[1] as Bool, nil) }!
            try db.cachedStatement(sql: "DELETE FROM entry_fts WHERE rowid = ?").execute(arguments: [key])
            if live { try DiaryStore.insertSearchRow(db, key: key, searchRow ?? DiaryStore.storedSearchRow(db, entryId: id)) }
        }
        guard let newest else { return }
        let current = try DiaryStore.syncState(db, "hlc").flatMap(HybridTimestamp.init)
        let advanced = HybridTimestamp(wallMillis: newest.wallMillis, counter: newest.counter, device: store.deviceId)
        if current.map({ $0 < advanced }) ?? true { try DiaryStore.setSyncState(db, "hlc", advanced.description) }
    }
}
