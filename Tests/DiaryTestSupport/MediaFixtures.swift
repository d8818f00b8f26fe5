import Foundation
import DiaryKit

/// Runs a program and returns its exit status and standard output.
@discardableResult
func runTool(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, output)
}

/// A fresh, empty directory for one test.
func makeTempDirectory(_ label: String = "media") throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("diarykit-\(label)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The SHA-256 of a file as `sha256sum` reports it: an oracle independent of the code under test.
func sha256sum(_ file: URL) throws -> String {
    let result = try runTool("/usr/bin/sha256sum", [file.path])
    return String(decoding: result.output.prefix(64), as: UTF8.self)
}

/// Every regular file under `root`, as paths relative to it.
func filesUnder(_ root: URL) -> [String] {
    guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
    var found: [String] = []
    while let name = walker.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path, isDirectory: &isDirectory),
           !isDirectory.boolValue {
            found.append(name)
        }
    }
    return found.sorted()
}

/// Files generated once per test run with ffmpeg; tests only read them.
struct MediaFixtures: Sendable {
    let directory: URL

    static let shared: MediaFixtures = {
        do {
            return try MediaFixtures()
        } catch {
            fatalError("could not generate media fixtures with ffmpeg: \(error)")
        }
    }()

    /// The capture time written into the generated videos.
    static let videoCreation = "2024-05-01T10:20:30.000000Z"

    /// Named after the process, so the exit handler can find it without captured state.
    private static func directoryForThisProcess() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("diarykit-fixtures-\(getpid())", isDirectory: true)
    }

    private init() throws {
        directory = MediaFixtures.directoryForThisProcess()
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: MediaFixtures.directoryForThisProcess()) }
        let source = ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=5"]
        let one = source + ["-frames:v", "1"]
        let second = source + ["-t", "1"]
        let stamp = ["-metadata", "creation_time=\(MediaFixtures.videoCreation)"]
        let jobs: [(String, [String])] = [
            ("x.jpg", one),
            ("x.png", one),
            ("x.gif", one),
            ("x.webp", one),
            ("lossless.webp", one + ["-lossless", "1"]),
            ("anim.webp", source + ["-frames:v", "3", "-c:v", "libwebp_anim", "-loop", "0"]),
            ("x.mp4", second + ["-c:v", "mpeg4"] + stamp),
            ("x.mov", second + ["-c:v", "mpeg4"] + stamp),
            ("x.m4v", second + ["-c:v", "mpeg4", "-f", "mp4", "-brand", "M4V "]),
            ("x.webm", second + ["-c:v", "libvpx", "-b:v", "100k"] + stamp),
            ("x.mkv", second + ["-c:v", "mpeg4"]),
            ("audio.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", "-f", "mp4"]),
        ]
        let directory = directory
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            let (name, arguments) = jobs[index]
            let output = directory.appendingPathComponent(name).path
            _ = try? runTool("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments + [output])
        }
        for (name, _) in jobs {
            let size = (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path))?[.size]
            guard let size = size as? Int, size > 0 else { throw FixtureFailure(name: name) }
        }
    }

    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    func bytes(_ name: String) -> [UInt8] { [UInt8]((try? Data(contentsOf: url(name))) ?? Data()) }
}

struct FixtureFailure: Error {
    var name: String
}

/// Writes bytes to a new file in `directory`.
@discardableResult
func writeFile(_ bytes: [UInt8], named name: String, in directory: URL) throws -> URL {
    let url = directory.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url
}

// MARK: Hand-built EXIF

/// Builds a TIFF block (IFD0 → Exif IFD, GPS IFD) in either byte order.
struct TIFFBuilder {
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var payload: [UInt8]
    }

    var littleEndian: Bool

    func u16(_ value: UInt16) -> [UInt8] {
        let bytes = [UInt8(value >> 8), UInt8(value & 0xFF)]
        return littleEndian ? bytes.reversed() : bytes
    }

    func u32(_ value: UInt32) -> [UInt8] {
        let bytes = [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        return littleEndian ? bytes.reversed() : bytes
    }

    func ascii(_ tag: UInt16, _ text: String) -> Entry {
        let bytes = Array(text.utf8) + [0]
        return Entry(tag: tag, type: 2, count: UInt32(bytes.count), payload: bytes)
    }

    func rationals(_ tag: UInt16, _ values: [(UInt32, UInt32)]) -> Entry {
        Entry(tag: tag, type: 5, count: UInt32(values.count), payload: values.flatMap { u32($0.0) + u32($0.1) })
    }

    func build(ifd0: [Entry] = [], exif: [Entry] = [], gps: [Entry] = []) -> [UInt8] {
        func size(_ count: Int) -> Int { 2 + 12 * count + 4 }
        let count0 = ifd0.count + (exif.isEmpty ? 0 : 1) + (gps.isEmpty ? 0 : 1)
        let exifOffset = 8 + size(count0)
        let gpsOffset = exifOffset + (exif.isEmpty ? 0 : size(exif.count))
        let dataStart = gpsOffset + (gps.isEmpty ? 0 : size(gps.count))

        var first = ifd0
        if !exif.isEmpty { first.append(Entry(tag: 0x8769, type: 4, count: 1, payload: u32(UInt32(exifOffset)))) }
        if !gps.isEmpty { first.append(Entry(tag: 0x8825, type: 4, count: 1, payload: u32(UInt32(gpsOffset)))) }

        var data: [UInt8] = []
        func directory(_ entries: [Entry]) -> [UInt8] {
            var out = u16(UInt16(entries.count))
            for entry in entries.sorted(by: { $0.tag < $1.tag }) {
                out += u16(entry.tag) + u16(entry.type) + u32(entry.count)
                if entry.payload.count <= 4 {
                    out += entry.payload + [UInt8](repeating: 0, count: 4 - entry.payload.count)
                } else {
                    out += u32(UInt32(dataStart + data.count))
                    data += entry.payload
                    if data.count % 2 == 1 { data.append(0) }
                }
            }
            return out + u32(0)
        }
        var out: [UInt8] = (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8)
        out += directory(first)
        if !exif.isEmpty { out += directory(exif) }
        if !gps.isEmpty { out += directory(gps) }
        return out + data
    }

    /// A typical camera block: capture time with offset, and a position.
    func camera(date: String? = "2024:05:01 14:30:00", offset: String? = "+08:00",
                latitude: [(UInt32, UInt32)] = [(25, 1), (2, 1), (30, 1)], latitudeRef: String = "N",
                longitude: [(UInt32, UInt32)] = [(121, 1), (33, 1), (5400, 100)], longitudeRef: String = "E") -> [UInt8] {
        var exif: [Entry] = []
        if let date { exif.append(ascii(0x9003, date)) }
        if let offset { exif.append(ascii(0x9011, offset)) }
        let gps = [ascii(0x0001, latitudeRef), rationals(0x0002, latitude),
                   ascii(0x0003, longitudeRef), rationals(0x0004, longitude)]
        return build(ifd0: [ascii(0x010F, "InnerBloom Test Camera")], exif: exif, gps: gps)
    }
}

