import Foundation
import GRDB
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

/// Edits by hand, history, the star, the trash and the person's own order, on a real SQLite diary.
@Suite struct EntryEditsTests {
    @Test func anEditChangesTheFieldsAndKeepsTheVersionItReplaced() throws {
        let diary = try TestDiary()
        let id = try diary.page("海邊", tags: ["照片", "海"], at: moment("2026-11-20 10:00"))
        var edit = EntryEdit(title: "海邊的傍晚", addTags: ["基隆"], removeTags: ["照片"], place: "基隆")
        (edit.occurredAt, edit.timeZone) = (moment("2026-11-20 18:30", zone: "Asia/Tokyo"), TimeZone(identifier: "Asia/Tokyo"))
        #expect(try diary.store.edit(ids: [id], edit) == [id])

        let entry = try diary.store.entry(id: id)
        #expect(entry.title == "海邊的傍晚")
        #expect(entry.tags == ["海", "基隆"])
        #expect(entry.context.place == "基隆")
        #expect(entry.timeZone == "Asia/Tokyo" && entry.occurredAt == moment("2026-11-20 18:30", zone: "Asia/Tokyo"))
        #expect(entry.editedAt != nil)
        // Found by its new words and its new day, no longer by what was removed.
        let finder = Finder(store: diary.store)
        var request = FindRequest()
        request.keywords = "傍晚"
        #expect(try finder.find(request).hits.map(\.hit.entry.id) == [id])
        request.keywords = nil
        request.tags = ["照片"]
        #expect(try finder.find(request).hits.isEmpty)
        #expect(try diary.store.searchIndexIsConsistent())

        let history = try diary.store.history.versions(of: id)
        #expect(history.count == 1)
        #expect(history[0].title == "海邊" && history[0].tags == ["照片", "海"] && history[0].replacedBy == .person)
        #expect(history[0].timeZone == "Asia/Taipei" && history[0].place == nil)
        // Editing to the same values changes nothing and keeps no version.
        #expect(try diary.store.edit(ids: [id], EntryEdit(title: "海邊的傍晚")).isEmpty)
        #expect(try diary.store.history.versions(of: id).count == 1)
    }

    @Test func aNewPageFromTheCompanionKeepsThePersonsVersionAndIsTheCompanionsAgain() throws {
        let diary = try TestDiary()
        let id = try diary.page("原本的頁", tags: ["家"])
        _ = try diary.store.edit(ids: [id], EntryEdit(summary: "我自己改的內容"))
        try diary.store.savePage(entryId: id, title: "新的頁", summary: "夥伴重寫的", tags: ["家"], persona: "warm",
                                 provider: "offline", usageDay: "2026-11-22")
        let history = try diary.store.history.versions(of: id)
        #expect(history.map(\.summary) == ["我自己改的內容", "原本的頁"])
        #expect(history.map(\.replacedBy) == [.companion, .person])
        #expect(try diary.store.entry(id: id).editedAt == nil)
    }

