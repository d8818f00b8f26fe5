@testable import CompanionClient
@testable import DiaryKit
import Foundation
import Testing

@Suite struct ServerSentEventsTests {
    @Test func eventsSurviveAnyCutOfTheBytes() {
        let stream = Array("data: {\"a\":\"海邊\"}\r\n\r\n: keep-alive\n\nevent: x\ndata: one\ndata: two\n\ndata: [DONE]\n\n".utf8)
        var whole = ServerSentEvents()
        let expected = whole.feed(stream)
        #expect(expected == ["{\"a\":\"海邊\"}", "one\ntwo", "[DONE]"])
        // Cut at every position, including inside the three-byte characters and the CRLF.
        for cut in 1..<stream.count {
            var parser = ServerSentEvents()
            let events = parser.feed(stream[..<cut]) + parser.feed(stream[cut...])
            #expect(events == expected, "cut at \(cut)")
        }
    }

    @Test func anUnfinishedLastEventIsStillRead() {
        var parser = ServerSentEvents()
        #expect(parser.feed(Array("data: last".utf8)).isEmpty)
        #expect(parser.finish() == "last")
        #expect(parser.finish() == nil)
    }
}

@Suite struct PageReaderTests {
    @Test func repairsWhatIsSafeToRepair() throws {
        let fenced = "好的！\n```json\n{\"title\":\"海邊\",\"summary\":\"我去了海邊。\",\"tags\":[\"旅行\",\"海邊\",\"放鬆\"]}\n```"
        #expect(try PageReader.read(fenced).get() == Page(title: "海邊", summary: "我去了海邊。", tags: ["旅行", "海邊", "放鬆"]))
        let tagLine = "{\"title\":\"t\",\"summary\":\"s\",\"tags\":\"旅行, 海邊、#放鬆\"}"
        #expect(try PageReader.read(tagLine).get().tags == ["旅行", "海邊", "放鬆"])
        let many = "{\"title\":\"t\",\"summary\":\"s\",\"tags\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\"]}"
        #expect(try PageReader.read(many).get().tags == ["a", "b", "c", "d", "e", "f", "g", "h"])
    }

    @Test func refusesWhatCannotBeMadeWhole() {
        for bad in ["no json here", "{\"title\":\"t\",\"tags\":[\"a\",\"b\",\"c\"]}", "{\"title\":\"t\",\"summary\":\"s\",\"tags\":[\"a\",\"A\"]}",
                    "{\"title\":\"\",\"summary\":\"s\",\"tags\":[\"a\",\"b\",\"c\"]}", "{\"title\":\"t\",\"summary\":\"s\"}"] {
            #expect((try? PageReader.read(bad).get()) == nil, "\(bad)")
        }
    }
}

@Suite struct EndpointPlumbingTests {
    @Test func aKeyAndLongPiecesOfItAreScrubbed() {
        let key = Secret("sk-test-0123456789abcdef")
        let echoed = "Incorrect API key provided: sk-test-0123456789abcdef; also sk-test-01***cdef and 456789abcd"
        let scrubbed = key.scrub(echoed)
        #expect(!scrubbed.contains("0123456789abcdef") && !scrubbed.contains("sk-test-01") && !scrubbed.contains("456789ab"))
        #expect("\(key)" == "<redacted>" && String(reflecting: key) == "<redacted>")
    }

    @Test func backoffIsBoundedJitteredAndHonoursRetryAfter() {
        let policy = RetryPolicy(retries: 5, baseDelay: 0.5, maxDelay: 8)
        for attempt in 0..<8 {
            let ceiling = min(8, 0.5 * pow(2, Double(attempt)))
            for _ in 0..<50 {
                let wait = policy.delay(attempt: attempt, retryAfter: nil)
                #expect(wait >= ceiling / 2 && wait <= ceiling)
            }
        }
        #expect(policy.delay(attempt: 0, retryAfter: 3) == 3)
        #expect(policy.delay(attempt: 0, retryAfter: 3600) <= 0.5, "an absurd Retry-After is not obeyed")
        #expect(EndpointFailure.status(429, retryAfter: nil).isTransient && EndpointFailure.status(503, retryAfter: nil).isTransient)
        #expect(EndpointFailure.timedOut.isTransient && EndpointFailure.connection("reset").isTransient)
        #expect(!EndpointFailure.status(401, retryAfter: nil).isTransient && !EndpointFailure.status(400, retryAfter: nil).isTransient)
    }

    @Test func videoFramesAreSpreadOverTheClip() {
        #expect(VisionFrames.frameTimes(duration: 10) == [1, 3.7, 6.3, 9])
        #expect(VisionFrames.frameTimes(duration: 1.2) == [0])
    }
}

@Suite struct CompanionLineupTests {
    let offline = OfflineCompanion()

