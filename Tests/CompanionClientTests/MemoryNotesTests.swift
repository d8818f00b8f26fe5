@testable import CompanionClient
@testable import DiaryKit
import FakeServers
import Foundation
import Testing
@testable import DiaryTestSupport

/// memory.md: the person's file, synced as a setting, given to the companion, never written by it.
@Suite(.serialized) struct MemoryNotesTests {
    @Test func theFileAndTheSyncedSettingMeetEachWay() throws {
        let diary = try TestDiary()
        let store = diary.store
        let file = MemoryNotes.file(store.paths)

        // Made from the template on request; an untouched template is not synced.
        let started = try #require(try MemoryNotes.reconcile(store, language: .zhHant, create: true))
        #expect(FileManager.default.fileExists(atPath: file.path) && started.hasPrefix("# 記憶"))
        #expect(try store.setting(MemoryNotes.settingKey) == nil)
        #expect(MemoryNotes.forPrompt(started) == "# 記憶", "the template's guidance never reaches the companion")

        // Edited here: the setting (and so the other devices) gets it.
        let mine = "# 記憶\n- 阿明：常一起去海邊的朋友\n"
        try Data(mine.utf8).write(to: file)
        #expect(try MemoryNotes.reconcile(store, language: .zhHant) == mine)
        #expect(try store.setting(MemoryNotes.settingKey) == mine)
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE table_name = 'setting' AND row_id = 'memory.md'") } == 1,
                "queued for sync")

        // Changed on another device (the setting), not here: the file follows.
        let theirs = mine + "- 麻糬：我的貓\n"
        try store.setSetting(MemoryNotes.settingKey, theirs)
        #expect(try MemoryNotes.reconcile(store, language: .zhHant) == theirs)
        #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self) == theirs)
        #expect(String(decoding: try Data(contentsOf: MemoryNotes.replacedFile(store.paths)), as: UTF8.self) == mine,
                "the text it replaced is kept beside it")

        // Both changed: the file in front of the person wins, and goes out.
        try store.setSetting(MemoryNotes.settingKey, "from elsewhere")
        let edited = theirs + "- 工作：在準備新專案\n"
        try Data(edited.utf8).write(to: file)
        #expect(try MemoryNotes.reconcile(store, language: .zhHant) == edited)
        #expect(try store.setting(MemoryNotes.settingKey) == edited)

        // Nothing changed: nothing is written.
        func clock() throws -> String? { try store.read { db in try String.fetchOne(db, sql: "SELECT hlc FROM setting WHERE key = 'memory.md'") } }
        let before = try clock()
        #expect(try MemoryNotes.reconcile(store, language: .zhHant) == edited && (try clock()) == before)
    }

    @Test(arguments: [Array("# 記憶\n- 阿明\u{0}之後的全都會被切掉\n".utf8), Array("- caf".utf8) + [0xE9] + Array(" au lait\n".utf8)])
    func aFileTheStoreCannotKeepIsNeitherSyncedNorOverwritten(bytes: [UInt8]) throws {
        // A NUL byte (SQLite would keep the text cut there) or a byte that is not UTF-8 (it
        // would be replaced): the lossy copy synced, came back, and overwrote the person's file.
        let diary = try TestDiary()
        let store = diary.store
        let file = MemoryNotes.file(store.paths)
        try Data(bytes).write(to: file)
        _ = try MemoryNotes.reconcile(store, language: .zhHant)
        #expect(try store.setting(MemoryNotes.settingKey) == nil, "not synced")
        _ = try MemoryNotes.reconcile(store, language: .zhHant)
        #expect(try Data(contentsOf: file) == Data(bytes))
        // A version from another device does not replace it either.
        try store.setSetting(MemoryNotes.settingKey, "# 記憶\n- 別的裝置寫的\n")
        _ = try MemoryNotes.reconcile(store, language: .zhHant)
        #expect(try Data(contentsOf: file) == Data(bytes), "the person's own file stays as they wrote it")
    }

    @Test func onlyTheTextGoesAndNoMoreThanItsLimit() {
        #expect(MemoryNotes.forPrompt("<!-- guidance\nmore -->\n\n- 阿明\n\n- 麻糬\n") == "- 阿明\n- 麻糬")
        #expect(MemoryNotes.forPrompt("<!-- only guidance -->\n") == nil && MemoryNotes.forPrompt(nil) == nil)
        let long = String(repeating: "很長的一行記憶\n", count: 500)
        #expect(MemoryNotes.forPrompt(long)!.count == MemoryNotes.promptLimit + 1)
    }

    @Test func theCompanionReadsItAndSuggestsLinesButNeverWritesIt() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        let diary = try TestDiary()
        let id = try diary.draft("和阿明去海邊")
        var talk = Conversation(store: diary.store, providers: [remote(fake)], language: .zhHant, textLimit: 500)
        talk.notes = MemoryNotes.forPrompt("# 記憶\n- 阿明：常一起去海邊的朋友\n")
        _ = try await talk.send(entryId: id, text: "風好大", persona: .warm)
        let system = try #require(fake.chatRequests.last?.messages.first?.text)
        #expect(system.contains("[對方希望你記得的事（memory.md）]\n# 記憶\n- 阿明：常一起去海邊的朋友"))

        fake.enqueueChat(.reply(#"{"title":"海邊","summary":"我和阿明去了海邊。","tags":["旅行","海邊","朋友"],"memory_suggestions":["小白：阿明的狗", "", 5]}"#))
        let saved = try await talk.writePage(entryId: id, persona: .warm, usageDay: "2026-11-25")
        #expect(saved.memorySuggestions == ["小白：阿明的狗"], "only short lines of text")
        #expect(fake.chatRequests.last?.rawBody.contains("\"memory_suggestions\"") == true, "the schema asks for them")
        #expect(!FileManager.default.fileExists(atPath: MemoryNotes.file(diary.store.paths).path), "suggested, not written")

        talk.memory = .off
        _ = try await talk.send(entryId: try diary.draft("x"), text: "嗨", persona: .warm)
        #expect(fake.chatRequests.last?.messages.first?.text.contains("memory.md") == false)
    }
}
