@testable import DiaryArchive
@testable import DiaryKit
import Foundation
import Glibc
#if canImport(Glibc)
import Testing
@testable import DiaryTestSupport
#endif

/// Day One's JSON zip, read into a real diary and written back out. The zips under test are
/// made by bsdtar (an independent writer) or by ArchiveWriter; digests come from md5sum and
/// sha256sum.
@Suite struct DayOneTests {
    static let photo = pseudoRandomBytes(40_000, seed: 7)
    static let raw = pseudoRandomBytes(5_000, seed: 8)
    static let created = "2023-05-01T10:20:30Z"
    static let modified = "2023-05-02T08:00:00Z"
    static let firstId = "5c1e8f2a-9b3d-4e6f-8a7b-6c5d4e3f2a1b"
    static let secondId = "9f8e7d6c-5b4a-4392-8170-fedcba987654"

    /// A journal of two entries: a titled page with a photo (plus a video whose file is
    /// missing and a photo of a type we do not keep), and an untitled one.
    static func journal(photoMD5: String, rawMD5: String) -> String {
        #"""
        {
          "metadata" : { "version" : "1.0" },
          "entries" : [
            {
              "uuid" : "5C1E8F2A9B3D4E6F8A7B6C5D4E3F2A1B",
              "creationDate" : "\#(created)",
              "modifiedDate" : "\#(modified)",
              "creationDevice" : "iPhone",
              "timeZone" : "Asia/Taipei",
              "starred" : true,
              "text" : "# 海邊的傍晚\n\n風好大，但很舒服\\.\n\n![](dayone-moment:\/\/0A1B2C3D4E5F60718293A4B5C6D7E8F9)\n\n晚上吃了拉麵\\!",
              "tags" : [ "旅行", "Beach ", "旅行", "#海邊", "  " ],
              "location" : {
                "region" : { "center" : { "longitude" : 121.7917, "latitude" : 25.1426 }, "radius" : 75 },
                "latitude" : 25.1426, "longitude" : 121.7917,
                "placeName" : "八斗子漁港", "localityName" : "Keelung", "administrativeArea" : "Taiwan Province", "country" : "Taiwan",
                "timeZoneName" : "Asia/Taipei"
              },
              "weather" : {
                "conditionsDescription" : "Light Rain", "temperatureCelsius" : 18.5,
                "weatherServiceName" : "Forecast.io", "relativeHumidity" : 87, "pressureMB" : 1011, "windSpeedKPH" : 6,
                "windBearing" : 330, "windChillCelsius" : 17, "visibilityKM" : 11.265407562255859, "moonPhase" : 0.25,
                "sunriseDate" : "2023-04-30T21:21:42Z", "sunsetDate" : "2023-05-01T10:31:45Z", "weatherCode" : "rain",
                "moonPhaseCode" : "first-quarter"
              },
              "photos" : [
                { "identifier" : "0A1B2C3D4E5F60718293A4B5C6D7E8F9", "md5" : "\#(photoMD5)", "type" : "jpeg",
                  "width" : 4032, "height" : 3024, "date" : "2023-05-01T10:19:00Z", "orderInEntry" : 0,
                  "fileSize" : 40000, "duration" : 0 },
                { "identifier" : "1111111111111111111111111111111A", "md5" : "\#(rawMD5)", "type" : "raw", "orderInEntry" : 1 }
              ],
              "videos" : [
                { "identifier" : "2222222222222222222222222222222B", "md5" : "0123456789abcdef0123456789abcdef",
                  "type" : "mov", "duration" : 12.5 }
              ]
            },
            {
              "uuid" : "9F8E7D6C-5B4A-4392-8170-FEDCBA987654",
              "creationDate" : "2023-06-10T23:05:00Z",
              "timeZone" : "Mars/Olympus_Mons",
              "text" : "Just a quiet day.\nNothing else.",
              "location" : { "localityName" : "Keelung", "region" : { "center" : { "latitude" : 25.13, "longitude" : 121.74 } } }
            }
          ]
        }
        """#
    }

    // MARK: Helpers

    static func md5sum(_ file: URL) throws -> String {
        String(try ArchiveTool.run("/usr/bin/md5sum", [file.path]).text.prefix(32))
    }

    static func md5(_ bytes: [UInt8], scratch: URL) throws -> String {
        let file = scratch.appendingPathComponent("md5-\(UUID().uuidString)")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try md5sum(file)
    }

    static func sha256(_ bytes: [UInt8], scratch: URL) throws -> String {
        let file = scratch.appendingPathComponent("sha-\(UUID().uuidString)")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try ArchiveTool.sha256sum(file)
    }

    /// A zip made by bsdtar from these files (it adds the folders too, as Day One's zips have).
    static func bsdtarZip(_ members: [(path: String, bytes: [UInt8])], scratch: URL) throws -> URL {
        let folder = scratch.appendingPathComponent("tree-\(UUID().uuidString)")
        for member in members {
            let file = folder.appendingPathComponent(member.path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(member.bytes).write(to: file)
        }
        let zip = scratch.appendingPathComponent("dayone-\(UUID().uuidString).zip")
        let tops = Set(members.map { String($0.path.split(separator: "/")[0]) }).sorted()
        let result = try ArchiveTool.run("/usr/bin/bsdtar", ["-a", "-cf", zip.path, "-C", folder.path] + tops)
        #expect(result.status == 0, "\(result.errors)")
        return zip
    }

    /// A zip written by ArchiveWriter.
    static func writerZip(_ members: [(path: String, bytes: [UInt8])], scratch: URL) throws -> URL {
        let zip = scratch.appendingPathComponent("dayone-\(UUID().uuidString).zip")
        let writer = try ArchiveWriter(format: .zip, path: zip.path)
        for member in members { try writer.add(path: member.path, bytes: member.bytes, modified: Date()) }
        try writer.finish()
        return zip
    }

    static func importZip(_ zip: URL, into diary: TestDiary) throws -> ImportSummary {
        let descriptor = open(zip.path, O_RDONLY | O_CLOEXEC)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        return try ArchiveImport.run(store: diary.store, from: descriptor, mode: .importEntries)
    }

    /// The regular files under a folder, relative paths.
    static func files(under folder: URL) -> [String] {
        var found: [String] = []
        let walker = FileManager.default.enumerator(atPath: folder.path)
        while let name = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder), !isFolder.boolValue {
                found.append(name)
            }
        }
        return found.sorted()
    }

    static func sampleZip(scratch: URL) throws -> (zip: URL, photoMD5: String) {
        let photoMD5 = try md5(photo, scratch: scratch)
        let rawMD5 = try md5(raw, scratch: scratch)
        let zip = try bsdtarZip([
            ("Journal.json", Array(journal(photoMD5: photoMD5, rawMD5: rawMD5).utf8)),
            ("photos/\(photoMD5).jpeg", photo),
            ("photos/\(rawMD5).raw", raw),
        ], scratch: scratch)
        return (zip, photoMD5)
    }

    static func sameSecond(_ a: Date?, _ b: Date?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return Timestamps.millis(a) / 1000 == Timestamps.millis(b) / 1000
    }

    // MARK: Import

    @Test func aDayOneZipBecomesSavedPagesWithTheirPhoto() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let diary = try TestDiary()
        let (zip, _) = try Self.sampleZip(scratch: scratch)

        let summary = try Self.importZip(zip, into: diary)
        #expect(summary.source == "dayone")
        #expect(summary.merge.added == 2 && summary.merge.updated == 0)
        #expect(summary.filesAdded == 1, "the photo; the raw one is not kept and the video is missing")

        let records = try diary.store.entryRecords(ids: [Self.firstId, Self.secondId])
        try #require(records.count == 2)
        let first = records[0]
        let created = try #require(Timestamps.parseRFC3339(Self.created))
        let modified = try #require(Timestamps.parseRFC3339(Self.modified))
        #expect(first.status == .saved)
        #expect(first.title == "海邊的傍晚")
        #expect(first.summary == "風好大，但很舒服.\n\n晚上吃了拉麵!")
        #expect(first.tags == ["旅行", "beach", "海邊"])
        #expect(first.timeZone == "Asia/Taipei")
        #expect(first.occurredAt == created && first.createdAt == created)
        #expect(first.updatedAt == modified && first.summarizedAt == modified)
        #expect(first.context == EntryContext(place: "八斗子漁港", latitude: 25.1426, longitude: 121.7917,
                                              weatherDescription: "Light Rain", temperatureC: 18.5,
                                              locality: "Keelung", region: "Taiwan Province", country: "Taiwan",
                                              weather: WeatherDetails(humidityPercent: 87, pressureHPa: 1011, windKPH: 6, windBearing: 330,
                                                                      windChillC: 17, visibilityKM: 11.265407562255859, moonPhase: 0.25,
                                                                      sunrise: Timestamps.parseRFC3339("2023-04-30T21:21:42Z"),
                                                                      sunset: Timestamps.parseRFC3339("2023-05-01T10:31:45Z"),
                                                                      code: "rain", service: "Forecast.io")))
        #expect(first.persona == Persona.warm.id)
        #expect(first.lines.isEmpty && first.note == nil)
        let clock = HybridTimestamp(wallMillis: Timestamps.millis(modified), counter: 0, device: "dayone").description
        #expect(first.clock == RowClock(hlc: clock, deviceId: "dayone"))
        #expect(first.tagLinks.allSatisfy { $0.clock.hlc == clock && $0.createdAt == created })

        try #require(first.media.count == 1)
        let media = first.media[0]
        #expect(media.id == "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9")
        #expect(media.position == 0 && media.clock.hlc == clock)
        let item = media.item
        let original = scratch.appendingPathComponent("photo.jpeg")
        try Data(Self.photo).write(to: original)
        #expect(item.kind == .photo && item.mime == "image/jpeg" && item.fileExtension == "jpg")
        #expect(item.sha256 == (try ArchiveTool.sha256sum(original)))
        #expect(item.bytes == Int64(Self.photo.count) && item.width == 4032 && item.height == 3024)
        #expect(item.durationSeconds == nil)
        #expect(item.takenAt == Timestamps.parseRFC3339("2023-05-01T10:19:00Z"))
        let stored = diary.store.paths.media.appendingPathComponent(item.relativePath)
        #expect(Array(try Data(contentsOf: stored)) == Self.photo)
        #expect(Self.files(under: diary.store.paths.media) == [item.relativePath], "the raw photo stayed out")

        let second = records[1]
        #expect(second.title == "Just a quiet day.", "no heading: the first line, as Day One shows it")
        #expect(second.summary == "Nothing else.")
        #expect(second.timeZone == "UTC", "an unknown zone")
        #expect(second.updatedAt == second.createdAt)
        #expect(second.tags.isEmpty && second.media.isEmpty)
        #expect(second.context == EntryContext(latitude: 25.13, longitude: 121.74, locality: "Keelung"), "the town is a town, not a place name")
        #expect(second.context.placeLine == "Keelung")

        // What people see: a saved page with its tags and photo, found by its words.
        let entry = try diary.store.entry(id: Self.firstId)
        #expect(entry.status == .saved && entry.tags == ["旅行", "beach", "海邊"] && entry.picture?.sha256 == item.sha256)
        #expect(try diary.store.searchIndexIsConsistent())
    }

    @Test func importingTheSameZipTwiceChangesNothing() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let diary = try TestDiary()
        let (zip, _) = try Self.sampleZip(scratch: scratch)
        _ = try Self.importZip(zip, into: diary)
        let before = try diary.store.entryRecords(ids: try diary.store.entryIds(includingDeleted: true))

        let again = try Self.importZip(zip, into: diary)
        #expect(again.merge.added == 0 && again.merge.updated == 0 && again.merge.unchanged == 2)
        #expect(again.merge.conflictsKept == 0 && again.filesAdded == 0)
        #expect(try diary.store.entryRecords(ids: try diary.store.entryIds(includingDeleted: true)) == before)
        #expect(try diary.store.conflicts().isEmpty)
        #expect(try diary.store.tags.uses().first { $0.name == "旅行" }?.count == 1)
    }

    /// Real exports carry photos whose bytes are not the MD5 their name gives, and people
    /// re-zip an unpacked export inside a folder (a Mac adds its own clutter): every entry
    /// still comes in, the photo under the SHA-256 of its real bytes, and the summary names it.
    @Test func aFileWhoseNameIsNotItsMD5IsKeptAndNamedInAJournalInATopFolder() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let diary = try TestDiary()
        let wrong = String(repeating: "ab", count: 16)
        let zip = try Self.writerZip([
            ("Export/Journal.json", Array(Self.journal(photoMD5: wrong, rawMD5: "00").utf8)),
            ("Export/photos/\(wrong).jpeg", Self.photo),
            ("__MACOSX/Export/._Journal.json", [0, 5, 22, 7]),
            ("Export/.DS_Store", [0, 0, 0, 1]),
        ], scratch: scratch)

        let summary = try Self.importZip(zip, into: diary)
        #expect(summary.source == "dayone")
        #expect(summary.mismatchedFiles == ["Export/photos/\(wrong).jpeg"])
        #expect(summary.merge.added == 2, "both entries, the photo's and the other")
        let records = try diary.store.entryRecords(ids: try diary.store.entryIds(includingDeleted: true))
        let photo = try #require(records.flatMap(\.media).first)
        let sha = try Self.sha256(Self.photo, scratch: scratch)
        #expect(photo.item.sha256 == sha)
        #expect(Self.files(under: diary.store.paths.media).map { ($0 as NSString).lastPathComponent } == ["\(sha).jpg"])
        let again = try Self.importZip(zip, into: diary)
        #expect(again.merge.unchanged == 2 && again.filesAdded == 0, "the same export again changes nothing")
    }

    /// A second journal, as Day One writes one per journal: tags in their own case, a photo
    /// above the title.
    static func travelJournal(photoMD5: String) -> String {
        #"""
        {"metadata":{"version":"1.0"},"entries":[{"uuid":"7A7A7A7A7A7A4A7A8A7A7A7A7A7A7A7A","creationDate":"2023-07-04T18:00:00Z",
          "timeZone":"America/New_York","text":"![](dayone-moment:\/\/3333333333333333333333333333333C)\n\nSlice on Bleecker\n\nStill warm.",
          "tags":["Pizza","New York","NYC"],"photos":[{"identifier":"3333333333333333333333333333333C","md5":"\#(photoMD5)","type":"jpeg"}]}]}
        """#
    }

    /// A Day One export read in, written out as Day One, and read into another diary: the
    /// same pages, field by field (title, page, star, tags as written, times, zone, every
    /// place and weather field, media and where they stand in the text), each in its journal.
    @Test func importExportImportChangesNothing() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let md5 = try Self.md5(Self.photo, scratch: scratch)
        let zip = try Self.writerZip([("Journal.json", Array(Self.journal(photoMD5: md5, rawMD5: "00").utf8)),
                                      ("Travel.json", Array(Self.travelJournal(photoMD5: md5).utf8)),
                                      ("photos/\(md5).jpeg", Self.photo)], scratch: scratch)
        let first = try TestDiary()
        _ = try Self.importZip(zip, into: first)
        let records = try first.store.entryRecords(ids: try first.store.entryIds(includingDeleted: false))
        try #require(records.count == 3)
        let sea = try #require(records.first { $0.id == Self.firstId })
        #expect(sea.tags == ["旅行", "beach", "海邊"] && sea.writtenTags == ["旅行", "Beach", "海邊"])
        #expect(sea.journal == nil && sea.media.map(\.anchor) == [2], "the photo stood after the page's first line")
        let pizza = try #require(records.first { $0.title == "Slice on Bleecker" })
        #expect(pizza.journal == "Travel" && pizza.tags == ["pizza", "new york", "nyc"])
        #expect(pizza.writtenTags == ["Pizza", "New York", "NYC"] && pizza.media.map(\.anchor) == [0])
        // What the person searches by is the tag's name, whatever its case.
        #expect(try first.store.tags.uses().map(\.name).contains("new york"))

        let again = scratch.appendingPathComponent("again.zip")
        let descriptor = open(again.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        let written = try DayOne.write(records: records, paths: first.store.paths, to: descriptor)
        close(descriptor)
        #expect(written.entries == 3 && written.media == 1)
        let listing = try ArchiveTool.run("/usr/bin/bsdtar", ["-tf", again.path]).text.split(separator: "\n")
        #expect(listing.filter { $0.hasSuffix(".json") }.sorted() == ["Journal.json", "Travel.json"], "one journal each, as they came")
        let travel = try #require(JSON.parse(try ArchiveTool.run("/usr/bin/bsdtar", ["-xOf", again.path, "Travel.json"]).output))
        #expect(travel["entries"]?[0]?["tags"] == .array(["Pizza", "New York", "NYC"].map(JSON.string)))
        #expect(travel["entries"]?[0]?["text"]?.stringValue?.hasPrefix("![](dayone-moment://3333333333333333333333333333333C)\n\n# Slice") == true)

        let second = try TestDiary()
        let summary = try Self.importZip(again, into: second)
        #expect(summary.merge.added == 3 && summary.mismatchedFiles.isEmpty && summary.leftOutFiles.isEmpty)
        for original in records {
            let copy = try #require(try second.store.entryRecords(ids: [original.id]).first)
            #expect(copy.title == original.title && copy.summary == original.summary)
            #expect(copy.starred == original.starred && copy.tags == original.tags && copy.writtenTags == original.writtenTags)
            #expect(copy.occurredAt == original.occurredAt && copy.updatedAt == original.updatedAt && copy.timeZone == original.timeZone)
            #expect(copy.context == original.context && copy.journal == original.journal)
            #expect(copy.media.map(\.item) == original.media.map(\.item) && copy.media.map(\.id) == original.media.map(\.id))
            #expect(copy.media.map(\.anchor) == original.media.map(\.anchor))
            #expect(copy == original, "nothing else differs either")
        }
    }

    @Test func importedPhotosGetTheirThumbnails() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let diary = try TestDiary()
        let jpeg = MediaFixtures.shared.bytes("x.jpg")
        let md5 = try Self.md5(jpeg, scratch: scratch)
        let journal = ##"{"entries":[{"uuid":"CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC","creationDate":"2024-01-02T03:04:05Z","text":"# Snow","##
            + #""photos":[{"identifier":"P9","md5":"\#(md5)","type":"jpeg"}]}]}"#
        let zip = try Self.writerZip([("Journal.json", Array(journal.utf8)), ("photos/\(md5).jpeg", jpeg)], scratch: scratch)
        _ = try Self.importZip(zip, into: diary)
        let item = try #require(try diary.store.entryRecords(ids: try diary.store.entryIds(includingDeleted: false)).first?.media.first?.item)
        let thumbnail = try #require(item.thumbnailPath, "the imported photo has a thumbnail")
        #expect(FileManager.default.fileExists(atPath: diary.store.paths.thumbnails.appendingPathComponent(thumbnail).path))
    }

    @Test func aBrokenJournalIsNamedWithTheWrongField() throws {
        func failure(_ text: String, member: String = "Journal.json") -> ArchiveError? {
            var files: [String: StagedFile] = [:]
            do {
                _ = try DayOne.records(journal: Array(text.utf8), files: &files, member: member)
                return nil
            } catch {
                return error as? ArchiveError
            }
        }
        let date = "\"creationDate\":\"2023-05-01T10:20:30Z\""
        #expect(failure("not json") == .invalidRecord(member: "Journal.json", line: 1, field: nil))
        #expect(failure("[1,2]") == .invalidRecord(member: "Journal.json", line: 1, field: nil))
        #expect(failure(#"{"metadata":{"version":"1.0"}}"#, member: "Travel.json")
                == .invalidRecord(member: "Travel.json", line: 1, field: "entries"))
        #expect(failure(#"{"entries":{}}"#) == .invalidRecord(member: "Journal.json", line: 1, field: "entries"))
        #expect(failure(#"{"entries":[1]}"#) == .invalidRecord(member: "Journal.json", line: 1, field: "entries[0]"))
        #expect(failure(#"{"entries":[{\#(date)}]}"#) == .invalidRecord(member: "Journal.json", line: 1, field: "entries[0].uuid"))
        #expect(failure(#"{"entries":[{"uuid":"AB"}]}"#) == .invalidRecord(member: "Journal.json", line: 1, field: "entries[0].creationDate"))
        #expect(failure(#"{"entries":[{"uuid":"AB","creationDate":5}]}"#)
                == .invalidRecord(member: "Journal.json", line: 1, field: "entries[0].creationDate"))
        #expect(failure(#"{"entries":[{"uuid":"AB",\#(date),"modifiedDate":"yesterday"}]}"#)
                == .invalidRecord(member: "Journal.json", line: 1, field: "entries[0].modifiedDate"))
        #expect(failure(#"{"entries":[{"uuid":"AB",\#(date)},{"uuid":"CD",\#(date),"tags":["a",3]}]}"#)
                == .invalidRecord(member: "Journal.json", line: 1, field: "entries[1].tags[1]"))
        #expect(failure(#"{"entries":[{"uuid":"AB",\#(date),"text":["no"]}]}"#)
                == .invalidRecord(member: "Journal.json", line: 1, field: "entries[0].text"))
        #expect(failure(#"{"entries":[{"uuid":"AB",\#(date),"location":{"latitude":"north"}}]}"#)
                == .invalidRecord(member: "Journal.json", line: 1, field: "entries[0].location.latitude"))
        #expect(failure(#"{"entries":[{"uuid":"AB",\#(date),"photos":[{"md5":"aa","width":"wide"}]}]}"#)
                == .invalidRecord(member: "Journal.json", line: 1, field: "entries[0].photos[0].width"))
        #expect(failure(#"{"entries":[{"uuid":"AB",\#(date),"videos":[{"duration":-1.5,"orderInEntry":-1}]}]}"#)
                == .invalidRecord(member: "Journal.json", line: 1, field: "entries[0].videos[0].orderInEntry"))
        // Missing optional fields and nulls are fine.
        #expect(failure(#"{"entries":[{"uuid":"AB",\#(date),"text":null,"tags":null,"location":null,"photos":[{}]}]}"#) == nil)
        #expect(failure(#"{"metadata":{},"entries":[]}"#) == nil)

        // Through the importer: refused, nothing stored.
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let diary = try TestDiary()
        let zip = try Self.writerZip([("Journal.json", Array("{\"entries\":[".utf8))], scratch: scratch)
        #expect(throws: ArchiveError.invalidRecord(member: "Journal.json", line: 1, field: nil)) { try Self.importZip(zip, into: diary) }
        #expect(try diary.store.entryIds(includingDeleted: true).isEmpty)
    }

    @Test func attachmentsAreFoundByMD5AndFiledUnderTheirSHA256() throws {
        let md5a = String(repeating: "a1", count: 16), md5b = String(repeating: "b2", count: 16)
        let md5c = String(repeating: "c3", count: 16), md5d = String(repeating: "d4", count: 16)
        let shaA = String(repeating: "1", count: 64), shaB = String(repeating: "2", count: 64)
        let shaC = String(repeating: "3", count: 64), shaD = String(repeating: "4", count: 64)
        let md5e = String(repeating: "e5", count: 16), shaE = String(repeating: "5", count: 64)
        func staged(_ name: String, _ sha: String, _ md5: String) -> StagedFile {
            StagedFile(url: URL(fileURLWithPath: "/staging/\(name)"), bytes: 10, sha256: sha, md5: md5)
        }
        var files: [String: StagedFile] = [
            "photos/\(md5a).jpg": staged("0", shaA, md5a),       // Day One says jpeg, the file says jpg
            "photos/\(md5b).pdf": staged("1", shaB, md5b),       // a type we do not keep
            "audios/\(md5c).m4a": staged("2", shaC, md5c),
            "videos/\(md5d).MOV": staged("3", shaD, md5d),       // any case
            "pdfs/\(md5e).pdf": staged("4", shaE, md5e),
        ]
        let date = "\"creationDate\":\"2023-05-01T10:20:30Z\""
        let travel = #"""
            {"entries":[{"uuid":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",\#(date),"text":"# A",
              "photos":[{"identifier":"P2","md5":"\#(md5b)","type":"pdf","orderInEntry":0},
                        {"identifier":"P1","md5":"\#(md5a.uppercased())","type":"jpeg","orderInEntry":1}],
              "audios":[{"identifier":"A1","md5":"\#(md5c)","format":"aac","duration":3.5}],
              "pdfAttachments":[{"identifier":"F1","md5":"\#(md5e)","type":"pdf","pdfName":"ticket.pdf"}],
              "videos":[{"identifier":"V1","md5":"\#(md5d)","type":"mov","duration":12,"width":1920,"height":1080,"orderInEntry":0}]}]}
            """#
        let work = #"""
            {"entries":[{"uuid":"BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB",\#(date),"text":"# B",
              "photos":[{"identifier":"P1","md5":"\#(md5a)","type":"jpeg"}]},
             {"uuid":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",\#(date),"text":"# A again"}]}
            """#
        var findings = DayOne.Findings()
        let records = try DayOne.records(journals: [("Travel.json", Array(travel.utf8)), ("Work.json", Array(work.utf8))],
                                         files: &files, findings: &findings)
        #expect(findings.mismatched.isEmpty)
        #expect(findings.leftOut == ["photos/\(md5b).pdf"], "a PDF in the photos list is named, not dropped silently")
        #expect(records.map(\.title) == ["A", "B"], "every journal, an entry found twice taken once")

        let a = records[0]
        #expect(a.media.map(\.item.kind) == [.video, .photo, .audio, .file], "by orderInEntry, then photos, videos, voice memos, PDFs")
        #expect(a.media.map(\.position) == [0, 1, 2, 3])
        #expect(a.media.map(\.item.mime) == ["video/quicktime", "image/jpeg", "audio/mp4", "application/pdf"])
        #expect(a.media.map(\.item.fileExtension) == ["mov", "jpg", "m4a", "pdf"], "a memo's `aac` format is its codec; the file is an .m4a")
        #expect(a.media[0].item.width == 1920 && a.media[0].item.durationSeconds == 12)
        #expect(a.media[2].item.durationSeconds == 3.5)
        #expect(a.media.map(\.item.sha256) == [shaD, shaA, shaC, shaE])
        #expect(files["media/\(shaE).pdf"]?.url.path == "/staging/4", "a PDF is kept as a file of the page")
        #expect(files["media/\(shaA).jpg"]?.url.path == "/staging/0")
        #expect(files["media/\(shaC).m4a"]?.url.path == "/staging/2")
        #expect(files["media/\(shaD).mov"]?.url.path == "/staging/3")
        #expect(files.keys.filter { $0.hasPrefix("media/") }.count == 4, "the PDF in the photos list stays where it was")
        #expect(files["photos/\(md5b).pdf"] != nil)

        // The same photo in two entries: the second gets its own media id, the same every time.
        let b = records[1]
        #expect(b.media.count == 1 && b.media[0].item.sha256 == shaA)
        #expect(b.media[0].id != a.media[1].id && UUIDv7.isWellFormed(b.media[0].id))
        var again = files
        let twice = try DayOne.records(journals: [("Travel.json", Array(travel.utf8)), ("Work.json", Array(work.utf8))],
                                       files: &again, findings: &findings)
        #expect(twice == records)

        // A name that lies about the bytes: the file is taken for what it is, and named.
        var lying: [String: StagedFile] = ["photos/\(md5a).jpeg": staged("9", shaA, md5b)]
        var named = DayOne.Findings()
        let kept = try DayOne.records(journals: [("Work.json", Array(work.utf8))], files: &lying, findings: &named)
        #expect(named.mismatched == ["photos/\(md5a).jpeg"])
        #expect(kept.first { $0.title == "B" }?.media.map(\.item.sha256) == [shaA])
    }

    @Test func aPhotoIsWhatItsBytesSay() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let pdf = scratch.appendingPathComponent("a.pdf"), png = scratch.appendingPathComponent("b.png")
        try Data("%PDF-1.7\n%…\n".utf8).write(to: pdf)
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 32)).write(to: png)
        let md5a = String(repeating: "a1", count: 16), md5b = String(repeating: "b2", count: 16)
        let shaA = String(repeating: "1", count: 64), shaB = String(repeating: "2", count: 64)
        var files: [String: StagedFile] = [
            "photos/\(md5a).jpeg": StagedFile(url: pdf, bytes: 12, sha256: shaA, md5: md5a),
            "photos/\(md5b).jpeg": StagedFile(url: png, bytes: 40, sha256: shaB, md5: md5b),
        ]
        let journal = #"""
            {"entries":[{"uuid":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","creationDate":"2023-05-01T10:20:30Z","text":"# A",
              "photos":[{"identifier":"P1","md5":"\#(md5a)","type":"jpeg"},{"identifier":"P2","md5":"\#(md5b)","type":"jpeg"}]}]}
            """#
        let records = try DayOne.records(journal: Array(journal.utf8), files: &files)
        let media = try #require(records.first?.media)
        #expect(media.map(\.item.kind) == [.photo, .file] || media.map(\.item.kind) == [.file, .photo])
        let byHash = Dictionary(uniqueKeysWithValues: media.map { ($0.item.sha256, $0.item) })
        #expect(byHash[shaA]?.kind == .file && byHash[shaA]?.mime == "application/pdf" && byHash[shaA]?.fileExtension == "pdf",
                "a PDF listed as a photo is kept as a file, not as a JPEG")
        #expect(byHash[shaB]?.mime == "image/png" && byHash[shaB]?.fileExtension == "png")
        #expect(files["media/\(shaA).pdf"] != nil && files["media/\(shaB).png"] != nil)
    }

    @Test func aLongFirstParagraphIsThePageNotItsTitle() throws {
        let paragraph = String(repeating: "今天的風很大，我們沿著海邊走了很久。", count: 20)
        let read = DayOne.page(from: paragraph + "\n\n第二段。")
        #expect(read.title == nil && read.summary == paragraph + "\n\n第二段。", "the page keeps all its text")
        // Back to Day One and in again: the same.
        let again = DayOne.page(from: DayOne.text(title: read.title, summary: read.summary, references: []))
        #expect(again.title == nil && again.summary == read.summary)
        // A short first line, or a heading however long, is still the title.
        #expect(DayOne.page(from: "海邊\n風很大").title == "海邊")
        #expect(DayOne.page(from: "# " + paragraph + "\n風很大").title == paragraph)
    }

    @Test func aClockFromTheFarFutureCountsAsTheOldest() throws {
        var files: [String: StagedFile] = [:]
        let journal = #"{"entries":[{"uuid":"AB","creationDate":"2999-01-01T00:00:00Z"}]}"#
        let records = try DayOne.records(journal: Array(journal.utf8), files: &files)
        #expect(records[0].clock.hlc == HybridTimestamp(wallMillis: 0, counter: 0, device: "dayone").description)
        #expect(records[0].occurredAt == Timestamps.parseRFC3339("2999-01-01T00:00:00Z"))
        #expect(UUIDv7.isWellFormed(records[0].id), "an identifier Day One would not write still makes a UUID-shaped id")
        let diary = try TestDiary()
        #expect(try diary.store.merge(records, source: .import).added == 1)
    }

    // MARK: Text

    /// Title and page as one comparable value.
    static func read(_ text: String) -> [String?] {
        let page = DayOne.page(from: text)
        return [page.title, page.summary]
    }

    @Test func theFirstLineIsTheTitleAndTheRestIsThePage() {
        #expect(Self.read("# Title\n\nBody") == ["Title", "Body"])
        #expect(Self.read("## Sub heading\r\nBody\r\n") == ["Sub heading", "Body"])
        #expect(Self.read("#NoSpace\nBody") == ["#NoSpace", "Body"])
        #expect(Self.read("\n  Plain first line\\.\n\nMore") == ["Plain first line.", "More"])
        #expect(Self.read("") == [nil, nil])
        #expect(Self.read("# \n\nBody") == [nil, "Body"])
        #expect(Self.read("# Only a title") == ["Only a title", nil])
        #expect(Self.read("![](dayone-moment://AAA)\n\n# Title\n\nOne\n\n![](dayone-moment:/video/BBB)\n\nTwo ![](dayone-moment://CCC) end") == ["Title", "One\n\nTwo  end"])
        #expect(Self.read("# Hello\\!\n\nA\\.B \\\\ C\\d") == ["Hello!", "A.B \\ C\\d"])
        #expect(Self.read("Title\nKeep ![a picture](https://example.com/x.jpg)") == ["Title", "Keep ![a picture](https://example.com/x.jpg)"])
        #expect(Self.read("![](dayone-moment://AAA)\nOne line only") == ["One line only", nil])
    }

    @Test(arguments: [
        ("海邊的傍晚", "風好大，但很舒服。\n\n# 這行不是標題\n晚上吃了拉麵！"),
        ("C:\\path\\", "back\\slash \\\\ and \\. and \\# and a last \\"),
        ("Title with\nnewline", "Body"),
        ("Only a title", nil),
    ] as [(String?, String?)])
    func ourMarkdownReadsBackTheSame(title: String?, summary: String?) {
        let references: [(reference: String, anchor: Int?)] = [("![](dayone-moment://0A1B)", nil), ("![](dayone-moment:/video/0C1D)", nil)]
        let text = DayOne.text(title: title, summary: summary, references: references)
        let read = DayOne.page(from: text)
        #expect(read.title == title?.replacingOccurrences(of: "\n", with: " "))
        #expect(read.summary == summary)
        #expect(read.anchors == [:], "references after all the text have no anchor")
    }

    /// Pictures stand where Day One had them: before the title, after it, between
    /// paragraphs, inside one, at the end; written back there and read back the same.
    @Test func picturesKeepTheirPlaceInTheText() {
        let text = """
            ![](dayone-moment://AAAA)

            # Title

            ![](dayone-moment:/video/bbbb)

            First paragraph.
            Its second line.
            ![](dayone-moment://CCCC)
            Its third line.

            ![](dayone-moment://DDDD)

            Last paragraph.

            ![](dayone-moment:/audio/EEEE)
            """
        let page = DayOne.page(from: text)
        #expect(page.title == "Title")
        #expect(page.summary == "First paragraph.\nIts second line.\nIts third line.\n\nLast paragraph.")
        #expect(page.anchors == ["AAAA": 0, "BBBB": 1, "CCCC": 3, "DDDD": 4], "EEEE follows all the text: no anchor")

        let order = ["AAAA", "BBBB", "CCCC", "DDDD", "EEEE"]
        let written = DayOne.text(title: page.title, summary: page.summary, references: order.map { id in
            (id == "BBBB" ? "![](dayone-moment:/video/\(id))" : "![](dayone-moment://\(id))", page.anchors[id])
        })
        #expect(written == """
            ![](dayone-moment://AAAA)

            # Title

            ![](dayone-moment:/video/BBBB)

            First paragraph.
            Its second line.
            ![](dayone-moment://CCCC)
            Its third line.

            ![](dayone-moment://DDDD)

            Last paragraph.

            ![](dayone-moment://EEEE)
            """)
        let again = DayOne.page(from: written)
        #expect([again.title, again.summary] == [page.title, page.summary])
        #expect(again.anchors == page.anchors)

        // A first line that is no heading is still the title; an anchor past a page that has since got shorter.
        #expect(DayOne.page(from: "One\n\n![](dayone-moment://A1)\n\nTwo\n\nThree").anchors == ["A1": 1])
        #expect(DayOne.text(title: nil, summary: "One", references: [("![](dayone-moment://A1)", 7)]) == "One\n\n![](dayone-moment://A1)")
    }

    /// Day One shows an untitled page's first line as its title, and so does the import; a
    /// line that looks like a heading keeps its marks there.
    @Test(arguments: [("# not a title\nrest", "# not a title"), ("  ## also not\nrest", "## also not"), ("#\nrest", "#"),
                      ("plain\n\nrest", "plain"), ("\\# escaped already\nrest", "\\# escaped already")])
    func anUntitledPageComesBackTitledByItsFirstLine(summary: String, title: String) {
        let read = DayOne.page(from: DayOne.text(title: nil, summary: summary, references: []))
        #expect(read.title == title)
        #expect(read.summary == "rest")
    }

    @Test func identifiersBecomeLowercaseDashedIdsAndBack() {
        #expect(DayOne.identifier("5C1E8F2A9B3D4E6F8A7B6C5D4E3F2A1B") == "5c1e8f2a-9b3d-4e6f-8a7b-6c5d4e3f2a1b")
        #expect(DayOne.identifier("5C1E8F2A-9B3D-4E6F-8A7B-6C5D4E3F2A1B") == "5c1e8f2a-9b3d-4e6f-8a7b-6c5d4e3f2a1b")
        #expect(DayOne.dayOneIdentifier("0193b3c2-7d1e-7c4a-9f1e-2b7a6c0d9e11") == "0193B3C27D1E7C4A9F1E2B7A6C0D9E11")
        let id = "0193b3c2-7d1e-7c4a-9f1e-2b7a6c0d9e11"
        #expect(DayOne.identifier(DayOne.dayOneIdentifier(id)) == id)
        let odd = DayOne.identifier("not hex at all")
        #expect(UUIDv7.isWellFormed(odd) && odd == DayOne.identifier("not hex at all") && odd != DayOne.identifier("not hex at all!"))
        #expect(DayOne.time(Date(timeIntervalSince1970: 1_682_936_430.75)) == "2023-05-01T10:20:30Z")
    }

    // MARK: Export

    @Test func anExportImportsBackToTheSamePages() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let source = try TestDiary()
        let store = source.store

        // A page with a photo, a video and a voice memo, place and weather; a fourth
        // attachment whose file is not on this device.
        var items: [MediaItem] = []
        var bodies: [String: [UInt8]] = [:]
        let kinds: [(MediaKind, String, String, Int)] = [(.photo, "image/jpeg", "jpg", 31), (.video, "video/mp4", "mp4", 32),
                                                         (.audio, "audio/mp4", "m4a", 33), (.file, "application/pdf", "pdf", 44)]
        for (kind, mime, ext, seed) in kinds {
            let bytes = pseudoRandomBytes(20_000 + seed, seed: UInt64(seed))
            let file = scratch.appendingPathComponent("\(seed).\(ext)")
            try Data(bytes).write(to: file)
            var item = MediaItem(kind: kind, sha256: try ArchiveTool.sha256sum(file), mime: mime, fileExtension: ext, bytes: Int64(bytes.count))
            switch kind {
            case .photo: (item.width, item.height, item.takenAt) = (4032, 3024, Date(timeIntervalSince1970: 1_795_000_000))
            case .video: (item.width, item.height, item.durationSeconds) = (1920, 1080, 12.5)
            case .audio: item.durationSeconds = 3.25
            case .file: break
            }
            let stored = store.paths.media.appendingPathComponent(item.relativePath)
            try FileManager.default.createDirectory(at: stored.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: stored)
            items.append(item)
            bodies[item.sha256] = bytes
        }
        items.append(MediaItem(kind: .photo, sha256: String(repeating: "e", count: 64), mime: "image/png", fileExtension: "png", bytes: 9))
        let context = EntryContext(place: "八斗子漁港", latitude: 25.13, longitude: 121.74, weatherDescription: "小雨", temperatureC: 18.5,
                                   locality: "基隆市", region: "臺灣省", country: "台灣",
                                   weather: WeatherDetails(humidityPercent: 87, pressureHPa: 1011.5, windKPH: 6, windBearing: 330, windChillC: 17,
                                                           visibilityKM: 9.5, moonPhase: 0.25, sunrise: moment("2026-11-21 06:12"),
                                                           sunset: moment("2026-11-21 17:05"), code: "rain", service: "Central Weather Administration"))
        let rich = try store.createEntry(NewEntry(occurredAt: moment("2026-11-21 17:40"), timeZone: TimeZone(identifier: "Asia/Taipei")!,
                                                  note: "今天去海邊", context: context, persona: "warm", media: items))
        try store.savePage(entryId: rich, title: "海邊的傍晚", summary: "風好大，但很舒服。\n\n# 這行不是標題\n路徑 C:\\temp\\. 還有 \\* 星號",
                           tags: ["旅行", "放鬆", "海邊"], persona: "warm", provider: "offline", usageDay: "2026-11-21")
        let plain = try source.page("Second day", tags: ["work"], at: moment("2026-11-22 09:00", zone: "Europe/Berlin"), zone: "Europe/Berlin")
        var records = try store.entryRecords(ids: [rich, plain])
        var tombstone = records[1]
        tombstone.id = UUIDv7.make()
        tombstone.clock.deletedAt = Date()
        records.append(tombstone)

        let archive = scratch.appendingPathComponent("dayone-export.zip")
        let descriptor = open(archive.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        let written = try DayOne.write(records: records, paths: store.paths, to: descriptor)
        close(descriptor)
        #expect(written.entries == 2, "the tombstone is left out")
        let zipSize = try #require(try FileManager.default.attributesOfItem(atPath: archive.path)[.size] as? Int)
        #expect(written.bytes == Int64(zipSize), "the summary counts the zip's bytes")

        // The system's tools read it as Day One lays it out.
        let listing = try ArchiveTool.run("/usr/bin/bsdtar", ["-tf", archive.path])
        #expect(listing.status == 0)
        var expected = ["Journal.json"]
        for item in items.prefix(4) {
            let md5 = try Self.md5sum(store.paths.media.appendingPathComponent(item.relativePath))
            expected.append("\(DayOne.folder(item.kind))/\(md5).\(item.fileExtension == "jpg" ? "jpeg" : item.fileExtension)")
        }
        #expect(listing.text.split(separator: "\n").map(String.init) == expected)
        #expect(written.media == expected.count - 1, "the summary counts every attachment file, not the journal")
        #expect(expected[1].hasPrefix("photos/") && expected[2].hasPrefix("videos/") && expected[3].hasPrefix("audios/")
                && expected[4].hasPrefix("pdfs/"))
        let journalText = try ArchiveTool.run("/usr/bin/bsdtar", ["-xOf", archive.path, "Journal.json"])
        let journal = try #require(JSON.parse(journalText.output))
        #expect(journal["metadata"]?["version"] == .string("1.0"))
        let first = try #require(journal["entries"]?[0])
        #expect(journal["entries"]?.arrayValue?.count == 2)
        #expect(first["uuid"]?.stringValue == rich.replacingOccurrences(of: "-", with: "").uppercased())
        #expect(first["creationDate"]?.stringValue == "2026-11-21T09:40:00Z")
        #expect(first["text"]?.stringValue?.hasPrefix("# 海邊的傍晚\n\n風好大") == true)
        #expect(first["photos"]?.arrayValue?.count == 1, "the photo whose file is missing is left out")
        #expect(first["pdfAttachments"]?.arrayValue?.count == 1 && first["pdfAttachments"]?[0]?["type"] == .string("pdf"),
                "a PDF goes back as Day One lists them")
        let memo = try #require(first["audios"]?[0])
        #expect(memo["format"] == .string("aac") && memo["type"] == nil, "a voice memo names its codec, as Day One's do")
        #expect(first["location"]?["localityName"] == .string("基隆市") && first["location"]?["administrativeArea"] == .string("臺灣省"))
        #expect(first["location"]?["country"] == .string("台灣") && first["location"]?["placeName"] == .string("八斗子漁港"))
        #expect(first["weather"]?["relativeHumidity"]?.doubleValue == 87 && first["weather"]?["pressureMB"]?.doubleValue == 1011.5)
        #expect(first["weather"]?["sunriseDate"] == .string("2026-11-20T22:12:00Z"), "Day One's names, types and time form")
        #expect(first["weather"]?["weatherServiceName"] == .string("Central Weather Administration"))
        #expect(first["photos"]?[0]?["type"] == .string("jpeg"))

        // Into a fresh diary: the same pages.
        let target = try TestDiary()
        let summary = try Self.importZip(archive, into: target)
        #expect(summary.source == "dayone" && summary.merge.added == 2 && summary.filesAdded == 4)
        for original in records.prefix(2) {
            let copy = try #require(try target.store.entryRecords(ids: [original.id]).first)
            #expect(copy.status == .saved)
            #expect(copy.title == original.title)
            #expect(copy.summary == original.summary)
            #expect(copy.tags == original.tags)
            #expect(copy.timeZone == original.timeZone)
            #expect(copy.context == original.context)
            #expect(copy.occurredAt == original.occurredAt)
            #expect(Self.sameSecond(copy.updatedAt, original.updatedAt))
            let kept = original.liveMedia.filter { bodies[$0.item.sha256] != nil }
            #expect(copy.media.map(\.id) == kept.map(\.id))
            #expect(copy.media.map(\.position) == Array(0..<kept.count))
            for (mine, theirs) in zip(copy.media.map(\.item), kept.map(\.item)) {
                #expect(mine.kind == theirs.kind && mine.sha256 == theirs.sha256 && mine.mime == theirs.mime)
                #expect(mine.fileExtension == theirs.fileExtension && mine.bytes == theirs.bytes)
                #expect(mine.width == theirs.width && mine.height == theirs.height && mine.durationSeconds == theirs.durationSeconds)
                #expect(Self.sameSecond(mine.takenAt, theirs.takenAt))
                let file = target.store.paths.media.appendingPathComponent(mine.relativePath)
                #expect(Array(try Data(contentsOf: file)) == bodies[mine.sha256])
            }
        }
        #expect(try target.store.entryIds(includingDeleted: true).count == 2)

        // And once more: nothing changes.
        let again = try Self.importZip(archive, into: target)
        #expect(again.merge.added == 0 && again.merge.updated == 0 && again.filesAdded == 0)
    }

    @Test func anExportOfNothingIsAnEmptyJournal() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let diary = try TestDiary()
        let zip = scratch.appendingPathComponent("empty.zip")
        let descriptor = open(zip.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        #expect(try DayOne.write(records: [], paths: diary.store.paths, to: descriptor).entries == 0)
        close(descriptor)
        let summary = try Self.importZip(zip, into: diary)
        #expect(summary.source == "dayone" && summary.merge == MergeReport())
    }
}
