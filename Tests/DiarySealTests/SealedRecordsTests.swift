import DiaryKit
import Foundation
import Testing
@testable import DiarySeal
@testable import DiaryTestSupport

@Suite("Records as a sealed diary sends them")
struct SealedRecordsTests {
    static let keys = try! DiaryKeys.create(account: "alice", passphrase: "passphrase", cost: .floor).keys

    /// A page with a place, a chat, tags as written, a photo, a star and a place in the order,
    /// each carrying a marker that must never be seen in clear.
    static func markedPage(_ diary: TestDiary) throws -> EntryRecord {
        let id = try diary.page("marker-title-91c2", tags: ["marker-tag-55aa", "旅行"], at: moment("2026-11-20 17:40:03"))
        _ = try diary.store.appendMessage(entryId: id, author: .person, text: "marker-chat-0b7e 風很大", persona: "warm", provider: nil)
        try diary.store.setContext(entryId: id, context: EntryContext(place: "marker-place-3d3d", latitude: 25.13, longitude: 121.74,
                                                                      weatherDescription: "小雨", temperatureC: 18.5))
        try diary.store.media.add(entryId: id, item: MediaItem(kind: .photo, sha256: String(repeating: "c4", count: 32), mime: "image/jpeg",
                                                               fileExtension: "jpg", bytes: 1_234, width: 4, height: 3))
        _ = try diary.store.setStarred(ids: [id], true)
        var record = try #require(try diary.store.entryRecords(ids: [id]).first)
        record.tagLinks[0].label = "MARKER-TAG-55AA"
        return record
    }

    @Test("an entry sealed and opened is the same record; nothing of it is in clear but ids and clocks")
    func anEntryRoundTripsAndHidesItsWords() throws {
        let diary = try TestDiary()
        let record = try Self.markedPage(diary)
        let text = try Self.keys.sealed(record).serialized
        let back = try Self.keys.opened(try #require(JSON.parse(Data(text.utf8))))
        #expect(back == record)

        // No 8-byte piece of any marker, and none of the place, tags or chat, is in the sealed form.
        for marker in ["marker-title-91c2", "marker-tag-55aa", "MARKER-TAG-55AA", "marker-chat-0b7e", "marker-place-3d3d", "旅行", "風很大"] {
            let bytes = Array(marker.utf8)
            for start in 0...max(0, bytes.count - 8) {
                let piece = String(decoding: bytes[start..<min(start + 8, bytes.count)], as: UTF8.self)
                #expect(!text.contains(piece), "\(piece) is in clear")
            }
        }
        #expect(!text.contains(String(repeating: "c4", count: 32)), "the photo's SHA-256 is not in clear")
        #expect(text.contains(SealedMedia(sha256: String(repeating: "c4", count: 32), keys: Self.keys).objectName),
                "its object's keyed name is, for the server to keep files with their rows")
        #expect(text.contains(record.id) && text.contains(record.clock.hlc), "ids and clocks are")
    }

    @Test("a part or item moved, replayed at another clock or raised from its tombstone does not open")
    func movedOrReplayedPiecesDoNotOpen() throws {
        let diary = try TestDiary()
        let record = try Self.markedPage(diary)
        let otherId = try diary.page("another", tags: [], at: moment("2026-11-21 09:00:00"))
        let other = try #require(try diary.store.entryRecords(ids: [otherId]).first)
        let sealed = try Self.keys.sealed(record)
        let otherSealed = try Self.keys.sealed(other)

        func expectRefused(_ changed: JSON, _ what: Comment) {
            #expect(throws: SealError.doesNotOpen, what) { try Self.keys.opened(changed) }
        }
        expectRefused(sealed.setting("parts.content.box", to: otherSealed["parts"]!["content"]!["box"]!), "another entry's content")
        expectRefused(sealed.setting("parts.star.box", to: sealed["parts"]!["content"]!["box"]!), "the content as the star")
        expectRefused(sealed.setting("parts.star.hlc", to: .string(HybridTimestamp(wallMillis: 1, counter: 0, device: "x").description)),
                      "the star at another clock")
        expectRefused(otherSealed.setting("parts.content.hlc", to: .string(HybridTimestamp(wallMillis: 2, counter: 0, device: "x").description)),
                      "the content at another clock")
        expectRefused(sealed.setting("deleted_at", to: .string("2026-11-22T00:00:00.000Z")), "a live entry made a tombstone")
        expectRefused(sealed.setting("messages.0.id", to: .string(UUIDv7.make())), "a message moved to another id")
        expectRefused(sealed.setting("media.0.deleted_at", to: .string("2026-11-22T00:00:00.000Z")), "a photo made a tombstone")
        expectRefused(sealed.setting("media.0.object", to: .string(String(repeating: "0", count: 64))), "a photo pointed at another file")
        expectRefused(sealed.setting("tag_links.0.name", to: sealed["tag_links"]![1]!["name"]!), "a tag link under another tag's name")
        let bob = DiaryKeys(account: "bob", diaryKey: Self.keys.diaryKey, itemsKeys: Self.keys.itemsKeys)
        #expect(throws: SealError.doesNotOpen) { try bob.opened(sealed) }
    }

