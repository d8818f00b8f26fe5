import Foundation
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

@Suite struct ThumbnailTests {
    let fixtures = MediaFixtures.shared

    // MARK: Sizes

    @Test func largePhotoBecomes320x240JPEG() throws {
        let folder = try Folder()
        let photo = try folder.generate("big.jpg", ["-f", "lavfi", "-i", "testsrc=size=4000x3000:rate=1", "-frames:v", "1"])

        let thumbnail = try #require(try Thumbnail.make(kind: .photo, source: photo, into: folder.thumbs))
        #expect(thumbnail.width == 320 && thumbnail.height == 240)

        // The stored file, read by tools that know nothing of our code.
        let stored = folder.thumbs.appendingPathComponent(thumbnail.relativePath)
        #expect(thumbnail.relativePath == "\(thumbnail.sha256.prefix(2))/\(thumbnail.sha256).jpg")
        #expect(try probe(stored) == "mjpeg,320,240")
        #expect(try sha256sum(stored) == thumbnail.sha256)
        #expect(try Data(contentsOf: stored).count == Int(thumbnail.bytes))
        // Small enough for a list: a 320x240 test pattern at -q:v 5 is a few KB, far below the 12 MP source.
        #expect(thumbnail.bytes > 1_000 && thumbnail.bytes < 60_000)
        #expect(folder.storedFiles() == [thumbnail.relativePath])
        #expect(try permissions(stored) == 0o644)
        #expect(try permissions(stored.deletingLastPathComponent()) == 0o755)
    }

    @Test func smallPhotoIsNotEnlarged() throws {
        let folder = try Folder()
        let photo = try folder.generate("tiny.png", ["-f", "lavfi", "-i", "testsrc=size=100x80:rate=1", "-frames:v", "1"])
        let thumbnail = try #require(try Thumbnail.make(kind: .photo, source: photo, into: folder.thumbs))
        #expect(thumbnail.width == 100 && thumbnail.height == 80)
        #expect(try probe(folder.thumbs.appendingPathComponent(thumbnail.relativePath)) == "mjpeg,100,80")
    }

    @Test(arguments: ["x.jpg", "x.png", "x.gif", "x.webp"])
    func everyStillFormatGetsAThumbnail(name: String) throws {
        let folder = try Folder()
        let thumbnail = try #require(try Thumbnail.make(kind: .photo, source: fixtures.url(name), into: folder.thumbs))
        #expect(thumbnail.width == 64 && thumbnail.height == 48)
        #expect(try probe(folder.thumbs.appendingPathComponent(thumbnail.relativePath)) == "mjpeg,64,48")
    }

    // MARK: Orientation

    @Test func photoFollowsItsExifOrientation() throws {
        let folder = try Folder()
        // 400x200 stored, white only in the top-left quarter; orientation 6 means "turn 90° clockwise to show".
        let plain = try folder.generate("plain.jpg", ["-f", "lavfi", "-i", "color=white:size=200x100,pad=400:200:0:0:black",
                                                      "-frames:v", "1", "-q:v", "2"])
        let tiff = TIFFBuilder(littleEndian: true)
        let orientation = TIFFBuilder.Entry(tag: 0x0112, type: 3, count: 1, payload: tiff.u16(6))
        let jpeg = [UInt8](try Data(contentsOf: plain))
        let turned = try writeFile(Array(jpeg[0..<2]) + exifSegment(tiff.build(ifd0: [orientation])) + Array(jpeg[2...]),
                                   named: "turned.jpg", in: folder.root)

        let thumbnail = try #require(try Thumbnail.make(kind: .photo, source: turned, into: folder.thumbs))
        #expect(thumbnail.width == 160 && thumbnail.height == 320)
        // Turned clockwise, the white top-left quarter ends up top-right.
        let corners = try brightCorners(folder.thumbs.appendingPathComponent(thumbnail.relativePath))
        #expect(corners == "topRight")
    }

