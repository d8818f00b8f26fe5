@testable import DiaryArchive
@testable import DiaryKit
import Foundation
import Testing
@testable import DiaryTestSupport

/// The HTML export, read back the way a person reads it: the written files are opened in a
/// real headless Chromium and the assertions run on the DOM it built, not on our own strings.
@Suite(.serialized) struct HTMLSiteTests {
    // MARK: - A diary to export

    /// A temp diary with four live entries (a photo with a thumbnail and a chat, two on one
    /// day, a draft whose video is gone but whose voice memo is there) and one tombstone.
    final class Fixture {
        let diary: TestDiary
        let scratch: URL
        var records: [EntryRecord] = []
        var paths: DiaryPaths { diary.store.paths }
        let photo: MediaItem
        let photoBytes: Data
        let audio: MediaItem
        var beach = "", breakfast = "", dinner = "", draft = ""

        init() throws {
            diary = try TestDiary()
            scratch = try makeTempDirectory("html-site")
            // A real JPEG and a smaller one as its thumbnail, made by ffmpeg, stored content-addressed.
            let photoFile = scratch.appendingPathComponent("beach.jpg")
            let thumbFile = scratch.appendingPathComponent("thumb.jpg")
            try Self.ffmpegImage("color=c=0x3a7bd5:s=64x48", to: photoFile)
            try Self.ffmpegImage("color=c=0xd53a7b:s=32x24", to: thumbFile)
            let photoSHA = try sha256sum(photoFile)
            let thumbSHA = try sha256sum(thumbFile)
            photoBytes = try Data(contentsOf: photoFile)
            photo = MediaItem(kind: .photo, sha256: photoSHA, mime: "image/jpeg", fileExtension: "jpg",
                              bytes: Int64(photoBytes.count), width: 64, height: 48, thumbnail: thumbSHA)
            let paths = diary.store.paths
            try Self.place(photoFile, at: paths.media.appendingPathComponent(photo.relativePath))
            try Self.place(thumbFile, at: paths.thumbnails.appendingPathComponent(photo.thumbnailPath!))
            // A voice memo whose file is there, and a video whose file is not.
            let audioBytes = Data("not really AAC, but bytes to copy".utf8)
            let audioFile = scratch.appendingPathComponent("memo.m4a")
            try audioBytes.write(to: audioFile)
            audio = MediaItem(kind: .audio, sha256: try sha256sum(audioFile), mime: "audio/mp4", fileExtension: "m4a",
                              bytes: Int64(audioBytes.count))
            try Self.place(audioFile, at: paths.media.appendingPathComponent(audio.relativePath))
            let video = MediaItem(kind: .video, sha256: String(repeating: "c", count: 64), mime: "video/mp4",
                                  fileExtension: "mp4", bytes: 1000, thumbnail: String(repeating: "d", count: 64))

            let store = diary.store
            beach = try store.createEntry(NewEntry(
                occurredAt: moment("2026-11-21 17:40"), timeZone: TimeZone(identifier: "Asia/Taipei")!, note: "今天去海邊",
                context: EntryContext(place: "基隆", weatherDescription: "小雨", temperatureC: 18.5), persona: "warm", media: [photo]))
            try store.media.setThumbnail(mediaSHA256: photo.sha256, thumbnail: thumbSHA)
            try store.appendMessage(entryId: beach, author: .person, text: "風好大，但很舒服", persona: "warm", provider: nil)
            try store.appendMessage(entryId: beach, author: .companion, text: "聽起來很放鬆。你在海邊待了多久？",
                                    persona: "warm", provider: "offline")
            try store.savePage(entryId: beach, title: "海邊的傍晚", summary: "風好大，但很舒服。\n\n我們在堤防上坐了很久，看著浪一直打上來。",
                               tags: ["旅行", "海邊", "放鬆"], persona: "warm", provider: "offline", usageDay: "2026-11-21")
            breakfast = try diary.draft("蛋餅", at: moment("2026-11-03 09:00"))
            try store.savePage(entryId: breakfast, title: "早餐", summary: "早上吃了蛋餅。", tags: ["旅行", "美食"],
                               persona: "warm", provider: "offline", usageDay: "2026-11-03")
            dinner = try diary.draft("牛肉麵", at: moment("2026-11-03 20:00"))
            try store.savePage(entryId: dinner, title: "晚餐", summary: "晚上吃了牛肉麵。", tags: ["美食"],
                               persona: "warm", provider: "offline", usageDay: "2026-11-03")
            draft = try diary.draft("還沒寫完的草稿", at: moment("2026-10-05 12:00"), media: [video])
            try store.media.add(entryId: draft, item: audio)
            records = try store.entryRecords(ids: try store.entryIds(includingDeleted: false))
            // A deleted entry must not appear anywhere.
            var gone = try #require(records.first { $0.id == breakfast })
            gone.id = "01900000-0000-7000-8000-000000000001"
            gone.title = "已刪除的日記"
            gone.clock.deletedAt = moment("2026-11-04 10:00")
            records.append(gone)
        }

