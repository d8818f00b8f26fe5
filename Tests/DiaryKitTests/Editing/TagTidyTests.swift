import Foundation
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

/// The one-time clean-up of the filler tags older offline pages got, on a real SQLite diary.
@Suite struct TagTidyTests {
    /// An offline page written on an autumn evening, as the old tag picker tagged it.
    func oldPage(_ diary: TestDiary, note: String, tags: [String], said: [String] = [], provider: String = "offline") throws -> String {
        let id = try diary.draft(note, at: moment("2026-11-21 17:40"))
        for text in said { _ = try diary.store.appendMessage(entryId: id, author: .person, text: text, persona: "warm", provider: nil) }
        try diary.store.savePage(entryId: id, title: note, summary: note, tags: tags, persona: "warm", provider: provider, usageDay: "2026-11-21")
        return id
    }

    @Test func theFillersComeOffOfflinePagesOnlyAndOnlyWhereNobodySaidThem() throws {
        let diary = try TestDiary()
        let plain = try oldPage(diary, note: "散步", tags: ["散步", "隨筆", "傍晚"])
        let said = try oldPage(diary, note: "回家", tags: ["隨筆", "傍晚", "秋天"], said: ["秋天的傍晚最舒服"])
        // A model's tags are its choice; 清晨 and 夏天 are not the fillers of an autumn evening.
        _ = try oldPage(diary, note: "晚餐", tags: ["美食", "隨筆", "傍晚"], provider: "openai")
        _ = try oldPage(diary, note: "早上", tags: ["清晨", "夏天", "早餐"])

        let plan = try TagTidy.plan(diary.store)
        #expect(plan.map(\.id) == [plain, said])
        #expect(plan[0].tags == ["隨筆", "傍晚"])
        #expect(plan[1].tags == ["隨筆"], "秋天 and 傍晚 were the person's own words")
        #expect(try diary.store.entry(id: plain).tags == ["散步", "隨筆", "傍晚"], "planning changes nothing")
    }

    @Test func tidyingIsOneStepBackAndUndoPutsItBack() throws {
        let diary = try TestDiary()
        let kept = try oldPage(diary, note: "散步", tags: ["散步", "隨筆", "傍晚"])
        let trashedLater = try oldPage(diary, note: "跑步", tags: ["運動", "隨筆"])
        let changed = try diary.store.tags.tidy([kept: ["隨筆", "傍晚"], trashedLater: ["隨筆"]])
        #expect(Set(changed) == [kept, trashedLater])

        let entry = try diary.store.entry(id: kept)
        #expect(entry.tags == ["散步"])
        #expect(entry.editedAt == nil, "a clean-up is not an edit by hand: the companion may still rewrite the page")
        #expect(try diary.store.history.versions(of: kept).first?.tags == ["散步", "隨筆", "傍晚"], "the tagged version stays in history")
        #expect(try diary.store.tags.uses().first { $0.name == "隨筆" }?.count ?? 0 == 0)
        #expect(try diary.store.pendingChangeCount() > 0, "the change syncs")
        #expect(try diary.store.tags.tidy([kept: ["隨筆"]]).isEmpty, "a second run finds nothing to do")

        _ = try diary.store.trash.put(ids: [trashedLater])
        #expect(try diary.store.tags.restoreTidied() == [kept])
        #expect(try diary.store.entry(id: kept).tags == ["散步", "隨筆", "傍晚"])
        #expect(try diary.store.entry(id: trashedLater).tags == ["運動"], "a page in the trash is left alone")
        #expect(try diary.store.tags.restoreTidied().isEmpty, "undo happens once")
        #expect(try diary.store.searchIndexIsConsistent())
    }
}
