import Foundation
import GRDB

/// One queued change: the whole current record of an entry (fields, media rows, messages,
/// tags with their removals) or one setting, and the outbox rows it settles. Sync decides
/// how it travels (`OutgoingChange` in DiarySync).
package struct QueuedChange: Sendable {
    package enum Record: Sendable {
        case entry(EntryRecord)
        case setting(SettingRecord)
    }

    package var record: Record
    /// The outbox rows this change settles.
    package var outboxSeqs: [Int64]
    /// The entry the change belongs to (nil for a setting).
    package var entryId: String?
}

/// A media file to send or fetch.
package struct MediaTransfer: Sendable, Equatable {
    package var sha256: String
    package var entryId: String
    package var fileExtension: String
    package var bytes: Int64
    /// The type the media row records for these bytes.
    package var mime = "application/octet-stream"

    package init(sha256: String, entryId: String, fileExtension: String, bytes: Int64, mime: String = "application/octet-stream") {
        self.sha256 = sha256
        self.entryId = entryId
        self.fileExtension = fileExtension
        self.bytes = bytes
        self.mime = mime
    }
}

/// An outbox row the server refused for good, kept and shown.
package struct DeadLetter: Sendable, Equatable {
    package var table: String
    package var rowId: String
    package var error: String
    package var failedAt: Date
}

/// What `diary-sync status` shows about this device's side of sync.
package struct SyncLedgerState: Sendable {
    package var pending: Int
    package var deadLetters: [DeadLetter]
    package var conflicts: Int
    /// Pulled records this build could not read, kept aside.
    package var rejected: Int
    package var mediaToSend: Int
    package var mediaToFetch: Int
    package var lastSyncAt: Date?
    package var lastError: String?
    package var cursor: Int64
}

/// The local half of sync, over the store's one writer: the outbox read as whole records,
/// the server's answers written back, pulled records merged together with the cursor, media
/// transfers remembered, the account this diary syncs with (`store.ledger`).
package struct SyncLedger: Sendable {
    let store: DiaryStore
}

extension DiaryStore {
    /// The outbox and everything else sync keeps on this device.
    package var ledger: SyncLedger { SyncLedger(store: self) }
}

extension SyncLedger {
    /// Walks the queue in order, one change per entry or setting, handing each to `take`
    /// until it answers false. Rows waiting out a backoff are left out when `dueOnly`, and
    /// the rows in `excluding` always.
    package func queuedChanges(dueOnly: Bool, excluding: Set<Int64> = [], now: Date = Date(),
                               take: (QueuedChange) throws -> Bool) throws {
        try store.read { db in
            var seen: Set<String> = []
            var after: Int64 = 0
            while true {
                // A message or media row belongs to its entry, looked up here in the same pass.
                let rows = try db.cachedStatement(sql: """
                    SELECT o.seq, o.table_name, o.row_id,
                           CASE o.table_name WHEN 'message' THEN (SELECT entry_id FROM message WHERE id = o.row_id)
                                             WHEN 'media' THEN (SELECT entry_id FROM media WHERE id = o.row_id) END
                    FROM outbox o
                    WHERE o.dead_at IS NULL AND o.seq > ? AND (? = 0 OR o.next_attempt_at IS NULL OR o.next_attempt_at <= ?)
                    ORDER BY o.seq LIMIT 500
                    """).decodeAll([after, dueOnly ? 1 : 0, Timestamps.millis(now)]) { row in
                    (seq: row[0] as Int64, table: row[1] as String, rowId: row[2] as String, owner: row[3] as String?)
                }
                if rows.isEmpty { return }
                for row in rows {
                    after = row.seq
                    guard !excluding.contains(after), let unit = Self.unit(table: row.table, rowId: row.rowId, owner: row.owner),
                          seen.insert(unit.name).inserted,
                          let record = try unit.record(db) else { continue }
                    let change = QueuedChange(record: record, outboxSeqs: try unit.outboxSeqs(db), entryId: unit.entryId)
                    guard try take(change) else { return }
                }
            }
        }
    }

