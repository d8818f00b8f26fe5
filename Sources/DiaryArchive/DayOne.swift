import Crypto
import DiaryKit
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Day One's JSON export: a zip with one or more journals at the top (`Journal.json`, or
/// one `<journal name>.json` each) and the attachments in `photos/`, `videos/`, `audios/`,
/// each named by the MD5 of its bytes and its type (`photos/<md5>.jpeg`).
///
/// ```json
/// {"metadata":{"version":"1.0"},"entries":[{"uuid":"5C1E…2A1B","creationDate":"2023-05-01T10:20:30Z",
///   "modifiedDate":"…","timeZone":"Asia/Taipei","text":"# Title\n\nBody\n\n![](dayone-moment://0A1B…)",
///   "tags":["travel"],"starred":false,"location":{"latitude":25.1,"longitude":121.7,"placeName":"…",
///   "localityName":"Keelung","administrativeArea":"…","country":"Taiwan"},"weather":{"conditionsDescription":
///   "Light Rain","temperatureCelsius":18.5,"relativeHumidity":79,"pressureMB":1011,"sunriseDate":"…",…},"photos":[{"identifier":"0A1B…","md5":"…","type":"jpeg","width":4032,
///   "height":3024,"date":"…","orderInEntry":0}],"videos":[…],"audios":[…]}]}
/// ```
///
/// An imported entry is a saved page without a chat: its first line is the title, as Day One
/// shows it, and the rest (attachment references taken out) is the page. Ids
/// and clocks come from Day One's own uuids and times, so importing the same export twice
/// changes nothing. Our export is the inverse: what it writes imports back to the same
/// titles, pages, tags, times (to the second, Day One's precision), zones, places, weather
/// and media bytes; the conversation, notes and analysis have no place in Day One's format.
package enum DayOne {
    /// A journal file at the top of the zip, or in one folder at its top (people re-zip an
    /// unpacked export as `Export/Journal.json`).
    static func isJournal(_ path: String) -> Bool {
        path.split(separator: "/").count <= 2 && !isClutter(path) && path.lowercased().hasSuffix(".json")
    }
    /// A photo, video or audio file of the export, beside its journal.
    static func isMediaFile(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        return (2...3).contains(parts.count) && !isClutter(path) && ["photos", "videos", "audios", "pdfs"].contains(String(parts[parts.count - 2]))
    }
    /// What a Mac adds when it zips a folder (`__MACOSX/`, `._Journal.json`, `.DS_Store`).
    private static func isClutter(_ path: String) -> Bool {
        path.split(separator: "/").contains { $0 == "__MACOSX" || $0.hasPrefix(".") }
    }

    // Day One's weather readings and our names for them (its units are ours: %, hPa, km/h, °, km).
    static let weatherNumbers: [(String, WritableKeyPath<WeatherDetails, Double?> & Sendable)] = [
        ("relativeHumidity", \.humidityPercent), ("pressureMB", \.pressureHPa), ("windSpeedKPH", \.windKPH),
        ("windBearing", \.windBearing), ("windChillCelsius", \.windChillC), ("visibilityKM", \.visibilityKM), ("moonPhase", \.moonPhase),
    ]
    static let weatherTimes: [(String, WritableKeyPath<WeatherDetails, Date?> & Sendable)] = [("sunriseDate", \.sunrise), ("sunsetDate", \.sunset)]
    static let weatherTexts: [(String, WritableKeyPath<WeatherDetails, String?> & Sendable)] = [("weatherCode", \.code), ("weatherServiceName", \.service)]

    /// The device every imported row is stamped with: its clock is Day One's modification time.
    package static let device = "dayone"
    /// The journal's member name when our own export writes one.
    static let journalName = "Journal.json"

    /// The journal a member holds (`Export/Travel.json` holds Travel); nil for Day One's
    /// default, `Journal.json`, which is where the diary's own pages go.
    static func journalName(_ member: String) -> String? {
        var name = String(member.split(separator: "/").last ?? "")
        if name.lowercased().hasSuffix(".json") { name.removeLast(5) }
        return name.isEmpty || name == "Journal" ? nil : name
    }

    /// The member a journal is written to: its name made safe for a file name.
    static func journalMember(_ journal: String?) -> String {
        guard let journal else { return journalName }
        var name = String(journal.map { $0 == "/" || $0 == "\\" || $0.isNewline || $0.unicodeScalars.first!.properties.generalCategory == .control ? "-" : $0 })
        while name.hasPrefix(".") { name.removeFirst() }
        name = String(name.prefix(100)).trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? journalName : "\(name).json"
    }

    // MARK: Import

    /// The entries of one journal (`member` names it in errors). The staged attachments the
    /// entries use are also entered in `files` under their content-addressed archive path
    /// (`media/<sha256>.<ext>`), where the importer looks for them.
    static func records(journal: [UInt8], files: inout [String: StagedFile], member: String = journalName) throws -> [EntryRecord] {
        var findings = Findings()
        return try records(journals: [(member, journal)], files: &files, findings: &findings)
    }

    /// What an import should tell the person about the export's attachments.
    struct Findings: Equatable {
        /// Kept although their bytes are not the MD5 their name gives (Day One exports carry
        /// such files); each under its real SHA-256 rather than costing every entry.
        var mismatched: [String] = []
        /// Attachments of a type the diary cannot keep (a photo list's RAW or PDF file), as
        /// the export names them: left out, never silently.
        var leftOut: [String] = []
        /// Entries whose uuid differs from an earlier one's only in case (Day One writes them
        /// in capitals; a hand-made export may not): each kept as a page of its own under an
        /// id made from its uuid as written, and named, rather than merged into the other.
        var caseTwins: [String] = []
    }

    /// The entries of every journal of the export, in order; an entry found twice is taken once.
    static func records(journals: [(path: String, bytes: [UInt8])], files: inout [String: StagedFile],
                        findings: inout Findings) throws -> [EntryRecord] {
        var reader = JournalReader(files: files, now: Date())
        defer { findings = reader.findings }
        var records: [EntryRecord] = []
        var seen: Set<String> = []
        for journal in journals {
            for record in try reader.read(journal.bytes, member: journal.path) where seen.insert(record.id).inserted {
                records.append(record)
            }
        }
        for (path, staged) in reader.placed { files[path] = staged }
        return records
    }

    /// Our id for a Day One identifier: its 32 hex digits, lowercased and dashed 8-4-4-4-12;
    /// anything else (never seen from Day One itself) is hashed into the same shape, so the
    /// same identifier always gives the same id.
    static func identifier(_ raw: String) -> String {
        let hex = raw.lowercased().replacingOccurrences(of: "-", with: "")
        guard hex.utf8.count == 32 && hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return ArchiveLayout.derivedId("dayone:\(raw)")
        }
        return ArchiveLayout.dashed(hex)
    }

    /// Day One's identifier for one of our ids: 32 uppercase hex digits.
    static func dayOneIdentifier(_ id: String) -> String { id.replacingOccurrences(of: "-", with: "").uppercased() }

    /// The MIME type and stored extension for a Day One attachment type of a kind; nil for a
    /// type we do not keep (PDFs, sketches in odd formats, …).
    static func fileType(_ type: String, kind: MediaKind) -> (mime: String, fileExtension: String)? {
        switch (kind, type.lowercased()) {
        case (.photo, "jpeg"), (.photo, "jpg"): return ("image/jpeg", "jpg")
        case (.photo, "png"): return ("image/png", "png")
        case (.photo, "heic"): return ("image/heic", "heic")
        case (.photo, "heif"): return ("image/heif", "heif")
        case (.photo, "gif"): return ("image/gif", "gif")
        case (.photo, "webp"): return ("image/webp", "webp")
        case (.photo, "tiff"), (.photo, "tif"): return ("image/tiff", "tiff")
        case (.video, "mp4"): return ("video/mp4", "mp4")
        case (.video, "mov"), (.video, "quicktime"): return ("video/quicktime", "mov")
        case (.video, "m4v"): return ("video/x-m4v", "m4v")
        case (.video, "webm"): return ("video/webm", "webm")
        case (.audio, "m4a"): return ("audio/mp4", "m4a")
        case (.audio, "aac"): return ("audio/aac", "aac")
        case (.audio, "mp3"): return ("audio/mpeg", "mp3")
        case (.audio, "wav"): return ("audio/wav", "wav")
        case (.audio, "caf"): return ("audio/x-caf", "caf")
        case (.audio, "ogg"): return ("audio/ogg", "ogg")
        case (.audio, "flac"): return ("audio/flac", "flac")
        case (.audio, "webm"): return ("audio/webm", "webm")
        case (.file, "pdf"): return ("application/pdf", "pdf")
        default: return nil
        }
    }

    /// The type Day One gives a stored extension (it says `jpeg` where we say `jpg`).
    static func dayOneType(_ fileExtension: String) -> String { fileExtension == "jpg" ? "jpeg" : fileExtension }

    /// The export folder of a kind of attachment.
    package static func folder(_ kind: MediaKind) -> String {
        switch kind {
        case .photo: return "photos"
        case .video: return "videos"
        case .audio: return "audios"
        case .file: return "pdfs"
        }
    }

    /// The key of an entry's list of attachments of a kind.
    static func entryKey(_ kind: MediaKind) -> String { kind == .file ? "pdfAttachments" : folder(kind) }

    /// The longest first line taken as a title without a heading mark: longer, it is a
    /// paragraph (Day One shows any first line as the title; a page of one long paragraph
    /// would otherwise be all title and no page).
    static let longestPlainTitle = 100

    /// Splits an entry's Markdown into our title and page. The first line with words is the
    /// title, as Day One shows it (its heading marks, `# …`, taken off), when it is a heading
    /// or at most `longestPlainTitle` characters, and the rest is the page. References to attachments (`![](dayone-moment://…)`) are taken out, with the
    /// blank lines they leave, and Markdown's backslash escapes, which Day One writes
    /// generously (`Hello\.`), are undone. Where each reference stood is its anchor (how
    /// many lines of title and page come before it, by its identifier in uppercase); one
    /// that follows all the text has none, like a photo recorded with a page.
    package static func page(from text: String) -> (title: String?, summary: String?, anchors: [String: Int]) {
        var lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
            .map { line -> (text: Substring, wasReference: Bool, references: [String]) in
                guard line.contains("dayone-moment:") else { return (line, false, []) }
                let references = line.matches(of: momentReference).map { momentIdentifier($0.output) }
                let stripped = Substring(line.replacing(momentReference, with: ""))
                return (stripped, stripped.allSatisfy(\.isWhitespace), references)
            }
        var title: String?
        // Lines of the text before a reference: 0 before the title, 1 just after it.
        var before: [(identifier: String, titleLines: Int, pageLines: Int)] = []
        // A first line is a title when it reads as one: a heading, or a line short enough to
        // be one. A long first paragraph stays the page's text, and the page has no title.
        if let first = lines.firstIndex(where: { !$0.text.allSatisfy(\.isWhitespace) }),
           case let line = lines[first].text,
           case let text = unescape(String(headingText(line) ?? line)).trimmingCharacters(in: .whitespaces),
           headingText(line) != nil || text.count <= longestPlainTitle {
            title = text.isEmpty ? nil : text
            before += lines[..<first].flatMap(\.references).map { ($0, 0, 0) }
            before += lines[first].references.map { ($0, title == nil ? 0 : 1, 0) }
            lines.removeSubrange(...first)
        }
        // A line that held only references goes, and so does a blank line it leaves next to another.
        var kept: [Substring] = []
        var removedSinceKept = false
        let titleLines = title == nil ? 0 : 1
        func pageLines() -> Int {
            let last = kept.lastIndex { !$0.allSatisfy(\.isWhitespace) }
            return last.map { $0 + 1 } ?? 0
        }
        for line in lines {
            if line.wasReference {
                before += line.references.map { ($0, titleLines, pageLines()) }
                removedSinceKept = true
                continue
            }
            let blank = line.text.allSatisfy(\.isWhitespace)
            if blank, removedSinceKept, kept.last.map({ $0.allSatisfy(\.isWhitespace) }) ?? true { continue }
            kept.append(line.text)
            removedSinceKept = false
            before += line.references.map { ($0, titleLines, pageLines()) }
        }
        let summary = unescape(kept.joined(separator: "\n")).trimmingCharacters(in: .whitespacesAndNewlines)
        // The page loses its leading blank lines; counts made before that lose them too.
        let leading = kept.prefix { $0.allSatisfy(\.isWhitespace) }.count
        let total = titleLines + max(0, pageLines() - leading)
        var anchors: [String: Int] = [:]
        for reference in before where anchors[reference.identifier] == nil {
            let anchor = reference.titleLines + max(0, reference.pageLines - leading)
            if anchor < total { anchors[reference.identifier] = anchor }
        }
        return (title, summary.isEmpty ? nil : summary, anchors)
    }

    /// Day One's Markdown for a page: `# title`, a blank line, the page, with each reference
    /// to an attachment where its anchor puts it (a paragraph of its own between paragraphs,
    /// its own line inside one) or, without one, at the end. `page(from:)` reads it back to
    /// the same title, page and anchors.
    package static func text(title: String?, summary: String?, references: [(reference: String, anchor: Int?)]) -> String {
        var lines: [String] = []
        let oneLine = title.map { $0.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces) }
        if let oneLine, !oneLine.isEmpty {
            lines.append("# \(escape(oneLine))")
        }
        let titled = !lines.isEmpty
        if var body = summary.map(escape), !body.isEmpty {
            // Without a title, Day One shows (and an import takes) the first line as one: a
            // line that begins like a heading keeps its `#` there.
            if !titled, let first = body.split(separator: "\n").first(where: { !$0.allSatisfy(\.isWhitespace) }),
               headingText(first) != nil, let hash = body.firstIndex(of: "#") {
                body.insert("\\", at: hash)
            }
            lines += body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        var placed: [Int: [String]] = [:]
        for reference in references {
            placed[min(max(reference.anchor ?? lines.count, 0), lines.count), default: []].append(reference.reference)
        }
        func isBlank(_ line: String?) -> Bool { line?.allSatisfy(\.isWhitespace) ?? true }
        var out: [String] = []
        for index in 0...lines.count {
            if let group = placed[index] {
                let next = index < lines.count ? lines[index] : nil
                let insideParagraph = !isBlank(out.last) && !isBlank(next) && !(titled && index == 1)
                if !insideParagraph && !isBlank(out.last) { out.append("") }
                out += group
                if !insideParagraph && !isBlank(next) { out.append("") }
            }
            guard index < lines.count else { break }
            // The title stands apart from the page.
            if titled && index == 1 && !isBlank(out.last) { out.append("") }
            out.append(lines[index])
        }
        return out.joined(separator: "\n")
    }

    /// The identifier a reference names, in uppercase (`…://0A1B` and `…:/video/0A1B` both `0A1B`).
    private static func momentIdentifier(_ reference: Substring) -> String {
        let target = reference.drop { $0 != "(" }.dropFirst().dropLast()
        return String(target.split(separator: "/").last ?? "").uppercased()
    }

    /// `![](dayone-moment://ID)`, `![](dayone-moment:/video/ID)`, …
    nonisolated(unsafe) private static let momentReference = /!\[[^\]\n]*\]\(dayone-moment:[^)\n]*\)/

    /// The text of an ATX heading line (`#` to `######`, then a space), or nil.
    private static func headingText(_ line: Substring) -> Substring? {
        let rest = line.drop { $0 == " " }
        guard line.count - rest.count <= 3 else { return nil }
        let hashes = rest.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes) else { return nil }
        let text = rest.dropFirst(hashes)
        guard text.isEmpty || text.first == " " || text.first == "\t" else { return nil }
        return text
    }

    /// ASCII punctuation, the characters Markdown lets a backslash escape.
    private static let punctuation = Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".unicodeScalars)

    /// Markdown's backslash escapes undone: `\.` is `.`; a backslash before anything else stays.
    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if scalars[index] == "\\", index + 1 < scalars.count, punctuation.contains(scalars[index + 1]) {
                out.append(scalars[index + 1])
                index += 2
            } else {
                out.append(scalars[index])
                index += 1
            }
        }
        return String(out)
    }

    /// The inverse of `unescape`: only a backslash that would escape something is doubled.
    static func escape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            out.append(scalar)
            if scalar == "\\", index + 1 < scalars.count, punctuation.contains(scalars[index + 1]) { out.append("\\") }
        }
        return String(out)
    }

    // MARK: Export

    /// Streams the live entries among `records` to `descriptor` as a Day One zip:
    /// `Journal.json`, then each attachment whose file is on this device, once, under
    /// `photos/`, `videos/` or `audios/` named by its MD5. Returns how many entries and
    /// attachment files it wrote, and the zip's size. Attachments whose file is missing are
    /// left out of the journal too.
    @discardableResult
    package static func write(records: [EntryRecord], paths: DiaryPaths, to descriptor: Int32) throws
        -> (entries: Int, media: Int, bytes: Int64) {
        try write(batches: { try $0(records) }, paths: paths, to: descriptor)
    }

    /// The same, for records that come in batches (`batches` hands each to its argument):
    /// the journal is spooled to an unlinked file, so memory stays flat however many there are.
    package static func write(batches: (([EntryRecord]) throws -> Void) throws -> Void, paths: DiaryPaths, to descriptor: Int32) throws
        -> (entries: Int, media: Int, bytes: Int64) {
        let now = Date()
        var digests: [String: String?] = [:]
        var files: [(member: String, file: URL, sha256: String)] = []
        var members: Set<String> = []
        // One journal per journal the pages came from, in the order first met, each spooled.
        // One entry a line: still one JSON document, but one that `less` and `grep` can read.
        var journals: [(member: String, spool: Spool, entries: Int)] = []
        var journalIndex: [String?: Int] = [:]
        func journal(_ name: String?) throws -> Int {
            if let index = journalIndex[name] { return index }
            var member = journalMember(name)
            var suffix = 2
            while journals.contains(where: { $0.member.lowercased() == member.lowercased() }) {
                member = "\(member.dropLast(5)) \(suffix).json"
                suffix += 1
            }
            let spool = try Spool(in: paths.home)
            try spool.append(Array("{\"metadata\":{\"version\":\"1.0\"},\"entries\":[\n".utf8))
            journals.append((member, spool, 0))
            journalIndex[name] = journals.count - 1
            return journals.count - 1
        }
        var count = 0
        try batches { records in for record in records where !record.isHidden {
            var attachments: [MediaKind: [JSON]] = [:]
            var references: [(reference: String, anchor: Int?)] = []
            var order = 0
            for media in record.liveMedia {
                let item = media.item
                let file = paths.media.appendingPathComponent(item.relativePath)
                let md5: String
                if let known = digests[item.relativePath] {
                    guard let known else { continue }
                    md5 = known
                } else {
                    let computed = try md5Digest(of: file)
                    digests[item.relativePath] = computed
                    guard let computed else { continue }
                    md5 = computed
                }
                let type = dayOneType(item.fileExtension)
                let member = "\(folder(item.kind))/\(md5).\(type)"
                if members.insert(member).inserted { files.append((member, file, item.sha256)) }
                let identifier = dayOneIdentifier(media.id)
                var pairs: [(String, JSON)] = [
                    ("identifier", .string(identifier)),
                    ("md5", .string(md5)),
                    // Day One names a voice memo's codec, `format`, where others have `type`.
                    item.kind == .audio ? ("format", .string(item.fileExtension == "m4a" ? "aac" : type)) : ("type", .string(type)),
                    ("orderInEntry", .int(Int64(order))),
                    ("fileSize", .int(item.bytes)),
                ]
                if let width = item.width { pairs.append(("width", .int(Int64(width)))) }
                if let height = item.height { pairs.append(("height", .int(Int64(height)))) }
                if let duration = item.durationSeconds { pairs.append(("duration", .double(duration))) }
                if let takenAt = item.takenAt { pairs.append(("date", .string(time(takenAt)))) }
                attachments[item.kind, default: []].append(.object(pairs))
                switch item.kind {
                case .photo: references.append(("![](dayone-moment://\(identifier))", media.anchor))
                case .video: references.append(("![](dayone-moment:/video/\(identifier))", media.anchor))
                case .audio: references.append(("![](dayone-moment:/audio/\(identifier))", media.anchor))
                case .file: break  // listed with the entry, not shown in its text
                }
                order += 1
            }

            var pairs: [(String, JSON)] = [
                ("uuid", .string(dayOneIdentifier(record.id))),
                ("creationDate", .string(time(record.occurredAt))),
                ("modifiedDate", .string(time(record.updatedAt))),
                ("timeZone", .string(record.timeZone)),
                ("starred", .bool(record.starred)),
                ("creationDevice", .string("InnerBloom Diary")),
                ("text", .string(text(title: record.title, summary: record.summary ?? record.note, references: references))),
                ("tags", .array(record.writtenTags.map(JSON.string))),
            ]
            let context = record.context
            var location: [(String, JSON)] = []
            if let latitude = context.latitude { location.append(("latitude", .double(latitude))) }
            if let longitude = context.longitude { location.append(("longitude", .double(longitude))) }
            if let place = context.place { location.append(("placeName", .string(place))) }
            if let locality = context.locality { location.append(("localityName", .string(locality))) }
            if let region = context.region { location.append(("administrativeArea", .string(region))) }
            if let country = context.country { location.append(("country", .string(country))) }
            if !location.isEmpty { pairs.append(("location", .object(location))) }
            var weather: [(String, JSON)] = []
            if let description = context.weatherDescription { weather.append(("conditionsDescription", .string(description))) }
            if let temperature = context.temperatureC { weather.append(("temperatureCelsius", .double(temperature))) }
            for (key, path) in weatherNumbers { if let value = context.weather[keyPath: path] { weather.append((key, .double(value))) } }
            for (key, path) in weatherTimes { if let value = context.weather[keyPath: path] { weather.append((key, .string(time(value)))) } }
            for (key, path) in weatherTexts { if let value = context.weather[keyPath: path] { weather.append((key, .string(value))) } }
            if !weather.isEmpty { pairs.append(("weather", .object(weather))) }
            for kind in [MediaKind.photo, .video, .audio, .file] {
                if let list = attachments[kind] { pairs.append((entryKey(kind), .array(list))) }
            }
            let index = try journal(record.journal)
            try journals[index].spool.append(Array(((journals[index].entries == 0 ? "" : ",\n") + JSON.object(pairs).serialized).utf8))
            journals[index].entries += 1
            count += 1
        } }
        if journals.isEmpty { _ = try journal(nil) }

        let writer = try ArchiveWriter(format: .zip, fileDescriptor: descriptor)
        for journal in journals {
            try journal.spool.append(Array("\n]}\n".utf8))
            try journal.spool.copy(0..<journal.spool.size, as: journal.member, into: writer, modified: now, advance: { _ in })
        }
        for file in files {
            let added = try writer.add(path: file.member, file: file.file, modified: now)
            guard added.sha256 == file.sha256 else { throw ArchiveError.mediaCorrupt(path: file.file.path) }
        }
        try writer.finish()
        return (count, files.count, writer.bytesWritten)
    }

    /// Day One's time form: UTC to the second, `2023-05-01T10:20:30Z`.
    static func time(_ date: Date) -> String {
        String(Timestamps.rfc3339(date, zone: TimeZone(identifier: "UTC")!).dropLast(6)) + "Z"
    }

    /// The MD5 (lowercase hex) of the file's bytes, read in blocks; nil when it is not there.
    private static func md5Digest(of file: URL) throws -> String? {
        var info = stat()
        guard stat(file.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ArchiveError.cannotRead(path: file.path) }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = Insecure.MD5()
        while true {
            let got = FileIO.read(descriptor, into: buffer)
            guard got >= 0 else { throw ArchiveError.cannotRead(path: file.path) }
            if got == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
        }
        return Hex.string(hasher.finalize())
    }
}
