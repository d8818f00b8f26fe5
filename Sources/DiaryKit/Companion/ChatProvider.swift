import Foundation

/// Everything a companion is given for one call: who it is, in what language, the entry
/// (note, analysis, context, media) and the conversation so far.
public struct CompanionRequest: Sendable {
    public var language: Language
    public var persona: Persona
    public var entry: Entry
    /// The conversation so far, oldest first; for a reply its last line is the person's.
    public var history: [Message]
    /// Tags the person already has, so a page reuses them.
    public var existingTags: [String]
    /// JPEG pictures of the media (a downscaled photo, or keyframes of a video), for analysis.
    public var images: [Data]
    /// A running summary of the turns before `history`, when a long talk was condensed.
    public var digest: String?
    /// Earlier pages the companion may bring up in the talk (none when memory is off).
    public var memories: [Recollection] = []
    /// What the person asked the companion to remember (`memory.md`, trimmed to its limit).
    public var notes: String?

    public init(language: Language, persona: Persona, entry: Entry, history: [Message],
                existingTags: [String] = [], images: [Data] = [], digest: String? = nil) {
        self.language = language
        self.persona = persona
        self.entry = entry
        self.history = history
        self.existingTags = existingTags
        self.images = images
        self.digest = digest
    }
}

/// A written page: title, first-person summary and its tags (3–8 from a model).
public struct Page: Sendable, Equatable {
    public var title: String
    public var summary: String
    public var tags: [String]
    /// Lines the companion suggests adding to memory.md (new people, pets, places, threads);
    /// printed for the person, never written by it.
    public var memorySuggestions: [String] = []

    public init(title: String, summary: String, tags: [String]) {
        self.title = title
        self.summary = summary
        self.tags = tags
    }

    /// The tags normalised, empty ones dropped, each kept once in order.
    package var normalizedTags: [String] {
        var seen = Set<String>()
        return tags.compactMap(TagName.normalize).filter { seen.insert($0).inserted }
    }

    /// The page with tags normalised and de-duplicated; nil unless it has a title, a summary
    /// and as many tags as `tagCount` allows (a half-formed page is never stored).
    public func validated(tagCount: ClosedRange<Int> = 3...8) -> Page? {
        let tags = normalizedTags
        let title = self.title.trimmingCharacters(in: .whitespacesAndNewlines)
        let summary = self.summary.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty, !summary.isEmpty, tagCount.contains(tags.count) else { return nil }
        var page = Page(title: title, summary: summary, tags: tags)
        page.memorySuggestions = memorySuggestions
        return page
    }
}

/// The one seam every companion sits behind, offline or over the network.
public protocol ChatProvider: Sendable {
    /// `offline`, or the configured provider's name; recorded with what it writes.
    var name: String { get }
    /// False for the offline companion: nothing leaves the machine, no consent is needed.
    var isRemote: Bool { get }
    /// Describes what the media shows (D-004).
    func analyze(_ request: CompanionRequest) async throws -> String
    /// The first words after the media was looked at; `onText` receives them as they arrive.
    func greet(_ request: CompanionRequest, onText: @Sendable (String) -> Void) async throws -> String
    /// Answers the person's last message; `onText` receives the reply as it arrives.
    func reply(_ request: CompanionRequest, onText: @Sendable (String) -> Void) async throws -> String
    /// Writes the page in the person's voice.
    func writePage(_ request: CompanionRequest) async throws -> Page
    /// How many tags a page from it must have.
    var pageTagCount: ClosedRange<Int> { get }
    /// Folds `earlier` messages (and `request.digest`) into a short running summary.
    func condense(_ request: CompanionRequest, earlier: [Message]) async throws -> String
    /// Turns a voice memo into text (F-011); throws `notHeard` when nothing was recognised.
    func transcribe(audio: URL, mime: String, language: Language) async throws -> String
    /// The tokens its answers have cost so far (the service's count where it gives one).
    var tokensUsed: Int { get }
    /// Writes a reflection on the pages of a period, in the person's voice.
    func reflect(_ request: ReflectionRequest) async throws -> Page
}

/// What a reflection looks back on.
public struct ReflectionRequest: Sendable {
    public var language: Language
    public var persona: Persona
    /// `week`, `month`, `year` or `range`, and its first and last local day.
    public var period: String
    public var from: String
    public var to: String
    /// The saved pages of those days, oldest first.
    public var pages: [Entry]

    public init(language: Language, persona: Persona, period: String, from: String, to: String, pages: [Entry]) {
        self.language = language
        self.persona = persona
        self.period = period
        self.from = from
        self.to = to
        self.pages = pages
    }
}

extension ChatProvider {
    /// A model is asked for 3–8 tags (F-005); fewer or more means it did not follow.
    public var pageTagCount: ClosedRange<Int> { 3...8 }
    /// Nothing: only a remote model's tokens cost anything.
    public var tokensUsed: Int { 0 }
}

/// Where the weather of a moment comes from (the weather service of CompanionClient);
/// a seam so the core knows no HTTP.
public protocol WeatherSource: Sendable {
    /// The weather at the place and time, or nil when there is none to be had.
    func weather(latitude: Double, longitude: Double, at date: Date, zone: TimeZone,
                 language: Language) async -> (description: String, temperatureC: Double?)?
}

/// Why the companion could not do its part; what the person typed is always kept.
package enum CompanionError: Error, Equatable {
    /// The provider failed (the detail is for logs, never shown raw).
    case providerFailed(provider: String, detail: String)
    /// The page could not be written: the provider failed or answered with no valid page.
    case pageNotWritten(detail: String)
    /// `--retry` found no unanswered message or unwritten page.
    case nothingToRetry
    /// No companion has this name.
    case unknownPersona(String)
    /// The message is longer than the limit.
    case textTooLong(limit: Int)
    /// No provider has this name (`--provider`).
    case unknownProvider(String)
    /// The voice memo gave no words, or could not be transcribed (the audio is kept).
    case notHeard
    /// Only the offline companion is configured, and it cannot listen.
    case transcriptionUnavailable
    /// No provider could look at the media (the draft is kept; `--reanalyze` tries again).
    case analysisUnavailable
    /// Content would go to a remote provider the person has not agreed to.
    case consentNeeded(provider: String)
    /// This entry has had all the replies `[limits] turns_per_entry` allows.
    case turnLimitReached(limit: Int)
    /// Today's pages are used up (`[limits] pages_per_day`).
    case pageLimitReached(limit: Int)
    /// How much was used cannot be read; counted as used up (F-020).
    case usageUnknown
    /// The person pressed Ctrl-C while waiting; nothing half-written was stored.
    case cancelled
    /// A reflection was asked for days without a saved page.
    case nothingToReflect
}
