@testable import DiaryArchive
@testable import DiaryKit
import Foundation
import Glibc
#if canImport(Glibc)
import Testing
@testable import DiaryTestSupport
#endif

/// Archives written by ArchiveWriter, read back by ArchiveReader and by the system's own tools
/// (GNU tar, bsdtar, Python's zipfile), which act as oracles independent of libarchive's reader.
@Suite struct ArchiveIOTests {
    static let page = "pages/2026-11-21-海邊.md"
    /// Over 100 bytes, so ustar alone cannot hold it.
    static let longName = "pages/" + String(repeating: "一段很長很長的名字", count: 6) + ".md"
    static let media = "media/random.bin"
    static let empty = "empty.txt"
    static let modified = Date(timeIntervalSince1970: 1_795_000_000.75)
    static let random = pseudoRandomBytes(3 << 20, seed: 21)

    /// What the sample archive holds, in order.
    struct Sample {
        let contents: [(path: String, bytes: [UInt8])]
        var paths: [String] { contents.map(\.path) }
    }

    /// Writes the sample members through all three ways of adding one; the 3 MiB member comes from a file.
    static func writeSample(_ writer: ArchiveWriter, scratch: URL) throws -> Sample {
        let page = Array("# 海邊\n\n風好大，但很舒服。\n".utf8)
        let journal = Array(String(repeating: "{\"id\":\"0190\",\"note\":\"今天去海邊\",\"tags\":[\"旅行\"]}\n", count: 20_000).utf8)
        let random = Self.random
        let file = scratch.appendingPathComponent("random-\(UUID().uuidString).bin")
        try Data(random).write(to: file)

        try writer.add(path: Self.page, bytes: page, modified: modified)
        // Odd-sized pieces, so the blocks libarchive sees do not line up with anything.
        var offset = 0
        try writer.add(path: longName, size: Int64(journal.count), modified: modified) { buffer in
            let count = min(4093, buffer.count, journal.count - offset)
            journal.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
            offset += count
            return count
        }
        let added = try writer.add(path: media, file: file, modified: modified)
        #expect(added.bytes == Int64(random.count))
        #expect(added.sha256 == (try ArchiveTool.sha256sum(file)), "the streamed hash matches sha256sum")
        try writer.add(path: empty, bytes: [], modified: modified)
        return Sample(contents: [(Self.page, page), (longName, journal), (media, random), (empty, [])])
    }

    /// Every member with its data, read through a small reused buffer.
    static func readAll(_ reader: ArchiveReader) throws -> [(member: ArchiveReader.Member, bytes: [UInt8])] {
        var found: [(ArchiveReader.Member, [UInt8])] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { buffer.deallocate() }
        while let member = try reader.next() {
            var bytes: [UInt8] = []
            while true {
                let got = try reader.read(into: buffer)
                if got == 0 { break }
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            }
            found.append((member, bytes))
        }
        return found
    }

    static func expectSample(_ read: [(member: ArchiveReader.Member, bytes: [UInt8])], _ sample: Sample,
                             sizesKnown: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(read.map(\.member.path) == sample.paths, sourceLocation: sourceLocation)
        for ((member, bytes), expected) in zip(read, sample.contents) {
            #expect(member.type == .regular && member.linkTarget == nil, "\(member)", sourceLocation: sourceLocation)
            #expect(bytes == expected.bytes, "\(expected.path): \(bytes.count) bytes read", sourceLocation: sourceLocation)
            if sizesKnown || member.size != nil {
                #expect(member.size == Int64(expected.bytes.count), "\(member)", sourceLocation: sourceLocation)
            }
        }
    }

    /// A tar is read to its end; a zip's reader stops at the central directory after the last member.
    static func expectConsumed(_ reader: ArchiveReader, of total: Int, _ format: ArchiveFormat,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        let consumed = reader.compressedBytesRead
        if format == .zip {
            #expect(consumed <= total && consumed > total - 1024, "\(consumed) of \(total)", sourceLocation: sourceLocation)
        } else {
            #expect(consumed == Int64(total), sourceLocation: sourceLocation)
        }
    }

