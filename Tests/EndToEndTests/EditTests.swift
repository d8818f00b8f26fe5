import Foundation
import Testing

/// Pages changed by hand through the built binaries: the editor, the flags, pipes of ids,
/// the trash, stars, history and the person's own order.
@Suite("Changing pages by hand")
struct EditTests {
    /// A saved page written by the offline companion; returns its id.
    private func page(_ sandbox: Sandbox, _ text: String) throws -> String {
        let results = try sandbox.pipeline([("diary-new", ["--text-only", "--text", text]), ("diary-save", [])])
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        return try #require(results[1].lines.first?["id"] as? String)
    }

    /// A shell script standing in for the person's editor.
    private func editor(_ sandbox: Sandbox, _ name: String, _ body: String) throws -> String {
        let url = try sandbox.makeFile(name, Data("#!/bin/sh\n\(body)\n".utf8))
        chmod(url.path, 0o755)
        return url.path
    }

    @Test("the editor changes the header and the page; unchanged, failing or unreadable leaves it as it was")
    func editor() throws {
        let sandbox = try Sandbox()
        let id = try page(sandbox, "今天去海邊")
        let before = try sandbox.run("diary-find", ["--show", id]).lines[0]

        // Quitting without a change, or an editor that fails: nothing changes, status 0.
        for script in ["true", "echo 改了但失敗 >> \"$1\"; exit 1"] {
            sandbox.extraEnvironment["EDITOR"] = try editor(sandbox, "noop.sh", script)
            let result = try sandbox.run("diary-save", ["--edit", id])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("沒有變更"))
            #expect(try sandbox.run("diary-find", ["--show", id]).lines[0]["summary"] as? String == before["summary"] as? String)
        }
        #expect(try sandbox.run("diary-find", ["--show", id, "--history"]).status == 1, "no version was made")

        // A header line the tool cannot read: status 65, the line named, the typed text kept.
        sandbox.extraEnvironment["EDITOR"] = try editor(sandbox, "broken.sh", """
            sed -i 's/^時間: .*/時間: 下週二/' "$1"
            echo 我打了很久的一段話 >> "$1"
            """)
        let broken = try sandbox.run("diary-save", ["--edit", id])
        #expect(broken.status == 65)
        #expect(broken.stdout.isEmpty)
        let kept = try #require(broken.stderr.firstMatch(of: /(\/\S+\.md)/).map { String($0.1) })
        #expect(broken.stderr.contains("第 5 行"), "\(broken.stderr)")
        #expect(try String(contentsOfFile: kept, encoding: .utf8).contains("我打了很久的一段話"))
        #expect(try sandbox.run("diary-find", ["--show", id]).lines[0]["summary"] as? String == before["summary"] as? String)

        // A good edit: title, zone-qualified time, place, tags and the page itself.
        sandbox.extraEnvironment["EDITOR"] = try editor(sandbox, "good.sh", """
            sed -i -e 's/^標題: .*/標題: 海邊的傍晚/' -e 's/^時間: .*/時間: 2026-11-20 18:30 Asia\\/Tokyo/' \
                   -e 's/^地點: .*/地點: 基隆/' -e 's/^標籤: .*/標籤: 海邊, 朋友/' "$1"
            echo 我自己補上的一句。 >> "$1"
            """)
        let good = try sandbox.run("diary-save", ["--edit", id])
        #expect(good.status == 0, "\(good.stderr)")
        let edited = try sandbox.run("diary-find", ["--show", id]).lines[0]
        #expect(edited["title"] as? String == "海邊的傍晚")
        #expect(edited["occurred_at"] as? String == "2026-11-20T18:30:00+09:00")
        #expect(edited["time_zone"] as? String == "Asia/Tokyo")
        #expect((edited["context"] as? [String: Any])?["place"] as? String == "基隆")
        #expect(edited["tags"] as? [String] == ["海邊", "朋友"])
        #expect((edited["summary"] as? String)?.hasSuffix("我自己補上的一句。") == true)
        #expect(edited["edited_at"] is String)

