import Foundation
import DiaryKit

// MARK: - Records, built by hand in the archive's shape

/// Wall-clock based HLC readings that only move forward, one device id per call.
final class HLCSource {
    private var next = HLCSource.nowMillis() - 3_600_000

    static func nowMillis() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    func hlc(_ device: String) -> String {
        next += 1000
        return HybridTimestamp(wallMillis: next, counter: 0, device: device).description
    }
}

func randomId() -> String { UUID().uuidString.lowercased() }

/// A stand-in SHA-256: 64 hex digits derived from a label.
func fakeSHA256(_ label: String) -> String {
    let hex = label.utf8.map { String(format: "%02x", $0) }.joined()
    return String((hex + String(repeating: "0", count: 64)).prefix(64))
}



enum Records {
    static func entry(id: String, hlc: String, device: String, note: String = "Walked by the river after dinner.",
                      deletedAt: String? = nil, media: [JSON] = [], messages: [JSON] = [], tagLinks: [JSON] = []) -> JSON {
        .object([
            ("kind", .string("entry")),
            ("id", .string(id)),
            ("status", .string("saved")),
            ("created_at", .string("2026-11-21T17:40:00.000+08:00")),
            ("updated_at", .string("2026-11-21T17:45:00.000+08:00")),
            ("occurred_at", .string("2026-11-21T17:40:00.000+08:00")),
            ("time_zone", .string("Asia/Taipei")),
            ("title", .string("River")),
            ("summary", .null),
            ("tags", .array(tagLinks.filter { $0["deleted_at"] == .null }.compactMap { $0["name"] })),
            ("note", .string(note)),
            ("transcript", .null),
            ("analysis", .null),
            ("analysis_provider", .null),
            ("context", .object([("place", .null), ("latitude", .null), ("longitude", .null), ("weather", .null)])),
            ("persona", .string("warm")),
            ("provider", .string("offline")),
            ("summarized_at", .null),
            ("last_error", .null),
            ("digest", .null),
            ("digest_through", .null),
            ("hlc", .string(hlc)),
            ("device_id", .string(device)),
            ("deleted_at", .optional(deletedAt)),
            ("media", .array(media)),
            ("messages", .array(messages)),
            ("tag_links", .array(tagLinks)),
        ])
    }

    static func media(id: String, sha256: String, hlc: String, device: String) -> JSON {
        .object([("id", .string(id)), ("position", .int(0)), ("kind", .string("photo")), ("sha256", .string(sha256)),
                 ("mime", .string("image/jpeg")), ("ext", .string("jpg")), ("bytes", .int(1234)), ("width", .int(4)),
                 ("height", .int(3)), ("duration", .null), ("taken_at", .null), ("thumbnail", .null),
                 ("hlc", .string(hlc)), ("device_id", .string(device)), ("deleted_at", .null)])
    }

    static func message(id: String, author: String, text: String, minute: Int, hlc: String, device: String,
                        deletedAt: String? = nil) -> JSON {
        .object([("id", .string(id)), ("author", .string(author)), ("persona", .string("warm")), ("provider", .string("offline")),
                 ("text", .string(text)), ("created_at", .string(String(format: "2026-11-21T17:%02d:00.000+08:00", minute))),
                 ("hlc", .string(hlc)), ("device_id", .string(device)), ("deleted_at", .optional(deletedAt))])
    }

    static func tag(_ name: String, position: Int, hlc: String, device: String, deletedAt: String? = nil) -> JSON {
        .object([("name", .string(name)), ("position", .int(Int64(position))), ("created_at", .string("2026-11-21T17:45:00.000+08:00")),
                 ("hlc", .string(hlc)), ("device_id", .string(device)), ("deleted_at", .optional(deletedAt))])
    }

    static func setting(key: String, value: String, hlc: String, device: String) -> JSON {
        .object([("kind", .string("setting")), ("key", .string(key)), ("value", .string(value)),
                 ("updated_at", .string("2026-11-21T09:45:00.000Z")), ("hlc", .string(hlc)), ("device_id", .string(device))])
    }

    static func batch(_ items: [(key: String, record: JSON)]) -> String {
        JSON.array(items.map { .object([("key", .string($0.key)), ("record", $0.record)]) }).serialized
    }

    /// A batch of `records` as a SQL literal, for calling the batch checks directly.
    static func batchLiteral(_ records: JSON...) -> String {
        "$b$" + batch(records.map { (key: "k", record: $0) }) + "$b$::jsonb"
    }
}

extension JSON {
    /// The object with one value replaced.
    func replacing(_ key: String, with value: JSON) -> JSON {
        guard case let .object(pairs) = self else { return self }
        return .object(pairs.map { $0.0 == key ? ($0.0, value) : $0 })
    }

    /// A copy with the value at a dotted path (`media.0.kind`) set, added, or removed (nil).
    func setting(_ path: String, to value: JSON?) -> JSON {
        let steps = path.split(separator: ".", maxSplits: 1).map(String.init)
        let inner = { (current: JSON?) -> JSON? in
            steps.count == 1 ? value : (current ?? .object([])).setting(steps[1], to: value)
        }
        switch self {
        case let .object(pairs):
            var result = pairs.compactMap { pair -> (String, JSON)? in
                guard pair.0 == steps[0] else { return pair }
                return inner(pair.1).map { (pair.0, $0) }
            }
            if !pairs.contains(where: { $0.0 == steps[0] }), let added = inner(nil) { result.append((steps[0], added)) }
            return .object(result)
        case var .array(items):
            guard let index = Int(steps[0]), items.indices.contains(index) else { return self }
            if let replaced = inner(items[index]) { items[index] = replaced } else { items.remove(at: index) }
            return .array(items)
        default:
            return self
        }
    }
}