    /// The files extracted under `root`, relative paths to contents.
    static func extracted(_ root: URL) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let walker = FileManager.default.enumerator(atPath: root.path)
        while let name = walker?.nextObject() as? String {
            let url = root.appendingPathComponent(name)
            if (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
                files[name] = Array(try Data(contentsOf: url))
            }
        }
        return files
    }

    static let gnuTarFlags: [ArchiveFormat: [String]] = [.tar: [], .tarGz: ["-z"], .tarZst: ["--zstd"], .tarXz: ["-J"]]
    static let magic: [ArchiveFormat: (offset: Int, bytes: [UInt8])] = [
        .tar: (257, Array("ustar\0".utf8)), .tarGz: (0, [0x1f, 0x8b, 0x08]), .tarZst: (0, [0x28, 0xb5, 0x2f, 0xfd]),
        .tarXz: (0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]), .zip: (0, [0x50, 0x4b, 0x03, 0x04]),
    ]

    @Test(arguments: ArchiveFormat.allCases)
    func aWrittenFileReadsBackAndTheSystemToolsAgree(format: ArchiveFormat) throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let archive = scratch.appendingPathComponent("export.\(format.fileExtension)")
        let writer = try ArchiveWriter(format: format, path: archive.path)
        let sample = try Self.writeSample(writer, scratch: scratch)
        try writer.finish()

        let stored = Array(try Data(contentsOf: archive))
        #expect(writer.bytesWritten == Int64(stored.count))
        let magic = try #require(Self.magic[format])
        #expect(Array(stored[magic.offset..<(magic.offset + magic.bytes.count)]) == magic.bytes, "really \(format)")
        let raw = sample.contents.reduce(0) { $0 + $1.bytes.count }
        if format != .tar {
            // The 1 MiB journal repeats itself: real compression shrinks it to almost nothing.
            #expect(stored.count < raw - (1 << 20) + 100_000, "compressed: \(stored.count) of \(raw)")
        }

        let reader = try ArchiveReader(path: archive.path)
        Self.expectSample(try Self.readAll(reader), sample)
        #expect(reader.uncompressedBytesRead == Int64(raw))
        Self.expectConsumed(reader, of: stored.count, format)

        // The compressed stream is whole and unpadded: the tools' own tests complain about trailing zeros.
        switch format {
        case .tar:
            // Two zero blocks end it, right after the last (empty) member's header: no padding to 10 KiB.
            #expect(stored.count % 512 == 0 && stored.suffix(1024).allSatisfy { $0 == 0 })
            #expect(stored.dropLast(1024).suffix(512).contains { $0 != 0 }, "no padding after the end")
        case .tarGz: #expect(try ArchiveTool.run("/usr/bin/gzip", ["-t", archive.path]).status == 0)
        case .tarZst: #expect(try ArchiveTool.run("/usr/bin/zstd", ["-t", "-q", archive.path]).status == 0)
        case .tarXz: #expect(try ArchiveTool.run("/usr/bin/xz", ["-t", archive.path]).status == 0)
        case .zip:
            // Python decodes names without the zip UTF-8 flag as cp437, so this also checks the flag is set.
            let script = """
                import json, sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                print(json.dumps({"bad": z.testzip(), "names": z.namelist(),
                                  "methods": [i.compress_type for i in z.infolist() if i.file_size]}))
                """
            let result = try ArchiveTool.run("/usr/bin/python3", ["-c", script, archive.path])
            let report = try #require(JSONSerialization.jsonObject(with: result.output) as? [String: Any], "\(result.errors)")
            #expect(report["bad"] is NSNull, "every CRC checks out")
            #expect(report["names"] as? [String] == sample.paths)
            #expect(report["methods"] as? [Int] == [8, 8, 8], "deflate")
        }

        var tools: [(name: String, list: [String], extract: [String])] = [
            ("bsdtar", ["/usr/bin/bsdtar", "-tf", archive.path], ["/usr/bin/bsdtar", "-xf", archive.path]),
        ]
        if let flags = Self.gnuTarFlags[format] {
            tools.append(("GNU tar", ["/usr/bin/tar"] + flags + ["-tf", archive.path], ["/usr/bin/tar"] + flags + ["-xf", archive.path]))
        }
        for tool in tools {
            let listing = try ArchiveTool.run(tool.list[0], Array(tool.list.dropFirst()))
            #expect(listing.status == 0, "\(tool.name): \(listing.errors)")
            #expect(listing.text.split(separator: "\n").map(String.init) == sample.paths, "\(tool.name) lists the names")
            let out = scratch.appendingPathComponent("out-\(tool.name)")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let extraction = try ArchiveTool.run(tool.extract[0], Array(tool.extract.dropFirst()), in: out)
            #expect(extraction.status == 0 && extraction.errors.isEmpty, "\(tool.name): \(extraction.errors)")
            let files = try Self.extracted(out)
            #expect(files.keys.sorted() == sample.paths.sorted(), "\(tool.name) extracts every name")
            for (path, bytes) in sample.contents {
                #expect(files[path] == bytes, "\(tool.name) extracts \(path) byte for byte")
            }
            let stamp = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(Self.page).path)[.modificationDate] as? Date
            #expect(stamp == Date(timeIntervalSince1970: 1_795_000_000), "\(tool.name): the time, in whole seconds")
        }
    }

    @Test(arguments: ArchiveFormat.allCases)
    func aPipeInAndAPipeOut(format: ArchiveFormat) throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = Pipe()
        let collected = ArchiveTool.drain(out.fileHandleForReading)
        let descriptor = out.fileHandleForWriting.fileDescriptor
        let writer = try ArchiveWriter(format: format, fileDescriptor: descriptor)
        let sample = try Self.writeSample(writer, scratch: scratch)
        try writer.finish()
        #expect(fcntl(descriptor, F_GETFD) != -1, "the caller's descriptor is left open")
        try out.fileHandleForWriting.close()
        let bytes = collected()
        #expect(writer.bytesWritten == Int64(bytes.count))

        // Read back from a pipe too, as from stdin: nothing can seek, so a zip is read as a stream.
        let input = Pipe()
        let writing = input.fileHandleForWriting
        let fed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            writing.write(bytes)
            try? writing.close()
            fed.signal()
        }
        let reader = try ArchiveReader(fileDescriptor: input.fileHandleForReading.fileDescriptor)
        Self.expectSample(try Self.readAll(reader), sample, sizesKnown: format != .zip)
        fed.wait()
        Self.expectConsumed(reader, of: bytes.count, format)
    }

    @Test(arguments: [ArchiveFormat.tar, .tarGz, .tarZst, .tarXz])
    func gnuTarReadsStraightFromThePipe(format: ArchiveFormat) throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let pipe = Pipe()
        let listing = Pipe()
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/tar")
        tar.arguments = Self.gnuTarFlags[format]! + ["-tvf", "-"]
        tar.environment = ArchiveTool.environment
        tar.standardInput = pipe
        tar.standardOutput = listing
        tar.standardError = FileHandle.nullDevice
        try tar.run()
        let listed = ArchiveTool.drain(listing.fileHandleForReading)
        let writer = try ArchiveWriter(format: format, fileDescriptor: pipe.fileHandleForWriting.fileDescriptor)
        let sample = try Self.writeSample(writer, scratch: scratch)
        try writer.finish()
        try pipe.fileHandleForWriting.close()
        tar.waitUntilExit()
        #expect(tar.terminationStatus == 0)
        let lines = String(decoding: listed(), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == sample.paths.count)
        for (line, (path, bytes)) in zip(lines, sample.contents) {
            #expect(line.hasPrefix("-rw-r--r-- 0/0") && line.hasSuffix(" " + path), "\(line)")
            #expect(line.contains(" \(bytes.count) "), "\(line) shows the size \(bytes.count)")
        }
    }

    /// The export streams its manifest in pieces; read back whole, they are the manifest.
    @Test func aManifestWrittenInPiecesIsTheWholeManifest() throws {
        let items = (0..<3).map { ArchiveManifest.Item(path: "pages/2026-11-2\($0)-0000000\($0).md", bytes: Int64(100 + $0),
                                                        sha256: String(repeating: "\($0)", count: 64)) }
        let manifest = ArchiveManifest(scope: "export", createdAt: Date(timeIntervalSince1970: 1_800_000_000),
                                       counts: [("entries", 3), ("pages", 3)], members: items)
        let pieces = manifest.membersOpening + items.map(\.json.serialized).joined(separator: ",") + ArchiveManifest.membersClosing
        #expect(pieces == manifest.json.serialized)
        let read = try ArchiveManifest(json: try #require(JSON.parse(Data(pieces.utf8))))
        #expect(read == manifest)
    }

    @Test func theReaderTellsEveryKindOfMemberApart() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let archive = scratch.appendingPathComponent("kinds.tar.gz")
        // Python's tarfile writes these headers without needing root or touching the file system.
        let script = """
            import io, sys, tarfile
            with tarfile.open(sys.argv[1], "w:gz", format=tarfile.PAX_FORMAT) as t:
                def add(name, kind, data=b"", link=""):
                    info = tarfile.TarInfo(name)
                    info.type, info.linkname, info.size = kind, link, len(data)
                    t.addfile(info, io.BytesIO(data))
                add("photos", tarfile.DIRTYPE)
                add("photos/海.txt", tarfile.REGTYPE, "海邊".encode())
                add("photos/escape", tarfile.SYMTYPE, link="../../../etc/passwd")
                add("photos/again", tarfile.LNKTYPE, link="photos/海.txt")
                add("dev/tty", tarfile.CHRTYPE)
                add("dev/sda", tarfile.BLKTYPE)
                add("queue", tarfile.FIFOTYPE)
            """
        let made = try ArchiveTool.run("/usr/bin/python3", ["-c", script, archive.path])
        try #require(made.status == 0, "\(made.errors)")
        let reader = try ArchiveReader(path: archive.path)
        var members: [ArchiveReader.Member] = []
        while let member = try reader.next() {
            members.append(member)
            try reader.skip()
        }
        #expect(members == [
            .init(path: "photos/", type: .directory, size: 0, linkTarget: nil),
            .init(path: "photos/海.txt", type: .regular, size: 6, linkTarget: nil),
            .init(path: "photos/escape", type: .symbolicLink, size: 0, linkTarget: "../../../etc/passwd"),
            .init(path: "photos/again", type: .hardLink, size: 0, linkTarget: "photos/海.txt"),
            .init(path: "dev/tty", type: .characterDevice, size: 0, linkTarget: nil),
            .init(path: "dev/sda", type: .blockDevice, size: 0, linkTarget: nil),
            .init(path: "queue", type: .fifo, size: 0, linkTarget: nil),
        ])
        #expect(reader.uncompressedBytesRead == 0, "skipped data is not counted as read")
    }

    @Test func theByteCountsShowTheCompressionRatio() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let archive = scratch.appendingPathComponent("bomb.tar.gz")
        let writer = try ArchiveWriter(format: .tarGz, path: archive.path)
        try writer.add(path: "zeros", bytes: [UInt8](repeating: 0, count: 8 << 20), modified: Self.modified)
        try writer.add(path: "note.txt", bytes: Array("hi".utf8), modified: Self.modified)
        try writer.finish()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: archive.path)[.size] as? Int)

        let reader = try ArchiveReader(path: archive.path)
        let members = try Self.readAll(reader)
        #expect(members.map(\.bytes.count) == [8 << 20, 2])
        #expect(reader.uncompressedBytesRead == (8 << 20) + 2)
        #expect(reader.compressedBytesRead == Int64(size))
        #expect(reader.uncompressedBytesRead / reader.compressedBytesRead > 500, "\(size) bytes unpack to 8 MiB")
    }

    @Test(arguments: ArchiveFormat.allCases)
    func anArchiveCutShortIsCorrupt(format: ArchiveFormat) throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let archive = scratch.appendingPathComponent("whole.\(format.fileExtension)")
        let writer = try ArchiveWriter(format: format, path: archive.path)
        _ = try Self.writeSample(writer, scratch: scratch)
        try writer.finish()
        let whole = try Data(contentsOf: archive)
        let cut = scratch.appendingPathComponent("cut.\(format.fileExtension)")
        try whole.prefix(whole.count / 2).write(to: cut)

        let error = #expect(throws: ArchiveError.self) { _ = try Self.readAll(ArchiveReader(path: cut.path)) }
        guard case .corrupt(let why)? = error else {
            Issue.record("\(String(describing: error)) is not .corrupt")
            return
        }
        #expect(!why.isEmpty)
    }

    @Test func whatIsNotAnArchiveIsAnError() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputs: [(String, [UInt8])] = [
            ("garbage.tar.gz", pseudoRandomBytes(65_536, seed: 7)),
            ("diary.txt", Array("Dear diary,\n今天去海邊。This is not an archive.\n".utf8)),
            ("empty.tar", []),
            ("fake.tar.gz", [0x1f, 0x8b, 0x08, 0x00] + pseudoRandomBytes(4_000, seed: 8)),
        ]
        for (name, bytes) in inputs {
            let file = scratch.appendingPathComponent(name)
            try Data(bytes).write(to: file)
            let error = #expect(throws: ArchiveError.self, "\(name)") { _ = try Self.readAll(ArchiveReader(path: file.path)) }
            guard case .corrupt? = error else {
                Issue.record("\(name): \(String(describing: error)) is not .corrupt")
                continue
            }
        }
        #expect(throws: ArchiveError.cannotOpen(path: scratch.appendingPathComponent("none.tar").path)) {
            try ArchiveReader(path: scratch.appendingPathComponent("none.tar").path)
        }
    }

    @Test func aFullDiskAndAClosedPipeAreWriteErrors() throws {
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0)
        defer { close(full) }
        let writer = try ArchiveWriter(format: .tarGz, fileDescriptor: full)
        let random = pseudoRandomBytes(1 << 20, seed: 3)
        #expect(throws: ArchiveError.writeFailed("No space left on device")) {
            try writer.add(path: "a.bin", bytes: random, modified: Self.modified)
            try writer.add(path: "b.bin", bytes: random, modified: Self.modified)
            try writer.finish()
        }

        // The tools ignore SIGPIPE (CommandContext), so a reader that went away shows up as EPIPE.
        signal(SIGPIPE, SIG_IGN)
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let piped = try ArchiveWriter(format: .tar, fileDescriptor: pipe.fileHandleForWriting.fileDescriptor)
        #expect(throws: ArchiveError.writeFailed("Broken pipe")) {
            try piped.add(path: "a.bin", bytes: random, modified: Self.modified)
            try piped.finish()
        }
        #expect(throws: ArchiveError.writeFailed("Broken pipe"), "finishing after a failure fails the same way") {
            try piped.finish()
        }
    }

    @Test func aSourceThatDisagreesWithTheSizeBreaksTheArchive() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        for (name, given) in [("short", 10), ("long", 30)] {
            let archive = scratch.appendingPathComponent("\(name).tar")
            let writer = try ArchiveWriter(format: .tar, path: archive.path)
            try writer.add(path: "fine.txt", bytes: Array("fine".utf8), modified: Self.modified)
            var sent = false
            let error = #expect(throws: ArchiveError.self) {
                try writer.add(path: "liar.bin", size: 20, modified: Self.modified) { buffer in
                    if sent { return 0 }
                    sent = true
                    buffer.initializeMemory(as: UInt8.self, repeating: 1)
                    return given
                }
            }
            guard case .writeFailed(let why)? = error else {
                Issue.record("\(name): \(String(describing: error))")
                continue
            }
            #expect(why.contains("liar.bin") && why.contains("20"), "\(why)")
            #expect(throws: error!, "nothing more can be added") {
                try writer.add(path: "more.txt", bytes: [1], modified: Self.modified)
            }
            #expect(throws: error!, "and it cannot be finished") { try writer.finish() }
        }
    }

    @Test func anAbandonedWriterLeavesNoValidArchive() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let archive = scratch.appendingPathComponent("abandoned.tar")
        do {
            let writer = try ArchiveWriter(format: .tar, path: archive.path)
            try writer.add(path: "note.txt", bytes: Array("unfinished".utf8), modified: Self.modified)
        }
        #expect(try Data(contentsOf: archive).isEmpty, "no end of archive was written for it")
        #expect(throws: ArchiveError.self) { _ = try Self.readAll(ArchiveReader(path: archive.path)) }
    }

    @Test func missingAndUnwritablePlacesAreNamed() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let nowhere = scratch.appendingPathComponent("no/such/dir/x.tar").path
        #expect(throws: ArchiveError.cannotCreate(path: nowhere)) { try ArchiveWriter(format: .tar, path: nowhere) }
        let writer = try ArchiveWriter(format: .zip, path: scratch.appendingPathComponent("x.zip").path)
        #expect(throws: ArchiveError.cannotRead(path: scratch.path)) {
            try writer.add(path: "dir", file: scratch, modified: nil)
        }
        let missing = scratch.appendingPathComponent("gone.jpg")
        #expect(throws: ArchiveError.cannotRead(path: missing.path)) { try writer.add(path: "gone", file: missing, modified: nil) }
        // Neither refusal broke the archive: nothing had been written for them.
        try writer.add(path: "ok.txt", bytes: [0x6f, 0x6b], modified: Self.modified)
        try writer.finish()
        let read = try Self.readAll(ArchiveReader(path: scratch.appendingPathComponent("x.zip").path))
        #expect(read.map(\.member.path) == ["ok.txt"] && read.first?.bytes == [0x6f, 0x6b])
    }

    @Test func aFileKeepsItsOwnTimeUnlessToldOtherwise() throws {
        let scratch = try ArchiveTool.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("photo.jpg")
        try Data("jpeg".utf8).write(to: file)
        let then = Date(timeIntervalSince1970: 1_700_000_123)
        try FileManager.default.setAttributes([.modificationDate: then], ofItemAtPath: file.path)
        let archive = scratch.appendingPathComponent("t.tar")
        let writer = try ArchiveWriter(format: .tar, path: archive.path)
        try writer.add(path: "own", file: file, modified: nil)
        try writer.add(path: "given", file: file, modified: Self.modified)
        try writer.finish()
        let listing = try ArchiveTool.run("/usr/bin/tar", ["--utc", "--full-time", "-tvf", archive.path])
        let lines = listing.text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("2023-11-14 22:15:23 own") == true, "\(lines)")
        #expect(lines.last?.contains("2026-11-18 11:06:40 given") == true, "\(lines)")
    }

    @Test func aMultiGigabyteMemberStreamsInFlatMemory() throws {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        try #require(null >= 0)
        defer { close(null) }
        let before = ArchiveTool.peakMemory()
        let writer = try ArchiveWriter(format: .tar, fileDescriptor: null)
        let size: Int64 = 3 << 30
        var given: Int64 = 0
        var calls = 0
        try writer.add(path: "media/long-video.mp4", size: size, modified: Self.modified) { buffer in
            calls += 1
            let count = Int(min(Int64(buffer.count), size - given))
            given += Int64(count)
            return count
        }
        try writer.finish()
        #expect(calls == 3 * 1024 + 1, "1 MiB at a time, then the end")
        // One 512-byte header, the data, two 512-byte end blocks (a 3 GiB member needs no pax header).
        #expect(writer.bytesWritten == size + 3 * 512)
        #expect(ArchiveTool.peakMemory() - before < 512 << 20, "memory stayed flat, far below the 3 GiB member")
    }

    @Test func formatsAreKnownByFileNameAndByName() {
        let names: [(String, ArchiveFormat?)] = [
            ("export.tar", .tar), ("export.TAR.GZ", .tarGz), ("x.tgz", .tarGz), ("x.tar.zst", .tarZst), ("x.tzst", .tarZst),
            ("x.tar.xz", .tarXz), ("X.TXZ", .tarXz), ("diary.zip", .zip), ("x.gz", nil), ("x.zst", nil),
            ("tar", nil), (".tar", nil), ("x.tar.bz2", nil), ("海邊.tar.gz", .tarGz),
        ]
        for (name, format) in names {
            #expect(ArchiveFormat.from(fileName: name) == format, "\(name)")
        }
        for format in ArchiveFormat.allCases {
            #expect(ArchiveFormat(name: format.rawValue) == format)
            #expect(ArchiveFormat(name: format.rawValue.uppercased()) == format)
        }
        #expect(ArchiveFormat(name: "tgz") == .tarGz)
        #expect(ArchiveFormat(name: "gz") == nil && ArchiveFormat(name: "7z") == nil)
    }
}

