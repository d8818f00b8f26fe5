import DiaryKit
import Foundation

/// What an HTML export wrote.
package struct SiteSummary: Sendable, Equatable {
    /// Entry pages written (one per live entry; the index and the tag pages are not counted).
    package var pages: Int
    /// Media files and thumbnails copied into the site.
    package var mediaFiles: Int

    package init(pages: Int, mediaFiles: Int) {
        self.pages = pages
        self.mediaFiles = mediaFiles
    }
}

/// A small static diary a browser opens from disk, with no server, scripts, fonts or
/// anything fetched from elsewhere:
///
/// ```
/// index.html                     title, tag tiles, a calendar per month, every entry newest first
/// tags/<name>.html               the entries carrying one tag (a tile's link)
/// entries/YYYY-MM-DD-<id8>.html  one entry: facts, media, page, note, the conversation folded
/// media/<sha256>.<ext>           the photos, videos and voice memos shown (copies)
/// thumbs/<sha256>.jpg            their thumbnails (copies)
/// ```
package enum HTMLSite {
    /// Writes index.html, one page per entry under entries/, and the media and thumbnails
    /// they show under media/ and thumbs/ (copied, not linked), into `folder` (created if
    /// needed; must be empty or absent — else throw ArchiveError.cannotCreate(path:)).
    package static func write(records: [EntryRecord], paths: DiaryPaths, to folder: URL, language: Language, now: Date) throws -> SiteSummary {
        try prepare(folder)
        let entries = records.filter { !$0.isHidden }.sorted { lhs, rhs in
            lhs.occurredAt != rhs.occurredAt ? lhs.occurredAt > rhs.occurredAt : lhs.id > rhs.id
        }
        var site = Site(folder: folder, paths: paths, words: Words(language), now: now)
        site.entries = entries.map { record in
            SiteEntry(record: record, day: Timestamps.localDate(record.occurredAt, zone: record.zone), file: "")
        }
        site.nameEntryFiles()
        try site.copyMedia()
        site.tiles = tagTiles(entries)
        site.nameTagFiles()

        try site.makeFolder("entries")
        for index in site.entries.indices {
            try site.save(site.entryPage(index), as: "entries/\(site.entries[index].file)")
        }
        if !site.tiles.isEmpty { try site.makeFolder("tags") }
        for tile in site.tiles {
            try site.save(site.tagPage(tile), as: "tags/\(tile.file)")
        }
        try site.save(site.indexPage(), as: "index.html")
        return SiteSummary(pages: site.entries.count, mediaFiles: site.copied.count)
    }

    /// Creates the folder, or accepts an existing empty one; anything else is refused.
    private static func prepare(_ folder: URL) throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, let contents = try? manager.contentsOfDirectory(atPath: folder.path), contents.isEmpty else {
                throw ArchiveError.cannotCreate(path: folder.path)
            }
            return
        }
        do {
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ArchiveError.cannotCreate(path: folder.path)
        }
    }

    // MARK: - Tags

    /// One tag tile: a tag in use and how many entries carry it.
    struct Tile {
        var name: String
        var count: Int
        /// Its page's file name inside `tags/`.
        var file = ""
    }

    /// The tags of these entries, most recently used first (then by count and name), as
    /// `diary-find --tags` lists them after 全部.
    static func tagTiles(_ entries: [EntryRecord]) -> [Tile] {
        var byName: [String: TagUse] = [:]
        for record in entries {
            var seen = Set<String>()
            for link in record.tagLinks where link.clock.deletedAt == nil && seen.insert(link.name).inserted {
                var use = byName[link.name] ?? TagUse(name: link.name, count: 0, lastUsedAt: link.createdAt)
                use.count += 1
                use.lastUsedAt = max(use.lastUsedAt ?? link.createdAt, link.createdAt)
                byName[link.name] = use
            }
        }
        return byName.values.sorted(by: TagUse.mostRecentFirst).map { Tile(name: $0.name, count: $0.count) }
    }

    // MARK: - Text

    /// Text for an HTML text node or a quoted attribute value.
    static func escape(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\0": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A file name as a relative URL path segment: ASCII other than letters, digits and
    /// `-._~` is percent-encoded; other characters stay as they are (the browser encodes them).
    static func urlSegment(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            if scalar.isASCII {
                let value = scalar.value
                let plain = (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
                    || scalar == "-" || scalar == "." || scalar == "_" || scalar == "~"
                if plain {
                    out.unicodeScalars.append(scalar)
                } else {
                    out += "%" + (value < 16 ? "0" : "") + String(value, radix: 16, uppercase: true)
                }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Paragraphs at blank lines; single line breaks kept inside a paragraph.
    static func paragraphs(_ text: String) -> String {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var blocks: [[Substring]] = [[]]
        for line in normalized.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) {
                if !(blocks.last?.isEmpty ?? true) { blocks.append([]) }
            } else {
                blocks[blocks.count - 1].append(line)
            }
        }
        return blocks.filter { !$0.isEmpty }
            .map { "<p>" + $0.map { escape(String($0)) }.joined(separator: "<br>\n") + "</p>" }
            .joined(separator: "\n")
    }

    /// The first line with something on it, cut to `limit` characters.
    static func firstLine(_ text: String?, limit: Int = 120) -> String? {
        guard let text else { return nil }
        let line = text.split(whereSeparator: \.isNewline).lazy
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty }
        guard let line else { return nil }
        return line.count > limit ? String(line.prefix(limit)) + "…" : line
    }
}