    /// Records the server's answers in one transaction: accepted changes leave the queue
    /// (their entries are now known to the server), refused ones become dead letters.
    package func settle(accepted: [QueuedChange], refused: [(QueuedChange, String)], userId: String, now: Date = Date()) throws {
        try store.write { db in
            // Tag rows carry nothing the server keeps (tags travel by name with their links).
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE table_name = 'tag'").execute()
            for change in accepted {
                try Self.deleteOutbox(db, seqs: change.outboxSeqs)
                guard let entryId = change.entryId else { continue }
                try db.cachedStatement(sql: "UPDATE entry SET user_id = ? WHERE id = ? AND user_id IS NULL").execute(arguments: [userId, entryId])
                try db.cachedStatement(sql: """
                    INSERT INTO media_transfer(sha256, direction, entry_id, ext, bytes)
                    SELECT sha256, 'up', entry_id, ext, bytes FROM media
                    WHERE entry_id = ? AND deleted_at IS NULL AND sha256 NOT IN (SELECT sha256 FROM media_on_server)
                    ON CONFLICT DO NOTHING
                    """).execute(arguments: [entryId])
            }
            for (change, error) in refused {
                try db.cachedStatement(sql: """
                    UPDATE outbox SET dead_at = ?, attempts = attempts + 1, last_error = ? WHERE seq IN (SELECT value FROM json_each(?))
                    """).execute(arguments: [Timestamps.millis(now), error, Self.jsonList(change.outboxSeqs)])
            }
        }
    }

