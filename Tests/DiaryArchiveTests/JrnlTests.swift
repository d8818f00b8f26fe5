@testable import DiaryArchive
@testable import DiaryKit
import Foundation
import Testing

/// jrnl's JSON export read into records, and records written as jrnl's plain-text journal.
/// The end-to-end tests run the real jrnl both ways; these pin the edges.
@Suite struct JrnlTests {
    static let export = #"""
    {"tags": {"@work": 1, "@sunset": 1, "@\u6d77\u908a": 1},
     "entries": [
      {"title": "海邊的傍晚.", "body": "風很大 @海邊 @Sunset", "date": "2026-11-20", "time": "18:30",
       "tags": ["@sunset", "@海邊"], "starred": false},
      {"title": "Coffee with Ming", "body": "We talked about @work.", "date": "2026-11-24", "time": "09:05",
       "tags": ["@work", "#Work"], "starred": true},
      {"title": "", "body": "", "date": "2026-11-25", "time": "23:59", "tags": [], "starred": false}
     ]}
    """#

    static let taipei = TimeZone(identifier: "Asia/Taipei")!

    @Test func anExportBecomesSavedPagesInTheChosenZone() throws {
        let records = try Jrnl.records(Array(Self.export.utf8), zone: Self.taipei)
        #expect(records.map(\.title) == ["海邊的傍晚.", "Coffee with Ming", nil])
        #expect(records.map(\.summary) == ["風很大 @海邊 @Sunset", "We talked about @work.", nil])
        #expect(records.map(\.tags) == [["sunset", "海邊"], ["work"], []], "symbols off, case folded, each tag once")
        #expect(records.map(\.starred) == [false, true, false])
        #expect(records.allSatisfy { $0.status == .saved && $0.timeZone == "Asia/Taipei" })
        #expect(Timestamps.rfc3339(records[0].occurredAt, zone: Self.taipei) == "2026-11-20T18:30:00+08:00")
        #expect(Set(records.map(\.id)).count == 3)
    }

    @Test func anExportSavedWithAByteOrderMarkReadsTheSame() throws {
        let marked = [0xEF, 0xBB, 0xBF] + Array(Self.export.utf8)
        #expect(Jrnl.isJSONObject(marked), "told from an archive")
        let records = try Jrnl.records(marked, zone: Self.taipei)
        #expect(records.map(\.json.serialized) == (try Jrnl.records(Array(Self.export.utf8), zone: Self.taipei)).map(\.json.serialized))
    }

    @Test func theSameEntryIsTheSameRecordInEveryZone() throws {
        let here = try Jrnl.records(Array(Self.export.utf8), zone: Self.taipei)
        let there = try Jrnl.records(Array(Self.export.utf8), zone: TimeZone(identifier: "Europe/Paris")!)
        #expect(here.map(\.id) == there.map(\.id))
        #expect(here.map(\.clock.hlc) == there.map(\.clock.hlc), "the version is the time as written")
        #expect(here[0].occurredAt != there[0].occurredAt)
        // A changed body is another entry for jrnl's export, which has no ids of its own.
        let edited = try Jrnl.records(Array(Self.export.replacingOccurrences(of: "風很大", with: "風很小").utf8), zone: Self.taipei)
        #expect(edited[0].id != here[0].id && edited[1].id == here[1].id)
    }

    @Test(arguments: [
        (#"{"entries": [{"title": "x", "body": "", "time": "09:00"}]}"#, "entries[0].date"),
        (#"{"entries": [{"title": "x", "date": "2026-02-30", "time": "09:00"}]}"#, "entries[0].date"),
        (#"{"entries": [{"title": "x", "date": "2026-02-03", "time": 9}]}"#, "entries[0].time"),
        (#"{"entries": [{"date": "2026-02-03", "time": "09:00", "tags": ["@a", 5]}]}"#, "entries[0].tags[1]"),
        (#"{"entries": [{"date": "2026-02-03", "time": "09:00", "starred": "yes"}]}"#, "entries[0].starred"),
        (#"{"entries": {}}"#, "entries"),
        (#"{"entries": [ ]"#, nil),
    ] as [(String, String?)])
    func aBrokenExportNamesTheField(json: String, field: String?) {
        #expect(throws: ArchiveError.invalidRecord(member: Jrnl.member, line: 1, field: field)) {
            _ = try Jrnl.records(Array(json.utf8), zone: Self.taipei)
        }
    }

    @Test func onlyAnObjectIsTakenForJSON() {
        #expect(Jrnl.isJSONObject(Array(" \n\t{\"entries\":[]}".utf8)))
        #expect(!Jrnl.isJSONObject(Array("[1]".utf8)))
        #expect(!Jrnl.isJSONObject([0x1f, 0x8b, 0x08]), "gzip")
        #expect(!Jrnl.isJSONObject(Array("PK\u{3}\u{4}".utf8)), "zip")
        #expect(!Jrnl.isJSONObject([]))
    }

    @Test func aPageIsWrittenAsJrnlWritesAnEntry() throws {
        var records = try Jrnl.records(Array(Self.export.utf8), zone: Self.taipei)
        // Tags the text does not name go on a last line; `@work.` names work; spaces become _.
        records[1].tagLinks.append(EntryRecord.TagLink(name: "long walk", position: 1, createdAt: Date(), clock: records[1].clock))
        #expect(Jrnl.text(records[0]) == "[2026-11-20 18:30] 海邊的傍晚.\n風很大 @海邊 @Sunset\n\n")
        #expect(Jrnl.text(records[1]) == "[2026-11-24 09:05] Coffee with Ming *\nWe talked about @work.\n@long_walk\n\n")
        // No title: the first line of the page stands on the date's line.
        var untitled = records[2]
        untitled.summary = "第一行\n第二行"
        untitled.tagLinks = [EntryRecord.TagLink(name: "夜", position: 0, createdAt: Date(), clock: untitled.clock)]
        #expect(Jrnl.text(untitled) == "[2026-11-25 23:59] 第一行\n第二行\n@夜\n\n")
        // Each page in its own zone.
        var paris = records[0]
        paris.timeZone = "Europe/Paris"
        #expect(Jrnl.text(paris).hasPrefix("[2026-11-20 11:30] "))
    }
}
