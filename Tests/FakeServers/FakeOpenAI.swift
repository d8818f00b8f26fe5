import Foundation
import Synchronization

/// An OpenAI-compatible model provider (`/v1/chat/completions`, `/v1/audio/transcriptions`) speaking the real wire format.
public final class FakeOpenAI: Sendable {
    public let server: FakeHTTPServer
    private let core: Core

    /// "http://127.0.0.1:PORT/v1" — what a client configures as its base URL.
    public var baseURL: String { server.baseURL + "/v1" }

    private init(server: FakeHTTPServer, core: Core) {
        self.server = server
        self.core = core
    }

    /// Starts the provider; requests must carry `Authorization: Bearer <apiKey>`.
    public static func start(apiKey: String = "sk-fake-test-key") async throws -> FakeOpenAI {
        try await start(accepting: { $0 == apiKey })
    }

    /// Starts it as an operator's gateway would run: any bearer `accepting` takes (a signed-in
    /// person's session token, checked as the gateway checks it) instead of one key.
    public static func start(accepting: @escaping @Sendable (String) -> Bool) async throws -> FakeOpenAI {
        let core = Core(accepting: accepting)
        return FakeOpenAI(server: try await FakeHTTPServer.start { core.handle($0) }, core: core)
    }

    /// Chat behaviours are used in order, one per accepted /chat/completions request; when none is queued the default is used.
    public func enqueueChat(_ behaviours: ChatBehaviour...) { core.state.withLock { $0.chatQueue += behaviours } }

    /// Transcription behaviours are used in order, one per /audio/transcriptions request; the default is "fake transcript <n>".
    public func enqueueTranscription(_ behaviours: TranscriptionBehaviour...) { core.state.withLock { $0.transcriptionQueue += behaviours } }

    /// Answers as OpenAI's reasoning models (o1, o3, gpt-5…) do: a 400 naming `max_tokens`
    /// (they take `max_completion_tokens`) or a temperature other than the default 1.
    public func actAsReasoningModel() { core.state.withLock { $0.reasoning = true } }

    /// The tokens its answers have reported in `usage` so far.
    public var reportedTokens: Int { core.state.withLock { $0.reportedTokens } }

    /// All /chat/completions requests, decoded (including rejected ones).
    public var chatRequests: [ChatRequest] { core.state.withLock { $0.chats } }

    /// All /audio/transcriptions requests, decoded (including rejected ones).
    public var transcriptionRequests: [TranscriptionRequest] { core.state.withLock { $0.transcriptions } }

    public func shutdown() async throws { try await server.shutdown() }
}

/// How the fake answers one /chat/completions request.
public indirect enum ChatBehaviour: Sendable {
    /// Answers with this assistant text: as SSE chunks if the request said "stream": true (the text split into
    /// pieces of `chunkSize` characters, `gapMillis` apart), else one JSON chat.completion.
    case reply(String, chunkSize: Int = 4, gapMillis: Int = 0)
    /// An OpenAI-style error body {"error":{"message":..,"type":..,"code":..}} with this HTTP status; optional Retry-After header (seconds).
    case fail(status: Int, message: String = "fake failure", retryAfter: Int? = nil)
    /// Starts streaming the text, then drops the connection before finishing (no [DONE]).
    case dropMidStream(String)
    /// Waits, then behaves like the inner behaviour.
    case delayed(seconds: Double, ChatBehaviour)
    /// Never answers.
    case hang
}

/// How the fake answers one /audio/transcriptions request.
public enum TranscriptionBehaviour: Sendable {
    /// Answers {"text": "..."}.
    case text(String)
    /// An OpenAI-style error body with this HTTP status.
    case fail(status: Int, message: String = "fake failure")
}

/// One /chat/completions request as received.
public struct ChatRequest: Sendable {
    public var model: String?
    public var stream: Bool
    /// The raw Authorization header value.
    public var authorization: String?
    public var messages: [ChatMessage]
    /// response_format.type: "json_schema", "json_object" or nil.
    public var responseFormat: String?
    /// response_format.json_schema.name
    public var schemaName: String?
    public var maxTokens: Int?
    public var maxCompletionTokens: Int?
    public var temperature: Double?
    /// stream_options.include_usage
    public var includeUsage: Bool
    public var rawBody: String

