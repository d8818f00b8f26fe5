@testable import DiaryKit
import DiarySeal
@testable import DiarySync
@testable import SyncSession
import Crypto
import Foundation
import GRDB
import Testing
@testable import DiaryTestSupport

/// A sealed diary against a real Postgres: what the server holds, what it refuses, and what
/// a device does with a seal someone tampered with.
@Suite(.enabled(if: postgresAvailable), .serialized)
struct SealedSyncTests {
    @Test func theServerHoldsNothingItCanRead() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let sealed = try await alice.seal()
        let a = try TestDevice(alice, keys: sealed.keys), b = try TestDevice(alice, keys: sealed.keys)
        func marker(_ name: String) -> String { name + UUID().uuidString.replacingOccurrences(of: "-", with: "") }
        let (title, words, place, tag, chat, setting, memory) =
            (marker("title"), marker("words"), marker("place"), marker("tag"), marker("chat"), marker("persona"), marker("memory"))
        let photoBytes = Array((marker("photo") + String(repeating: "p", count: 3 << 19)).utf8)
        let photo = try a.mediaFile(photoBytes)
        let id = try a.diary.draft(words, media: [photo])
        _ = try a.store.appendMessage(entryId: id, author: .person, text: chat, persona: "warm", provider: nil)
        try a.store.savePage(entryId: id, title: title, summary: words, tags: [tag], persona: "warm", provider: "offline", usageDay: "2026-11-27")
        _ = try a.store.edit(ids: [id], EntryEdit(place: place))
        try a.store.setSetting("persona", setting)
        try a.store.setSetting(MemoryNotes.settingKey, memory)
        let pushed = try await a.sync()
        #expect(pushed.pushed >= 2 && pushed.mediaSent == 1 && pushed.refused == 0)

