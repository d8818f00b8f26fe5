import Foundation
import GRDB

// Every change below is one immediate transaction that also stamps the hybrid clock,
// queues the row in the outbox and refreshes the entry's full-text row, so the index, the
// sync queue and the data can never disagree, whatever kills the process.
extension DiaryStore {
    /// Stores a new draft with its media rows; returns its id.
    public func createEntry(_ new: NewEntry) throws -> String {
        let id = UUIDv7.make()
        let now = Date()
        try write { db in
            let hlc = try tick(db)
            let occurred = Timestamps.millis(new.occurredAt)
            try db.cachedStatement(sql: """
                INSERT INTO entry(moment_key, id, device_id, hlc, status, created_at, updated_at, occurred_at, time_zone,
                                  local_date, note, transcript, context, persona)
                VALUES (?, ?, ?, ?, 'draft', ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [try MomentKey.next(db, occurredAt: occurred), id, deviceId, hlc, Timestamps.millis(now), Timestamps.millis(now),
                                 occurred, new.timeZone.identifier,
                                 Timestamps.localDate(new.occurredAt, zone: new.timeZone),
                                 new.note, new.transcript, new.context.isEmpty ? nil : ContextCoding.encode(new.context),
                                 new.persona])
            try enqueue(db, table: .entry, rowId: id, hlc: hlc)
            for (position, item) in new.media.enumerated() {
                let mediaId = UUIDv7.make()
                try insertMedia(db, id: mediaId, entryId: id, position: position, item: item, hlc: hlc)
                try enqueue(db, table: .media, rowId: mediaId, hlc: hlc)
            }
            try Self.reindex(db, entryId: id)
        }
        return id
    }

    /// Stores a reflection as a saved page of its own, in one transaction; returns its id.
    package func saveReflection(_ reflection: Reflection, title: String, summary: String, tags: [String], occurredAt: Date,
                               timeZone: TimeZone, persona: String, provider: String) throws -> String {
        let id = UUIDv7.make()
        try write { db in
            let hlc = try tick(db)
            let now = Timestamps.millis(Date())
            let occurred = Timestamps.millis(occurredAt)
            try db.cachedStatement(sql: """
                INSERT INTO entry(moment_key, id, device_id, hlc, status, created_at, updated_at, occurred_at, time_zone,
                                  local_date, persona, provider, title, summary, summarized_at, reflection)
                VALUES (?, ?, ?, ?, 'saved', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [try MomentKey.next(db, occurredAt: occurred), id, deviceId, hlc, now, now, occurred,
                                         timeZone.identifier, Timestamps.localDate(occurredAt, zone: timeZone), persona, provider,
                                         title, summary, now, reflection.json.serialized])
            try enqueue(db, table: .entry, rowId: id, hlc: hlc)
            try replaceTags(db, entryId: id, names: tags, hlc: hlc, now: now)
            try Self.reindex(db, entryId: id)
        }
        return id
    }

    /// Appends one message (messages are never edited); a draft becomes `chatting`.
    @discardableResult
    package func appendMessage(entryId: String, author: Author, text: String, persona: String, provider: String?) throws -> Message {
        try appendMessage(entryId: entryId, author: author, text: text, persona: persona, provider: provider, onlyFirst: false)!
    }

    /// Appends the companion's opening words unless it has already spoken: two processes
    /// opening the same talk at once leave one greeting. Nil when it had.
    package func appendOpening(entryId: String, text: String, persona: String, provider: String) throws -> Message? {
        try appendMessage(entryId: entryId, author: .companion, text: text, persona: persona, provider: provider, onlyFirst: true)
    }

    private func appendMessage(entryId: String, author: Author, text: String, persona: String, provider: String?,
                               onlyFirst: Bool) throws -> Message? {
        // SQLite would keep a text cut at a NUL byte. The person's words are refused, named;
        // the companion's (a provider's answer) lose the NULs, which are never words.
        var text = text
        if text.utf8.contains(0) {
            guard author == .companion else { throw StoreError.notText("message") }
            text.removeAll { $0 == "\0" }
        }
        let message = Message(id: UUIDv7.make(), entryId: entryId, author: author, persona: persona,
                              provider: provider, text: text, createdAt: Date())
        return try write { db -> Message? in
            try requireLiveEntry(db, entryId)
            if onlyFirst, try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM message WHERE entry_id = ? AND author = 'companion' LIMIT 1"),
                                            arguments: [entryId]) == true {
                return nil
            }
            let hlc = try tick(db)
            try insertMessage(db, message, hlc: hlc)
            try enqueue(db, table: .message, rowId: message.id, hlc: hlc)
            // A companion answer means the last failure, if any, is behind us.
            try touch(db, entryId: entryId, hlc: hlc, set: author == .companion
                      ? "status = CASE status WHEN 'draft' THEN 'chatting' ELSE status END, last_error = NULL"
                      : "status = CASE status WHEN 'draft' THEN 'chatting' ELSE status END")
            try Self.reindex(db, entryId: entryId)
            return message
        }
    }