    init(_ request: RecordedRequest) {
        let json = request.json ?? [:]
        let format = json["response_format"] as? [String: Any]
        model = json["model"] as? String
        stream = json["stream"] as? Bool ?? false
        authorization = request.header("authorization")
        messages = (json["messages"] as? [[String: Any]] ?? []).map(ChatMessage.init)
        responseFormat = format?["type"] as? String
        schemaName = (format?["json_schema"] as? [String: Any])?["name"] as? String
        maxTokens = json["max_tokens"] as? Int
        maxCompletionTokens = json["max_completion_tokens"] as? Int
        temperature = (json["temperature"] as? NSNumber)?.doubleValue
        includeUsage = (json["stream_options"] as? [String: Any])?["include_usage"] as? Bool ?? false
        rawBody = request.bodyText
    }
}

/// One message of a chat request.
public struct ChatMessage: Sendable {
    public var role: String
    /// Text of the content: a plain string content, or the concatenated "text" parts of an array content.
    public var text: String
    /// The image_url.url values of "image_url" content parts (e.g. "data:image/jpeg;base64,...").
    public var imageURLs: [String]

    init(_ json: [String: Any]) {
        let parts = json["content"] as? [[String: Any]] ?? []
        role = json["role"] as? String ?? ""
        text = json["content"] as? String ?? parts.compactMap { $0["type"] as? String == "text" ? $0["text"] as? String : nil }.joined()
        imageURLs = parts.compactMap { ($0["image_url"] as? [String: Any])?["url"] as? String }
    }
}

/// One /audio/transcriptions request as received.
public struct TranscriptionRequest: Sendable {
    /// The raw Authorization header value.
    public var authorization: String?
    /// Multipart field "model".
    public var model: String?
    /// Filename of the "file" part.
    public var fileName: String?
    /// Size of the "file" part's content.
    public var fileBytes: Int { fileData.count }
    public var fileData: Data
    /// Optional multipart field "language".
    public var language: String?
    /// Every non-file multipart field by name.
    public var fields: [String: String]
}

extension FakeOpenAI {
    /// The mutable state and the request handling, shared with the server's handler.
    private final class Core: Sendable {
        struct State {
            var chatQueue: [ChatBehaviour] = []
            var transcriptionQueue: [TranscriptionBehaviour] = []
            var chats: [ChatRequest] = []
            var transcriptions: [TranscriptionRequest] = []
            var chatsServed = 0
            var transcriptionsServed = 0
            var reasoning = false
            var reportedTokens = 0
        }

        static let defaultPage = #"{"title":"假日的海邊","summary":"我今天去了海邊，風很大但很舒服。","tags":["旅行","海邊","放鬆"]}"#

        let accepting: @Sendable (String) -> Bool
        let state = Mutex(State())

        init(accepting: @escaping @Sendable (String) -> Bool) { self.accepting = accepting }

        func handle(_ request: RecordedRequest) -> FakeResponse {
            switch (request.method, request.path) {
            case ("POST", "/v1/chat/completions"): chat(request)
            case ("POST", "/v1/audio/transcriptions"): transcription(request)
            default: Self.error(404, "Invalid URL (\(request.method) \(request.path))", code: "unknown_url")
            }
        }

        /// The 401 the real service gives, echoing the key the client sent; nil when the key is right.
        private func rejection(_ request: RecordedRequest) -> FakeResponse? {
            let authorization = request.header("authorization") ?? ""
            let sent = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : authorization
            guard !authorization.hasPrefix("Bearer ") || !accepting(sent) else { return nil }
            return Self.error(401, "Incorrect API key provided: \(sent). You can find your API key at https://platform.openai.com/account/api-keys.",
                              code: "invalid_api_key")
        }

