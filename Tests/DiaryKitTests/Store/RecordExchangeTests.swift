import Foundation
import GRDB
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

@Suite("Whole records out and merged back in")
struct RecordExchangeTests {
    func record(_ diary: TestDiary, _ id: String) throws -> EntryRecord {
        try #require(try diary.store.entryRecords(ids: [id]).first)
    }

    @Test("a record survives its JSON form exactly, children and clocks included")
    func jsonRoundTrip() throws {
        let diary = try TestDiary()
        let id = try diary.page("海邊的傍晚", tags: ["旅行", "海邊"], at: moment("2026-11-20 17:40:03"))
        _ = try diary.store.appendMessage(entryId: id, author: .person, text: "風很大", persona: "warm", provider: nil)
        try diary.store.setContext(entryId: id, context: EntryContext(place: "基隆", latitude: 25.13, longitude: 121.74,
                                                                      weatherDescription: "小雨", temperatureC: 18.5))
        let original = try record(diary, id)
        let line = original.json.serialized
        let back = try EntryRecord(json: try #require(JSON.parse(Data(line.utf8))))
        #expect(back == original)
        #expect(line.contains("\"occurred_at\":\"2026-11-20T17:40:03.000+08:00\""), "times carry the entry's own offset")
        #expect(throws: RecordDecodingError(field: "time_zone")) {
            try EntryRecord(json: JSON.parse(Data(line.replacingOccurrences(of: "Asia/Taipei", with: "Mars/Base").utf8))!)
        }
        #expect(throws: RecordDecodingError(field: "media[0].sha256")) {
            var broken = original
            broken.media = [EntryRecord.Media(id: "a", position: 0, clock: original.clock,
                                              item: MediaItem(kind: .photo, sha256: "../../etc", mime: "image/jpeg", fileExtension: "jpg", bytes: 1))]
            _ = try EntryRecord(json: JSON.parse(Data(broken.json.serialized.replacingOccurrences(of: "../../etc", with: "../etc").utf8))!)
        }
        // A NUL byte is not text (SQLite would cut there, Postgres refuses it): named, wherever it is.
        #expect(throws: RecordDecodingError(field: "title")) {
            try EntryRecord(json: JSON.parse(Data(line.replacingOccurrences(of: "海邊的傍晚", with: "海邊\\u0000的傍晚").utf8))!)
        }
        #expect(throws: RecordDecodingError(field: "messages[0].text")) {
            try EntryRecord(json: JSON.parse(Data(line.replacingOccurrences(of: "風很大", with: "風\\u0000很大").utf8))!)
        }
    }

    @Test("every declared field, filled, survives the JSON form and the store, and merges with its part")
    func everyDeclaredFieldSurvivesTheRecordAndTheStore() throws {
        let diary = try TestDiary()
        let id = try diary.page("Plain", tags: ["one"], at: moment("2026-11-20 17:40:03"))
        let plain = try record(diary, id)
        var filled = plain
        var filledNames: [String] = []
        for (index, field) in EntryRecord.fields.enumerated() {
            // A value of each field's own, unlike any other field's and unlike the page's.
            switch field.value {
            case let .plain(value): Self.fill(&filled, value, field.name, index, unlike: plain)
            case .zone: filled.timeZone = "Europe/Paris"
            case .status: filled.status = .summaryFailed
            case .orderKey: filled.orderKey = "m"
            case .context:
                for (offset, contextField) in EntryRecord.contextFields.enumerated() {
                    Self.fill(&filled.context, contextField.value, contextField.name, offset, unlike: plain.context)
                }
            case .reflection: filled.reflection = Reflection(period: "week", from: "2026-11-16", to: "2026-11-22", cites: [id])
            case .fieldClocks, .tagNames: continue  // clocks are set below; tag names come from the links
            }
            filledNames.append(field.name)
        }
        // Every field was filled: a declaration this test does not know would be caught here.
        #expect(filledNames.count == EntryRecord.fields.count - 2)
        // And one item of each kind, every field of it filled.
        var media = EntryRecord.Media.unfilled(clock: plain.clock)
        for (index, field) in EntryRecord.mediaFields.enumerated() { Self.fill(&media, field.value, field.name, index, unlike: media) }
        var message = EntryRecord.Line.unfilled(entryId: id, clock: plain.clock)
        for (index, field) in EntryRecord.messageFields.enumerated() { Self.fill(&message, field.value, field.name, index, unlike: message) }
        var link = EntryRecord.TagLink.unfilled(clock: plain.clock)
        for (index, field) in EntryRecord.tagLinkFields.enumerated() { Self.fill(&link, field.value, field.name, index, unlike: link) }
        link.label = link.name.uppercased()  // a spelling of its own name, or it is dropped
        filled.media = [media]
        filled.lines = [message]
        filled.tagLinks = [link]

        let line = filled.json.serialized
        let back = try EntryRecord(json: try #require(JSON.parse(Data(line.utf8))))
        #expect(back == filled, "the JSON form keeps every field")
        for field in EntryRecord.fields { #expect(line.contains("\"\(field.name)\":"), "\(field.name) is written") }

        // Into another diary, and read back from its tables.
        let target = try TestDiary()
        #expect(try target.store.merge([back], source: .import).added == 1)
        #expect(try record(target, id) == filled, "the entry table keeps every field")

        // A newer star merged into the filled page takes the star's fields only.
        var starred = plain
        let later = HybridTimestamp(wallMillis: Timestamps.millis(Date()) + 1_000, counter: 0, device: "dev-b").description
        starred.starred = !filled.starred
        starred.fieldClocks.star = later
        #expect(try target.store.merge([starred], source: .import).updated == 1)
        var expected = filled
        for field in EntryRecord.fields(of: .star) { expected.copy(field, from: starred) }
        expected.fieldClocks.star = later
        let merged = try record(target, id)
        #expect(merged.starred == !filled.starred && merged.title == filled.title && merged.context == filled.context)
        #expect(merged.fieldsOnly == expected.fieldsOnly, "the star took only what its part declares")
    }

    /// Gives a field a value of its own, unlike the other fields' (`index` is its place) and
    /// unlike what `before` holds.
    static func fill<Record>(_ record: inout Record, _ value: FieldValue<Record>, _ name: String, _ index: Int, unlike before: Record) {
        let time = Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 7_200.5)
        let hex = String(repeating: String(index % 10), count: 64)
        switch value {
        case let .id(path): record[keyPath: path] = UUIDv7.make()
        case let .string(path): record[keyPath: path] = "value of \(name)"
        case let .text(path): record[keyPath: path] = "value of \(name)"
        case let .time(path): record[keyPath: path] = time
        case let .optionalTime(path): record[keyPath: path] = time
        case let .flag(path): record[keyPath: path] = !before[keyPath: path]
        case let .count(path): record[keyPath: path] = index + 1
        case let .byteCount(path): record[keyPath: path] = Int64(index + 1_000)
        case let .optionalCount(path): record[keyPath: path] = index + 1
        case let .optionalNumber(path): record[keyPath: path] = Double(index) + 0.5
        case let .digest(path): record[keyPath: path] = hex
        case let .optionalDigest(path): record[keyPath: path] = hex
        case let .fileExtension(path): record[keyPath: path] = "e\(index)"
        case let .mediaKind(path): record[keyPath: path] = .video
        case let .author(path): record[keyPath: path] = .companion
        case let .tagName(path): record[keyPath: path] = "tag\(index)"
        }
    }

    @Test("a journal, tags as written and pictures' places travel and merge; records without them carry no such keys")
    func importedDetailsTravel() throws {
        let diary = try TestDiary()
        let id = try diary.page("Slice", tags: ["pizza", "nyc"], at: moment("2026-11-20 17:40:03"))
        var original = try record(diary, id)
        let plain = original.json.serialized
        #expect(!plain.contains("\"journal\"") && !plain.contains("\"label\"") && !plain.contains("\"anchor\""),
                "a build from before them reads the same record")

        original.journal = "Travel"
        original.tagLinks[0].label = "Pizza"
        original.tagLinks[1].label = "Not this tag"
        original.media = [EntryRecord.Media(id: UUIDv7.make(), position: 0, clock: original.clock,
                                            item: MediaItem(kind: .photo, sha256: String(repeating: "a", count: 64), mime: "image/jpeg",
                                                            fileExtension: "jpg", bytes: 3), anchor: 2)]
        let back = try EntryRecord(json: try #require(JSON.parse(Data(original.json.serialized.utf8))))
        #expect(back.journal == "Travel" && back.media.map(\.anchor) == [2])
        #expect(back.writtenTags == ["Pizza", "nyc"], "a spelling of another tag is dropped, not trusted")

        let target = try TestDiary()
        #expect(try target.store.merge([back], source: .import).added == 1)
        #expect(try record(target, id) == back, "stored and read back the same")
        // A newer version moves the picture and re-spells the tag.
        var newer = back
        let later = RowClock(hlc: HybridTimestamp(wallMillis: Timestamps.millis(Date()), counter: 0, device: "dev-b").description, deviceId: "dev-b")
        newer.clock = later
        newer.media[0].clock = later
        newer.media[0].anchor = nil
        newer.tagLinks[0].clock = later
        newer.tagLinks[0].label = "PIZZA"
        #expect(try target.store.merge([newer], source: .import).updated == 1)
        let merged = try record(target, id)
        #expect(merged.media.map(\.anchor) == [nil] && merged.writtenTags == ["PIZZA", "nyc"])
    }

    @Test("an entry new here is indexed from its record exactly as reading it back would index it")
    func newEntriesAreIndexedAsReadBack() throws {
        let source = try TestDiary()
        let id = try source.page("海邊的傍晚", tags: ["旅行", "海邊", "夕陽"], at: moment("2026-11-20 17:40:03"))
        _ = try source.store.appendMessage(entryId: id, author: .person, text: "風很大", persona: "warm", provider: nil)
        _ = try source.store.appendMessage(entryId: id, author: .companion, text: "聽起來很舒服", persona: "warm", provider: nil)
        _ = try source.store.appendMessage(entryId: id, author: .person, text: "浪也很高", persona: "warm", provider: nil)
        try source.store.setContext(entryId: id, context: EntryContext(place: "基隆", locality: "中正區", country: "台灣"))
        let original = try record(source, id)
        // The same page again under new ids, its person's messages clocked in the reverse of
        // the order they were written in; and once more naming a tag twice.
        func copy(_ change: (inout EntryRecord) -> Void) -> EntryRecord {
            var copy = original
            copy.id = UUIDv7.make()
            for index in copy.lines.indices {
                copy.lines[index].message.id = UUIDv7.make()
                copy.lines[index].message.entryId = copy.id
            }
            change(&copy)
            return copy
        }
        let reversed = copy { record in
            for (index, line) in record.lines.enumerated() where line.message.author == .person {
                let hlc = HybridTimestamp(wallMillis: Timestamps.millis(moment("2026-11-20 18:00")) - Int64(index), counter: 0, device: "dev-b")
                record.lines[index].clock = RowClock(hlc: hlc.description, deviceId: "dev-b")
            }
        }
        let doubled = copy { record in
            var again = record.tagLinks[0]
            again.position = 7
            record.tagLinks.append(again)
        }
        let target = try TestDiary()
        #expect(try target.store.merge([original, reversed, doubled], source: .import).added == 3)

        func searchRows() throws -> [String] {
            try target.store.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT rowid, title, summary, note, transcript, tags, person_chat, analysis, companion_chat, place
                    FROM entry_fts ORDER BY rowid
                    """).map { row in "\(row[0] as Int64) | " + (1..<row.count).map { row[$0] as String? ?? "NULL" }.joined(separator: " | ") }
            }
        }
        let merged = try searchRows()
        try target.store.write { db in
            for id in try String.fetchAll(db, sql: "SELECT id FROM entry") { try DiaryStore.reindex(db, entryId: id) }
        }
        #expect(merged == (try searchRows()))
        #expect(merged.count == 3)
        #expect(merged.contains { $0.contains("浪也很高\n風很大") }, "the reversed clocks put the later message first")
        #expect(merged.allSatisfy { $0.contains("旅行 海邊 夕陽") && $0.contains("基隆") && $0.contains("聽起來很舒服") })
        #expect(try target.store.searchIndexIsConsistent())
    }

    @Test("merging into an empty diary copies everything; merging again changes nothing")
    func copyAndRepeat() throws {
        let source = try TestDiary()
        let ids = [try source.page("one", tags: ["a", "b"]), try source.page("two", tags: ["b"]), try source.draft("three")]
        let records = try source.store.entryRecords(ids: ids)
        let target = try TestDiary()
        let first = try target.store.merge(records, source: .import)
        #expect(first.added == 3 && first.updated == 0)
        #expect(try target.store.entryRecords(ids: ids) == records)
        #expect(try target.store.tags.uses().map { "\($0.name)=\($0.count)" }.sorted() == ["a=1", "b=2"])
        #expect(try target.store.searchIndexIsConsistent())
        let second = try target.store.merge(records, source: .import)
        #expect(second.added == 0 && second.updated == 0 && second.unchanged == 3 && second.conflictsKept == 0)
        #expect(try target.store.conflicts().isEmpty)
    }

    @Test("an entry new here that names a tag twice keeps the newer link, and a removal and a link of one name the newer")
    func repeatedTagNamesInANewEntry() throws {
        let source = try TestDiary()
        let id = try source.page("重複的標籤", tags: ["a"])
        var incoming = try record(source, id)
        let original = try #require(incoming.tagLinks.first)
        // Clocks in the same millisecond as the original, later by their counter.
        func clock(_ counter: Int, removed: Bool = false) -> RowClock {
            RowClock(hlc: String(original.clock.hlc.prefix(15)) + "." + String(900_000 + counter) + ".other", deviceId: "other",
                     deletedAt: removed ? original.createdAt : nil)
        }
        func link(_ name: String, _ position: Int, _ clock: RowClock) -> EntryRecord.TagLink {
            EntryRecord.TagLink(name: name, position: position, createdAt: original.createdAt, clock: clock)
        }
        incoming.tagLinks = [link("a", 7, clock(1)), link("a", 3, clock(2)), link("b", 0, clock(1, removed: true)),
                             link("b", 5, clock(2)), link("c", 1, clock(2)), link("c", 9, clock(1)),
                             link("d", 2, clock(1)), link("d", 4, clock(2, removed: true))]
        let target = try TestDiary()
        #expect(try target.store.merge([incoming], source: .import).added == 1)
        let merged = try record(target, id)
        #expect(merged.tags == ["c", "a", "b"], "a at 3 and c at 1 (the newer of each), b alive again, d removed")
        let uses = try target.store.tags.uses().map { "\($0.name)=\($0.count)" }.sorted()
        #expect(uses == ["a=1", "b=1", "c=1"], "d has no page left: \(uses)")
        #expect(try target.store.searchIndexIsConsistent())
    }

    @Test("the newer clock wins, the other version is kept, messages are a union")
    func newerWins() throws {
        let home = try TestDiary()
        let id = try home.page("原本", tags: ["a"])
        let laptop = try TestDiary()
        _ = try laptop.store.merge(try home.store.entryRecords(ids: [id]), source: .import)
        _ = try home.store.appendMessage(entryId: id, author: .person, text: "家裡", persona: "warm", provider: nil)
        try laptop.store.savePage(entryId: id, title: "筆電改的標題", summary: "新的內容", tags: ["b"], persona: "warm",
                                  provider: "offline", usageDay: "d")
        _ = try laptop.store.appendMessage(entryId: id, author: .person, text: "筆電", persona: "warm", provider: nil)

        let report = try home.store.merge(try laptop.store.entryRecords(ids: [id]), source: .import)
        #expect(report.updated == 1 && report.conflictsKept == 1 && report.messagesAdded == 1)
        let merged = try record(home, id)
        #expect(merged.title == "筆電改的標題")
        #expect(Set(merged.liveMessages.map(\.text)) == ["家裡", "筆電"])
        #expect(merged.tags == ["b"], "the tag change travels with its own clock")
        let kept = try #require(try home.store.conflicts().first)
        #expect(kept.rowId == id && kept.source == "import")
        #expect(kept.version["title"]?.stringValue == "原本")
        #expect(try Finder(store: home.store).count({ var request = FindRequest(); request.keywords = "筆電改"; return request }()) == 1)
        #expect(try home.store.searchIndexIsConsistent())
        #expect((try home.store.tags.uses().first { $0.name == "a" }?.count ?? 0) == 0, "the removed tag is not counted")

        // The older copy coming back loses and changes nothing more.
        let older = try home.store.merge(try laptop.store.entryRecords(ids: [id]), source: .import)
        #expect(older.updated == 0 && older.conflictsKept == 0)
    }

    @Test("a deletion is never undone by an edit, however new")
    func tombstoneWins() throws {
        let home = try TestDiary()
        let id = try home.page("會被刪掉", tags: ["t"])
        let other = try TestDiary()
        _ = try other.store.merge(try home.store.entryRecords(ids: [id]), source: .import)
        // Deleted on a third device; meanwhile edited here, later.
        var gone = try record(home, id)
        gone.clock = RowClock(hlc: HybridTimestamp(wallMillis: Timestamps.millis(Date()), counter: 0, device: "third").description,
                              deviceId: "third", deletedAt: Date())
        Thread.sleep(forTimeInterval: 0.005)
        _ = try other.store.appendMessage(entryId: id, author: .person, text: "之後的編輯", persona: "warm", provider: nil)

        let report = try other.store.merge([gone], source: .sync)
        #expect(report.updated == 1 && report.conflictsKept == 1)
        #expect(try record(other, id).clock.deletedAt != nil)
        #expect(try other.store.liveEntryCount() == 0)
        #expect((try other.store.tags.uses().first { $0.name == "t" }?.count ?? 0) == 0)
        #expect(try other.store.searchIndexIsConsistent())
        let edited = try other.store.conflicts().first
        #expect(edited?.version["deleted_at"] == .null, "the live version that lost is kept")

        _ = try home.store.merge([gone], source: .sync)
        var live = try record(home, id)
        live.clock.hlc = HybridTimestamp(wallMillis: Timestamps.millis(Date()) + 1000, counter: 0, device: "z").description
        _ = try home.store.merge([live], source: .sync)
        #expect(try record(home, id).clock.deletedAt != nil, "a newer live copy does not bring it back")
    }

    @Test("clocks from far in the future are refused and nothing is written")
    func futureClock() throws {
        let source = try TestDiary()
        var records = try source.store.entryRecords(ids: [try source.page("x", tags: ["t"])])
        records[0].clock.hlc = HybridTimestamp(wallMillis: Timestamps.millis(Date()) + 3 * 86_400_000, counter: 0, device: "d").description
        let target = try TestDiary()
        #expect(throws: StoreError.clockFromFuture(records[0].id)) { try target.store.merge(records, source: .import) }
        #expect(try target.store.liveEntryCount() == 0)
    }

    @Test("the device's clock moves past every merged clock, so the next local edit is newer")
    func clockAdvances() throws {
        let source = try TestDiary()
        var records = try source.store.entryRecords(ids: [try source.page("x", tags: ["t"])])
        records[0].clock.hlc = HybridTimestamp(wallMillis: Timestamps.millis(Date()) + 3_600_000, counter: 7, device: "zz").description
        let target = try TestDiary()
        _ = try target.store.merge(records, source: .import)
        _ = try target.store.appendMessage(entryId: records[0].id, author: .person, text: "later", persona: "warm", provider: nil)
        let after = try record(target, records[0].id)
        #expect(records[0].clock.timestamp < after.clock.timestamp)
    }

    @Test("a backup's extras merge: settings by clock, usage by maximum, conflicts once")
    func extras() throws {
        let source = try TestDiary()
        try source.store.setSetting("persona", "fun")
        let extras = try source.store.extras()
        let target = try TestDiary()
        try target.store.setSetting("persona", "clear")
        _ = try target.store.merge([], extras: extras, source: .restore)
        #expect(try target.store.setting("persona") == "clear", "the later local choice stays")
        #expect(try target.store.conflicts().first?.version["value"]?.stringValue == "fun")
        let lines = extras.jsonLines
        var back = DiaryExtras()
        for line in lines { try back.add(json: line) }
        #expect(back == extras)
    }
}
