import Crypto
import DiaryKit
import Foundation

/// How far a long archive job has got, for a progress line.
package struct ArchiveProgress: Sendable {
    package var bytesDone: Int64
    package var bytesTotal: Int64?
    package var filesDone: Int
    package var filesTotal: Int?
}

/// What an export or backup wrote.
package struct ExportSummary: Sendable, Equatable {
    package var entries = 0
    package var messages = 0
    package var media = 0
    package var thumbnails = 0
    /// Bytes written (after compression).
    package var archiveBytes: Int64 = 0
}

/// Writes diary archives: a backup (everything) or an export (chosen entries).
package enum ArchiveExport {
    /// What goes in.
    package enum Scope: Sendable {
        /// Every entry (drafts and deletions too), settings, usage and kept conflicts.
        case backup
        /// These entries (deleted ones are left out), nothing else.
        case entries([String])
    }

    /// Streams the archive to `descriptor` (a file or a pipe; not closed). Memory stays flat
    /// however large the diary: entries are read 500 at a time, and everything generated
    /// (entries.jsonl, the pages, the manifest's list of them) is spooled to unlinked files.
    package static func write(store: DiaryStore, scope: Scope, format: ArchiveFormat, to descriptor: Int32,
                             language: Language, progress: ((ArchiveProgress) -> Void)? = nil) throws -> ExportSummary {
        let now = Date()
        var summary = ExportSummary()
        // Generated members are spooled first: the manifest (written first, so a reader can
        // check every member as it arrives) needs their sizes and digests.
        let entriesSpool = try Spool(in: store.paths.home)
        let pagesSpool = try Spool(in: store.paths.home)
        // The manifest's item for each page, in order, and how to copy it: "<bytes> <path>" a line.
        let pageItems = try Spool(in: store.paths.home)
        let pagePlan = try Spool(in: store.paths.home)
        var pageCount = 0
        // Hashes of the page paths taken: two pages on one day whose ids end alike need the
        // longer name (a false alarm only gives a page its longer name, which is unique too).
        var usedPagePaths: Set<Int> = []
        // Media and thumbnails, each once, in the order entries first use them.
        var files: [(member: String, file: URL, sha256: String)] = []
        var listed: Set<String> = []
        func list(_ member: String, _ file: URL, _ sha256: String) {
            if listed.insert(member).inserted { files.append((member, file, sha256)) }
        }

        let ids: [String]
        switch scope {
        case .backup: ids = try store.entryIds(includingDeleted: true)
        case let .entries(chosen): ids = chosen
        }
        var entryHasher = SHA256()
        for start in stride(from: 0, to: ids.count, by: 500) {
            for record in try store.entryRecords(ids: Array(ids[start..<min(ids.count, start + 500)])) {
                if case .entries = scope, record.isHidden { continue }
                let line = Array((record.json.serialized + "\n").utf8)
                entryHasher.update(data: line)
                try entriesSpool.append(line)
                summary.entries += 1
                summary.messages += record.liveMessages.count
                let media = { () -> [EntryRecord.Media] in
                    if case .backup = scope { return record.media }
                    return record.liveMedia
                }()
                for item in media.map(\.item) {
                    list(ArchiveLayout.mediaPath(item), store.paths.media.appendingPathComponent(item.relativePath), item.sha256)
                    if let thumbnail = item.thumbnail, let relative = item.thumbnailPath {
                        list(ArchiveLayout.thumbnailPath(thumbnail), store.paths.thumbnails.appendingPathComponent(relative), thumbnail)
                    }
                }
                guard !record.isHidden else { continue }
                var path = ArchiveLayout.pagePath(record)
                if !usedPagePaths.insert(path.hashValue).inserted {
                    path = "pages/\(Timestamps.localDate(record.occurredAt, zone: record.zone))-\(record.id).md"
                }
                let page = Array(PageMarkdown.render(record, language: language).utf8)
                try pagesSpool.append(page)
                let item = ArchiveManifest.Item(path: path, bytes: Int64(page.count), sha256: Hex.string(SHA256.hash(data: page)))
                try pageItems.append(Array(("," + item.json.serialized).utf8))
                try pagePlan.append(Array("\(page.count) \(path)\n".utf8))
                pageCount += 1
            }
        }
        var extrasBytes: [UInt8]?
        if case .backup = scope {
            extrasBytes = Array(try store.extras().jsonLines.map { $0.serialized + "\n" }.joined().utf8)
        }

        var leading: [ArchiveManifest.Item] = [
            .init(path: ArchiveLayout.entries, bytes: entriesSpool.size, sha256: Hex.string(entryHasher.finalize())),
        ]
        if let extrasBytes {
            leading.append(.init(path: ArchiveLayout.extras, bytes: Int64(extrasBytes.count), sha256: Hex.string(SHA256.hash(data: extrasBytes))))
        }
        // A media row whose file is not on this device (never downloaded, or lost) still
        // travels in entries.jsonl; only files that are here become members.
        var present: [(member: String, file: URL, sha256: String)] = []
        var trailing: [ArchiveManifest.Item] = []
        for source in files {
            var info = stat()
            guard stat(source.file.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            trailing.append(.init(path: source.member, bytes: Int64(info.st_size), sha256: source.sha256))
            present.append(source)
            if source.member.hasPrefix("media/") { summary.media += 1 } else { summary.thumbnails += 1 }
        }
        let manifest = ArchiveManifest(
            scope: { if case .backup = scope { return "backup" } else { return "export" } }(), createdAt: now,
            counts: [("entries", summary.entries), ("messages", summary.messages), ("pages", pageCount),
                     ("media", summary.media), ("thumbnails", summary.thumbnails)],
            members: [])
        // The manifest as one document: its head, the leading items, the pages' items as
        // spooled, the files' items, the end (`ArchiveManifest.json`'s bytes, in pieces).
        let manifestSpool = try Spool(in: store.paths.home)
        try manifestSpool.append(Array((manifest.membersOpening + leading.map(\.json.serialized).joined(separator: ",")).utf8))
        try manifestSpool.append(contentsOf: pageItems)
        try manifestSpool.append(Array((trailing.map { "," + $0.json.serialized }.joined() + ArchiveManifest.membersClosing).utf8))

        let memberCount = leading.count + pageCount + trailing.count
        let total = (leading + trailing).reduce(pagesSpool.size) { $0 + $1.bytes }
        var done: Int64 = 0
        var filesDone = 0
        func advance(_ bytes: Int) {
            done += Int64(bytes)
            progress?(ArchiveProgress(bytesDone: done, bytesTotal: total, filesDone: filesDone, filesTotal: memberCount + 1))
        }
        let writer = try ArchiveWriter(format: format, fileDescriptor: descriptor)
        try manifestSpool.copy(0..<manifestSpool.size, as: ArchiveLayout.manifest, into: writer, modified: now, advance: { _ in })
        try entriesSpool.copy(0..<entriesSpool.size, as: ArchiveLayout.entries, into: writer, modified: now, advance: advance)
        filesDone += 1
        if let extrasBytes {
            try writer.add(path: ArchiveLayout.extras, bytes: extrasBytes, modified: now)
            filesDone += 1
            advance(extrasBytes.count)
        }
        var offset: Int64 = 0
        try pagePlan.forEachLine { line in
            guard let space = line.firstIndex(of: " "), let size = Int64(line[..<space]) else { throw ArchiveError.writeFailed("page plan") }
            try pagesSpool.copy(offset..<offset + size, as: String(line[line.index(after: space)...]), into: writer, modified: now, advance: advance)
            offset += size
            filesDone += 1
        }
        for source in present {
            // The bytes are checked against their name on the way: a file that rotted on disk
            // stops the backup instead of going out under a manifest that vouches for it.
            guard try writer.add(path: source.member, file: source.file, modified: now, progress: advance).sha256 == source.sha256 else {
                throw ArchiveError.mediaCorrupt(path: source.file.path)
            }
            filesDone += 1
        }
        try writer.finish()
        summary.archiveBytes = writer.bytesWritten
        return summary
    }
}

/// A scratch file that is already unlinked: it holds generated members until the manifest
/// is written, and vanishes with the process whatever happens.
final class Spool {
    private let descriptor: Int32
    private(set) var size: Int64 = 0

    init(in folder: URL) throws {
        var template = Array(folder.appendingPathComponent(".spool-XXXXXX").path.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw ArchiveError.cannotCreate(path: folder.path) }
        unlink(String(cString: template))
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    @discardableResult
    func append(_ bytes: [UInt8]) throws -> Range<Int64> {
        // Appends move the file offset; the reads below use pread and leave it alone.
        guard bytes.withUnsafeBytes({ FileIO.writeAll(descriptor, $0) }) else {
            throw ArchiveError.writeFailed(String(cString: strerror(errno)))
        }
        size += Int64(bytes.count)
        return size - Int64(bytes.count)..<size
    }

    /// Appends everything `other` holds.
    func append(contentsOf other: Spool) throws {
        try other.forEachBlock { try append(Array($0)) }
    }

    /// Calls `body` with each line (without its newline), reading a block at a time.
    func forEachLine(_ body: (Substring) throws -> Void) throws {
        var pending: [UInt8] = []
        try forEachBlock { block in
            pending += block
            var start = 0
            while let end = pending[start...].firstIndex(of: 0x0A) {
                try body(Substring(String(decoding: pending[start..<end], as: UTF8.self)))
                start = end + 1
            }
            pending.removeFirst(start)
        }
    }

    /// Calls `body` with the spool's bytes in order, a block at a time.
    private func forEachBlock(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { block.deallocate() }
        var position: Int64 = 0
        while position < size {
            let got = try read(into: block, at: position)
            guard got > 0 else { break }
            try body(UnsafeRawBufferPointer(rebasing: block[..<got]))
            position += Int64(got)
        }
    }

    /// Up to `buffer.count` bytes from `position`; 0 at the end.
    private func read(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) throws -> Int {
        let got = FileIO.read(descriptor, into: buffer, at: position)
        guard got >= 0 else { throw ArchiveError.writeFailed(String(cString: strerror(errno))) }
        return got
    }

    func copy(_ range: Range<Int64>, as member: String, into writer: ArchiveWriter, modified: Date, advance: (Int) -> Void) throws {
        var position = range.lowerBound
        try writer.add(path: member, size: Int64(range.count), modified: modified) { buffer in
            let want = Int(min(Int64(buffer.count), range.upperBound - position))
            guard want > 0 else { return 0 }
            let got = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<want]), at: position)
            position += Int64(got)
            advance(got)
            return got
        }
    }
}
