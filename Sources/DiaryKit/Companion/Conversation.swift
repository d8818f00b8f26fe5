import Foundation

/// What a companion step produced: new messages, and notices for the person's stderr.
public struct TurnResult: Sendable {
    public var messages: [Message] = []
    public var notices: [Phrase] = []
}

/// One entry's conversation: opening it, each turn, retrying, and writing the page.
///
/// The person's words are always committed before the companion is asked, so a failure
/// (network, provider, a killed process) never loses what they typed.
public struct Conversation: Sendable {
    public let store: DiaryStore
    public let provider: any ChatProvider
    public let language: Language
    /// The longest message accepted, in characters people see.
    public let textLimit: Int

    public init(store: DiaryStore, provider: any ChatProvider, language: Language, textLimit: Int) {
        self.store = store
        self.provider = provider
        self.language = language
        self.textLimit = textLimit
    }

    /// The text without surrounding space, refused when longer than `limit` characters
    /// people see (F-002: a note or a message).
    public static func trimmed(_ text: String, limit: Int) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= limit else { throw CompanionError.textTooLong(limit: limit) }
        return trimmed
    }

    /// Opens the talk if the companion has not spoken yet: looks at the media, then greets.
    public func open(entryId: String, persona: Persona) async throws -> TurnResult {
        var result = TurnResult()
        var entry = try store.entry(id: entryId, includeMessages: true)
        guard !(entry.messages ?? []).contains(where: { $0.author == .companion }) else { return result }
        if entry.analysis == nil, !entry.media.isEmpty {
            do {
                let analysis = try await provider.analyze(request(entry, persona: persona))
                try store.setAnalysis(entryId: entryId, text: analysis, provider: provider.name)
                entry.analysis = analysis
            } catch is CompanionError {
                // The talk goes on without it; the next opening tries again.
                result.notices.append(.analysisDeferred)
            }
        }
        let greeting = try await provider.greet(request(entry, persona: persona))
        if let opening = try store.appendOpening(entryId: entryId, text: greeting, persona: persona.id, provider: provider.name) {
            result.messages.append(opening)
        }
        return result
    }

    /// Stores what the person said, then asks the companion to answer it.
    public func send(entryId: String, text: String, persona: Persona,
                     onText: @Sendable (String) -> Void = { _ in }) async throws -> TurnResult {
        let trimmed = try Self.trimmed(text, limit: textLimit)
        var result = try await open(entryId: entryId, persona: persona)
        guard !trimmed.isEmpty else { return result }
        result.messages.append(try store.appendMessage(entryId: entryId, author: .person, text: trimmed,
                                                       persona: persona.id, provider: nil))
        result.messages.append(try await answer(entryId: entryId, persona: persona, onText: onText))
        return result
    }

    /// Answers the person's last message again after a failed turn.
    public func retry(entryId: String, persona: Persona, onText: @Sendable (String) -> Void = { _ in }) async throws -> TurnResult {
        let history = try store.messages(entryId: entryId)
        guard history.last?.author == .person else {
            if history.isEmpty { return try await open(entryId: entryId, persona: persona) }
            throw CompanionError.nothingToRetry
        }
        return TurnResult(messages: [try await answer(entryId: entryId, persona: persona, onText: onText)])
    }

    /// Writes the page and tags; on failure the chat is kept and the entry is `summary_failed`.
    public func writePage(entryId: String, persona: Persona, usageDay: String) async throws -> Entry {
        let entry = try store.entry(id: entryId, includeMessages: true)
        var request = request(entry, persona: persona)
        request.existingTags = try store.tagUses().map(\.name)
        let page: Page
        do {
            guard let valid = try await provider.writePage(request).validated() else {
                throw CompanionError.providerFailed(provider: provider.name, detail: "not a page: 3–8 tags, a title and text")
            }
            page = valid
        } catch {
            try store.markSummaryFailed(entryId: entryId, error: "\(error)")
            // Whatever the provider did wrong, the person reads the seed's page-failure sentence.
            if error is CompanionError { throw CompanionError.pageNotWritten(detail: "\(error)") }
            throw error
        }
        try store.savePage(entryId: entryId, title: page.title, summary: page.summary, tags: page.tags,
                           persona: persona.id, provider: provider.name, usageDay: usageDay)
        return try store.entry(id: entryId)
    }

    private func answer(entryId: String, persona: Persona, onText: @Sendable (String) -> Void) async throws -> Message {
        let entry = try store.entry(id: entryId, includeMessages: true)
        let reply: String
        do {
            reply = try await provider.reply(request(entry, persona: persona), onText: onText)
        } catch let error as CompanionError {
            // Visible in the entry (D-006's last error) until an answer arrives.
            try store.recordError(entryId: entryId, error: "\(error)")
            throw error
        }
        return try store.appendMessage(entryId: entryId, author: .companion, text: reply,
                                       persona: persona.id, provider: provider.name)
    }

    private func request(_ entry: Entry, persona: Persona) -> CompanionRequest {
        CompanionRequest(language: language, persona: persona, entry: entry, history: entry.messages ?? [],
                         mediaFiles: entry.media.map { store.paths.media.appendingPathComponent($0.relativePath) })
    }
}

/// Which companion speaks: the one asked for, else the entry's, else the diary's setting,
/// else the config's, else 阿暖. An unreadable choice falls back with a notice.
public enum PersonaChoice {
    public static func resolve(flag: String?, entryPersona: String?, setting: String?, config: String?)
        throws -> (persona: Persona, notice: Phrase?) {
        if let flag {
            guard let persona = Persona.named(flag) else { throw CompanionError.unknownPersona(flag) }
            return (persona, nil)
        }
        for candidate in [entryPersona, setting, config].compactMap({ $0 }) {
            if let persona = Persona.named(candidate) { return (persona, nil) }
            return (.warm, .defaultPersonaUsed)
        }
        return (.warm, nil)
    }
}
