@testable import CompanionClient
@testable import DiaryKit
import FakeServers
import Foundation
import Testing
@testable import DiaryTestSupport

/// A provider on the fake server, with retries fast enough for tests.
func remote(_ fake: FakeOpenAI, key: String = "sk-fake-test-key", retries: Int = 2, timeout: Double = 30,
            log: RequestLog = .silent, name: String = "fake", model: String = "fake-model") -> RemoteCompanion {
    RemoteCompanion(settings: ProviderSettings(name: name, baseURL: fake.baseURL, model: model),
                    endpoint: ServiceEndpoint(provider: name, baseURL: fake.baseURL, key: Secret(key), timeout: timeout,
                                              retry: RetryPolicy(retries: retries, baseDelay: 0.01, maxDelay: 0.05), log: log))
}

/// Collects streamed pieces from a non-async callback.
final class Pieces: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ piece: String) { lock.withLock { items.append(piece) } }
    var all: [String] { lock.withLock { items } }
}

@Suite(.serialized) struct RemoteCompanionTests {
    func request(_ diary: TestDiary, said: String = "風好大") throws -> CompanionRequest {
        let id = try diary.draft("今天去海邊")
        try diary.store.appendMessage(entryId: id, author: .person, text: said, persona: "warm", provider: nil)
        let entry = try diary.store.entry(id: id, includeMessages: true)
        return CompanionRequest(language: .zhHant, persona: .warm, entry: entry, history: entry.messages ?? [])
    }

