@testable import DiaryKit
import DiarySeal
@testable import DiarySync
@testable import SyncSession
import Foundation
import Testing
@testable import DiaryTestSupport

/// `diary-sync encrypt` against a real Postgres: an account that synced in clear is sealed
/// in place, and nothing of it stays readable on the server.
@Suite(.enabled(if: postgresAvailable), .serialized)
struct AccountSealingTests {
    @Test func aClearAccountIsSealedInPlace() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice), b = try TestDevice(alice)
        func marker(_ name: String) -> String { name + UUID().uuidString.replacingOccurrences(of: "-", with: "") }
        let (title, words, place, tag, chat, setting, memory) =
            (marker("title"), marker("words"), marker("place"), marker("tag"), marker("chat"), marker("persona"), marker("memory"))
        let photoBytes = Array((marker("photo") + String(repeating: "p", count: 3 << 19)).utf8)
        let photo = try a.mediaFile(photoBytes)
        let id = try a.diary.draft(words, media: [photo])
        _ = try a.store.appendMessage(entryId: id, author: .person, text: chat, persona: "warm", provider: nil)
        try a.store.savePage(entryId: id, title: title, summary: words, tags: [tag, "第二個"], persona: "warm", provider: "offline",
                             usageDay: "2026-11-27")
        _ = try a.store.edit(ids: [id], EntryEdit(place: place))
        try a.store.setSetting("persona", setting)
        try a.store.setSetting(MemoryNotes.settingKey, memory)
        let other = try a.diary.page("另一篇", tags: ["山"])
        try await a.sync()
        try await b.sync()
        // Both edit the same words apart: the server keeps the losing version, in clear.
        _ = try a.store.edit(ids: [other], EntryEdit(title: "A 的 " + words))
        try await Task.sleep(for: .milliseconds(10))
        _ = try b.store.edit(ids: [other], EntryEdit(title: "B 的版本"))
        try await a.sync()
        try await b.sync()
        try await a.sync()
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.conflict") != "0")
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.push_receipt") != "0")
        let rows = "SELECT string_agg(id || ' ' || hlc || ' ' || server_seq, ',' ORDER BY id) FROM diary.entry"
        let (rowsBefore, seqBefore) = (try await server.adminText(rows), try await server.adminText("SELECT server_seq::text FROM diary.account"))
        let settings = try #require(try await server.adminText("SELECT count(*)::text FROM diary.setting").flatMap { Int($0) })

        let sealing = AccountSealing(store: a.store, credentials: a.credentials)
        guard case .clear = try await sealing.stage() else { Issue.record("not in clear"); return }
        try await sealing.prepare()
        let made = try DiaryKeys.create(account: alice.userId, passphrase: "sealed from now on", cost: .floor)
        var begun = false
        let outcome = try await sealing.seal(made.keys, envelope: made.envelope) { begun = true }
        #expect(begun)
        #expect(outcome == AccountSealing.Outcome(pages: 2, settings: settings, files: 1))
        guard case .sealed = try await sealing.stage() else { Issue.record("not sealed"); return }

        // Same rows, same clocks, same counter: no device fetches again what it has.
        #expect(try await server.adminText(rows) == rowsBefore)
        #expect(try await server.adminText("SELECT server_seq::text FROM diary.account") == seqBefore)
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.conflict") == "0")
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.push_receipt") == "0")
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.media_object") == "1")
        let everything = Data(try server.dataDump().utf8)
        func holds(_ text: String) -> Bool { everything.range(of: Data(text.utf8)) != nil }
        #expect(holds("ib1.1."))
        for secret in [title, words, place, tag, tag.lowercased(), chat, setting, memory, String(decoding: photoBytes.prefix(37), as: UTF8.self)] {
            for piece in TestServer.pieces(of: secret) { #expect(!holds(piece), "\(piece) of \(secret) stayed on the server") }
        }
        #expect(!holds(photo.sha256) && !holds("第二個") && !holds("\"persona\""))

        // B, still in clear: its change waits for the keys, then goes up sealed.
        _ = try b.store.edit(ids: [id], EntryEdit(title: "B 後來改的"))
        await #expect(throws: SealError.needsKeys) { try await b.sync() }
        #expect(try b.store.ledger.state().pending == 1)
        b.keys = SyncKeys(try DiaryKeys.open(made.envelope, account: alice.userId, passphrase: "sealed from now on"), paths: b.store.paths)
        #expect(try await b.sync().pushed == 1)
        a.keys = SyncKeys(made.keys, paths: a.store.paths)
        #expect(try await a.sync().pulled == 1)
        #expect(try a.everything() == b.everything())

        // A new device with the keys reads it all, the photo byte for byte.
        let c = try TestDevice(alice, keys: made.keys)
        let report = try await c.sync()
        #expect(report.pulled == 2 && report.mediaFetched == 1 && report.rejected == 0)
        #expect(try c.everything() == a.everything())
        #expect(try c.store.setting("persona") == setting && c.store.setting(MemoryNotes.settingKey) == memory)
        let path = ContentAddressedFolder(c.store.paths.media).path(sha256: photo.sha256, fileExtension: "jpg")
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == photoBytes)
    }

    @Test func whileSealingNoDeviceMayPushAndARerunFinishes() async throws {
        let server = try await TestServer.make()
        let alice = try await server.addPerson()
        let a = try TestDevice(alice), b = try TestDevice(alice)
        _ = try a.threeTaggedPages()
        try await a.sync()
        let made = try DiaryKeys.create(account: alice.userId, passphrase: "sealed from now on", cost: .floor)
        // Cut off right after the envelope went up: the account is being sealed.
        let started = try await ServerConnection.with(alice.address, password: alice.password) { try await $0.beginSealing(made.envelope.json) }
        #expect(started["sealing"] == .bool(true))
        let sealing = AccountSealing(store: a.store, credentials: a.credentials)
        guard case .sealing = try await sealing.stage() else { Issue.record("not sealing"); return }
        _ = try b.diary.page("等一下再送", tags: [])
        await #expect(throws: SealError.beingSealed) { try await b.sync() }
        #expect(try b.store.ledger.state().pending > 0 && b.store.ledger.state().deadLetters.isEmpty, "it waits, not refused")
        // Another diary key cannot take over half-way; the same one carries on.
        let other = try DiaryKeys.create(account: alice.userId, passphrase: "somebody else's", cost: .floor)
        await #expect(throws: (any Error).self) {
            try await ServerConnection.with(alice.address, password: alice.password) { try await $0.beginSealing(other.envelope.json) }
        }
        let outcome = try await sealing.seal(made.keys, envelope: made.envelope) {}
        #expect(outcome.pages == 3)
        #expect(try await server.adminText("SELECT count(*)::text FROM diary.entry WHERE NOT doc ? 'parts'") == "0")
        b.keys = SyncKeys(made.keys, paths: b.store.paths)
        #expect(try await b.sync().pushed == 1)
        // A second run finds nothing left to do.
        #expect(try await sealing.seal(made.keys, envelope: made.envelope) {} == AccountSealing.Outcome())
    }
}
