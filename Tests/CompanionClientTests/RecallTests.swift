@testable import CompanionClient
@testable import DiaryKit
import FakeServers
import Foundation
import Testing
@testable import DiaryTestSupport

/// Recall on a small fixed diary whose answers are known: two earlier sea pages (one shares
/// the person's words, one only its tag), a mountain and two work pages that must not come
/// up, ten ordinary days, a sea draft and a later sea page that must not either, and a page
/// from this day last year.
@Suite(.serialized) struct RecallTests {
    struct Corpus {
        let diary: TestDiary
        let sea: String
        let summer: String
        let lastYear: String
        let unrelated: [String]
        let now: String
    }

    static func page(_ diary: TestDiary, _ title: String, _ summary: String, tags: [String], at: String, place: String? = nil) throws -> String {
        let id = try diary.draft(nil, at: moment(at))
        try diary.store.savePage(entryId: id, title: title, summary: summary, tags: tags, persona: "warm", provider: "offline",
                                 usageDay: String(at.prefix(10)))
        if let place { try diary.store.setContext(entryId: id, context: EntryContext(place: place)) }
        return id
    }

    static func corpus() throws -> Corpus {
        let diary = try TestDiary()
        let sea = try page(diary, "浪很大，心很靜", "和阿明去八斗子看海，浪打上岸邊，心卻很安靜。", tags: ["海邊", "朋友"], at: "2026-10-03 16:00")
        let summer = try page(diary, "夏天的沙灘", "赤腳走在沙灘上，海水很涼。", tags: ["海邊", "夏天"], at: "2026-08-15 10:00")
        let mountain = try page(diary, "爬七星山", "山上的風很冷，雲霧很多，登山步道很滑。", tags: ["登山", "運動"], at: "2026-09-10 09:00")
        let overtime = try page(diary, "加班的夜晚", "會議開到很晚，報告還沒寫完，很累。", tags: ["工作", "疲累"], at: "2026-10-20 22:00")
        let project = try page(diary, "新專案", "新的專案開始了，同事很友善。", tags: ["工作"], at: "2026-11-01 12:00")
        var unrelated = [mountain, overtime, project]
        for day in 1...10 {
            unrelated.append(try page(diary, "平凡的一天 \(day)", "今天很平凡，吃了早餐，看了一本書。", tags: ["日常"],
                                      at: String(format: "2026-07-%02d 08:00", day)))
        }
        unrelated.append(try diary.draft("和阿明在海邊的草稿", at: moment("2026-09-01 10:00")))
        unrelated.append(try page(diary, "之後又去海邊", "和阿明再去海邊。", tags: ["海邊"], at: "2026-11-22 10:00"))
        let lastYear = try page(diary, "去年的今天", "整理房間，找到舊照片。", tags: ["家"], at: "2025-11-20 20:00")

        let now = try diary.draft("又來到這片海", at: moment("2026-11-20 18:00"))
        try diary.store.setAnalysis(entryId: now, text: "海邊的礁石，海浪拍打岸邊，天色灰藍。", provider: "fake")
        try diary.store.appendMessage(entryId: now, author: .person, text: "上次是跟阿明一起來的", persona: "warm", provider: nil)
        return Corpus(diary: diary, sea: sea, summer: summer, lastYear: lastYear, unrelated: unrelated, now: now)
    }

    static func asked(_ corpus: Corpus) throws -> Recall.Moment {
        let entry = try corpus.diary.store.entry(id: corpus.now, includeMessages: true)
        return Recall.Moment(entry, said: (entry.messages ?? []).filter { $0.author == .person }.map(\.text))
    }

    @Test func theEarlierSeaPagesAreRecalledAndNothingElse() throws {
        let corpus = try Self.corpus()
        let picks = try Recall(store: corpus.diary.store).recollections(for: try Self.asked(corpus))
        #expect(picks.map(\.entryId) == [corpus.sea, corpus.summer, corpus.lastYear])
        #expect(Set(picks.map(\.entryId)).isDisjoint(with: corpus.unrelated), "no mountain, work, draft or later page")
        let sea = try #require(picks.first)
        #expect(sea.title == "浪很大，心很靜" && sea.day == "2026-10-03" && sea.excerpt?.hasPrefix("和阿明去八斗子") == true)
        #expect(Set(sea.matched).isSuperset(of: ["阿明", "海邊", "岸邊"]), "\(sea.matched)")
        #expect(picks[1].matched == ["海邊"], "a page sharing only its tag, in other words")
        #expect(picks[2].sameDay && picks[2].day == "2025-11-20")

        // Fewer wanted: the closest ones, and this day in an earlier year keeps a place.
        let two = try Recall(store: corpus.diary.store, limit: 2).recollections(for: try Self.asked(corpus))
        #expect(two.map(\.entryId) == [corpus.sea, corpus.lastYear])
        #expect(try Recall(store: corpus.diary.store, limit: 0).recollections(for: try Self.asked(corpus)).isEmpty)
    }

    @Test func oneCommonWordIsNotAThread() throws {
        let corpus = try Self.corpus()
        let entry = try corpus.diary.store.entry(id: corpus.now)
        // Only a word shared with one page, and no tag or place: chance, not a memory.
        let chance = Recall.Moment(entryId: entry.id, occurredAt: entry.occurredAt, zone: entry.zone, texts: [("同事", 2)])
        #expect(try Recall(store: corpus.diary.store).recollections(for: chance).allSatisfy(\.sameDay))
    }

