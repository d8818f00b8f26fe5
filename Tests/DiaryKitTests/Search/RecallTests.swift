@testable import DiaryCLI
@testable import DiaryKit
import FakeServers
import Foundation
import Testing

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
        #expect(OfflineCompanion.remembered(Recollection(entryId: "a", title: "Sea", day: "2026-10-03", excerpt: nil, matched: [],
                                                         sameDay: false, score: 1), english: true) == "On October 3, 2026 you wrote “Sea”.")
    }
}

/// Feelings over time: the counts per period equal a direct count of the pages, synonyms
/// of a feeling count as it, other tags and hidden pages do not, and empty periods stay.
@Suite struct TrendTests {
    @Test func countsPerPeriodEqualADirectCount() throws {
        let diary = try TestDiary()
        let pages: [(String, [String])] = [
            ("2026-09-03 10:00", ["開心", "工作"]), ("2026-09-20 10:00", ["快樂", "朋友"]), ("2026-09-21 10:00", ["焦慮"]),
            ("2026-11-02 10:00", ["happy", "放鬆"]), ("2026-11-10 10:00", ["旅行"]), ("2026-11-11 10:00", ["開心"]),
        ]
        var ids: [String] = []
        for (at, tags) in pages { ids.append(try diary.page("p", tags: tags, at: moment(at))) }
        _ = try diary.store.trash(ids: [ids[5]])
        let finder = Finder(store: diary.store)
        let months = try finder.trend(by: .month, FindRequest(), language: .zhHant)
        #expect(months.map(\.period) == ["2026-09", "2026-10", "2026-11"], "October has none and is still there")
        #expect(months[0].feelings.map(\.feeling) == ["開心", "焦慮"] && months[0].feelings.map(\.count) == [2, 1], "快樂 is 開心")
        #expect(months[1].total == 0 && months[2].feelings.map(\.feeling) == ["放鬆", "開心"], "the trashed page is not counted")
        #expect(months[0].from == "2026-09-01" && months[0].to == "2026-09-30" && months[2].to == "2026-11-30")

        // The same as counting the pages directly, period by period.
        for point in months {
            var direct = FindRequest()
            direct.from = point.from
            direct.to = point.to
            let found = try finder.find(direct).hits.map(\.hit.entry)
            let expected = found.flatMap { $0.tags.compactMap { Lexicon.feeling(ofTag: $0, language: .zhHant) } }.count
            #expect(point.total == expected, "\(point.period)")
        }

        var work = FindRequest()
        work.tags = ["工作"]
        #expect(try finder.trend(by: .month, work, language: .zhHant).map(\.total) == [1])
        let weeks = try finder.trend(by: .week, FindRequest(), language: .en)
        #expect(weeks.first?.period == "2026-W36" && weeks.first?.from == "2026-08-31" && weeks.first?.feelings.first?.feeling == "happy")
        #expect(weeks.count == 10 && weeks.reduce(0) { $0 + $1.total } == 5)
        #expect(try finder.trend(by: .day, FindRequest(), language: .en).count == 61, "3 September to 2 November, the last feeling")
    }

    @Test func weeksAndMonthsAreTheCalendarsOwn() {
        #expect(Finder.period(of: "2026-12-31", .week) == "2026-W53" && Finder.period(of: "2027-01-01", .week) == "2026-W53")
        #expect(Finder.period(of: "2024-12-30", .week) == "2025-W01" && Finder.firstDay(of: "2025-W01", .week) == "2024-12-30")
        #expect(Finder.lastDay(of: "2025-W01", .week) == "2025-01-05" && Finder.period(of: "2026-11-25", .week) == "2026-W48")
        #expect(Finder.lastDay(of: "2024-02", .month) == "2024-02-29" && Finder.lastDay(of: "2026-12", .month) == "2026-12-31")
        #expect(Finder.dayNumber("1970-01-01") == 0 && Finder.dayNumber("2000-03-01") == 11_017)
    }

    @Test func theChartIsBlocksAndColourOnlyWhenAsked() {
        let points = [TrendPoint(period: "2026-09", from: "2026-09-01", to: "2026-09-30", feelings: [("開心", 2), ("焦慮", 1)]),
                      TrendPoint(period: "2026-10", from: "2026-10-01", to: "2026-10-31", feelings: [])]
        let plain = Rendering.trendChart(points, color: false)
        let lines = plain.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[1] == "2026-10", "an empty period keeps its line")
        #expect(lines[0].hasPrefix("2026-09  ") && lines[0].hasSuffix("  開心 2 · 焦慮 1"))
        let bar = lines[0].dropFirst(9).dropLast("  開心 2 · 焦慮 1".count)
        #expect(bar.count == 40 && bar.allSatisfy { "█▏▎▍▌▋▊▉".contains($0) }, "the fullest period fills 40 columns: \(bar)")
        #expect(!plain.contains("\u{1B}"))
        let colored = Rendering.trendChart(points, color: true)
        #expect(colored.contains("\u{1B}[33m█\u{1B}[0m 開心") && colored.contains("\u{1B}[36m"))
    }
}