    /// Records what the companion saw in the media (D-004).
    package func setAnalysis(entryId: String, text: String, provider: String) throws {
        try write { db in
            let hlc = try tick(db)
            try requireLiveEntry(db, entryId)
            try touch(db, entryId: entryId, hlc: hlc, set: "analysis = ?, analysis_provider = ?", [text, provider])
            try Self.reindex(db, entryId: entryId)
        }
    }

    /// Records the moment's place and weather (D-012).
    package func setContext(entryId: String, context: EntryContext) throws {
        try write { db in
            let hlc = try tick(db)
            try requireLiveEntry(db, entryId)
            try touch(db, entryId: entryId, hlc: hlc, set: "context = ?", [context.isEmpty ? nil : ContextCoding.encode(context)])
            try Self.reindex(db, entryId: entryId)  // place names are searched
        }
    }

    /// Records what a voice memo said (F-011).
    package func setTranscript(entryId: String, text: String) throws {
        try write { db in
            let hlc = try tick(db)
            try requireLiveEntry(db, entryId)
            try touch(db, entryId: entryId, hlc: hlc, set: "transcript = ?", [text])
            try Self.reindex(db, entryId: entryId)
        }
    }

    /// Records the running summary of a long talk, up to and including message `through`.
    package func setDigest(entryId: String, text: String, through: String) throws {
        try write { db in
            let hlc = try tick(db)
            try requireLiveEntry(db, entryId)
            try touch(db, entryId: entryId, hlc: hlc, set: "digest = ?, digest_through = ?", [text, through])
        }
    }

    /// Stores a setting of this device only (consent, one-time notices); never synced.
    package func setDeviceSetting(_ key: String, _ value: String) throws {
        try write { db in
            try db.cachedStatement(sql: "INSERT INTO device_setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").execute(arguments: [key, value])
        }
    }

    /// Records the companion in force for what comes next.
    package func setPersona(entryId: String, persona: String) throws {
        try write { db in
            let hlc = try tick(db)
            try requireLiveEntry(db, entryId)
            try touch(db, entryId: entryId, hlc: hlc, set: "persona = ?", [persona])
        }
    }

    /// Writes the page and its tags, marks the entry `saved` and counts the day's page.
    package func savePage(entryId: String, title: String, summary: String, tags: [String],
                         persona: String, provider: String, usageDay: String) throws {
        try write { db in
            let hlc = try tick(db)
            try requireLiveEntry(db, entryId)
            let before = try pageVersion(db, entryId)
            let now = Timestamps.millis(Date())
            // A new page from the companion is the companion's again; the person's edits stay in history.
            // A provider's NUL bytes are taken out (SQLite would cut the text there), and the
            // title is one line, as the editor shows it.
            let title = String(title.filter { $0 != "\0" }.map { $0.isNewline ? " " : $0 })
            let summary = summary.filter { $0 != "\0" }
            try touch(db, entryId: entryId, hlc: hlc, set: """
                status = 'saved', title = ?, summary = ?, persona = ?, provider = ?, summarized_at = ?, last_error = NULL, edited_at = NULL
                """, [title, summary, persona, provider, now])
            try replaceTags(db, entryId: entryId, names: tags, hlc: hlc, now: now)
            try keepVersion(db, before, entryId: entryId, by: .companion)
            try Self.addUsage(db, on: usageDay, kind: UsageKind.page, count: 1)
            try Self.reindex(db, entryId: entryId)
        }
    }

    /// Adds to what was used on `day` (tokens a remote companion's answers cost).
    package func addUsage(on day: String, kind: String, count: Int) throws {
        try write { db in try Self.addUsage(db, on: day, kind: kind, count: count) }
    }

    private static func addUsage(_ db: Database, on day: String, kind: String, count: Int) throws {
        try db.cachedStatement(sql: """
            INSERT INTO usage(day, kind, count) VALUES (?, ?, ?)
            ON CONFLICT(day, kind) DO UPDATE SET count = count + excluded.count
            """).execute(arguments: [day, kind, count])
    }