    // MARK: In the talk

    func conversation(_ corpus: Corpus, _ providers: [any ChatProvider], memory: MemoryScope) -> Conversation {
        var talk = Conversation(store: corpus.diary.store, providers: providers, language: .zhHant, textLimit: 500)
        talk.memory = memory
        return talk
    }

    @Test func theTurnCarriesTheEarlierPagesWithinTheBudgetOrNoneWhenOff() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        let corpus = try Self.corpus()
        _ = try await conversation(corpus, [remote(fake)], memory: .pages).retry(entryId: corpus.now, persona: .warm)
        let system = try #require(fake.chatRequests.last?.messages.first?.text)
        #expect(system.contains("[對方以前寫過的日記]") && system.contains("只在真的貼切時"))
        #expect(system.contains("- 2026-10-03 〈浪很大，心很靜〉 和阿明去八斗子") && system.contains("(\(corpus.sea.prefix(8)))"))
        #expect(system.contains("2025-11-20 (往年的今天) 〈去年的今天〉"))
        #expect(!system.contains("加班") && !system.contains("七星山"))

        _ = try await conversation(corpus, [remote(fake)], memory: .titles).send(entryId: corpus.now, text: "還記得嗎", persona: .warm)
        let titles = try #require(fake.chatRequests.last?.messages.first?.text)
        #expect(titles.contains("〈浪很大，心很靜〉") && !titles.contains("八斗子"), "titles only: no page text leaves")

        _ = try await conversation(corpus, [remote(fake)], memory: .off).send(entryId: corpus.now, text: "還記得嗎", persona: .warm)
        let off = try #require(fake.chatRequests.last?.messages.first?.text)
        #expect(!off.contains("以前寫過的日記") && !off.contains("浪很大"))
    }

    @Test func theBlockStaysWithinItsBudgetHoweverManyPages() throws {
        let diary = try TestDiary()
        let entry = try diary.store.entry(id: try diary.draft("x"))
        var request = CompanionRequest(language: .zhHant, persona: .warm, entry: entry, history: [])
        request.memories = (1...30).map { index in
            Recollection(entryId: UUIDv7.make(), title: "很長的標題 \(index)", day: "2026-01-01",
                         excerpt: String(repeating: "很長的一段日記內容", count: 8), matched: ["海邊"], sameDay: false, score: 1)
        }
        let block = PromptBuilder(request: request).memoryBlock()
        let cost = TokenEstimate.of([.object([("role", .string("system")), ("content", .string(block))])])
        #expect(cost <= PromptBuilder.memoryBudget && block.split(separator: "\n").count > 2, "\(cost) tokens")
    }

    @Test func theOfflineCompanionNamesTheDayAndTitle() async throws {
        let corpus = try Self.corpus()
        let opened = try await conversation(corpus, [OfflineCompanion()], memory: .pages).open(entryId: corpus.now, persona: .warm)
        let greeting = try #require(opened.messages.first?.text)
        #expect(greeting.contains("你在 2026 年 10 月 3 日也寫過〈浪很大，心很靜〉。"), "\(greeting)")
        let other = try Self.corpus()
        let again = try await conversation(other, [OfflineCompanion()], memory: .off).open(entryId: other.now, persona: .warm)
        #expect(again.messages.first?.text.contains("也寫過") == false)
        let sea = Recollection(entryId: "a", title: "Sea", day: "2026-10-03", excerpt: nil, matched: [], sameDay: false, score: 1)
        #expect(OfflineCompanion.remembered(sea, today: "2026-11-20", english: true) == "On October 3, 2026 you wrote “Sea”.")
        // A page of the same day is no memory of another day.
        #expect(OfflineCompanion.remembered(sea, today: "2026-10-03", english: true) == "Earlier today you wrote “Sea”.")
        #expect(OfflineCompanion.remembered(sea, today: "2026-10-03", english: false) == "你今天稍早也寫過〈Sea〉。")
    }

    @Test func wordsThatOnlyPutASentenceTogetherNeverMakeAPick() throws {
        let diary = try TestDiary()
        // Two pages about different things that share only 去了 and 了一 (and 一個).
        let tokyo = try Self.page(diary, "東京", "去了東京，喝了一杯咖啡，買了一個杯子。", tags: ["旅行"], at: "2026-11-01 10:00")
        _ = try Self.page(diary, "日常", "今天很平凡。", tags: ["日常"], at: "2026-11-02 10:00")
        _ = try Self.page(diary, "又一天", "讀書，散步。", tags: ["日常"], at: "2026-11-03 10:00")
        let film = try diary.draft("去了電影院，看了一部電影，買了一個爆米花。", at: moment("2026-11-20 18:00"))
        let entry = try diary.store.entry(id: film)
        let picks = try Recall(store: diary.store).recollections(for: Recall.Moment(entry, said: []))
        #expect(!picks.contains { $0.entryId == tokyo }, "\(picks.map(\.matched))")
        #expect(Recall.isFunctionTerm("去了") && Recall.isFunctionTerm("了一") && Recall.isFunctionTerm("一個") && Recall.isFunctionTerm("the"))
        #expect(!Recall.isFunctionTerm("東京") && !Recall.isFunctionTerm("咖啡") && !Recall.isFunctionTerm("coffee"))
    }
}
