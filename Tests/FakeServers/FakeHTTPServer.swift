import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A tiny HTTP/1.1 server on 127.0.0.1 that records every request and answers it through a handler.
public final class FakeHTTPServer: Sendable {
    private typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    private typealias Writer = NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>

    public let port: Int
    private let handler: @Sendable (RecordedRequest) async -> FakeResponse
    private let group: MultiThreadedEventLoopGroup
    private let recorded = Mutex<[RecordedRequest]>([])
    private let serving = Mutex<Task<Void, Never>?>(nil)

    /// "http://127.0.0.1:PORT"
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in arrival order (complete bodies).
    public var requests: [RecordedRequest] { recorded.withLock { $0 } }

    private init(port: Int, group: MultiThreadedEventLoopGroup, handler: @escaping @Sendable (RecordedRequest) async -> FakeResponse) {
        self.port = port
        self.group = group
        self.handler = handler
    }

    /// Starts listening on 127.0.0.1 on a free port; every request goes to `handler`.
    public static func start(_ handler: @escaping @Sendable (RecordedRequest) async -> FakeResponse) async throws -> FakeHTTPServer {
        // A group of its own, so shutdown can never be held up by another server's connections.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let listener = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: "127.0.0.1", port: 0) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
            let server = FakeHTTPServer(port: listener.channel.localAddress?.port ?? 0, group: group, handler: handler)
            server.serving.withLock { $0 = Task { await server.accept(listener) } }
            return server
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Stops accepting, cancels every request in progress (including `.hang` and `.delayed`) and closes all connections.
    public func shutdown() async throws {
        guard let task = serving.withLock({ task in defer { task = nil }; return task }) else { return }
        task.cancel()
        await task.value
        try await group.shutdownGracefully()
    }

    private func accept(_ listener: NIOAsyncChannel<Connection, Never>) async {
        await withTaskGroup(of: Void.self) { connections in
            // Cancelling the serving task ends this loop and, through the group, every connection.
            try? await listener.executeThenClose { inbound in
                for try await connection in inbound {
                    connections.addTask { await self.serve(connection) }
                }
            }
            connections.cancelAll()
        }
    }

    private func serve(_ connection: Connection) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let next):
                    head = next
                    body.clear()
                case .body(var chunk):
                    body.writeBuffer(&chunk)
                case .end:
                    guard let head else { continue }
                    let request = RecordedRequest(head: head, body: Data(body.readableBytesView))
                    recorded.withLock { $0.append(request) }
                    let response = await handler(request)
                    // Returning closes the connection: the client asked for it, or the response drops it.
                    guard try await send(response, keepAlive: head.isKeepAlive, headOnly: head.method == .HEAD, to: outbound) else { return }
                }
            }
        }
    }

    /// Writes one response; returns whether the connection may serve another request. The
    /// answer to a HEAD request is the head alone: the same headers (its content-length
    /// included), no body.
    private func send(_ response: FakeResponse, keepAlive: Bool, headOnly: Bool = false, to out: Writer) async throws -> Bool {
        switch response {
        case let .body(status, text, contentType, extra):
            var headers = HTTPHeaders([("content-type", contentType), ("content-length", String(text.utf8.count))])
            headers.add(contentsOf: extra)
            if !keepAlive { headers.add(name: "connection", value: "close") }
            let head = HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: headers))
            try await out.write(contentsOf: headOnly ? [head, .end(nil)] : [head, .body(.byteBuffer(ByteBuffer(string: text))), .end(nil)])
            return keepAlive
        case let .bytes(status, data, contentType, extra):
            var headers = HTTPHeaders()
            if !contentType.isEmpty { headers.add(name: "content-type", value: contentType) }
            // 1xx, 204 and 304 answers carry no body and no length.
            let bodyless = status < 200 || status == 204 || status == 304
            if !bodyless { headers.add(name: "content-length", value: String(data.count)) }
            headers.add(contentsOf: extra)
            if !keepAlive { headers.add(name: "connection", value: "close") }
            var parts: [HTTPServerResponsePart] = [.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: headers))]
            if !headOnly, !bodyless, !data.isEmpty { parts.append(.body(.byteBuffer(ByteBuffer(bytes: data)))) }
            parts.append(.end(nil))
            try await out.write(contentsOf: parts)
            return keepAlive
        case let .events(events, gapMillis, dropAfter, extra):
            var headers = HTTPHeaders([("content-type", "text/event-stream"), ("cache-control", "no-cache"), ("transfer-encoding", "chunked")])
            headers.add(contentsOf: extra)
            if !keepAlive { headers.add(name: "connection", value: "close") }
            try await out.write(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)))
            for event in events.prefix(dropAfter ?? events.count) {
                if gapMillis > 0 { try await Task.sleep(for: .milliseconds(gapMillis)) }
                // Multi-line data needs one "data:" field per line to stay a single SSE event.
                let lines = event.split(separator: "\n", omittingEmptySubsequences: false).map { "data: \($0)" }
                try await out.write(.body(.byteBuffer(ByteBuffer(string: lines.joined(separator: "\n") + "\n\n"))))
            }
            if dropAfter != nil { return false }
            try await out.write(.end(nil))
            return keepAlive
        case let .delayed(seconds, inner):
            try await Task.sleep(for: .seconds(seconds))
            return try await send(inner, keepAlive: keepAlive, headOnly: headOnly, to: out)
        case .hang:
            // Cancelled by shutdown(); a client that gives up first just leaves this waiting until then.
            try await Task.sleep(for: .seconds(86_400))
            return false
        }
    }
}

