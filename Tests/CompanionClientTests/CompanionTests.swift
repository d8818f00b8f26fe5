@testable import CompanionClient
@testable import DiaryKit
import Foundation
import Testing
@testable import DiaryTestSupport

/// A provider whose steps fail on demand, to drive the recovery paths.
struct FlakyProvider: ChatProvider {
    let name = "flaky"
    var isRemote: Bool { false }
    let failing: Set<String>
    let inner = OfflineCompanion()
    var pageTagCount: ClosedRange<Int> { inner.pageTagCount }

    func fail(_ step: String) throws {
        if failing.contains(step) { throw CompanionError.providerFailed(provider: name, detail: step) }
    }
    func analyze(_ request: CompanionRequest) async throws -> String { try fail("analysis"); return try await inner.analyze(request) }
    func greet(_ request: CompanionRequest, onText: @Sendable (String) -> Void) async throws -> String {
        try fail("greet"); return try await inner.greet(request, onText: onText)
    }
    func reply(_ request: CompanionRequest, onText: @Sendable (String) -> Void) async throws -> String {
        try fail("reply"); return try await inner.reply(request, onText: onText)
    }
    func writePage(_ request: CompanionRequest) async throws -> Page {
        try fail("page")
        if failing.contains("nine-tags") { return Page(title: "t", summary: "s", tags: (1...9).map { "t\($0)" }) }
        return try await inner.writePage(request)
    }
    func condense(_ request: CompanionRequest, earlier: [Message]) async throws -> String {
        try fail("condense"); return try await inner.condense(request, earlier: earlier)
    }
    func transcribe(audio: URL, mime: String, language: Language) async throws -> String {
        try await inner.transcribe(audio: audio, mime: mime, language: language)
    }
    func reflect(_ request: ReflectionRequest) async throws -> Page { try fail("reflect"); return try await inner.reflect(request) }
}

@Suite struct OfflineCompanionTests {
    func request(_ said: [String], note: String? = nil, persona: Persona = .warm, language: Language = .zhHant,
                 existing: [String] = [], kind: MediaKind? = .photo, context: EntryContext = EntryContext()) -> CompanionRequest {
        let media = kind.map { [MediaItem(kind: $0, sha256: "x", mime: "image/jpeg", fileExtension: "jpg", bytes: 1, width: 640, height: 480, durationSeconds: 3)] } ?? []
        let entry = Entry(id: "e", status: .chatting, createdAt: Date(), updatedAt: Date(), occurredAt: moment("2026-11-21 17:40"),
                          timeZone: "Asia/Taipei", note: note, transcript: nil, analysis: nil, context: context,
                          persona: persona.id, provider: nil, title: nil, summary: nil, tags: [], media: media,
                          messageCount: said.count, messages: nil, syncState: .pending, syncError: nil, lastError: nil)
        let history = said.map { Message(id: UUIDv7.make(), entryId: "e", author: .person, persona: persona.id, provider: nil, text: $0, createdAt: Date()) }
        return CompanionRequest(language: language, persona: persona, entry: entry, history: history, existingTags: existing)
    }

    @Test func repliesTakeUpTheWordsNameTheFeelingAndAsk() async throws {
        let companion = OfflineCompanion()
        let reply = try await companion.reply(request(["工作好累，今天加班"]), onText: { _ in })
        #expect(reply.contains("工作好累"))
        #expect(reply.contains("辛苦"), "疲憊 is acknowledged")
        #expect(reply.hasSuffix("？"))
        let again = try await companion.reply(request(["工作好累，今天加班"]), onText: { _ in })
        #expect(again == reply, "deterministic")
    }

    @Test func eachPersonaSoundsDifferent() async throws {
        let companion = OfflineCompanion()
        var replies = Set<String>()
        for persona in Persona.all {
            replies.insert(try await companion.reply(request(["下雨了"], persona: persona), onText: { _ in }))
        }
        #expect(replies.count == 4)
        #expect(Persona.all.map { $0.name(.zhHant) } == ["阿暖", "阿衡", "阿樂", "阿澄"])
        #expect(Persona.all.map { $0.label(.zhHant) } == ["貼心好友", "理性同事", "幽默搭子", "懂你的人"])
        #expect(Persona.named("阿樂") == .fun && Persona.named("EMPATH") == .empath && Persona.named("x") == nil)
    }