    @Test func aNULNeverCutsAMessage() throws {
        let diary = try TestDiary()
        let id = try diary.page("海邊", tags: [])
        #expect(throws: StoreError.notText("message")) {
            try diary.store.appendMessage(entryId: id, author: .person, text: "前\0後", persona: "warm", provider: nil)
        }
        let answer = try diary.store.appendMessage(entryId: id, author: .companion, text: "前\0後", persona: "warm", provider: "x")
        #expect(answer.text == "前後")
        #expect(try diary.store.messages(entryId: id).map(\.text) == ["前後"], "stored whole, not cut at the NUL")
        #expect(throws: StoreError.lineBreak("place")) { try diary.store.edit(ids: [id], EntryEdit(place: "a\nb")) }
        try diary.store.savePage(entryId: id, title: "標\0題\n第二行", summary: "前\0後", tags: [], persona: "warm", provider: "x",
                                 usageDay: "2026-11-27")
        let page = try diary.store.entry(id: id)
        #expect(page.title == "標題 第二行" && page.summary == "前後", "a provider's page: no NUL, the title on one line")
    }

    @Test func editsOverManyPagesAreOneTransaction() throws {
        let diary = try TestDiary()
        var ids: [String] = []
        for index in 0..<500 { ids.append(try diary.page("第 \(index) 篇", tags: ["旅游"], at: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60))) }
        let trashed = try diary.page("回收桶裡的", tags: ["旅游"])
        _ = try diary.store.trash.put(ids: [trashed])
        // One page that cannot be changed stops them all: nothing is half done.
        #expect(throws: StoreError.inTrash(trashed)) {
            try diary.store.edit(ids: ids + [trashed], EntryEdit(addTags: ["旅遊"], removeTags: ["旅游"]))
        }
        #expect(try diary.store.tags.uses().map(\.name) == ["旅游"])
        #expect(try diary.store.edit(ids: ids, EntryEdit(addTags: ["旅遊"], removeTags: ["旅游"])).count == 500)
        #expect(try diary.store.tags.uses().map { "\($0.name) \($0.count)" } == ["旅遊 500"])
    }

    @Test func theTrashHidesAPageEverywhereUntilItComesBackOrIsPurged() throws {
        let diary = try TestDiary()
        let photo = MediaItem(kind: .photo, sha256: String(repeating: "a", count: 64), mime: "image/jpeg", fileExtension: "jpg", bytes: 3)
        let shared = try diary.draft("共用照片", at: moment("2026-11-20 09:00"), media: [photo])
        try diary.store.savePage(entryId: shared, title: "共用", summary: "共用", tags: ["海"], persona: "warm", provider: "offline", usageDay: "2026-11-20")
        let id = try diary.draft("要丟掉的", at: moment("2026-11-20 10:00"), media: [photo])
        try diary.store.savePage(entryId: id, title: "要丟掉的", summary: "要丟掉的", tags: ["海", "丟"], persona: "warm",
                                 provider: "offline", usageDay: "2026-11-20")
        let draft = try diary.draft("草稿")
        #expect(throws: StoreError.notSaved(draft)) { try diary.store.trash.put(ids: [draft]) }

        #expect(try diary.store.trash.put(ids: [id]) == [id])
        let finder = Finder(store: diary.store)
        var words = FindRequest()
        words.keywords = "丟掉"
        #expect(try finder.find(words).hits.isEmpty)
        #expect(try finder.count(FindRequest()) == 2, "the shared page and the draft")
        #expect(try diary.store.liveEntryCount() == 2)
        #expect(try diary.store.tags.uses().map { "\($0.name) \($0.count)" } == ["海 1"])
        #expect(try finder.calendar(month: "2026-11", FindRequest()).days[19].count == 1)
        #expect(!(try diary.store.entryIds(includingDeleted: false)).contains(id))
        #expect(throws: StoreError.inTrash(id)) { try diary.store.setStarred(ids: [id], true) }
        var trash = FindRequest()
        trash.inTrash = true
        #expect(try finder.find(trash).hits.map(\.hit.entry.id) == [id])
        #expect(try diary.store.searchIndexIsConsistent())

        #expect(try diary.store.trash.takeOut(ids: [id]) == [id])
        #expect(try finder.find(words).hits.map(\.hit.entry.id) == [id])
        #expect(try diary.store.tags.uses().map { "\($0.name) \($0.count)" }.sorted() == ["丟 1", "海 2"])
        #expect(try diary.store.searchIndexIsConsistent())

        _ = try diary.store.trash.put(ids: [id])
        // Purging keeps a file another page still shows.
        var purge = try diary.store.trash.purge(trashedBefore: Date().addingTimeInterval(60))
        #expect(purge.purged == [id] && purge.unusedMedia.isEmpty)
        let record = try #require(diary.store.entryRecords(ids: [id]).first)
        #expect(record.clock.deletedAt != nil && record.title == nil && record.summary == nil && record.note == nil)
        #expect(record.media.allSatisfy { $0.clock.deletedAt != nil })
        #expect(record.lines.allSatisfy { $0.clock.deletedAt != nil && $0.message.text.isEmpty })
        #expect(try finder.find(trash).hits.isEmpty)
        #expect(throws: StoreError.notInTrash(id)) { try diary.store.trash.takeOut(ids: [id]) }

        // The last page showing the file goes: the file is the caller's to remove.
        _ = try diary.store.trash.put(ids: [shared])
        purge = try diary.store.trash.purge(ids: [shared])
        #expect(purge.unusedMedia.map(\.sha256) == [photo.sha256])
    }

    @Test func aPageLeftInTheTrashLongerThanTheCutoffIsPurgedOthersStay() throws {
        let diary = try TestDiary()
        let old = try diary.page("舊的", tags: ["a"])
        let recent = try diary.page("新的", tags: ["a"])
        _ = try diary.store.trash.put(ids: [old, recent])
        try diary.store.write { db in
            try db.execute(sql: "UPDATE entry SET trashed_at = trashed_at - 31 * 86400000 WHERE id = ?", arguments: [old])
        }
        let purged = try diary.store.trash.purge(trashedBefore: Date().addingTimeInterval(-30 * 86_400))
        #expect(purged.purged == [old])
        #expect(try diary.store.trash.resolve(reference: String(recent.prefix(12))) == recent)
    }

    @Test func movesPutAPageBetweenItsNeighboursInOneWrite() throws {
        let diary = try TestDiary()
        let first = try diary.page("一", tags: ["x"], at: moment("2026-11-01 10:00"))
        let second = try diary.page("二", tags: ["x"], at: moment("2026-11-02 10:00"))
        let third = try diary.page("三", tags: ["x"], at: moment("2026-11-03 10:00"))
        let finder = Finder(store: diary.store)
        var manual = FindRequest()
        manual.order = .manual
        // Never moved: newest first, like the date order.
        #expect(try finder.find(manual).hits.map(\.hit.entry.id) == [third, second, first])
        try diary.store.move(id: first, relativeTo: third, before: true)
        #expect(try finder.find(manual).hits.map(\.hit.entry.id) == [first, third, second])
        try diary.store.move(id: second, relativeTo: first, before: false)
        #expect(try finder.find(manual).hits.map(\.hit.entry.id) == [first, second, third])
        // Moved pages keep the place they were given; a page written later takes its place
        // by date among the pages never moved.
        let fourth = try diary.page("四", tags: ["x"], at: moment("2026-11-04 10:00"))
        #expect(try finder.find(manual).hits.map(\.hit.entry.id) == [first, second, fourth, third])
        // Paging through the manual order neither skips nor repeats.
        manual.limit = 2
        let page1 = try finder.find(manual)
        manual.after = page1.hits.last!.cursor
        let page2 = try finder.find(manual)
        #expect((page1.hits + page2.hits).map(\.hit.entry.id) == [first, second, fourth, third])
        // Other orders are untouched by moves, and coming back keeps the manual one.
        var byDate = FindRequest()
        byDate.order = .occurred
        #expect(try finder.find(byDate).hits.map(\.hit.entry.id) == [fourth, third, second, first])
        let outbox = try diary.store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE table_name = 'entry' AND row_id = ?", arguments: [second]) }
        #expect(outbox == 1)
    }

    @Test func orderKeysAlwaysFitBetweenTheirNeighbours() {
        var keys = [OrderKey.fromMoment(millis: 1_700_000_000_000), OrderKey.fromMoment(millis: 1_600_000_000_000)]
        #expect(keys[0] < keys[1], "newer moments sort first")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let index = Int.random(in: 0...keys.count, using: &generator)
            let low: String? = index > 0 ? keys[index - 1] : nil
            let high: String? = index < keys.count ? keys[index] : nil
            let key = OrderKey.between(low, high)
            #expect(OrderKey.isValid(key))
            if let low { #expect(low < key) }
            if let high { #expect(key < high) }
            keys.insert(key, at: index)
        }
        #expect(keys == keys.sorted())
        #expect(keys.map(\.count).max()! < 64, "keys stay short under random moves")
    }

    @Test func renamingATagMergesItIntoTheOtherEverywhere() throws {
        let diary = try TestDiary()
        let a = try diary.page("甲", tags: ["旅游", "海"])
        let b = try diary.page("乙", tags: ["旅游", "旅遊"])
        _ = try diary.page("丙", tags: ["山"])
        #expect(try diary.store.tags.rename("旅游", to: "旅遊") == 2)
        #expect(try diary.store.entry(id: a).tags == ["旅遊", "海"])
        #expect(try diary.store.entry(id: b).tags == ["旅遊"])
        let uses = try diary.store.tags.uses()
        #expect(uses.first { $0.name == "旅遊" }?.count == 2)
        #expect(!uses.contains { $0.name == "旅游" })
        #expect(try diary.store.history.versions(of: b).first?.tags == ["旅游", "旅遊"])
    }

    @Test func aStarAndAnEditMadeApartBothSurviveAMerge() throws {
        let here = try TestDiary(), there = try TestDiary()
        let id = try here.page("同一篇", tags: ["家"])
        _ = try there.store.merge(try here.store.entryRecords(ids: [id]), source: .import)
        // Apart: starred here, the words edited there (later).
        _ = try here.store.setStarred(ids: [id], true)
        Thread.sleep(forTimeInterval: 0.01)
        _ = try there.store.edit(ids: [id], EntryEdit(title: "那邊改的標題"))
        _ = try here.store.merge(try there.store.entryRecords(ids: [id]), source: .sync)
        _ = try there.store.merge(try here.store.entryRecords(ids: [id]), source: .sync)
        for diary in [here, there] {
            let entry = try diary.store.entry(id: id)
            #expect(entry.starred && entry.title == "那邊改的標題")
        }
        #expect(try here.store.entryRecords(ids: [id]) == there.store.entryRecords(ids: [id]))
        #expect(try here.store.history.versions(of: id).first?.replacedBy == .sync)
        // Unstarring later wins over the older star wherever it arrives.
        _ = try there.store.setStarred(ids: [id], false)
        _ = try here.store.merge(try there.store.entryRecords(ids: [id]), source: .sync)
        #expect(try here.store.entry(id: id).starred == false)
    }
}
