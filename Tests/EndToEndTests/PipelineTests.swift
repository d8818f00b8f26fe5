import Foundation
import Testing

@Suite("The offline pipeline through real pipes")
struct PipelineTests {
    @Test("diary-new | diary-chat -m | diary-save writes a saved page with 3–8 tags")
    func photoPipeline() throws {
        let sandbox = try Sandbox()
        let photo = try sandbox.makeMedia("beach.jpg", size: "640x480")
        let results = try sandbox.pipeline([
            ("diary-new", [photo.path, "--text", "今天去海邊"]),
            ("diary-chat", ["-m", "風好大，但很舒服"]),
            ("diary-save", []),
        ])
        for result in results { #expect(result.status == 0, "\(result.stderr)") }

        let draft = try #require(results[0].lines.first)
        #expect(draft["kind"] as? String == "entry")
        #expect(draft["status"] as? String == "draft")
        let media = try #require((draft["media"] as? [[String: Any]])?.first)
        #expect(media["kind"] as? String == "photo")
        #expect(media["mime"] as? String == "image/jpeg")
        #expect(media["width"] as? Int == 640)
        #expect(media["height"] as? Int == 480)
        #expect(FileManager.default.fileExists(atPath: try #require(media["path"] as? String)))
        #expect(results[0].stderr.contains("InnerBloom 夥伴"), "the fixed welcome goes to stderr")
        #expect(!results[0].stdout.contains("InnerBloom 夥伴"), "stdout is data only")

        let messages = results[1].lines
        #expect(messages.map { $0["kind"] as? String } == ["message", "message", "message"])
        #expect(messages.map { $0["author"] as? String } == ["companion", "person", "companion"])
        #expect(messages[1]["text"] as? String == "風好大，但很舒服")
        #expect(messages.allSatisfy { $0["entry_id"] as? String == draft["id"] as? String })
        let reply = try #require(messages[2]["text"] as? String)
        #expect(reply.contains("風好大"), "the reply takes up what was said")
        #expect(reply.contains("？"), "the reply asks a follow-up question")

        let page = try #require(results[2].lines.first)
        #expect(page["id"] as? String == draft["id"] as? String)
        #expect(page["status"] as? String == "saved")
        #expect(page["provider"] as? String == "offline")
        let tags = try #require(page["tags"] as? [String])
        #expect((3...8).contains(tags.count))
        #expect(tags.contains("放鬆"), "舒服 is heard as 放鬆")
        #expect(tags.contains("海邊"))
        let summary = try #require(page["summary"] as? String)
        #expect(summary.contains("今天去海邊") && summary.contains("風好大，但很舒服"), "the page is in the person's own words")
        #expect(page["message_count"] as? Int == 3)
        #expect(try sandbox.sql("SELECT count FROM usage WHERE kind = 'page'") == "1")
    }

    @Test("a video goes through the same pipeline, and find/show/tags see the page")
    func videoPipelineAndFind() throws {
        let sandbox = try Sandbox()
        let video = try sandbox.makeMedia("cat.mp4", seconds: 2)
        let results = try sandbox.pipeline([
            ("diary-new", [video.path]),
            ("diary-chat", ["-m", "牠今天好皮，我們去公園散步"]),
            ("diary-save", []),
        ])
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        let page = try #require(results[2].lines.first)
        let media = try #require((page["media"] as? [[String: Any]])?.first)
        #expect(media["kind"] as? String == "video")
        #expect((media["duration"] as? Double).map { abs($0 - 2) < 0.5 } == true)
        let id = try #require(page["id"] as? String)

        let found = try sandbox.run("diary-find", ["公園"])
        #expect(found.status == 0)
        #expect(found.lines.map { $0["id"] as? String } == [id])

        let tags = try #require(page["tags"] as? [String])
        let byTag = try sandbox.run("diary-find", ["--tag", tags[0]])
        #expect(byTag.lines.map { $0["id"] as? String } == [id])

        let shown = try sandbox.run("diary-find", ["--show", String(id.prefix(8))])
        #expect(shown.status == 0)
        let full = try #require(shown.lines.first)
        #expect((full["messages"] as? [[String: Any]])?.count == 3)

        let tiles = try sandbox.run("diary-find", ["--tags"])
        #expect(tiles.lines.first?["name"] as? String == "全部")
        #expect(tiles.lines.first?["count"] as? Int == 1)
        #expect(Set(tiles.lines.dropFirst().compactMap { $0["name"] as? String }) == Set(tags))
    }

    @Test("diary-chat and diary-save without an id continue the latest draft; days later the history is kept")
    func continuesLatestDraft() throws {
        let sandbox = try Sandbox()
        let first = try sandbox.run("diary-new", ["--text-only", "--text", "第一篇"])
        let second = try sandbox.run("diary-new", ["--text-only", "--text", "第二篇"])
        let secondId = try #require(second.lines.first?["id"] as? String)
        let turn = try sandbox.run("diary-chat", ["-m", "接著聊第二篇"])
        #expect(turn.lines.allSatisfy { $0["entry_id"] as? String == secondId })
        // Continuing by prefix later keeps everything said before.
        let later = try sandbox.run("diary-chat", [String(secondId.prefix(13)), "-m", "隔天再聊"])
        #expect(later.status == 0)
        let shown = try sandbox.run("diary-find", ["--show", secondId, "--json"])
        let texts = (shown.lines.first?["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
        #expect(texts.contains("接著聊第二篇") && texts.contains("隔天再聊"))
        #expect(texts.count == 5, "greeting, two messages, two replies")
        _ = first
    }

    @Test("text on a terminal-less pipe can be forced readable, and English follows --lang")
    func readableAndEnglish() throws {
        let sandbox = try Sandbox()
        let photo = try sandbox.makeMedia("p.png")
        let new = try sandbox.run("diary-new", [photo.path, "--lang", "en", "--readable", "--text", "Coffee with an old friend"])
        #expect(new.status == 0)
        #expect(new.stdout.contains("Coffee with an old friend"))
        #expect(!new.stdout.hasPrefix("{"))
        #expect(new.stderr.contains("InnerBloom companion"))
        let chat = try sandbox.run("diary-chat", ["--lang", "en", "--text", "-m", "I was so happy to see her"])
        #expect(chat.stdout.hasPrefix("A-Nuan: "), "\(chat.stdout)")
        let save = try sandbox.run("diary-save", ["--lang", "en", "--json"])
        let tags = try #require(save.lines.first?["tags"] as? [String])
        #expect(tags.contains("happy") && tags.contains("coffee") && tags.contains("friends"), "\(tags)")
        for result in [new, chat, save] {
            #expect(!result.stdout.contains("AI") && !result.stderr.contains("AI"))
        }
    }

    @Test("diary-chat --personas lists the four companions with their cards")
    func personaCards() throws {
        let sandbox = try Sandbox()
        let cards = try sandbox.run("diary-chat", ["--personas"]).lines
        #expect(cards.map { $0["id"] as? String } == ["warm", "clear", "fun", "empath"])
        #expect(cards.map { $0["name"] as? String } == ["阿暖", "阿衡", "阿樂", "阿澄"])
        #expect(cards.allSatisfy { ($0["sample"] as? String)?.isEmpty == false && ($0["description"] as? String)?.isEmpty == false })
        #expect(!FileManager.default.fileExists(atPath: sandbox.home.path), "listing opens no diary")
    }

    @Test("--discard removes a draft and its media file, and nothing else")
    func discard() throws {
        let sandbox = try Sandbox()
        let photo = try sandbox.makeMedia("keep.jpg")
        let other = try sandbox.makeMedia("drop.png")
        let kept = try sandbox.run("diary-new", [photo.path])
        let keptDraft = try #require(kept.lines.first?["id"] as? String)
        let dropped = try sandbox.run("diary-new", [other.path, "--text", "誤觸"])
        let droppedId = try #require(dropped.lines.first?["id"] as? String)
        let droppedPath = try #require(((dropped.lines.first?["media"]) as? [[String: Any]])?.first?["path"] as? String)
        _ = try sandbox.run("diary-chat", ["-m", "算了"])
        let result = try sandbox.run("diary-save", ["--discard"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("已丟棄草稿"))
        #expect(!FileManager.default.fileExists(atPath: droppedPath))
        #expect(try sandbox.sql("SELECT count(*) FROM entry WHERE id = '\(droppedId)'") == "0")
        #expect(try sandbox.sql("SELECT count(*) FROM message WHERE entry_id = '\(droppedId)'") == "0")
        #expect(try sandbox.sql("SELECT count(*) FROM outbox WHERE row_id LIKE '\(droppedId)%'") == "0")
        #expect(try sandbox.searchIndexIsConsistent(), "the discarded draft left the index too")
        #expect(try sandbox.run("diary-find", ["誤觸"]).status == 1)
        #expect(try sandbox.sql("SELECT id FROM entry") == keptDraft)
        // The same photo in a second entry is stored once and survives the other's discard.
        let again = try sandbox.run("diary-new", [photo.path])
        #expect(try sandbox.sql("SELECT count(DISTINCT sha256) FROM media") == "1")
        _ = try sandbox.run("diary-save", ["--discard", try #require(again.lines.first?["id"] as? String)])
        let keptPath = try #require(((kept.lines.first?["media"]) as? [[String: Any]])?.first?["path"] as? String)
        #expect(FileManager.default.fileExists(atPath: keptPath))
    }

    @Test("a failed page keeps the chat as summary_failed, and --retry finishes it")
    func summaryFailedAndRetry() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.run("diary-new", ["--text-only", "--text", "加班到很晚"])
        _ = try sandbox.run("diary-chat", ["-m", "好累但有完成"])
        sandbox.extraEnvironment["DIARY_OFFLINE_FAIL"] = "page"
        let failed = try sandbox.run("diary-save")
        #expect(failed.status == 75)
        #expect(failed.stderr.contains("總結/標籤生成失敗，但聊天已保存。可稍後再生成。"))
        #expect(failed.stdout.isEmpty)
        #expect(try sandbox.sql("SELECT status FROM entry") == "summary_failed")
        #expect(try sandbox.sql("SELECT count(*) FROM message") == "3")
        sandbox.extraEnvironment = [:]
        let retried = try sandbox.run("diary-save", ["--retry"])
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.lines.first?["status"] as? String == "saved")
        #expect(try sandbox.sql("SELECT count(*) FROM tag") != "0")
    }

    @Test("a failed reply keeps the person's message, and diary-chat --retry answers it")
    func replyFailedAndRetry() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.run("diary-new", ["--text-only", "--text", "今天"])
        _ = try sandbox.run("diary-chat")
        sandbox.extraEnvironment["DIARY_OFFLINE_FAIL"] = "reply"
        let failed = try sandbox.run("diary-chat", ["-m", "這句不能不見"])
        #expect(failed.status == 75)
        #expect(failed.stderr.contains("傳送失敗，可用 --retry 重試"))
        #expect(try sandbox.sql("SELECT text FROM message WHERE author = 'person'") == "這句不能不見")
        sandbox.extraEnvironment = [:]
        let retried = try sandbox.run("diary-chat", ["--retry"])
        #expect(retried.status == 0)
        #expect(retried.lines.map { $0["author"] as? String } == ["companion"])
        #expect(try sandbox.sql("SELECT count(*) FROM message") == "3")
        let nothing = try sandbox.run("diary-chat", ["--retry"])
        #expect(nothing.status == 65)
    }
}