    @Test func videoFollowsItsRotation() throws {
        let folder = try Folder()
        // How a phone stores a portrait clip: a landscape stream plus a rotation (90° counter-clockwise to show).
        let landscape = try folder.generate("landscape.mp4", ["-f", "lavfi", "-i", "color=white:size=320x180:rate=10:duration=2,pad=640:360:0:0:black",
                                                              "-c:v", "mpeg4", "-q:v", "2"])
        let rotated = folder.root.appendingPathComponent("rotated.mp4")
        try #require(try runTool("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-i", landscape.path, "-c", "copy",
                                                     "-metadata:s:v:0", "rotate=90", rotated.path]).status == 0)

        let thumbnail = try #require(try Thumbnail.make(kind: .video, source: rotated, into: folder.thumbs))
        #expect(thumbnail.width == 180 && thumbnail.height == 320)
        #expect(try brightCorners(folder.thumbs.appendingPathComponent(thumbnail.relativePath)) == "bottomLeft")
    }

    @Test func nonSquarePixelsAreShownAtTheirDisplayShape() throws {
        let folder = try Folder()
        // 640x360 stored with pixels twice as wide as tall: shown as 1280x360.
        let wide = try folder.generate("anamorphic.mp4", ["-f", "lavfi", "-i", "color=gray:size=640x360:rate=10:duration=1,setsar=2",
                                                          "-c:v", "mpeg4"])
        let thumbnail = try #require(try Thumbnail.make(kind: .video, source: wide, into: folder.thumbs))
        #expect(thumbnail.width == 320 && thumbnail.height == 90)
    }

    // MARK: Videos

    @Test func portraitVideoIsTakenAtOneSecond() throws {
        let folder = try Folder()
        // Red for the first second, blue after: the colour tells which moment the thumbnail shows.
        let clip = try folder.generate("portrait.mp4", [
            "-f", "lavfi", "-i",
            "color=red:size=360x640:rate=10:duration=1[a];color=blue:size=360x640:rate=10:duration=1[b];[a][b]concat=n=2:v=1:a=0[out0]",
            "-c:v", "mpeg4", "-q:v", "2",
        ])
        let thumbnail = try #require(try Thumbnail.make(kind: .video, source: clip, into: folder.thumbs))
        #expect(thumbnail.width == 180 && thumbnail.height == 320)
        let stored = folder.thumbs.appendingPathComponent(thumbnail.relativePath)
        #expect(try probe(stored) == "mjpeg,180,320")
        let (red, _, blue) = try centrePixel(stored)
        #expect(blue > 200 && red < 60)
    }

    @Test func clipShorterThanOneSecondUsesItsFirstFrame() throws {
        let folder = try Folder()
        let clip = try folder.generate("short.mp4", ["-f", "lavfi", "-i", "color=red:size=64x48:rate=10:duration=0.5",
                                                     "-c:v", "mpeg4", "-q:v", "2"])
        let thumbnail = try #require(try Thumbnail.make(kind: .video, source: clip, into: folder.thumbs))
        #expect(thumbnail.width == 64 && thumbnail.height == 48)
        let (red, _, blue) = try centrePixel(folder.thumbs.appendingPathComponent(thumbnail.relativePath))
        #expect(red > 200 && blue < 60)

        // The shared fixtures are exactly 1 s long: the seek lands past the last frame there too.
        for name in ["x.mp4", "x.webm", "x.mov"] {
            let fixture = try #require(try Thumbnail.make(kind: .video, source: fixtures.url(name), into: folder.thumbs))
            #expect(fixture.width == 64 && fixture.height == 48, "\(name)")
        }
    }

    // MARK: Storing

    @Test func sameSourceTwiceIsStoredOnce() throws {
        let folder = try Folder()
        let photo = fixtures.url("x.png")
        let first = try #require(try Thumbnail.make(kind: .photo, source: photo, into: folder.thumbs))
        let stored = folder.thumbs.appendingPathComponent(first.relativePath)
        let firstInode = try inode(stored)

        let second = try #require(try Thumbnail.make(kind: .photo, source: photo, into: folder.thumbs))
        #expect(second == first)
        #expect(folder.storedFiles() == [first.relativePath])
        // Found, not rewritten.
        #expect(try inode(stored) == firstInode)

        // A copy of the same picture under another name leads to the same thumbnail.
        let copy = try writeFile(fixtures.bytes("x.png"), named: "copy.png", in: folder.root)
        #expect(try Thumbnail.make(kind: .photo, source: copy, into: folder.thumbs) == first)
        #expect(folder.storedFiles() == [first.relativePath])

        // A different picture is a second file.
        let other = try #require(try Thumbnail.make(kind: .photo, source: fixtures.url("x.gif"), into: folder.thumbs))
        #expect(other.sha256 != first.sha256)
        #expect(folder.storedFiles() == [first.relativePath, other.relativePath].sorted())
    }

    // MARK: Failures

    @Test func corruptFilesFailAndLeaveNothingBehind() throws {
        let folder = try Folder()
        var noise = NoiseGenerator(state: 0x5EED)
        let garbage = (0..<5000).map { _ in UInt8(truncatingIfNeeded: noise.next()) }
        // A JPEG cut off inside its headers, noise named like a photo, and an mp4 box with no movie in it.
        let headersOnly = Array(fixtures.bytes("x.jpg").prefix(300))
        let brokenMP4 = Array(fixtures.bytes("x.mp4").prefix(32)) + garbage
        let cases: [(String, [UInt8], MediaKind)] = [
            ("cut.jpg", headersOnly, .photo), ("noise.jpg", garbage, .photo), ("broken.mp4", brokenMP4, .video),
        ]
        try FileManager.default.createDirectory(at: folder.thumbs, withIntermediateDirectories: true)
        for (name, bytes, kind) in cases {
            let file = try writeFile(bytes, named: name, in: folder.root)
            #expect(throws: MediaError.unreadable(kind: kind, problem: .damaged), "\(name)") {
                try Thumbnail.make(kind: kind, source: file, into: folder.thumbs)
            }
        }
        #expect(folder.everythingInThumbs() == [])
    }

    @Test func audioHasNoThumbnail() throws {
        let folder = try Folder()
        #expect(try Thumbnail.make(kind: .audio, source: fixtures.url("audio.m4a"), into: folder.thumbs) == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.thumbs.path))
    }

    @Test func missingInputsAreNamed() throws {
        let folder = try Folder()
        let absent = folder.root.appendingPathComponent("gone.jpg")
        #expect(throws: MediaError.missing(path: absent.path)) {
            try Thumbnail.make(kind: .photo, source: absent, into: folder.thumbs)
        }
        let empty = try writeFile([], named: "empty.jpg", in: folder.root)
        #expect(throws: MediaError.unreadable(kind: .photo, problem: .empty)) {
            try Thumbnail.make(kind: .photo, source: empty, into: folder.thumbs)
        }
    }

    @Test func missingFFmpegIsReportedAsSuch() throws {
        let folder = try Folder()
        let photo = fixtures.url("x.jpg")
        #expect(throws: MediaError.toolMissing("ffmpeg")) {
            try Thumbnail.make(kind: .photo, source: photo, into: folder.thumbs, ffmpeg: nil)
        }
        // Found on the PATH once, gone (or not executable) by the time it is run.
        #expect(throws: MediaError.toolMissing("ffmpeg")) {
            try Thumbnail.make(kind: .video, source: fixtures.url("x.mp4"), into: folder.thumbs,
                               ffmpeg: folder.root.appendingPathComponent("no-such-ffmpeg").path)
        }
        #expect(folder.everythingInThumbs() == [])
    }

    @Test func hangingFFmpegIsStoppedOnceAtTheTimeLimit() throws {
        let folder = try Folder()
        // Counts its runs, then hangs: a video whose 1 s seek timed out must not be tried a second time.
        let runs = folder.root.appendingPathComponent("runs")
        let script = try writeFile(Array("#!/bin/sh\necho run >> '\(runs.path)'\nexec sleep 30\n".utf8),
                                   named: "slow-ffmpeg", in: folder.root)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)

        let started = Date()
        #expect(throws: MediaError.unreadable(kind: .video, problem: .damaged)) {
            try Thumbnail.make(kind: .video, source: fixtures.url("x.mp4"), into: folder.thumbs, ffmpeg: script.path, timeout: 1)
        }
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(try String(contentsOf: runs, encoding: .utf8) == "run\n")
        #expect(folder.everythingInThumbs() == [])
    }

    @Test func ffmpegArgumentsSeekBeforeOpeningAndNeverEnlarge() {
        let source = URL(fileURLWithPath: "/tmp/clip.mp4")
        let video = Thumbnail.arguments(source: source, at: 1)
        #expect(Array(video.prefix(6)) == ["-v", "error", "-nostdin", "-ss", "1", "-i"])
        #expect(video.contains("file:/tmp/clip.mp4"))
        #expect(video.contains { $0.hasSuffix("scale='min(320,iw)':'min(320,ih)':force_original_aspect_ratio=decrease") })
        #expect(!Thumbnail.arguments(source: source, at: nil).contains("-ss"))
        // Orientation comes from ffmpeg's default autorotate; turning it off would undo the orientation tests.
        #expect(!video.contains("-noautorotate"))
    }
}

