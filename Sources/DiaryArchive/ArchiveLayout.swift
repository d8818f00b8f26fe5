import Crypto
import DiaryKit
import Foundation

/// Where things sit inside a diary archive (format version 2), and its manifest. Version 2
/// adds the star, trash and own-order fields to entries and the pages' earlier versions
/// (`"kind":"version"`) to diary.jsonl; version 1 archives read as before.
///
/// ```
/// manifest.json            format, version, counts, size and SHA-256 of every member
/// entries.jsonl            one full entry per line (chat, tags, context, clocks)
/// diary.jsonl              backups only: tags, settings, usage, kept conflicts, page versions
/// pages/YYYY-MM-DD-<id8>.md  one readable page per entry
/// media/<sha256>.<ext>     photos, videos, voice memos
/// thumbs/<sha256>.jpg      thumbnails
/// ```
enum ArchiveLayout {
    /// The version this build writes and the newest it reads.
    static let formatVersion = 2
    /// The name in `manifest.json`'s `format` field.
    static let formatName = "innerbloom-diary"
    static let manifest = "manifest.json"
    static let entries = "entries.jsonl"
    static let extras = "diary.jsonl"

    static func mediaPath(_ item: MediaItem) -> String { "media/\(item.sha256).\(item.fileExtension)" }
    static func thumbnailPath(_ sha256: String) -> String { "thumbs/\(sha256).jpg" }

    /// The id of an entry that comes from elsewhere under a name of its own (an import's
    /// key): a name-derived UUID (version 8) from its SHA-256, the same for the same name.
    static func derivedId(_ name: String) -> String {
        var bytes = Array(SHA256.hash(data: Array(name.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x80
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return dashed(Hex.string(bytes))
    }

    /// 32 hex digits as a UUID is written: 8-4-4-4-12.
    static func dashed(_ hex: String) -> String {
        let digits = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }.joined(separator: "-")
    }

    // The last 8 hex digits: a UUIDv7 starts with its time, so entries of the same weeks share their first 8.
    static func pagePath(_ record: EntryRecord) -> String {
        "pages/\(Timestamps.localDate(record.occurredAt, zone: record.zone))-\(record.id.suffix(8)).md"
    }

    /// What a member's name says it is; nil for a name this format does not use.
    enum Member: Equatable {
        case manifest, entries, extras, page
        /// Content-addressed media or thumbnail: the name carries the SHA-256.
        case media(sha256: String, fileExtension: String), thumbnail(sha256: String)

        init?(path: String) {
            switch path {
            case ArchiveLayout.manifest: self = .manifest
            case ArchiveLayout.entries: self = .entries
            case ArchiveLayout.extras: self = .extras
            default:
                let parts = path.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 2 else { return nil }
                let name = parts[1]
                switch parts[0] {
                case "pages" where name.hasSuffix(".md") && name.utf8.count > 3: self = .page
                case "media", "thumbs":
                    let pieces = name.split(separator: ".", omittingEmptySubsequences: false)
                    guard pieces.count == 2, RecordCoding.isDigest(String(pieces[0])),
                          RecordCoding.isFileExtension(String(pieces[1])) else { return nil }
                    if parts[0] == "media" {
                        self = .media(sha256: String(pieces[0]), fileExtension: String(pieces[1]))
                    } else {
                        guard pieces[1] == "jpg" else { return nil }
                        self = .thumbnail(sha256: String(pieces[0]))
                    }
                default: return nil
                }
            }
        }
    }
}

/// The first member of every archive: what it holds, and how to check each member.
struct ArchiveManifest: Equatable {
    struct Item: Equatable {
        var path: String
        var bytes: Int64
        var sha256: String

        var json: JSON { .object([("path", .string(path)), ("bytes", .int(bytes)), ("sha256", .string(sha256))]) }
    }

    /// `backup` (the whole diary) or `export` (a selection).
    var scope: String
    var version: Int
    var tool: String
    var createdAt: Date
    var counts: [(String, Int)]
    var members: [Item]

    static func == (lhs: ArchiveManifest, rhs: ArchiveManifest) -> Bool {
        lhs.scope == rhs.scope && lhs.version == rhs.version && lhs.members == rhs.members
            && lhs.counts.map(\.0) == rhs.counts.map(\.0) && lhs.counts.map(\.1) == rhs.counts.map(\.1)
    }

    var json: JSON { .object(head + [("members", .array(members.map(\.json)))]) }

    /// Everything but the members.
    private var head: [(String, JSON)] {
        [
            ("format", .string(ArchiveLayout.formatName)),
            ("version", .int(Int64(version))),
            ("scope", .string(scope)),
            ("tool", .string(tool)),
            ("created_at", .string(Timestamps.rfc3339Millis(createdAt, zone: .current))),
            ("counts", .object(counts.map { ($0.0, .int(Int64($0.1))) })),
        ]
    }

    /// The serialized manifest up to its first member (`…,"members":[`); then come the
    /// members' serialized items, comma-separated, and `membersClosing`. The same bytes as
    /// `json.serialized`, for a writer that streams a long list of members.
    var membersOpening: String { String(JSON.object(head).serialized.dropLast()) + ",\"members\":[" }
    static let membersClosing = "]}"

    /// Reads a manifest; a newer version is refused before anything else is looked at.
    init(json: JSON) throws(ArchiveError) {
        guard json["format"]?.stringValue == ArchiveLayout.formatName else { throw .invalidRecord(member: ArchiveLayout.manifest, line: 1, field: "format") }
        guard case let .int(version)? = json["version"], version >= 1 else {
            throw .invalidRecord(member: ArchiveLayout.manifest, line: 1, field: "version")
        }
        guard version <= ArchiveLayout.formatVersion else { throw .newerFormat(version: Int(version)) }
        let reader = RecordReader(json, path: "")
        do throws(RecordDecodingError) {
            scope = try reader.string("scope")
            tool = try reader.string("tool")
            createdAt = try reader.time("created_at")
            guard case let .object(pairs)? = json["counts"] else { throw RecordDecodingError(field: "counts") }
            counts = try pairs.map { pair throws(RecordDecodingError) in
                guard case let .int(count) = pair.1, count >= 0 else { throw RecordDecodingError(field: "counts.\(pair.0)") }
                return (pair.0, Int(count))
            }
            members = try reader.array("members").enumerated().map { index, value throws(RecordDecodingError) in
                let item = RecordReader(value, path: "members[\(index)].")
                return Item(path: try item.string("path"), bytes: Int64(try item.int("bytes")), sha256: try item.digest("sha256"))
            }
        } catch {
            throw .invalidRecord(member: ArchiveLayout.manifest, line: 1, field: error.field)
        }
        self.version = Int(version)
    }

    init(scope: String, createdAt: Date, counts: [(String, Int)], members: [Item]) {
        self.scope = scope
        version = ArchiveLayout.formatVersion
        tool = "InnerBloom Diary \(DiaryVersion.current)"
        self.createdAt = createdAt
        self.counts = counts
        self.members = members
    }

    func count(_ name: String) -> Int? { counts.first { $0.0 == name }?.1 }
}
