import Foundation
import Testing
@testable import DiaryKit

@Suite struct FinderTests {
    /// A small fixed corpus over several years and zones.
    func corpus() throws -> (TestDiary, [String: String]) {
        let diary = try TestDiary()
        var ids: [String: String] = [:]
        ids["beach"] = try diary.page("今天去海邊散步，很開心", tags: ["旅行", "海邊"], at: moment("2025-07-14 18:00"))
        ids["coffee"] = try diary.page("Coffee with Mei, 聊到很晚", tags: ["朋友", "咖啡"], at: moment("2025-08-02 10:00"))
        ids["work"] = try diary.page("加班到很晚，有點焦慮", tags: ["工作", "焦慮"], at: moment("2026-11-20 23:30"))
        ids["newyear"] = try diary.page("跨年煙火", tags: ["旅行", "節日"], at: moment("2025-12-31 23:59"))
        ids["draft"] = try diary.draft("還沒寫完的海邊", at: moment("2026-11-21 09:00"))
        return (diary, ids)
    }

    func find(_ diary: TestDiary, _ configure: (inout FindRequest) -> Void) throws -> [String] {
        var request = FindRequest()
        configure(&request)
        return try Finder(store: diary.store, today: moment("2026-11-21 12:00"), zone: TimeZone(identifier: "Asia/Taipei")!)
            .find(request).entries.map(\.id)
    }

    @Test func twoCharacterChineseWordsAndMixedLanguage() throws {
        let (diary, ids) = try corpus()
        #expect(try find(diary) { $0.keywords = "海邊" } == [ids["draft"]!, ids["beach"]!], "newest first")
        #expect(try find(diary) { $0.keywords = "開心" } == [ids["beach"]!])
        #expect(try find(diary) { $0.keywords = "海" } == [ids["draft"]!, ids["beach"]!], "a single character")
        #expect(try find(diary) { $0.keywords = "去海邊散步" } == [ids["beach"]!], "a longer phrase")
        #expect(try find(diary) { $0.keywords = "邊散步去" }.isEmpty, "characters out of order are not the phrase")
        #expect(try find(diary) { $0.keywords = "coff 很晚" } == [ids["coffee"]!], "English prefix and Chinese together")
        #expect(try find(diary) { $0.keywords = "很晚" } == [ids["work"]!, ids["coffee"]!])
    }

    @Test func tagsNarrowTheSearch() throws {
        let (diary, ids) = try corpus()
        #expect(try find(diary) { $0.tags = ["旅行"] } == [ids["newyear"]!, ids["beach"]!])
        #expect(try find(diary) { $0.tags = ["旅行"]; $0.keywords = "海邊" } == [ids["beach"]!], "the search stays inside the tag")
        #expect(try find(diary) { $0.tags = ["旅行", "海邊"] } == [ids["beach"]!], "repeated tags mean all of them")
        #expect(try find(diary) { $0.tags = [" 旅行 "] }.count == 2, "tag names are normalised")
    }

    @Test func datesFollowEachEntrysLocalDay() throws {
        let (diary, ids) = try corpus()
        #expect(try find(diary) { $0.on = "2025-12" } == [ids["newyear"]!], "23:59 on 31 Dec stays in December")
        #expect(try find(diary) { $0.on = "2025" }.count == 3)
        #expect(try find(diary) { $0.from = "2025-08"; $0.to = "2025-12-31" } == [ids["newyear"]!, ids["coffee"]!])
        #expect(try find(diary) { $0.on = "today" } == [ids["draft"]!])
        #expect(try find(diary) { $0.on = "yesterday" } == [ids["work"]!])
        #expect(throws: SearchError.badDate("2025-02-30")) { try find(diary) { $0.on = "2025-02-30" } }
        #expect(throws: SearchError.badDate("soon")) { try find(diary) { $0.from = "soon" } }
    }

    @Test func statusLimitAndOffsetPage() throws {
        let (diary, ids) = try corpus()
        #expect(try find(diary) { $0.statuses = [.draft] } == [ids["draft"]!])
        let all = try find(diary) { _ in }
        #expect(all.count == 5)
        let first = try find(diary) { $0.limit = 2 }
        let second = try find(diary) { $0.limit = 2; $0.offset = 2 }
        let third = try find(diary) { $0.limit = 2; $0.offset = 4 }
        #expect(first + second + third == all)
    }

    @Test func emptyReasons() throws {
        let empty = try TestDiary()
        #expect(try Finder(store: empty.store).find(FindRequest()).emptyReason == .noEntries)
        let (diary, _) = try corpus()
        let finder = Finder(store: diary.store)
        var request = FindRequest()
        request.tags = ["沒有這個"]
        #expect(try finder.find(request).emptyReason == .emptyTag)
        request.keywords = "海邊"
        #expect(try finder.find(request).emptyReason == .noMatch)
        request = FindRequest()
        request.keywords = "* - :"
        #expect(try finder.find(request).emptyReason == .noMatch, "punctuation alone matches nothing")
    }

    @Test func queriesAreQuotedTerms() {
        #expect(Finder.matchExpression("NEAR(\"a\" b)") == "\"near\"* AND \"a\"* AND \"b\"*")
        #expect(Finder.matchExpression("開心 coffee") == "\"開心\" AND \"coffee\"*")
        #expect(Finder.matchExpression("去海邊") == "\"去海 海邊\"")
        #expect(Finder.matchExpression("\"*") == nil)
    }

    @Test func tagTilesCountEverything() throws {
        let (diary, _) = try corpus()
        let tiles = try Finder(store: diary.store).tagTiles()
        #expect(tiles.all == 5)
        #expect(tiles.tags.first { $0.name == "旅行" }?.count == 2)
        #expect(tiles.tags.first?.name == "旅行" || tiles.tags.first?.name == "節日", "the last saved page's tags come first")
    }
}