// MARK: Helpers

/// A fresh temp folder for one test, with `thumbs/` (not yet created) inside it.
private final class Folder {
    let root: URL
    var thumbs: URL { root.appendingPathComponent("thumbs") }

    init() throws { root = try makeTempDirectory("thumbs") }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// Makes `name` with ffmpeg from lavfi arguments.
    func generate(_ name: String, _ arguments: [String]) throws -> URL {
        let output = root.appendingPathComponent(name)
        let result = try runTool("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments + [output.path])
        guard result.status == 0 else { throw FixtureFailure(name: name) }
        return output
    }

    /// The stored thumbnails, as `ab/<sha>.jpg` paths.
    func storedFiles() -> [String] { filesUnder(thumbs) }

    /// Everything under `thumbs/`, hidden temp files and empty shard folders included.
    func everythingInThumbs() -> [String] { (FileManager.default.subpaths(atPath: thumbs.path) ?? []).sorted() }
}

/// `codec,width,height` as ffprobe reads the file.
private func probe(_ file: URL) throws -> String {
    let result = try runTool("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0",
                                                  "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", file.path])
    return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The picture decoded by ffmpeg to 8-bit grey or RGB, with its size from ffprobe.
private func decode(_ file: URL, format: String) throws -> (width: Int, height: Int, pixels: [UInt8]) {
    let size = try probe(file).split(separator: ",").compactMap { Int($0) }
    let result = try runTool("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", file.path, "-frames:v", "1",
                                                 "-f", "rawvideo", "-pix_fmt", format, "pipe:1"])
    return (size[0], size[1], [UInt8](result.output))
}

/// The colour in the middle of the picture.
private func centrePixel(_ file: URL) throws -> (red: Int, green: Int, blue: Int) {
    let picture = try decode(file, format: "rgb24")
    let offset = ((picture.height / 2) * picture.width + picture.width / 2) * 3
    return (Int(picture.pixels[offset]), Int(picture.pixels[offset + 1]), Int(picture.pixels[offset + 2]))
}

/// Which corner of a picture that is white in one quarter and black elsewhere is the white one.
private func brightCorners(_ file: URL) throws -> String {
    let picture = try decode(file, format: "gray")
    func bright(_ x: Int, _ y: Int) -> Bool { picture.pixels[y * picture.width + x] > 128 }
    let (right, bottom) = (picture.width - 6, picture.height - 6)
    let corners = [("topLeft", bright(5, 5)), ("topRight", bright(right, 5)),
                   ("bottomLeft", bright(5, bottom)), ("bottomRight", bright(right, bottom))]
    return corners.filter { $0.1 }.map { $0.0 }.joined(separator: "+")
}

private func permissions(_ file: URL) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) ?? -1
}

private func inode(_ file: URL) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int) ?? -1
}