    /// Records why the companion could not answer; the person's message stays stored.
    package func recordError(entryId: String, error: String) throws {
        try write { db in
            let hlc = try tick(db)
            try requireLiveEntry(db, entryId)
            try touch(db, entryId: entryId, hlc: hlc, set: "last_error = ?", [error])
        }
    }

    /// Keeps the chat and marks the page as still to be written (F-005's failure path).
    package func markSummaryFailed(entryId: String, error: String) throws {
        try write { db in
            let hlc = try tick(db)
            try requireLiveEntry(db, entryId)
            try touch(db, entryId: entryId, hlc: hlc, set: "status = CASE status WHEN 'saved' THEN 'saved' ELSE 'summary_failed' END, last_error = ?", [error])
        }
    }

    /// Drops an unsaved entry and everything that hangs off it; returns the media whose
    /// files no other entry uses, for the caller to delete after the commit.
    ///
    /// An entry that never left this device is removed outright (no garbage, F-010);
    /// one that was synced becomes a tombstone so the deletion syncs too.
    package func discard(entryId: String) throws -> [MediaItem] {
        try write { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT moment_key, status, user_id FROM entry WHERE id = ? AND deleted_at IS NULL"),
                                             arguments: [entryId]) else {
                throw StoreError.entryNotFound(entryId)
            }
            if row["status"] as String == EntryStatus.saved.rawValue { throw StoreError.alreadySaved }
            let media = try mediaItems(db, entryIds: [entryId])[entryId] ?? []
            let tagIds = try String.fetchAll(db.cachedStatement(sql: "SELECT tag_id FROM entry_tag WHERE entry_id = ?"), arguments: [entryId])
            try adjustTagCounts(db, tagIds: tagIds, by: -1)
            try db.cachedStatement(sql: "DELETE FROM entry_fts WHERE rowid = ?").execute(arguments: [row["moment_key"] as Int64])
            if (row["user_id"] as String?) == nil {
                let children = try String.fetchAll(db.cachedStatement(sql: """
                    SELECT id FROM message WHERE entry_id = ?1 UNION ALL SELECT id FROM media WHERE entry_id = ?1
                    """), arguments: [entryId])
                try db.cachedStatement(sql: "DELETE FROM outbox WHERE row_id = ? OR row_id LIKE ?").execute(arguments: [entryId, entryId + "/%"])
                for child in children { try db.cachedStatement(sql: "DELETE FROM outbox WHERE row_id = ?").execute(arguments: [child]) }
                try db.cachedStatement(sql: "DELETE FROM entry WHERE id = ?").execute(arguments: [entryId])
            } else {
                let hlc = try tick(db)
                try db.cachedStatement(sql: "UPDATE entry SET deleted_at = ?, hlc = ?, device_id = ? WHERE id = ?")
                    .execute(arguments: [Timestamps.millis(Date()), hlc, deviceId, entryId])
                try db.cachedStatement(sql: "UPDATE media SET deleted_at = ?, hlc = ?, device_id = ? WHERE entry_id = ?")
                    .execute(arguments: [Timestamps.millis(Date()), hlc, deviceId, entryId])
                try enqueue(db, table: .entry, rowId: entryId, op: .delete, hlc: hlc)
            }
            return try media.filter { item in
                try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM media WHERE sha256 = ? AND deleted_at IS NULL"),
                                 arguments: [item.sha256]) == 0
            }
        }
    }

    /// Stores a setting (persona, language, …); settings sync like everything else.
    package func setSetting(_ key: String, _ value: String) throws {
        try write { db in
            let hlc = try tick(db)
            try db.cachedStatement(sql: """
                INSERT INTO setting(key, value, device_id, hlc, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET value = excluded.value, device_id = excluded.device_id, hlc = excluded.hlc,
                    updated_at = excluded.updated_at
                """).execute(arguments: [key, value, deviceId, hlc, Timestamps.millis(Date())])
            try enqueue(db, table: .setting, rowId: key, hlc: hlc)
        }
    }

    func insertMedia(_ db: Database, id: String, entryId: String, position: Int, item: MediaItem, hlc: String) throws {
        let media = EntryRecord.Media(id: id, position: position, clock: RowClock(hlc: hlc, deviceId: deviceId), item: item)
        try db.cachedStatement(sql: Self.newMediaSQL).execute(arguments: Self.itemArguments(media, EntryRecord.mediaFields, entryId: entryId))
    }
    private static let newMediaSQL = itemInsertSQL(table: "media", EntryRecord.mediaFields, .isAnError)

    /// Records a change of the entry's content: its clock (which is now the content's too) and the outbox.
    func touch(_ db: Database, entryId: String, hlc: String, set assignments: String,
                       _ values: [(any DatabaseValueConvertible)?] = []) throws {
        var arguments = StatementArguments(values)
        arguments += [Timestamps.millis(Date()), hlc, deviceId, entryId]
        try db.cachedStatement(sql: """
            UPDATE entry SET \(assignments.isEmpty ? "" : assignments + ", ")updated_at = ?, hlc = ?, device_id = ?,
                field_clocks = CASE WHEN field_clocks IS NULL THEN NULL ELSE json_remove(field_clocks, '$.content') END
            WHERE id = ?
            """).execute(arguments: arguments)
        try enqueue(db, table: .entry, rowId: entryId, hlc: hlc)
    }

    func replaceTags(_ db: Database, entryId: String, names: [String], hlc: String, now: Int64) throws {
        // Stored only in their one spelling, once each, whoever gave them (a model's reply, an
        // import, a script): a name a reader would spell otherwise would not read back the same.
        var tagIds: [String] = []
        for name in names.compactMap(TagName.normalize) {
            let id = try tagId(db, name: name, hlc: hlc, now: now)
            if !tagIds.contains(id) { tagIds.append(id) }
        }
        let previous = Set(try String.fetchAll(db.cachedStatement(sql: "SELECT tag_id FROM entry_tag WHERE entry_id = ?"), arguments: [entryId]))
        let removed = previous.subtracting(tagIds)
        let added = tagIds.filter { !previous.contains($0) }
        for tagId in removed {
            try db.cachedStatement(sql: "DELETE FROM entry_tag WHERE entry_id = ? AND tag_id = ?").execute(arguments: [entryId, tagId])
            try db.cachedStatement(sql: """
                INSERT INTO tag_removal(entry_id, name, device_id, hlc, removed_at) SELECT ?, name, ?, ?, ? FROM tag WHERE id = ?
                ON CONFLICT(entry_id, name) DO UPDATE SET device_id = excluded.device_id, hlc = excluded.hlc,
                    removed_at = excluded.removed_at
                """).execute(arguments: [entryId, deviceId, hlc, now, tagId])
            try enqueue(db, table: .entryTag, rowId: "\(entryId)/\(tagId)", op: .delete, hlc: hlc)
        }
        if !added.isEmpty {
            try db.cachedStatement(sql: """
                DELETE FROM tag_removal WHERE entry_id = ? AND name IN (SELECT name FROM tag WHERE id IN (SELECT value FROM json_each(?)))
                """).execute(arguments: [entryId, JSON.array(added.map(JSON.string)).serialized])
        }
        try adjustTagCounts(db, tagIds: Array(removed), by: -1)
        try adjustTagCounts(db, tagIds: added, by: 1)
        // A tag that stays where it was keeps its clock: tags merge one by one as add/remove
        // sets, and re-stamping an untouched tag would undo another device's removal of it.
        for (position, tagId) in tagIds.enumerated() {
            try db.cachedStatement(sql: """
                INSERT INTO entry_tag(entry_id, tag_id, position, device_id, hlc, created_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(entry_id, tag_id) DO UPDATE SET position = excluded.position, device_id = excluded.device_id,
                    hlc = excluded.hlc
                WHERE position != excluded.position
                """).execute(arguments: [entryId, tagId, position, deviceId, hlc, now])
            if db.changesCount > 0 { try enqueue(db, table: .entryTag, rowId: "\(entryId)/\(tagId)", hlc: hlc) }
        }
        if !tagIds.isEmpty {
            let marks = Array(repeating: "?", count: tagIds.count).joined(separator: ",")
            var arguments: StatementArguments = [now]
            arguments += StatementArguments(tagIds)
            try db.cachedStatement(sql: "UPDATE tag SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id IN (\(marks))").execute(arguments: arguments)
        }
    }

    /// The id of a tag, made (and queued for sync) if no entry has used the name yet.
    func tagId(_ db: Database, name: String, hlc: String, now: Int64) throws -> String {
        if let id = try String.fetchOne(db.cachedStatement(sql: "SELECT id FROM tag WHERE name = ?"), arguments: [name]) { return id }
        let id = UUIDv7.make()
        try db.cachedStatement(sql: "INSERT INTO tag(id, name, device_id, hlc, created_at) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [id, name, deviceId, hlc, now])
        try enqueue(db, table: .tag, rowId: id, hlc: hlc)
        return id
    }

    func insertMessage(_ db: Database, _ message: Message, hlc: String) throws {
        let line = EntryRecord.Line(message: message, clock: RowClock(hlc: hlc, deviceId: deviceId))
        try db.cachedStatement(sql: Self.newMessageSQL).execute(arguments: Self.itemArguments(line, EntryRecord.messageFields, entryId: message.entryId))
    }
    private static let newMessageSQL = itemInsertSQL(table: "message", EntryRecord.messageFields, .isAnError)

    // Counts are kept up to date here so that listing tag tiles never groups every row.
    func adjustTagCounts(_ db: Database, tagIds: [String], by delta: Int) throws {
        for tagId in tagIds {
            try db.cachedStatement(sql: "UPDATE tag SET entry_count = max(0, entry_count + ?) WHERE id = ?").execute(arguments: [delta, tagId])
        }
    }

    /// Rebuilds the entry's full-text row from its current content (the tokenizer cuts it).
    static func reindex(_ db: Database, entryId: String) throws {
        guard let key = try Int64.fetchOne(db.cachedStatement(sql: "SELECT moment_key FROM entry WHERE id = ?"), arguments: [entryId])
        else { return }
        try db.cachedStatement(sql: "DELETE FROM entry_fts WHERE rowid = ?").execute(arguments: [key])
        try insertSearchRow(db, key: key, storedSearchRow(db, entryId: entryId))
    }

    /// The entry's full-text row as its tables hold it now.
    static func storedSearchRow(_ db: Database, entryId: String) throws -> SearchRow {
        let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT title, summary, note, transcript, analysis, context FROM entry WHERE id = ?
            """), arguments: [entryId])
        let tags = try String.fetchAll(db.cachedStatement(sql: """
            SELECT t.name FROM entry_tag et JOIN tag t ON t.id = et.tag_id WHERE et.entry_id = ? ORDER BY et.position
            """), arguments: [entryId]).joined(separator: " ")
        func chat(_ author: Author) throws -> String {
            try String.fetchAll(db.cachedStatement(sql: "SELECT text FROM message WHERE entry_id = ? AND author = ? ORDER BY hlc, seq"),
                                arguments: [entryId, author.rawValue]).joined(separator: "\n")
        }
        return SearchRow(title: row?["title"], summary: row?["summary"], note: row?["note"], transcript: row?["transcript"], tags: tags,
                         personChat: try chat(.person), analysis: row?["analysis"], companionChat: try chat(.companion),
                         place: ContextCoding.decode(row?["context"]).placeNames.joined(separator: "\n"))
    }

    /// The text of one entry's full-text row, column by column.
    struct SearchRow {
        var title: String?, summary: String?, note: String?, transcript: String?, tags: String
        var personChat: String, analysis: String?, companionChat: String
        /// Every name of the place, one a line.
        var place: String
    }

    static func insertSearchRow(_ db: Database, key: Int64, _ row: SearchRow) throws {
        try db.cachedStatement(sql: """
            INSERT INTO entry_fts(rowid, title, summary, note, transcript, tags, person_chat, analysis, companion_chat, place)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [key, row.title ?? "", row.summary ?? "", row.note ?? "", row.transcript ?? "", row.tags,
                                     row.personChat, row.analysis ?? "", withoutQuotes(row.companionChat), row.place])
    }

    /// The companion's words as a page is found by: without what it quoted, 〈…〉 and “…”,
    /// which is the titles of other pages it recalled (and, in English, the person's own
    /// words echoed, indexed already as theirs). A page is found for what it and its talk
    /// say, not for another page's title quoted in a greeting.
    static func withoutQuotes(_ text: String) -> String {
        var kept = ""
        var closing: Character?
        var held = ""
        for character in text {
            if let close = closing {
                held.append(character)
                if character == close {
                    closing = nil
                    held = ""
                } else if character.isNewline {
                    // Unclosed on its line: not a quote, kept as it was.
                    kept += held
                    closing = nil
                    held = ""
                }
            } else if character == "〈" || character == "“" {
                closing = character == "〈" ? "〉" : "”"
                held = String(character)
            } else {
                kept.append(character)
            }
        }
        return kept + held
    }
}

/// The context column holds the context as entry records carry it (`RecordCoding`).
enum ContextCoding {
    static func encode(_ context: EntryContext) -> String {
        RecordCoding.contextJSON(context).serialized
    }

    /// The stored context; an unreadable one reads as no context rather than failing the entry.
    static func decode(_ text: String?) -> EntryContext {
        guard let text, let json = JSON.parse(Data(text.utf8)) else { return EntryContext() }
        return (try? RecordCoding.context(json)) ?? EntryContext()
    }
}