/// An APP1 segment carrying `tiff` as EXIF.
func exifSegment(_ tiff: [UInt8]) -> [UInt8] {
    let payload = Array("Exif".utf8) + [0, 0] + tiff
    let length = payload.count + 2
    return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
}

/// A real (ffmpeg-made) JPEG with `segment` inserted right after its start-of-image marker.
func jpegWithSegment(_ segment: [UInt8]) -> [UInt8] {
    let jpeg = MediaFixtures.shared.bytes("x.jpg")
    return Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
}

/// A minimal JPEG stream that our header reader accepts: SOI, optional segments, SOF0, SOS, data, EOI.
func syntheticJPEG(width: Int, height: Int, segments: [UInt8] = [], frame: Bool = true) -> [UInt8] {
    var out: [UInt8] = [0xFF, 0xD8] + segments
    if frame {
        out += [0xFF, 0xC0, 0x00, 0x0B, 0x08, UInt8(height >> 8), UInt8(height & 0xFF),
                UInt8(width >> 8), UInt8(width & 0xFF), 0x01, 0x01, 0x11, 0x00]
    }
    out += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
    out += [UInt8](repeating: 0x55, count: 100)
    return out + [0xFF, 0xD9]
}

// MARK: Hand-built HEIF

func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    let size = UInt32(8 + payload.count)
    return [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)]
        + Array(type.utf8) + payload
}

func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
    box(type, [version, UInt8((flags >> 16) & 0xFF), UInt8((flags >> 8) & 0xFF), UInt8(flags & 0xFF)] + payload)
}

func be32(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
}

func ftypBox(major: String, compatible: [String]) -> [UInt8] {
    box("ftyp", Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) })
}

/// A HEIF file whose primary item (1) has the `primary` size and a thumbnail (item 2) has `thumbnail`.
func syntheticHEIC(major: String = "heic", compatible: [String] = ["mif1", "heic"],
                   primary: (UInt32, UInt32)? = (4032, 3024), thumbnail: (UInt32, UInt32)? = (320, 240),
                   associate: Bool = true) -> [UInt8] {
    var properties: [[UInt8]] = []
    var primaryIndex: UInt8 = 0, thumbnailIndex: UInt8 = 0
    // The thumbnail's size comes first, so picking "the first ispe" would be wrong.
    if let thumbnail {
        properties.append(fullBox("ispe", be32(thumbnail.0) + be32(thumbnail.1)))
        thumbnailIndex = UInt8(properties.count)
    }
    if let primary {
        properties.append(fullBox("ispe", be32(primary.0) + be32(primary.1)))
        primaryIndex = UInt8(properties.count)
    }
    properties.append(box("colr", Array("nclx".utf8) + [0, 1, 0, 1, 0, 1, 0x80]))
    var ipma: [UInt8] = be32(2)
    ipma += [0, 2, 1, thumbnailIndex == 0 ? 0 : 0x80 | thumbnailIndex]
    ipma += [0, 1, 1, primaryIndex == 0 ? 0 : 0x80 | primaryIndex]
    var iprp = box("ipco", properties.flatMap { $0 })
    if associate { iprp += fullBox("ipma", ipma) }
    let meta = fullBox("meta",
                       fullBox("hdlr", [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
                       + fullBox("pitm", [0, 1])
                       + box("iprp", iprp))
    return ftypBox(major: major, compatible: compatible) + meta + box("mdat", [UInt8](repeating: 0xAB, count: 256))
}

// MARK: Deterministic noise for fuzzing

/// xorshift64*: reproducible garbage without global state.
struct NoiseGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
