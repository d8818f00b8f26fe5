import Foundation
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

@Suite struct FinderTests {
    /// A small fixed corpus over several years and zones.
    func corpus() throws -> (TestDiary, [String: String]) {
        let diary = try TestDiary()
        var ids: [String: String] = [:]
        ids["leap"] = try diary.page("开心的一天，发了照片", tags: ["朋友"], at: moment("2024-02-29 12:00"))
        ids["beach"] = try diary.page("今天去海邊散步，很開心", tags: ["旅行", "海邊"], at: moment("2025-07-14 18:00"))
        ids["coffee"] = try diary.page("Coffee with Mei, 聊到很晚", tags: ["朋友", "咖啡"], at: moment("2025-08-02 10:00"))
        ids["newyear"] = try diary.page("跨年煙火", tags: ["旅行", "節日"], at: moment("2025-12-31 23:59"))
        // 20:00 on 31 December in Los Angeles is already 1 January in Taipei and in UTC.
        ids["losAngeles"] = try diary.page("在洛杉磯看煙火", tags: ["旅行"], at: moment("2025-12-31 20:00", zone: "America/Los_Angeles"),
                                           zone: "America/Los_Angeles")
        ids["work"] = try diary.page("加班到很晚，有點焦慮", tags: ["工作", "焦慮"], at: moment("2026-11-20 23:30"))
        ids["tired"] = try diary.draft("今天好累", at: moment("2026-11-21 08:00"))
        try diary.store.appendMessage(entryId: ids["tired"]!, author: .companion, text: "要不要去海邊走走？", persona: "warm", provider: "offline")
        ids["draft"] = try diary.draft("還沒寫完的海邊", at: moment("2026-11-21 09:00"))
        return (diary, ids)
    }

    let taipei = TimeZone(identifier: "Asia/Taipei")!

    func finder(_ diary: TestDiary, today: String = "2026-11-21 12:00") -> Finder {
        Finder(store: diary.store, today: moment(today), zone: taipei)
    }

    func find(_ diary: TestDiary, today: String = "2026-11-21 12:00", _ configure: (inout FindRequest) -> Void) throws -> [String] {
        var request = FindRequest()
        configure(&request)
        return try finder(diary, today: today).find(request).hits.map(\.hit.entry.id)
    }

    /// Every name of the place is found like the person's own words, also in a diary whose
    /// index was made before place names were in it (the migration rebuilds it).
    @Test func placeNamesAreFoundAlsoAfterAnUpgrade() throws {
        let diary = try TestDiary()
        let id = try diary.page("風很大", tags: ["旅行"], at: moment("2026-11-20 18:00"))
        _ = try diary.page("Wandering notes", tags: ["散步"], at: moment("2026-11-20 19:00"))
        try diary.store.setContext(entryId: id, context: EntryContext(place: "八斗子漁港", locality: "Wanniassa", region: "ACT", country: "Australia"))
        for word in ["八斗子", "Wanniassa", "austral", "ACT"] {
            #expect(try find(diary) { $0.keywords = word } == [id], "\(word)")
        }
        // As a diary before v9 had it: an index without the place column.
        try diary.store.write { db in
            try db.execute(sql: """
                DROP TABLE entry_vocabulary;
                DROP TABLE entry_fts;
                CREATE VIRTUAL TABLE entry_fts USING fts5(title, summary, note, transcript, tags, person_chat, analysis, companion_chat,
                                                          tokenize = 'diary_bigram');
                CREATE VIRTUAL TABLE entry_vocabulary USING fts5vocab(entry_fts, row);
                INSERT INTO entry_fts(rowid, title, summary) SELECT moment_key, title, summary FROM entry;
                DELETE FROM grdb_migrations WHERE identifier = 'v9-searchable-place-names';
                """)
        }
        let reopened = try DiaryStore.open(diary.store.paths)
        func findAgain(_ words: String) throws -> [String] {
            var request = FindRequest()
            request.keywords = words
            return try Finder(store: reopened, today: moment("2026-11-21 12:00"), zone: taipei).find(request).hits.map(\.hit.entry.id)
        }
        #expect(try findAgain("Wanniassa") == [id])
        #expect(try findAgain("風很大") == [id], "the rest of the page is indexed again too")
        #expect(try reopened.integrityCheck())
    }

