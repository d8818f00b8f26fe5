import CArchive
import Crypto
import DiaryKit
import Foundation

/// How much an archive may hold before it is treated as a decompression bomb.
package struct ArchiveLimits: Sendable {
    /// One member (a long video).
    package var memberBytes: Int64 = 16 << 30
    /// All members together.
    package var totalBytes: Int64 = 256 << 30
    /// A member that is read into memory (entries, settings, a Day One journal).
    package var recordBytes: Int64 = 1 << 30
    package var members = 1_000_000
    /// Unpacked bytes per packed byte, checked once `ratioFloor` bytes have been unpacked:
    /// photos and videos barely compress, text about tenfold; bombs a thousandfold.
    package var ratio: Int64 = 100
    package var ratioFloor: Int64 = 64 << 20

    package init() {}
}

/// What a restore or import did.
package struct ImportSummary: Sendable, Equatable {
    /// `backup`, `export` or `dayone`.
    package var source = ""
    package var merge = MergeReport()
    /// Media and thumbnail files that were not on this device before.
    package var filesAdded = 0
    /// Day One attachments whose bytes are not the MD5 their name gives (kept all the same).
    package var mismatchedFiles: [String] = []
    /// Day One attachments of a type the diary cannot keep, left out.
    package var leftOutFiles: [String] = []
    /// Day One entries whose uuid differs from another's only in case, kept apart.
    package var caseTwins: [String] = []
}