        deinit { try? FileManager.default.removeItem(at: scratch) }

        /// Writes the site into a fresh folder under the scratch folder.
        func write(_ language: Language = .zhHant, records: [EntryRecord]? = nil) throws -> (URL, SiteSummary) {
            let site = scratch.appendingPathComponent("site-\(language.rawValue)-\(UUID().uuidString.prefix(8))")
            let summary = try HTMLSite.write(records: records ?? self.records, paths: paths, to: site, language: language,
                                             now: moment("2026-11-22 08:00"))
            return (site, summary)
        }

        func record(_ id: String) -> EntryRecord { records.first { $0.id == id }! }
        /// The entry page's file name for an entry of the fixture.
        func file(_ id: String) -> String { HTMLSiteTests.entryFile(record(id), among: records) }

        static func ffmpegImage(_ source: String, to file: URL) throws {
            let result = try runTool("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", source,
                                                         "-frames:v", "1", file.path])
            try #require(result.status == 0, "ffmpeg made \(file.lastPathComponent)")
        }

        static func place(_ file: URL, at target: URL) throws {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: file, to: target)
        }
    }

    /// The entry page a record gets among live `records`: `YYYY-MM-DD-<id8>.html`, or the
    /// whole id when another entry of that day shares the 8 digits (ids made in one test do).
    static func entryFile(_ record: EntryRecord, among records: [EntryRecord]) -> String {
        func day(_ record: EntryRecord) -> String { Timestamps.localDate(record.occurredAt, zone: record.zone) }
        func hex(_ record: EntryRecord) -> String { record.id.replacingOccurrences(of: "-", with: "") }
        let clash = records.contains { $0.id != record.id && $0.clock.deletedAt == nil && day($0) == day(record) && hex($0).prefix(8) == hex(record).prefix(8) }
        return "\(day(record))-\(clash ? hex(record) : String(hex(record).prefix(8))).html"
    }

    // MARK: - A real browser

    enum Browser {
        static let path = "/usr/bin/chromium"

        /// The DOM Chromium builds from a file, serialized after the page has loaded.
        static func dump(_ file: URL, allowFileAccess: Bool = false) throws -> String {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                Issue.record("Chromium is missing at \(path): the HTML export tests need a real headless browser (apt-get install chromium).")
                throw CancellationError()
            }
            let profile = try makeTempDirectory("chromium-profile")
            defer { try? FileManager.default.removeItem(at: profile) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)"]
                + (allowFileAccess ? ["--allow-file-access-from-files"] : []) + ["--dump-dom", file.absoluteString]
            process.environment = ["PATH": "/usr/bin:/bin", "HOME": profile.path, "LANG": "C.UTF-8"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            let collected = ArchiveTool.drain(output.fileHandleForReading)
            if exited.wait(timeout: .now() + 120) == .timedOut {
                process.terminate()
                Issue.record("Chromium did not finish within 120 s on \(file.path)")
                throw CancellationError()
            }
            let dom = String(decoding: collected(), as: UTF8.self)
            try #require(process.terminationStatus == 0 && dom.contains("<html"),
                         "Chromium rendered \(file.lastPathComponent) (status \(process.terminationStatus))")
            return dom
        }
    }

    /// `(href, name, count)` of every tag tile in a DOM, in order.
    static func tiles(_ dom: String) -> [(href: String, name: String, count: Int)] {
        dom.matches(of: /<a class="tile[^"]*" href="([^"]*)"[^>]*><span class="name">([^<]*)<\/span> <span class="count">(\d+)<\/span><\/a>/)
            .map { (String($0.1), String($0.2), Int($0.3)!) }
    }

    /// Every `src`/`href`/`poster` value in a DOM.
    static func links(_ dom: String) -> [String] {
        dom.matches(of: /(?:src|href|poster)="([^"]*)"/).map { String($0.1) }
    }

    /// The file a relative link in a page points at, or nil for an in-page anchor.
    static func target(of link: String, from page: URL) -> URL? {
        let path = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard !path.isEmpty else { return nil }
        return URL(fileURLWithPath: path.removingPercentEncoding!, relativeTo: page.deletingLastPathComponent()).standardizedFileURL
    }

    /// Every file in the site, relative to it.
    static func siteFiles(_ site: URL) -> [String] { filesUnder(site) }

    // MARK: - Tests

    @Test func theIndexShowsTitleTilesCalendarsAndEntriesNewestFirst() throws {
        let fixture = try Fixture()
        let (site, summary) = try fixture.write()
        #expect(summary == SiteSummary(pages: 4, mediaFiles: 3), "photo, its thumbnail and the voice memo; the video is gone")
        let index = site.appendingPathComponent("index.html")
        let dom = try Browser.dump(index)

        #expect(dom.contains("<html lang=\"zh-Hant\">"))
        #expect(dom.contains("<title>InnerBloom 日記</title>"))
        #expect(dom.contains("<h1>InnerBloom 日記</h1>"))
        #expect(dom.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"))

        // Tiles: 全部 with the total first, then the tags with their counts, each a working link.
        let tiles = Self.tiles(dom)
        #expect(tiles.first?.name == "全部" && tiles.first?.count == 4 && tiles.first?.href == "index.html")
        #expect(Dictionary(tiles.dropFirst().map { ($0.name, $0.count) }, uniquingKeysWith: +)
                == ["旅行": 2, "海邊": 1, "放鬆": 1, "美食": 2])
        for tile in tiles.dropFirst() {
            #expect(tile.href == "tags/\(tile.name).html")
            #expect(FileManager.default.fileExists(atPath: site.appendingPathComponent("tags/\(tile.name).html").path))
        }

        // Feelings over time: an inline SVG bar per month, the one feeling tag (放鬆) drawn once,
        // with a legend; no script and nothing fetched from elsewhere.
        #expect(dom.contains("<h2>心情變化</h2>") && dom.contains("<svg class=\"chart\""))
        let bars = dom.matches(of: /<rect [^>]*><title>(\d{4}-\d{2}) ([^<]+)<\/title><\/rect>/).map { "\($0.1) \($0.2)" }
        #expect(bars.count == 1 && bars.first?.hasSuffix("放鬆 1") == true, "\(bars)")
        #expect(dom.contains("<ul class=\"legend\"><li><span class=\"swatch\"") && dom.contains("放鬆 1</li>"))
        #expect(!dom.contains("<script") && !dom.contains("http"), "inline SVG in HTML needs no namespace address")

        // Calendars: newest month first, Monday first (1 November 2026 is a Sunday).
        let months = dom.matches(of: /<table class="month" id="month-(\d{4}-\d{2})">\s*<caption>([^<]*)<\/caption>/).map { (String($0.1), String($0.2)) }
        #expect(months.map(\.0) == ["2026-11", "2026-10"])
        #expect(months.map(\.1) == ["2026 年 11 月", "2026 年 10 月"])
        #expect(dom.contains("<th scope=\"col\">一</th><th scope=\"col\">二</th>"), "weeks start on Monday")
        #expect(dom.contains("<tr>" + String(repeating: "<td></td>", count: 6) + "<td>1</td></tr>"))
        let beachFile = fixture.file(fixture.beach)
        #expect(dom.contains("<td class=\"has\"><a href=\"entries/\(beachFile)\" title=\"海邊的傍晚\">21</a></td>"),
                "a day with one entry links to its page")
        #expect(dom.contains("<td class=\"has\"><a href=\"#day-2026-11-03\" title=\"2 篇日記\">3</a><small>2</small></td>"),
                "a day with two links to its place in the list")
        #expect(dom.contains("<li id=\"day-2026-11-03\">"))
        #expect(dom.contains("<td>22</td>"), "a day without entries is plain")

        // The list, newest first, with the first line of each page and the thumbnail.
        let titles = dom.matches(of: /<strong class="title">([^<]*)<\/strong>/).map { String($0.1) }
        #expect(titles == ["海邊的傍晚", "晚餐", "早餐", "（未命名）"])
        #expect(!dom.contains("已刪除的日記"), "tombstones are skipped")
        #expect(dom.contains("<span class=\"first\">風好大，但很舒服。</span>"))
        #expect(dom.contains("<span class=\"first\">還沒寫完的草稿</span>"), "a draft shows its note")
        #expect(dom.contains("<a class=\"card\" href=\"entries/\(beachFile)\">"))
        let thumb = "thumbs/\(fixture.photo.thumbnail!).jpg"
        #expect(dom.contains("<img class=\"thumb\" src=\"\(thumb)\""))

        // Every link and source resolves to a file of the site.
        for link in Self.links(dom) {
            guard let file = Self.target(of: link, from: index) else { continue }
            #expect(file.path.hasPrefix(site.standardizedFileURL.path), "\(link) stays inside the site")
            #expect(FileManager.default.fileExists(atPath: file.path), "\(link) exists")
        }

        // A tag's tile leads to its entries only, with its own tile marked.
        let travel = try Browser.dump(site.appendingPathComponent("tags/旅行.html"))
        #expect(travel.matches(of: /<strong class="title">([^<]*)<\/strong>/).map { String($0.1) } == ["海邊的傍晚", "早餐"])
        #expect(Self.tiles(travel).first?.href == "../index.html")
        #expect(travel.contains("<a class=\"tile\" href=\"../tags/旅行.html\" aria-current=\"page\">"))
        #expect(travel.contains("<img class=\"thumb\" src=\"../\(thumb)\""))
    }

    @Test func anEntryPageShowsThePhotoThePageAndTheFoldedChat() throws {
        let fixture = try Fixture()
        let (site, _) = try fixture.write()
        let page = site.appendingPathComponent("entries/\(fixture.file(fixture.beach))")
        let dom = try Browser.dump(page)

        #expect(dom.contains("<title>海邊的傍晚 · InnerBloom 日記</title>"))
        #expect(dom.contains("<h1>海邊的傍晚</h1>"))
        #expect(dom.contains("<time datetime=\"2026-11-21T17:40:00+08:00\">2026-11-21 17:40</time> (Asia/Taipei)"))
        #expect(dom.contains("<dt>地點</dt><dd>基隆</dd>"))
        #expect(dom.contains("<dt>天氣</dt><dd>小雨 18.5°C</dd>"))
        #expect(dom.contains("<a class=\"tag\" href=\"../tags/旅行.html\">#旅行</a>"))
        // The page in its paragraphs, then the note.
        #expect(dom.contains("<p>風好大，但很舒服。</p>\n<p>我們在堤防上坐了很久，看著浪一直打上來。</p>"))
        #expect(dom.contains("<blockquote>\n<p>今天去海邊</p>\n</blockquote>"))

        // The photo is a copy inside the site, byte for byte.
        let sources = dom.matches(of: /<img src="([^"]*)"/).map { String($0.1) }
        #expect(sources == ["../media/\(fixture.photo.sha256).jpg"])
        let copy = try #require(Self.target(of: sources[0], from: page))
        #expect(try Data(contentsOf: copy) == fixture.photoBytes)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: copy.path)) == nil, "copied, not a symbolic link")
        #expect((try FileManager.default.attributesOfItem(atPath: copy.path)[.referenceCount] as? NSNumber)?.intValue == 1,
                "copied, not a hard link")

        // The chat is folded, with both speakers named in words people read.
        let chat = try #require(dom.firstMatch(of: /<details class="chat">([\s\S]*?)<\/details>/)).1
        #expect(chat.contains("<summary>對話（2）</summary>"))
        #expect(chat.contains("<li class=\"me\"><p class=\"who\">我 · "))
        #expect(chat.contains("<li class=\"companion\"><p class=\"who\">InnerBloom 夥伴 · "))
        #expect(chat.contains("<p>聽起來很放鬆。你在海邊待了多久？</p>"))
        #expect(!dom.contains("<details class=\"chat\" open"), "folded until opened")
        #expect(dom.contains("<a rel=\"next\" href=\"\(fixture.file(fixture.dinner))\">"))

        // The browser really loads the photo through the page's relative address.
        let probe = fixture.scratch.appendingPathComponent("probe-\(UUID().uuidString.prefix(6)).html")
        let frame = page.path.dropFirst(fixture.scratch.path.count + 1)
        try Data("""
            <!DOCTYPE html><html><head><meta charset="utf-8"></head><body><p id="result">pending</p>
            <iframe src="\(frame)"></iframe>
            <script>
            window.addEventListener('load', () => {
              const out = document.getElementById('result');
              try {
                const images = Array.from(document.querySelector('iframe').contentDocument.querySelectorAll('img'));
                out.textContent = images.map(i => i.complete + ':' + i.naturalWidth + 'x' + i.naturalHeight).join(' ') || 'no images';
              } catch (e) { out.textContent = 'error ' + e; }
            });
            </script></body></html>
            """.utf8).write(to: probe)
        let probed = try Browser.dump(probe, allowFileAccess: true)
        #expect(probed.contains("<p id=\"result\">true:64x48</p>"), "Chromium decoded the copied JPEG: \(probed.prefix(200))")
    }

    @Test func aDraftShowsItsVoiceMemoAndSaysWhenAVideoIsGone() throws {
        let fixture = try Fixture()
        let (site, _) = try fixture.write()
        let page = site.appendingPathComponent("entries/\(fixture.file(fixture.draft))")
        let dom = try Browser.dump(page)
        #expect(dom.contains("<h1>（未命名）</h1>"))
        #expect(dom.contains("<dt>狀態</dt><dd>草稿</dd>"))
        #expect(dom.contains("<p class=\"missing\">影片：媒體無法讀取</p>"))
        #expect(!dom.contains("<video"), "no player for a file that is not there")
        let audio = try #require(dom.firstMatch(of: /<audio controls="" preload="metadata"><source src="([^"]*)" type="audio\/mp4">/))
        #expect(String(audio.1) == "../media/\(fixture.audio.sha256).m4a")
        #expect(FileManager.default.fileExists(atPath: try #require(Self.target(of: String(audio.1), from: page)).path))
        #expect(!dom.contains("<details"), "no conversation yet")
        #expect(!FileManager.default.fileExists(atPath: site.appendingPathComponent("media/\(String(repeating: "c", count: 64)).mp4").path))
    }

    @Test func textIsEscapedEverywhere() throws {
        let fixture = try Fixture()
        let store = fixture.diary.store
        let id = try fixture.diary.draft("<img src=x onerror=alert(2)>", at: moment("2026-11-25 10:00"))
        try store.appendMessage(entryId: id, author: .person, text: "</details><script>alert(3)</script>", persona: "warm", provider: nil)
        try store.savePage(entryId: id, title: "<script>alert(1)</script>", summary: "Tom & \"Jerry\" 'n' <b>bold</b>",
                           tags: ["a<b>", "x/y"], persona: "warm", provider: "offline", usageDay: "2026-11-25")
        let records = try store.entryRecords(ids: [id])
        let (site, _) = try fixture.write(records: records)

        let raw = try String(contentsOf: site.appendingPathComponent("entries/\(Self.entryFile(records[0], among: records))"), encoding: .utf8)
        #expect(raw.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>"))
        #expect(raw.contains("Tom &amp; &quot;Jerry&quot; &#39;n&#39; &lt;b&gt;bold&lt;/b&gt;"))
        #expect(raw.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt; · InnerBloom 日記</title>"))

        for page in ["index.html", "entries/\(Self.entryFile(records[0], among: records))"] {
            let dom = try Browser.dump(site.appendingPathComponent(page))
            #expect(!dom.lowercased().contains("<script"), "\(page): no script element")
            #expect(!dom.contains("<b>"), "\(page): no markup from the text")
            #expect(!dom.contains("<img"), "\(page): no image element from the note")
            #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(page): the title shows as text")
        }
        let entry = try Browser.dump(site.appendingPathComponent("entries/\(Self.entryFile(records[0], among: records))"))
        #expect(entry.contains("<p>&lt;/details&gt;&lt;script&gt;alert(3)&lt;/script&gt;</p>"), "the chat cannot close its fold")
        #expect(entry.contains("<p>&lt;img src=x onerror=alert(2)&gt;</p>"))
        // A tag that cannot be a file name gets a safe one; the other is encoded in links.
        let index = try Browser.dump(site.appendingPathComponent("index.html"))
        let tiles = Self.tiles(index)
        #expect(tiles.map(\.name).contains("a&lt;b&gt;"))
        for tile in tiles.dropFirst() {
            let file = try #require(Self.target(of: tile.href, from: site.appendingPathComponent("index.html")))
            #expect(file.deletingLastPathComponent().lastPathComponent == "tags", "\(tile.href) stays in tags/")
            #expect(FileManager.default.fileExists(atPath: file.path), "\(tile.href)")
        }
        #expect(tiles.contains { $0.name == "x/y" && $0.href.hasPrefix("tags/tag-") })
    }

    @Test func anEnglishSiteSpeaksEnglish() throws {
        let fixture = try Fixture()
        let (site, _) = try fixture.write(.en)
        let index = try Browser.dump(site.appendingPathComponent("index.html"))
        #expect(index.contains("<html lang=\"en\">"))
        #expect(index.contains("<title>InnerBloom Diary</title>"))
        #expect(Self.tiles(index).first.map { "\($0.name) \($0.count)" } == "All 4")
        #expect(index.contains("<caption>November 2026</caption>"))
        #expect(index.contains("<th scope=\"col\">Mon</th>"))
        #expect(index.contains("title=\"2 entries\""))
        #expect(index.contains("(untitled)"))
        let entry = try Browser.dump(site.appendingPathComponent("entries/\(fixture.file(fixture.beach))"))
        #expect(entry.contains("<summary>Conversation (2)</summary>"))
        #expect(entry.contains("<p class=\"who\">Me · "))
        #expect(entry.contains("<p class=\"who\">InnerBloom companion · "))
        #expect(entry.contains("<dt>Place</dt><dd>基隆</dd>"))
        #expect(entry.contains("<dt>Weather</dt><dd>小雨 18.5°C</dd>"))
        for word in ["全部", "對話", "夥伴", "日期", "標籤", "日記"] {
            #expect(!index.contains(word) && !entry.contains(word), "\(word) in the English site")
        }
        let draft = try Browser.dump(site.appendingPathComponent("entries/\(fixture.file(fixture.draft))"))
        #expect(draft.contains("<p class=\"missing\">Video: The media can&#39;t be read.</p>")
                || draft.contains("<p class=\"missing\">Video: The media can't be read.</p>"))
    }

    @Test(arguments: [Language.zhHant, .en])
    func theSiteIsSelfContained(language: Language) throws {
        let fixture = try Fixture()
        let (site, _) = try fixture.write(language)
        let files = Self.siteFiles(site)
        #expect(files.contains("index.html"))
        #expect(files.filter { $0.hasPrefix("entries/") }.count == 4)
        #expect(Set(files.filter { $0.hasPrefix("media/") || $0.hasPrefix("thumbs/") })
                == ["media/\(fixture.photo.sha256).jpg", "thumbs/\(fixture.photo.thumbnail!).jpg", "media/\(fixture.audio.sha256).m4a"])
        for file in files where file.hasSuffix(".html") {
            let text = try String(contentsOf: site.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("http://") && !text.contains("https://"), "\(file) references the network")
            #expect(!text.contains("<script") && !text.contains("@import") && !text.contains("url("), "\(file) loads nothing else")
            #expect(text.firstMatch(of: /\bAI\b/) == nil, "\(file) says AI")
            #expect(text.contains("<meta charset=\"utf-8\">") && text.contains("name=\"viewport\""))
            #expect(text.contains("<html lang=\"\(language.rawValue)\">"))
        }
    }

    @Test func theFolderMustBeEmptyOrAbsent() throws {
        let fixture = try Fixture()
        let busy = fixture.scratch.appendingPathComponent("busy")
        try FileManager.default.createDirectory(at: busy, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: busy.appendingPathComponent("notes.txt"))
        #expect(throws: ArchiveError.cannotCreate(path: busy.path)) {
            try HTMLSite.write(records: fixture.records, paths: fixture.paths, to: busy, language: .zhHant, now: Date())
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: busy.path) == ["notes.txt"], "nothing touched")
        let file = fixture.scratch.appendingPathComponent("a-file")
        try Data().write(to: file)
        #expect(throws: ArchiveError.cannotCreate(path: file.path)) {
            try HTMLSite.write(records: fixture.records, paths: fixture.paths, to: file, language: .zhHant, now: Date())
        }
        let empty = fixture.scratch.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(try HTMLSite.write(records: fixture.records, paths: fixture.paths, to: empty, language: .zhHant, now: Date()).pages == 4)
        let nested = fixture.scratch.appendingPathComponent("a/b/c")
        #expect(try HTMLSite.write(records: [], paths: fixture.paths, to: nested, language: .zhHant, now: Date()) == SiteSummary(pages: 0, mediaFiles: 0))
        let index = try String(contentsOf: nested.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(index.contains("目前還沒有日記"), "an empty diary says so")
    }

    // MARK: - Without a browser

    static func record(_ id: String, at date: Date, tags: [(String, Date)] = [], title: String? = nil) -> EntryRecord {
        let clock = RowClock(hlc: "1.0.d", deviceId: "d")
        return EntryRecord(id: id, clock: clock, status: .saved, createdAt: date, updatedAt: date, occurredAt: date,
                           timeZone: "Asia/Taipei", persona: "warm", title: title ?? id, summary: "s",
                           tagLinks: tags.enumerated().map { EntryRecord.TagLink(name: $0.element.0, position: $0.offset,
                                                                                   createdAt: $0.element.1, clock: clock) })
    }

    @Test func tilesGoByLastUseThenCount() {
        let t0 = moment("2026-01-01 10:00")
        let records = [
            Self.record("01900000-0000-7000-8000-000000000001", at: t0, tags: [("舊", t0), ("多", t0)]),
            Self.record("01900000-0000-7000-8000-000000000002", at: t0, tags: [("多", t0.addingTimeInterval(60))]),
            Self.record("01900000-0000-7000-8000-000000000003", at: t0, tags: [("新", t0.addingTimeInterval(120)), ("多", t0)]),
        ]
        var deleted = Self.record("01900000-0000-7000-8000-000000000004", at: t0, tags: [("刪", t0.addingTimeInterval(999))])
        deleted.clock.deletedAt = t0
        let tiles = HTMLSite.tagTiles(records)
        #expect(tiles.map(\.name) == ["新", "多", "舊"])
        #expect(tiles.map(\.count) == [1, 3, 1])
        var unlinked = records[0]
        unlinked.tagLinks[0].clock.deletedAt = t0
        #expect(HTMLSite.tagTiles([unlinked]).map(\.name) == ["多"], "a removed tag link does not count")
    }

    @Test func entriesOfOneMinuteGetTheirOwnPages() throws {
        let fixture = try Fixture()
        let t0 = moment("2026-03-02 08:00")
        // UUIDv7 ids made within the same minute share their first 8 digits.
        let records = [Self.record("0193aaaa-1111-7000-8000-000000000001", at: t0, title: "一"),
                       Self.record("0193aaaa-2222-7000-8000-000000000002", at: t0.addingTimeInterval(30), title: "二"),
                       Self.record("0193bbbb-3333-7000-8000-000000000003", at: t0.addingTimeInterval(90), title: "三")]
        let (site, summary) = try fixture.write(records: records)
        #expect(summary.pages == 3)
        let pages = Self.siteFiles(site).filter { $0.hasPrefix("entries/") }.sorted()
        #expect(pages == ["entries/2026-03-02-0193aaaa111170008000000000000001.html",
                          "entries/2026-03-02-0193aaaa222270008000000000000002.html",
                          "entries/2026-03-02-0193bbbb.html"])
    }

    @Test func textHelpers() {
        #expect(HTMLSite.paragraphs("a\nb\n\n\n c \r\n\r\nd") == "<p>a<br>\nb</p>\n<p> c </p>\n<p>d</p>")
        #expect(HTMLSite.escape("<a href='x'>&\"</a>") == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;")
        #expect(HTMLSite.urlSegment("50% 旅行?#.html") == "50%25%20旅行%3F%23.html")
    }
}
