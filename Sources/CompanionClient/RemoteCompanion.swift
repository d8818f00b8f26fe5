import DiaryKit
import Foundation

/// A companion on any OpenAI-compatible endpoint (OpenAI, DeepSeek, Ollama, vLLM,
/// llama.cpp, LiteLLM…): streamed replies, vision input, a JSON-schema page, transcription.
public struct RemoteCompanion: ChatProvider {
    public let name: String
    public var isRemote: Bool { true }
    package let settings: ProviderSettings
    let endpoint: ServiceEndpoint
    /// What the model takes, learnt from its name and then from the 400s it answers with.
    private let shape: Locked<RequestShape>
    /// Tokens its answers have cost, by the service's count where it gives one.
    private let meter = Locked(0)

    public init(settings: ProviderSettings, key: Secret?, timeout: Double, retries: Int, log: RequestLog) {
        self.init(settings: settings, endpoint: ServiceEndpoint(provider: settings.name, baseURL: settings.baseURL, key: key,
                                                                timeout: timeout, retry: RetryPolicy(retries: retries), log: log))
    }

    /// The operator's gateway: the person's session token as the bearer, asked for before
    /// each request, and whether they have premium in `X-Diary-Premium` (F-024).
    public init(gateway: HostedGateway, timeout: Double, retries: Int, log: RequestLog) {
        var endpoint = ServiceEndpoint(provider: gateway.settings.name, baseURL: gateway.settings.baseURL, key: nil,
                                       timeout: timeout, retry: RetryPolicy(retries: retries), log: log)
        endpoint.session = gateway.token
        endpoint.headers = [("X-Diary-Premium", gateway.premium ? "true" : "false")]
        self.init(settings: gateway.settings, endpoint: endpoint)
    }

    init(settings: ProviderSettings, endpoint: ServiceEndpoint) {
        name = settings.name
        self.settings = settings
        self.endpoint = endpoint
        shape = Locked(RequestShape(model: settings.model))
    }

    public var tokensUsed: Int { meter.withLock { $0 } }

    public func analyze(_ request: CompanionRequest) async throws -> String {
        var request = request
        if !settings.vision { request.images = [] }
        return try await complete(PromptBuilder(request: request).analysis(), maxTokens: 400, temperature: 0.3)
    }

    public func greet(_ request: CompanionRequest, onText: @Sendable (String) -> Void) async throws -> String {
        try await streamed(PromptBuilder(request: request).greeting(), onText: onText)
    }

    public func reply(_ request: CompanionRequest, onText: @Sendable (String) -> Void) async throws -> String {
        try await streamed(PromptBuilder(request: request).reply(), onText: onText)
    }

    public func condense(_ request: CompanionRequest, earlier: [Message]) async throws -> String {
        try await complete(PromptBuilder(request: request).condense(earlier), maxTokens: 300, temperature: 0.2)
    }

    /// Asks for the page with a JSON schema; an answer that is not a valid page is repaired
    /// where it safely can be, else asked for once more; a half-formed page is never returned.
    public func writePage(_ request: CompanionRequest) async throws -> Page {
        try await askForPage(PromptBuilder(request: request).page(), language: request.language)
    }

    public func reflect(_ request: ReflectionRequest) async throws -> Page {
        try await askForPage(PromptBuilder.reflection(request), language: request.language)
    }

    /// The page the messages ask for, with the JSON schema, repaired or asked again as above.
    private func askForPage(_ asked: [JSON], language: Language) async throws -> Page {
        var messages = asked
        var format = PageReader.schemaFormat
        for attempt in 0..<2 {
            let text: String
            do {
                text = try await complete(messages, maxTokens: 900, temperature: 0.5, responseFormat: format)
            } catch is SchemaRefused {
                // Endpoints without JSON-schema support (DeepSeek, older servers) refuse the
                // format with a 400; plain JSON mode still gives the fields the prompt asks for.
                guard attempt == 0 else { throw CompanionError.providerFailed(provider: name, detail: "HTTP 400 (response_format)") }
                format = .object([("type", .string("json_object"))])
                continue
            }
            switch PageReader.read(text) {
            case let .success(page):
                return page
            case let .failure(problem):
                let book = PromptBook.book(language)
                messages.append(.object([("role", .string("assistant")), ("content", .string(text))]))
                messages.append(.object([("role", .string("user")),
                                         ("content", .string(book.repairRequest.replacingOccurrences(of: "%@", with: problem.reason)))]))
            }
        }
        throw CompanionError.providerFailed(provider: name, detail: "no valid page after a second request")
    }

    public func transcribe(audio: URL, mime: String, language: Language) async throws -> String {
        guard let data = FileManager.default.contents(atPath: audio.path) else { throw CompanionError.notHeard }
        // Through `adapting`, so that a 400 becomes the provider's failure like any other.
        let json = try await adapting { _ in
            try await endpoint.postMultipart("/audio/transcriptions", fields: [
                ("model", settings.transcriptionModel), ("language", language == .en ? "en" : "zh"), ("response_format", "json"),
            ], file: (name: audio.lastPathComponent, mime: mime, data: data))
        }
        let text = (json["text"]?.stringValue ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw CompanionError.notHeard }
        return text
    }

