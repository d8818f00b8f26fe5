import DiaryKit
import Foundation
import Testing

@Suite("Every error: its words, its exit status, and a store left as it was")
struct ErrorTests {
    /// A sandbox that already holds one saved page, so "unchanged" means something.
    func populated() throws -> Sandbox {
        let sandbox = try Sandbox()
        let photo = try sandbox.makeMedia("first.jpg")
        _ = try sandbox.pipeline([("diary-new", [photo.path, "--text", "第一天"]), ("diary-chat", ["-m", "很開心"]), ("diary-save", [])])
        return sandbox
    }

    func expectFailure(_ sandbox: Sandbox, _ tool: String, _ arguments: [String], input: Data = Data(),
                       status: Int32, says words: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try sandbox.snapshot()
        let result = try sandbox.run(tool, arguments, input: input)
        #expect(result.status == status, "\(tool) \(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(words), "stderr was: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "nothing on stdout", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("SQLITE") && !result.stderr.contains("Error("), sourceLocation: sourceLocation)
        #expect(try sandbox.snapshot() == before, "the store is unchanged", sourceLocation: sourceLocation)
    }

    @Test("no media, missing file, unreadable photo and video, too large, too long")
    func intakeErrors() throws {
        let sandbox = try populated()
        try expectFailure(sandbox, "diary-new", ["--text", "沒有照片"], status: 64, says: "請先選擇照片或影片")
        try expectFailure(sandbox, "diary-new", ["nowhere.jpg"], status: 66, says: "找不到檔案")
        // Things that exist but are not files are named for what they are.
        try expectFailure(sandbox, "diary-new", [sandbox.root.path], status: 65, says: "這是資料夾，不是檔案")
        let fifo = sandbox.root.appendingPathComponent("pipe.jpg")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        try expectFailure(sandbox, "diary-new", [fifo.path], status: 65, says: "這不是一般檔案")
        try expectFailure(sandbox, "diary-new", ["/dev/zero"], status: 65, says: "這不是一般檔案")
        let fake = try sandbox.makeFile("fake.jpg", Data("not a photo at all".utf8))
        try expectFailure(sandbox, "diary-new", [fake.path], status: 65, says: "照片讀取失敗，請換一張或稍後再試")
        var brokenVideo = Data([0, 0, 0, 0x18]) + Data("ftypisom".utf8) + Data([0, 0, 2, 0]) + Data("isomiso2".utf8)
        brokenVideo += Data(repeating: 0x5a, count: 4096)
        let broken = try sandbox.makeFile("broken.mp4", brokenVideo)
        try expectFailure(sandbox, "diary-new", [broken.path], status: 65, says: "影片讀取失敗，請換一段或稍後再試")
        let photo = try sandbox.makeMedia("ok.jpg")
        let truncated = try sandbox.makeFile("cut.jpg", try Data(contentsOf: photo).prefix(600))
        try expectFailure(sandbox, "diary-new", [truncated.path], status: 65, says: "照片讀取失敗")
        try FileManager.default.createDirectory(at: sandbox.root.appendingPathComponent("config/diary"), withIntermediateDirectories: true)
        try Data("[limits]\nphoto_mb = 1\n".utf8).write(to: sandbox.root.appendingPathComponent("config/diary/config.toml"))
        let big = try sandbox.makeFile("big.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0, count: 1_100_000))
        try expectFailure(sandbox, "diary-new", [big.path], status: 65, says: "超過 1 MB 上限")
        try expectFailure(sandbox, "diary-new", ["--text-only", "--text", String(repeating: "字", count: 501)],
                          status: 64, says: "文字太長，請簡短一點")
        try expectFailure(sandbox, "diary-chat", ["-m", String(repeating: "長", count: 501)], status: 64, says: "文字太長")
        // 500 characters people see are fine, however many bytes or scalars they take.
        let family = String(repeating: "👨‍👩‍👧", count: 500)
        #expect(try sandbox.run("diary-new", ["--text-only", "--text", family]).status == 0)
    }

    @Test("a synced setting refuses a value it does not know, and stores nothing")
    func settingsRefuseUnknownValues() throws {
        let sandbox = try populated()
        for value in ["english", "fr", "klingon", "enormous"] {
            try expectFailure(sandbox, "diary-sync", ["set", "language", value], status: 64, says: "參數有誤")
        }
        #expect(try sandbox.run("diary-sync", ["set", "language", "en-GB"]).status == 0)
        #expect(try sandbox.sql("SELECT value FROM setting WHERE key = 'language'") == "en")
    }

    @Test("English twins of the intake errors")
    func englishErrors() throws {
        let sandbox = try populated()
        sandbox.language = "en_US.UTF-8"
        try expectFailure(sandbox, "diary-new", [], status: 64, says: "Please choose a photo or a video first")
        let fake = try sandbox.makeFile("fake.mp4", Data("nope".utf8))
        try expectFailure(sandbox, "diary-new", [fake.path], status: 65, says: "The photo could not be read")
        try expectFailure(sandbox, "diary-new", ["--text-only", "--text", String(repeating: "a", count: 501)],
                          status: 64, says: "That text is too long")
    }

    @Test("malformed or non-UTF-8 stdin gives 65 and changes nothing")
    func badStdin() throws {
        let sandbox = try populated()
        try expectFailure(sandbox, "diary-chat", ["-m", "hi"], input: Data("{\"id\": oops}\n".utf8), status: 65, says: "第 1 行")
        try expectFailure(sandbox, "diary-save", [], input: Data("{\"kind\":\"entry\"}\nnot json\n".utf8), status: 65, says: "第 2 行")
        try expectFailure(sandbox, "diary-save", [], input: Data([0xff, 0xfe, 0x7b, 0x0a]), status: 65, says: "不是 UTF-8")
    }

    @Test("unknown ids, no open draft, nothing to retry, saved pages are not discarded")
    func selectionErrors() throws {
        let sandbox = try populated()
        try expectFailure(sandbox, "diary-chat", ["ffffffff", "-m", "hi"], status: 66, says: "找不到這篇日記")
        try expectFailure(sandbox, "diary-chat", ["-m", "hi"], status: 66, says: "沒有進行中的草稿")
        try expectFailure(sandbox, "diary-save", ["--retry"], status: 65, says: "沒有需要重試的內容")
        let id = try sandbox.sql("SELECT id FROM entry")
        try expectFailure(sandbox, "diary-save", ["--discard", id], status: 65, says: "不能用 --discard 丟棄")
        try expectFailure(sandbox, "diary-chat", [id, "--persona", "grumpy", "-m", "hi"], status: 64, says: "沒有這個陪伴角色")
        try expectFailure(sandbox, "diary-find", ["--on", "2026-13"], status: 64, says: "看不懂這個日期")
    }

    @Test("a database from a newer version is refused and left untouched")
    func newerDatabase() throws {
        let sandbox = try populated()
        _ = try sandbox.sql("INSERT INTO grdb_migrations VALUES ('v99-from-the-future')")
        try expectFailure(sandbox, "diary-find", [], status: 78, says: "較新版本")
        try expectFailure(sandbox, "diary-new", ["--text-only"], status: 78, says: "較新版本")
    }

    @Test("a broken config.toml is a configuration error")
    func badConfig() throws {
        let sandbox = try populated()
        try FileManager.default.createDirectory(at: sandbox.root.appendingPathComponent("config/diary"), withIntermediateDirectories: true)
        try Data("lang = [oops".utf8).write(to: sandbox.root.appendingPathComponent("config/diary/config.toml"))
        try expectFailure(sandbox, "diary-find", [], status: 78, says: "設定檔有誤")
    }

    @Test("the three empty states of diary-find, with exit 1")
    func emptyStates() throws {
        let sandbox = try Sandbox()
        let empty = try sandbox.run("diary-find")
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("目前還沒有日記"))
        _ = try sandbox.pipeline([("diary-new", ["--text-only", "--text", "散步"]), ("diary-save", [])])
        let noTag = try sandbox.run("diary-find", ["--tag", "不存在的分類"])
        #expect(noTag.status == 1)
        #expect(noTag.stderr.contains("這個分類還沒有日記"))
        let noMatch = try sandbox.run("diary-find", ["海邊"])
        #expect(noMatch.status == 1)
        #expect(noMatch.stderr.contains("找不到符合的日記"))
        #expect(noMatch.stdout.isEmpty)
    }