    /// Leaves changes queued after a failure that may pass (offline, server restarting): one
    /// more attempt counted on each row, the next one after `pause(attempts so far)`.
    package func postpone(_ changes: [QueuedChange], error: String, pause: (Int) -> TimeInterval, now: Date = Date()) throws {
        try store.write { db in
            for change in changes {
                let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT seq, attempts FROM outbox WHERE seq IN (SELECT value FROM json_each(?))"),
                                            arguments: [Self.jsonList(change.outboxSeqs)])
                for row in rows {
                    let next = now.addingTimeInterval(pause(row["attempts"]))
                    try db.cachedStatement(sql: "UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE seq = ?")
                        .execute(arguments: [error, Timestamps.millis(next), row["seq"] as Int64])
                }
            }
        }
    }

    /// Puts dead letters back in the queue (after the cause was fixed); returns how many.
    package func requeueDeadLetters() throws -> Int {
        try store.write { db in
            try db.cachedStatement(sql: "UPDATE outbox SET dead_at = NULL, next_attempt_at = NULL WHERE dead_at IS NOT NULL").execute()
            return db.changesCount
        }
    }

    /// The last server sequence number merged here.
    package func pullCursor() throws -> Int64 {
        try store.read { db in Int64(try DiaryStore.syncState(db, "pull_cursor") ?? "0") ?? 0 }
    }

    /// Merges pulled records and moves the cursor in one transaction, so a crash either
    /// keeps both or neither. Media whose bytes are not here yet are queued to fetch.
    package func applyPulled(_ batch: MergeBatch, settings: [SettingRecord], rejects: [(record: String, problem: String)] = [],
                             cursor: Int64, userId: String) throws -> MergeReport {
        try store.write { db in
            let report = try store.mergeFromServer(db, batch: batch, settings: settings, userId: userId)
            for reject in rejects {
                try db.cachedStatement(sql: "INSERT INTO pulled_reject(record, problem, received_at) VALUES (?, ?, ?)")
                    .execute(arguments: [reject.record, reject.problem, Timestamps.millis(Date())])
            }
            let media = ContentAddressedFolder(store.paths.media)
            for record in batch.records {
                for item in record.liveMedia.map(\.item) {
                    try db.cachedStatement(sql: "INSERT INTO media_on_server(sha256) VALUES (?) ON CONFLICT DO NOTHING").execute(arguments: [item.sha256])
                    if media.holds(sha256: item.sha256, fileExtension: item.fileExtension, bytes: item.bytes) { continue }
                    try db.cachedStatement(sql: """
                        INSERT INTO media_transfer(sha256, direction, entry_id, ext, bytes) VALUES (?, 'down', ?, ?, ?) ON CONFLICT DO NOTHING
                        """).execute(arguments: [item.sha256, record.id, item.fileExtension, item.bytes])
                }
            }
            try DiaryStore.setSyncState(db, "pull_cursor", String(cursor))
            return report
        }
    }

    /// Media still to send (`up`) or fetch (`down`), fewest attempts first.
    package func mediaTransfers(_ direction: String) throws -> [MediaTransfer] {
        try store.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT t.sha256, t.entry_id, t.ext, t.bytes, (SELECT m.mime FROM media m WHERE m.sha256 = t.sha256 LIMIT 1) AS mime
                FROM media_transfer t WHERE t.direction = ? ORDER BY t.attempts, t.sha256
                """), arguments: [direction]).map {
                MediaTransfer(sha256: $0["sha256"], entryId: $0["entry_id"], fileExtension: $0["ext"], bytes: $0["bytes"],
                              mime: $0["mime"] ?? "application/octet-stream")
            }
        }
    }

    /// Queues every live file this device holds to be sent again, whatever the server held
    /// before (a diary being sealed: each goes up sealed); returns how many.
    package func queueHeldMediaToSend() throws -> Int {
        let folder = ContentAddressedFolder(store.paths.media)
        return try store.write { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT sha256, min(entry_id) AS entry_id, min(ext) AS ext, max(bytes) AS bytes FROM media
                WHERE deleted_at IS NULL GROUP BY sha256
                """))
            var queued = 0
            for row in rows where folder.holds(sha256: row["sha256"], fileExtension: row["ext"], bytes: row["bytes"]) {
                try db.cachedStatement(sql: """
                    INSERT INTO media_transfer(sha256, direction, entry_id, ext, bytes) VALUES (?, 'up', ?, ?, ?) ON CONFLICT DO NOTHING
                    """).execute(arguments: [row["sha256"] as String, row["entry_id"] as String, row["ext"] as String, row["bytes"] as Int64])
                queued += 1
            }
            return queued
        }
    }

    /// A transfer done: the server holds these bytes (and, fetched, so does this device).
    package func finishTransfer(sha256: String, direction: String) throws {
        try store.write { db in
            try db.cachedStatement(sql: "DELETE FROM media_transfer WHERE sha256 = ? AND direction = ?").execute(arguments: [sha256, direction])
            try db.cachedStatement(sql: "INSERT INTO media_on_server(sha256) VALUES (?) ON CONFLICT DO NOTHING").execute(arguments: [sha256])
        }
    }

    /// A transfer that did not finish; it is tried again on the next sync.
    package func failTransfer(sha256: String, direction: String, error: String) throws {
        try store.write { db in
            try db.cachedStatement(sql: """
                UPDATE media_transfer SET attempts = attempts + 1, last_error = ? WHERE sha256 = ? AND direction = ?
                """).execute(arguments: [error, sha256, direction])
        }
    }

    /// Notes how a sync ended (nil: it succeeded, now).
    package func recordSyncOutcome(error: String?, now: Date = Date()) throws {
        try store.write { db in
            if let error {
                try DiaryStore.setSyncState(db, "last_error", error)
            } else {
                try db.cachedStatement(sql: "DELETE FROM sync_state WHERE key = 'last_error'").execute()
                try DiaryStore.setSyncState(db, "last_sync_at", String(Timestamps.millis(now)))
            }
        }
    }

    /// The user this diary syncs with, once it has synced.
    package func syncedUser() throws -> String? { try store.read { db in try DiaryStore.syncState(db, "user_id") } }

    /// Ties the diary to a server account; a different account than before starts the
    /// cursor and the server's media list afresh.
    package func bindSyncUser(_ userId: String) throws {
        try store.write { db in
            if try DiaryStore.syncState(db, "user_id") == userId { return }
            try DiaryStore.setSyncState(db, "user_id", userId)
            try DiaryStore.setSyncState(db, "pull_cursor", "0")
            try db.cachedStatement(sql: "DELETE FROM media_on_server").execute()
        }
    }

    /// Forgets the server's state: cursor, transfers, errors. The account the diary synced
    /// with stays bound (only wiping the diary frees it), so a later login to another
    /// account cannot mix two people's pages; the outbox stays too, to send on next login.
    package func unbindSyncUser() throws {
        try store.write { db in
            try db.cachedStatement(sql: "DELETE FROM sync_state WHERE key IN ('pull_cursor', 'last_error', 'last_sync_at')").execute()
            try db.cachedStatement(sql: "DELETE FROM device_setting WHERE key IN (?, ?)").execute(arguments: [SyncLedger.serverGatewayKey, SyncLedger.serverPremiumKey])
            try db.cachedStatement(sql: "DELETE FROM media_on_server").execute()
            try db.cachedStatement(sql: "DELETE FROM media_transfer").execute()
        }
    }

    /// Caches what a pull says of the server's companion choices in one transaction: the
    /// provider chosen on the server (D-011), where `diary-chat` reads it and which is not
    /// queued back up; the operator's gateway (F-015) and the person's premium (F-024), as
    /// settings of this device, since they belong to the login, not the diary. Each is
    /// written only when it changed.
    package func cacheServerConfig(provider: String?, gateway: String?, premium: Bool) throws {
        try store.write { db in
            let stored = try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM setting WHERE key = 'companion.provider'"))
            if provider == nil, stored != nil {
                try db.cachedStatement(sql: "DELETE FROM setting WHERE key = 'companion.provider'").execute()
            } else if let provider, stored != provider {
                let hlc = try store.tick(db)
                try db.cachedStatement(sql: """
                    INSERT INTO setting(key, value, device_id, hlc, updated_at) VALUES ('companion.provider', ?, ?, ?, ?)
                    ON CONFLICT(key) DO UPDATE SET value = excluded.value, hlc = excluded.hlc, updated_at = excluded.updated_at
                    """).execute(arguments: [provider, store.deviceId, hlc, Timestamps.millis(Date())])
            }
            for (key, value) in [SyncLedger.serverGatewayKey: gateway, SyncLedger.serverPremiumKey: premium ? "true" : nil] {
                let stored = try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM device_setting WHERE key = ?"), arguments: [key])
                guard stored != value else { continue }
                if let value {
                    try db.cachedStatement(sql: "INSERT INTO device_setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
                        .execute(arguments: [key, value])
                } else {
                    try db.cachedStatement(sql: "DELETE FROM device_setting WHERE key = ?").execute(arguments: [key])
                }
            }
        }
    }

    /// The device settings that hold the gateway's JSON (`url`, `model`) and `true` for premium.
    package static let serverGatewayKey = "server.gateway"
    package static let serverPremiumKey = "server.premium"

    /// The outbox, dead letters, transfers and the last sync, for `status`.
    package func state() throws -> SyncLedgerState {
        try store.read { db in
            let dead = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT table_name, row_id, last_error, dead_at FROM outbox WHERE dead_at IS NOT NULL ORDER BY seq
                """)).map { DeadLetter(table: $0["table_name"], rowId: $0["row_id"], error: $0["last_error"] ?? "",
                                       failedAt: Timestamps.date(millis: $0["dead_at"])) }
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db.cachedStatement(sql: sql)) ?? 0 }
            return SyncLedgerState(
                pending: try count("SELECT count(*) FROM outbox WHERE dead_at IS NULL AND table_name != 'tag'"),
                deadLetters: dead,
                conflicts: try count("SELECT count(*) FROM conflict"),
                rejected: try count("SELECT count(*) FROM pulled_reject"),
                mediaToSend: try count("SELECT count(*) FROM media_transfer WHERE direction = 'up'"),
                mediaToFetch: try count("SELECT count(*) FROM media_transfer WHERE direction = 'down'"),
                lastSyncAt: try DiaryStore.syncState(db, "last_sync_at").flatMap(Int64.init).map(Timestamps.date(millis:)),
                lastError: try DiaryStore.syncState(db, "last_error"),
                cursor: Int64(try DiaryStore.syncState(db, "pull_cursor") ?? "0") ?? 0)
        }
    }

    /// Removes every entry, message, tag, setting and media row and the outbox: the local
    /// diary emptied after `logout --wipe-local` (files are the caller's to remove). The
    /// device gets a new id on next open: the server must not take it for the device that
    /// already holds everything it pushed.
    package func wipeAll() throws {
        try store.write { db in
            try db.execute(sql: """
                DELETE FROM entry_fts; DELETE FROM entry_tag; DELETE FROM tag_removal; DELETE FROM message; DELETE FROM media;
                DELETE FROM entry; DELETE FROM tag; DELETE FROM setting; DELETE FROM usage; DELETE FROM conflict;
                DELETE FROM outbox; DELETE FROM media_transfer; DELETE FROM media_on_server; DELETE FROM pulled_reject;
                DELETE FROM sync_state WHERE key != 'hlc'; DELETE FROM tag_day;
                """)
        }
    }

    // MARK: - Helpers

    /// What an outbox row belongs to: an entry's record or a setting.
    private struct Unit {
        var name: String
        var entryId: String?
        var settingKey: String?

        func record(_ db: Database) throws -> QueuedChange.Record? {
            if let entryId { return try DiaryStore.record(db, id: entryId).map(QueuedChange.Record.entry) }
            guard let settingKey, let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM setting WHERE key = ?"),
                                                           arguments: [settingKey]) else { return nil }
            return .setting(SettingRecord(key: settingKey, value: row["value"], updatedAt: Timestamps.date(millis: row["updated_at"]),
                                          clock: RowClock(hlc: row["hlc"], deviceId: row["device_id"])))
        }

        func outboxSeqs(_ db: Database) throws -> [Int64] {
            if let settingKey {
                return try Int64.fetchAll(db.cachedStatement(sql: "SELECT seq FROM outbox WHERE table_name = 'setting' AND row_id = ?"),
                                          arguments: [settingKey])
            }
            return try Int64.fetchAll(db.cachedStatement(sql: """
                SELECT seq FROM outbox WHERE table_name = 'entry' AND row_id = ?1
                UNION ALL SELECT seq FROM outbox WHERE table_name = 'entry_tag' AND row_id >= ?1 || '/' AND row_id < ?1 || '0'
                UNION ALL SELECT seq FROM outbox WHERE table_name = 'media' AND row_id IN (SELECT id FROM media WHERE entry_id = ?1)
                UNION ALL SELECT seq FROM outbox WHERE table_name = 'message' AND row_id IN (SELECT id FROM message WHERE entry_id = ?1)
                """), arguments: [entryId])
        }
    }

    /// `owner`: the entry of a message or media row (nil when the row is gone).
    private static func unit(table: String, rowId: String, owner: String?) -> Unit? {
        switch table {
        case "entry": return Unit(name: "entry:" + rowId, entryId: rowId)
        case "entry_tag":
            // "entry id/tag id": cut at the byte, not by characters (every link of a push passes here).
            let entryId = rowId.utf8.firstIndex(of: UInt8(ascii: "/")).map { String(rowId[..<$0]) } ?? rowId
            return Unit(name: "entry:" + entryId, entryId: entryId)
        case "media", "message": return owner.map { Unit(name: "entry:" + $0, entryId: $0) }
        case "setting": return Unit(name: "setting:" + rowId, settingKey: rowId)
        default: return nil
        }
    }

    private static func deleteOutbox(_ db: Database, seqs: [Int64]) throws {
        try db.cachedStatement(sql: "DELETE FROM outbox WHERE seq IN (SELECT value FROM json_each(?))").execute(arguments: [jsonList(seqs)])
    }

    private static func jsonList(_ seqs: [Int64]) -> String { JSON.array(seqs.map(JSON.int)).serialized }

}

extension DiaryStore {
    /// Changes whenever another process commits to the diary (SQLite's `data_version`):
    /// how `watch` notices a page written in another terminal.
    package func externalChangeMark() throws -> Int {
        try read { db in try Int.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0 }
    }
}