    // MARK: - Wire

    /// A chat request as this model takes it: the token budget under the name it knows,
    /// the temperature only where it may be chosen, usage asked for in streams.
    private func body(_ messages: [JSON], maxTokens: Int, temperature: Double, stream: Bool, responseFormat: JSON?,
                      shape: RequestShape) -> JSON {
        var fields: [(String, JSON)] = [("model", .string(settings.model)), ("messages", .array(messages))]
        // A reasoning model spends part of the budget thinking before it writes a word.
        fields.append((shape.tokenField, .int(Int64(shape.reasoning ? maxTokens * 4 : maxTokens))))
        if shape.reasoning && shape.reasoningEffort { fields.append(("reasoning_effort", .string("low"))) }
        if shape.temperature { fields.append(("temperature", .double(temperature))) }
        fields.append(("stream", .bool(stream)))
        if stream && shape.streamUsage { fields.append(("stream_options", .object([("include_usage", .bool(true))]))) }
        if let responseFormat { fields.append(("response_format", responseFormat)) }
        return .object(fields)
    }

    /// Sends a request shaped for the model; a 400 naming a parameter it can go without
    /// (or under its other name) sends it again, changed, and the change is kept for later
    /// requests. One naming the response format is the page's to handle (`SchemaRefused`).
    private func adapting<T>(schema: Bool = false, _ send: (RequestShape) async throws -> T) async throws -> T {
        while true {
            let current = shape.withLock { $0 }
            do {
                return try await translated { try await send(current) }
            } catch let RefusedParameter.named(parameter) {
                if schema && parameter == "response_format" { throw SchemaRefused() }
                let adapted = shape.withLock { shape in shape.adapt(toRefusalOf: parameter) }
                guard adapted else { throw CompanionError.providerFailed(provider: name, detail: "HTTP 400 (\(parameter))") }
            } catch RefusedParameter.unnamed {
                // A bare 400 to a page request may be a schema the endpoint does not support.
                if schema { throw SchemaRefused() }
                throw CompanionError.providerFailed(provider: name, detail: "HTTP 400")
            }
        }
    }

    private func complete(_ messages: [JSON], maxTokens: Int, temperature: Double, responseFormat: JSON? = nil) async throws -> String {
        let json = try await adapting(schema: responseFormat != nil) { shape in
            try await endpoint.postJSON("/chat/completions", body(messages, maxTokens: maxTokens, temperature: temperature,
                                                                   stream: false, responseFormat: responseFormat, shape: shape))
        }
        guard let text = json["choices"]?[0]?["message"]?["content"]?.stringValue,
              !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw CompanionError.providerFailed(provider: name, detail: "answer without text")
        }
        count(json["usage"], prompt: messages, answer: text)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Streams a reply: each delta goes to `onText` as it arrives; the whole text is returned.
    private func streamed(_ messages: [JSON], onText: @Sendable (String) -> Void) async throws -> String {
        let assembled = Locked("")
        let usage = Locked<JSON?>(nil)
        // The stream is read to its end before this returns, so onText never outlives the call.
        try await withoutActuallyEscaping(onText) { onText in
            try await adapting { shape in
                try await endpoint.stream("/chat/completions", body(messages, maxTokens: 600, temperature: 0.8, stream: true,
                                                                     responseFormat: nil, shape: shape)) { event in
                    guard event != "[DONE]" else { return }
                    guard let chunk = JSON.parse(Data(event.utf8)) else { throw EndpointFailure.malformed("event is not JSON") }
                    // Some servers report a failure inside the stream instead of with a status.
                    if chunk["error"] != nil { throw EndpointFailure.malformed("error event") }
                    // Asked for, the usage comes in a last chunk of its own (with no choices).
                    if let counted = chunk["usage"], counted != .null { usage.withLock { $0 = counted } }
                    guard let piece = chunk["choices"]?[0]?["delta"]?["content"]?.stringValue, !piece.isEmpty else { return }
                    // Leading blank lines would show as an empty first line on a terminal.
                    let shown = assembled.withLock(\.isEmpty) ? String(piece.drop { $0.isNewline }) : piece
                    guard !shown.isEmpty else { return }
                    assembled.withLock { $0 += shown }
                    onText(shown)
                }
            }
        }
        let text = assembled.withLock { $0 }.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw CompanionError.providerFailed(provider: name, detail: "empty reply") }
        count(usage.withLock { $0 }, prompt: messages, answer: text)
        return text
    }

    /// Adds an answer's tokens to the meter: the service's own count, else an estimate of
    /// the prompt's words and the answer's.
    private func count(_ usage: JSON?, prompt: [JSON], answer: String) {
        let reported = usage?["total_tokens"]?.doubleValue
            ?? (usage?["prompt_tokens"]?.doubleValue).flatMap { prompt in usage?["completion_tokens"]?.doubleValue.map { prompt + $0 } }
        let tokens = reported.map { Int(max(0, min($0, 1e9))) }
            ?? TokenEstimate.of(prompt + [.object([("role", .string("assistant")), ("content", .string(answer))])])
        meter.withLock { $0 += tokens }
    }

    /// Runs a request, turning transport failures into the companion's error (the detail
    /// names the status or failure kind, never a body or a key); a refused parameter is
    /// passed on for `adapting` to handle.
    private func translated<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let EndpointFailure.refusedParameter(parameter) {
            throw RefusedParameter.named(parameter)
        } catch let failure as EndpointFailure {
            if case .status(400, _) = failure { throw RefusedParameter.unnamed }
            throw CompanionError.providerFailed(provider: name, detail: failure.summary)
        }
    }
}