    @Test func aStreamedReplyArrivesInPiecesAndIsStoredWhole() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        let text = "風大也很舒服吧！\n你那時在想什麼？"
        fake.enqueueChat(.reply(text, chunkSize: 3, gapMillis: 5))
        let pieces = Pieces()
        let reply = try await remote(fake).reply(try request(TestDiary()), onText: pieces.add)
        #expect(reply == text)
        #expect(pieces.all.count >= 4 && pieces.all.joined() == text, "\(pieces.all)")
        let sent = try #require(fake.chatRequests.first)
        #expect(sent.stream && sent.model == "fake-model" && sent.authorization == "Bearer sk-fake-test-key")
        #expect(sent.messages.first?.role == "system" && sent.messages.first!.text.contains("阿暖"))
        #expect(sent.messages.first!.text.contains("今天去海邊"), "the note is in the context")
        #expect(sent.messages.last?.role == "user" && sent.messages.last?.text == "風好大")
    }

    @Test func theAnalysisSendsPicturesAsDataURLs() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        fake.enqueueChat(.reply("一片灰藍色的海，天空下著小雨。"))
        var asking = try request(TestDiary())
        asking.images = [Data([0xFF, 0xD8, 0xFF, 0xE0]), Data([0xFF, 0xD8, 0xFF, 0xE1])]
        let analysis = try await remote(fake).analyze(asking)
        #expect(analysis == "一片灰藍色的海，天空下著小雨。")
        let sent = try #require(fake.chatRequests.first)
        #expect(!sent.stream)
        #expect(sent.messages.last?.imageURLs == asking.images.map { "data:image/jpeg;base64," + $0.base64EncodedString() })
    }

    @Test func anInvalidPageIsAskedForAgainNeverStoredHalfFormed() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        fake.enqueueChat(.reply("{\"title\":\"海\",\"summary\":\"我去了海邊。\",\"tags\":[\"海\"]}"),
                         .reply("{\"title\":\"海邊\",\"summary\":\"我去了海邊。\",\"tags\":[\"旅行\",\"海邊\",\"放鬆\"]}"))
        let page = try await remote(fake).writePage(try request(TestDiary()))
        #expect(page == Page(title: "海邊", summary: "我去了海邊。", tags: ["旅行", "海邊", "放鬆"]))
        let requests = fake.chatRequests
        #expect(requests.count == 2 && requests.allSatisfy { $0.responseFormat == "json_schema" && $0.schemaName == "diary_page" })
        #expect(requests[1].messages.last?.text.contains("不是有效的日記 JSON") == true)

        fake.enqueueChat(.reply("not json"), .reply("still not json"))
        await #expect(throws: CompanionError.self) { _ = try await remote(fake).writePage(try request(TestDiary())) }
    }

    @Test func anEndpointWithoutJSONSchemaGetsJSONMode() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        fake.enqueueChat(.fail(status: 400, message: "response_format json_schema is unsupported"))
        let page = try await remote(fake).writePage(try request(TestDiary()))
        #expect(page.tags.count == 3)
        #expect(fake.chatRequests.map(\.responseFormat) == ["json_schema", "json_object"])
    }

    /// OpenAI's reasoning models refuse `max_tokens` and a chosen temperature with a 400:
    /// the request goes again as they take it (and stays so), the page keeps its schema.
    @Test func aReasoningModelGetsTheParametersItTakes() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        fake.actAsReasoningModel()
        let companion = remote(fake)
        #expect(try await companion.reply(try request(TestDiary()), onText: { _ in }) == "fake reply 1")
        let tried = fake.chatRequests
        #expect(tried.count == 2, "max_tokens refused (a reasoning model: the temperature goes too), then answered")
        #expect(tried[0].maxTokens == 600 && tried[0].temperature == 0.8)
        #expect(tried[1].maxTokens == nil && tried[1].temperature == nil && (tried[1].maxCompletionTokens ?? 0) > 600,
                "room for the model's reasoning too: \(tried[1].maxCompletionTokens ?? 0)")

        let page = try await companion.writePage(try request(TestDiary()))
        #expect(page.tags.count == 3)
        #expect(fake.chatRequests.count == 3, "learnt once: the page needs no second try")
        let asked = try #require(fake.chatRequests.last)
        #expect(asked.responseFormat == "json_schema" && asked.maxTokens == nil && asked.temperature == nil,
                "a 400 about a parameter is not a missing schema")

        // Known by name, a reasoning model is asked right the first time.
        let named = remote(fake, model: "o4-mini")
        #expect(try await named.analyze(try request(TestDiary())).isEmpty == false)
        #expect(fake.chatRequests.count == 4 && fake.chatRequests.last?.maxCompletionTokens != nil)

        // Each refusal changes one thing once; one it cannot act on is the provider's failure.
        var shape = RequestShape(model: "some-model")
        let changed = [shape.adapt(toRefusalOf: "temperature"), shape.adapt(toRefusalOf: "temperature"),
                       shape.adapt(toRefusalOf: "stream_options"), shape.adapt(toRefusalOf: "messages")]
        #expect(changed == [true, false, true, false] && !shape.temperature && !shape.streamUsage)
        fake.enqueueChat(.fail(status: 400, message: "Unsupported value: 'messages' is too long"))
        await #expect(throws: CompanionError.providerFailed(provider: "fake", detail: "HTTP 400 (messages)")) {
            _ = try await companion.reply(try request(TestDiary()), onText: { _ in })
        }
        #expect(RequestShape(model: "openai/gpt-5-mini").reasoning && RequestShape(model: "o1").reasoning)
        #expect(!RequestShape(model: "gpt-4o-mini").reasoning && !RequestShape(model: "deepseek-chat").reasoning
                && !RequestShape(model: "llama3.1:8b").reasoning)
    }

    /// A 400 that names what it refuses, in OpenAI's form or only in its words.
    @Test func theRefusedParameterIsReadFromTheErrorAndNothingElseIsKept() {
        let sent = ["model", "messages", "max_tokens", "temperature", "stream", "stream_options"]
        let openAI = JSON.parse(Data(#"{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","param":"max_tokens"}}"#.utf8))!
        #expect(ServiceEndpoint.refusedParameter(in: openAI, sent: sent) == "max_tokens")
        let worded = JSON.parse(Data(#"{"error":{"message":"UnsupportedParamsError: does not support parameters: ['temperature']. sk-secret","param":null}}"#.utf8))!
        #expect(ServiceEndpoint.refusedParameter(in: worded, sent: sent) == "temperature")
        let streamOptions = JSON.parse(Data(#"{"detail":"Unknown field stream_options"}"#.utf8))!
        #expect(ServiceEndpoint.refusedParameter(in: streamOptions, sent: sent) == "stream_options")
        let unrelated = JSON.parse(Data(#"{"error":{"message":"context length exceeded","param":"messages_too_long"}}"#.utf8))!
        #expect(ServiceEndpoint.refusedParameter(in: unrelated, sent: sent) == nil)
        #expect(ServiceEndpoint.refusedParameter(in: JSON.parse(Data(#"{"error":{"message":"bad max_completion_tokens"}}"#.utf8))!,
                                                 sent: sent) == nil, "a longer name is not the one sent")
    }

    @Test func aRefusedTranscriptionIsTheProvidersFailure() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        fake.enqueueTranscription(.fail(status: 400, message: "Invalid file format."))
        let memo = FileManager.default.temporaryDirectory.appendingPathComponent("memo-\(UUID().uuidString).m4a")
        try Data([0, 0, 0, 24]).write(to: memo)
        defer { try? FileManager.default.removeItem(at: memo) }
        await #expect(throws: CompanionError.providerFailed(provider: "fake", detail: "HTTP 400")) {
            _ = try await remote(fake).transcribe(audio: memo, mime: "audio/mp4", language: .zhHant)
        }
    }

    @Test func busyAndFailingServersAreRetriedWithinBounds() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        fake.enqueueChat(.fail(status: 429, retryAfter: 0), .fail(status: 503), .reply("好的"))
        #expect(try await remote(fake, retries: 2).reply(try request(TestDiary()), onText: { _ in }) == "好的")
        #expect(fake.chatRequests.count == 3)

        fake.enqueueChat(.fail(status: 500), .fail(status: 500), .fail(status: 500))
        await #expect(throws: CompanionError.providerFailed(provider: "fake", detail: "HTTP 500")) {
            _ = try await remote(fake, retries: 2).reply(try request(TestDiary()), onText: { _ in })
        }
        #expect(fake.chatRequests.count == 6, "three tries, then it stops")

        fake.enqueueChat(.fail(status: 401))
        await #expect(throws: CompanionError.self) { _ = try await remote(fake).reply(try request(TestDiary()), onText: { _ in }) }
        #expect(fake.chatRequests.count == 7, "a refused key is not retried")
    }

    @Test func aStalledServerTimesOutAndADroppedStreamIsNotRepeated() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        fake.enqueueChat(.hang)
        let started = Date()
        await #expect(throws: CompanionError.providerFailed(provider: "fake", detail: "timed out")) {
            _ = try await remote(fake, retries: 0, timeout: 0.5).reply(try request(TestDiary()), onText: { _ in })
        }
        #expect(Date().timeIntervalSince(started) < 15)

        // Two pieces arrive, then the connection drops: the shown start is not streamed again.
        let chunks = ["一半", "的話", "不見了"].map { "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\($0)\"}}]}" }
        let dropping = try await FakeHTTPServer.start { _ in .events(chunks, gapMillis: 50, dropAfter: 2) }
        defer { Task { try? await dropping.shutdown() } }
        let provider = RemoteCompanion(settings: ProviderSettings(name: "fake", baseURL: dropping.baseURL, model: "m"),
                                       endpoint: ServiceEndpoint(provider: "fake", baseURL: dropping.baseURL, key: nil, timeout: 30,
                                                                 retry: RetryPolicy(retries: 2, baseDelay: 0.01, maxDelay: 0.05), log: .silent))
        let pieces = Pieces()
        await #expect(throws: CompanionError.self) { _ = try await provider.reply(try request(TestDiary()), onText: pieces.add) }
        #expect(pieces.all == ["一半", "的話"] && dropping.requests.count == 1)
    }

    @Test func theKeyNeverReachesErrorsOrTheVerboseLog() async throws {
        let fake = try await FakeOpenAI.start(apiKey: "sk-right-key-000000")
        defer { Task { try? await fake.shutdown() } }
        let lines = Pieces()
        let wrongKey = "sk-wrong-key-1234567890"
        do {
            _ = try await remote(fake, key: wrongKey, log: RequestLog(lines.add)).reply(try request(TestDiary()), onText: { _ in })
            Issue.record("a wrong key was accepted")
        } catch {
            #expect(!"\(error)".contains("1234567890") && !String(reflecting: error).contains("1234567890"))
        }
        #expect(!lines.all.isEmpty && lines.all.allSatisfy { !$0.contains("1234567890") }, "\(lines.all)")
        #expect(lines.all.contains { $0.contains("Bearer <redacted>") && $0.contains("/chat/completions") })
    }

    @Test func voiceMemosAreTranscribedAsMultipart() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        let diary = try TestDiary()
        let memo = diary.root.appendingPathComponent("memo.m4a")
        let bytes = Data((0..<5000).map { UInt8($0 % 251) })
        try bytes.write(to: memo)
        fake.enqueueTranscription(.text(" 其實今天有點累 "), .text("  "), .fail(status: 500))
        #expect(try await remote(fake).transcribe(audio: memo, mime: "audio/mp4", language: .zhHant) == "其實今天有點累")
        let sent = try #require(fake.transcriptionRequests.first)
        #expect(sent.model == "whisper-1" && sent.fileName == "memo.m4a" && sent.fileData == bytes && sent.language == "zh")
        await #expect(throws: CompanionError.notHeard) { _ = try await remote(fake).transcribe(audio: memo, mime: "audio/mp4", language: .zhHant) }
        await #expect(throws: CompanionError.self) { _ = try await remote(fake, retries: 0).transcribe(audio: memo, mime: "audio/mp4", language: .en) }
    }
}

