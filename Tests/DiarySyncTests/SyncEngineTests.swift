@testable import DiaryKit
@testable import DiarySync
@testable import SyncSession
import Foundation
import GRDB
import NIOCore
import Synchronization
import Testing
@testable import DiaryTestSupport

/// The sync engine against a real Postgres (the test script's throwaway cluster): devices
/// are real SQLite diaries, the server is the project's own SQL.
@Suite(.enabled(if: postgresAvailable), .serialized)
struct SyncEngineTests {
    @Test func twoDevicesEditingOfflineConvergeInEitherOrder() async throws {
        for order in [[0, 1], [1, 0]] {
            let server = try await TestServer.make()
            let alice = try await server.addPerson()
            let devices = [try TestDevice(alice), try TestDevice(alice)]
            let beach = try devices[0].diary.page("海邊的風", tags: ["旅行", "海"])
            let draft = try devices[0].diary.draft("還沒寫完")
            _ = try devices[0].store.appendMessage(entryId: draft, author: .person, text: "今天好累", persona: "warm", provider: nil)
            let hill = try devices[1].diary.page("山上的雲", tags: ["爬山"])
            try devices[1].store.setSetting("persona", "fun")

            for index in order { try await devices[index].sync() }
            for index in order { try await devices[index].sync() }

            let first = try devices[0].everything(), second = try devices[1].everything()
            #expect(first.count == 3)
            #expect(first == second)
            #expect(try devices[0].store.setting("persona") == "fun")
            for device in devices {
                #expect(try device.store.entryRecords(ids: [beach])[0].tags == ["旅行", "海"])
                #expect(try device.store.entryRecords(ids: [hill])[0].tags == ["爬山"])
                #expect(try device.store.ledger.state().pending == 0)
                #expect(try device.store.searchIndexIsConsistent())
                #expect(try device.store.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT coalesce(user_id, '-') FROM entry") }
                        == [alice.userId], "pages pushed and pulled alike belong to the person")
            }
            // Nothing left to do: a second round moves nothing either way.
            #expect(try await devices[0].sync().isEmpty)
        }
    }

    @Test(arguments: [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    func threeDevicesEditingOfflineConvergeInEveryReconnectionOrder(order: [Int]) async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let devices = [try TestDevice(alice), try TestDevice(alice), try TestDevice(alice)]
        let shared = try devices[0].diary.page("三個人都看過", tags: ["共享", "舊"])
        for device in devices { try await device.sync() }
        // Offline: A retags, B chats and deletes nothing, C writes a new page and a setting.
        try devices[0].store.savePage(entryId: shared, title: "三個人都看過", summary: "三個人都看過", tags: ["共享", "新"],
                                      persona: "warm", provider: "offline", usageDay: "2026-11-22")
        _ = try devices[1].store.appendMessage(entryId: shared, author: .person, text: "B 的補充", persona: "warm", provider: nil)
        let fresh = try devices[2].diary.page("C 的新頁", tags: ["新頁"])
        try devices[2].store.setSetting("persona", "empath")

        for index in order { try await devices[index].sync() }
        for index in order { try await devices[index].sync() }

        let reference = try devices[0].everything()
        for device in devices {
            let mine = try device.everything()
            #expect(mine == reference, "order \(order): \(zip(mine, reference).first { $0 != $1 }.map { "\n\($0)\n\($1)" } ?? "count")")
            #expect(try device.store.setting("persona") == "empath")
            let record = try #require(device.store.entryRecords(ids: [shared]).first)
            #expect(record.tags == ["共享", "新"])
            #expect(record.liveMessages.contains { $0.text == "B 的補充" })
            #expect(try device.store.entryRecords(ids: [fresh]).count == 1)
        }
    }

    @Test func concurrentChatsUniteAndTagsMergeAsAddRemoveSets() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice), b = try TestDevice(alice)
        let entry = try a.diary.page("週末", tags: ["家", "貓", "雨"])
        try await a.sync()
        try await b.sync()
        // Offline on both: A removes 貓 and chats; B adds 書 and chats.
        try a.store.savePage(entryId: entry, title: "週末", summary: "週末", tags: ["家", "雨"], persona: "warm", provider: "offline", usageDay: "2026-11-22")
        _ = try a.store.appendMessage(entryId: entry, author: .person, text: "A 說的話", persona: "warm", provider: nil)
        try b.store.savePage(entryId: entry, title: "週末", summary: "週末", tags: ["家", "貓", "雨", "書"], persona: "warm", provider: "offline", usageDay: "2026-11-22")
        _ = try b.store.appendMessage(entryId: entry, author: .person, text: "B 說的話", persona: "warm", provider: nil)

        try await b.sync()
        try await a.sync()
        try await b.sync()

        #expect(try a.everything() == b.everything())
        let record = try a.store.entryRecords(ids: [entry])[0]
        #expect(Set(record.tags) == ["家", "雨", "書"])
        #expect(record.liveMessages.map(\.text).filter { $0.hasSuffix("說的話") }.sorted() == ["A 說的話", "B 說的話"])
        // The entry's own fields were written on both sides: the losing version is kept.
        #expect(try a.store.conflicts().count + b.store.conflicts().count >= 1)
        let serverConflicts = try await server.adminText("SELECT count(*)::text FROM diary.conflict WHERE table_name = 'entry'")
        #expect(Int(serverConflicts ?? "0")! >= 1)
    }

    @Test func aDeleteBeatsAConcurrentEditInBothOrders() async throws {
        for deleteFirst in [true, false] {
            let server = try await TestServer.make()
            let alice = try await server.addPerson()
            let a = try TestDevice(alice), b = try TestDevice(alice)
            let entry = try a.diary.draft("要刪掉的草稿")
            try await a.sync()
            try await b.sync()
            _ = try a.store.discard(entryId: entry)
            _ = try b.store.appendMessage(entryId: entry, author: .person, text: "還在寫", persona: "warm", provider: nil)
            let order = deleteFirst ? [a, b, a] : [b, a, b]
            for device in order { try await device.sync() }
            try await a.sync()
            try await b.sync()
            for device in [a, b] {
                let record = try #require(device.store.entryRecords(ids: [entry]).first)
                #expect(record.clock.deletedAt != nil, "deleteFirst=\(deleteFirst)")
                #expect(try device.store.entryIds(includingDeleted: false).isEmpty)
            }
            #expect(try a.everything() == b.everything())
            // The edit that lost to the delete is kept, on the server or on B.
            let kept = try await server.adminText("SELECT count(*)::text FROM diary.conflict WHERE table_name = 'entry'")
            #expect(Int(kept ?? "0")! + (try b.store.conflicts().count) >= 1)
        }
    }

    @Test func starsEditsMovesTrashAndTagRenamesOnTwoDevicesConverge() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice), b = try TestDevice(alice)
        let (one, two, three) = try a.threeTaggedPages()
        try await a.sync()
        try await b.sync()
        // Apart. A: a star, a tag renamed, a move. B, later: an edit of the words of the same
        // page, the same tag renamed to another name, a move of the same page, a page trashed.
        _ = try a.store.setStarred(ids: [one], true)
        _ = try a.store.tags.rename("旅游", to: "旅遊")
        try a.store.move(id: three, relativeTo: one, before: false)
        try await Task.sleep(for: .milliseconds(10))
        _ = try b.store.edit(ids: [one], EntryEdit(title: "B 改的標題"))
        _ = try b.store.tags.rename("旅游", to: "旅行")
        try b.store.move(id: three, relativeTo: two, before: true)
        _ = try b.store.trash.put(ids: [two])

        for device in [a, b, a, b] { try await device.sync() }

        #expect(try a.everything() == b.everything())
        for device in [a, b] {
            let entry = try device.store.entry(id: one)
            #expect(entry.starred, "A's star survives B's later edit")
            #expect(entry.title == "B 改的標題", "B's edit survives A's star")
            #expect(Set(entry.tags) == ["旅遊", "旅行", "海"], "both renames kept, the old name gone")
            #expect(try device.store.entry(id: two).trashedAt != nil)
            var manual = FindRequest()
            manual.order = .manual
            #expect(try Finder(store: device.store).find(manual).hits.map(\.hit.entry.id) == [three, one], "B's later move wins")
            #expect(try device.store.tags.uses().first { $0.name == "旅游" } == nil)
            #expect(try device.store.searchIndexIsConsistent())
        }
        // Out of the trash on A: a newer write, and B takes it.
        _ = try a.store.trash.takeOut(ids: [two])
        try await a.sync()
        try await b.sync()
        #expect(try b.store.entry(id: two).trashedAt == nil)
        #expect(try a.everything() == b.everything())
    }

    @Test func aPurgedPageIsATombstoneEverywhereAndItsFileLeavesTheServerAndTheOtherDevice() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice), b = try TestDevice(alice)
        let photo = try a.mediaFile(Array("a photo only this page shows".utf8))
        let id = try a.diary.draft("要永久刪除的", media: [photo])
        try a.store.savePage(entryId: id, title: "要永久刪除的", summary: "要永久刪除的", tags: ["海"], persona: "warm",
                             provider: "offline", usageDay: "2026-11-23")
        try await a.sync()
        try await b.sync()
        let onB = ContentAddressedFolder(b.store.paths.media).path(sha256: photo.sha256, fileExtension: "jpg")
        #expect(FileManager.default.fileExists(atPath: onB))
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.media_object") == "1")

        _ = try a.store.trash.put(ids: [id])
        let purged = try a.store.trash.purge(ids: [id])
        #expect(purged.unusedMedia.map(\.sha256) == [photo.sha256])
        try await a.sync()
        try await b.sync()
        for device in [a, b] {
            let record = try #require(device.store.entryRecords(ids: [id]).first)
            #expect(record.clock.deletedAt != nil && record.title == nil && record.liveMessages.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: onB), "B removes the file no page uses any more")
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.media_object") == "0")
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.media_chunk") == "0")
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.entry WHERE deleted AND doc->>'title' IS NULL") == "1")
        // An older copy of the page arriving later cannot bring it back.
        #expect(try a.everything() == b.everything())
    }

    @Test func aResentBatchIsRecognisedAndChangesNothing() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice)
        let entry = try a.diary.draft("一次就好")
        _ = try a.store.appendMessage(entryId: entry, author: .person, text: "只有一則", persona: "warm", provider: nil)
        // The push reaches the server but its answer is lost: the outbox is not cleared.
        var refused: [(QueuedChange, String)] = []
        let batch = OutgoingChange.wire(try OutgoingChange.nextBatch(from: a.store, dueOnly: false, refused: &refused))
        let first = try await ServerConnection.with(alice.address, password: alice.password) { server in
            try await server.json("SELECT diary.push(\(batch)::jsonb)::text")
        }
        #expect(first["results"]?[0]?["status"]?.stringValue == "applied")
        let report = try await a.sync()
        #expect(report.pushed == 1)
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.message") == "1")
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.entry") == "1")
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.push_receipt") == "1")
        #expect(try a.store.ledger.state().pending == 0)
    }

    @Test func aClockFarAheadIsRefusedAndKeptAsADeadLetter() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice)
        let fine = try a.diary.draft("正常的時鐘")
        // This device's clock jumped two days ahead, then came back.
        let ahead = HybridTimestamp(wallMillis: Timestamps.millis(Date()) + 2 * 86_400_000, counter: 0, device: a.store.deviceId)
        try a.store.write { db in
            try db.execute(sql: "UPDATE sync_state SET value = ? WHERE key = 'hlc'", arguments: [ahead.description])
        }
        let wrong = try a.diary.draft("未來的時鐘")
        let report = try await a.sync()
        #expect(report.pushed == 1)
        #expect(report.refused == 1)
        let state = try a.store.ledger.state()
        #expect(state.pending == 0)
        #expect(state.deadLetters.map(\.rowId).contains(wrong))
        #expect(state.deadLetters.first?.error.contains("clock_ahead") == true)
        #expect(try await server.adminText("SELECT string_agg(id, ',') FROM diary.entry") == fine)
        // Refused changes are never retried blindly, and never dropped.
        #expect(try await a.sync().refused == 0)
        #expect(try a.store.ledger.state().deadLetters.count == 1)
        #expect(try a.store.ledger.requeueDeadLetters() == 1)
        #expect(try await a.sync().refused == 1)
    }

    @Test func mediaGoUpInChunksOnlyWhereMissingAndComeDownVerified() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice), b = try TestDevice(alice)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(5 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let item = try a.mediaFile(bytes, ext: "mp4")
        let entry = try a.diary.draft("大影片", media: [item])
        // An earlier, interrupted upload left chunk 1 on the server.
        let chunk = bytes[(2 << 20)..<(4 << 20)].map { String(format: "%02x", $0) }.joined()
        _ = try await server.adminText("""
            INSERT INTO diary.media_chunk(user_id, sha256, n, bytes) VALUES ('\(alice.userId)', '\(item.sha256)', 1, '\\x\(chunk)'::bytea)
            """)
        let before = try await server.adminText("SELECT xmin::text FROM diary.media_chunk WHERE n = 1")

        let sent = try await a.sync()
        #expect(sent.mediaSent == 1)
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.media_chunk") == "3")
        #expect(try await server.adminText("SELECT xmin::text FROM diary.media_chunk WHERE n = 1") == before)
        #expect(try await server.adminText("SELECT name FROM diary.media_object") == "\(alice.userId)/\(entry)/\(item.sha256).mp4")

        let fetched = try await b.sync()
        #expect(fetched.mediaFetched == 1)
        let path = ContentAddressedFolder(b.store.paths.media).path(sha256: item.sha256, fileExtension: "mp4")
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))
        #expect(try b.store.ledger.state().mediaToFetch == 0)
    }

    @Test func aRecordNobodyCanReadIsKeptAsideAndSyncGoesOn() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice), b = try TestDevice(alice)
        let poisoned = try a.diary.page("壞掉的那一篇", tags: ["x"])
        try await a.sync()
        // Written past the server's checks, straight into the table: a time no client can read.
        _ = try await server.adminText("UPDATE diary.entry SET doc = jsonb_set(doc, '{occurred_at}', '\"someday\"') WHERE id = '\(poisoned)'")
        let first = try await b.sync()
        #expect(first.rejected == 1)
        #expect(try b.store.ledger.state().rejected == 1)
        #expect(throws: StoreError.self) { try b.store.entry(id: poisoned) }
        // The cursor moved on: what A writes next still arrives.
        let next = try a.diary.page("之後的一篇", tags: ["y"])
        try await a.sync()
        let second = try await b.sync()
        #expect(second.rejected == 0 && second.pulled == 1)
        #expect(try b.store.entry(id: next).title == "之後的一篇")
        #expect(try b.store.read { db in try String.fetchOne(db, sql: "SELECT problem FROM pulled_reject") } == "occurred_at")
    }

    @Test func aDeviceThatPullsAPhotoMakesItsThumbnail() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice), b = try TestDevice(alice)
        let item = try a.mediaFile(MediaFixtures.shared.bytes("x.jpg"))
        let entry = try a.diary.draft("照片", media: [item])
        #expect(MediaPreviews.ensure(try a.store.entry(id: entry).media, store: a.store) == 1)
        try await a.sync()
        // The row names A's thumbnail, but thumbnails do not travel: B makes its own.
        #expect(try await b.sync().mediaFetched == 1)
        let pulled = try #require(try b.store.entry(id: entry).media.first)
        let thumbnail = try #require(pulled.thumbnailPath)
        #expect(FileManager.default.fileExists(atPath: b.store.paths.thumbnails.appendingPathComponent(thumbnail).path))
    }

    @Test func aRowArrivesBeforeItsMediaAndCorruptBytesAreNeverInstalled() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice), b = try TestDevice(alice)
        let item = try a.mediaFile(Array("a photo's bytes".utf8))
        let entry = try a.diary.draft("照片", media: [item])
        // The rows go up, the bytes not yet.
        var refused: [(QueuedChange, String)] = []
        let batch = OutgoingChange.wire(try OutgoingChange.nextBatch(from: a.store, dueOnly: false, refused: &refused))
        _ = try await ServerConnection.with(alice.address, password: alice.password) { server in
            try await server.json("SELECT diary.push(\(batch)::jsonb)::text")
        }
        let early = try await b.sync()
        #expect(early.pulled == 1)
        #expect(early.mediaWaiting == 1)
        #expect(try b.store.entryRecords(ids: [entry]).first?.liveMedia.count == 1)
        #expect(try b.store.ledger.state().mediaToFetch == 1)

        try await a.sync()
        // The server's copy rots: B must not take it.
        _ = try await server.adminText("UPDATE diary.media_chunk SET bytes = 'not the photo'::bytea")
        let rotten = try await b.sync()
        #expect(rotten.mediaFetched == 0)
        let path = ContentAddressedFolder(b.store.paths.media).path(sha256: item.sha256, fileExtension: "jpg")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try b.store.ledger.state().mediaToFetch == 1)
    }

    @Test func aDeviceIsNotSentBackWhatItPushedButOthersAre() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice), b = try TestDevice(alice)
        try a.diary.page("我寫的", tags: ["自己"])
        try await a.sync(.push)
        func pulled(by device: String) async throws -> Int {
            try await ServerConnection.with(alice.address, password: alice.password) { server in
                try await server.json("SELECT diary.pull(0, 200, \(device))::text")
            }["items"]?.arrayValue?.count ?? -1
        }
        #expect(try await pulled(by: a.store.deviceId) == 0)
        #expect(try await pulled(by: b.store.deviceId) == 1)
        // Once another device changes the entry, it is no longer A's echo.
        try await b.sync()
        let entry = try b.store.entryIds(includingDeleted: false)[0]
        _ = try b.store.appendMessage(entryId: entry, author: .person, text: "B 補一句", persona: "warm", provider: nil)
        try await b.sync()
        #expect(try await pulled(by: a.store.deviceId) == 1)
        #expect(try await a.sync().pulled == 1)
        #expect(try a.everything() == b.everything())
    }

    @Test func userAddRefusesAServerWhoseAccountsBelongToAnotherSystem() async throws {
        // A database shaped like a Supabase project: an auth.uid() that is not ours.
        let cluster = try ServerAddress(ProcessInfo.processInfo.environment["DIARY_TEST_PG_URL"]!)
        let name = "s_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        _ = try await ServerConnection.with(cluster, password: cluster.password) { server in
            try await server.run(script: "CREATE DATABASE \(name)")
        }
        var admin = cluster
        admin.database = String(name)
        try await ServerConnection.with(admin, password: cluster.password) { server in
            try await server.run(script: "CREATE SCHEMA auth")
            try await server.run(script: "CREATE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE AS $$ SELECT nullif(current_setting('request.jwt.claim.sub', true), '')::uuid $$")
        }
        _ = try await Accounts.initialiseServer(admin, password: cluster.password)
        await #expect(throws: SyncError.foreignAuth) {
            try await Accounts.addUser(admin, password: cluster.password, name: "mallory", newPassword: "x")
        }
        let body = try await ServerConnection.with(admin, password: cluster.password) { server in
            try await server.run(script: "SELECT prosrc FROM pg_proc WHERE oid = 'auth.uid()'::regprocedure")
        }
        #expect(body?.contains("request.jwt.claim.sub") == true, "the platform's auth.uid() is left alone")
    }

    @Test func aDeviceAnHourBehindWinsAfterSeeingAPageAndLosesWhenItDidNot() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice)
        let b = try TestDevice(alice, wallClock: { Date().addingTimeInterval(-3600) })
        let entry = try a.diary.draft("一棵樹")
        try await a.sync()
        try await b.sync()
        // B answers after seeing A's page: its clock is behind, its edit is still newer.
        _ = try b.store.appendMessage(entryId: entry, author: .person, text: "晚一小時的我", persona: "warm", provider: nil)
        try await b.sync()
        try await a.sync()
        let record = try #require(a.store.entryRecords(ids: [entry]).first)
        #expect(record.clock.deviceId == b.store.deviceId, "B's later edit won on A")
        #expect(record.liveMessages.map(\.text).contains("晚一小時的我"))
        #expect(try a.everything() == b.everything())

        // Now both edit without seeing each other: A's edit is really later, so it wins,
        // and B's version is kept.
        _ = try b.store.appendMessage(entryId: entry, author: .person, text: "B 沒看到", persona: "warm", provider: nil)
        try await Task.sleep(for: .milliseconds(5))
        _ = try a.store.appendMessage(entryId: entry, author: .person, text: "A 較晚", persona: "warm", provider: nil)
        try await b.sync()
        try await a.sync()
        try await b.sync()
        let final = try #require(b.store.entryRecords(ids: [entry]).first)
        #expect(final.clock.deviceId == a.store.deviceId)
        #expect(Set(final.liveMessages.map(\.text)).isSuperset(of: ["B 沒看到", "A 較晚", "晚一小時的我"]))
        #expect(try a.everything() == b.everything())
        let kept = try await server.adminText("SELECT count(*)::text FROM diary.conflict WHERE table_name = 'entry'")
        #expect(Int(kept ?? "0")! + (try b.store.conflicts().count) >= 1)
    }

    @Test func anotherPersonSeesNothing() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson(), bob = try await server.addPerson()
        let a = try TestDevice(alice), b = try TestDevice(bob)
        try a.diary.page("只屬於 Alice", tags: ["秘密"])
        try a.store.setSetting("persona", "clear")
        try await a.sync()
        let report = try await b.sync()
        #expect(report.pulled == 0 && report.settingsPulled == 0)
        #expect(try b.everything().isEmpty)
        #expect(try b.store.setting("persona") == nil)
    }

    @Test func batchesTravelThreeAtATimeAndAFailureAmongThemLosesNothing() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice)
        for n in 0..<(OutgoingChange.batchLimit * 5) { _ = try a.diary.draft("第 \(n) 頁") }
        let engine = SyncEngine(store: a.store, userId: alice.userId)
        let watched = try await ServerConnection.with(alice.address, password: alice.password) { connection in
            // The third batch fails on its way, while the first two are still out.
            let watched = SlowServer(connection, failingCall: 3)
            await #expect(throws: SyncError.self) { try await engine.run(watched, steps: .push) }
            return watched
        }
        #expect(watched.mostAtOnce == SyncEngine.batchesInFlight)
        #expect(try a.store.ledger.state().pending > 0)
        // The two batches answered before the failure stay settled; the other three go on the
        // next sync, and every page is on the server once.
        #expect(try await a.sync(.push).pushed == OutgoingChange.batchLimit * 3)
        #expect(try a.store.ledger.state().pending == 0)
        #expect(try await server.adminText("SELECT count(DISTINCT id)::text || ' ' || count(*)::text FROM diary.entry") == "100 100")
    }
}

