import Foundation

/// What a companion step produced: new messages, and notices for the person's stderr.
public struct TurnResult: Sendable {
    public var messages: [Message] = []
    public var notices: [Phrase] = []

    /// What a voice memo said, and who had to transcribe it.
    public struct Heard: Sendable {
        public var text: String
        public var notices: [Phrase]
    }
}

/// Limits a hosted operator may turn on (F-020); off by default.
public struct UsageLimits: Sendable {
    /// Companion replies one entry may get (the opening greeting aside).
    public var turnsPerEntry: Int?
    /// Pages the companion may write a day.
    public var pagesPerDay: Int?
    /// Tokens the online companions may use a day (counted as their services report them);
    /// then the offline companion answers until the day is over.
    public var tokensPerDay: Int?

    public init(turnsPerEntry: Int? = nil, pagesPerDay: Int? = nil, tokensPerDay: Int? = nil) {
        self.turnsPerEntry = turnsPerEntry
        self.pagesPerDay = pagesPerDay
        self.tokensPerDay = tokensPerDay
    }
}

/// One use of the companion that an operator's limits count (F-020).
public enum CompanionUse: Sendable, Equatable {
    /// A reply about this entry.
    case reply(entryId: String)
    /// A page written today.
    case page
}

/// Counts companion use where the person cannot reset it (the sync server, for the operator's
/// gateway). Throws `CompanionError.turnLimitReached`/`pageLimitReached` when the limit is
/// reached, and `usageUnknown` when the count cannot be had: unknown counts as used up.
public protocol UsageCounter: Sendable {
    func count(_ use: CompanionUse) async throws
}

/// When a long talk is condensed: the newest `keepRecent` messages always go verbatim;
/// once `foldAt` more have piled up before them, those are folded into the digest.
public struct Condensing: Sendable {
    public var keepRecent = 12
    public var foldAt = 8

    public init(keepRecent: Int = 12, foldAt: Int = 8) {
        self.keepRecent = keepRecent
        self.foldAt = foldAt
    }
}

/// How much of the earlier pages goes with a turn (`[memory] scope`).
public enum MemoryScope: String, Sendable, CaseIterable {
    /// None: every talk starts from this moment alone.
    case off
    /// Their days and titles only: no page text leaves the machine.
    case titles
    /// Days, titles and the start of each page.
    case pages
}

/// One entry's conversation: opening it, each turn, retrying, and writing the page.
///
/// The person's words are always committed before the companion is asked, so a failure
/// (network, provider, Ctrl-C, a killed process) never loses what they typed.
public struct Conversation: Sendable {
    public let store: DiaryStore
    /// Who may answer, in failover order.
    public let providers: [any ChatProvider]
    public let language: Language
    /// The longest message accepted, in characters people see.
    public let textLimit: Int
    public var limits = UsageLimits()
    /// The server's count of this person's use, when the operator's gateway answers.
    public var serverUsage: (any UsageCounter)?
    public var condensing = Condensing()
    /// Which earlier pages the companion is given in the talk.
    public var memory = MemoryScope.pages
    /// What the person asked the companion to remember (memory.md), as it goes in a prompt.
    public var notes: String?
    /// Where the weather of a moment comes from; nil leaves weather out.
    public var weather: (any WeatherSource)?
    /// Makes meaning vectors, so earlier pages that say the same in other words are recalled
    /// too; nil recalls by words alone.
    public var embedder: (any TextEmbedder)?
    /// Pictures of an entry's media for analysis (a downscaled photo, video keyframes).
    public var look: @Sendable (Entry) -> [Data] = { _ in [] }

