@testable import DiaryKit
import Foundation
import Testing
@testable import DiaryTestSupport

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
        _ = try diary.store.trash.put(ids: [ids[5]])
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

    @Test func aReflectionDoesNotCountTheFeelingsAgain() throws {
        let diary = try TestDiary()
        let relaxed = try diary.page("p", tags: ["放鬆"], at: moment("2026-11-02 10:00"))
        let tired = try diary.page("p", tags: ["疲憊"], at: moment("2026-11-10 10:00"))
        let finder = Finder(store: diary.store)
        let before = try finder.trend(by: .month, FindRequest(), language: .zhHant)
        let calendarBefore = try finder.calendar(month: "2026-11", FindRequest())
        // The month's reflection, tagged with the feelings it looks back on, on the month's last day.
        _ = try diary.store.saveReflection(Reflection(period: "2026-11", from: "2026-11-01", to: "2026-11-30", cites: [relaxed, tired]),
                                           title: "十一月", summary: "放鬆，也有點疲憊。", tags: ["回顧", "放鬆", "疲憊"],
                                           occurredAt: moment("2026-11-30 21:00"), timeZone: TimeZone(identifier: "Asia/Taipei")!,
                                           persona: "warm", provider: "offline")
        let after = try finder.trend(by: .month, FindRequest(), language: .zhHant)
        #expect(after.map(\.total) == before.map(\.total) && after.first?.feelings.map(\.count) == [1, 1], "\(after.map(\.feelings))")
        var narrowed = FindRequest()
        narrowed.from = "2026-11-01"
        narrowed.anyTags = ["放鬆", "疲憊"]
        #expect(try finder.trend(by: .month, narrowed, language: .zhHant).map(\.total) == [2], "the other way of counting too")
        #expect(try finder.calendar(month: "2026-11", FindRequest()).days.map(\.count) == calendarBefore.days.map(\.count),
                "the calendar counts written moments")
        var reflections = FindRequest()
        reflections.reflectionsOnly = true
        #expect(try finder.find(reflections).hits.count == 1, "the reflection is still a page of its own")
    }

    @Test func weeksAndMonthsAreTheCalendarsOwn() {
        #expect(Finder.period(of: "2026-12-31", .week) == "2026-W53" && Finder.period(of: "2027-01-01", .week) == "2026-W53")
        #expect(Finder.period(of: "2024-12-30", .week) == "2025-W01" && Finder.firstDay(of: "2025-W01", .week) == "2024-12-30")
        #expect(Finder.lastDay(of: "2025-W01", .week) == "2025-01-05" && Finder.period(of: "2026-11-25", .week) == "2026-W48")
        #expect(Finder.lastDay(of: "2024-02", .month) == "2024-02-29" && Finder.lastDay(of: "2026-12", .month) == "2026-12-31")
        #expect(Finder.dayNumber("1970-01-01") == 0 && Finder.dayNumber("2000-03-01") == 11_017)
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
        _ = try store.trash.put(ids: [c])
        #expect(try Self.drift(diary) == [], "to the trash")
        _ = try store.trash.takeOut(ids: [c])
        #expect(try Self.drift(diary) == [], "back from the trash")
        _ = try store.trash.put(ids: [a])
        _ = try store.trash.purge(ids: [a])
        #expect(try Self.drift(diary) == [], "purged")
        _ = try store.tags.rename("開心", to: "快樂")
        #expect(try Self.drift(diary) == [], "renamed")
        let draft = try diary.draft("草稿")
        _ = try store.edit(ids: [draft], EntryEdit(addTags: ["期待"]))
        _ = try store.discard(entryId: draft)
        #expect(try Self.drift(diary) == [], "a tagged draft discarded")

        // Another diary's records merged in, then one of them changed there and merged again.
        let other = try TestDiary()
        let d = try other.page("d", tags: ["開心", "海邊"], at: moment("2026-11-05 10:00"))
        _ = try store.merge(try other.store.entryRecords(ids: [d]), source: .import)
        #expect(try Self.drift(diary) == [], "merged")
        _ = try other.store.edit(ids: [d], EntryEdit(removeTags: ["海邊"], occurredAt: moment("2026-11-06 10:00"),
                                                    timeZone: TimeZone(identifier: "Asia/Taipei")!))
        _ = try store.merge(try other.store.entryRecords(ids: [d]), source: .import)
        #expect(try Self.drift(diary) == [], "merged again, changed")
        #expect(try Finder(store: store).trend(by: .month, FindRequest(), language: .zhHant).map(\.total) == [2, 1],
                "November: 焦慮 on c and 開心 on d; December: b's 快樂 (renamed from 開心), counted as 開心")
        let e = try other.page("e", tags: ["海邊", "工作"], at: moment("2026-11-07 10:00"))
        let firstVersion = try other.store.entryRecords(ids: [e])
        _ = try other.store.edit(ids: [e], EntryEdit(addTags: ["放鬆"], removeTags: ["工作"], occurredAt: moment("2026-11-08 10:00"),
                                                    timeZone: TimeZone(identifier: "Asia/Taipei")!))
        _ = try store.merge(firstVersion + (try other.store.entryRecords(ids: [e])), source: .import)
        #expect(try Self.drift(diary) == [], "one page in two versions in one merge")
        _ = try store.trash.put(ids: [e])
        #expect(try Self.drift(diary) == [], "trashed here")
        _ = try store.trash.takeOut(ids: [e])
        _ = try other.store.trash.put(ids: [e])
        _ = try store.merge(try other.store.entryRecords(ids: [e]), source: .import)
        #expect(try Self.drift(diary) == [], "trashed there")
        _ = try other.store.trash.put(ids: [d])
        _ = try other.store.trash.purge(ids: [d])
        _ = try store.merge(try other.store.entryRecords(ids: [d]), source: .import)
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry WHERE id = ? AND deleted_at IS NOT NULL", arguments: [d]) } == 1)
        #expect(try Self.drift(diary) == [], "deleted there")

        try store.ledger.wipeAll()
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tag_day WHERE n != 0") } == 0)
    }
}