/// A server whose pushes take a while, counting how many are on their way at once; the
/// `failingCall`-th push fails as a dropped connection would.
private final class SlowServer: SyncServer {
    private let inner: ServerConnection
    private let failingCall: Int
    private let counts = Mutex((calls: 0, running: 0, most: 0))

    init(_ inner: ServerConnection, failingCall: Int) {
        self.inner = inner
        self.failingCall = failingCall
    }

    var mostAtOnce: Int { counts.withLock { $0.most } }

    func push(_ batch: String, device: String) async throws -> JSON {
        let call = counts.withLock { counts in
            counts.calls += 1
            counts.running += 1
            counts.most = max(counts.most, counts.running)
            return counts.calls
        }
        defer { counts.withLock { $0.running -= 1 } }
        try await Task.sleep(for: .milliseconds(100))
        if call == failingCall { throw SyncError.offline }
        return try await inner.push(batch, device: device)
    }

    func pull(after cursor: Int64, limit: Int, device: String) async throws -> JSON {
        try await inner.pull(after: cursor, limit: limit, device: device)
    }
    func whoami() async throws -> JSON { try await inner.whoami() }
    func putEnvelope(_ envelope: JSON) async throws { try await inner.putEnvelope(envelope) }
    func deleteAccount() async throws -> Int64 { try await inner.deleteAccount() }
    func beginSealing(_ envelope: JSON) async throws -> JSON { try await inner.beginSealing(envelope) }
    func clearRecords(after: String, limit: Int) async throws -> JSON { try await inner.clearRecords(after: after, limit: limit) }
    func reseal(_ batch: String) async throws -> JSON { try await inner.reseal(batch) }
    func finishSealing() async throws -> JSON { try await inner.finishSealing() }
    func presentMedia(_ shas: [String]) async throws -> Set<String> { try await inner.presentMedia(shas) }
    func upload(_ transfer: MediaTransfer, name: String, from descriptor: Int32) async throws -> MediaUpload {
        try await inner.upload(transfer, name: name, from: descriptor)
    }
    func download(_ transfer: MediaTransfer, into sink: (ByteBuffer) -> Bool) async throws -> Bool {
        try await inner.download(transfer, into: sink)
    }
}

/// The test script starts Postgres and says so; the sync suites must then really run.
@Test func syncSuitesRunWhenTheTestScriptStartedPostgres() {
    if ProcessInfo.processInfo.environment["DIARY_REQUIRE_POSTGRES"] == "1" {
        #expect(postgresAvailable, "DIARY_TEST_PG_URL is missing: the sync tests would be skipped")
    }
}
