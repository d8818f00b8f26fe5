import FakeServers
import Foundation
import Testing

/// The binaries against a fake OpenAI-compatible provider and a fake Open-Meteo, both
/// speaking the real wire formats on loopback.
@Suite("A real model endpoint, faked on loopback", .serialized)
struct ProviderTests {
    static let key = "sk-e2e-secret-abcdef123456"

    /// A sandbox whose config points at the fakes.
    func sandbox(_ fake: FakeOpenAI, sky: FakeOpenMeteo? = nil, consent: Bool = true, failover: String? = nil) throws -> Sandbox {
        let sandbox = try Sandbox()
        let folder = sandbox.root.appendingPathComponent("config/diary")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var config = """
            [companion]
            provider = "fake"
            consent = \(consent)
            retries = 1
            timeout_seconds = 30

            [providers.fake]
            base_url = "\(fake.baseURL)"
            model = "fake-model"
            api_key_env = "FAKE_KEY"

            """
        if let failover { config = config.replacingOccurrences(of: "retries = 1", with: "retries = 1\nfailover = \(failover)") }
        if let sky { config += "[weather]\nbase_url = \"\(sky.baseURL)\"\narchive_url = \"\(sky.baseURL)\"\n" }
        try config.write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        sandbox.extraEnvironment = ["FAKE_KEY": Self.key]
        return sandbox
    }

    func expectNoKey(_ sandbox: Sandbox, _ results: [RunResult]) throws {
        for result in results {
            #expect(!result.stdout.contains("abcdef123456") && !result.stderr.contains("abcdef123456"))
        }
        #expect(!(try sandbox.snapshot()).contains("abcdef123456"), "the key is not in the database")
    }

    @Test("photo → chat → page through the pipes, with vision, weather and the model's page")
    func wholePipeline() async throws {
        let fake = try await FakeOpenAI.start(apiKey: Self.key)
        let sky = try await FakeOpenMeteo.start(weatherCode: 61, temperature: 18.5)
        defer { Task { try? await fake.shutdown(); try? await sky.shutdown() } }
        let sandbox = try sandbox(fake, sky: sky)
        let photo = try sandbox.makeMedia("beach.jpg", size: "1600x1200")
        fake.enqueueChat(.reply("一片灰色的海和濕濕的沙灘。"), .reply("下雨的傍晚，這片海看起來好安靜。你那時在想什麼？"),
                         .reply("風大也很舒服，真好。"))
        let new = try await sandbox.runDetached("diary-new", [photo.path, "--text", "今天去海邊", "--location", "25.13,121.74"])
        #expect(new.status == 0, "\(new.stderr)")
        let chat = try await sandbox.runDetached("diary-chat", ["-m", "風好大，但很舒服"], input: new.stdoutData)
        #expect(chat.status == 0, "\(chat.stderr)")
        #expect(chat.lines.compactMap { $0["provider"] as? String } == ["fake", "fake"])
        #expect((chat.lines.last?["text"] as? String) == "風大也很舒服，真好。")
        let save = try await sandbox.runDetached("diary-save", [], input: chat.stdoutData)
        #expect(save.status == 0, "\(save.stderr)")
        let page = try #require(save.lines.first)
        #expect(page["title"] as? String == "假日的海邊" && page["tags"] as? [String] == ["旅行", "海邊", "放鬆"])
        #expect(page["analysis"] as? String == "一片灰色的海和濕濕的沙灘。")
        let weather = (page["context"] as? [String: Any])?["weather"] as? [String: Any]
        #expect(weather?["description"] as? String == "小雨")

        let requests = fake.chatRequests
        #expect(requests.count == 4)
        // The photo went out downscaled, as JPEG, in the analysis only.
        let image = try #require(requests[0].messages.last?.imageURLs.first)
        #expect(image.hasPrefix("data:image/jpeg;base64,"))
        let jpeg = try #require(Data(base64Encoded: String(image.dropFirst("data:image/jpeg;base64,".count))))
        let probe = try sandbox.makeFile("sent.jpg", jpeg)
        let size = try ffprobeSize(probe)
        #expect(size == (1024, 768), "sent at \(size)")
        #expect(requests.dropFirst().allSatisfy { $0.messages.allSatisfy(\.imageURLs.isEmpty) })
        // Every turn carries the context; the page is asked for with the schema and the tags.
        #expect(requests[1].messages[0].text.contains("[天氣] 小雨") && requests[2].messages[0].text.contains("一片灰色的海"))
        #expect(requests[3].responseFormat == "json_schema")
        try expectNoKey(sandbox, [new, chat, save])
    }

    @Test("--verbose shows the requests but never the key, even when the service echoes it")
    func verboseNeverShowsTheKey() async throws {
        let fake = try await FakeOpenAI.start(apiKey: "sk-the-right-one-000")
        defer { Task { try? await fake.shutdown() } }
        let sandbox = try sandbox(fake)
        _ = try sandbox.run("diary-new", ["--text-only", "--text", "x"])
        let chat = try await sandbox.runDetached("diary-chat", ["--verbose", "-m", "你好"])
        #expect(chat.status == 0, "the offline companion answers when the provider refuses: \(chat.stderr)")
        #expect(chat.stderr.contains("Bearer <redacted>") && chat.stderr.contains("HTTP 401"))
        #expect(chat.stderr.contains("連線的夥伴暫時沒有回應"))
        #expect(chat.lines.last?["provider"] as? String == "offline")
        try expectNoKey(sandbox, [chat])
    }