@Suite(.serialized) struct ConversationOverNetworkTests {
    func conversation(_ diary: TestDiary, _ providers: [any ChatProvider]) -> Conversation {
        Conversation(store: diary.store, providers: providers, language: .zhHant, textLimit: 500)
    }

    @Test func failoverEndsWithTheOfflineCompanionAndSaysSo() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        let diary = try TestDiary()
        let id = try diary.draft("x")
        fake.enqueueChat(.reply("嗨，今天過得如何？"), .fail(status: 500), .fail(status: 500))
        let turn = try await conversation(diary, [remote(fake, retries: 1), OfflineCompanion()])
            .send(entryId: id, text: "今天很開心", persona: .warm)
        #expect(turn.messages.map(\.provider) == ["fake", nil, "offline"])
        #expect(turn.notices == [.answeredBy(provider: "offline")])
    }

    @Test func withNoRemoteAnswerTheAnalysisIsDeferredNotFaked() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        let diary = try TestDiary()
        let photo = MediaItem(kind: .photo, sha256: String(repeating: "d", count: 64), mime: "image/jpeg", fileExtension: "jpg", bytes: 1)
        let id = try diary.draft(nil, media: [photo])
        fake.enqueueChat(.fail(status: 503), .fail(status: 503))
        let opened = try await conversation(diary, [remote(fake, retries: 0), OfflineCompanion()]).open(entryId: id, persona: .warm)
        #expect(opened.notices.contains(.analysisDeferred))
        #expect(try diary.store.entry(id: id).analysis == nil, "the offline companion does not pretend to have looked")
        #expect(opened.messages.first?.provider == "offline")

        fake.enqueueChat(.reply("海邊的小雨。"))
        _ = try await conversation(diary, [remote(fake), OfflineCompanion()]).reanalyze(entryId: id, persona: .warm)
        #expect(try diary.store.entry(id: id).analysis == "海邊的小雨。")
    }

    @Test func ctrlCCancelsCleanlyAndTheMessageStays() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        let diary = try TestDiary()
        let id = try diary.draft("x")
        fake.enqueueChat(.reply("嗨"), .hang)
        let talk = conversation(diary, [remote(fake, timeout: 30), OfflineCompanion()])
        let turn = Task { try await talk.send(entryId: id, text: "別弄丟我", persona: .warm) }
        while fake.chatRequests.count < 2 { try await Task.sleep(nanoseconds: 20_000_000) }
        turn.cancel()
        await #expect(throws: CompanionError.cancelled) { _ = try await turn.value }
        let history = try diary.store.messages(entryId: id)
        #expect(history.map(\.author) == [.companion, .person] && history.last?.text == "別弄丟我")
        #expect(try diary.store.entry(id: id).lastError == nil, "a cancel is not a failure")
        fake.enqueueChat(.reply("我在"))
        #expect(try await talk.retry(entryId: id, persona: .warm).messages.map(\.text) == ["我在"])
    }

    @Test func weatherJoinsTheContextAndIsLeftOutWhenUnknown() async throws {
        let fake = try await FakeOpenAI.start()
        let sky = try await FakeOpenMeteo.start(weatherCode: 61, temperature: 18.5)
        defer { Task { try? await fake.shutdown(); try? await sky.shutdown() } }
        let diary = try TestDiary()
        var talk = conversation(diary, [remote(fake)])
        talk.weather = WeatherService(settings: WeatherSettings(enabled: true, baseURL: sky.baseURL, archiveURL: sky.baseURL),
                                      timeout: 30, log: .silent)
        let id = try diary.store.createEntry(NewEntry(occurredAt: Date(), timeZone: TimeZone(identifier: "Asia/Taipei")!, note: nil,
                                                      context: EntryContext(latitude: 25.13, longitude: 121.74), persona: "warm", media: []))
        _ = try await talk.open(entryId: id, persona: .warm)
        #expect(try diary.store.entry(id: id).context.weatherDescription == "小雨")
        #expect(fake.chatRequests.last?.messages.first?.text.contains("[天氣] 小雨 18°C") == true)
        #expect(sky.requests.first?.query["current"] == "temperature_2m,weather_code")

        // An old photo asks for that hour's record; a failing service leaves weather out.
        let old = try diary.store.createEntry(NewEntry(occurredAt: moment("2025-01-02 08:30"), timeZone: TimeZone(identifier: "Asia/Taipei")!,
                                                       note: nil, context: EntryContext(latitude: 25.13, longitude: 121.74), persona: "warm", media: []))
        sky.setFailure(status: 500)
        _ = try await talk.open(entryId: old, persona: .warm)
        #expect(sky.requests.last?.path == "/v1/archive" && sky.requests.last?.query["start_date"] == "2025-01-02")
        #expect(try diary.store.entry(id: old).context.weatherDescription == nil)
        #expect(fake.chatRequests.last?.messages.first?.text.contains("[天氣]") == false)
    }

    /// Open-Meteo lays an hourly series out at the zone's offset of today: asked in GMT with
    /// the UTC date, a summer photo gets its own hour's weather in winter too.
    @Test func aSummerPhotoGetsTheWeatherOfItsOwnHour() async throws {
        let sky = try await FakeOpenMeteo.start(weatherCode: 3, codeByUTCHour: [13: 61, 14: 0])
        defer { Task { try? await sky.shutdown() } }
        let service = WeatherService(settings: WeatherSettings(enabled: true, baseURL: sky.baseURL, archiveURL: sky.baseURL),
                                     timeout: 30, log: .silent)
        // 14:30 in London in July is 13:30 UTC.
        let taken = try #require(Timestamps.parseRFC3339("2026-07-15T14:30:00+01:00"))
        let weather = await service.weather(latitude: 51.5, longitude: -0.12, at: taken, zone: TimeZone(identifier: "Europe/London")!,
                                            language: .zhHant, now: try #require(Timestamps.parseRFC3339("2026-11-25T12:00:00Z")))
        #expect(weather?.description == "小雨")
        let asked = try #require(sky.requests.last)
        #expect(asked.path == "/v1/archive" && asked.query["timezone"] == "GMT" && asked.query["start_date"] == "2026-07-15")

        // Just after midnight in Taipei is the day before in UTC.
        let early = try #require(Timestamps.parseRFC3339("2026-11-20T00:30:00+08:00"))
        _ = await service.weather(latitude: 25.13, longitude: 121.74, at: early, zone: TimeZone(identifier: "Asia/Taipei")!,
                                  language: .zhHant, now: try #require(Timestamps.parseRFC3339("2026-11-25T12:00:00Z")))
        #expect(sky.requests.last?.query["start_date"] == "2026-11-19")

        #expect(WeatherService.describe(code: 56, language: .en) == "freezing drizzle")
        #expect(WeatherService.describe(code: 57, language: .zhHant) == "凍毛毛雨")
        #expect(WeatherService.describe(code: 66, language: .en) == "freezing rain")
    }

    /// Streams ask for usage; what the service reports is counted for the day, and once the
    /// day's tokens are spent the offline companion answers without asking the service.
    @Test func tokensAreCountedAsReportedAndTheDaysLimitHandsOverToTheOfflineCompanion() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        let diary = try TestDiary()
        let id = try diary.draft("x")
        var talk = conversation(diary, [remote(fake), OfflineCompanion()])
        talk.limits = UsageLimits(tokensPerDay: 1_000_000)
        _ = try await talk.send(entryId: id, text: "今天很開心", persona: .warm)
        #expect(fake.chatRequests.count == 2 && fake.chatRequests.allSatisfy { $0.stream && $0.includeUsage })
        let today = Timestamps.localDate(Date(), zone: .current)
        let used = try diary.store.usage(on: today, kind: UsageKind.tokens)
        #expect(used > 0 && used == fake.reportedTokens, "the service's own count: \(used) vs \(fake.reportedTokens)")

        talk.limits = UsageLimits(tokensPerDay: used)
        let turn = try await talk.send(entryId: id, text: "還在嗎", persona: .warm)
        #expect(fake.chatRequests.count == 2, "the service is not asked once the day's tokens are spent")
        #expect(turn.messages.last?.provider == "offline")
        #expect(turn.notices == [.tokensUsedUp(limit: used)])
        #expect(try diary.store.usage(on: today, kind: UsageKind.tokens) == used, "the offline companion costs nothing")
    }

    @Test func aPersonaSwitchChangesOnlyWhatComesAfter() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        let diary = try TestDiary()
        let id = try diary.draft("x")
        let talk = conversation(diary, [remote(fake)])
        _ = try await talk.send(entryId: id, text: "一", persona: .warm)
        _ = try await talk.send(entryId: id, text: "二", persona: .clear)
        let systems = fake.chatRequests.map { $0.messages.first?.text ?? "" }
        #expect(systems[1].contains("你是阿暖") && !systems[1].contains("你是阿衡"))
        #expect(systems[2].contains("你是阿衡") && !systems[2].contains("你是阿暖"))
        #expect(try diary.store.messages(entryId: id).map(\.persona) == ["warm", "warm", "warm", "clear", "clear"])
    }

    @Test func longChatsAreCondensedSoThePromptStaysBounded() async throws {
        let fake = try await FakeOpenAI.start()
        defer { Task { try? await fake.shutdown() } }
        let diary = try TestDiary()
        let id = try diary.draft("x")
        let talk = conversation(diary, [remote(fake)])
        var sizes: [Int: Int] = [:]
        for turn in 1...50 {
            _ = try await talk.send(entryId: id, text: "第 \(turn) 句：今天走了很遠的路，看到很多海鳥，心情慢慢放鬆下來。", persona: .warm)
            let last = try #require(fake.chatRequests.last { $0.stream && $0.messages.last?.role == "user" })
            let asJSON = last.messages.map { JSON.object([("role", .string($0.role)), ("content", .string($0.text))]) }
            sizes[turn] = TokenEstimate.of(asJSON)
            #expect(last.messages.count <= 1 + 12 + 8, "turn \(turn): \(last.messages.count) messages")
        }
        let entry = try diary.store.entry(id: id)
        #expect(entry.digest != nil && entry.digestThrough != nil)
        #expect(fake.chatRequests.contains { $0.messages.first?.text.contains("整理成一段摘要") == true }, "the early turns were condensed")
        #expect(sizes[50]! < sizes[10]! * 2, "turn 50 costs about what turn 10 does: \(sizes[1]!), \(sizes[10]!), \(sizes[50]!)")
        print("prompt tokens (estimated) at turn 1, 10, 50: \(sizes[1]!), \(sizes[10]!), \(sizes[50]!)")
        #expect(try diary.store.messages(entryId: id).count == 101, "nothing was cut from the store")
    }

    @Test func usageLimitsWarmlyStopTheTurnOrThePage() async throws {
        let diary = try TestDiary()
        let id = try diary.draft("x")
        var talk = conversation(diary, [OfflineCompanion()])
        talk.limits = UsageLimits(turnsPerEntry: 2, pagesPerDay: 1)
        _ = try await talk.send(entryId: id, text: "一", persona: .warm)
        _ = try await talk.send(entryId: id, text: "二", persona: .warm)
        await #expect(throws: CompanionError.turnLimitReached(limit: 2)) { _ = try await talk.send(entryId: id, text: "三", persona: .warm) }
        #expect(try diary.store.messages(entryId: id).count == 5, "the refused message is not half-stored")
        _ = try await talk.writePage(entryId: id, persona: .warm, usageDay: "2026-11-21")
        let other = try diary.draft("y")
        await #expect(throws: CompanionError.pageLimitReached(limit: 1)) {
            _ = try await talk.writePage(entryId: other, persona: .warm, usageDay: "2026-11-21")
        }
        #expect(try diary.store.entry(id: other).status == .draft)
        _ = try await talk.writePage(entryId: other, persona: .warm, usageDay: "2026-11-22")
    }
}