/// Reads diary archives (and Day One exports) back into a diary. Everything is read and
/// checked first, media into a staging folder; only a fully verified archive reaches the
/// store, in one transaction.
package enum ArchiveImport {
    /// `restore` merges everything a backup holds; `import` merges entries only, and also
    /// reads Day One exports.
    package enum Mode: Sendable { case restore, importEntries }

    /// Reads the archive from `descriptor` (a file or stdin; not closed) into the store. A
    /// JSON document instead of an archive is read as jrnl's export, its times in `zone`.
    package static func run(store: DiaryStore, from descriptor: Int32, mode: Mode, limits: ArchiveLimits = ArchiveLimits(),
                           totalBytes: Int64? = nil, zone: TimeZone = .current,
                           progress: ((ArchiveProgress) -> Void)? = nil) throws -> ImportSummary {
        removeStaleStaging(in: store.paths.home)
        var summary = ImportSummary()
        let (prefix, taken) = try peek(descriptor)
        if Jrnl.isJSONObject(prefix) {
            summary.source = "jrnl"
            let records = try Jrnl.records(try readWhole(descriptor, after: taken ? prefix : [], limit: limits.recordBytes), zone: zone)
            summary.merge = try store.merge(records, extras: nil, source: .import)
            return summary
        }
        let staging = try makeStaging(in: store.paths.home)
        defer { try? FileManager.default.removeItem(at: staging) }
        let reader = taken ? try ArchiveReader(fileDescriptor: descriptor, after: prefix) : try ArchiveReader(fileDescriptor: descriptor)
        var unpacked = try Unpacked.read(reader, staging: staging, limits: limits, totalBytes: totalBytes, progress: progress)

        let records: [EntryRecord]
        var extras: DiaryExtras?
        if let manifest = unpacked.manifest {
            summary.source = manifest.scope
            records = try entryRecords(unpacked.texts.removeValue(forKey: ArchiveLayout.entries) ?? [])
            guard manifest.count("entries").map({ $0 == records.count }) ?? true else {
                throw ArchiveError.manifestMismatch(path: ArchiveLayout.entries)
            }
            if mode == .restore, let lines = unpacked.texts[ArchiveLayout.extras] {
                extras = try diaryExtras(lines)
            }
        } else if !unpacked.dayOneJournals.isEmpty {
            summary.source = "dayone"
            var findings = DayOne.Findings()
            records = try DayOne.records(journals: unpacked.dayOneJournals.map { ($0, unpacked.texts[$0] ?? []) }, files: &unpacked.files,
                                         findings: &findings)
            (summary.mismatchedFiles, summary.leftOutFiles, summary.caseTwins) = (findings.mismatched, findings.leftOut, findings.caseTwins)
        } else {
            throw ArchiveError.notDiaryArchive
        }

        let placed = try place(records, files: unpacked.files, paths: store.paths)
        do {
            summary.merge = try store.merge(records, extras: extras, source: mode == .restore ? .restore : .import)
        } catch {
            for file in placed { unlink(file.path) }
            throw error
        }
        summary.filesAdded = placed.count
        // Day One carries no thumbnails: made now, after the pages are safely stored (a
        // backup's come with it).
        if summary.source == "dayone" { MediaPreviews.ensure(records.flatMap { $0.liveMedia.map(\.item) }, store: store) }
        return summary
    }

    /// The input's first bytes, enough to tell a JSON document from an archive: read in
    /// place from a file (pread), taken from a pipe (`taken`: the caller must pass them on).
    private static func peek(_ descriptor: Int32) throws -> (bytes: [UInt8], taken: Bool) {
        var bytes = [UInt8](repeating: 0, count: 4096)
        let offset = lseek(descriptor, 0, SEEK_CUR)
        if offset >= 0 {
            let got = bytes.withUnsafeMutableBytes { FileIO.read(descriptor, into: $0, at: Int64(offset)) }
            guard got >= 0 else { throw ArchiveError.corrupt(String(cString: strerror(errno))) }
            return (Array(bytes[..<got]), false)
        }
        // A pipe: read until something other than white space has come, or the end.
        var taken: [UInt8] = []
        while taken.count < 1 << 16 {
            let got = bytes.withUnsafeMutableBytes { FileIO.read(descriptor, into: $0) }
            guard got >= 0 else { throw ArchiveError.corrupt(String(cString: strerror(errno))) }
            taken += bytes[..<got]
            if got == 0 || Jrnl.firstVisibleByte(taken) != nil { break }
        }
        return (taken, true)
    }

    /// `prefix` and everything after it on the descriptor, refused past `limit` bytes.
    private static func readWhole(_ descriptor: Int32, after prefix: [UInt8], limit: Int64) throws -> [UInt8] {
        var bytes = prefix
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = block.withUnsafeMutableBytes { FileIO.read(descriptor, into: $0) }
            guard got >= 0 else { throw ArchiveError.corrupt(String(cString: strerror(errno))) }
            if got == 0 { return bytes }
            bytes += block[..<got]
            guard bytes.count <= limit else { throw ArchiveError.tooLarge(path: Jrnl.member) }
        }
    }

    /// Moves staged media and thumbnails the records use into the store (content-addressed:
    /// a file already there is the same bytes and is left alone). Returns what it added.
    private static func place(_ records: [EntryRecord], files: [String: StagedFile], paths: DiaryPaths) throws -> [URL] {
        // The staged bytes reach the disk before any name points at them, and the names
        // before the store does: one flush of the diary's file system each, not an fsync per
        // file and folder (a restore of a thousand photos spent seconds on those).
        try flushFileSystem(holding: paths.home.path)
        var placed: [URL] = []
        func move(_ member: String, into folder: ContentAddressedFolder, sha256: String, fileExtension: String) throws {
            guard let staged = files[member], !folder.holds(sha256: sha256, fileExtension: fileExtension, bytes: staged.bytes) else { return }
            try? FileManager.default.createDirectory(atPath: folder.rootPath, withIntermediateDirectories: true)
            guard folder.install(staged.url.path, sha256: sha256, fileExtension: fileExtension, syncing: false) else {
                for file in placed { unlink(file.path) }
                throw ArchiveError.cannotCreate(path: folder.path(sha256: sha256, fileExtension: fileExtension))
            }
            placed.append(URL(fileURLWithPath: folder.path(sha256: sha256, fileExtension: fileExtension)))
        }
        let media = ContentAddressedFolder(paths.media)
        let thumbnails = ContentAddressedFolder(paths.thumbnails)
        for record in records {
            for item in record.media.map(\.item) {
                try move(ArchiveLayout.mediaPath(item), into: media, sha256: item.sha256, fileExtension: item.fileExtension)
                if let thumbnail = item.thumbnail {
                    try move(ArchiveLayout.thumbnailPath(thumbnail), into: thumbnails, sha256: thumbnail, fileExtension: "jpg")
                }
            }
        }
        if !placed.isEmpty { try flushFileSystem(holding: paths.home.path) }
        return placed
    }

    /// syncfs(2) on the file system that holds `path`: its writes and renames are on disk.
    private static func flushFileSystem(holding path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ArchiveError.cannotCreate(path: path) }
        defer { close(descriptor) }
        guard syncfs(descriptor) == 0 else { throw ArchiveError.writeFailed(String(cString: strerror(errno))) }
    }

    private static func entryRecords(_ bytes: [UInt8]) throws -> [EntryRecord] {
        var records: [EntryRecord] = []
        try eachJSONLine(bytes, member: ArchiveLayout.entries) { line, json in
            do throws(RecordDecodingError) {
                records.append(try EntryRecord(json: json))
            } catch {
                throw ArchiveError.invalidRecord(member: ArchiveLayout.entries, line: line, field: error.field)
            }
        }
        return records
    }

    private static func diaryExtras(_ bytes: [UInt8]) throws -> DiaryExtras {
        var extras = DiaryExtras()
        try eachJSONLine(bytes, member: ArchiveLayout.extras) { line, json in
            do throws(RecordDecodingError) {
                try extras.add(json: json)
            } catch {
                throw ArchiveError.invalidRecord(member: ArchiveLayout.extras, line: line, field: error.field)
            }
        }
        return extras
    }

    /// Hands each JSON Lines object to `body` with its line number (1-based), one at a
    /// time, so a large member is never held as parsed values all at once.
    static func eachJSONLine(_ bytes: [UInt8], member: String, _ body: (Int, JSON) throws -> Void) throws {
        var start = 0
        var line = 0
        while start < bytes.count {
            line += 1
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            if end > start {
                guard let json = JSON.parse(Data(bytes[start..<end])), case .object = json else {
                    throw ArchiveError.invalidRecord(member: member, line: line, field: nil)
                }
                try body(line, json)
            }
            start = end + 1
        }
    }

    private static func makeStaging(in home: URL) throws -> URL {
        var template = Array(home.appendingPathComponent(".incoming-XXXXXX").path.utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw ArchiveError.cannotCreate(path: home.path)
        }
        return URL(fileURLWithPath: String(cString: template))
    }

    // A restore that was killed leaves its staging folder behind; an hour later it is not
    // anyone's any more.
    private static func removeStaleStaging(in home: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: home.path) else { return }
        for name in names where name.hasPrefix(".incoming-") {
            let url = home.appendingPathComponent(name)
            let modified = (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? Date()
            if Date().timeIntervalSince(modified) > 3600 { try? FileManager.default.removeItem(at: url) }
        }
    }
}

