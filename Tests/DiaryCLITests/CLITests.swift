import ArgumentParser
@testable import DiaryCLI
@testable import DiaryKit
import Foundation
import Testing
@testable import DiaryTestSupport

@Suite struct EntrySelectionTests {
    @Test func linesNameEntriesByEntryIdThenId() throws {
        let input = """
            {"kind":"message","id":"m1","entry_id":"0aaa"}
            {"kind":"entry","id":"0bbb"}
            0ccc

            {"kind":"tag","name":"旅行"}
            {"kind":"message","id":"m2","entry_id":"0aaa"}
            """
        #expect(try EntrySelection.ids(fromLines: Data(input.utf8)) == ["0aaa", "0bbb", "0ccc"])
    }

    @Test func readingIdsGrowsLinearlyWithTheirNumber() throws {
        // A ratio of two sizes, best of three each: linear reading makes 4× the ids cost about
        // 4× the time; checking each id against every earlier one made it 16× (40,000 ids: 53 s).
        func seconds(_ count: Int) throws -> Double {
            let input = Data((0..<count).map { String(format: "{\"kind\":\"entry\",\"id\":\"%08x-0000-7000-8000-000000000000\"}", $0) }
                .joined(separator: "\n").utf8)
            var best = Double.infinity
            for _ in 0..<3 {
                let start = DispatchTime.now().uptimeNanoseconds
                #expect(try EntrySelection.ids(fromLines: input).count == count)
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            return best
        }
        let small = try seconds(10_000), large = try seconds(40_000)
        #expect(large < small * 9, "10,000 ids: \(small) s; 40,000 ids: \(large) s")
    }

    @Test func badLinesAreReportedByNumber() {
        #expect(throws: InputError.notJSON(line: 2)) { try EntrySelection.ids(fromLines: Data("0aaa\n{oops\n".utf8)) }
        #expect(throws: InputError.notJSON(line: 1)) { try EntrySelection.ids(fromLines: Data("hello there\n".utf8)) }
        #expect(throws: InputError.notJSON(line: 1)) { try EntrySelection.ids(fromLines: Data("{\"a\":1} trailing\n".utf8)) }
        #expect(throws: InputError.notUTF8) { try EntrySelection.ids(fromLines: Data([0xc3, 0x28])) }
    }
}

@Suite struct ExitStatusTests {
    @Test func sysexitsMapping() {
        #expect(ErrorReport.describe(InputError.usage(.chooseMedia)).1 == 64)
        #expect(ErrorReport.describe(InputError.notUTF8).1 == 65)
        #expect(ErrorReport.describe(MediaError.missing(path: "x")).1 == 66)
        #expect(ErrorReport.describe(MediaError.unreadable(kind: .video, problem: .damaged)) == (.videoUnreadable(.damaged), 65))
        #expect(ErrorReport.describe(MediaError.unreadable(kind: nil, problem: .unrecognized)).0 == .photoUnreadable(.unrecognized))
        #expect(ErrorReport.describe(MediaError.toolMissing("ffprobe")).1 == 69)
        #expect(ErrorReport.describe(StoreError.cannotCreateHome("/x")).1 == 73)
        #expect(ErrorReport.describe(StoreError.io("SQLITE_FULL: disk full")) == (.saveFailed, 74), "no raw SQL error reaches people")
        #expect(ErrorReport.describe(CompanionError.providerFailed(provider: "p", detail: "d")) == (.sendFailed, 75))
        #expect(ErrorReport.describe(CompanionError.pageNotWritten(detail: "p")) == (.summaryFailed, 75))
        #expect(ErrorReport.describe(StoreError.busy).1 == 75)
        #expect(ErrorReport.describe(StoreError.newerVersion).1 == 78)
        #expect(ErrorReport.describe(ConfigError.invalid("x")).1 == 78)
    }
}

@Suite struct RenderingTests {
    @Test func entryJSONFollowsTheContract() throws {
        let diary = try TestDiary()
        let id = try diary.page("海邊", tags: ["旅行", "海邊", "放鬆"], at: moment("2026-11-21 17:40"))
        let entry = try diary.store.entry(id: id, includeMessages: true)
        let json = Rendering.entryJSON(entry, paths: diary.store.paths)
        guard case let .object(pairs) = json else { Issue.record("not an object"); return }
        #expect(pairs.first?.0 == "kind" && json["kind"] == .string("entry"))
        #expect(json["occurred_at"] == .string("2026-11-21T17:40:00+08:00"))
        #expect(json["tags"] == .array([.string("旅行"), .string("海邊"), .string("放鬆")]))
        #expect(json["sync"]?["state"] == .string("pending"))
        #expect(json["messages"] == .array([]))
        for key in ["id", "status", "created_at", "updated_at", "time_zone", "media", "note", "transcript", "analysis",
                    "context", "persona", "title", "summary", "message_count"] {
            #expect(json[key] != nil, "\(key)")
        }
    }
}

@Suite struct TrendChartTests {
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
