import Foundation
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

@Suite struct MediaIntakeTests {
    let limits = MediaLimits(photoBytes: 20_000_000, videoBytes: 500_000_000)
    let utc = TimeZone(identifier: "UTC")!
    let fixtures = MediaFixtures.shared

    // MARK: Recognising

    @Test(arguments: [
        ("x.jpg", "image/jpeg", "jpg"), ("x.png", "image/png", "png"), ("x.gif", "image/gif", "gif"),
        ("x.webp", "image/webp", "webp"), ("lossless.webp", "image/webp", "webp"), ("anim.webp", "image/webp", "webp"),
    ])
    func inspectsPhotos(name: String, mime: String, fileExtension: String) throws {
        let file = fixtures.url(name)
        let result = try MediaIntake.inspect(file, limits: limits, timeZone: utc)
        let item = result.item
        #expect(item.kind == .photo)
        #expect(item.mime == mime)
        #expect(item.fileExtension == fileExtension)
        #expect(item.width == 64 && item.height == 48)
        #expect(item.durationSeconds == nil)
        #expect(item.takenAt == nil)
        #expect(result.latitude == nil && result.longitude == nil)
        #expect(item.bytes == Int64(fixtures.bytes(name).count))
        #expect(item.sha256 == (try sha256sum(file)))
    }

    @Test(arguments: [
        ("x.mp4", "video/mp4", "mp4", true), ("x.mov", "video/quicktime", "mov", true),
        ("x.m4v", "video/x-m4v", "m4v", false), ("x.webm", "video/webm", "webm", true),
    ])
    func inspectsVideos(name: String, mime: String, fileExtension: String, stamped: Bool) throws {
        let file = fixtures.url(name)
        let result = try MediaIntake.inspect(file, limits: limits, timeZone: utc)
        let item = result.item
        #expect(item.kind == .video)
        #expect(item.mime == mime)
        #expect(item.fileExtension == fileExtension)
        #expect(item.width == 64 && item.height == 48)
        #expect(abs((item.durationSeconds ?? 0) - 1) < 0.25)
        #expect(item.takenAt == (stamped ? Date(timeIntervalSince1970: 1_714_558_830) : nil))
        #expect(item.sha256 == (try sha256sum(file)))
        #expect(item.relativePath == "\(item.sha256.prefix(2))/\(item.sha256).\(fileExtension)")
    }

    @Test func typeComesFromBytesNotName() throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let video = try writeFile(fixtures.bytes("x.mp4"), named: "holiday.jpg", in: directory)
        let asVideo = try MediaIntake.inspect(video, limits: limits, timeZone: utc).item
        #expect(asVideo.kind == .video && asVideo.mime == "video/mp4" && asVideo.fileExtension == "mp4")

        let photo = try writeFile(fixtures.bytes("x.png"), named: "clip.mov", in: directory)
        #expect(try MediaIntake.inspect(photo, limits: limits, timeZone: utc).item.fileExtension == "png")

        let mov = fixtures.bytes("x.mov")
        let classic = try writeFile(Array(mov[Int(mov[3])...]), named: "old-camera.mov", in: directory)
        let classicItem = try MediaIntake.inspect(classic, limits: limits, timeZone: utc).item
        #expect(classicItem.mime == "video/quicktime" && classicItem.width == 64)