    @Test func twoCharacterChineseWordsAndMixedLanguage() throws {
        let (diary, ids) = try corpus()
        #expect(try find(diary) { $0.keywords = "散步" } == [ids["beach"]!])
        #expect(try find(diary) { $0.keywords = "海" } == [ids["draft"]!, ids["beach"]!, ids["tired"]!], "a single character")
        #expect(try find(diary) { $0.keywords = "去海邊散步" } == [ids["beach"]!], "a longer phrase")
        #expect(try find(diary) { $0.keywords = "邊散步去" }.isEmpty, "characters out of order are not the phrase")
        #expect(try find(diary) { $0.keywords = "邊，散" } == [ids["beach"]!], "two one-character words, each found")
        #expect(try find(diary) { $0.keywords = "海，步" } == [ids["beach"]!])
        #expect(try find(diary) { $0.keywords = "海步" }.isEmpty, "but together they are a word the page does not have")
        #expect(try find(diary) { $0.keywords = "coff 很晚" } == [ids["coffee"]!], "English prefix and Chinese together")
        #expect(try find(diary) { $0.keywords = "COFFEE mei" } == [ids["coffee"]!], "case folds")
        #expect(try find(diary) { $0.keywords = "很晚" } == [ids["work"]!, ids["coffee"]!])
        #expect(try find(diary) { $0.keywords = "煙火" } == [ids["losAngeles"]!, ids["newyear"]!])
    }

    @Test func traditionalAndSimplifiedFindEachOther() throws {
        let (diary, ids) = try corpus()
        #expect(try find(diary) { $0.keywords = "開心" } == [ids["beach"]!, ids["leap"]!])
        #expect(try find(diary) { $0.keywords = "开心" } == [ids["beach"]!, ids["leap"]!])
        #expect(try find(diary) { $0.keywords = "發" } == [ids["leap"]!], "發 finds 发")
        #expect(try find(diary) { $0.keywords = "海边散步" } == [ids["beach"]!])
    }

