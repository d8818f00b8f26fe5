import AsyncHTTPClient
import DiaryKit
import Foundation
import NIOCore
import NIOHTTP1

/// An API key: usable in a request header, never printed, stored or logged.
public struct Secret: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    package let value: String

    public init(_ value: String) { self.value = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }

    /// The text with the key (and any long piece of it an error body might echo) blanked out.
    func scrub(_ text: String) -> String {
        guard value.count >= 8 else { return text.replacingOccurrences(of: value, with: "<redacted>") }
        var result = text.replacingOccurrences(of: value, with: "<redacted>")
        // Services echo keys partly ("sk-abc***xyz"); blank any 8-character run of it.
        let characters = Array(value)
        for start in 0...(characters.count - 8) {
            result = result.replacingOccurrences(of: String(characters[start..<start + 8]), with: "<redacted>")
        }
        return result
    }
}

/// How a request to a model endpoint failed, before it becomes a `CompanionError`.
enum EndpointFailure: Error, Equatable {
    case status(Int, retryAfter: Double?)
    /// A 400 that names one of the request's parameters as the one it cannot take
    /// (`max_tokens` to a reasoning model): the request may go again without it.
    case refusedParameter(String)
    case timedOut
    case connection(String)
    case malformed(String)

    /// 429, 5xx, timeouts and dropped connections may pass; anything else will fail again.
    var isTransient: Bool {
        switch self {
        case let .status(code, _): return code == 408 || code == 429 || code >= 500
        case .timedOut, .connection: return true
        case .malformed, .refusedParameter: return false
        }
    }

    var summary: String {
        switch self {
        case let .status(code, _): return "HTTP \(code)"
        case let .refusedParameter(name): return "HTTP 400 (\(name))"
        case .timedOut: return "timed out"
        case let .connection(reason): return "connection: \(reason)"
        case let .malformed(reason): return "unreadable answer: \(reason)"
        }
    }
}

/// When to try a failed request again: bounded exponential backoff with jitter.
struct RetryPolicy: Sendable {
    var retries: Int
    var baseDelay: Double = 0.5
    var maxDelay: Double = 8

    /// Seconds to wait before retry number `attempt` (0-based); a server's Retry-After wins
    /// when it is within bounds.
    func delay(attempt: Int, retryAfter: Double?) -> Double {
        if let retryAfter, retryAfter >= 0, retryAfter <= maxDelay { return retryAfter }
        let ceiling = min(maxDelay, baseDelay * pow(2, Double(attempt)))
        // "Full jitter": clients that failed together do not come back together.
        return Double.random(in: ceiling / 2...ceiling)
    }
}

/// Writes `--verbose` lines: what was asked of whom and how it went, never a key.
public struct RequestLog: Sendable {
    package let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }

    /// Logs nothing.
    public static let silent = RequestLog { _ in }
}

/// The client every service's requests go through. A connection that cannot be made fails at
/// once instead of being tried again until the deadline (the shared client's way): whether to
/// try again is `RetryPolicy`'s call, so a server that is down costs milliseconds, not a minute.
private let httpClient: HTTPClient = {
    var configuration = HTTPClient.Configuration.singletonConfiguration
    configuration.connectionPool.retryConnectionEstablishment = false
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}()

/// One HTTP service (a model provider, a weather service): JSON requests, event streams and
/// multipart uploads, each within a deadline, retried when the failure is transient.
struct ServiceEndpoint: Sendable {
    let provider: String
    let baseURL: String
    let key: Secret?
    let timeout: Double
    let retry: RetryPolicy
    let log: RequestLog
    /// For an endpoint reached with the person's session instead of a key (the operator's
    /// gateway): asked before each request, since the token is renewed as it expires.
    var session: (@Sendable () async throws -> Secret)? = nil
    /// Sent with every request (the gateway's premium flag).
    var headers: [(String, String)] = []

    /// Gets `path` (with its query) and returns the JSON answer.
    func getJSON(_ path: String) async throws -> JSON {
        try await exchangeJSON(path, method: .GET, body: nil, contentType: nil)
    }

    /// Posts JSON and returns the JSON answer.
    func postJSON(_ path: String, _ body: JSON) async throws -> JSON {
        try await exchangeJSON(path, method: .POST, body: Data(body.serialized.utf8), contentType: "application/json")
    }

    /// Posts JSON asking for a stream; `onEvent` receives each event's data. A stream that
    /// fails after an event arrived is not retried (its start was already shown).
    func stream(_ path: String, _ body: JSON, onEvent: @escaping @Sendable (String) throws -> Void) async throws {
        let payload = Data(body.serialized.utf8)
        try await withRetries { [self] in
            let started = Locked(false)
            do {
                try await send(path, method: .POST, body: payload, contentType: "application/json") { response in
                    var parser = ServerSentEvents()
                    for try await chunk in response.body {
                        for event in parser.feed(chunk.readableBytesView) {
                            started.withLock { $0 = true }
                            try onEvent(event)
                        }
                    }
                    if let last = parser.finish() { try onEvent(last) }
                }
            } catch let failure as EndpointFailure where started.withLock({ $0 }) {
                throw Unretryable(failure: failure)
            }
        }
    }

