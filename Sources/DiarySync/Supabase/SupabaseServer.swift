import AsyncHTTPClient
import DiaryKit
import SyncSession
import Foundation
import NIOCore
import NIOHTTP1

/// The sync server reached through a Supabase project's APIs, as a signed-in person: the
/// diary's functions through PostgREST (`POST /rest/v1/rpc/…`, schema `diary` named in
/// `Content-Profile`), media as objects in Storage's private bucket `diary-media`. Every
/// request carries the person's access token; one refused as expired is renewed once and
/// sent again (safe: the server did nothing with it, and pushes are idempotent anyway).
final class SupabaseServer: SyncServer {
    let tokens: SupabaseTokens
    /// Where complete files are stored, by SHA-256, learnt from `presentMedia`.
    private let objects = Locked<[String: (name: String, chunks: Int)]>([:])

    static let bucket = "diary-media"
    /// Storage's resumable uploads take chunks of exactly 6 MiB (the last one shorter); files
    /// up to this size go up in one request.
    static let resumableChunk = 6 << 20

    init(_ tokens: SupabaseTokens) { self.tokens = tokens }

    private var project: SupabaseProject { tokens.project }

    // MARK: RPC

    /// Calls `diary.<function>` with named arguments (a JSON object's text).
    func rpc(_ function: String, _ arguments: String) async throws -> JSON { try await tokens.rpc(function, arguments) }

