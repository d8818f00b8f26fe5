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
    /// (clock, outbox, tag counts, full-text row) is kept here too.
    @discardableResult
    public func importEntries(_ entries: [ImportedEntry]) throws -> [String] {
        try write { db in
            var ids: [String] = []
            ids.reserveCapacity(entries.count)
            let now = Timestamps.millis(Date())
            for imported in entries {
                let id = UUIDv7.make()
                let hlc = try tick(db)
                let occurred = Timestamps.millis(imported.occurredAt)
                let saved = imported.title != nil && imported.summary != nil
                let status = saved ? EntryStatus.saved : (imported.messages.isEmpty ? .draft : .chatting)
                try db.cachedStatement(sql: """
                    INSERT INTO entry(moment_key, id, device_id, hlc, status, created_at, updated_at, occurred_at, time_zone,
                                      local_date, note, analysis, persona, provider, title, summary, summarized_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [try MomentKey.next(db, occurredAt: occurred), id, deviceId, hlc, status.rawValue,
                                     occurred, now, occurred, imported.timeZone.identifier,
                                     Timestamps.localDate(imported.occurredAt, zone: imported.timeZone),
                                     imported.note, imported.analysis, imported.persona, imported.provider,
                                     imported.title, imported.summary, saved ? now : nil])
                try enqueue(db, table: "entry", rowId: id, hlc: hlc)
                for line in imported.messages {
                    let messageId = UUIDv7.make()
                    try db.cachedStatement(sql: """
                        INSERT INTO message(id, entry_id, device_id, hlc, author, persona, provider, text, created_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """).execute(arguments: [messageId, id, deviceId, hlc, line.author.rawValue, imported.persona,
                                         line.author == .companion ? imported.provider : nil, line.text,
                                         Timestamps.millis(line.createdAt)])
                    try enqueue(db, table: "message", rowId: messageId, hlc: hlc)
                }
                var tags: [String] = []
                for name in imported.tags.compactMap(TagName.normalize) where !tags.contains(name) { tags.append(name) }
                try replaceTags(db, entryId: id, names: tags, hlc: hlc, now: occurred)
                try Self.reindex(db, entryId: id)
                ids.append(id)
            }
            return ids
        }
    }
}