    @Test("two devices' sealed versions kept part by part by clock open to what the device's own merge makes")
    func partByPartMergeOfSealedVersionsOpens() throws {
        let a = try TestDiary()
        let id = try a.page("words", tags: ["one"], at: moment("2026-11-20 17:40:03"))
        let b = try TestDiary()
        _ = try b.store.merge(try a.store.entryRecords(ids: [id]), source: .sync)
        // Offline, each on its own: b changes the words, then a stars the page. The merged
        // entry's clock is then a's, and b's words must still open under their own clock.
        _ = try b.store.edit(ids: [id], EntryEdit(title: "new words"))
        Thread.sleep(forTimeInterval: 0.005)  // a later millisecond, so the order is the clocks' too
        _ = try a.store.setStarred(ids: [id], true)
        let fromA = try #require(try a.store.entryRecords(ids: [id]).first)
        let fromB = try #require(try b.store.entryRecords(ids: [id]).first)

        // What a server that cannot read them keeps, in either order of arrival.
        let sealedA = try Self.keys.sealed(fromA), sealedB = try Self.keys.sealed(fromB)
        let merged = Self.keptPartByPart(sealedA, sealedB)
        let opened = try Self.keys.opened(merged)
        #expect(try Self.keys.opened(Self.keptPartByPart(sealedB, sealedA)) == opened)

        // What the device makes of the same two versions in clear.
        _ = try b.store.merge([fromA], source: .sync)
        let expected = try #require(try b.store.entryRecords(ids: [id]).first)
        #expect(merged["hlc"] == sealedA["hlc"], "the star is the newer change")
        #expect(opened.starred && opened.title == "new words", "the star and the words both stay")
        #expect(opened == expected)
    }

    /// The server's rule for two sealed versions of one live entry: each part from the side
    /// whose clock for it is greater (compared as bytes, as Postgres' "C" collation does),
    /// the entry's clock and device the newer side's.
    static func keptPartByPart(_ x: JSON, _ y: JSON) -> JSON {
        func greater(_ a: String, _ b: String) -> Bool { b.utf8.lexicographicallyPrecedes(a.utf8) }
        let parts = FieldClocks.Part.allCases.map { part -> (String, JSON) in
            let fromX = x["parts"]![part.rawValue]!, fromY = y["parts"]![part.rawValue]!
            let clockX = fromX["hlc"]?.stringValue ?? "", clockY = fromY["hlc"]?.stringValue ?? ""
            return (part.rawValue, greater(clockY, clockX) ? fromY : fromX)
        }
        let newer = greater(y["hlc"]!.stringValue!, x["hlc"]!.stringValue!) ? y : x
        return newer.setting("parts", to: .object(parts))
    }

    @Test("a setting is sealed under a keyed name and opens the same")
    func settingsAreSealed() throws {
        let setting = SettingRecord(key: "persona", value: "marker-persona-77", updatedAt: Date(timeIntervalSince1970: 1_790_000_000.123),
                                    clock: RowClock(hlc: HybridTimestamp(wallMillis: 1_790_000_000_123, counter: 0, device: "d").description, deviceId: "d"))
        let sealed = try Self.keys.sealed(setting)
        #expect(!sealed.serialized.contains("persona") && !sealed.serialized.contains("marker"))
        #expect(try Self.keys.opened(setting: try #require(JSON.parse(Data(sealed.serialized.utf8)))) == setting)
        #expect(throws: SealError.doesNotOpen) {
            try Self.keys.opened(setting: sealed.setting("key", to: .string(Self.keys.keyedName("language", kind: .setting))))
        }
    }
}
