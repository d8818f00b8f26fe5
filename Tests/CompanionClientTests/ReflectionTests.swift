@testable import CompanionClient
@testable import DiaryKit
import FakeServers
import Foundation
import Testing
@testable import DiaryTestSupport

/// Reflections: a page of its own kind on the saved pages of some days, citing exactly them;
/// stored, found, carried by records (and so by exports and sync).
@Suite(.serialized) struct ReflectionTests {
    struct Week {
        let diary: TestDiary
        let inside: [String]
        let outside: [String]
    }

    static func week() throws -> Week {
        let diary = try TestDiary()
        var inside: [String] = []
        for (at, tags) in [("2026-11-19 09:00", ["工作", "焦慮"]), ("2026-11-21 18:00", ["海邊", "開心"]), ("2026-11-24 20:00", ["工作", "疲憊"])] {
            inside.append(try diary.page("第 \(inside.count + 1) 篇", tags: tags, at: moment(at)))
        }
        let before = try diary.page("太早", tags: ["工作"], at: moment("2026-11-10 10:00"))
        let after = try diary.page("太晚", tags: ["工作"], at: moment("2026-11-27 10:00"))
        let draft = try diary.draft("還沒寫完", at: moment("2026-11-22 10:00"))
        return Week(diary: diary, inside: inside, outside: [before, after, draft])
    }

    @Test func theOfflineCompanionLooksBackPlainlyAndCitesOnlyThePagesOfThoseDays() async throws {
        let week = try Self.week()
        let talk = Conversation(store: week.diary.store, providers: [OfflineCompanion()], language: .zhHant, textLimit: 500)
        let now = try #require(Timestamps.parseRFC3339("2026-11-25T12:00:00+08:00"))
        let (entry, _) = try await talk.reflect(period: "week", from: "2026-11-19", to: "2026-11-25", persona: .warm, now: now)
        let reflection = try #require(entry.reflection)
        #expect(Set(reflection.cites) == Set(week.inside) && reflection.cites.count == 3, "no page outside the days, no draft")
        #expect(reflection.cites == week.inside, "oldest first")
        #expect(reflection.period == "week" && reflection.from == "2026-11-19" && reflection.to == "2026-11-25")
        #expect(entry.status == .saved && entry.title == "這一週的回顧" && entry.tags.first == "回顧")
        let summary = try #require(entry.summary)
        #expect(summary.contains("我寫了 3 篇日記") && summary.contains("焦慮（1 次）") && summary.contains("一再出現的是：工作"))
        #expect(summary.contains("〈第 1 篇〉") && !summary.contains("太早") && summary.hasSuffix("哪一刻？"))

        // Found as a reflection, and not looked back on by the next one.
        var only = FindRequest()
        only.reflectionsOnly = true
        #expect(try Finder(store: week.diary.store).find(only).hits.map(\.hit.entry.id) == [entry.id])
        let (next, _) = try await talk.reflect(period: "week", from: "2026-11-19", to: "2026-11-25", persona: .warm, now: now)
        #expect(next.reflection?.cites == week.inside)

        // Its record carries it: backups, exports and sync take it along.
        let record = try #require(try week.diary.store.entryRecords(ids: [entry.id]).first)
        #expect(record.reflection == reflection)
        let back = try EntryRecord(json: try #require(JSON.parse(Data(record.json.serialized.utf8))))
        #expect(back.reflection == reflection)
        let other = try TestDiary()
        _ = try other.store.merge([record], source: .import)
        #expect(try other.store.entry(id: entry.id).reflection == reflection)

        await #expect(throws: CompanionError.nothingToReflect) {
            _ = try await talk.reflect(period: "range", from: "2025-01-01", to: "2025-01-31", persona: .warm, now: now)
        }
    }

    @Test func aModelIsGivenThePagesWithTheirIdsAndWritesInTheirVoice() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        let week = try Self.week()
        fake.enqueueChat(.reply(#"{"title":"忙碌的一週","summary":"這週工作很多 [\#(week.inside[0].prefix(8))]，週末去了海邊。我想問自己：什麼讓我放鬆？","tags":["回顧","工作","海邊"],"memory_suggestions":[]}"#))
        let talk = Conversation(store: week.diary.store, providers: [remote(fake)], language: .zhHant, textLimit: 500)
        let (entry, _) = try await talk.reflect(period: "week", from: "2026-11-19", to: "2026-11-25", persona: .warm,
                                                now: try #require(Timestamps.parseRFC3339("2026-11-25T12:00:00+08:00")))
        #expect(entry.title == "忙碌的一週" && entry.provider == "fake" && entry.reflection?.cites == week.inside)
        let asked = try #require(fake.chatRequests.last)
        #expect(asked.responseFormat == "json_schema")
        let list = try #require(asked.messages.last?.text)
        for id in week.inside { #expect(list.contains("[\(id.prefix(8))]")) }
        #expect(!list.contains("太早") && !list.contains("太晚") && !list.contains("還沒寫完"), "only the saved pages of those days")
        #expect(asked.messages.first?.text.contains("第一人稱") == true)
    }
}