extension HTMLSite {
    struct SiteEntry {
        var record: EntryRecord
        /// `YYYY-MM-DD` in the entry's zone.
        var day: String
        /// The page's file name inside `entries/`.
        var file: String
    }

    /// The site being written: its entries newest first, its tiles, and the files copied so far.
    struct Site {
        let folder: URL
        let paths: DiaryPaths
        let words: Words
        let now: Date
        var entries: [SiteEntry] = []
        var tiles: [Tile] = []
        /// Site-relative paths of the media and thumbnails copied (`media/….jpg`, `thumbs/….jpg`).
        var copied = Set<String>()

        /// Browser formats for photos; others (HEIC, RAW…) show their thumbnail with a link to the original.
        static let displayableImages: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/bmp"]

        // MARK: Files

        /// `YYYY-MM-DD-<id8>.html`; when two entries of a day share those 8 digits (ids made
        /// within the same minute), both take their whole id instead.
        mutating func nameEntryFiles() {
            func hex(_ id: String) -> String { String(id.lowercased().filter { $0.isASCII && $0.isHexDigit }) }
            let short = entries.map { "\($0.day)-\(hex($0.record.id).prefix(8))" }
            var uses: [String: Int] = [:]
            for name in short { uses[name, default: 0] += 1 }
            var taken = Set<String>()
            for index in entries.indices {
                var stem = uses[short[index]]! > 1 ? "\(entries[index].day)-\(hex(entries[index].record.id))" : short[index]
                if hex(entries[index].record.id).isEmpty { stem = "\(entries[index].day)-\(index + 1)" }
                var name = stem
                var suffix = 2
                while !taken.insert(name).inserted {
                    name = "\(stem)-\(suffix)"
                    suffix += 1
                }
                entries[index].file = name + ".html"
            }
        }

        /// `<tag>.html` when the name is safe as a file name, else `tag-N.html`.
        mutating func nameTagFiles() {
            func safe(_ name: String) -> Bool {
                !name.isEmpty && !name.hasPrefix(".") && name.utf8.count <= 200
                    && !name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.properties.generalCategory == .control }
            }
            var taken = Set<String>()
            for index in tiles.indices where safe(tiles[index].name) && taken.insert(tiles[index].name.lowercased()).inserted {
                tiles[index].file = tiles[index].name + ".html"
            }
            var counter = 1
            for index in tiles.indices where tiles[index].file.isEmpty {
                while !taken.insert("tag-\(counter)").inserted { counter += 1 }
                tiles[index].file = "tag-\(counter).html"
            }
        }