    public init(store: DiaryStore, providers: [any ChatProvider], language: Language, textLimit: Int) {
        self.store = store
        self.providers = providers
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

    /// Opens the talk if the companion has not spoken yet: adds the weather, looks at the
    /// media, then greets.
    public func open(entryId: String, persona: Persona, onText: @Sendable (String) -> Void = { _ in }) async throws -> TurnResult {
        var result = TurnResult()
        var entry = try store.entry(id: entryId, includeMessages: true)
        guard !(entry.messages ?? []).contains(where: { $0.author == .companion }) else { return result }
        entry = try await addWeather(to: entry)
        if entry.analysis == nil, entry.picture != nil {
            do {
                entry.analysis = try await analyze(entry, persona: persona, notices: &result.notices)
            } catch CompanionError.analysisUnavailable {
                // The talk goes on without it; the next opening or --reanalyze tries again.
                result.notices.append(.analysisDeferred)
            }
        }
        let greetingRequest = await remembering(request(entry, persona: persona), notices: &result.notices)
        let (greeting, by) = try await ask(providers, notices: &result.notices) { provider in
            try await provider.greet(greetingRequest, onText: onText)
        }
        if let opening = try store.appendOpening(entryId: entryId, text: greeting, persona: persona.id, provider: by) {
            result.messages.append(opening)
        }
        return result
    }

    /// Stores what the person said, then asks the companion to answer it.
    public func send(entryId: String, text: String, persona: Persona,
                     onText: @Sendable (String) -> Void = { _ in }) async throws -> TurnResult {
        let trimmed = try Self.trimmed(text, limit: textLimit)
        if let limit = limits.turnsPerEntry {
            // F-020: unknown usage counts as used up.
            let history: [Message]
            do { history = try store.messages(entryId: entryId) } catch { throw CompanionError.usageUnknown }
            let replies = history.filter { $0.author == .companion }.count - 1
            if replies >= limit { throw CompanionError.turnLimitReached(limit: limit) }
        }
        var result = try await open(entryId: entryId, persona: persona)
        guard !trimmed.isEmpty else { return result }
        result.messages.append(try store.appendMessage(entryId: entryId, author: .person, text: trimmed,
                                                       persona: persona.id, provider: nil))
        result.messages.append(try await answer(entryId: entryId, persona: persona, notices: &result.notices, onText: onText))
        return result
    }

    /// Answers the person's last message again after a failed turn.
    public func retry(entryId: String, persona: Persona, onText: @Sendable (String) -> Void = { _ in }) async throws -> TurnResult {
        let history = try store.messages(entryId: entryId)
        guard history.last?.author == .person else {
            if history.isEmpty { return try await open(entryId: entryId, persona: persona, onText: onText) }
            throw CompanionError.nothingToRetry
        }
        var result = TurnResult()
        result.messages = [try await answer(entryId: entryId, persona: persona, notices: &result.notices, onText: onText)]
        return result
    }

    /// Looks at the media again (and transcribes a memo not yet transcribed), replacing
    /// the stored analysis: the way back from 「目前無法分析」.
    public func reanalyze(entryId: String, persona: Persona) async throws -> TurnResult {
        var result = TurnResult()
        var entry = try store.entry(id: entryId)
        if entry.transcript == nil, let memo = entry.media.first(where: { $0.kind == .audio }) {
            do {
                let heard = try await transcribe(memo)
                result.notices += heard.notices
                try store.setTranscript(entryId: entryId, text: heard.text)
                entry.transcript = heard.text
            } catch CompanionError.notHeard {
                result.notices.append(.notHeard)
            } catch CompanionError.transcriptionUnavailable {
                result.notices.append(.transcriptionUnavailable)
            }
        }
        entry = try await addWeather(to: entry)
        if entry.picture != nil {
            _ = try await analyze(entry, persona: persona, notices: &result.notices)
        }
        return result
    }

    /// Turns a stored voice memo into text with the first provider that can (F-011).
    public func transcribe(_ memo: MediaItem) async throws -> TurnResult.Heard {
        let listeners = providers.filter(\.isRemote)
        guard !listeners.isEmpty else { throw CompanionError.transcriptionUnavailable }
        let file = store.paths.media.appendingPathComponent(memo.relativePath)
        var notices: [Phrase] = []
        do {
            let (text, _) = try await ask(listeners, notices: &notices) { provider in
                try await provider.transcribe(audio: file, mime: memo.mime, language: language)
            }
            return TurnResult.Heard(text: text, notices: notices)
        } catch CompanionError.providerFailed {
            throw CompanionError.notHeard
        }
    }

    /// Writes the page and tags; on failure the chat is kept and the entry is `summary_failed`.
    /// Returns the saved entry, what to tell the person, and the lines the companion suggests
    /// adding to memory.md.
    public func writePage(entryId: String, persona: Persona, usageDay: String) async throws
        -> (entry: Entry, notices: [Phrase], memorySuggestions: [String]) {
        if let limit = limits.pagesPerDay {
            let written: Int
            do { written = try store.pagesWritten(on: usageDay) } catch { throw CompanionError.usageUnknown }
            if written >= limit { throw CompanionError.pageLimitReached(limit: limit) }
        }
        try await serverUsage?.count(.page)
        var notices: [Phrase] = []
        let entry = try store.entry(id: entryId, includeMessages: true)
        var request = try await condensed(entry, persona: persona, notices: &notices)
        request.existingTags = try store.tags.uses().map(\.name)
        let page: Page
        let by: String
        do {
            (page, by) = try await validPage(notices: &notices) { try await $0.writePage(request) }
        } catch let CompanionError.pageNotWritten(detail) {
            try store.markSummaryFailed(entryId: entryId, error: detail)
            throw CompanionError.pageNotWritten(detail: detail)
        }
        try store.savePage(entryId: entryId, title: page.title, summary: page.summary, tags: page.tags,
                           persona: persona.id, provider: by, usageDay: usageDay)
        await embedSaved(entry, notices: &notices)
        return (try store.entry(id: entryId), notices, page.memorySuggestions)
    }

    /// Writes a reflection on the saved pages of the days `from`…`to` (the newest 60 when
    /// there are more; reflections themselves are not reflected on) and stores it as a page
    /// of its own that cites them; returns it and what to tell the person.
    public func reflect(period: String, from: String, to: String, persona: Persona, now: Date = Date()) async throws
        -> (entry: Entry, notices: [Phrase]) {
        var range = FindRequest()
        range.from = from
        range.to = to
        range.statuses = [.saved]
        var pages: [Entry] = []
        _ = try Finder(store: store).forEachHit(range) { hit, _ in
            if hit.entry.reflection == nil && pages.count < 60 { pages.append(hit.entry) }
        }
        guard !pages.isEmpty else { throw CompanionError.nothingToReflect }
        try await serverUsage?.count(.page)
        let asking = ReflectionRequest(language: language, persona: persona, period: period, from: from, to: to, pages: pages.reversed())
        var notices: [Phrase] = []
        let (page, by) = try await validPage(notices: &notices) { try await $0.reflect(asking) }
        // A reflection on days gone by sits at the end of its last day; one on days up to now, now.
        let zone = TimeZone.current
        let occurred = to >= Timestamps.localDate(now, zone: zone) ? now : (Timestamps.parse("\(to) 23:00", zone: zone) ?? now)
        let id = try store.saveReflection(Reflection(period: period, from: from, to: to, cites: asking.pages.map(\.id)),
                                          title: page.title, summary: page.summary, tags: page.tags, occurredAt: occurred,
                                          timeZone: zone, persona: persona.id, provider: by)
        return (try store.entry(id: id), notices)
    }

    /// The request for the next reply or page, condensing the talk first when it has grown
    /// long: early turns become a running digest instead of being cut off.
    func condensed(_ entry: Entry, persona: Persona, notices: inout [Phrase]) async throws -> CompanionRequest {
        let all = entry.messages ?? []
        var digest = entry.digest
        var recent = all
        if let through = entry.digestThrough, let index = all.firstIndex(where: { $0.id == through }) {
            recent = Array(all[(index + 1)...])
        } else {
            digest = nil
        }
        if recent.count >= condensing.keepRecent + condensing.foldAt {
            let earlier = Array(recent.dropLast(condensing.keepRecent))
            var asking = request(entry, persona: persona)
            asking.digest = digest
            do {
                let (summary, _) = try await ask(providers, notices: &notices) { provider in
                    try await provider.condense(asking, earlier: earlier)
                }
                try store.setDigest(entryId: entry.id, text: summary, through: earlier.last!.id)
                digest = summary
                recent = Array(recent.suffix(condensing.keepRecent))
            } catch CompanionError.providerFailed {
                // Sending the whole talk once more is better than losing its beginning.
            }
        }
        var request = request(entry, persona: persona)
        request.history = recent
        request.digest = digest
        return request
    }

    private func answer(entryId: String, persona: Persona, notices: inout [Phrase],
                        onText: @Sendable (String) -> Void) async throws -> Message {
        // Counted after the person's words are stored, so a refusal loses nothing.
        try await serverUsage?.count(.reply(entryId: entryId))
        let entry = try store.entry(id: entryId, includeMessages: true)
        let request = await remembering(try await condensed(entry, persona: persona, notices: &notices), notices: &notices)
        let reply: String
        let by: String
        do {
            (reply, by) = try await ask(providers, notices: &notices) { provider in
                try await provider.reply(request, onText: onText)
            }
        } catch let error as CompanionError where error != .cancelled {
            // Visible in the entry (D-006's last error) until an answer arrives.
            try store.recordError(entryId: entryId, error: "\(error)")
            throw error
        }
        return try store.appendMessage(entryId: entryId, author: .companion, text: reply, persona: persona.id, provider: by)
    }

    /// Analyses the media with the remote providers only (the offline companion cannot see;
    /// it stands in only when no remote one is configured) and stores the result.
    private func analyze(_ entry: Entry, persona: Persona, notices: inout [Phrase]) async throws -> String {
        let viewers = providers.contains(where: \.isRemote) ? providers.filter(\.isRemote) : providers
        var asking = request(entry, persona: persona)
        if viewers.contains(where: \.isRemote) { asking.images = look(entry) }
        let request = asking
        do {
            let (analysis, by) = try await ask(viewers, notices: &notices) { provider in try await provider.analyze(request) }
            try store.setAnalysis(entryId: entry.id, text: analysis, provider: by)
            return analysis
        } catch CompanionError.providerFailed {
            throw CompanionError.analysisUnavailable
        }
    }

    /// Looks up the weather once, at the first turn, when the place is known.
    private func addWeather(to entry: Entry) async throws -> Entry {
        guard let weather, entry.context.weatherDescription == nil,
              let latitude = entry.context.latitude, let longitude = entry.context.longitude else { return entry }
        guard let found = await weather.weather(latitude: latitude, longitude: longitude, at: entry.occurredAt,
                                                zone: entry.zone, language: language) else { return entry }
        var updated = entry
        updated.context.weatherDescription = found.description
        updated.context.temperatureC = found.temperatureC
        try store.setContext(entryId: entry.id, context: updated.context)
        return updated
    }

    /// Asks each candidate in turn until one answers; says so when a later one had to.
    /// A valid page from the first provider that writes one; when none does, whatever went
    /// wrong, the person reads the seed's page-failure sentence (`pageNotWritten`).
    private func validPage(notices: inout [Phrase], _ write: (any ChatProvider) async throws -> Page) async throws -> (Page, String) {
        do {
            return try await ask(providers, notices: &notices) { provider in
                guard let valid = try await write(provider).validated(tagCount: provider.pageTagCount) else {
                    throw CompanionError.providerFailed(provider: provider.name, detail: "not a page: a title, text and \(provider.pageTagCount) tags")
                }
                return valid
            }
        } catch let error as CompanionError where error != .cancelled {
            throw CompanionError.pageNotWritten(detail: "\(error)")
        }
    }

    private func ask<T: Sendable>(_ candidates: [any ChatProvider], notices: inout [Phrase],
                                  _ body: (any ChatProvider) async throws -> T) async throws -> (T, String) {
        var lastError: Error = CompanionError.providerFailed(provider: "none", detail: "no provider")
        let day = Timestamps.localDate(Date(), zone: .current)
        var usedUp = false
        for (index, provider) in candidates.enumerated() {
            if provider.isRemote, let limit = limits.tokensPerDay {
                // F-020: unknown usage counts as used up.
                let used = (try? store.usage(on: day, kind: UsageKind.tokens)) ?? limit
                if used >= limit {
                    if !notices.contains(.tokensUsedUp(limit: limit)) { notices.append(.tokensUsedUp(limit: limit)) }
                    usedUp = true
                    lastError = CompanionError.providerFailed(provider: provider.name, detail: "the day's tokens are used up")
                    continue
                }
            }
            let before = provider.tokensUsed
            // What an answer cost is counted whether or not it was of use.
            defer {
                let spent = provider.tokensUsed - before
                if spent > 0 { try? store.addUsage(on: day, kind: UsageKind.tokens, count: spent) }
            }
            do {
                let value = try await body(provider)
                if index > 0 && !usedUp { notices.append(.answeredBy(provider: provider.name)) }
                return (value, provider.name)
            } catch let error as CompanionError {
                guard case .providerFailed = error else { throw error }
                lastError = error
            } catch is CancellationError {
                throw CompanionError.cancelled
            }
            if Task.isCancelled { throw CompanionError.cancelled }
        }
        throw lastError
    }

    /// The request with the earlier pages related to the moment and to what the person has
    /// said lately; a recall that fails only leaves them out, an embedder that fails leaves
    /// recall to words (with a notice the first time).
    func remembering(_ request: CompanionRequest, notices: inout [Phrase]) async -> CompanionRequest {
        guard memory != .off else { return request }
        var request = request
        let moment = Recall.Moment(request.entry)
        var meaning: Recall.Meaning?
        if let embedder {
            do {
                meaning = try await embedder.embed([moment.meaningText]).first.map { Recall.Meaning(model: embedder.model, vector: $0) }
            } catch {
                Self.tellMeaningFailure(error, in: &notices)
            }
        }
        var memories = (try? Recall(store: store).recollections(for: moment, meaning: meaning)) ?? []
        if memory == .titles { for index in memories.indices { memories[index].excerpt = nil } }
        request.memories = memories
        return request
    }

    /// Makes the meaning vectors of the page just saved and of a few others that lack one
    /// (pages that came by sync or import lately), after the page is safely stored. Only days
    /// from the page's own (or 30 days back, if later) are looked at, so a save never walks a
    /// big diary; `diary-save --embed` takes the rest.
    private func embedSaved(_ entry: Entry, notices: inout [Phrase]) async {
        guard let embedder, memory != .off else { return }
        let since = min(Timestamps.localDate(entry.occurredAt, zone: entry.zone),
                        Timestamps.localDate(Date().addingTimeInterval(-30 * 86_400), zone: entry.zone))
        do {
            try await PageMeanings(store: store, embedder: embedder).catchUp(limit: PageMeanings.batch * 2, since: since)
        } catch {
            Self.tellMeaningFailure(error, in: &notices)
        }
    }

    /// An embedder's failure is told once: after it, the embedder fails quietly (`again`).
    private static func tellMeaningFailure(_ error: Error, in notices: inout [Phrase]) {
        if (error as? MeaningUnavailable)?.again != true { notices.append(.meaningUnavailable) }
    }

    private func request(_ entry: Entry, persona: Persona) -> CompanionRequest {
        var request = CompanionRequest(language: language, persona: persona, entry: entry, history: entry.messages ?? [], digest: entry.digest)
        request.notes = memory == .off ? nil : notes
        return request
    }
}

/// Which companion speaks: the one asked for, else the entry's, else the diary's setting,
/// else the config's, else 阿暖. An unreadable choice falls back with a notice.
package enum PersonaChoice {
    package static func resolve(flag: String?, entryPersona: String?, setting: String?, config: String?)
        throws -> (persona: Persona, notice: Phrase?) {
        if let flag {
            guard let persona = Persona.named(flag) else { throw CompanionError.unknownPersona(flag) }
            return (persona, nil)
        }
        for candidate in [entryPersona, setting, config].compactMap({ $0 }) {
            if let persona = Persona.named(candidate) { return (persona, nil) }
            return (.standard, .defaultPersonaUsed)
        }
        return (.standard, nil)
    }
}