        let everything = Data(try server.dataDump().utf8)
        func holds(_ text: String) -> Bool { everything.range(of: Data(text.utf8)) != nil }
        #expect(holds("ib1.1."), "the sealed records are there")
        for secret in [title, words, place, tag, tag.lowercased(), chat, setting, memory, String(decoding: photoBytes.prefix(37), as: UTF8.self)] {
            for piece in TestServer.pieces(of: secret) { #expect(!holds(piece), "\(piece) of \(secret) reached the server") }
        }
        #expect(!holds(photo.sha256), "the file's own hash never leaves")
        #expect(!holds("\"persona\"") && !holds(MemoryNotes.settingKey), "setting keys are keyed names")

        // The other device reads it all, the photo byte for byte.
        let pulled = try await b.sync()
        #expect(pulled.pulled == 1 && pulled.settingsPulled == 2 && pulled.mediaFetched == 1 && pulled.rejected == 0)
        let entry = try b.store.entry(id: id)
        #expect(entry.title == title && entry.note == words && entry.context.place == place)
        #expect(entry.tags == [TagName.normalize(tag)], "a tag is kept in its one spelling (lowercase, 32 characters)")
        #expect(try b.store.messages(entryId: id).map(\.text) == [chat])
        #expect(try b.store.setting("persona") == setting && b.store.setting(MemoryNotes.settingKey) == memory)
        let path = ContentAddressedFolder(b.store.paths.media).path(sha256: photo.sha256, fileExtension: "jpg")
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == photoBytes)
        #expect(try a.everything() == b.everything())
    }

    @Test func theServerTakesOnlySealsOfTheDevicesForm() async throws {
        let server = try await TestServer.make()
        let body = String(repeating: "A", count: 400)
        let cases: [(String, Bool)] = [
            ("ib1.1." + body, true), ("ib1.2." + body, true), ("ib1.3." + body, false), ("ib1.01." + body, false),
            ("ib1.1." + body.dropFirst(), false), ("ib1.1." + body.dropFirst(4), true), ("ib1.1." + body.dropFirst() + ".", false),
            ("ib1.1." + body.dropFirst(2) + "..", false), ("ib1.1.AA.A" + body, false), ("ib2.1." + body, false),
            ("ib1.." + body, false), ("ib1.1" + body, false), ("ib1.1234567890." + body, false), ("ib1.1." + body.dropFirst(8), false),
        ]
        for (box, good) in cases {
            let answer = try await server.adminText("SELECT diary.is_box(to_jsonb('\(box)'::text), 2)::text")
            #expect(answer == (good ? "true" : "false"), "\(box.prefix(20))… (\(box.count) characters)")
        }
        #expect(try await server.adminText("SELECT diary.is_box('1'::jsonb, 2)::text") == "false")
    }

    @Test func aClearPushToASealedAccountIsRefusedAndWaits() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let sealed = try await alice.seal()
        // A device without the keys (an older version, or a key file removed).
        let bare = try TestDevice(alice)
        let page = try bare.diary.page("沒有金鑰的裝置寫的", tags: ["x"])
        await #expect(throws: SealError.needsKeys) { try await bare.sync() }
        #expect(try bare.store.ledger.state().pending > 0, "the change stays queued")
        #expect(try bare.store.ledger.state().deadLetters.isEmpty)
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.entry") == "0")
        // With the keys it goes up, sealed.
        bare.keys = SyncKeys(sealed.keys, paths: bare.store.paths)
        #expect(try await bare.sync().pushed == 1)
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.entry WHERE doc ? 'parts' AND id = '\(page)'") == "1")

        // A sealed record to an account in clear is refused too, and kept.
        let bob = try await server.addPerson()
        let stray = try TestDevice(bob, keys: sealed.keys)
        _ = try stray.diary.page("封好的，但帳號沒有加密", tags: [])
        #expect(try await stray.sync().refused == 1)
        #expect(try stray.store.ledger.state().deadLetters.first?.error == "not_sealed")
    }

    @Test func theServerRefusesASealedRecordThatCarriesAFieldInClear() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let sealed = try await alice.seal()
        let a = try TestDevice(alice, keys: sealed.keys)
        _ = try a.diary.page("好好封著的", tags: ["x"])
        _ = try a.diary.page("漏出標題的", tags: ["y"])
        var refused: [(QueuedChange, String)] = []
        let batch = try OutgoingChange.nextBatch(from: a.store, keys: a.keys, dueOnly: false, refused: &refused)
        #expect(batch.count == 2 && refused.isEmpty)
        // A device that would leak the title beside the seals (a bug, an older build).
        var leaky = batch
        leaky[1].text = String(leaky[1].text.dropLast()) + #","title":"漏出標題的"}"#
        let answer = try await ServerConnection.with(alice.address, password: alice.password) { server in
            try await server.push(OutgoingChange.wire(leaky), device: a.store.deviceId)
        }
        let results = answer["results"]?.arrayValue ?? []
        #expect(results.first?["status"]?.stringValue == "applied")
        #expect(results.last?["status"]?.stringValue == "rejected")
        #expect(results.last?["error"]?.stringValue?.contains("title") == true)
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.entry") == "1")
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.entry WHERE doc::text LIKE '%漏出%'") == "0")
    }

    @Test func aTamperedSealIsSetAsideAndTheRestGoesOn() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson(), bob = try await server.addPerson()
        let sealed = try await alice.seal()
        let bobs = try await bob.seal()
        let a = try TestDevice(alice, keys: sealed.keys), b = try TestDevice(alice, keys: sealed.keys)
        let photo = try a.mediaFile(Array("the photo's bytes".utf8))
        let swappedOne = try a.diary.page("第一篇", tags: ["a"]), swappedTwo = try a.diary.page("第二篇", tags: ["b"])
        let intact = try a.diary.draft("照片", media: [photo])
        try await a.sync()
        // Two pages' words swapped; a page of Bob's copied into Alice's account; a chunk flipped.
        _ = try await server.adminText("""
            UPDATE diary.entry e SET doc = jsonb_set(e.doc, '{parts,content}', o.doc->'parts'->'content')
              FROM diary.entry o WHERE e.id IN ('\(swappedOne)', '\(swappedTwo)') AND o.id IN ('\(swappedOne)', '\(swappedTwo)') AND o.id <> e.id
            """)
        let bobDevice = try TestDevice(bob, keys: bobs.keys)
        let bobsPage = try bobDevice.diary.page("Bob 的", tags: [])
        try await bobDevice.sync()
        _ = try await server.adminText("""
            INSERT INTO diary.entry (user_id, id, hlc, device_id, deleted, doc, server_seq)
            SELECT '\(alice.userId)', id, hlc, device_id, deleted, doc, 100 FROM diary.entry WHERE id = '\(bobsPage)'
            """)
        _ = try await server.adminText("UPDATE diary.account SET server_seq = 100 WHERE user_id = '\(alice.userId)'")
        _ = try await server.adminText("UPDATE diary.media_chunk SET bytes = set_byte(bytes, 40, get_byte(bytes, 40) # 1)")
        let report = try await b.sync()
        #expect(report.rejected == 3, "both swapped pages and the stranger's page are set aside")
        #expect(report.pulled == 1 && report.mediaFetched == 0)
        #expect(try b.store.entry(id: intact).note == "照片")
        for id in [swappedOne, swappedTwo, bobsPage] { #expect(throws: StoreError.self) { try b.store.entry(id: id) } }
        #expect(try b.store.read { db in try String.fetchAll(db, sql: "SELECT problem FROM pulled_reject") } == ["does not open", "does not open", "does not open"])
        let path = ContentAddressedFolder(b.store.paths.media).path(sha256: photo.sha256, fileExtension: "jpg")
        #expect(!FileManager.default.fileExists(atPath: path), "a flipped chunk is never installed")
        #expect(try b.store.ledger.state().mediaToFetch == 1)
    }

    @Test func sealedDevicesConvergeAndKeepTheLosingWords() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let sealed = try await alice.seal()
        let a = try TestDevice(alice, keys: sealed.keys), b = try TestDevice(alice, keys: sealed.keys)
        let (one, two, three) = try a.threeTaggedPages()
        try await a.sync()
        try await b.sync()
        // Apart: A stars, edits the words, untags, moves and chats; B, later, edits the same
        // words, tags, trashes another page and chats too.
        _ = try a.store.setStarred(ids: [one], true)
        _ = try a.store.edit(ids: [one], EntryEdit(title: "A 的標題"))
        _ = try a.store.tags.rename("旅游", to: "旅遊")
        try a.store.move(id: three, relativeTo: one, before: false)
        _ = try a.store.appendMessage(entryId: one, author: .person, text: "A 說", persona: "warm", provider: nil)
        let onA = try #require(try a.store.entryRecords(ids: [one]).first)
        let wordsOfA = onA.fieldClocks[.content] ?? onA.clock.hlc
        try await Task.sleep(for: .milliseconds(10))
        _ = try b.store.edit(ids: [one], EntryEdit(title: "B 改的標題"))
        _ = try b.store.trash.put(ids: [two])
        _ = try b.store.appendMessage(entryId: one, author: .person, text: "B 說", persona: "warm", provider: nil)

        for device in [b, a, b, a] { try await device.sync() }

        #expect(try a.everything() == b.everything())
        for device in [a, b] {
            let entry = try device.store.entry(id: one)
            #expect(entry.starred && entry.title == "B 改的標題", "A's star and B's later words both stay")
            #expect(Set(entry.tags) == ["旅遊", "海"])
            #expect(Set(try device.store.messages(entryId: one).map(\.text)) == ["A 說", "B 說"])
            #expect(try device.store.entry(id: two).trashedAt != nil)
        }
        // The words that lost (A's) are kept on the server, sealed, as with a diary in clear.
        // B's words replaced the first version, and A's lost to B's: both kept.
        #expect(try await server.adminText("""
            SELECT count(*)::text FROM diary.conflict
             WHERE table_name = 'entry' AND row_id = '\(one)' AND hlc = '\(wordsOfA)' AND version ? 'parts'
            """) == "1")
    }

    @Test func aRotatedKeyReachesTheOtherDeviceAndOldPagesStillOpen() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let sealed = try await alice.seal()
        let a = try TestDevice(alice, keys: sealed.keys), b = try TestDevice(alice, keys: sealed.keys)
        let old = try a.diary.page("舊的一篇", tags: ["x"])
        try await a.sync()
        var rotated = sealed.keys
        let envelope = try rotated.rotate(sealed.envelope)
        try await ServerConnection.with(alice.address, password: alice.password) { try await $0.putEnvelope(envelope.json) }
        a.keys = SyncKeys(rotated, paths: a.store.paths)
        let new = try a.diary.page("新的一篇", tags: ["y"])
        try await a.sync()
        #expect(try await server.adminText("SELECT doc->'parts'->'content'->>'box' FROM diary.entry WHERE id = '\(new)'")?.hasPrefix("ib1.2.") == true)
        // B still has key 1 only: it learns key 2 from the envelope and reads both pages.
        let report = try await b.sync()
        #expect(report.pulled == 2 && report.rejected == 0)
        #expect(try b.store.entry(id: old).title == "舊的一篇" && b.store.entry(id: new).title == "新的一篇")
        #expect(try KeyFile.load(b.store.paths, account: alice.userId)?.currentItemsKey == 2, "the key file learnt it too")
        // The envelope cannot be swapped for another diary's, nor lose a key.
        let other = try DiaryKeys.create(account: alice.userId, passphrase: "another passphrase", cost: .floor).envelope
        await #expect(throws: (any Error).self) {
            try await ServerConnection.with(alice.address, password: alice.password) { try await $0.putEnvelope(other.json) }
        }
        await #expect(throws: (any Error).self) {
            try await ServerConnection.with(alice.address, password: alice.password) { try await $0.putEnvelope(sealed.envelope.json) }
        }
    }

    @Test func deletingTheAccountLeavesNoEnvelope() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let sealed = try await alice.seal()
        let a = try TestDevice(alice, keys: sealed.keys)
        _ = try a.diary.page("一篇", tags: ["x"])
        try await a.sync()
        _ = try await Accounts.deleteAccount(store: a.store, credentials: a.credentials)
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.key_envelope") == "0")
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.entry") == "0")
        #expect(!FileManager.default.fileExists(atPath: KeyFile.path(a.store.paths).path))
    }
}