    @Test func thePageIsInThePersonsWordsWithThreeToEightTags() async throws {
        let page = try await OfflineCompanion().writePage(request(["風好大，但很舒服", "和朋友一起吃了火鍋"], note: "今天去海邊"))
        #expect(page.title == "今天去海邊")
        #expect(page.summary.contains("今天去海邊。風好大，但很舒服。和朋友一起吃了火鍋。"))
        #expect(page.summary.hasPrefix("2026年11月21日傍晚。"))
        #expect(page.validated() != nil)
        #expect(Set(["放鬆", "旅行", "海邊", "朋友", "美食"]).isSubset(of: Set(page.tags)), "\(page.tags)")
        #expect((3...8).contains(page.tags.count))
    }

    @Test func existingTagsAreReusedAndNothingIsPadded() async throws {
        let reuse = try await OfflineCompanion().writePage(request(["週末去旅遊"], existing: ["旅遊記錄", "travel"]))
        #expect(reuse.tags.contains("travel"), "the person's spelling of 旅行 is reused: \(reuse.tags)")
        #expect(!reuse.tags.contains("旅行"))
        // Nothing recognised: no tags rather than 影片, 傍晚, 秋天 on every such page.
        let bare = try await OfflineCompanion().writePage(request([], kind: .video))
        #expect(bare.tags.isEmpty)
        #expect(bare.summary.contains("影片"))
        #expect(bare.validated(tagCount: OfflineCompanion().pageTagCount) != nil, "the offline page is still a page")
        #expect(bare.validated() == nil, "a model's page still needs three tags")
        // The place the person named and the weather are what the moment is about.
        let placed = try await OfflineCompanion().writePage(request([], kind: .photo, context: EntryContext(
            place: "基隆, 台灣", weatherDescription: "小雨")))
        #expect(placed.tags == ["雨天", "基隆"], "\(placed.tags)")
        let address = try await OfflineCompanion().writePage(request([], context: EntryContext(place: "台北市信義區松仁路一百號二十樓")))
        #expect(address.tags.isEmpty, "an address is not a tag")
    }

    @Test func fillerTagsAreTheOnesOlderPagesGot() {
        let entry = request([], kind: .video).entry
        #expect(FillerTags.of(entry) == ["影片", "video", "傍晚", "evening", "秋天", "autumn"])
        var winterMorning = request([], kind: nil).entry
        winterMorning.occurredAt = moment("2026-01-05 07:00")
        #expect(FillerTags.of(winterMorning) == ["隨筆", "journal", "清晨", "early morning", "冬天", "winter"])
    }

    @Test func englishFollowsTheLanguage() async throws {
        let page = try await OfflineCompanion().writePage(request(["Long walk in the park, felt calm"], language: .en))
        #expect(page.summary.contains("Long walk in the park, felt calm."))
        #expect(Set(["walk", "nature", "relaxed"]).isSubset(of: Set(page.tags)), "\(page.tags)")
        let greeting = try await OfflineCompanion().greet(request([], note: "beach day", language: .en), onText: { _ in })
        #expect(greeting.hasPrefix("Good evening.") && greeting.contains("beach day"))
    }

    @Test func pagesOutsideThreeToEightTagsAreRefused() {
        #expect(Page(title: "t", summary: "s", tags: ["a", "b"]).validated() == nil)
        #expect(Page(title: "t", summary: "s", tags: (1...9).map(String.init)).validated() == nil)
        #expect(Page(title: " ", summary: "s", tags: ["a", "b", "c"]).validated() == nil)
        #expect(Page(title: "t", summary: "s", tags: ["A", "a", " b", "c"]).validated()?.tags == ["a", "b", "c"], "duplicates fold")
        #expect(Page(title: "t", summary: "s", tags: ["A", "a", "b"]).validated() == nil, "two after folding is too few")
        #expect(Page(title: "t", summary: "s", tags: ["A", "a", " b", "c", "d"]).validated()?.tags == ["a", "b", "c", "d"])
    }
}

