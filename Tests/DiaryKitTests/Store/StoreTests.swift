import Foundation
import GRDB
import GRDBSQLite
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

@Suite struct StoreTests {
    @Test func migrationsRunInVersionOrderUnderTheNamesEveryDiaryHasRecorded() throws {
        // GRDB records each migration by name in every diary; a renamed file would run again.
        #expect(Schema.migrator.migrations == [
            "v1-entries-messages-tags-outbox", "v2-voice-memos-chat-digest-device-settings", "v3-moment-order-bigram-search",
            "v4-conflicts-thumbnails", "v5-sync-tag-removals-dead-letters-media-transfers", "v6-one-context-shape",
            "v7-star-trash-order-history", "v8-pulled-rejects", "v9-searchable-place-names", "v10-file-attachments",
            "v11-journals-tag-spellings-media-anchors", "v12-live-entry-days-by-id", "v13-reflections", "v14-tag-day-counts",
            "v15-page-vectors", "v16-recalled-titles-unindexed", "v17-reflections-counted-once",
        ])
        #expect(Schema.migrationIdentifier("v03-moment-order-bigram-search.sql") == "v3-moment-order-bigram-search")
        let diary = try TestDiary()
        let applied = try diary.store.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(applied == Schema.migrator.migrations)
    }

    @Test func opensInWALWithTheSchemaAndADeviceId() throws {
        let diary = try TestDiary()
        let mode = try diary.store.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        #expect(UUIDv7.isWellFormed(diary.store.deviceId))
        let again = try DiaryStore.open(diary.store.paths)
        #expect(again.deviceId == diary.store.deviceId, "the device id is stable")
        #expect(try diary.store.integrityCheck())
    }

    @Test func readsLeaveCachedStatementsPrepared() throws {
        let diary = try TestDiary()
        let id = try diary.draft("海邊")
        // How often SQLite had to parse the cached statement again since it was made.
        func runAndCountReprepares() throws -> Int32 {
            try diary.store.read { db in
                let statement = try db.cachedStatement(sql: "SELECT note FROM entry WHERE id = ?")
                #expect(try String.fetchOne(statement, arguments: [id]) == "海邊")
                return sqlite3_stmt_status(statement.sqliteStatement, SQLITE_STMTSTATUS_REPREPARE, 0)
            }
        }
        #expect(try runAndCountReprepares() == 0)
        try diary.store.write { db in try db.execute(sql: "UPDATE entry SET note = note WHERE id = ?", arguments: [id]) }
        // A read that toggled `PRAGMA query_only` expired every statement, and each one of a
        // push's batches then parsed its statements again.
        #expect(try runAndCountReprepares() == 0)
        #expect(try runAndCountReprepares() == 0)
    }

    @Test func temporaryDataStaysInMemory() throws {
        let diary = try TestDiary()
        // 2 = MEMORY: statement journals of a big merge are not written to files in /var/tmp.
        #expect(try diary.store.read { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") } == 2)
    }

    @Test func contextsWrittenFlatByEarlierVersionsAreReadInTheRecordShape() throws {
        let diary = try TestDiary()
        let id = try diary.draft("海邊")
        // As versions before v6 stored it: weather flat beside the place.
        try diary.store.write { db in
            try db.execute(sql: """
                UPDATE entry SET context = '{"place":"基隆","latitude":25.13,"longitude":121.74,"weather_description":"小雨","temperature_c":18.5}'
                WHERE id = ?
                """, arguments: [id])
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v6-one-context-shape'")
        }
        let reopened = try DiaryStore.open(diary.store.paths)
        let stored = try reopened.read { db in try String.fetchOne(db, sql: "SELECT context FROM entry WHERE id = ?", arguments: [id]) }
        let json = try #require(stored.flatMap { JSON.parse(Data($0.utf8)) })
        #expect(json == RecordCoding.contextJSON(EntryContext(place: "基隆", latitude: 25.13, longitude: 121.74,
                                                              weatherDescription: "小雨", temperatureC: 18.5)))
        let context = try reopened.entry(id: id).context
        #expect(context.place == "基隆" && context.weatherDescription == "小雨" && context.temperatureC == 18.5)
        // Written now, the column has the record's shape too.
        try reopened.setContext(entryId: id, context: EntryContext(place: "台北"))
        let rewritten = try reopened.read { db in try String.fetchOne(db, sql: "SELECT context FROM entry WHERE id = ?", arguments: [id]) }
        #expect(rewritten.flatMap { JSON.parse(Data($0.utf8)) } == RecordCoding.contextJSON(EntryContext(place: "台北")))
    }

    /// The media table is rebuilt to allow files (PDFs); what it held comes through whole.
    @Test func theMediaTableRebuiltForFilesKeepsEveryRow() throws {
        let diary = try TestDiary()
        let photo = MediaItem(kind: .photo, sha256: String(repeating: "a", count: 64), mime: "image/jpeg", fileExtension: "jpg", bytes: 3,
                              width: 4, height: 3, takenAt: Date(timeIntervalSince1970: 1_800_000_000))
        _ = try diary.draft("有照片", media: [photo])
        try diary.store.write { db in try db.execute(sql: "UPDATE media SET thumbnail = ?", arguments: [String(repeating: "b", count: 64)]) }
        // Back to a diary from before v10 (and v11, which came after it).
        try diary.store.write { db in
            try db.execute(sql: """
                ALTER TABLE media DROP COLUMN anchor; ALTER TABLE entry DROP COLUMN journal; ALTER TABLE entry_tag DROP COLUMN label;
                DELETE FROM grdb_migrations WHERE identifier IN ('v10-file-attachments', 'v11-journals-tag-spellings-media-anchors');
                """)
        }
        let before = try diary.store.read { db in try Row.fetchAll(db, sql: "SELECT *, NULL AS anchor FROM media ORDER BY id") }
        let reopened = try DiaryStore.open(diary.store.paths)
        #expect(try reopened.read { db in try Row.fetchAll(db, sql: "SELECT * FROM media ORDER BY id") } == before)
        let pdf = MediaItem(kind: .file, sha256: String(repeating: "c", count: 64), mime: "application/pdf", fileExtension: "pdf", bytes: 9)
        let withFile = try reopened.createEntry(NewEntry(occurredAt: Date(), timeZone: TimeZone(identifier: "Asia/Taipei")!, note: "車票",
                                                        persona: "warm", media: [pdf]))
        #expect(try reopened.entry(id: withFile).media == [pdf])
    }

    @Test func anUpgradeTakesRecalledTitlesOutOfTheIndex() throws {
        let diary = try TestDiary()
        let film = try diary.page("看了一部電影", tags: [])
        try diary.store.appendMessage(entryId: film, author: .companion, text: "你也寫過〈東京的咖啡〉。", persona: "warm", provider: "offline")
        // As a diary from before v16 indexed it: the quote with the companion's words.
        try diary.store.write { db in
            let key = try Int64.fetchOne(db, sql: "SELECT moment_key FROM entry WHERE id = ?", arguments: [film])!
            try db.execute(sql: "UPDATE entry_fts SET companion_chat = ? WHERE rowid = ?", arguments: ["你也寫過〈東京的咖啡〉。", key])
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v16-recalled-titles-unindexed'")
        }
        func matches(_ store: DiaryStore) throws -> Int {
            try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry_fts WHERE companion_chat LIKE '%東京%'") ?? -1 }
        }
        #expect(try matches(diary.store) == 1)
        let reopened = try DiaryStore.open(diary.store.paths)
        #expect(try matches(reopened) == 0)
        #expect(try reopened.searchIndexIsConsistent())
    }

    @Test func everyChangeIsStampedAndQueuedInItsTransaction() throws {
        let diary = try TestDiary()
        let id = try diary.draft("今天")
        let hlc1 = try diary.store.read { db in try String.fetchOne(db, sql: "SELECT hlc FROM entry WHERE id = ?", arguments: [id]) }
        try diary.store.appendMessage(entryId: id, author: .person, text: "嗨", persona: "warm", provider: nil)
        let row = try diary.store.read { db in try Row.fetchOne(db, sql: "SELECT hlc, status, device_id, user_id FROM entry WHERE id = ?", arguments: [id]) }!
        #expect((row["hlc"] as String) > hlc1!)
        #expect(row["status"] as String == "chatting")
        #expect(row["device_id"] as String == diary.store.deviceId)
        #expect((row["user_id"] as String?) == nil)
        let queued = try diary.store.read { db in try String.fetchAll(db, sql: "SELECT table_name FROM outbox ORDER BY seq") }
        #expect(queued.sorted() == ["entry", "message"], "one outbox row per changed row, coalesced")
    }

    @Test func savingAPageKeepsTagCountsAndRecency() throws {
        let diary = try TestDiary()
        let a = try diary.page("海邊", tags: ["旅行", "海邊"])
        _ = try diary.page("山上", tags: ["旅行", "爬山"])
        var uses = try diary.store.tags.uses()
        #expect(uses.first { $0.name == "旅行" }?.count == 2)
        #expect(uses.first?.name == "旅行" || uses.first?.name == "爬山", "most recently used first")
        // Saving again with other tags moves the counts.
        try diary.store.savePage(entryId: a, title: "t", summary: "s", tags: ["海邊", "放鬆"], persona: "warm",
                                 provider: "offline", usageDay: "2026-11-21")
        uses = try diary.store.tags.uses()
        #expect(uses.first { $0.name == "旅行" }?.count == 1)
        #expect(uses.first { $0.name == "放鬆" }?.count == 1)
        #expect(try diary.store.entry(id: a).tags == ["海邊", "放鬆"])
        #expect(try diary.store.pagesWritten(on: "2026-11-21") == 3)
    }

    @Test func prefixesResolveUniquely() throws {
        let diary = try TestDiary()
        let id = try diary.draft("x")
        #expect(try diary.store.resolve(reference: String(id.prefix(20))) == id)
        #expect(try diary.store.resolve(reference: id.uppercased()) == id)
        #expect(throws: StoreError.entryNotFound("zz")) { try diary.store.resolve(reference: "zz") }
        _ = try diary.draft("y")
        #expect(throws: StoreError.ambiguous("0")) { try diary.store.resolve(reference: "0") }
    }

    @Test func discardLeavesNoRowsAndReportsOrphanedMedia() throws {
        let diary = try TestDiary()
        let shared = MediaItem(kind: .photo, sha256: String(repeating: "a", count: 64), mime: "image/jpeg", fileExtension: "jpg", bytes: 1)
        let only = MediaItem(kind: .photo, sha256: String(repeating: "b", count: 64), mime: "image/png", fileExtension: "png", bytes: 1)
        let keep = try diary.draft("keep", media: [shared])
        let drop = try diary.draft("drop", media: [shared, only])
        try diary.store.appendMessage(entryId: drop, author: .person, text: "x", persona: "warm", provider: nil)
        let orphans = try diary.store.discard(entryId: drop)
        #expect(orphans.map(\.sha256) == [only.sha256], "the shared file is still used by another entry")
        let counts = try diary.store.read { db in
            try Int.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM entry) + (SELECT count(*) FROM message) + (SELECT count(*) FROM media)
                     + (SELECT count(*) FROM entry_fts) + (SELECT count(*) FROM outbox WHERE row_id NOT IN (SELECT id FROM entry) AND row_id NOT IN (SELECT id FROM media))
                """)
        }
        #expect(counts == 1 + 0 + 1 + 1 + 0)
        #expect(try diary.store.entry(id: keep).media == [shared])
        _ = try diary.store.savePage(entryId: keep, title: "t", summary: "s", tags: ["a", "b", "c"], persona: "warm", provider: "offline", usageDay: "d")
        #expect(throws: StoreError.alreadySaved) { _ = try diary.store.discard(entryId: keep) }
    }

    @Test func aNewerDatabaseIsRefusedUntouched() throws {
        let diary = try TestDiary()
        try diary.store.write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v2-from-the-future')") }
        let before = try Data(contentsOf: diary.store.paths.database)
        #expect(throws: StoreError.newerVersion) { try DiaryStore.open(diary.store.paths) }
        #expect(try Data(contentsOf: diary.store.paths.database) == before)
    }

    @Test func theLiveEntryCountFollowsInsertsDiscardsAndTombstones() throws {
        let diary = try TestDiary()
        #expect(try diary.store.isEmpty())
        let kept = try diary.draft("留下")
        let dropped = try diary.draft("丟掉")
        let synced = try diary.draft("同步過")
        #expect(try diary.store.liveEntryCount() == 3)
        _ = try diary.store.discard(entryId: dropped)
        #expect(try diary.store.liveEntryCount() == 2, "a draft that never left the device is deleted")
        try diary.store.write { db in try db.execute(sql: "UPDATE entry SET user_id = 'u' WHERE id = ?", arguments: [synced]) }
        _ = try diary.store.discard(entryId: synced)
        #expect(try diary.store.liveEntryCount() == 1, "a synced one becomes a tombstone")
        try diary.store.write { db in try db.execute(sql: "UPDATE entry SET deleted_at = NULL WHERE id = ?", arguments: [synced]) }
        #expect(try diary.store.liveEntryCount() == 2, "a tombstone brought back counts again")
        #expect(try diary.store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry WHERE deleted_at IS NULL") } == 2)
        #expect(kept.isEmpty == false)
    }

    @Test func importedEntriesAreFoundCountedAndQueued() throws {
        let diary = try TestDiary()
        let zone = TimeZone(identifier: "Asia/Taipei")!
        let at = moment("2024-05-01 10:00")
        let ids = try diary.store.importEntries([
            ImportedEntry(occurredAt: at, timeZone: zone, note: "去海邊", persona: "warm", provider: "offline", title: "海邊",
                          summary: "很開心", tags: ["旅行", "＂旅行 ＂", "海邊"],
                          messages: [.init(author: .person, text: "風很大", createdAt: at),
                                     .init(author: .companion, text: "要不要喝咖啡？", createdAt: at)]),
            ImportedEntry(occurredAt: at, timeZone: zone, note: "草稿", persona: "warm", title: nil, summary: nil, tags: [], messages: []),
        ])
        #expect(ids.count == 2)
        let first = try diary.store.entry(id: ids[0], includeMessages: true)
        #expect(first.status == .saved)
        #expect(first.tags == ["旅行", "海邊"], "names normalised and kept once")
        #expect(first.messages?.map(\.author) == [.person, .companion])
        #expect(try diary.store.entry(id: ids[1]).status == .draft)
        #expect(try diary.store.tags.uses().first { $0.name == "旅行" }?.count == 1)
        #expect(try diary.store.searchIndexIsConsistent())
        var filter = EntryFilter()
        filter.words = Finder.words("咖啡")
        #expect(try SearchEngine(store: diary.store).count(filter) == 1, "the companion's words are indexed too")
        #expect(try diary.store.pendingChangeCount() == 8, "2 entries, 2 messages, 2 tags and 2 tag links wait for sync")
        let keys = try diary.store.read { db in try Int64.fetchAll(db, sql: "SELECT moment_key FROM entry ORDER BY moment_key") }
        #expect(keys == [MomentKey.lowest(at: Timestamps.millis(at)), MomentKey.lowest(at: Timestamps.millis(at)) + 1],
                "two entries of one moment get neighbouring keys")
    }

    @Test func entriesSharingOneMillisecondCostNoMoreThanDistinctOnes() throws {
        // Counted in SQL statements, not seconds: a probe per taken key made 5,000 entries
        // at one instant quadratic (the spill past 4,096 keys probed one key at a time).
        func statements(_ instants: (Int) -> Date) throws -> (Int, [Int64]) {
            let diary = try TestDiary()
            let counter = StatementCounter()
            try diary.store.database.inDatabase { db in db.trace { _ in counter.add() } }
            let zone = TimeZone(identifier: "UTC")!
            try diary.store.importEntries((0..<5_000).map {
                ImportedEntry(occurredAt: instants($0), timeZone: zone, note: "第 \($0) 篇", persona: "warm", title: nil, summary: nil,
                              tags: [], messages: [])
            })
            let keys = try diary.store.read { db in try Int64.fetchAll(db, sql: "SELECT moment_key FROM entry ORDER BY moment_key") }
            return (counter.count, keys)
        }
        let instant = moment("2024-05-01 10:00")
        let (distinct, _) = try statements { instant.addingTimeInterval(Double($0)) }
        let (shared, keys) = try statements { _ in instant }
        #expect(shared <= distinct + 5_000, "at most one more statement per entry: \(shared) against \(distinct)")
        #expect(Set(keys).count == 5_000 && keys.first == MomentKey.lowest(at: Timestamps.millis(instant)))
    }

    @Test func theFullTextRowFollowsEveryChange() throws {
        let diary = try TestDiary()
        let id = try diary.draft("今天去海邊")
        func hits(_ words: String) throws -> Int {
            var filter = EntryFilter()
            filter.words = Finder.words(words)
            return try SearchEngine(store: diary.store).count(filter)
        }
        #expect(try hits("海邊") == 1)
        #expect(try hits("咖啡") == 0)
        try diary.store.appendMessage(entryId: id, author: .person, text: "喝了一杯咖啡", persona: "warm", provider: nil)
        #expect(try hits("咖啡") == 1)
        try diary.store.savePage(entryId: id, title: "海風", summary: "很舒服", tags: ["旅行", "放鬆", "海邊"], persona: "warm", provider: "offline", usageDay: "d")
        #expect(try hits("舒服") == 1)
        #expect(try hits("旅行") == 1, "tags are searchable")
        let count = try diary.store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry_fts") }
        #expect(count == 1, "one index row per entry, however often it changes")
    }

    @Test func twoConnectionsWriteWithoutLosingEither() async throws {
        let diary = try TestDiary()
        let id = try diary.draft("並行")
        let other = try DiaryStore.open(diary.store.paths)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, store) in [("a", diary.store), ("b", other)] {
                group.addTask {
                    for index in 0..<25 {
                        try store.appendMessage(entryId: id, author: .person, text: "\(name)\(index)", persona: "warm", provider: nil)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try diary.store.messages(entryId: id).count == 50)
        let hlcs = try diary.store.read { db in try String.fetchAll(db, sql: "SELECT hlc FROM message") }
        #expect(Set(hlcs).count == 50, "every change has its own clock reading")
    }
}

/// Counts the statements a connection runs (GRDB's trace hook).
final class StatementCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0
    var count: Int { lock.withLock { total } }
    func add() { lock.withLock { total += 1 } }
}
