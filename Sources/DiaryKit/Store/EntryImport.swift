import Foundation
import GRDB

/// A whole entry that comes from elsewhere (an import, a benchmark corpus), written in one go.
public struct ImportedEntry: Sendable {
    /// One line of its conversation.
    public struct Line: Sendable {
        public var author: Author
        public var text: String
        public var createdAt: Date

        public init(author: Author, text: String, createdAt: Date) {
            self.author = author
            self.text = text
            self.createdAt = createdAt
        }
    }

    public var occurredAt: Date
    public var timeZone: TimeZone
    public var note: String?
    public var analysis: String?
    public var persona: String
    public var provider: String?
    public var title: String?
    public var summary: String?
    public var tags: [String]
    public var messages: [Line]

    public init(occurredAt: Date, timeZone: TimeZone, note: String?, analysis: String? = nil, persona: String,
                provider: String? = nil, title: String?, summary: String?, tags: [String], messages: [Line]) {
        self.occurredAt = occurredAt
        self.timeZone = timeZone
        self.note = note
        self.analysis = analysis
        self.persona = persona
        self.provider = provider
        self.title = title
        self.summary = summary
        self.tags = tags
        self.messages = messages
    }
}

extension DiaryStore {
    /// Writes many entries in one transaction (saved when they have a title and summary,
    /// else drafts); returns their new ids. Everything the single-step writes keep in step
    /// (clock, outbox, tag counts, full-text row) is kept here too, but from what is in hand:
    /// the rows are new, so nothing is read back or replaced.
    @discardableResult
    public func importEntries(_ entries: [ImportedEntry]) throws -> [String] {
        try write { db in
            var ids: [String] = []
            ids.reserveCapacity(entries.count)
            var tagIds: [String: String] = [:]
            let now = Timestamps.millis(Date())
            for imported in entries {
                let id = UUIDv7.make()
                let hlc = try tick(db)
                let occurred = Timestamps.millis(imported.occurredAt)
                let key = try MomentKey.next(db, occurredAt: occurred)
                let saved = imported.title != nil && imported.summary != nil
                let status = saved ? EntryStatus.saved : (imported.messages.isEmpty ? .draft : .chatting)
                try db.cachedStatement(sql: """
                    INSERT INTO entry(moment_key, id, device_id, hlc, status, created_at, updated_at, occurred_at, time_zone,
                                      local_date, note, analysis, persona, provider, title, summary, summarized_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [key, id, deviceId, hlc, status.rawValue, occurred, now, occurred,
                                             imported.timeZone.identifier,
                                             Timestamps.localDate(imported.occurredAt, zone: imported.timeZone),
                                             imported.note, imported.analysis, imported.persona, imported.provider,
                                             imported.title, imported.summary, saved ? now : nil])
                try enqueueNew(db, table: .entry, rowId: id, hlc: hlc)
                for line in imported.messages {
                    let message = Message(id: UUIDv7.make(), entryId: id, author: line.author, persona: imported.persona,
                                          provider: line.author == .companion ? imported.provider : nil, text: line.text,
                                          createdAt: line.createdAt)
                    try insertMessage(db, message, hlc: hlc)
                    try enqueueNew(db, table: .message, rowId: message.id, hlc: hlc)
                }
                var names: [String] = []
                for name in imported.tags.compactMap(TagName.normalize) where !names.contains(name) { names.append(name) }
                for (position, name) in names.enumerated() {
                    let tagId = try tagIds[name] ?? tagId(db, name: name, hlc: hlc, now: occurred)
                    tagIds[name] = tagId
                    try db.cachedStatement(sql: """
                        UPDATE tag SET entry_count = entry_count + 1, last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?
                        """).execute(arguments: [occurred, tagId])
                    try db.cachedStatement(sql: """
                        INSERT INTO entry_tag(entry_id, tag_id, position, device_id, hlc, created_at) VALUES (?, ?, ?, ?, ?, ?)
                        """).execute(arguments: [id, tagId, position, deviceId, hlc, occurred])
                    try enqueueNew(db, table: .entryTag, rowId: "\(id)/\(tagId)", hlc: hlc)
                }
                let chat = { (author: Author) in imported.messages.filter { $0.author == author }.map(\.text).joined(separator: "\n") }
                try Self.insertSearchRow(db, key: key, SearchRow(
                    title: imported.title, summary: imported.summary, note: imported.note, transcript: nil,
                    tags: names.joined(separator: " "), personChat: chat(.person), analysis: imported.analysis,
                    companionChat: chat(.companion), place: ""))
                ids.append(id)
            }
            return ids
        }
    }

    /// Queues a row that was just made: there can be no older mutation of it to replace.
    private func enqueueNew(_ db: Database, table: SyncedTable, rowId: String, hlc: String) throws {
        try db.cachedStatement(sql: "INSERT INTO outbox(table_name, row_id, op, hlc, created_at) VALUES (?, ?, 'upsert', ?, ?)")
            .execute(arguments: [table.rawValue, rowId, hlc, Timestamps.millis(Date())])
    }
}
