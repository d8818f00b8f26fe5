import DiaryKit
import Foundation

// Day One's Journal.json read into entry records (`DayOne.read`).

/// Reads journals into records, finding each attachment among the staged files.
struct JournalReader {
    let files: [String: StagedFile]
    let now: Date
    /// Staged attachments by folder and the MD5 their name gives: `photos/<md5>` → member paths.
    private var byDigest: [String: [String]] = [:]
    /// The MIME type and extension a staged member was first taken as (a file is stored once).
    private var types: [String: (mime: String, fileExtension: String)] = [:]
    /// Attachments used, under their content-addressed archive path.
    private(set) var placed: [String: StagedFile] = [:]
    private var mediaIds: Set<String> = []
    /// The uuid, as written, each entry id was first made from.
    private var uuids: [String: String] = [:]
    /// Mismatched and left-out attachments, in the order met.
    private(set) var findings = DayOne.Findings()

    init(files: [String: StagedFile], now: Date) {
        self.files = files
        self.now = now
        for path in files.keys where DayOne.isMediaFile(path) {
            let parts = path.split(separator: "/").suffix(2)
            let stem = parts.last!.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)[0].lowercased()
            byDigest["\(parts.first!)/\(stem)", default: []].append(path)
        }
        for key in byDigest.keys { byDigest[key]?.sort() }
    }

    mutating func read(_ bytes: [UInt8], member: String) throws -> [EntryRecord] {
        guard let json = JSON.parse(file: bytes), case .object = json else {
            throw ArchiveError.invalidRecord(member: member, line: 1, field: nil)
        }
        guard let entries = json["entries"]?.arrayValue else {
            throw ArchiveError.invalidRecord(member: member, line: 1, field: "entries")
        }
        let journal = DayOne.journalName(member)
        var records: [EntryRecord] = []
        for (index, value) in entries.enumerated() {
            records.append(try entry(try Fields(value, name: "entries[\(index)]", member: member), journal: journal))
        }
        return records
    }

    private mutating func entry(_ fields: Fields, journal: String?) throws -> EntryRecord {
        guard let uuid = try fields.string("uuid"), !uuid.isEmpty else { throw fields.fail("uuid") }
        guard let created = try fields.time("creationDate") else { throw fields.fail("creationDate") }
        let updated = try fields.time("modifiedDate") ?? created
        let zone = try fields.string("timeZone").flatMap { TimeZone(identifier: $0) != nil ? $0 : nil } ?? "UTC"
        var id = DayOne.identifier(uuid)
        if let first = uuids[id], first != uuid {
            // The same hex digits in another case: another entry, never silently merged into the first.
            id = ArchiveLayout.derivedId("dayone:\(uuid)")
            if !findings.caseTwins.contains(uuid) { findings.caseTwins.append(uuid) }
        } else {
            uuids[id] = uuid
        }
        // Day One's modification time is the version: the same export always carries the same
        // clock, and a merge of an unchanged entry is a no-op. A time far in the future (a
        // broken clock) would be refused by the store, so it counts as the oldest version.
        var wall = Timestamps.millis(updated)
        if wall > Timestamps.millis(now) + 12 * 3_600_000 { wall = 0 }
        let clock = RowClock(hlc: HybridTimestamp(wallMillis: wall, counter: 0, device: DayOne.device).description,
                             deviceId: DayOne.device)

        let page = DayOne.page(from: try fields.string("text") ?? "")
        var context = EntryContext()
        if let location = try fields.object("location") {
            context.place = try location.string("placeName")
            context.locality = try location.string("localityName")
            context.region = try location.string("administrativeArea")
            context.country = try location.string("country")
            context.latitude = try location.number("latitude")
            context.longitude = try location.number("longitude")
            if context.latitude == nil || context.longitude == nil,
               let center = try location.object("region")?.object("center") {
                context.latitude = try center.number("latitude")
                context.longitude = try center.number("longitude")
            }
        }
        if let weather = try fields.object("weather") {
            context.weatherDescription = try weather.string("conditionsDescription")
            context.temperatureC = try weather.number("temperatureCelsius")
            for (key, path) in DayOne.weatherNumbers { context.weather[keyPath: path] = try weather.number(key) }
            for (key, path) in DayOne.weatherTimes { context.weather[keyPath: path] = try weather.time(key) }
            for (key, path) in DayOne.weatherTexts { context.weather[keyPath: path] = try weather.string(key) }
        }

        var tagLinks: [EntryRecord.TagLink] = []
        for (index, value) in try fields.array("tags").enumerated() {
            guard let raw = value.stringValue, !raw.utf8.contains(0) else { throw fields.fail("tags[\(index)]") }
            guard let name = TagName.normalize(raw), !tagLinks.contains(where: { $0.name == name }) else { continue }
            tagLinks.append(EntryRecord.TagLink(name: name, position: tagLinks.count, createdAt: created, clock: clock,
                                                label: TagName.label(raw)))
        }

        // Day One numbers photos in the entry (`orderInEntry`); videos and voice memos follow in
        // the order given unless they carry a number too.
        var found: [(order: Int, rank: Int, media: EntryRecord.Media)] = []
        for (rank, kind) in [MediaKind.photo, .video, .audio, .file].enumerated() {
            let key = DayOne.entryKey(kind)
            for (index, value) in try fields.array(key).enumerated() {
                let item = try Fields(value, name: "\(fields.name).\(key)[\(index)]", member: fields.member)
                let order = try item.count("orderInEntry") ?? Int.max
                guard var media = try attachment(item, kind: kind, entryUUID: uuid, clock: clock) else { continue }
                media.anchor = try item.string("identifier").flatMap { page.anchors[$0.uppercased()] }
                found.append((order, rank * 1_000_000 + index, media))
            }
        }
        found.sort { ($0.order, $0.rank) < ($1.order, $1.rank) }
        let media = found.enumerated().map { position, entry in
            var media = entry.media
            media.position = position
            return media
        }

        let starred = try fields.flag("starred") ?? false
        return EntryRecord(
            id: id, clock: clock, status: .saved, createdAt: created, updatedAt: updated, occurredAt: created,
            timeZone: zone, context: context, persona: Persona.standard.id, title: page.title, summary: page.summary,
            summarizedAt: updated, starred: starred, fieldClocks: FieldClocks(star: starred ? clock.hlc : nil), journal: journal,
            media: media, lines: [], tagLinks: tagLinks)
    }

    /// One photo, video or voice memo, when its file is in the export and its type is one we keep.
    private mutating func attachment(_ fields: Fields, kind: MediaKind, entryUUID: String, clock: RowClock) throws -> EntryRecord.Media? {
        let md5 = try fields.string("md5")?.lowercased()
        // Photos and videos say `type`; voice memos say `format` (the codec: `aac`).
        let type = try fields.string("type") ?? fields.string("format")
        let identifier = try fields.string("identifier")
        let width = try fields.count("width")
        let height = try fields.count("height")
        let duration = try fields.number("duration")
        let takenAt = try fields.time("date")
        guard let md5, !md5.isEmpty, let candidates = byDigest["\(DayOne.folder(kind))/\(md5)"] else { return nil }

        // The file named for its type first (`jpeg` and `jpg` are one), else any file of that MD5.
        func fileExtension(_ path: String) -> String {
            let name = path.split(separator: "/").last ?? ""
            return name.split(separator: ".", maxSplits: 1).dropFirst().first.map { $0.lowercased() } ?? ""
        }
        let wanted = type.flatMap { DayOne.fileType($0, kind: kind)?.fileExtension }
        let path = candidates.first { candidate in
            let actual = fileExtension(candidate)
            return actual == type?.lowercased() || DayOne.fileType(actual, kind: kind)?.fileExtension == wanted
        } ?? candidates[0]
        guard let staged = files[path] else { return nil }
        // Its bytes are what they are: stored under their own SHA-256, the mismatch reported.
        // The file's own extension names its container (an `aac` memo is an `.m4a` file).
        guard var format = types[path] ?? DayOne.fileType(fileExtension(path), kind: kind) ?? type.flatMap({ DayOne.fileType($0, kind: kind) })
        else {
            if !findings.leftOut.contains(path) { findings.leftOut.append(path) }
            return nil
        }
        if staged.md5 != md5 && !findings.mismatched.contains(path) { findings.mismatched.append(path) }
        // A photo or video is what its bytes say, not its entry: a PDF listed as a photo is kept
        // as a file (never as a JPEG no viewer opens), a PNG listed as a JPEG as a PNG.
        var kind = kind
        if kind == .photo || kind == .video, let actual = SniffedType.of(path: staged.url.path),
           actual.kind != kind || actual.mime != format.mime {
            kind = actual.kind
            format = (actual.mime, actual.fileExtension)
        }
        types[path] = format
        let item = MediaItem(kind: kind, sha256: staged.sha256, mime: format.mime, fileExtension: format.fileExtension,
                             bytes: staged.bytes, width: width, height: height,
                             durationSeconds: duration.flatMap { $0 > 0 ? $0 : nil }, takenAt: takenAt)
        placed[ArchiveLayout.mediaPath(item)] = staged

        // A media id belongs to one entry: an identifier seen before (in another entry) is
        // made this entry's own, still the same on every import.
        var id = DayOne.identifier(identifier ?? "\(entryUUID)/\(md5)")
        if !mediaIds.insert(id).inserted {
            id = DayOne.identifier("\(entryUUID)/\(identifier ?? md5)")
            guard mediaIds.insert(id).inserted else { return nil }
        }
        return EntryRecord.Media(id: id, position: 0, clock: clock, item: item)
    }
}