    @Test func thePersonsOwnWordsRankAboveTheCompanions() throws {
        let (diary, ids) = try corpus()
        #expect(try find(diary) { $0.keywords = "海邊" } == [ids["draft"]!, ids["beach"]!, ids["tired"]!],
                "newest first among the person's words, then the entry where only the companion said it")
        #expect(try find(diary) { $0.keywords = "海邊"; $0.order = .occurred } == [ids["draft"]!, ids["tired"]!, ids["beach"]!])
    }

    @Test func aPageIsNotFoundForTheTitlesTheCompanionRecalled() throws {
        let diary = try TestDiary()
        let tokyo = try diary.page("在東京喝了一杯咖啡，很放鬆", tags: ["旅行"], at: moment("2026-11-20 10:00"))
        let film = try diary.page("看了一部電影", tags: ["電影"], at: moment("2026-11-21 10:00"))
        try diary.store.appendMessage(entryId: film, author: .companion, text: "你在 2026 年 11 月 20 日也寫過〈在東京喝了一杯咖啡〉。電影好看嗎？",
                                      persona: "warm", provider: "offline")
        try diary.store.appendMessage(entryId: film, author: .companion, text: "On November 20, 2026 you wrote “Tokyo coffee”.",
                                      persona: "warm", provider: "offline")
        #expect(try find(diary) { $0.keywords = "東京" } == [tokyo], "the film page does not match the title it quoted")
        #expect(try find(diary) { $0.keywords = "Tokyo" }.isEmpty)
        #expect(try find(diary) { $0.keywords = "電影好看" } == [film], "its own talk still does")
        #expect(DiaryStore.withoutQuotes("a〈b〉c “d” e〈unclosed\nf") == "ac  e〈unclosed\nf")
    }

    @Test func snippetsQuoteTheTextWithTheMatchMarked() throws {
        let (diary, _) = try corpus()
        var request = FindRequest()
        request.keywords = "散步"
        let hit = try #require(try finder(diary).find(request).hits.first?.hit)
        #expect(hit.snippet?.contains("去海邊\u{2}散步\u{3}") == true, "\(hit.snippet ?? "nil")")
        request.keywords = nil
        #expect(try finder(diary).find(request).hits.allSatisfy { $0.hit.snippet == nil }, "no words, no snippet")
    }

    @Test func tagsNarrowTheSearch() throws {
        let (diary, ids) = try corpus()
        #expect(try find(diary) { $0.tags = ["旅行"] } == [ids["losAngeles"]!, ids["newyear"]!, ids["beach"]!])
        #expect(try find(diary) { $0.tags = ["旅行"]; $0.keywords = "煙火" } == [ids["losAngeles"]!, ids["newyear"]!])
        #expect(try find(diary) { $0.tags = ["旅行"]; $0.keywords = "開心" } == [ids["beach"]!], "the search stays inside the tag")
        #expect(try find(diary) { $0.tags = ["旅行", "海邊"] } == [ids["beach"]!], "repeated tags mean all of them")
        #expect(try find(diary) { $0.tags = ["旅行", "沒有這個"] }.isEmpty)
        #expect(try find(diary) { $0.anyTags = ["工作", "咖啡", "沒有這個"] } == [ids["work"]!, ids["coffee"]!])
        #expect(try find(diary) { $0.tags = ["旅行"]; $0.notTags = ["節日", "海邊"] } == [ids["losAngeles"]!])
        #expect(try find(diary) { $0.notTags = ["旅行", "朋友"]; $0.statuses = [.saved] } == [ids["work"]!])
        #expect(try find(diary) { $0.tags = ["＂旅行 ＂"] }.count == 3, "width, quotes and space fold away")
        #expect(try find(diary) { $0.tags = ["  #旅行"] }.count == 3)
    }

    @Test func datesFollowEachEntrysLocalDay() throws {
        let (diary, ids) = try corpus()
        #expect(try find(diary) { $0.on = "2025-12" } == [ids["losAngeles"]!, ids["newyear"]!], "both New Year's Eves stay in December")
        #expect(try find(diary) { $0.on = "2025-12-31" } == [ids["losAngeles"]!, ids["newyear"]!])
        #expect(try find(diary) { $0.on = "2026-01-01" }.isEmpty, "Los Angeles' evening is not Taipei's New Year's Day")
        #expect(try find(diary) { $0.on = "2025" }.count == 4)
        #expect(try find(diary) { $0.from = "2025-08"; $0.to = "2025-12-31" } == [ids["losAngeles"]!, ids["newyear"]!, ids["coffee"]!])
        #expect(try find(diary) { $0.keywords = "煙火"; $0.to = "2025-12-31" } == [ids["losAngeles"]!, ids["newyear"]!])
        #expect(try find(diary) { $0.on = "today" } == [ids["draft"]!, ids["tired"]!])
        #expect(try find(diary) { $0.on = "yesterday" } == [ids["work"]!])
        #expect(try find(diary, today: "2026-01-01 00:30") { $0.on = "yesterday" } == [ids["losAngeles"]!, ids["newyear"]!],
                "yesterday across a year end")
        #expect(throws: SearchError.badDate("2025-02-30")) { try find(diary) { $0.on = "2025-02-30" } }
        #expect(throws: SearchError.badDate("2025-13")) { try find(diary) { $0.on = "2025-13" } }
        #expect(throws: SearchError.badDate("soon")) { try find(diary) { $0.from = "soon" } }
    }

    @Test func thisDayInHistory() throws {
        let (diary, ids) = try corpus()
        #expect(try find(diary, today: "2028-02-29 08:00") { $0.todayInHistory = true } == [ids["leap"]!])
        #expect(try find(diary, today: "2027-02-28 08:00") { $0.todayInHistory = true } == [ids["leap"]!],
                "in a common year, 28 February also remembers the 29th")
        #expect(try find(diary, today: "2028-02-28 08:00") { $0.todayInHistory = true }.isEmpty, "a leap year has its own 29th")
        #expect(try find(diary, today: "2026-07-14 08:00") { $0.todayInHistory = true } == [ids["beach"]!])
        #expect(try find(diary, today: "2025-07-14 20:00") { $0.todayInHistory = true }.isEmpty, "earlier years only")
        #expect(try find(diary, today: "2026-12-31 08:00") { $0.todayInHistory = true } == [ids["losAngeles"]!, ids["newyear"]!])
    }

    @Test func sortOrders() throws {
        let (diary, ids) = try corpus()
        #expect(try find(diary) { $0.order = .title; $0.statuses = [.saved] }
                    == [ids["coffee"]!, ids["beach"]!, ids["work"]!, ids["losAngeles"]!, ids["leap"]!, ids["newyear"]!],
                "A to Z, case ignored; Chinese by code point")
        #expect(try find(diary) { $0.order = .title }.suffix(2) == [ids["draft"]!, ids["tired"]!], "untitled drafts last")
        let created = try find(diary) { $0.order = .created }.map { try diary.store.entry(id: $0).createdAt }
        #expect(created.count == 8)
        #expect(zip(created, created.dropFirst()).allSatisfy { $0 >= $1 }, "newest written first")
        // Touch the oldest page: it becomes the most recently updated.
        try diary.store.setPersona(entryId: ids["leap"]!, persona: "calm")
        #expect(try find(diary) { $0.order = .updated }.first == ids["leap"]!)
        #expect(try find(diary) { $0.order = .updated; $0.keywords = "開心" } == [ids["leap"]!, ids["beach"]!])
    }

    @Test(arguments: EntryOrder.allCases)
    func pagesNeverSkipOrRepeatWhileNewPagesAreWritten(order: EntryOrder) throws {
        let (diary, ids) = try corpus()
        let words = order == .relevance ? "海" : nil
        func page(after cursor: String?) throws -> FindResult {
            var request = FindRequest()
            request.keywords = words
            request.order = order
            request.limit = 2
            request.after = cursor
            return try finder(diary).find(request)
        }
        var request = FindRequest()
        request.keywords = words
        request.order = order
        let before = try finder(diary).find(request).hits.map(\.hit.entry.id)
        var seen: [String] = []
        var cursor: String?
        var round = 0
        repeat {
            let result = try page(after: cursor)
            seen += result.hits.map(\.hit.entry.id)
            cursor = result.hits.last?.cursor
            // Write while paging: a newer page, and one from long ago.
            try diary.page("新的海邊 \(round)", tags: ["新"], at: Date())
            try diary.page("很久以前的海 \(round)", tags: ["舊"], at: moment("2001-01-0\(round % 9 + 1) 12:00"))
            round += 1
            if !result.more { break }
        } while round < 40
        #expect(Set(seen).count == seen.count, "no entry twice: \(seen)")
        #expect(before.allSatisfy(seen.contains), "every entry that was there at the start is shown once")
        #expect(ids.count == 8)
    }

    /// Page by page (as a piped diary-find prints) gives exactly the one-query answer, in
    /// every order, with and without words and a limit.
    @Test(arguments: EntryOrder.allCases)
    func hitsPageByPageAreTheWholeAnswer(order: EntryOrder) throws {
        let (diary, _) = try corpus()
        for round in 0..<23 { try diary.page("海邊 \(round)", tags: ["海"], at: moment("2026-0\(round % 9 + 1)-1\(round % 10) 12:00")) }
        for words in [order == .relevance ? "海" : nil, nil, "海邊"] as [String?] {
            for limit in [nil, 5, 7, 31] as [Int?] {
                var request = FindRequest()
                request.keywords = words
                request.order = order
                request.limit = limit
                let whole = try finder(diary).find(request)
                var paged: [String] = []
                let last = try finder(diary).forEachHit(request, pageSize: 3) { hit, _ in paged.append(hit.entry.id) }
                let label = "\(order) \(words ?? "-") \(limit.map(String.init) ?? "-")"
                #expect(paged == whole.hits.map(\.hit.entry.id), "\(label)")
                #expect(last.more == whole.more, "\(label)")
                #expect(last.emptyReason == whole.emptyReason, "\(label)")
                if whole.more { #expect(last.hits.last?.cursor == whole.hits.last?.cursor, "\(label)") }
            }
        }
        var nothing = FindRequest()
        nothing.keywords = "沒有這個字"
        #expect(try finder(diary).forEachHit(nothing, pageSize: 3) { _, _ in Issue.record("no hit expected") }.emptyReason == .noMatch)
    }

    @Test func cursorsBelongToTheirOrder() throws {
        let (diary, _) = try corpus()
        var request = FindRequest()
        request.limit = 1
        let cursor = try #require(try finder(diary).find(request).hits.first?.cursor)
        request.after = cursor
        request.order = .title
        #expect(throws: SearchError.badCursor(cursor)) { try finder(diary).find(request) }
        request.order = nil
        request.after = "not a cursor!"
        #expect(throws: SearchError.badCursor("not a cursor!")) { try finder(diary).find(request) }
    }

    @Test func hostileQueriesReturnNormally() throws {
        let (diary, ids) = try corpus()
        let hostile = ["NEAR(\"a\" b)", "*", "\"", "\"\"\"", "-", ":", "title:海邊", "{title}: 海邊", "海邊 OR 焦慮", "海邊 NOT 散步",
                       "^海", "a AND", "(", ")", "'", "';DROP TABLE entry;--", "%", "_", "\\", "\u{0}", "海邊*", "+-*/", "NEAR",
                       String(repeating: "海", count: 5000), "🙂", "​"]
        for query in hostile {
            var request = FindRequest()
            request.keywords = query
            _ = try finder(diary).find(request)
            _ = try finder(diary).count(request)
        }
        #expect(try find(diary) { $0.keywords = "海邊 OR 焦慮" }.isEmpty, "OR is a word here, not an operator")
        #expect(try find(diary) { $0.keywords = "title:海邊" }.isEmpty, "no column filter from words: title is a word to find")
        #expect(try find(diary) { $0.keywords = "{title}: 海邊" }.isEmpty)
        #expect(try find(diary) { $0.keywords = "海邊 NOT 散步" }.isEmpty, "NOT cannot narrow: it is a word that must match")
        #expect(try diary.store.searchIndexIsConsistent())
    }

    @Test func countsAndCalendar() throws {
        let (diary, _) = try corpus()
        var request = FindRequest()
        #expect(try finder(diary).count(request) == 8)
        request.keywords = "海邊"
        #expect(try finder(diary).count(request) == 3)
        request.keywords = nil
        let december = try finder(diary).calendar(month: "2025-12", request)
        #expect(december.days.count == 31)
        #expect(december.firstWeekday == 0, "1 December 2025 is a Monday")
        #expect(december.days.filter { $0.count > 0 } == [DayCount(day: "2025-12-31", count: 2)])
        let february = try finder(diary).calendar(month: "2024-2", request)
        #expect(february.days.count == 29)
        #expect(february.firstWeekday == 3, "1 February 2024 is a Thursday")
        request.tags = ["工作"]
        #expect(try finder(diary).calendar(month: nil, request).days.filter { $0.count > 0 } == [DayCount(day: "2026-11-20", count: 1)],
                "this month, inside the tag")
        #expect(throws: SearchError.badDate("2025-13")) { try finder(diary).calendar(month: "2025-13", request) }
    }

    @Test func emptyReasons() throws {
        let empty = try TestDiary()
        #expect(try Finder(store: empty.store).find(FindRequest()).emptyReason == .noEntries)
        let (diary, _) = try corpus()
        var request = FindRequest()
        request.tags = ["沒有這個"]
        #expect(try finder(diary).find(request).emptyReason == .emptyTag)
        request.keywords = "海邊"
        #expect(try finder(diary).find(request).emptyReason == .noMatch)
        request = FindRequest()
        request.keywords = "* - :"
        #expect(try finder(diary).find(request).emptyReason == .noMatch, "punctuation alone matches nothing")
    }

    @Test func wordsAreDataNotSyntax() {
        #expect(Finder.words("NEAR(\"a\" b)") == [.prefix("near"), .prefix("a"), .prefix("b")])
        #expect(Finder.words("開心 coffee") == [.phrase("開心"), .prefix("coffee")])
        #expect(Finder.words("去海邊") == [.phrase("去海邊")])
        #expect(Finder.words("海") == [.prefix("海")])
        #expect(Finder.words("\"*").isEmpty)
    }

    @Test func prefixesFindEveryWordTheyBegin() throws {
        let (diary, ids) = try corpus()
        let many = try diary.page("海一，海二，海三，海四，海五，海六，海七，海八，海九，海十，海甲，海乙，海丙，海丁，海戊，海己，海庚，海辛",
                                  tags: ["測試"], at: moment("2020-01-01 12:00"))
        #expect(try find(diary) { $0.keywords = "海" } == [ids["draft"]!, ids["beach"]!, many, ids["tired"]!],
                "a character that begins many pairs is searched as a prefix")
        #expect(try find(diary) { $0.keywords = "co" } == [ids["coffee"]!], "a few words: searched as those words")
        #expect(try find(diary) { $0.keywords = "zebra" }.isEmpty, "a word in no page")
        #expect(try finder(diary).count({ var request = FindRequest(); request.keywords = "海"; return request }()) == 4)
    }

    @Test func tagTilesCountEverything() throws {
        let (diary, _) = try corpus()
        let tiles = try finder(diary).tagTiles()
        #expect(tiles.all == 8)
        #expect(tiles.tags.first { $0.name == "旅行" }?.count == 3)
        #expect(Set(tiles.tags.map(\.name)) == ["朋友", "旅行", "海邊", "咖啡", "節日", "工作", "焦慮"])
        #expect(zip(tiles.tags, tiles.tags.dropFirst()).allSatisfy { earlier, later in
            (earlier.lastUsedAt ?? .distantPast, earlier.count) >= (later.lastUsedAt ?? .distantPast, later.count)
        }, "most recently used first, then most used")
    }
}