    func push(_ batch: String, device: String) async throws -> JSON {
        try await rpc("push", #"{"batch":"# + batch + #","device":"# + JSON.string(device).serialized + "}")
    }

    func pull(after cursor: Int64, limit: Int, device: String) async throws -> JSON {
        try await rpc("pull", JSON.object([("after", .int(cursor)), ("max_rows", .int(Int64(limit))), ("device", .string(device))]).serialized)
    }

    func whoami() async throws -> JSON { try await rpc("whoami", "{}") }

    func putEnvelope(_ envelope: JSON) async throws {
        _ = try await rpc("put_envelope", JSON.object([("envelope", envelope)]).serialized)
    }

    /// Removes everything of the person's from the server: their Storage objects first,
    /// through the Storage API while they still may (SQL cannot delete them, and once the
    /// account is gone only the operator can), then every row and their auth user. Cut off
    /// half-way, running it again finishes the job.
    func deleteAccount() async throws -> Int64 {
        let names = try await rpc("my_objects", "{}").arrayValue?.compactMap(\.stringValue) ?? []
        try await removeObjects(names)
        let answer = try await rpc("delete_account", "{}")
        return (answer.integerValue ?? 0) + Int64(names.count)
    }

    /// Removes these objects of the person's from the bucket (names already gone are no error).
    private func removeObjects(_ names: [String]) async throws {
        // Storage takes at most 1,000 names per request.
        for start in stride(from: 0, to: names.count, by: 1000) {
            let part = JSON.object([("prefixes", .array(names[start..<min(start + 1000, names.count)].map { .string($0) }))])
            let reply = try await tokens.authorised { token in
                try await self.project.send(.DELETE, "/storage/v1/object/\(Self.bucket)", bearer: token, body: SupabaseProject.body(part))
            }
            guard reply.ok else { throw SupabaseProject.refusal(reply) }
        }
    }

    // MARK: Sealing an account in clear

    func beginSealing(_ envelope: JSON) async throws -> JSON {
        try await rpc("begin_sealing", JSON.object([("envelope", envelope)]).serialized)
    }

    func clearRecords(after: String, limit: Int) async throws -> JSON {
        try await rpc("clear_records", JSON.object([("after", .string(after)), ("max_rows", .int(Int64(limit)))]).serialized)
    }

    func reseal(_ batch: String) async throws -> JSON { try await rpc("reseal", #"{"batch":"# + batch + "}") }

    /// The clear files kept as Storage objects are removed through the Storage API first
    /// (SQL may not delete them); run again after a cut, it finds what is left.
    func finishSealing() async throws -> JSON {
        let stored = try await rpc("unreferenced_objects", "{}").arrayValue ?? []
        try await removeObjects(stored.filter { $0["chunks"] == .int(0) }.compactMap { $0["name"]?.stringValue })
        return try await rpc("finish_sealing", "{}")
    }

    // MARK: Media

    func presentMedia(_ shas: [String]) async throws -> Set<String> {
        let answer = try await rpc("media_objects", JSON.object([("shas", .array(shas.map { .string($0) }))]).serialized)
        var present: Set<String> = []
        for item in answer.arrayValue ?? [] {
            guard let sha = item["sha256"]?.stringValue, let name = item["name"]?.stringValue else { continue }
            let chunks = item["chunks"]?.integerValue.flatMap { Int(exactly: $0) } ?? 0
            objects.withLock { $0[sha] = (name, chunks) }
            present.insert(sha)
        }
        return present
    }

    func upload(_ transfer: MediaTransfer, name: String, from descriptor: Int32) async throws -> MediaUpload {
        // The operator's limit is asked first: a file over it would travel only to be refused.
        let space = try await rpc("media_space", "{}")
        if let limit = space["limit"]?.doubleValue, (space["used"]?.doubleValue ?? 0) + Double(transfer.bytes) > limit {
            throw SyncError.mediaSpaceFull(waiting: 0)
        }
        let sent = transfer.bytes <= Int64(Self.resumableChunk)
            ? try await uploadWhole(transfer, name: name, from: descriptor)
            : try await uploadResumable(transfer, name: name, from: descriptor)
        guard sent == .stored else { return sent }
        // The server checks the object is there, in the person's folder, at the right size.
        let registered = try await rpc("register_object", JSON.object([
            ("sha", .string(transfer.sha256)), ("bytes", .int(transfer.bytes)), ("name", .string(name)),
        ]).serialized)
        return registered == .bool(true) ? .stored : .incomplete
    }

    private func objectPath(_ name: String) -> String {
        "\(Self.bucket)/" + name.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? String($0) }
            .joined(separator: "/")
    }

    /// `POST /storage/v1/object/diary-media/{name}` with the whole file (replacing a copy an
    /// interrupted run left).
    private func uploadWhole(_ transfer: MediaTransfer, name: String, from descriptor: Int32) async throws -> MediaUpload {
        guard let bytes = ByteBuffer.reading(descriptor, at: 0, count: Int(transfer.bytes)), bytes.readableBytes == Int(transfer.bytes) else {
            return .unreadable
        }
        let reply = try await tokens.authorised { token in
            try await self.project.send(.POST, "/storage/v1/object/" + self.objectPath(name), bearer: token, headers: [
                ("Content-Type", transfer.mime), ("x-upsert", "true"),
            ], body: bytes)
        }
        guard reply.ok else { throw SupabaseProject.refusal(reply) }
        return .stored
    }

    /// A big file through Storage's resumable uploads (the tus 1.0 protocol), 6 MiB at a time.
    /// Where the upload lives is kept in a file beside the credentials, so a run that was
    /// stopped (a dropped line, a killed process) goes on from the server's offset.
    private func uploadResumable(_ transfer: MediaTransfer, name: String, from descriptor: Int32) async throws -> MediaUpload {
        let folder = tokens.paths.stateDirectory.appendingPathComponent("uploads")
        let marker = folder.appendingPathComponent(transfer.sha256).path
        var location = (try? String(contentsOfFile: marker, encoding: .utf8)).flatMap { $0.isEmpty ? nil : $0 }
        var offset: Int64?
        if let known = location {
            offset = try await uploadOffset(known)
            if offset == nil { location = nil }
        }
        if location == nil {
            let created = try await createUpload(transfer, name: name)
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try? Data(created.utf8).write(to: URL(fileURLWithPath: marker), options: .atomic)
            location = created
            offset = 0
        }
        guard let location, var offset else { return .incomplete }
        while offset < transfer.bytes {
            let count = Int(min(Int64(Self.resumableChunk), transfer.bytes - offset))
            guard let chunk = ByteBuffer.reading(descriptor, at: offset, count: count), chunk.readableBytes == count else { return .unreadable }
            let at = offset
            let reply = try await tokens.authorised { token in
                try await self.project.send(.PATCH, location, bearer: token, headers: [
                    ("Tus-Resumable", "1.0.0"), ("Upload-Offset", String(at)), ("Content-Type", "application/offset+octet-stream"),
                ], body: chunk)
            }
            if reply.status == 409 {
                // The server has a different offset (a chunk whose answer was lost): ask it.
                guard let current = try await uploadOffset(location) else { return .incomplete }
                offset = current
                continue
            }
            guard reply.ok, let next = reply.headers.first(name: "Upload-Offset").flatMap(Int64.init) else { throw SupabaseProject.refusal(reply) }
            offset = next
            await FaultPoint.pause("after-chunk")
        }
        unlink(marker)
        return .stored
    }

    /// `POST /storage/v1/upload/resumable`: where the upload's chunks go.
    private func createUpload(_ transfer: MediaTransfer, name: String) async throws -> String {
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        let metadata = [("bucketName", Self.bucket), ("objectName", name),
                        ("contentType", transfer.mime)]
            .map { "\($0.0) \(base64($0.1))" }.joined(separator: ",")
        let reply = try await tokens.authorised { token in
            try await self.project.send(.POST, "/storage/v1/upload/resumable", bearer: token, headers: [
                ("Tus-Resumable", "1.0.0"), ("Upload-Length", String(transfer.bytes)), ("Upload-Metadata", metadata), ("x-upsert", "true"),
            ])
        }
        guard reply.status == 201, let location = reply.headers.first(name: "Location") else { throw SupabaseProject.refusal(reply) }
        // A relative location is the project's.
        return location.hasPrefix("http") ? location : project.url + location
    }

    /// How much of an upload the server holds; nil when it no longer knows the upload.
    private func uploadOffset(_ location: String) async throws -> Int64? {
        let reply = try await tokens.authorised { token in
            try await self.project.send(.HEAD, location, bearer: token, headers: [("Tus-Resumable", "1.0.0")])
        }
        if [404, 410].contains(reply.status) { return nil }
        guard reply.ok, let offset = reply.headers.first(name: "Upload-Offset").flatMap(Int64.init) else { throw SupabaseProject.refusal(reply) }
        return offset
    }

    func download(_ transfer: MediaTransfer, into sink: (ByteBuffer) -> Bool) async throws -> Bool {
        if objects.withLock({ $0[transfer.sha256] }) == nil { _ = try await presentMedia([transfer.sha256]) }
        // A file that went up in chunks over postgres:// has no Storage object; it comes down that way.
        guard let object = objects.withLock({ $0[transfer.sha256] }), object.chunks == 0 else { return false }
        let path = "/storage/v1/object/authenticated/" + objectPath(object.name)
        var whole = true
        let reply = try await tokens.authorised { token in
            let response = try await self.project.start(.GET, path, bearer: token)
            // Only a refusal's short body is read; the file itself streams to the sink.
            guard response.status == .ok else { return try await SupabaseProject.Reply(response, upTo: 1 << 16) }
            do {
                for try await part in response.body {
                    guard sink(part) else { whole = false; break }
                }
            } catch {
                throw SyncError.offline
            }
            return SupabaseProject.Reply(status: 200, headers: response.headers, body: ByteBuffer())
        }
        guard reply.ok else { throw SupabaseProject.refusal(reply) }
        return whole
    }

    // MARK: Answers

}