        let noName = try writeFile(fixtures.bytes("x.webm"), named: "no-extension", in: directory)
        #expect(try MediaIntake.inspect(noName, limits: limits, timeZone: utc).item.mime == "video/webm")
    }

    @Test func inspectsHEIC() throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try writeFile(syntheticHEIC(), named: "IMG_0001.HEIC", in: directory)
        let item = try MediaIntake.inspect(file, limits: limits, timeZone: utc).item
        #expect(item.kind == .photo && item.mime == "image/heic" && item.fileExtension == "heic")
        #expect(item.width == 4032 && item.height == 3024)

        let broken = try writeFile(syntheticHEIC(primary: nil, thumbnail: nil), named: "broken.heic", in: directory)
        #expect(throws: MediaError.unreadable(kind: .photo, problem: .damaged)) {
            try MediaIntake.inspect(broken, limits: limits, timeZone: utc)
        }
    }

    @Test func readsCaptureTimeAndPlaceFromExif() throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for littleEndian in [true, false] {
            let tiff = TIFFBuilder(littleEndian: littleEndian).camera()
            let file = try writeFile(jpegWithSegment(exifSegment(tiff)), named: "exif-\(littleEndian).jpg", in: directory)
            let result = try MediaIntake.inspect(file, limits: limits, timeZone: utc)
            #expect(result.item.takenAt == Date(timeIntervalSince1970: 1_714_545_000))
            #expect(abs((result.latitude ?? 0) - 25.041_666_666) < 1e-6)
            #expect(abs((result.longitude ?? 0) - 121.565) < 1e-6)
            #expect(result.item.width == 64 && result.item.height == 48)
        }

        // Without an offset the photo's clock is read in the diary's zone.
        let local = TIFFBuilder(littleEndian: true).camera(offset: nil)
        let file = try writeFile(jpegWithSegment(exifSegment(local)), named: "local.jpg", in: directory)
        let tokyo = try MediaIntake.inspect(file, limits: limits, timeZone: TimeZone(identifier: "Asia/Tokyo")!)
        #expect(tokyo.item.takenAt == Date(timeIntervalSince1970: 1_714_541_400))
    }

    @Test func garbageExifStillYieldsThePhoto() throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var noise = NoiseGenerator(state: 7)
        let tiff = TIFFBuilder(littleEndian: true).camera()
        var segments: [[UInt8]] = [
            exifSegment([]),
            exifSegment(Array(tiff.prefix(20))),
            exifSegment(Array("MM\u{0}*\u{FF}\u{FF}\u{FF}\u{FF}".utf8)),
        ]
        for _ in 0..<20 {
            segments.append(exifSegment((0..<noise.below(400)).map { _ in UInt8(truncatingIfNeeded: noise.next()) }))
        }
        for (index, segment) in segments.enumerated() {
            let file = try writeFile(jpegWithSegment(segment), named: "garbage-\(index).jpg", in: directory)
            let result = try MediaIntake.inspect(file, limits: limits, timeZone: utc)
            #expect(result.item.width == 64 && result.item.height == 48)
            #expect(result.item.takenAt == nil)
        }
        // An APP1 whose length runs past the end of the file is a broken JPEG, not a crash.
        let overlong: [UInt8] = [0xFF, 0xE1, 0xFF, 0xF0] + Array("Exif".utf8) + [0, 0] + Array(tiff.prefix(30))
        let file = try writeFile([0xFF, 0xD8] + overlong + [0xFF, 0xD9], named: "overlong.jpg", in: directory)
        #expect(throws: MediaError.unreadable(kind: .photo, problem: .damaged)) {
            try MediaIntake.inspect(file, limits: limits, timeZone: utc)
        }
    }

    // MARK: Refusing

    @Test func refusesDamagedPhotos() throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let jpeg = fixtures.bytes("x.jpg")
        let png = fixtures.bytes("x.png")
        let cases: [(String, [UInt8])] = [
            ("truncated.jpg", Array(jpeg.prefix(jpeg.count - 300))),
            ("no-frame.jpg", syntheticJPEG(width: 10, height: 10, frame: false)),
            ("no-iend.png", Array(png.dropLast(12))),
            ("no-trailer.gif", Array(fixtures.bytes("x.gif").dropLast())),
            ("short.webp", Array(fixtures.bytes("x.webp").dropLast(20))),
        ]
        for (name, bytes) in cases {
            let file = try writeFile(bytes, named: name, in: directory)
            #expect(throws: MediaError.unreadable(kind: .photo, problem: .damaged), "\(name)") {
                try MediaIntake.inspect(file, limits: limits, timeZone: utc)
            }
        }
    }

    @Test func refusesCorruptVideo() throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var noise = NoiseGenerator(state: 99)
        let garbage = (0..<4096).map { _ in UInt8(truncatingIfNeeded: noise.next()) }
        let corrupt = ftypBox(major: "isom", compatible: ["isom", "mp41"]) + garbage
        let file = try writeFile(corrupt, named: "corrupt.mp4", in: directory)
        #expect(throws: MediaError.unreadable(kind: .video, problem: .damaged)) {
            try MediaIntake.inspect(file, limits: limits, timeZone: utc)
        }
        let mp4 = fixtures.bytes("x.mp4")
        let cut = try writeFile(Array(mp4.prefix(mp4.count / 3)), named: "cut.mp4", in: directory)
        #expect(throws: MediaError.unreadable(kind: .video, problem: .damaged)) {
            try MediaIntake.inspect(cut, limits: limits, timeZone: utc)
        }
    }

    @Test func refusesWhatIsNotMedia() throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = try writeFile(Array("Dear diary, today was fine.\n".utf8), named: "note.jpg", in: directory)
        #expect(throws: MediaError.unreadable(kind: nil, problem: .unrecognized)) {
            try MediaIntake.inspect(text, limits: limits, timeZone: utc)
        }
        let empty = try writeFile([], named: "empty.jpg", in: directory)
        #expect(throws: MediaError.unreadable(kind: nil, problem: .empty)) {
            try MediaIntake.inspect(empty, limits: limits, timeZone: utc)
        }
        #expect(throws: MediaError.unreadable(kind: nil, problem: .unrecognized)) {
            try MediaIntake.inspect(fixtures.url("x.mkv"), limits: limits, timeZone: utc)
        }
        let avif = try writeFile(syntheticHEIC(major: "avif", compatible: ["mif1", "avif"]), named: "a.heic", in: directory)
        #expect(throws: MediaError.unreadable(kind: nil, problem: .unrecognized)) {
            try MediaIntake.inspect(avif, limits: limits, timeZone: utc)
        }
    }

    @Test func refusesMissingAndIrregularFiles() throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("nope.jpg")
        #expect(throws: MediaError.missing(path: missing.path)) {
            try MediaIntake.inspect(missing, limits: limits, timeZone: utc)
        }
        #expect(throws: MediaError.unreadable(kind: nil, problem: .folder)) {
            try MediaIntake.inspect(directory, limits: limits, timeZone: utc)
        }
        // A named pipe must be refused without blocking on the open.
        let fifo = directory.appendingPathComponent("pipe.jpg")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        #expect(throws: MediaError.unreadable(kind: nil, problem: .notAFile)) {
            try MediaIntake.inspect(fifo, limits: limits, timeZone: utc)
        }
        // A symbolic link to a photo is followed.
        let link = directory.appendingPathComponent("link.png")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: fixtures.url("x.png"))
        #expect(try MediaIntake.inspect(link, limits: limits, timeZone: utc).item.mime == "image/png")
    }

    @Test func refusesFilesOverTheLimitBeforeParsing() throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Only a JPEG's first bytes, then zeros: parsing would call it damaged, so "too large" proves the order.
        let big = try writeFile([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0, count: 2_600_000), named: "big.jpg", in: directory)
        let small = MediaLimits(photoBytes: 2_500_000, videoBytes: 500_000_000)
        #expect(throws: MediaError.unreadable(kind: .photo, problem: .tooLarge(limitMB: 2))) {
            try MediaIntake.inspect(big, limits: small, timeZone: utc)
        }
        let tiny = MediaLimits(photoBytes: 100, videoBytes: 1_000)
        #expect(throws: MediaError.unreadable(kind: .photo, problem: .tooLarge(limitMB: 0))) {
            try MediaIntake.inspect(fixtures.url("x.png"), limits: tiny, timeZone: utc)
        }
        #expect(throws: MediaError.unreadable(kind: .video, problem: .tooLarge(limitMB: 0))) {
            try MediaIntake.inspect(fixtures.url("x.mp4"), limits: tiny, timeZone: utc)
        }
        // Each kind is held to its own limit.
        let photosOnlySmall = MediaLimits(photoBytes: 100, videoBytes: 10_000_000)
        #expect(try MediaIntake.inspect(fixtures.url("x.mp4"), limits: photosOnlySmall, timeZone: utc).item.kind == .video)
        let exact = MediaLimits(photoBytes: Int64(fixtures.bytes("x.png").count), videoBytes: 0)
        #expect(try MediaIntake.inspect(fixtures.url("x.png"), limits: exact, timeZone: utc).item.kind == .photo)
    }

    // MARK: Storing

    @Test func storesContentAddressedCopy() throws {
        let root = try makeTempDirectory("store").appendingPathComponent("media")
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        let file = fixtures.url("x.jpg")
        let result = try MediaIntake.store(file, limits: limits, timeZone: utc, into: root)
        let item = result.item
        #expect(item.sha256 == (try sha256sum(file)))
        #expect(filesUnder(root) == [item.relativePath])
        let stored = try Data(contentsOf: root.appendingPathComponent(item.relativePath))
        #expect([UInt8](stored) == fixtures.bytes("x.jpg"))
        #expect(try MediaIntake.inspect(file, limits: limits, timeZone: utc).item == item)
    }

    @Test func sameBytesAreStoredOnce() throws {
        let directory = try makeTempDirectory("store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.appendingPathComponent("media")
        let copy = try writeFile(fixtures.bytes("x.webm"), named: "renamed.bin", in: directory)
        let first = try MediaIntake.store(fixtures.url("x.webm"), limits: limits, timeZone: utc, into: root)
        let second = try MediaIntake.store(fixtures.url("x.webm"), limits: limits, timeZone: utc, into: root)
        let third = try MediaIntake.store(copy, limits: limits, timeZone: utc, into: root)
        #expect(first.item == second.item && second.item == third.item)
        #expect(filesUnder(root) == [first.item.relativePath])

        let other = try MediaIntake.store(fixtures.url("x.gif"), limits: limits, timeZone: utc, into: root)
        #expect(filesUnder(root) == [first.item.relativePath, other.item.relativePath].sorted())
    }

    @Test func streamsLargeFilesAcrossChunks() throws {
        let directory = try makeTempDirectory("store")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A PNG with a private chunk of 3.5 MiB and change, so hashing spans several reads.
        let png = fixtures.bytes("x.png")
        let payload = (0..<(3_670_016 + 7)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let size = UInt32(payload.count)
        let chunk = be32(size) + Array("prIv".utf8) + payload + [0, 0, 0, 0]
        let big = Array(png[0..<33]) + chunk + Array(png[33...])
        let file = try writeFile(big, named: "big.png", in: directory)
        let root = directory.appendingPathComponent("media")
        let item = try MediaIntake.store(file, limits: limits, timeZone: utc, into: root).item
        #expect(item.bytes == Int64(big.count))
        #expect(item.width == 64 && item.height == 48)
        #expect(item.sha256 == (try sha256sum(file)))
        #expect([UInt8](try Data(contentsOf: root.appendingPathComponent(item.relativePath))) == big)
    }

    @Test func failedStoreLeavesNothingBehind() throws {
        let directory = try makeTempDirectory("store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)

        let broken = try writeFile(Array(fixtures.bytes("x.png").dropLast(12)), named: "broken.png", in: directory)
        #expect(throws: MediaError.unreadable(kind: .photo, problem: .damaged)) {
            try MediaIntake.store(broken, limits: limits, timeZone: utc, into: root)
        }
        let corrupt = try writeFile(ftypBox(major: "isom", compatible: []) + [UInt8](repeating: 7, count: 512),
                                    named: "corrupt.mp4", in: directory)
        #expect(throws: MediaError.unreadable(kind: .video, problem: .damaged)) {
            try MediaIntake.store(corrupt, limits: limits, timeZone: utc, into: root)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).isEmpty)

        // Fail after the copy is written: a plain file sits where the shard folder must go.
        let file = fixtures.url("x.png")
        let sha = try sha256sum(file)
        let blocker = try writeFile([1], named: String(sha.prefix(2)), in: root)
        #expect(throws: MediaError.cannotStore(path: root.path)) {
            try MediaIntake.store(file, limits: limits, timeZone: utc, into: root)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == [blocker.lastPathComponent])

        // A store root that cannot be a folder.
        let notAFolder = try writeFile([1], named: "media-file", in: directory)
        #expect(throws: MediaError.cannotStore(path: notAFolder.path)) {
            try MediaIntake.store(file, limits: limits, timeZone: utc, into: notAFolder)
        }
    }

    @Test func removesStoredFiles() throws {
        let directory = try makeTempDirectory("store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.appendingPathComponent("a/b/media")
        let item = try MediaIntake.store(fixtures.url("x.gif"), limits: limits, timeZone: utc, into: root).item
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(item.relativePath).path))
        MediaIntake.remove(item, from: root)
        #expect(filesUnder(root).isEmpty)
        // Already gone: nothing happens.
        MediaIntake.remove(item, from: root)

        // A tampered item must not reach outside the store.
        let victim = try writeFile([1, 2, 3], named: "victim.txt", in: directory.appendingPathComponent("a"))
        var hostile = item
        hostile.sha256 = "../victim"
        hostile.fileExtension = "txt"
        #expect(root.appendingPathComponent(hostile.relativePath).standardizedFileURL.path == victim.path)
        MediaIntake.remove(hostile, from: root)
        #expect(FileManager.default.fileExists(atPath: victim.path))
    }
}