/// Reproducible bytes that do not compress (SplitMix64, each word's bytes low first).
func pseudoRandomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    // Whole words at a time: byte by byte, 3 MiB takes seconds in a debug build.
    let words = (0..<((count + 7) / 8)).map { _ -> UInt64 in
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return (z ^ (z >> 31)).littleEndian
    }
    return words.withUnsafeBytes { Array($0.prefix(count)) }
}

/// The system tools the archive tests check against.
enum ArchiveTool {
    /// A UTF-8 locale, so the tools print and create names like 海邊 as they are.
    static let environment = ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "TZ": "UTC"]

    struct Result {
        let status: Int32
        let output: Data
        let errors: String
        var text: String { String(decoding: output, as: UTF8.self) }
    }

    /// Runs a program (no shell) in `directory` and collects what it printed.
    static func run(_ path: String, _ arguments: [String], in directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errorText = drain(errors.fileHandleForReading)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: data, errors: String(decoding: errorText(), as: UTF8.self))
    }

    /// Reads `handle` to its end on another thread; the returned function waits for and returns the bytes.
    static func drain(_ handle: FileHandle) -> () -> Data {
        let collected = Locked(Data())
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let data = handle.readDataToEndOfFile()
            collected.withLock { $0 = data }
            done.signal()
        }
        return {
            done.wait()
            return collected.withLock { $0 }
        }
    }

    static func sha256sum(_ file: URL) throws -> String {
        String(try run("/usr/bin/sha256sum", [file.path]).text.prefix(64))
    }

    /// A fresh, empty directory.
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("diarykit-archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The most memory this process has held at once, in bytes.
    static func peakMemory() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024
    }
}