@Suite struct ConversationTests {
    func conversation(_ diary: TestDiary, failing: Set<String> = []) -> Conversation {
        Conversation(store: diary.store, providers: [FlakyProvider(failing: failing)], language: .zhHant, textLimit: 500)
    }

    @Test func theMessageIsStoredEvenWhenTheReplyFails() async throws {
        let diary = try TestDiary()
        let id = try diary.draft("x")
        await #expect(throws: CompanionError.self) {
            _ = try await conversation(diary, failing: ["reply"]).send(entryId: id, text: "別弄丟我", persona: .warm)
        }
        let history = try diary.store.messages(entryId: id)
        #expect(history.last?.text == "別弄丟我" && history.last?.author == .person)
        #expect(try diary.store.entry(id: id).lastError != nil, "the failure is visible on the entry")
        let retried = try await conversation(diary).retry(entryId: id, persona: .clear)
        #expect(retried.messages.count == 1 && retried.messages[0].persona == "clear")
        #expect(try diary.store.entry(id: id).lastError == nil, "an answer clears it")
        await #expect(throws: CompanionError.nothingToRetry) { _ = try await conversation(diary).retry(entryId: id, persona: .warm) }
    }

    @Test func aFailedAnalysisDefersAndTheTalkGoesOn() async throws {
        let diary = try TestDiary()
        let photo = MediaItem(kind: .photo, sha256: String(repeating: "c", count: 64), mime: "image/jpeg", fileExtension: "jpg", bytes: 1)
        let id = try diary.draft(nil, media: [photo])
        let opened = try await conversation(diary, failing: ["analysis"]).open(entryId: id, persona: .warm)
        #expect(opened.notices == [.analysisDeferred])
        #expect(opened.messages.count == 1)
        #expect(try diary.store.entry(id: id).analysis == nil)
        let second = try await conversation(diary).open(entryId: id, persona: .warm)
        #expect(second.messages.isEmpty, "the talk is opened once")
    }

    @Test func anInvalidOrFailedPageKeepsTheChatAsSummaryFailed() async throws {
        let diary = try TestDiary()
        let id = try diary.draft("x")
        _ = try await conversation(diary).send(entryId: id, text: "今天很開心", persona: .warm)
        for failing in [["page"], ["nine-tags"]] {
            await #expect(throws: CompanionError.self) {
                _ = try await conversation(diary, failing: Set(failing)).writePage(entryId: id, persona: .warm, usageDay: "d")
            }
            let entry = try diary.store.entry(id: id)
            #expect(entry.status == .summaryFailed && entry.summary == nil && entry.tags.isEmpty && entry.lastError != nil)
            #expect(entry.messageCount == 3)
        }
        let (saved, _, _) = try await conversation(diary).writePage(entryId: id, persona: .fun, usageDay: "d")
        #expect(saved.status == .saved && saved.lastError == nil && saved.persona == "fun")
        #expect(saved.tags.contains("開心"))
    }

    @Test func tooLongIsRefusedBeforeAnythingIsStored() async throws {
        let diary = try TestDiary()
        let id = try diary.draft("x")
        await #expect(throws: CompanionError.textTooLong(limit: 500)) {
            _ = try await conversation(diary).send(entryId: id, text: String(repeating: "字", count: 501), persona: .warm)
        }
        #expect(try diary.store.messages(entryId: id).isEmpty)
    }

    @Test func personaChoiceOrderAndFallback() throws {
        #expect(try PersonaChoice.resolve(flag: "fun", entryPersona: "clear", setting: nil, config: nil).persona == .fun)
        #expect(try PersonaChoice.resolve(flag: nil, entryPersona: "clear", setting: "fun", config: nil).persona == .clear)
        #expect(try PersonaChoice.resolve(flag: nil, entryPersona: nil, setting: nil, config: "empath").persona == .empath)
        let broken = try PersonaChoice.resolve(flag: nil, entryPersona: nil, setting: "deleted-one", config: nil)
        #expect(broken.persona == .warm && broken.notice == .defaultPersonaUsed)
        #expect(throws: CompanionError.unknownPersona("nope")) { try PersonaChoice.resolve(flag: "nope", entryPersona: nil, setting: nil, config: nil) }
    }
}