/// A member written to the staging folder, with its digests.
struct StagedFile {
    var url: URL
    var bytes: Int64
    var sha256: String
    var md5: String
}

/// What a member is to the reader: the manifest, records read into memory, a file staged
/// on disk (with the digest its name promises), a page (only checked), or unknown.
private enum MemberKind {
    case manifest, text, file(digest: String?), page, skip

    var isFile: Bool {
        if case .file = self { return true }
        return false
    }
}

/// The SHA-256 (and for Day One, the MD5) of each member, computed on a thread of its own:
/// hashing one block overlaps reading and writing the next, as two cores allow (hashing
/// was the largest part of a restore on one). The reader fills the two buffers in turn.
private final class BackgroundDigest: @unchecked Sendable {
    // `sha` and `md5` are touched only on `queue`, which is serial: that is their lock.
    private let queue = DispatchQueue(label: "innerbloom.archive.digest")
    private var sha = SHA256()
    private var md5: Insecure.MD5?
    private let buffers: [UnsafeMutableRawBufferPointer]
    // A buffer is free to fill again once its semaphore is signalled. Made at 0 and
    // signalled once: libdispatch aborts when a semaphore goes away below the value it was
    // made with, as one waited on by a restore that failed midway would.
    private let free: [DispatchSemaphore]
    private var turn = 0

    init(blockSize: Int) {
        buffers = (0..<2).map { _ in .allocate(byteCount: blockSize, alignment: 16) }
        free = (0..<2).map { _ in DispatchSemaphore(value: 0) }
        for semaphore in free { semaphore.signal() }
    }

    deinit {
        // Blocks still queued hold `self`, so none is running by now.
        for buffer in buffers { buffer.deallocate() }
    }

    /// Begins a new member.
    func start(md5 wanted: Bool) {
        queue.sync {
            sha = SHA256()
            md5 = wanted ? Insecure.MD5() : nil
        }
    }

    /// The buffer to fill next, once the digest thread is done with it. Every buffer taken
    /// goes back with `hash`.
    func nextBuffer() -> UnsafeMutableRawBufferPointer {
        free[turn].wait()
        return buffers[turn]
    }

