import Foundation
import GRDB

extension DiaryStore {
    /// The id of the one entry whose id starts with `reference` (a full id or a prefix).
    package func resolve(reference: String) throws -> String {
        let prefix = reference.lowercased()
        guard !prefix.isEmpty, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw StoreError.entryNotFound(reference)
        }
        // A range on the unique index: ids hold only [0-9a-f-], all of which sort below '~'.
        let ids = try read { db in
            try String.fetchAll(db.cachedStatement(sql: "SELECT id FROM entry WHERE id >= ? AND id < ? AND deleted_at IS NULL LIMIT 2"),
                                arguments: [prefix, prefix + "~"])
        }
        switch ids.count {
        case 0: throw StoreError.entryNotFound(reference)
        case 1: return ids[0]
        default: throw StoreError.ambiguous(reference)
        }
    }

    /// The most recently touched entry in one of `statuses`.
    package func latestEntry(in statuses: [EntryStatus]) throws -> String? {
        let marks = Array(repeating: "?", count: statuses.count).joined(separator: ",")
        return try read { db in
            try String.fetchOne(db.cachedStatement(sql: """
                SELECT id FROM entry WHERE deleted_at IS NULL AND status IN (\(marks)) ORDER BY updated_at DESC, moment_key DESC LIMIT 1
                """), arguments: StatementArguments(statuses.map(\.rawValue)))
        }
    }

    /// One entry, with its conversation when `includeMessages`.
    public func entry(id: String, includeMessages: Bool = false) throws -> Entry {
        try read { db in
            guard let fields = try db.cachedStatement(sql: "\(Self.entrySelect) WHERE e.id = ? AND e.deleted_at IS NULL")
                .decodeFirst([id], Self.entryFields) else {
                throw StoreError.entryNotFound(id)
            }
            return try assemble(db, [fields], includeMessages: includeMessages)[0]
        }
    }

    /// The saved pages a provider wrote (`offline` for the embedded companion), outside the trash.
    public func pages(writtenBy provider: String) throws -> [Entry] {
        try read { db in
            let pages = try db.cachedStatement(sql: """
                \(Self.entrySelect) WHERE e.provider = ? AND e.status = 'saved' AND e.deleted_at IS NULL AND e.trashed_at IS NULL
                ORDER BY e.moment_key
                """).decodeAll([provider], Self.entryFields)
            // In slices, so a diary of any size stays within SQLite's limit on bound values.
            return try stride(from: 0, to: pages.count, by: 500).flatMap { start in
                try assemble(db, Array(pages[start..<min(start + 500, pages.count)]), includeMessages: false)
            }
        }
    }

    /// The conversation of an entry, oldest first.
    public func messages(entryId: String) throws -> [Message] {
        try read { db in try messages(db, entryId: entryId) }
    }

    /// A stored setting.
    package func setting(_ key: String) throws -> String? {
        try read { db in try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM setting WHERE key = ?"), arguments: [key]) }
    }

    /// A setting of this device only (consent, one-time notices); never synced.
    package func deviceSetting(_ key: String) throws -> String? {
        try read { db in try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM device_setting WHERE key = ?"), arguments: [key]) }
    }

    /// How many changes wait in the outbox.
    package func pendingChangeCount() throws -> Int {
        try read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM outbox")) ?? 0 }
    }

    /// How many pages were written on a local day.
    package func pagesWritten(on day: String) throws -> Int { try usage(on: day, kind: UsageKind.page) }

    /// How much of something counted per day (`UsageKind`) was used on `day` (YYYY-MM-DD).
    public func usage(on day: String, kind: String) throws -> Int {
        try read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT count FROM usage WHERE day = ? AND kind = ?"), arguments: [day, kind]) ?? 0 }
    }

    // MARK: - Assembly

    static let entryColumns = """
        e.*, \(OrderKey.effectiveSQL) AS effective_order, (SELECT count(*) FROM message m WHERE m.entry_id = e.id) AS message_count,
        (SELECT max(o.last_error) FROM outbox o WHERE o.table_name = 'entry' AND o.row_id = e.id) AS sync_error,
        EXISTS (SELECT 1 FROM outbox o WHERE o.table_name = 'entry' AND o.row_id = e.id) AS sync_pending
        """

    private static let entrySelect = "SELECT \(entryColumns) FROM entry e"

    /// An entry's own fields from a row selected with `entryColumns`, read while the statement
    /// stands on it; `assemble` adds its tags, media and conversation.
    static func entryFields(_ row: Row) -> Entry {
        Entry(
            id: row["id"],
            status: EntryStatus(rawValue: row["status"]) ?? .draft,
            createdAt: Timestamps.date(millis: row["created_at"]),
            updatedAt: Timestamps.date(millis: row["updated_at"]),
            occurredAt: Timestamps.date(millis: row["occurred_at"]),
            timeZone: row["time_zone"],
            note: row["note"],
            transcript: row["transcript"],
            analysis: row["analysis"],
            context: ContextCoding.decode(row["context"]),
            persona: row["persona"],
            provider: row["provider"],
            title: row["title"],
            summary: row["summary"],
            tags: [],
            media: [],
            messageCount: row["message_count"],
            messages: nil,
            syncState: (row["sync_pending"] as Bool) ? .pending : .synced,
            syncError: row["sync_error"],
            lastError: row["last_error"],
            digest: row["digest"],
            digestThrough: row["digest_through"],
            starred: row["starred"],
            trashedAt: (row["trashed_at"] as Int64?).map(Timestamps.date(millis:)),
            editedAt: (row["edited_at"] as Int64?).map(Timestamps.date(millis:)),
            reflection: Reflection.decode(row["reflection"]))
    }

    /// Entries read by `entryFields` with their tags and media (and conversation, when
    /// `includeMessages`), each kind fetched once for all of them.
    func assemble(_ db: Database, _ entries: [Entry], includeMessages: Bool) throws -> [Entry] {
        let ids = entries.map(\.id)
        let media = try mediaItems(db, entryIds: ids)
        let tags = try tagNames(db, entryIds: ids)
        return try entries.map { fields in
            var entry = fields
            entry.tags = tags[entry.id] ?? []
            entry.media = media[entry.id] ?? []
            if includeMessages { entry.messages = try messages(db, entryId: entry.id) }
            return entry
        }
    }

    func mediaItems(_ db: Database, entryIds: [String]) throws -> [String: [MediaItem]] {
        guard !entryIds.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: entryIds.count).joined(separator: ",")
        var result: [String: [MediaItem]] = [:]
        for (entryId, item) in try db.cachedStatement(sql: """
            SELECT * FROM media WHERE entry_id IN (\(marks)) AND deleted_at IS NULL ORDER BY entry_id, position
            """).decodeAll(StatementArguments(entryIds), { row in
            (row["entry_id"] as String,
             MediaItem(kind: MediaKind(rawValue: row["kind"]) ?? .photo, sha256: row["sha256"], mime: row["mime"],
                       fileExtension: row["ext"], bytes: row["bytes"], width: row["width"], height: row["height"],
                       durationSeconds: row["duration"], takenAt: (row["taken_at"] as Int64?).map(Timestamps.date(millis:)),
                       thumbnail: row["thumbnail"]))
        }) {
            result[entryId, default: []].append(item)
        }
        return result
    }

    private func tagNames(_ db: Database, entryIds: [String]) throws -> [String: [String]] {
        guard !entryIds.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: entryIds.count).joined(separator: ",")
        var result: [String: [String]] = [:]
        for (entryId, name) in try db.cachedStatement(sql: """
            SELECT et.entry_id, t.name FROM entry_tag et JOIN tag t ON t.id = et.tag_id
            WHERE et.entry_id IN (\(marks)) AND et.deleted_at IS NULL ORDER BY et.entry_id, et.position
            """).decodeAll(StatementArguments(entryIds), { row in (row[0] as String, row[1] as String) }) {
            result[entryId, default: []].append(name)
        }
        return result
    }

    private func messages(_ db: Database, entryId: String) throws -> [Message] {
        try db.cachedStatement(sql: "SELECT * FROM message WHERE entry_id = ? AND deleted_at IS NULL ORDER BY hlc, seq").decodeAll([entryId]) { row in
            Message(id: row["id"], entryId: row["entry_id"], author: Author(rawValue: row["author"]) ?? .person,
                    persona: row["persona"], provider: row["provider"], text: row["text"],
                    createdAt: Timestamps.date(millis: row["created_at"]))
        }
    }
}