    @Test("--verbose never shows a password or a key written into the base URL")
    func verboseHidesSecretsInTheBaseURL() async throws {
        let fake = try await FakeOpenAI.start(apiKey: Self.key)
        defer { Task { try? await fake.shutdown() } }
        let sandbox = try sandbox(fake)
        // The host such a URL names ("ss") is looked up in DNS, and the client keeps trying to
        // connect until the turn's time is up: short lookups and a short turn keep this test short.
        sandbox.extraEnvironment["RES_OPTIONS"] = "timeout:1 attempts:1"
        let config = sandbox.root.appendingPathComponent("config/diary/config.toml")
        let secretURL = fake.baseURL.replacingOccurrences(of: "://", with: "://me:p@ss/w:rd@") + "?api-key=sk-in-the-query-42"
        try String(contentsOf: config, encoding: .utf8).replacingOccurrences(of: fake.baseURL, with: secretURL)
            .replacingOccurrences(of: "timeout_seconds = 30", with: "timeout_seconds = 3")
            .write(to: config, atomically: true, encoding: .utf8)
        _ = try sandbox.run("diary-new", ["--text-only", "--text", "x"])
        let chat = try await sandbox.runDetached("diary-chat", ["--verbose", "-m", "你好"])
        #expect(chat.stderr.contains("me:…@") && chat.stderr.contains("api-key=…"), "\(chat.stderr)")
        for secret in ["p@ss", "w:rd", "sk-in-the-query-42"] { #expect(!chat.stderr.contains(secret) && !chat.stdout.contains(secret)) }
    }

    @Test("a turn that still fails keeps the message, exits 75, and --retry finishes it")
    func failedTurnAndRetry() async throws {
        let fake = try await FakeOpenAI.start(apiKey: Self.key)
        defer { Task { try? await fake.shutdown() } }
        let sandbox = try sandbox(fake, failover: "[]")
        _ = try sandbox.run("diary-new", ["--text-only", "--text", "x"])
        fake.enqueueChat(.reply("嗨"), .fail(status: 500), .fail(status: 502))
        let failed = try await sandbox.runDetached("diary-chat", ["-m", "別弄丟我"])
        #expect(failed.status == 75)
        #expect(failed.stderr.contains("傳送失敗，可用 --retry 重試"))
        #expect(try sandbox.sql("SELECT author || ':' || text FROM message ORDER BY seq") == "companion:嗨\nperson:別弄丟我")
        fake.enqueueChat(.reply("我在，慢慢說。"))
        let retried = try await sandbox.runDetached("diary-chat", ["--retry"])
        #expect(retried.status == 0 && retried.lines.last?["text"] as? String == "我在，慢慢說。")
    }

    @Test("without consent and without a terminal nothing is sent (77)")
    func consentIsRequired() async throws {
        let fake = try await FakeOpenAI.start(apiKey: Self.key)
        defer { Task { try? await fake.shutdown() } }
        let sandbox = try sandbox(fake, consent: false)
        _ = try sandbox.run("diary-new", ["--text-only", "--text", "x"])
        let before = try sandbox.snapshot()
        let chat = try await sandbox.runDetached("diary-chat", ["-m", "你好"])
        #expect(chat.status == 77 && chat.stderr.contains("還沒同意把內容送到 fake"))
        #expect(fake.chatRequests.isEmpty)
        #expect(try sandbox.snapshot() == before)
        let offline = try await sandbox.runDetached("diary-chat", ["--provider", "offline", "-m", "你好"])
        #expect(offline.status == 0 && fake.chatRequests.isEmpty, "the offline companion needs no consent")
    }

    @Test("a voice memo is kept with the entry and transcribed into it")
    func voiceMemo() async throws {
        let fake = try await FakeOpenAI.start(apiKey: Self.key)
        defer { Task { try? await fake.shutdown() } }
        let sandbox = try sandbox(fake)
        let memo = try makeMemo(sandbox)
        let video = try sandbox.makeMedia("cat.mp4", seconds: 3)
        fake.enqueueTranscription(.text("其實今天有點累"), .text(""))
        let new = try await sandbox.runDetached("diary-new", ["--voice", memo.path, video.path])
        #expect(new.status == 0, "\(new.stderr)")
        let entry = try #require(new.lines.first)
        #expect(entry["transcript"] as? String == "其實今天有點累")
        #expect((entry["media"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } == ["video", "audio"])
        #expect(fake.transcriptionRequests.first?.fileBytes == (try Data(contentsOf: memo)).count)

        let unheard = try await sandbox.runDetached("diary-chat", ["--voice", memo.path])
        #expect(unheard.status == 75 && unheard.stderr.contains("聽不清楚，請再試一次"))
        #expect(try sandbox.sql("SELECT count(*) FROM media WHERE kind = 'audio'") == "1", "the same memo is kept once")
    }

    @Test("Ctrl-C while waiting cancels cleanly: exit 130, the message stays, no half reply")
    func interruptWhileWaiting() async throws {
        let fake = try await FakeOpenAI.start(apiKey: Self.key)
        defer { Task { try? await fake.shutdown() } }
        let sandbox = try sandbox(fake)
        _ = try sandbox.run("diary-new", ["--text-only", "--text", "x"])
        fake.enqueueChat(.reply("嗨"), .hang)
        let (process, stdout, stderr) = try sandbox.start("diary-chat", ["-m", "等一下"])
        let deadline = Date().addingTimeInterval(20)
        while fake.chatRequests.count < 2 && Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        try await Task.sleep(nanoseconds: 200_000_000)
        kill(process.processIdentifier, SIGINT)
        let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        _ = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 130 && errors.contains("已取消"), "\(errors)")
        #expect(try sandbox.sql("SELECT author || ':' || text FROM message ORDER BY seq") == "companion:嗨\nperson:等一下")
    }