        private func chat(_ received: RecordedRequest) -> FakeResponse {
            let request = ChatRequest(received)
            let rejected = rejection(received) ?? refusal(request)
            let (n, queued) = state.withLock { state -> (Int, ChatBehaviour?) in
                state.chats.append(request)
                guard rejected == nil else { return (0, nil) }
                state.chatsServed += 1
                return (state.chatsServed, state.chatQueue.isEmpty ? nil : state.chatQueue.removeFirst())
            }
            if let rejected { return rejected }
            guard received.json != nil else { return Self.error(400, "We could not parse the JSON body of your request.") }
            let wantsJSON = request.responseFormat != nil && request.responseFormat != "text"
            return respond(queued ?? .reply(wantsJSON ? Self.defaultPage : "fake reply \(n)"), to: request, n: n)
        }

        /// A reasoning model's 400s, in OpenAI's words, for the parameters it does not take.
        private func refusal(_ request: ChatRequest) -> FakeResponse? {
            guard state.withLock({ $0.reasoning }) else { return nil }
            if request.maxTokens != nil {
                return Self.error(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                                  code: "unsupported_parameter", param: "max_tokens")
            }
            if let temperature = request.temperature, temperature != 1 {
                return Self.error(400, "Unsupported value: 'temperature' does not support \(temperature) with this model. Only the default (1) value is supported.",
                                  code: "unsupported_value", param: "temperature")
            }
            return nil
        }

        private func respond(_ behaviour: ChatBehaviour, to request: ChatRequest, n: Int) -> FakeResponse {
            let model = request.model ?? "gpt-fake"
            let envelope: [String: Any] = ["id": "chatcmpl-fake\(n)", "created": Int(Date().timeIntervalSince1970), "model": model]
            func chunk(_ delta: [String: Any], finish: String? = nil) -> String {
                let choice: [String: Any] = ["index": 0, "delta": delta, "finish_reason": finish ?? NSNull()]
                return jsonText(envelope.merging(["object": "chat.completion.chunk", "choices": [choice]]) { $1 })
            }
            let prompt = max(1, request.messages.map { Self.tokens($0.text) }.reduce(0, +))
            func usage(_ text: String) -> [String: Any] {
                state.withLock { $0.reportedTokens += prompt + Self.tokens(text) }
                return ["prompt_tokens": prompt, "completion_tokens": Self.tokens(text), "total_tokens": prompt + Self.tokens(text)]
            }
            func stream(_ pieces: [String]) -> [String] {
                // Asked for, the usage comes last in a chunk of its own with no choices, as OpenAI sends it.
                let counted = request.includeUsage
                    ? [jsonText(envelope.merging(["object": "chat.completion.chunk", "choices": [Any](), "usage": usage(pieces.joined())]) { $1 })] : []
                return [chunk(["role": "assistant", "content": ""])] + pieces.map { chunk(["content": $0]) } + [chunk([:], finish: "stop")]
                    + counted + ["[DONE]"]
            }
            switch behaviour {
            case let .reply(text, chunkSize, gapMillis):
                if request.stream { return .events(stream(Self.split(text, chunkSize)), gapMillis: gapMillis) }
                let choice: [String: Any] = ["index": 0, "message": ["role": "assistant", "content": text], "finish_reason": "stop"]
                return .body(status: 200, text: jsonText(envelope.merging([
                    "object": "chat.completion", "choices": [choice], "usage": usage(text),
                ]) { $1 }))
            case let .fail(status, message, retryAfter):
                return Self.error(status, message, retryAfter: retryAfter)
            case let .dropMidStream(text):
                // The role chunk and about half the pieces go out; a non-streaming request is dropped right after the head.
                let pieces = Self.split(text, 4)
                return .events(stream(pieces), dropAfter: request.stream ? 1 + max(1, pieces.count / 2) : 0)
            case let .delayed(seconds, inner):
                return .delayed(seconds: seconds, respond(inner, to: request, n: n))
            case .hang:
                return .hang
            }
        }