    @Test("hostile queries are plain text: they never fail and never widen")
    func hostileQueries() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.pipeline([("diary-new", ["--text-only", "--text", "coffee and a walk"]), ("diary-save", [])])
        for query in ["NEAR(\"a\" b)", "*", "-", ":", "\"", "coffee OR x", "title:coffee", "coffee*", "a AND", "(", "'", "^coffee"] {
            let result = try sandbox.run("diary-find", [query])
            #expect([0, 1].contains(result.status), "\(query): \(result.stderr)")
            #expect(!result.stderr.contains("SQLITE") && !result.stderr.contains("syntax"), "\(query)")
        }
        #expect(try sandbox.run("diary-find", ["*"]).status == 1, "a bare * matches nothing, not everything")
        #expect(try sandbox.run("diary-find", ["coffee OR x"]).status == 1, "OR is a word, not an operator")
        #expect(try sandbox.run("diary-find", ["title:coffee"]).status == 1, "title: is not a column filter")
    }

    @Test("a failed write to stdout is an I/O error, said on stderr")
    func fullDisk() throws {
        let sandbox = try populated()
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = ["-c", "'\(Sandbox.binaries.appendingPathComponent("diary-find").path)' --json > /dev/full"]
        shell.environment = sandbox.environment
        let err = Pipe()
        shell.standardError = err
        try shell.run()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 74)
        #expect(errors.contains("讀寫失敗"))
    }

    @Test("a reader that goes away is not an error")
    func brokenPipe() throws {
        let sandbox = try Sandbox()
        let store = try DiaryStore.open(DiaryPaths(homeFlag: sandbox.home.path, environment: [:]))
        for index in 0..<300 {
            _ = try store.createEntry(NewEntry(occurredAt: Date(), timeZone: .current, note: "第 \(index) 篇 " + String(repeating: "字", count: 200),
                                               persona: "warm", media: []))
        }
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        let tool = Sandbox.binaries.appendingPathComponent("diary-find").path
        shell.arguments = ["-c", "'\(tool)' --json | head -c 10 > /dev/null; echo \"${PIPESTATUS[0]}\""]
        shell.environment = sandbox.environment
        let out = Pipe(), err = Pipe()
        shell.standardOutput = out
        shell.standardError = err
        try shell.run()
        let status = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        #expect(status.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(errors.isEmpty, "\(errors)")
    }
}