/// A 400 the request can learn from: naming one of its parameters, or none.
private enum RefusedParameter: Error {
    case named(String)
    case unnamed
}

/// The endpoint refused the page's JSON schema (`response_format`).
private struct SchemaRefused: Error {}

/// What a model takes, learnt as it goes. OpenAI's reasoning models (o1, o3, o4-mini,
/// gpt-5…) refuse `max_tokens` and any temperature but the default; most other endpoints
/// know only `max_tokens`.
struct RequestShape: Sendable, Equatable {
    var tokenField = "max_tokens"
    var temperature = true
    var streamUsage = true
    var reasoning = false
    var reasoningEffort = true
    /// Token fields tried: the two names are swapped at most once each.
    private var swapped = 0

    init(model: String) {
        let family = (model.split(separator: "/").last.map(String.init) ?? model).lowercased()
        if family.wholeMatch(of: /o[1-9]([-.].*)?|gpt-5.*/) != nil { becomeReasoning() }
    }

    private mutating func becomeReasoning() {
        tokenField = "max_completion_tokens"
        temperature = false
        reasoning = true
    }

    /// Changes what the refused parameter says; false when there is nothing left to change.
    mutating func adapt(toRefusalOf parameter: String) -> Bool {
        switch parameter {
        case "max_tokens" where tokenField == "max_tokens" && swapped < 2:
            becomeReasoning()
        case "max_completion_tokens" where tokenField == "max_completion_tokens" && swapped < 2:
            tokenField = "max_tokens"
        case "temperature" where temperature:
            temperature = false
        case "stream_options" where streamUsage:
            streamUsage = false
        case "reasoning_effort" where reasoning && reasoningEffort:
            reasoningEffort = false
        default:
            return false
        }
        if parameter.hasPrefix("max_") { swapped += 1 }
        return true
    }
}

/// Reads a page out of a model's answer, repairing what can be repaired safely: code
/// fences or words around the JSON object, tags given as one string, more than 8 tags.
enum PageReader {
    struct Problem: Error {
        let reason: String
    }

    /// `response_format` asking for the page's JSON schema.
    static let schemaFormat: JSON = .object([
        ("type", .string("json_schema")),
        ("json_schema", .object([
            ("name", .string("diary_page")),
            ("strict", .bool(true)),
            ("schema", .object([
                ("type", .string("object")),
                ("properties", .object([
                    ("title", .object([("type", .string("string"))])),
                    ("summary", .object([("type", .string("string"))])),
                    ("tags", .object([("type", .string("array")), ("items", .object([("type", .string("string"))])),
                                      ("minItems", .int(3)), ("maxItems", .int(8))])),
                    ("memory_suggestions", .object([("type", .string("array")), ("items", .object([("type", .string("string"))])),
                                                    ("maxItems", .int(3))])),
                ])),
                // Strict schemas need every property listed; an empty array says "nothing to suggest".
                ("required", .array([.string("title"), .string("summary"), .string("tags"), .string("memory_suggestions")])),
                ("additionalProperties", .bool(false)),
            ])),
        ])),
    ])

    static func read(_ text: String) -> Result<Page, Problem> {
        guard let start = text.firstIndex(of: "{"), let end = text.lastIndex(of: "}"), start < end,
              let json = JSON.parse(Data(text[start...end].utf8)) else {
            return .failure(Problem(reason: "no JSON object"))
        }
        guard let title = json["title"]?.stringValue, let summary = json["summary"]?.stringValue else {
            return .failure(Problem(reason: "title or summary missing"))
        }
        var tags: [String]
        if let list = json["tags"]?.arrayValue {
            tags = list.compactMap(\.stringValue)
        } else if let line = json["tags"]?.stringValue {
            tags = line.split(whereSeparator: { ",，、;；#".contains($0) }).map(String.init)
        } else {
            return .failure(Problem(reason: "tags missing"))
        }
        // Dropping extra tags loses nothing the person said; too few cannot be made up.
        tags = Array(Page(title: title, summary: summary, tags: tags).normalizedTags.prefix(8))
        guard var page = Page(title: title, summary: summary, tags: tags).validated() else {
            return .failure(Problem(reason: "needs a title, a summary and 3 to 8 tags (got \(tags.count))"))
        }
        // Suggestions are a nicety: whatever is not a short line of text is dropped, not repaired.
        page.memorySuggestions = (json["memory_suggestions"]?.arrayValue ?? []).compactMap(\.stringValue)
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty && $0.count <= 200 }.prefix(3).map { $0 }
        return .success(page)
    }
}