        let history = try sandbox.run("diary-find", ["--show", id, "--history"])
        #expect(history.status == 0)
        #expect(history.lines.count == 1)
        #expect(history.lines[0]["kind"] as? String == "version")
        #expect(history.lines[0]["replaced_by"] as? String == "person")
        #expect(history.lines[0]["summary"] as? String == before["summary"] as? String)
        #expect(try sandbox.searchIndexIsConsistent())
    }

    @Test("a page edited by hand is not rewritten by the companion without asking or --replace")
    func editedPageIsProtected() throws {
        let sandbox = try Sandbox()
        let id = try page(sandbox, "今天去海邊")
        #expect(try sandbox.run("diary-save", [id, "--title", "我的標題"]).status == 0)
        #expect(try sandbox.run("diary-chat", [id, "-m", "再補充一下"]).status == 0)
        let refused = try sandbox.run("diary-save", [id])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("--replace"))
        #expect(try sandbox.run("diary-find", ["--show", id]).lines[0]["title"] as? String == "我的標題")
        let replaced = try sandbox.run("diary-save", [id, "--replace"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(replaced.lines[0]["title"] as? String != "我的標題")
        let history = try sandbox.run("diary-find", ["--show", id, "--history"]).lines
        #expect(history.first?["title"] as? String == "我的標題")
        #expect(history.first?["replaced_by"] as? String == "companion")
    }

    @Test("edits by flags go to every page piped in, in one go")
    func pipedEdits() throws {
        let sandbox = try Sandbox()
        let ids = try (0..<3).map { try page(sandbox, "第 \($0) 天的海") }
        #expect(try sandbox.run("diary-save", [ids[0], "--add-tag", "旅游"]).status == 0)
        #expect(try sandbox.run("diary-save", [ids[1], "--add-tag", "旅游"]).status == 0)
        let results = try sandbox.pipeline([("diary-find", ["--tag", "旅游"]), ("diary-save", ["--add-tag", "旅遊", "--remove-tag", "旅游"])])
        #expect(results[1].status == 0, "\(results[1].stderr)")
        #expect(Set(results[1].lines.compactMap { $0["id"] as? String }) == Set(ids[0...1]))
        let tiles = try sandbox.run("diary-find", ["--tags"]).lines.compactMap { $0["name"] as? String }
        #expect(tiles.contains("旅遊") && !tiles.contains("旅游"))
        #expect(try sandbox.run("diary-find", ["--tag", "旅遊", "--count"]).stdout == "2\n")

        let renamed = try sandbox.run("diary-save", ["--rename-tag", "旅遊", "海邊旅行"])
        #expect(renamed.status == 0)
        #expect(renamed.lines[0]["pages"] as? Int == 2)
        #expect(try sandbox.run("diary-find", ["--tag", "海邊旅行", "--count"]).stdout == "2\n")

        // No id at all for a change by hand is a usage error; an unknown one says so.
        #expect(try sandbox.run("diary-save", ["--star"]).status == 64)
        let unknown = try sandbox.run("diary-save", ["fffff", "--star"])
        #expect(unknown.status == 66)
        #expect(unknown.stderr.contains("找不到這篇日記"))
        #expect(try sandbox.run("diary-save", [ids[2], "--at", "昨天傍晚"]).status == 64)
    }

    @Test("delete hides a page everywhere, undelete brings it back, purge removes it and its unused file")
    func trash() throws {
        let sandbox = try Sandbox()
        let photo = try sandbox.makeMedia("sea.jpg")
        let results = try sandbox.pipeline([("diary-new", [photo.path, "--text", "要刪的海"]), ("diary-save", [])])
        let id = try #require(results[1].lines.first?["id"] as? String)
        let file = try #require((results[1].lines.first?["media"] as? [[String: Any]])?.first?["path"] as? String)
        let other = try page(sandbox, "留下來的一頁")

        let deleted = try sandbox.run("diary-save", ["--delete", id])
        #expect(deleted.status == 0)
        #expect(deleted.lines[0]["trashed_at"] is String)
        #expect(try sandbox.run("diary-find", ["海"]).status == 1)
        #expect(try sandbox.run("diary-find", ["--count"]).stdout == "1\n")
        #expect(try sandbox.run("diary-find").lines.map { $0["id"] as? String } == [other])
        let calendar = try sandbox.run("diary-find", ["--calendar"]).lines.reduce(0) { $0 + ($1["count"] as? Int ?? 0) }
        #expect(calendar == 1)
        #expect(try sandbox.run("diary-find", ["--trash"]).lines.map { $0["id"] as? String } == [id])
        #expect(try sandbox.run("diary-chat", [id, "-m", "還在嗎"]).status == 65)
        #expect(try sandbox.run("diary-save", ["--move", other, "--before", id]).status == 65, "no move next to a page in the trash")
        let export = sandbox.root.appendingPathComponent("export.tar")
        #expect(try sandbox.run("diary-sync", ["export", "--output", export.path]).status == 0)
        let exported = try Data(contentsOf: export)
        #expect(exported.range(of: Data(id.utf8)) == nil, "the export leaves it out")
        #expect(exported.range(of: Data(other.utf8)) != nil)

        #expect(try sandbox.run("diary-save", ["--undelete", String(id.prefix(10))]).status == 0)
        #expect(try sandbox.run("diary-find", ["海"]).lines.map { $0["id"] as? String } == [id])
        #expect(try sandbox.run("diary-save", ["--delete", id]).status == 0)
        #expect(FileManager.default.fileExists(atPath: file))
        let purged = try sandbox.run("diary-save", ["--purge", id])
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(purged.lines[0]["files"] as? Int == 1)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try sandbox.run("diary-find", ["--trash"]).status == 1)
        #expect(try sandbox.run("diary-save", ["--undelete", id]).status == 66)
        #expect(try sandbox.searchIndexIsConsistent())
    }

    @Test("a pipe that names nothing purges nothing; the whole trash goes only with --all")
    func purgeNeedsANameOrAll() throws {
        let sandbox = try Sandbox()
        let ids = try (0..<2).map { try page(sandbox, "要丟的第 \($0) 頁") }
        #expect(try sandbox.run("diary-save", ["--delete"], stdin: ids.joined(separator: "\n") + "\n").status == 0)
        func inTrash() throws -> [String] { try sandbox.run("diary-find", ["--trash"]).lines.compactMap { $0["id"] as? String } }
        #expect(Set(try inTrash()) == Set(ids))

        // An empty pipe, a filtered list that came out empty, tag tiles: none names a page.
        let tags = try sandbox.run("diary-find", ["--tags"]).stdout
        for input in ["", "\n", tags] {
            let refused = try sandbox.run("diary-save", ["--purge"], stdin: input)
            #expect(refused.status == 64, "\(input.debugDescription): \(refused.stderr)")
            #expect(refused.stdout.isEmpty && refused.stderr.contains("--all"))
            #expect(Set(try inTrash()) == Set(ids), "the trash is as it was")
        }
        #expect(try sandbox.run("diary-save", ["--all"]).status == 64, "--all goes with --purge")
        #expect(try sandbox.run("diary-save", ["--purge", "--all", ids[0]]).status == 64, "and names nothing")

        // Named on stdin: those only. Then --all empties the rest.
        let one = try sandbox.run("diary-save", ["--purge"], stdin: ids[0] + "\n")
        #expect(one.status == 0 && one.lines.first?["pages"] as? Int == 1)
        #expect(try inTrash() == [ids[1]])
        let all = try sandbox.run("diary-save", ["--purge", "--all"])
        #expect(all.status == 0 && all.lines.first?["pages"] as? Int == 1, "\(all.stderr)")
        #expect(try inTrash() == [])
    }

    @Test("stars and your own order")
    func starsAndOrder() throws {
        let sandbox = try Sandbox()
        let ids = try (0..<3).map { try page(sandbox, "第 \($0) 篇") }
        #expect(try sandbox.run("diary-save", ["--star", ids[0]]).lines[0]["starred"] as? Bool == true)
        #expect(try sandbox.run("diary-find", ["--starred"]).lines.map { $0["id"] as? String } == [ids[0]])
        sandbox.extraEnvironment["NO_COLOR"] = "1"
        #expect(try sandbox.run("diary-find", ["--starred", "--text"]).stdout.contains("★"))

        #expect(try sandbox.run("diary-find", ["--sort", "manual"]).lines.map { $0["id"] as? String } == ids.reversed())
        #expect(try sandbox.run("diary-save", ["--move", ids[0], "--before", ids[2]]).status == 0)
        #expect(try sandbox.run("diary-find", ["--sort", "manual"]).lines.map { $0["id"] as? String } == [ids[0], ids[2], ids[1]])
        #expect(try sandbox.run("diary-save", ["--move", ids[1], "--after", ids[0]]).status == 0)
        #expect(try sandbox.run("diary-find", ["--sort", "manual"]).lines.map { $0["id"] as? String } == [ids[0], ids[1], ids[2]])
        #expect(try sandbox.run("diary-save", ["--move", ids[1]]).status == 64, "a move needs --before or --after")
    }

    @Test("a star goes out to Day One and comes back in")
    func starThroughDayOne() throws {
        let sandbox = try Sandbox()
        let starred = try page(sandbox, "有星號的一頁")
        let plain = try page(sandbox, "沒有星號的一頁")
        #expect(try sandbox.run("diary-save", ["--star", starred]).status == 0)
        let zip = sandbox.root.appendingPathComponent("journal.zip")
        let exported = try sandbox.run("diary-sync", ["export", "--format", "dayone", "-o", zip.path])
        #expect(exported.status == 0, "\(exported.stderr)")

        let other = try Sandbox()
        let imported = try other.run("diary-sync", ["import", zip.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let pages = try other.run("diary-find").lines
        #expect(pages.count == 2)
        #expect(pages.filter { $0["starred"] as? Bool == true }.map { $0["title"] as? String } == ["有星號的一頁"])
        _ = plain
    }

    @Test("gc removes only old files no page uses")
    func garbage() throws {
        let sandbox = try Sandbox()
        let id = try page(sandbox, "留著")
        _ = id
        let orphan = sandbox.home.appendingPathComponent("media/ab/\(String(repeating: "ab", count: 32)).jpg")
        try FileManager.default.createDirectory(at: orphan.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("left by a crash".utf8).write(to: orphan)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: orphan.path)
        let dry = try sandbox.run("diary-sync", ["gc", "--dry-run"])
        #expect(dry.status == 0)
        #expect(dry.lines.map { $0["path"] as? String } == [orphan.path])
        #expect(FileManager.default.fileExists(atPath: orphan.path))
        let removed = try sandbox.run("diary-sync", ["gc"])
        #expect(removed.status == 0)
        #expect(removed.stderr.contains("已移除 1 個"))
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
    }

    @Test("a page left in the trash longer than keep_days is purged by the next write")
    func trashExpires() throws {
        let sandbox = try Sandbox()
        let old = try page(sandbox, "放很久的")
        let recent = try page(sandbox, "剛丟的")
        #expect(try sandbox.run("diary-save", ["--delete", old]).status == 0)
        #expect(try sandbox.run("diary-save", ["--delete", recent]).status == 0)
        let config = sandbox.root.appendingPathComponent("config/diary/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("[trash]\nkeep_days = 2\n".utf8).write(to: config)
        _ = try sandbox.sql("UPDATE entry SET trashed_at = trashed_at - 3 * 86400000 WHERE id = '\(old)'")
        // Reading does not purge; the next write does.
        #expect(try sandbox.run("diary-find", ["--trash"]).lines.count == 2)
        #expect(try sandbox.run("diary-new", ["--text-only", "--text", "新的一天"]).status == 0)
        #expect(try sandbox.run("diary-find", ["--trash"]).lines.map { $0["id"] as? String } == [recent])
        #expect(try sandbox.sql("SELECT deleted_at IS NOT NULL, title IS NULL FROM entry WHERE id = '\(old)'") == "1|1")
    }

    @Test("an offline page gets only tags that mean something; --tidy-tags takes old fillers off and --undo puts them back")
    func tidyTags() throws {
        let sandbox = try Sandbox()
        let bare = try page(sandbox, "嗯")
        #expect(try sandbox.run("diary-find", ["--show", bare]).lines[0]["tags"] as? [String] == [], "no 隨筆 and no season")

        // An older page: 隨筆 is the filler of a page without media, 照片 is not; 秋天 the person wrote.
        let id = try page(sandbox, "秋天的海邊")
        let tagged = try sandbox.run("diary-save", [id, "--add-tag", "隨筆", "--add-tag", "照片", "--add-tag", "秋天"])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        let before = try sandbox.run("diary-find", ["--show", id]).lines[0]
        let tags = try #require(before["tags"] as? [String])
        #expect(tags.contains("隨筆") && tags.contains("海邊"))

        let preview = try sandbox.run("diary-save", ["--tidy-tags", "--dry-run"])
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.lines.count == 1)
        #expect(preview.lines[0]["kind"] as? String == "tag_tidy")
        #expect(preview.lines[0]["id"] as? String == id)
        #expect(preview.lines[0]["remove"] as? [String] == ["隨筆"])
        #expect(preview.stderr.contains("會從 1 篇日記拿掉 1 個填充標籤"), "\(preview.stderr)")
        #expect(try sandbox.run("diary-find", ["--show", id]).lines[0]["tags"] as? [String] == tags, "a dry run changes nothing")

        let tidied = try sandbox.run("diary-save", ["--tidy-tags"])
        #expect(tidied.status == 0, "\(tidied.stderr)")
        #expect(tidied.lines.map { $0["id"] as? String } == [id])
        #expect(tidied.lines[0]["tags"] as? [String] == tags.filter { $0 != "隨筆" })
        #expect(tidied.lines[0]["edited_at"] as? String == before["edited_at"] as? String, "the clean-up is not an edit by hand")
        #expect(try sandbox.run("diary-find", ["--tag", "隨筆"]).status == 1)

        let undone = try sandbox.run("diary-save", ["--tidy-tags", "--undo"])
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(Set(try #require(undone.lines.first?["tags"] as? [String])) == Set(tags))
        #expect(undone.stderr.contains("已把填充標籤放回 1 篇日記"))

        for arguments in [["--tidy-tags", "--dry-run", "--undo"], ["--undo"], [id, "--tidy-tags"], ["--tidy-tags", "--star"]] {
            let wrong = try sandbox.run("diary-save", arguments)
            #expect(wrong.status == 64, "\(arguments): \(wrong.stderr)")
            #expect(wrong.stdout.isEmpty)
        }
    }
}