    func names(_ config: Config = Config(), environment: [String: String] = [:], flag: String? = nil,
               remote: Result<String?, Error> = .success(nil), gateway: HostedGateway? = nil) throws -> ([String], [Phrase], Bool) {
        let lineup = try CompanionLineup.resolve(config: config, environment: environment, flag: flag, remoteChoice: remote,
                                                 gateway: gateway, offline: offline, log: .silent)
        return (lineup.providers.map(\.name), lineup.notices, lineup.offlineByDefault)
    }

    func configured() throws -> Config {
        try Config.parse("""
            [companion]
            provider = "main"
            failover = ["backup", "offline"]
            [providers.main]
            base_url = "https://main.example/v1"
            model = "m"
            api_key_env = "MAIN_KEY"
            [providers.backup]
            base_url = "http://127.0.0.1:11434/v1"
            model = "llava"
            """)
    }

    @Test func nothingConfiguredMeansOfflineAndSaysSo() throws {
        let (providers, notices, byDefault) = try names()
        #expect(providers == ["offline"] && notices.isEmpty && byDefault)
    }

    @Test func theEcosystemVariablesMakeAProvider() throws {
        let lineup = try CompanionLineup.resolve(config: Config(), environment: ["OPENAI_API_KEY": "sk-x", "DIARY_MODEL": "gpt-test"],
                                                 flag: nil, remoteChoice: .success(nil), offline: offline, log: .silent)
        #expect(lineup.providers.map(\.name) == ["openai", "offline"] && !lineup.offlineByDefault)
        let remote = try #require(lineup.providers.first as? RemoteCompanion)
        #expect(remote.settings.model == "gpt-test" && remote.settings.baseURL == "https://api.openai.com/v1")
        let local = try names(environment: ["OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"])
        #expect(local.0 == ["openai", "offline"], "a keyless local server works too")
    }

    @Test func flagThenServerChoiceThenConfigThenFailover() throws {
        let config = try configured()
        let env = ["MAIN_KEY": "k"]
        #expect(try names(config, environment: env).0 == ["main", "backup", "offline"])
        #expect(try names(config, environment: env, flag: "backup").0 == ["backup", "offline"])
        #expect(try names(config, environment: env, flag: "offline").0 == ["offline", "backup"])
        #expect(try names(config, environment: env, remote: .success("backup")).0 == ["backup", "offline"])
        let unusable = try names(config, environment: env, remote: .success("gone"))
        #expect(unusable.0 == ["main", "backup", "offline"] && unusable.1 == [.providerSettingUnreadable])
        struct Broken: Error {}
        #expect(try names(config, environment: env, remote: .failure(Broken())).1 == [.providerSettingUnreadable])
        #expect(throws: CompanionError.unknownProvider("nope")) { try names(config, environment: env, flag: "nope") }
    }

    @Test func theOperatorsGatewayAnswersThoseWhoChoseNoCompanionOfTheirOwn() throws {
        let gateway = HostedGateway(url: "https://gw.example/v1", model: "companion", premium: false) { Secret("session") }
        #expect(try names(gateway: gateway).0 == ["gateway", "offline"])
        #expect(try names(environment: ["OPENAI_API_KEY": "sk-x"], gateway: gateway).0 == ["gateway", "offline"],
                "a key lying around in the environment is not a choice")
        #expect(try names(try configured(), environment: ["MAIN_KEY": "k"], gateway: gateway).0 == ["main", "backup", "offline"])
        #expect(try names(try configured(), environment: ["MAIN_KEY": "k"], flag: "gateway", gateway: gateway).0 == ["gateway", "backup", "offline"])
        #expect(throws: CompanionError.unknownProvider("gateway")) { try names(flag: "gateway") }
        #expect(try names(gateway: gateway).2 == false, "the offline notice is not shown")
    }

    @Test func aMissingKeySkipsTheProviderWithANotice() throws {
        let (providers, notices, _) = try names(try configured())
        #expect(providers == ["backup", "offline"])
        #expect(notices == [.providerKeyMissing(provider: "main", variable: "MAIN_KEY")])
    }

    @Test func badNamesAreConfigurationErrors() throws {
        #expect(throws: ConfigError.self) { try names(try Config.parse("[companion]\nprovider = \"ghost\"")) }
        #expect(throws: ConfigError.self) { try names(try Config.parse("[companion]\nfailover = [\"ghost\"]")) }
    }

    @Test func aKeyFileMustBeTheOwnersAlone() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("key")
        try "sk-from-file\n".write(to: file, atomically: true, encoding: .utf8)
        var settings = ProviderSettings(name: "p", baseURL: "https://x/v1", model: "m", apiKeyFile: file.path)
        chmod(file.path, 0o644)
        #expect(throws: ConfigError.self) { try CompanionLineup.key(for: settings, environment: [:]) }
        chmod(file.path, 0o600)
        guard case let .found(secret?) = try CompanionLineup.key(for: settings, environment: [:]) else {
            Issue.record("no key read")
            return
        }
        #expect(secret.value == "sk-from-file")
        settings.apiKeyFile = folder.appendingPathComponent("missing").path
        #expect(throws: ConfigError.self) { try CompanionLineup.key(for: settings, environment: [:]) }
    }
}
