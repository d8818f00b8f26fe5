import Crypto
import DiaryKit
import SyncSession
import Foundation

// What goes over the wire to the sync server: batches of whole records with idempotency
// keys, the setting records, and how long a change waits after a failed push.

/// One change ready to go up: its record as the server takes it, keyed for idempotency.
struct OutgoingChange: Sendable {
    /// The SHA-256 of the record as sent (sealed: a keyed hash of it in clear), so a resend is recognised.
    var key: String
    /// The record as sent, serialised once: the key is its hash and the batch is made of it.
    var text: String
    var queued: QueuedChange
    var byteCount: Int { text.utf8.count }

    /// The change as it travels: in clear, or sealed with `keys`.
    init(_ queued: QueuedChange, keys: SyncKeys? = nil) throws {
        if let keys {
            (text, key) = try keys.wire(queued.record)
        } else {
            switch queued.record {
            case let .entry(entry): text = entry.json.serialized
            case let .setting(setting): text = setting.syncJSON.serialized
            }
            key = Hex.string(SHA256.hash(data: Array(text.utf8)))
        }
        self.queued = queued
    }

    /// At most this many changes go in one push (seed 002).
    static let batchLimit = 20
    /// And about this many bytes (one larger change still goes alone).
    static let batchBytes = 1 << 20

    /// The next batch from the queue, in queue order, within `limit` changes and about
    /// `byteCap` bytes, sealed with `keys` when given. Rows waiting out a backoff are left
    /// when `dueOnly`, and the outbox rows in `excluding` (a batch still on its way) always.
    /// A change that would not read back on another device is refused here, named in
    /// `refused`, instead of leaving.
    static func nextBatch(from store: DiaryStore, keys: SyncKeys? = nil, limit: Int = batchLimit, byteCap: Int = batchBytes,
                          dueOnly: Bool, excluding: Set<Int64> = [], refused: inout [(QueuedChange, String)],
                          now: Date = Date()) throws -> [OutgoingChange] {
        var batch: [OutgoingChange] = []
        var bytes = 0
        var problems: [(QueuedChange, String)] = []
        try store.ledger.queuedChanges(dueOnly: dueOnly, excluding: excluding, now: now) { queued in
            // A full batch stops before the next change is serialised and hashed for nothing.
            if batch.count >= limit { return false }
            let change: OutgoingChange
            do {
                change = try OutgoingChange(queued, keys: keys)
            } catch let error as RecordDecodingError {
                problems.append((queued, "unreadable: \(error.field)"))
                return true
            }
            if !batch.isEmpty, bytes + change.byteCount > byteCap { return false }
            batch.append(change)
            bytes += change.byteCount
            return true
        }
        refused += problems
        return batch
    }


    /// The batch as `diary.push` takes it: `[{"key": …, "record": …}, …]` (keys are hex).
    static func wire(_ batch: [OutgoingChange]) -> String {
        "[" + batch.map { #"{"key":""# + $0.key + #"","record":"# + $0.text + "}" }.joined(separator: ",") + "]"
    }

    /// The pause before the next try after `attempts` failed ones: 1 s, doubling, at most 15 minutes.
    static func backoff(afterAttempts attempts: Int) -> TimeInterval {
        min(900, Double(1 << min(max(attempts, 0), 10)))
    }
}

extension SettingRecord {
    /// The setting as the sync server takes it.
    var syncJSON: JSON {
        .object([("kind", .string("setting")), ("key", .string(key)), ("value", .string(value)),
                 ("updated_at", .string(Timestamps.rfc3339Millis(updatedAt, zone: TimeZone(identifier: "UTC")!))),
                 ("hlc", .string(clock.hlc)), ("device_id", .string(clock.deviceId))])
    }

    /// Reads a setting as the sync server sends it.
    init(syncJSON json: JSON) throws {
        let reader = RecordReader(json, path: "")
        guard reader.optionalString("kind") == "setting" else { throw RecordDecodingError(field: "kind") }
        self.init(key: try reader.string("key"), value: try reader.string("value"), updatedAt: try reader.time("updated_at"),
                  clock: RowClock(hlc: try reader.string("hlc"), deviceId: try reader.string("device_id")))
    }
}