/// Reads typed, mostly optional fields of one JSON object; a present field of the wrong type
/// is an error that names it (`entries[3].photos[0].width`).
private struct Fields {
    let json: JSON
    let name: String
    let member: String

    init(_ json: JSON, name: String, member: String) throws {
        guard case .object = json else { throw ArchiveError.invalidRecord(member: member, line: 1, field: name) }
        self.json = json
        self.name = name
        self.member = member
    }

    func fail(_ key: String) -> ArchiveError { .invalidRecord(member: member, line: 1, field: "\(name).\(key)") }

    /// The value, when present and not null.
    private func value(_ key: String) -> JSON? {
        guard let value = json[key], value != .null else { return nil }
        return value
    }

    /// Text, never with a NUL byte (the store would cut it there).
    func string(_ key: String) throws -> String? {
        guard let value = value(key) else { return nil }
        guard let text = value.stringValue, !text.utf8.contains(0) else { throw fail(key) }
        return text
    }

    func flag(_ key: String) throws -> Bool? {
        guard let value = value(key) else { return nil }
        guard case let .bool(flag) = value else { throw fail(key) }
        return flag
    }

    func number(_ key: String) throws -> Double? {
        guard let value = value(key) else { return nil }
        guard let number = value.doubleValue, number.isFinite else { throw fail(key) }
        return number
    }

    /// A whole, non-negative number (`4032`, also written `4032.0`).
    func count(_ key: String) throws -> Int? {
        guard let number = try number(key) else { return nil }
        guard number >= 0, number == number.rounded(), number < 1e15 else { throw fail(key) }
        return Int(number)
    }

    func time(_ key: String) throws -> Date? {
        guard let text = try string(key) else { return nil }
        guard let date = Timestamps.parseRFC3339(text) else { throw fail(key) }
        return date
    }

    func object(_ key: String) throws -> Fields? {
        guard let value = value(key) else { return nil }
        return try Fields(value, name: "\(name).\(key)", member: member)
    }

    /// The items of an array; none when it is missing.
    func array(_ key: String) throws -> [JSON] {
        guard let value = value(key) else { return [] }
        guard let items = value.arrayValue else { throw fail(key) }
        return items
    }
}