        private func transcription(_ received: RecordedRequest) -> FakeResponse {
            let parts = Self.multipart(received.body, contentType: received.header("content-type"))
            let file = parts.first { $0.name == "file" }
            var fields: [String: String] = [:]
            for part in parts where part.fileName == nil { fields[part.name] = String(decoding: part.data, as: UTF8.self) }
            let request = TranscriptionRequest(
                authorization: received.header("authorization"), model: fields["model"], fileName: file?.fileName,
                fileData: file?.data ?? Data(), language: fields["language"], fields: fields)
            let rejected = rejection(received)
            let (n, queued) = state.withLock { state -> (Int, TranscriptionBehaviour?) in
                state.transcriptions.append(request)
                guard rejected == nil else { return (0, nil) }
                state.transcriptionsServed += 1
                return (state.transcriptionsServed, state.transcriptionQueue.isEmpty ? nil : state.transcriptionQueue.removeFirst())
            }
            if let rejected { return rejected }
            guard file != nil else { return Self.error(400, "Could not parse multipart form: no \"file\" part.") }
            switch queued ?? .text("fake transcript \(n)") {
            case let .text(text):
                if fields["response_format"] == "text" { return .body(status: 200, text: text + "\n", contentType: "text/plain; charset=utf-8") }
                return .body(status: 200, text: jsonText(["text": text]))
            case let .fail(status, message):
                return Self.error(status, message)
            }
        }

        /// An OpenAI-style error response.
        static func error(_ status: Int, _ message: String, code: String? = nil, param: String? = nil, retryAfter: Int? = nil) -> FakeResponse {
            let type = switch status {
            case 429: "requests"
            case 500...: "server_error"
            default: "invalid_request_error"
            }
            let code: Any = code ?? (status == 429 ? "rate_limit_exceeded" : NSNull())
            let body = jsonText(["error": ["message": message, "type": type, "param": param.map { $0 as Any } ?? NSNull(), "code": code]])
            return .body(status: status, text: body, headers: retryAfter.map { [("retry-after", String($0))] } ?? [])
        }

        /// The text in pieces of `size` characters.
        static func split(_ text: String, _ size: Int) -> [String] {
            let characters = Array(text), size = max(1, size)
            return stride(from: 0, to: characters.count, by: size).map { String(characters[$0..<min($0 + size, characters.count)]) }
        }

        /// A rough token count: about four UTF-8 bytes per token.
        static func tokens(_ text: String) -> Int { (text.utf8.count + 3) / 4 }

        /// The parts of a multipart/form-data body.
        static func multipart(_ body: Data, contentType: String?) -> [(name: String, fileName: String?, data: Data)] {
            guard let contentType, let start = contentType.range(of: "boundary=") else { return [] }
            let boundary = contentType[start.upperBound...].prefix { $0 != ";" }.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            let delimiter = Data("--\(boundary)".utf8), nextDelimiter = Data("\r\n--\(boundary)".utf8)
            var parts: [(name: String, fileName: String?, data: Data)] = []
            guard var cursor = body.range(of: delimiter)?.upperBound else { return [] }
            // After each delimiter: "--" ends the body, else CRLF, headers, a blank line, and content up to CRLF + the next delimiter.
            while !body[cursor...].starts(with: Data("--".utf8)),
                  let headerEnd = body.range(of: Data("\r\n\r\n".utf8), in: cursor..<body.endIndex),
                  let next = body.range(of: nextDelimiter, in: headerEnd.upperBound..<body.endIndex) {
                var params: [String: String] = [:]
                let headers = String(decoding: body[cursor..<headerEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                for line in headers where line.lowercased().hasPrefix("content-disposition:") {
                    for param in line.split(separator: ";").dropFirst() {
                        let pair = param.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                        if pair.count == 2 { params[pair[0].lowercased()] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                    }
                }
                let content = Data(body[headerEnd.upperBound..<next.lowerBound])
                parts.append((name: params["name"] ?? "", fileName: params["filename"], data: content))
                cursor = next.upperBound
            }
            return parts
        }
    }
}
