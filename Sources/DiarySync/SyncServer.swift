import DiaryKit
import SyncSession
import Foundation
import NIOCore
import PostgresNIO

/// What a sync asks of the server, whichever way it is reached: straight over Postgres
/// (`ServerConnection`) or through a Supabase project's REST and Storage APIs
/// (`SupabaseServer`). Both call the same server functions, so the rules — last writer wins,
/// tombstones, receipts, each person alone with their rows — are the server's, once.
protocol SyncServer: Sendable {
    /// `diary.push`: one batch of records (the wire format's JSON array); per-record statuses.
    func push(_ batch: String, device: String) async throws -> JSON
    /// `diary.pull`: the person's changes after `cursor`, at most `limit`.
    func pull(after cursor: Int64, limit: Int, device: String) async throws -> JSON
    /// `diary.whoami`: the user id, change channel and consent text.
    func whoami() async throws -> JSON
    /// `diary.put_envelope`: stores a sealed diary's key envelope (the first one seals the account).
    func putEnvelope(_ envelope: JSON) async throws
    /// `diary.delete_account`: removes everything of the person's; the rows removed.
    func deleteAccount() async throws -> Int64
    /// `diary.begin_sealing`: stores the envelope of an account in clear and starts sealing it.
    func beginSealing(_ envelope: JSON) async throws -> JSON
    /// `diary.clear_records`: the next clear entries after the id `after`, and the clear settings.
    func clearRecords(after: String, limit: Int) async throws -> JSON
    /// `diary.reseal`: clear rows replaced by their sealed forms (a JSON array's text); per-item statuses.
    func reseal(_ batch: String) async throws -> JSON
    /// `diary.finish_sealing`, once the files no row names any more are removed: `{sealed, clear_left}`.
    func finishSealing() async throws -> JSON
    /// Which of these files (by SHA-256) are complete on the server.
    func presentMedia(_ shas: [String]) async throws -> Set<String>
    /// Sends one file, read from `descriptor`, stored under `name`; throws
    /// `SyncError.mediaSpaceFull` when the person's space is used up.
    func upload(_ transfer: MediaTransfer, name: String, from descriptor: Int32) async throws -> MediaUpload
    /// Streams one complete file's bytes, in order, to `sink` (false stops it); false when
    /// what came was not the file in one piece.
    func download(_ transfer: MediaTransfer, into sink: (ByteBuffer) -> Bool) async throws -> Bool
}

/// How sending one file ended.
enum MediaUpload: Sendable, Equatable {
    /// On the server, complete.
    case stored
    /// The file could not be read on this device.
    case unreadable
    /// The server did not take it as complete; the next sync tries again.
    case incomplete
}

extension ServerConnection: SyncServer {
    func push(_ batch: String, device: String) async throws -> JSON {
        try await json("SELECT diary.push(\(batch)::jsonb, \(device))::text")
    }

    func pull(after cursor: Int64, limit: Int, device: String) async throws -> JSON {
        try await json("SELECT diary.pull(\(cursor)::bigint, \(Int32(limit))::int, \(device))::text")
    }

    func whoami() async throws -> JSON { try await json("SELECT diary.whoami()::text") }

    func putEnvelope(_ envelope: JSON) async throws {
        _ = try await text("SELECT diary.put_envelope(\(envelope.serialized)::jsonb)::text")
    }

    func deleteAccount() async throws -> Int64 {
        try await text("SELECT diary.delete_account()::text").flatMap(Int64.init) ?? 0
    }

    func beginSealing(_ envelope: JSON) async throws -> JSON {
        try await json("SELECT diary.begin_sealing(\(envelope.serialized)::jsonb)::text")
    }

    func clearRecords(after: String, limit: Int) async throws -> JSON {
        try await json("SELECT diary.clear_records(\(after), \(Int32(limit))::int)::text")
    }

    func reseal(_ batch: String) async throws -> JSON { try await json("SELECT diary.reseal(\(batch)::jsonb)::text") }

    /// The clear files' chunks go with their records, in finish_sealing.
    func finishSealing() async throws -> JSON { try await json("SELECT diary.finish_sealing()::text") }

    func presentMedia(_ shas: [String]) async throws -> Set<String> {
        let list = JSON.array(shas.map { .string($0) }).serialized
        let answer = try await json("""
            SELECT coalesce(to_jsonb(diary.present_media(ARRAY(SELECT jsonb_array_elements_text(\(list)::jsonb)))), '[]')::text
            """)
        return Set((answer.arrayValue ?? []).compactMap(\.stringValue))
    }

    /// Media travel in 2 MiB chunks (the server takes 1 byte to 4 MiB).
    static let chunkSize = 2 << 20

    func upload(_ transfer: MediaTransfer, name: String, from descriptor: Int32) async throws -> MediaUpload {
        let size = Self.chunkSize
        let total = Int((transfer.bytes + Int64(size) - 1) / Int64(size))
        // Only the chunks the server lacks travel: an interrupted upload resumes.
        let missing = try await json("""
            SELECT coalesce(to_jsonb(diary.missing_chunks(\(transfer.sha256), \(Int32(total))::int)), '[]')::text
            """)
        for number in (missing.arrayValue ?? []).compactMap(\.doubleValue).map(Int.init) {
            guard let buffer = ByteBuffer.reading(descriptor, at: Int64(number * size), count: size) else { return .unreadable }
            try await text("""
                INSERT INTO diary.media_chunk(user_id, sha256, n, bytes) VALUES (auth.uid(), \(transfer.sha256), \(Int32(number)), \(buffer))
                ON CONFLICT DO NOTHING
                """)
            await FaultPoint.pause("after-chunk")
        }
        let finished = try await text("""
            SELECT diary.finish_media(\(transfer.sha256), \(transfer.bytes)::bigint, \(Int32(total))::int, \(name))::text
            """)
        return finished == "true" ? .stored : .incomplete
    }

    func download(_ transfer: MediaTransfer, into sink: (ByteBuffer) -> Bool) async throws -> Bool {
        var expected = 0
        var sound = true
        try await chunks("""
            SELECT n, bytes FROM diary.media_chunk WHERE user_id = auth.uid() AND sha256 = \(transfer.sha256) ORDER BY n
            """) { number, bytes in
            guard sound, number == expected else { sound = false; return }
            expected += 1
            sound = sink(bytes)
        }
        return sound
    }
}

extension Credentials {
    /// Reaches the server this login names, runs `body`, and lets go of it. A Supabase session
    /// not `saved` yet (a login in progress) is used as it was granted, never renewed.
    func withServer<T: Sendable>(paths: DiaryPaths, saved: Bool = true, _ body: (any SyncServer) async throws -> T) async throws -> T {
        switch login {
        case let .postgres(address, password):
            return try await ServerConnection.with(address, password: password) { try await body($0) }
        case let .supabase(session):
            return try await body(SupabaseServer(SupabaseTokens(session, paths: paths, saved: saved)))
        }
    }
}

extension ByteBuffer {
    /// Up to `count` bytes of a file from `offset` (fewer at its end); nil when none could be read.
    static func reading(_ descriptor: Int32, at offset: Int64, count: Int) -> ByteBuffer? {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        let got = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { pointer in
            max(0, pread(descriptor, pointer.baseAddress, count, off_t(offset)))
        }
        return got > 0 ? buffer : nil
    }
}