    @Test("on a terminal the person is asked once; yes is remembered, no keeps everything here")
    func consentOnATerminal() async throws {
        let fake = try await FakeOpenAI.start(apiKey: Self.key)
        defer { Task { try? await fake.shutdown() } }
        for answer in ["y", "n"] {
            let sandbox = try sandbox(fake, consent: false)
            _ = try sandbox.run("diary-new", ["--text-only", "--text", "x"])
            let before = fake.chatRequests.count
            let terminal = try PseudoTerminal()
            let process = try terminal.launch("diary-chat", in: sandbox)
            let question = try await offThread { terminal.read(until: "[y/N]") }
            #expect(question.contains("要把照片、文字、對話和相關的舊日記片段送到 fake（127.0.0.1）"), "\(question)")
            #expect(fake.chatRequests.count == before, "nothing is sent before the answer")
            terminal.type(answer + "\n")
            _ = try await offThread { terminal.read(until: "> ") }
            terminal.type("\u{04}")
            _ = try await offThread { terminal.read(until: "草稿已保留") }
            process.waitUntilExit()
            let remembered = try sandbox.sql("SELECT value FROM device_setting WHERE key = 'consent.fake'")
            if answer == "y" {
                #expect(fake.chatRequests.count == before + 1 && remembered == fake.baseURL)
                let later = try await sandbox.runDetached("diary-chat", ["-m", "不用再問"])
                #expect(later.status == 0 && later.lines.last?["provider"] as? String == "fake", "asked once: \(later.stderr)")
            } else {
                #expect(fake.chatRequests.count == before && remembered.isEmpty)
                #expect(try sandbox.sql("SELECT provider FROM message") == "offline")
            }
        }
    }

    /// Runs blocking terminal reads off the Swift concurrency threads the fake server needs.
    func offThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: body()) }
        }
    }

    @Test("a provider choice from the server that names nothing falls back with the seed's words")
    func unusableServerChoice() async throws {
        let fake = try await FakeOpenAI.start(apiKey: Self.key)
        defer { Task { try? await fake.shutdown() } }
        let sandbox = try sandbox(fake)
        _ = try sandbox.run("diary-new", ["--text-only", "--text", "x"])
        _ = try sandbox.sql("INSERT INTO setting(key, value, device_id, hlc, updated_at) VALUES ('companion.provider', 'ghost', 'd', '0', 0)")
        let chat = try await sandbox.runDetached("diary-chat", ["-m", "你好"])
        #expect(chat.status == 0 && chat.stderr.contains("設定讀取失敗，已使用預設模型"))
        #expect(chat.lines.last?["provider"] as? String == "fake")
    }

    @Test("with nothing configured the offline companion says so once per diary")
    func offlineSaysSoOnce() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.run("diary-new", ["--text-only", "--text", "x"])
        let first = try sandbox.run("diary-chat", ["-m", "一"])
        let second = try sandbox.run("diary-chat", ["-m", "二"])
        #expect(first.status == 0 && first.stderr.contains("目前使用離線夥伴"))
        #expect(second.status == 0 && !second.stderr.contains("目前使用離線夥伴"))
        let memo = try makeMemo(sandbox)
        let voiced = try sandbox.run("diary-new", ["--voice", memo.path])
        #expect(voiced.status == 0 && voiced.stderr.contains("離線夥伴沒辦法聽錄音"))
        #expect((voiced.lines.first?["media"] as? [[String: Any]])?.first?["kind"] as? String == "audio")
    }

    /// A two-second voice memo (AAC in M4A), made with ffmpeg.
    func makeMemo(_ sandbox: Sandbox) throws -> URL {
        let url = sandbox.root.appendingPathComponent("memo.m4a")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "aac", url.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return url
    }

    func ffprobeSize(_ file: URL) throws -> (Int, Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", file.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let numbers = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : (0, 0)
    }
}