        func makeFolder(_ name: String) throws {
            let url = folder.appendingPathComponent(name)
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw ArchiveError.cannotCreate(path: url.path)
            }
        }

        func save(_ html: String, as relativePath: String) throws {
            let url = folder.appendingPathComponent(relativePath)
            do {
                try Data(html.utf8).write(to: url)
            } catch {
                throw ArchiveError.cannotCreate(path: url.path)
            }
        }

        /// Copies every media file and thumbnail the pages show that is present on disk, once each.
        mutating func copyMedia() throws {
            for entry in entries {
                for media in entry.record.liveMedia {
                    let item = media.item
                    guard RecordCoding.isDigest(item.sha256), RecordCoding.isFileExtension(item.fileExtension) else { continue }
                    let target = ArchiveLayout.mediaPath(item)
                    if !copied.contains(target), try copy(paths.media.appendingPathComponent(item.relativePath), to: target) {
                        copied.insert(target)
                    }
                    if let thumbnail = item.thumbnail, RecordCoding.isDigest(thumbnail), let source = item.thumbnailPath {
                        let target = ArchiveLayout.thumbnailPath(thumbnail)
                        if !copied.contains(target), try copy(paths.thumbnails.appendingPathComponent(source), to: target) {
                            copied.insert(target)
                        }
                    }
                }
            }
        }

        /// Streams one file into the site in 1 MiB pieces (videos can be gigabytes); false when
        /// the source is not a readable regular file.
        private func copy(_ source: URL, to relativePath: String) throws -> Bool {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: source.path),
                  attributes[.type] as? FileAttributeType == .typeRegular,
                  let input = try? FileHandle(forReadingFrom: source) else { return false }
            defer { try? input.close() }
            let target = folder.appendingPathComponent(relativePath)
            try makeFolder((relativePath as NSString).deletingLastPathComponent)
            guard FileManager.default.createFile(atPath: target.path, contents: nil),
                  let output = try? FileHandle(forWritingTo: target) else {
                throw ArchiveError.cannotCreate(path: target.path)
            }
            defer { try? output.close() }
            do {
                while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                    try output.write(contentsOf: chunk)
                }
                try output.synchronize()
            } catch {
                throw ArchiveError.writeFailed("\(target.path): \(error.localizedDescription)")
            }
            return true
        }

        /// The thumbnail copied for an entry's first photo or video, site-relative.
        func thumbnail(of record: EntryRecord) -> String? {
            let media = record.liveMedia.map(\.item)
            for item in media where item.kind.isPicture {
                if let sha = item.thumbnail, copied.contains(ArchiveLayout.thumbnailPath(sha)) {
                    return ArchiveLayout.thumbnailPath(sha)
                }
            }
            return nil
        }

        // MARK: Pages

        /// The page frame: language, charset, viewport, the inline style.
        func document(title: String, body: String) -> String {
            """
            <!DOCTYPE html>
            <html lang="\(words.language.rawValue)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <meta name="referrer" content="no-referrer">
            <meta name="generator" content="InnerBloom Diary \(HTMLSite.escape(DiaryVersion.current))">
            <title>\(HTMLSite.escape(title))</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            \(body)
            </body>
            </html>

            """
        }

        func title(of record: EntryRecord) -> String {
            record.title.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 } ?? words.untitled
        }

        /// The tiles: 全部 with the total first, then each tag with its count; `prefix` leads
        /// back to the site's root, `current` is the tile of the page showing.
        func tilesHTML(prefix: String, current: String?) -> String {
            var links = [tileLink(href: prefix + "index.html", name: words.all, count: entries.count, current: current == nil, all: true)]
            for tile in tiles {
                links.append(tileLink(href: prefix + "tags/" + HTMLSite.urlSegment(tile.file), name: tile.name, count: tile.count,
                                      current: current == tile.name, all: false))
            }
            return "<nav class=\"tiles\" aria-label=\"\(HTMLSite.escape(words.tagsLabel))\">\n" + links.joined(separator: "\n") + "\n</nav>"
        }

        private func tileLink(href: String, name: String, count: Int, current: Bool, all: Bool) -> String {
            "<a class=\"tile\(all ? " all" : "")\" href=\"\(HTMLSite.escape(href))\"\(current ? " aria-current=\"page\"" : "")>"
                + "<span class=\"name\">\(HTMLSite.escape(name))</span> <span class=\"count\">\(count)</span></a>"
        }

        /// The star before a starred page's title, named for screen readers.
        var starMark: String { "<span class=\"star\" role=\"img\" aria-label=\"\(HTMLSite.escape(words.starred))\">★</span> " }

        /// The list of entries, newest first; the first of each day carries the day's anchor.
        func listHTML(_ indices: [Int], prefix: String, anchors: Bool) -> String {
            guard !indices.isEmpty else { return "<p class=\"empty\">\(HTMLSite.escape(words.emptyDiary))</p>" }
            var seenDays = Set<String>()
            var items: [String] = []
            for index in indices {
                let entry = entries[index]
                let record = entry.record
                let anchor = anchors && seenDays.insert(entry.day).inserted ? " id=\"day-\(entry.day)\"" : ""
                var item = "<li\(anchor)><a class=\"card\" href=\"\(HTMLSite.escape(prefix + "entries/" + HTMLSite.urlSegment(entry.file)))\">"
                if let thumb = thumbnail(of: record) {
                    item += "<img class=\"thumb\" src=\"\(HTMLSite.escape(prefix + thumb))\" alt=\"\" loading=\"lazy\">"
                }
                item += "<span class=\"text\">"
                item += "<time datetime=\"\(Timestamps.rfc3339(record.occurredAt, zone: record.zone))\">"
                    + HTMLSite.escape(Timestamps.readable(record.occurredAt, zone: record.zone)) + "</time>"
                if record.status != .saved {
                    item += " <span class=\"status\">\(HTMLSite.escape(words.statusText(record.status)))</span>"
                }
                item += "<strong class=\"title\">\(record.starred ? starMark : "")\(HTMLSite.escape(title(of: record)))</strong>"
                if let line = HTMLSite.firstLine(record.summary) ?? HTMLSite.firstLine(record.note) ?? HTMLSite.firstLine(record.transcript) {
                    item += "<span class=\"first\">\(HTMLSite.escape(line))</span>"
                }
                item += "</span></a></li>"
                items.append(item)
            }
            return "<ol class=\"entries\">\n" + items.joined(separator: "\n") + "\n</ol>"
        }

        /// One table per month that has entries, newest month first, weeks starting on Monday;
        /// a day with one entry links to its page, a day with more to its place in the list.
        func calendarsHTML() -> String {
            var byDay: [String: [Int]] = [:]
            for (index, entry) in entries.enumerated() { byDay[entry.day, default: []].append(index) }
            let months = Set(byDay.keys.compactMap { day -> String? in day.count >= 7 ? String(day.prefix(7)) : nil }).sorted(by: >)
            var tables: [String] = []
            for month in months {
                guard let grid = MonthGrid(month) else { continue }
                let (year, number, length, lead) = (grid.year, grid.month, grid.length, grid.firstWeekday)
                var html = "<table class=\"month\" id=\"month-\(month)\">\n<caption>\(HTMLSite.escape(words.month(year, number)))</caption>\n<thead><tr>"
                html += words.weekdays.map { "<th scope=\"col\">\(HTMLSite.escape($0))</th>" }.joined()
                html += "</tr></thead>\n<tbody>\n<tr>"
                html += String(repeating: "<td></td>", count: lead)
                for day in 1...length {
                    let name = Timestamps.day(year, number, day)
                    if let found = byDay[name] {
                        let href = found.count == 1 ? "entries/" + HTMLSite.urlSegment(entries[found[0]].file) : "#day-\(name)"
                        let label = found.count == 1 ? title(of: entries[found[0]].record) : words.entryCount(found.count)
                        html += "<td class=\"has\"><a href=\"\(HTMLSite.escape(href))\" title=\"\(HTMLSite.escape(label))\">\(day)</a>"
                            + (found.count > 1 ? "<small>\(found.count)</small>" : "") + "</td>"
                    } else {
                        html += "<td>\(day)</td>"
                    }
                    if (lead + day) % 7 == 0 && day < length { html += "</tr>\n<tr>" }
                }
                let trailing = (7 - (lead + length) % 7) % 7
                html += String(repeating: "<td></td>", count: trailing) + "</tr>\n</tbody>\n</table>"
                tables.append(html)
            }
            return tables.joined(separator: "\n")
        }

        /// Feelings over time as an SVG bar chart (a stacked bar per month, a legend below;
        /// no script, nothing fetched), or nil when no page carries a feeling tag.
        func feelingsChart() -> String? {
            let points = Finder.trend(of: entries.map { ($0.day, $0.record.tags) }, by: .month, language: words.language)
            guard points.contains(where: { $0.total > 0 }) else { return nil }
            var totals: [String: Int] = [:]
            for point in points { for (feeling, count) in point.feelings { totals[feeling, default: 0] += count } }
            let order = totals.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key)
            let palette = ["#e0a526", "#3c9fb0", "#b5525c", "#5a9e5a", "#8a63b8", "#d9772b", "#4f6fbf", "#a0a04a", "#c0608f", "#6b7b8c"]
            func colour(_ feeling: String) -> String { palette[(order.firstIndex(of: feeling) ?? 0) % palette.count] }
            let most = Double(max(1, points.map(\.total).max() ?? 1))
            let (barWidth, gap, height, labelHeight) = (18.0, 6.0, 120.0, 18.0)
            let width = Double(points.count) * (barWidth + gap) + gap
            var svg = "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 \(Int(width)) \(Int(height + labelHeight))\" "
                + "width=\"\(Int(width))\" height=\"\(Int(height + labelHeight))\">\n"
                + "<title>\(HTMLSite.escape(words.feelingsLabel))</title>\n"
            for (index, point) in points.enumerated() {
                let x = gap + Double(index) * (barWidth + gap)
                var y = height
                for (feeling, count) in point.feelings {
                    let h = Double(count) / most * (height - 4)
                    y -= h
                    svg += String(format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%@\"><title>%@</title></rect>\n",
                                  x, y, barWidth, h, colour(feeling), HTMLSite.escape("\(point.period) \(feeling) \(count)"))
                }
                // Every month is labelled when there are few; else January and the first.
                if points.count <= 12 || point.period.hasSuffix("-01") || index == 0 {
                    let label = points.count <= 12 ? String(point.period.suffix(2)) : String(point.period.prefix(4))
                    svg += String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"currentColor\">%@</text>\n",
                                  x, height + 14, label)
                }
            }
            svg += "</svg>"
            let legend = order.map { "<li><span class=\"swatch\" style=\"background:\(colour($0))\"></span>\(HTMLSite.escape($0)) \(totals[$0]!)</li>" }
            return "<div class=\"chart-scroll\">\(svg)</div>\n<ul class=\"legend\">" + legend.joined() + "</ul>"
        }

        func indexPage() -> String {
            var body = "<header>\n<h1>\(HTMLSite.escape(words.siteTitle))</h1>\n"
            body += "<p class=\"meta\">\(HTMLSite.escape(words.entryCount(entries.count))) · "
                + "\(HTMLSite.escape(words.exported(Timestamps.readable(now, zone: .current))))</p>\n</header>\n"
            body += "<main>\n" + tilesHTML(prefix: "", current: nil) + "\n"
            if !entries.isEmpty {
                body += "<section class=\"calendars\" aria-label=\"\(HTMLSite.escape(words.calendarLabel))\">\n"
                    + "<h2>\(HTMLSite.escape(words.calendarLabel))</h2>\n" + calendarsHTML() + "\n</section>\n"
            }
            if let chart = feelingsChart() {
                body += "<section class=\"feelings\" aria-label=\"\(HTMLSite.escape(words.feelingsLabel))\">\n"
                    + "<h2>\(HTMLSite.escape(words.feelingsLabel))</h2>\n" + chart + "\n</section>\n"
            }
            body += "<section>\n<h2>\(HTMLSite.escape(words.entriesLabel))</h2>\n"
                + listHTML(Array(entries.indices), prefix: "", anchors: true) + "\n</section>\n</main>"
            return document(title: words.siteTitle, body: body)
        }

        func tagPage(_ tile: Tile) -> String {
            let indices = entries.indices.filter { entries[$0].record.tags.contains(tile.name) }
            var body = "<header>\n<p class=\"back\"><a href=\"../index.html\">\(HTMLSite.escape(words.siteTitle))</a></p>\n"
            body += "<h1>\(HTMLSite.escape(words.tagHeading(tile.name)))</h1>\n"
            body += "<p class=\"meta\">\(HTMLSite.escape(words.entryCount(indices.count)))</p>\n</header>\n"
            body += "<main>\n" + tilesHTML(prefix: "../", current: tile.name) + "\n"
            body += listHTML(indices, prefix: "../", anchors: false) + "\n</main>"
            return document(title: "\(words.tagHeading(tile.name)) · \(words.siteTitle)", body: body)
        }

        func entryPage(_ index: Int) -> String {
            let entry = entries[index]
            let record = entry.record
            let zone = record.zone
            let heading = title(of: record)
            var body = "<header>\n<p class=\"back\"><a href=\"../index.html\">\(HTMLSite.escape(words.back))</a></p>\n</header>\n"
            body += "<main>\n<article>\n<h1>\(record.starred ? starMark : "")\(HTMLSite.escape(heading))</h1>\n<dl class=\"facts\">\n"
            body += "<dt>\(HTMLSite.escape(words.date))</dt><dd><time datetime=\"\(Timestamps.rfc3339(record.occurredAt, zone: zone))\">"
                + "\(HTMLSite.escape(Timestamps.readable(record.occurredAt, zone: zone)))</time> (\(HTMLSite.escape(record.timeZone)))</dd>\n"
            if let place = record.context.placeLine {
                body += "<dt>\(HTMLSite.escape(words.place))</dt><dd>\(HTMLSite.escape(place))</dd>\n"
            }
            if let weather = PageMarkdown.weatherLine(record.context) {
                body += "<dt>\(HTMLSite.escape(words.weather))</dt><dd>\(HTMLSite.escape(weather))</dd>\n"
            }
            let tags = record.tags
            if !tags.isEmpty {
                let links = tags.map { name -> String in
                    guard let tile = tiles.first(where: { $0.name == name }) else { return "<span class=\"tag\">#\(HTMLSite.escape(name))</span>" }
                    return "<a class=\"tag\" href=\"\(HTMLSite.escape("../tags/" + HTMLSite.urlSegment(tile.file)))\">#\(HTMLSite.escape(name))</a>"
                }
                body += "<dt>\(HTMLSite.escape(words.tagsLabel))</dt><dd>\(links.joined(separator: " "))</dd>\n"
            }
            if record.status != .saved {
                body += "<dt>\(HTMLSite.escape(words.status))</dt><dd>\(HTMLSite.escape(words.statusText(record.status)))</dd>\n"
            }
            body += "</dl>\n"
            for media in record.liveMedia { body += mediaHTML(media.item, alt: heading) + "\n" }
            if let summary = record.summary, !summary.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                body += "<div class=\"page\">\n\(HTMLSite.paragraphs(summary))\n</div>\n"
            }
            if let note = record.note, !note.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                body += "<section class=\"note\" aria-label=\"\(HTMLSite.escape(words.note))\"><h2>\(HTMLSite.escape(words.note))</h2>\n"
                    + "<blockquote>\n\(HTMLSite.paragraphs(note))\n</blockquote></section>\n"
            }
            if let transcript = record.transcript, !transcript.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                body += "<section class=\"note\" aria-label=\"\(HTMLSite.escape(words.transcript))\"><h2>\(HTMLSite.escape(words.transcript))</h2>\n"
                    + "<blockquote>\n\(HTMLSite.paragraphs(transcript))\n</blockquote></section>\n"
            }
            let messages = record.liveMessages
            if !messages.isEmpty {
                body += "<details class=\"chat\">\n<summary>\(HTMLSite.escape(words.conversation(messages.count)))</summary>\n<ol>\n"
                for message in messages {
                    let mine = message.author == .person
                    body += "<li class=\"\(mine ? "me" : "companion")\"><p class=\"who\">"
                        + "\(HTMLSite.escape(mine ? words.me : words.companion)) · "
                        + "<time datetime=\"\(Timestamps.rfc3339(message.createdAt, zone: zone))\">\(HTMLSite.escape(Timestamps.readable(message.createdAt, zone: zone)))</time></p>\n"
                        + HTMLSite.paragraphs(message.text) + "</li>\n"
                }
                body += "</ol>\n</details>\n"
            }
            body += "</article>\n</main>\n"
            var pager: [String] = []
            if index > 0 {
                pager.append("<a rel=\"prev\" href=\"\(HTMLSite.escape(HTMLSite.urlSegment(entries[index - 1].file)))\">\(HTMLSite.escape(words.newer))</a>")
            }
            if index + 1 < entries.count {
                pager.append("<a rel=\"next\" href=\"\(HTMLSite.escape(HTMLSite.urlSegment(entries[index + 1].file)))\">\(HTMLSite.escape(words.older))</a>")
            }
            if !pager.isEmpty { body += "<nav class=\"pager\">\(pager.joined(separator: " "))</nav>" }
            return document(title: "\(heading) · \(words.siteTitle)", body: body)
        }

        /// A photo, video or voice memo from `../media/`, or a line saying it can't be read.
        func mediaHTML(_ item: MediaItem, alt: String) -> String {
            let original = ArchiveLayout.mediaPath(item)
            let thumb = item.thumbnail.map(ArchiveLayout.thumbnailPath).flatMap { copied.contains($0) ? "../" + $0 : nil }
            guard copied.contains(original) else {
                if let thumb {
                    return "<figure class=\"media\"><img src=\"\(HTMLSite.escape(thumb))\" alt=\"\(HTMLSite.escape(alt))\">"
                        + "<figcaption>\(HTMLSite.escape(words.mediaUnavailable))</figcaption></figure>"
                }
                return "<p class=\"missing\">\(HTMLSite.escape(words.mediaName(item.kind)))\(words.en ? ": " : "：")\(HTMLSite.escape(words.mediaUnavailable))</p>"
            }
            let src = HTMLSite.escape("../" + original)
            let mime = HTMLSite.escape(item.mime)
            switch item.kind {
            case .photo:
                if Self.displayableImages.contains(item.mime.lowercased()) {
                    return "<figure class=\"media\"><img src=\"\(src)\" alt=\"\(HTMLSite.escape(alt))\""
                        + (item.width.map { " width=\"\($0)\"" } ?? "") + (item.height.map { " height=\"\($0)\"" } ?? "") + "></figure>"
                }
                let preview = thumb.map { "<img src=\"\(HTMLSite.escape($0))\" alt=\"\(HTMLSite.escape(alt))\">" } ?? HTMLSite.escape(words.photo)
                return "<figure class=\"media\"><a href=\"\(src)\">\(preview)</a>"
                    + "<figcaption><a href=\"\(src)\">\(HTMLSite.escape(words.openOriginal))</a></figcaption></figure>"
            case .video:
                return "<figure class=\"media\"><video controls preload=\"metadata\""
                    + (thumb.map { " poster=\"\(HTMLSite.escape($0))\"" } ?? "") + "><source src=\"\(src)\" type=\"\(mime)\">"
                    + "<a href=\"\(src)\">\(HTMLSite.escape(words.video))</a></video></figure>"
            case .audio:
                return "<figure class=\"media audio\"><figcaption>\(HTMLSite.escape(words.audio))</figcaption>"
                    + "<audio controls preload=\"metadata\"><source src=\"\(src)\" type=\"\(mime)\">"
                    + "<a href=\"\(src)\">\(HTMLSite.escape(words.audio))</a></audio></figure>"
            case .file:
                return "<p class=\"media file\"><a href=\"\(src)\" type=\"\(mime)\">\(HTMLSite.escape(words.file))"
                    + " (\(HTMLSite.escape(item.fileExtension.uppercased())))</a></p>"
            }
        }

        /// The whole look, inline: system fonts, a narrow column, light and dark.
        static let style = """

        :root{--bg:#fbf8f4;--fg:#2b2622;--muted:#7a6f66;--card:#fff;--line:#e8e0d8;--accent:#b5525c;--soft:#f6e7e8}
        @media (prefers-color-scheme:dark){:root{--bg:#1c1917;--fg:#ede6df;--muted:#a89d93;--card:#27231f;--line:#3a342f;--accent:#e58f98;--soft:#3a2a2c}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.65 system-ui,-apple-system,"PingFang TC","Noto Sans CJK TC","Microsoft JhengHei",sans-serif;-webkit-text-size-adjust:100%}
        header,main,.pager{max-width:46rem;margin:0 auto;padding:0 1rem}
        header{padding-top:1.5rem}
        h1{font-size:1.6rem;line-height:1.3;margin:.2rem 0 .4rem;overflow-wrap:anywhere}
        h2{font-size:1.1rem;margin:1.6rem 0 .6rem}
        a{color:var(--accent)}
        .meta,.back,.status,time{color:var(--muted);font-size:.9rem}
        .back{margin:0}
        .tiles{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0}
        .tile{display:inline-flex;gap:.4rem;align-items:baseline;padding:.35rem .8rem;border:1px solid var(--line);border-radius:999px;background:var(--card);text-decoration:none;color:var(--fg)}
        .tile .count{color:var(--muted);font-size:.85rem}
        .tile[aria-current]{background:var(--accent);border-color:var(--accent);color:#fff}
        .tile[aria-current] .count{color:#fff}
        .chart-scroll{overflow-x:auto;background:var(--card);border:1px solid var(--line);border-radius:.6rem;padding:.6rem}
        .chart{display:block;color:var(--muted)}
        .legend{list-style:none;display:flex;flex-wrap:wrap;gap:.4rem 1rem;padding:0;margin:.5rem 0 0;font-size:.9rem}
        .swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:.2rem;margin-right:.3rem;vertical-align:-.05rem}
        .calendars{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(15rem,100%),1fr));gap:1rem}
        .calendars h2{grid-column:1/-1;margin-bottom:0}
        table.month{border-collapse:collapse;table-layout:fixed;width:100%;background:var(--card);border:1px solid var(--line);border-radius:.6rem;text-align:center;font-size:.9rem}
        .month caption{font-weight:600;padding:.4rem;text-align:left}
        .month th{color:var(--muted);font-weight:400;padding:.2rem}
        .month td{padding:.25rem 0;height:2.1rem}
        .month td.has a{display:inline-block;min-width:1.9rem;line-height:1.9rem;border-radius:50%;background:var(--soft);font-weight:600;text-decoration:none}
        .month small{display:block;font-size:.7rem;color:var(--muted);line-height:1}
        ol.entries{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:minmax(0,1fr);gap:.6rem}
        .card{display:flex;gap:.8rem;align-items:flex-start;padding:.7rem;background:var(--card);border:1px solid var(--line);border-radius:.7rem;text-decoration:none;color:var(--fg)}
        .thumb{width:4.5rem;height:4.5rem;object-fit:cover;border-radius:.5rem;flex:none}
        .card .text{display:flex;flex-direction:column;flex:1;min-width:0}
        .card .title{font-size:1.05rem;overflow-wrap:anywhere}
        .card .first{color:var(--muted);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
        .facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;margin:.6rem 0 1rem;color:var(--muted)}
        .facts dd{margin:0;color:var(--fg)}
        .tag{margin-right:.3rem}
        .media{margin:1rem 0}
        .media img,.media video{display:block;max-width:100%;height:auto;border-radius:.7rem}
        .media audio{width:100%}
        .missing{color:var(--muted);font-style:italic}
        .page{font-size:1.08rem}
        .page p,blockquote p{margin:0 0 .9rem;overflow-wrap:anywhere}
        .note h2{font-size:.95rem;color:var(--muted);margin-bottom:.3rem}
        blockquote{margin:0;padding:.2rem 1rem;border-left:3px solid var(--line)}
        details.chat{margin:1.5rem 0;background:var(--card);border:1px solid var(--line);border-radius:.7rem;padding:.6rem .9rem}
        details.chat summary{cursor:pointer;font-weight:600}
        details.chat ol{list-style:none;padding:0;margin:.6rem 0 0}
        details.chat li{margin:.5rem 0;padding:.5rem .8rem;border-radius:.7rem;max-width:90%}
        details.chat li.me{background:var(--soft);margin-left:auto}
        details.chat li.companion{border:1px solid var(--line)}
        details.chat .who{margin:0;font-size:.8rem;color:var(--muted)}
        details.chat li p{margin:.2rem 0;overflow-wrap:anywhere}
        .pager{display:flex;justify-content:space-between;padding-bottom:2rem}
        .empty{color:var(--muted)}

        """
    }
}