    /// Hashes the first `count` bytes of the buffer `nextBuffer` gave (0: gives it back unread).
    func hash(_ count: Int) {
        let index = turn
        turn ^= 1
        let chunk = Chunk(bytes: UnsafeRawBufferPointer(rebasing: buffers[index][0..<count]))
        queue.async {
            if count > 0 {
                self.sha.update(bufferPointer: chunk.bytes)
                self.md5?.update(bufferPointer: chunk.bytes)
            }
            self.free[index].signal()
        }
    }

    /// The member's digests, in hex, once every block handed over is hashed.
    func finish() -> (sha256: String, md5: String?) {
        queue.sync { (Hex.string(sha.finalize()), md5.map { Hex.string($0.finalize()) }) }
    }

    /// A block handed to the digest thread; the reader leaves it alone until it is given back.
    private struct Chunk: @unchecked Sendable { let bytes: UnsafeRawBufferPointer }
}

/// Every member of an archive, checked: paths, types, sizes, digests, the manifest.
private struct Unpacked {
    var manifest: ArchiveManifest?
    var texts: [String: [UInt8]] = [:]
    var files: [String: StagedFile] = [:]
    /// The members holding Day One journals, when the archive has no manifest.
    var dayOneJournals: [String] = []

    static func read(_ reader: ArchiveReader, staging: URL, limits: ArchiveLimits, totalBytes: Int64?,
                     progress: ((ArchiveProgress) -> Void)?) throws -> Unpacked {
        var unpacked = Unpacked()
        var expected: [String: ArchiveManifest.Item] = [:]
        var seen: Set<String> = []
        var count = 0
        var total: Int64 = 0
        let digest = BackgroundDigest(blockSize: 1 << 20)

        while let member = try reader.next() {
            count += 1
            guard count <= limits.members else { throw ArchiveError.tooLarge(path: member.path) }
            let path = try safePath(member.path)
            switch member.type {
            case .directory: continue
            case .regular: break
            case .symbolicLink, .hardLink: throw ArchiveError.unsafeMember(path: member.path, reason: .link)
            default: throw ArchiveError.unsafeMember(path: member.path, reason: .device)
            }
            guard seen.insert(path).inserted else { throw ArchiveError.unsafeMember(path: path, reason: .duplicate) }
            let isFirst = seen.count == 1

            // What the member is, and how big it may be.
            var kind: MemberKind
            var limit = limits.memberBytes
            if isFirst && path == ArchiveLayout.manifest {
                kind = .manifest
                limit = 64 << 20
            } else if unpacked.manifest != nil {
                guard let item = expected[path] else { throw ArchiveError.manifestMismatch(path: path) }
                limit = item.bytes
                switch ArchiveLayout.Member(path: path) {
                case .entries?, .extras?: kind = .text
                case let .media(sha256, _)?: kind = .file(digest: sha256)
                case let .thumbnail(sha256)?: kind = .file(digest: sha256)
                case .page?: kind = .page
                case .manifest?, nil: kind = .skip
                }
            } else if path == ArchiveLayout.manifest {
                // Ours always comes first: anywhere else it cannot have been checked in time.
                throw ArchiveError.unsafeMember(path: path, reason: .misplacedManifest)
            } else if DayOne.isJournal(path) {
                kind = .text
                unpacked.dayOneJournals.append(path)
            } else if DayOne.isMediaFile(path) {
                kind = .file(digest: nil)
            } else {
                kind = .skip
            }
            if case .text = kind { limit = min(limit, limits.recordBytes) }
            if let size = member.size, size > limit {
                if unpacked.manifest != nil, expected[path].map({ size != $0.bytes }) == true {
                    throw ArchiveError.manifestMismatch(path: path)
                }
                throw ArchiveError.tooLarge(path: path)
            }

            // Only Day One names files by MD5; our own archives need just the SHA-256.
            if case .skip = kind {} else { digest.start(md5: unpacked.manifest == nil && kind.isFile) }
            var bytes: Int64 = 0
            var unflushed: Int64 = 0
            var text: [UInt8] = []
            var output: Int32 = -1
            let stagedURL = staging.appendingPathComponent("\(unpacked.files.count)")
            if case .file = kind {
                output = open(stagedURL.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard output >= 0 else { throw ArchiveError.cannotCreate(path: stagedURL.path) }
            }
            defer { if output >= 0 { close(output) } }
            while true {
                let buffer = digest.nextBuffer()
                let got = try reader.read(into: buffer)
                if got == 0 {
                    digest.hash(0)
                    break
                }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<got])
                bytes += Int64(got)
                total += Int64(got)
                if bytes > limit {
                    throw unpacked.manifest != nil ? ArchiveError.manifestMismatch(path: path) : ArchiveError.tooLarge(path: path)
                }
                guard total <= limits.totalBytes else { throw ArchiveError.tooLarge(path: path) }
                if reader.uncompressedBytesRead > limits.ratioFloor,
                   reader.uncompressedBytesRead > max(reader.compressedBytesRead, 1) * limits.ratio {
                    throw ArchiveError.tooLarge(path: path)
                }
                switch kind {
                case .skip:
                    digest.hash(0)
                    continue
                case .manifest, .text: text.append(contentsOf: chunk)
                case .file:
                    guard FileIO.writeAll(output, chunk) else { throw ArchiveError.writeFailed(String(cString: strerror(errno))) }
                    unflushed += Int64(got)
                    if unflushed >= Self.writebackStep {
                        Self.startWriteback(output, from: bytes - unflushed, count: unflushed)
                        unflushed = 0
                    }
                case .page: break
                }
                // Hashed on the digest's thread while the next block is read and written here.
                digest.hash(got)
                progress?(ArchiveProgress(bytesDone: reader.compressedBytesRead, bytesTotal: totalBytes, filesDone: count, filesTotal: nil))
            }
            if case .skip = kind { continue }
            if output >= 0, unflushed > 0 { Self.startWriteback(output, from: bytes - unflushed, count: unflushed) }
            let (sha256, md5) = digest.finish()
            switch kind {
            case .manifest:
                guard let json = JSON.parse(Data(text)), case .object = json else {
                    throw ArchiveError.invalidRecord(member: path, line: 1, field: nil)
                }
                let manifest = try ArchiveManifest(json: json)
                for item in manifest.members {
                    let checked = try safePath(item.path)
                    guard checked != ArchiveLayout.manifest, expected.updateValue(item, forKey: checked) == nil else {
                        throw ArchiveError.unsafeMember(path: item.path, reason: .duplicate)
                    }
                }
                unpacked.manifest = manifest
                continue
            case .skip:
                continue
            default:
                break
            }
            if let item = expected[path], item.bytes != bytes || item.sha256 != sha256 {
                throw ArchiveError.manifestMismatch(path: path)
            }
            switch kind {
            case .text:
                unpacked.texts[path] = text
            case let .file(named):
                if let named, named != sha256 { throw ArchiveError.manifestMismatch(path: path) }
                unpacked.files[path] = StagedFile(url: stagedURL, bytes: bytes, sha256: sha256, md5: md5 ?? "")
            default:
                break
            }
        }
        if unpacked.manifest != nil, let missing = expected.keys.sorted().first(where: { !seen.contains($0) }) {
            throw ArchiveError.manifestMismatch(path: missing)
        }
        return unpacked
    }

    /// Bytes of a staged file written between two calls of `startWriteback`.
    static let writebackStep: Int64 = 8 << 20

    /// Asks the kernel to start writing a range of a staged file to disk and returns at once
    /// (sync_file_range, SYNC_FILE_RANGE_WRITE): the disk works while the archive is read on,
    /// and the flush before the files are placed has little left to wait for. A machine with
    /// much memory would otherwise hold a whole restore in its cache until that flush.
    private static func startWriteback(_ descriptor: Int32, from offset: Int64, count: Int64) {
        let syncFileRangeWrite: UInt32 = 2  // SYNC_FILE_RANGE_WRITE, behind _GNU_SOURCE in <fcntl.h>
        _ = sync_file_range(descriptor, Int(offset), Int(count), syncFileRangeWrite)
    }

    /// The member's path with a leading `./` taken off; absolute paths and `..` are refused.
    static func safePath(_ raw: String) throws -> String {
        var path = raw
        while path.hasPrefix("./") { path.removeFirst(2) }
        if path.hasSuffix("/") { path.removeLast() }
        guard !raw.hasPrefix("/") else { throw ArchiveError.unsafeMember(path: raw, reason: .absolutePath) }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.contains("..") else { throw ArchiveError.unsafeMember(path: raw, reason: .parentReference) }
        guard !path.isEmpty, !parts.contains(""), !parts.contains("."), !path.contains("\\"),
              !path.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            throw ArchiveError.unsafeMember(path: raw, reason: .strangeName)
        }
        return path
    }
}
