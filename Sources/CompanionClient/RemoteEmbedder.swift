import DiaryKit
import Foundation

/// Meaning vectors from any OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama,
/// llama.cpp, vLLM, a local e5 server). After one failure it gives up for the rest of the
/// process, so a dead server costs one timeout, not one per turn.
package struct RemoteEmbedder: TextEmbedder {
    package let model: String
    let endpoint: ServiceEndpoint
    private let failed = Locked(false)

    package init(settings: ProviderSettings, model: String, key: Secret?, timeout: Double, retries: Int, log: RequestLog) {
        self.model = model
        endpoint = ServiceEndpoint(provider: settings.name, baseURL: settings.baseURL, key: key, timeout: timeout,
                                   retry: RetryPolicy(retries: retries), log: log)
    }

    package func embed(_ texts: [String]) async throws -> [[Float]] {
        guard !failed.withLock({ $0 }) else { throw MeaningUnavailable(detail: "gave up after an earlier failure", again: true) }
        do {
            // No `input_type` or `dimensions`: not every server takes them, and pages and
            // moments are the same kind of text, so one kind of vector serves both.
            let answer = try await endpoint.postJSON("/embeddings", .object([
                ("model", .string(model)), ("input", .array(texts.map(JSON.string))), ("encoding_format", .string("float")),
            ]))
            return try Self.vectors(answer, count: texts.count)
        } catch {
            failed.withLock { $0 = true }
            let detail = (error as? EndpointFailure)?.summary ?? "\(error)"
            endpoint.log.write("\(endpoint.provider): embeddings failed: \(detail)")
            throw MeaningUnavailable(detail: detail)
        }
    }

    /// The answer's vectors in the order of the texts (`data[].index` says which is which).
    static func vectors(_ answer: JSON, count: Int) throws -> [[Float]] {
        guard case let .array(items)? = answer["data"] else { throw EndpointFailure.malformed("no data") }
        var vectors = [[Float]?](repeating: nil, count: count)
        for (position, item) in items.enumerated() {
            let index = item["index"]?.doubleValue.flatMap { Int(exactly: $0) } ?? position
            guard vectors.indices.contains(index), case let .array(numbers)? = item["embedding"] else {
                throw EndpointFailure.malformed("bad embedding")
            }
            vectors[index] = try numbers.map { number in
                guard let value = number.doubleValue else { throw EndpointFailure.malformed("not a number") }
                return Float(value)
            }
        }
        guard vectors.allSatisfy({ $0 != nil }) else { throw EndpointFailure.malformed("\(items.count) vectors for \(count) texts") }
        return vectors.map { $0! }
    }
}