/// One complete request as the fake server received it.
public struct RecordedRequest: Sendable {
    public var method: String
    /// The request path without the query string.
    public var path: String
    /// Query parameters, percent-decoded ("+" read as a space); the last of repeated names wins.
    public var query: [String: String]
    /// Header fields in arrival order, names lowercased.
    public var headers: [(name: String, value: String)]
    public var body: Data

    init(head: HTTPRequestHead, body: Data) {
        let target = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        method = head.method.rawValue
        path = String(target[0])
        query = [:]
        for pair in (target.count > 1 ? target[1] : "").split(separator: "&") {
            let field = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                let text = $0.replacingOccurrences(of: "+", with: " ")
                return text.removingPercentEncoding ?? text
            }
            query[field[0]] = field.count > 1 ? field[1] : ""
        }
        headers = head.headers.map { (name: $0.name.lowercased(), value: $0.value) }
        self.body = body
    }

    /// The first value of a header field, matched case-insensitively.
    public func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.name == name }?.value
    }

    /// The body decoded as UTF-8 (invalid bytes replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON (JSONSerialization), nil if not a JSON object.
    public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
}

/// What the fake server answers to one request.
public indirect enum FakeResponse: Sendable {
    /// A complete response with a body and a content type (default application/json).
    case body(status: Int, text: String, contentType: String = "application/json", headers: [(String, String)] = [])
    /// A complete response with a binary body; an empty content type sends none. A 204 or 304 goes without a body
    /// or content-length, as HTTP wants.
    case bytes(status: Int, data: Data, contentType: String = "application/octet-stream", headers: [(String, String)] = [])
    /// A text/event-stream response: each string is sent as one SSE event "data: <string>\n\n", flushed separately,
    /// waiting `gapMillis` before each event; if `dropAfter` is set, the connection is closed abruptly after that many
    /// events (no terminating chunk) to simulate a dropped connection. `headers` are added to the stream's own.
    case events([String], gapMillis: Int = 0, dropAfter: Int? = nil, headers: [(String, String)] = [])
    /// Waits, then answers with the inner response.
    case delayed(seconds: Double, FakeResponse)
    /// Never answers (keeps the connection open until the client gives up or the server shuts down).
    case hang
}

/// Compact JSON text (sorted keys, unescaped slashes) for a JSONSerialization-compatible value.
func jsonText(_ value: Any) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("null".utf8)
    return String(decoding: data, as: UTF8.self)
}