/// The per-tag, per-day counts and the number of live pages, which the store keeps by
/// triggers, stay equal to a count of the live pages and their tags through every kind of
/// write: saves, tag edits, new times, trash and back, purges, discarded drafts, renames,
/// merges (one page in two versions, trashed or deleted elsewhere) and a wipe.
@Suite struct TagDayCountTests {
    static func drift(_ diary: TestDiary) throws -> [String] {
        try diary.store.read { db in
            let live = try Int.fetchOne(db, sql: "SELECT live FROM entry_total")
            let livePages = try Int.fetchOne(db, sql: "SELECT count(*) FROM entry WHERE deleted_at IS NULL AND trashed_at IS NULL")
            guard live == livePages else { return ["entry_total \(live ?? -1), live pages \(livePages ?? -1)"] }
            let kept = Set(try String.fetchAll(db, sql: "SELECT tag_id || '|' || local_date || '|' || n FROM tag_day WHERE n != 0"))
            let counted = Set(try String.fetchAll(db, sql: """
                SELECT et.tag_id || '|' || e.local_date || '|' || count(*) FROM entry_tag et JOIN entry e ON e.id = et.entry_id
                WHERE e.deleted_at IS NULL AND e.trashed_at IS NULL GROUP BY et.tag_id, e.local_date
                """))
            return Array(kept.symmetricDifference(counted)).sorted()
        }
    }

    @Test func theKeptCountsFollowEveryWrite() throws {
        let diary = try TestDiary()
        let store = diary.store
        let a = try diary.page("a", tags: ["開心", "工作"], at: moment("2026-11-01 10:00"))
        let b = try diary.page("b", tags: ["開心"], at: moment("2026-11-01 20:00"))
        let c = try diary.page("c", tags: ["焦慮", "工作"], at: moment("2026-11-03 09:00"))
        #expect(try Self.drift(diary) == [])
        _ = try store.edit(ids: [a], EntryEdit(addTags: ["放鬆"], removeTags: ["工作"]))
        #expect(try Self.drift(diary) == [], "tags added and removed")
        _ = try store.edit(ids: [b], EntryEdit(occurredAt: moment("2026-12-24 10:00"), timeZone: TimeZone(identifier: "Asia/Taipei")!))
        #expect(try Self.drift(diary) == [], "a new day")
        _ = try store.trash(ids: [c])
        #expect(try Self.drift(diary) == [], "to the trash")
        _ = try store.untrash(ids: [c])
        #expect(try Self.drift(diary) == [], "back from the trash")
        _ = try store.trash(ids: [a])
        _ = try store.purge(ids: [a])
        #expect(try Self.drift(diary) == [], "purged")
        _ = try store.renameTag("開心", to: "快樂")
        #expect(try Self.drift(diary) == [], "renamed")
        let draft = try diary.draft("草稿")
        _ = try store.edit(ids: [draft], EntryEdit(addTags: ["期待"]))
        _ = try store.discard(entryId: draft)
        #expect(try Self.drift(diary) == [], "a tagged draft discarded")

        // Another diary's records merged in, then one of them changed there and merged again.
        let other = try TestDiary()
        let d = try other.page("d", tags: ["開心", "海邊"], at: moment("2026-11-05 10:00"))
        _ = try store.merge(try other.store.entryRecords(ids: [d]), source: "import")
        #expect(try Self.drift(diary) == [], "merged")
        _ = try other.store.edit(ids: [d], EntryEdit(removeTags: ["海邊"], occurredAt: moment("2026-11-06 10:00"),
                                                    timeZone: TimeZone(identifier: "Asia/Taipei")!))
        _ = try store.merge(try other.store.entryRecords(ids: [d]), source: "import")
        #expect(try Self.drift(diary) == [], "merged again, changed")
        #expect(try Finder(store: store).trend(by: .month, FindRequest(), language: .zhHant).map(\.total) == [2, 1],
                "November: 焦慮 on c and 開心 on d; December: b's 快樂 (renamed from 開心), counted as 開心")
        let e = try other.page("e", tags: ["海邊", "工作"], at: moment("2026-11-07 10:00"))
        let firstVersion = try other.store.entryRecords(ids: [e])
        _ = try other.store.edit(ids: [e], EntryEdit(addTags: ["放鬆"], removeTags: ["工作"], occurredAt: moment("2026-11-08 10:00"),
                                                    timeZone: TimeZone(identifier: "Asia/Taipei")!))
        _ = try store.merge(firstVersion + (try other.store.entryRecords(ids: [e])), source: "import")
        #expect(try Self.drift(diary) == [], "one page in two versions in one merge")
        _ = try store.trash(ids: [e])
        #expect(try Self.drift(diary) == [], "trashed here")
        _ = try store.untrash(ids: [e])
        _ = try other.store.trash(ids: [e])
        _ = try store.merge(try other.store.entryRecords(ids: [e]), source: "import")
        #expect(try Self.drift(diary) == [], "trashed there")
        _ = try other.store.trash(ids: [d])
        _ = try other.store.purge(ids: [d])
        _ = try store.merge(try other.store.entryRecords(ids: [d]), source: "import")
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry WHERE id = ? AND deleted_at IS NOT NULL", arguments: [d]) } == 1)
        #expect(try Self.drift(diary) == [], "deleted there")

        try store.wipeAll()
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tag_day WHERE n != 0") } == 0)
    }
}