    /// Posts a multipart form with one file, as `/audio/transcriptions` expects.
    func postMultipart(_ path: String, fields: [(String, String)], file: (name: String, mime: String, data: Data)) async throws -> JSON {
        let boundary = "diary-\(UUID().uuidString)"
        var form = Data()
        for (name, value) in fields {
            form.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        form.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(file.name)\"\r\nContent-Type: \(file.mime)\r\n\r\n".utf8))
        form.append(file.data)
        form.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return try await exchangeJSON(path, method: .POST, body: form, contentType: "multipart/form-data; boundary=\(boundary)")
    }

    /// One request whose answer is a JSON document, retried as a whole.
    private func exchangeJSON(_ path: String, method: HTTPMethod, body: Data?, contentType: String?) async throws -> JSON {
        try await withRetries { [self] in
            let data = try await send(path, method: method, body: body, contentType: contentType) { response in
                Data(try await response.body.collect(upTo: 16 * 1024 * 1024).readableBytesView)
            }
            guard let json = JSON.parse(data) else { throw EndpointFailure.malformed("not JSON") }
            return json
        }
    }

    /// A failure that must not be retried even though its kind usually may.
    private struct Unretryable: Error {
        let failure: EndpointFailure
    }

    private func withRetries<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch let stop as Unretryable {
                throw stop.failure
            } catch let failure as EndpointFailure where failure.isTransient && attempt < retry.retries {
                var retryAfter: Double?
                if case let .status(_, after) = failure { retryAfter = after }
                let wait = retry.delay(attempt: attempt, retryAfter: retryAfter)
                log.write("\(provider): \(failure.summary); trying again in \(String(format: "%.1f", wait)) s")
                try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
                attempt += 1
            }
        }
    }

    /// One request within the deadline; `read` consumes a 2xx response.
    private func send<T: Sendable>(_ path: String, method: HTTPMethod, body: Data?, contentType: String?,
                                   read: @escaping @Sendable (HTTPClientResponse) async throws -> T) async throws -> T {
        let url = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) + path : baseURL + path
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        request.headers.add(name: "Accept", value: path.hasSuffix("completions") ? "application/json, text/event-stream" : "application/json")
        request.headers.add(name: "User-Agent", value: "InnerBloomDiary/\(DiaryVersion.current)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let key: Secret?
        do {
            key = try await session?() ?? self.key
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // No session token (offline while it needed renewing, or the session ended): this
            // endpoint cannot be asked now, as if it were unreachable.
            throw EndpointFailure.connection("no session token")
        }
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key.value)") }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let prepared = request
        let started = Date()
        log.write("\(provider): \(method.rawValue) \(URLRedaction.shown(url)) (\(body?.count ?? 0) bytes; Authorization: \(key == nil ? "none" : "Bearer <redacted>"))")
        do {
            return try await withDeadline(seconds: timeout) {
                let response = try await httpClient.execute(prepared, timeout: .milliseconds(Int64(timeout * 1000)))
                let elapsed = Int(Date().timeIntervalSince(started) * 1000)
                log.write("\(provider): HTTP \(response.status.code) after \(elapsed) ms")
                guard (200..<300).contains(response.status.code) else {
                    // The body may echo the key; only the status, its retry hint and the
                    // name of a parameter we sent are kept.
                    let answer = try? await response.body.collect(upTo: 64 * 1024)
                    if response.status.code == 400, contentType == "application/json",
                       let answer = answer.flatMap({ JSON.parse(Data($0.readableBytesView)) }),
                       case let .object(sent)? = body.flatMap({ JSON.parse($0) }),
                       let parameter = Self.refusedParameter(in: answer, sent: sent.map(\.0)) {
                        throw EndpointFailure.refusedParameter(parameter)
                    }
                    let after = response.headers.first(name: "Retry-After").flatMap(Double.init)
                    throw EndpointFailure.status(Int(response.status.code), retryAfter: after)
                }
                return try await read(response)
            }
        } catch let failure as EndpointFailure {
            throw failure
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError {
            if Task.isCancelled { throw CancellationError() }
            if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
                throw EndpointFailure.timedOut
            }
            throw EndpointFailure.connection(key?.scrub("\(error)") ?? "\(error)")
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw EndpointFailure.connection(key?.scrub("\(error)") ?? "\(error)")
        }
    }
}

extension ServiceEndpoint {
    /// The parameter a 400's error body names among those sent: its `param` (OpenAI's
    /// form), else the first of them its message mentions (LiteLLM, vLLM and others word it).
    static func refusedParameter(in answer: JSON, sent: [String]) -> String? {
        let error = answer["error"]
        if let named = error?["param"]?.stringValue, sent.contains(named) { return named }
        guard let message = error?["message"]?.stringValue ?? error?.stringValue ?? answer["detail"]?.stringValue else { return nil }
        let mentioned = sent.compactMap { name -> (String, String.Index)? in
            var searched = message.startIndex..<message.endIndex
            while let found = message.range(of: name, range: searched) {
                // A whole name, not a piece of a longer one (`max_tokens` in `max_completion_tokens`).
                let before = found.lowerBound == message.startIndex ? nil : message[message.index(before: found.lowerBound)]
                let after = found.upperBound == message.endIndex ? nil : message[found.upperBound]
                let isNamePart = { (c: Character?) in c.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false }
                if !isNamePart(before) && !isNamePart(after) { return (name, found.lowerBound) }
                searched = found.upperBound..<message.endIndex
            }
            return nil
        }
        return mentioned.min { $0.1 < $1.1 }?.0
    }
}

/// Runs `body`, failing with `EndpointFailure.timedOut` if it takes longer than `seconds`
/// (a stalled stream included).
func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            throw EndpointFailure.timedOut
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}
