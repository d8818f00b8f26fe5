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
}
