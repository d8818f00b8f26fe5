import Crypto
import Foundation
import PostgresNIO

// Supabase Storage (github.com/supabase/storage): objects are rows of storage.objects, written
// and read as the caller (the JWT's role and claims), so row-level security decides who may
// store, read or delete what, as on a project; the bytes are files in the fake's folder. Big
// files come through tus 1.0.0 resumable uploads (tus-node-server, as Storage mounts it).

/// A tus upload: where its bytes go, how far it got, and whose it is.
struct ResumableUpload: Sendable {
    let id: String
    /// The `sub` of whoever created it; only they may see or continue it.
    let owner: String
    let bucket: String
    let objectName: String
    let length: Int
    var offset: Int
    let contentType: String
    let cacheControl: String
    /// Upload-Metadata as it came, for HEAD.
    let metadataHeader: String
    let file: URL
    /// A PATCH is writing to it.
    var busy = false
    /// Complete and stored as an object.
    var finished = false
}

/// A Storage refusal: the HTTP status it means, its code and its legacy `error` (internal/errors/codes.ts).
struct StorageFailure: Error {
    let status: Int
    let code: String
    let error: String
    let message: String

    init(_ status: Int, _ code: String, _ error: String? = nil, _ message: String) {
        self.status = status
        self.code = code
        self.error = error ?? code
        self.message = message
    }

    /// As Storage's error handler sends it (src/http/error-handler.ts): status 400 (500 for a
    /// server error), the meant status in the body's `statusCode`.
    var json: FakeResponse {
        .json(status == 500 ? 500 : 400, ["statusCode": String(status), "code": code, "error": error, "message": message])
    }

    /// As the tus routes send it (src/http/routes/tus/lifecycle.ts getTusError): the meant status, the message as text.
    var tus: FakeResponse {
        .body(status: status, text: message, contentType: "text/plain; charset=utf-8", headers: [("Tus-Resumable", "1.0.0")])
    }

    static let noObject = StorageFailure(404, "NoSuchKey", "not_found", "Object not found")
    static let noBucket = StorageFailure(404, "NoSuchBucket", "Bucket not found", "Bucket not found")

    /// A database error as Storage maps it (src/storage/database/errors.ts): a policy's refusal
    /// is AccessDenied, a second object of the same name Duplicate.
    static func database(_ error: PSQLError, duplicate: String = "ResourceAlreadyExists") -> StorageFailure {
        let state = error.serverInfo?[.sqlState] ?? ""
        let message = error.serverInfo?[.message] ?? String(reflecting: error)
        switch state {
        case "42501":
            return StorageFailure(403, "AccessDenied", "Unauthorized",
                                  message.contains("row-level security") ? "new row violates row-level security policy" : message)
        case "23505": return StorageFailure(409, duplicate, "Duplicate", "The resource already exists")
        case "23503": return noBucket
        default: return StorageFailure(500, "DatabaseError", "internal", message)
        }
    }
}

/// A tus protocol answer (tus-node-server's ERRORS): a status and a line of text.
private func tusAnswer(_ status: Int, _ text: String, headers: [(String, String)] = []) -> Answer {
    Answer(.body(status: status, text: text, contentType: "text/plain; charset=utf-8", headers: [("Tus-Resumable", "1.0.0")] + headers))
}

/// Thrown to roll a transaction back after it did what it had to (a permission test).
private struct RollBack: Error {}

extension FakeSupabase {
    func storage(_ request: RecordedRequest, route: String) async throws -> FakeResponse {
        if route == "/upload/resumable" || route.hasPrefix("/upload/resumable/") {
            do {
                return try await resumable(request, id: String(route.dropFirst("/upload/resumable".count).drop { $0 == "/" }))
            } catch let failure as StorageFailure {
                return failure.tus
            }
        }
        do {
            guard route.hasPrefix("/object/") else { throw Self.noRoute(request) }
            var segments = route.dropFirst("/object/".count).split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.removingPercentEncoding ?? String($0) }
            switch request.method {
            case "GET", "HEAD":
                if segments.first == "public", segments.count >= 3 {
                    return try await download(request, bucket: segments[1], name: segments[2...].joined(separator: "/"), public: true)
                }
                if segments.first == "authenticated" { segments.removeFirst() }
                guard segments.count >= 2 else { throw StorageFailure.noObject }
                return try await download(request, bucket: segments[0], name: segments[1...].joined(separator: "/"), public: false)
            case "POST", "PUT":
                let name = segments.dropFirst().joined(separator: "/")
                guard segments.count >= 2, !name.isEmpty, !name.hasPrefix("/") else {
                    throw StorageFailure(400, "InvalidKey", nil, "Invalid key: \(name)")
                }
                // PUT replaces; POST replaces only with x-upsert: true.
                let upsert = request.method == "PUT" || request.header("x-upsert") == "true"
                return try await upload(request, bucket: segments[0], name: name, upsert: upsert)
            case "DELETE":
                if segments.count == 1 { return try await deleteObjects(request, bucket: segments[0]) }
                return try await deleteObject(request, bucket: segments[0], name: segments.dropFirst().joined(separator: "/"))
            default:
                throw Self.noRoute(request)
            }
        } catch let failure as StorageFailure {
            return failure.json
        }
    }

    /// Fastify's answer for a path or method Storage has no route for.
    private static func noRoute(_ request: RecordedRequest) -> StorageFailure {
        StorageFailure(404, "NotFound", "Not Found", "Route \(request.method):\(request.path) not found")
    }

    // MARK: Who is asking

    /// The bearer token's claims, refused as Storage's JWT plugin refuses (src/http/plugins/jwt.ts,
    /// with jose's words for what is wrong): 400, statusCode 403, AccessDenied.
    private func storageClaims(_ request: RecordedRequest) throws -> Claims {
        switch verify(Self.bearer(request) ?? "") {
        case let .success(claims): return claims
        case let .failure(problem):
            let message = switch problem {
            case .empty, .parts, .malformed: "Invalid Compact JWS"
            case .algorithm: "\"alg\" (Algorithm) Header Parameter value not allowed"
            case .signature: "signature verification failed"
            case .expired: "\"exp\" claim timestamp check failed"
            }
            throw StorageFailure(403, "AccessDenied", "Unauthorized", message)
        }
    }

    /// Acts as the caller for the rest of the transaction, with the settings Storage sets on
    /// every request (src/internal/database/postgres/scope.ts), deletes allowed past protect_delete.
    private func actAsCaller(_ claims: Claims, _ request: RecordedRequest, on connection: PostgresConnection) async throws {
        try await become(claims.role, claims: claims.json, sub: claims.sub, on: connection)
        try await connection.query("""
            SELECT set_config('request.method', \(request.method), true), set_config('request.path', \(request.path), true),
                   set_config('storage.allow_delete_query', 'true', true)
            """, logger: logger)
    }

    private func bucketExists(_ bucket: String) async throws -> Bool {
        let rows = try await database.query("SELECT id FROM storage.buckets WHERE id = \(bucket)", logger: logger).collect()
        return !rows.isEmpty
    }

    // MARK: Objects

    /// The file holding an object's bytes (named by a hash: object names may hold anything).
    private func objectFile(bucket: String, name: String) -> URL {
        folder.appendingPathComponent("objects").appendingPathComponent(hex(SHA256.hash(data: Data("\(bucket)/\(name)".utf8))))
    }

    /// storage.objects.metadata as Storage fills it for a stored file.
    private static func objectMetadata(size: Int, mimetype: String, eTag: String, cacheControl: String) -> String {
        jsonText(["eTag": eTag, "size": size, "mimetype": mimetype, "cacheControl": cacheControl,
                  "lastModified": ISO8601DateFormatter().string(from: Date()), "contentLength": size, "httpStatusCode": 200] as [String: Any])
    }

    /// Writes the object's row as the caller, in the transaction: a plain insert, or with
    /// `upsert` Storage's upsertObject (`ON CONFLICT (name, bucket_id) DO UPDATE`). Its id.
    private func putRow(bucket: String, name: String, metadata: String, upsert: Bool, claims: Claims, request: RecordedRequest,
                        on connection: PostgresConnection) async throws -> String {
        try await actAsCaller(claims, request, on: connection)
        let owner = claims.sub.flatMap { UUID(uuidString: $0) == nil ? nil : $0 }
        if upsert {
            return try await firstText("""
                INSERT INTO storage.objects (bucket_id, name, owner, metadata) VALUES (\(bucket), \(name), \(owner)::uuid, \(metadata)::jsonb)
                ON CONFLICT (name, bucket_id) DO UPDATE SET owner = EXCLUDED.owner, metadata = EXCLUDED.metadata, updated_at = now()
                RETURNING id::text
                """, on: connection) ?? ""
        }
        return try await firstText("""
            INSERT INTO storage.objects (bucket_id, name, owner, metadata) VALUES (\(bucket), \(name), \(owner)::uuid, \(metadata)::jsonb)
            RETURNING id::text
            """, on: connection) ?? ""
    }

    /// Moves a finished file into place (replacing an older copy at once).
    private func install(_ file: URL, bucket: String, name: String) throws {
        guard rename(file.path, objectFile(bucket: bucket, name: name).path) == 0 else {
            throw StorageFailure(500, "InternalError", "internal", "could not store the object's bytes (errno \(errno))")
        }
    }

    /// `POST|PUT /storage/v1/object/{bucket}/{name}` with the bytes as the body (src/http/routes/object/createObject.ts).
    private func upload(_ request: RecordedRequest, bucket: String, name: String, upsert: Bool) async throws -> FakeResponse {
        let claims = try storageClaims(request)
        guard try await bucketExists(bucket) else { throw StorageFailure.noBucket }
        let mimetype = request.header("content-type") ?? "application/octet-stream"
        let metadata = Self.objectMetadata(size: request.body.count, mimetype: mimetype,
                                           eTag: "\"\(hex(Insecure.MD5.hash(data: request.body)))\"",
                                           cacheControl: request.header("cache-control") ?? "no-cache")
        let staged = folder.appendingPathComponent("staging").appendingPathComponent(UUID().uuidString)
        try request.body.write(to: staged)
        do {
            let id = try await transaction { connection in
                try await self.putRow(bucket: bucket, name: name, metadata: metadata, upsert: upsert, claims: claims, request: request,
                                      on: connection)
            }
            try install(staged, bucket: bucket, name: name)
            return .json(200, ["Key": "\(bucket)/\(name)", "Id": id])
        } catch let error as PSQLError {
            try? FileManager.default.removeItem(at: staged)
            throw StorageFailure.database(error, duplicate: upsert ? "ResourceAlreadyExists" : "KeyAlreadyExists")
        } catch {
            try? FileManager.default.removeItem(at: staged)
            throw error
        }
    }

    /// `GET /storage/v1/object/authenticated/{bucket}/{name}` (or without `authenticated/`): the
    /// bytes, if the caller may see the row; `public/{bucket}/{name}` for a public bucket, to anyone.
    private func download(_ request: RecordedRequest, bucket: String, name: String, public: Bool) async throws -> FakeResponse {
        let metadata: String?
        if `public` {
            metadata = try await transaction { connection in
                try await self.firstText("""
                    SELECT o.metadata::text FROM storage.objects o JOIN storage.buckets b ON b.id = o.bucket_id
                    WHERE b.public AND o.bucket_id = \(bucket) AND o.name = \(name)
                    """, on: connection)
            }
        } else {
            let claims = try storageClaims(request)
            metadata = try await transaction { connection in
                try await self.actAsCaller(claims, request, on: connection)
                return try await self.firstText("SELECT metadata::text FROM storage.objects WHERE bucket_id = \(bucket) AND name = \(name)",
                                                on: connection)
            }
        }
        guard let metadata, let bytes = try? Data(contentsOf: objectFile(bucket: bucket, name: name)) else {
            throw StorageFailure.noObject
        }
        let fields = (try? JSONSerialization.jsonObject(with: Data(metadata.utf8))) as? [String: Any] ?? [:]
        var headers = [("Cache-Control", fields["cacheControl"] as? String ?? "no-cache")]
        if let eTag = fields["eTag"] as? String { headers.append(("ETag", eTag)) }
        return .bytes(status: 200, data: bytes, contentType: fields["mimetype"] as? String ?? "application/octet-stream", headers: headers)
    }

    /// `DELETE /storage/v1/object/{bucket}` with `{"prefixes":[names]}`: removes the objects the
    /// caller may delete (others are left, silently) and answers them as rows.
    private func deleteObjects(_ request: RecordedRequest, bucket: String) async throws -> FakeResponse {
        let claims = try storageClaims(request)
        guard let body = jsonObject(request.body), let list = body["prefixes"] as? [Any], list.allSatisfy({ $0 is String }) else {
            throw StorageFailure(400, "InvalidRequest", "Bad Request", "body must have required property 'prefixes'")
        }
        let names = list.compactMap { $0 as? String }
        let deleted = try await delete(names, bucket: bucket, claims: claims, request: request)
        return .body(status: 200, text: "[" + deleted.map(\.row).joined(separator: ",") + "]")
    }

    /// `DELETE /storage/v1/object/{bucket}/{name}`: one object.
    private func deleteObject(_ request: RecordedRequest, bucket: String, name: String) async throws -> FakeResponse {
        let claims = try storageClaims(request)
        guard try await !delete([name], bucket: bucket, claims: claims, request: request).isEmpty else { throw StorageFailure.noObject }
        return .json(200, ["message": "Successfully deleted"])
    }

    /// Deletes the rows as the caller, then their files. The deleted rows as JSON, with their names.
    private func delete(_ names: [String], bucket: String, claims: Claims,
                        request: RecordedRequest) async throws -> [(name: String, row: String)] {
        guard !names.isEmpty else { return [] }
        let deleted: [String: String]
        do {
            deleted = try await transaction { connection in
                try await self.actAsCaller(claims, request, on: connection)
                let rows = try await connection.query("""
                    WITH gone AS (DELETE FROM storage.objects WHERE bucket_id = \(bucket) AND name = ANY(\(names)) RETURNING *)
                    SELECT name, to_jsonb(gone)::text FROM gone
                    """, logger: self.logger).collect()
                var deleted: [String: String] = [:]
                for row in rows {
                    let (name, json) = try row.decode((String, String).self)
                    deleted[name] = json
                }
                return deleted
            }
        } catch let error as PSQLError {
            throw StorageFailure.database(error)
        }
        for name in deleted.keys { try? FileManager.default.removeItem(at: objectFile(bucket: bucket, name: name)) }
        return names.compactMap { name in deleted[name].map { (name, $0) } }
    }

    // MARK: Resumable uploads (tus 1.0.0)

    /// `/storage/v1/upload/resumable[/{id}]`: POST creates an upload (201, Location), HEAD says
    /// how far it got, PATCH appends a chunk at exactly that offset, DELETE abandons it. The
    /// caller's policy is tested when it is created and at every chunk (Storage's canUpload,
    /// with that request's x-upsert), and the row is written as the caller when the last byte
    /// arrives; a refusal then discards the upload. Partial uploads stay across requests.
    private func resumable(_ request: RecordedRequest, id: String) async throws -> FakeResponse {
        if request.method == "OPTIONS" {
            return .bytes(status: 204, data: Data(), contentType: "", headers: [
                ("Tus-Resumable", "1.0.0"), ("Tus-Version", "1.0.0"), ("Tus-Extension", "creation,creation-with-upload,termination"),
            ])
        }
        // Storage checks the JWT (a JSON refusal) before tus sees the request.
        let claims: Claims
        do { claims = try storageClaims(request) } catch let failure as StorageFailure { return failure.json }
        guard request.header("tus-resumable") != nil else { throw tusAnswer(412, "Tus-Resumable Required\n") }
        switch (request.method, id.isEmpty) {
        case ("POST", true): return try await createUpload(request, claims: claims)
        case ("HEAD", false): return try uploadStatus(id, claims: claims)
        case ("PATCH", false): return try await appendChunk(request, id: id, claims: claims)
        case ("DELETE", false):
            guard let upload = ownUpload(id, claims: claims) else { throw tusAnswer(404, "The file for this url was not found\n") }
            discard(upload)
            return .bytes(status: 204, data: Data(), contentType: "", headers: [("Tus-Resumable", "1.0.0")])
        default:
            throw Self.noRoute(request)
        }
    }

    /// POST: a new upload of Upload-Length bytes to the object Upload-Metadata names; with a body
    /// (creation-with-upload) its first bytes too.
    private func createUpload(_ request: RecordedRequest, claims: Claims) async throws -> FakeResponse {
        guard let lengthText = request.header("upload-length") else {
            if request.header("upload-defer-length") != nil {
                throw tusAnswer(501, "creation-defer-length extension is not (yet) supported.\n")
            }
            throw tusAnswer(400, "Upload-Length or Upload-Defer-Length header required\n")
        }
        guard let length = Int(lengthText), length >= 0 else { throw tusAnswer(400, "Invalid Upload-Length\n") }
        guard let metadata = Self.tusMetadata(request.header("upload-metadata")) else {
            throw tusAnswer(400, "Upload-Metadata is invalid. It MUST consist of one or more comma-separated key-value pairs.")
        }
        guard let bucket = metadata["bucketName"], !bucket.isEmpty, let objectName = metadata["objectName"], !objectName.isEmpty else {
            throw StorageFailure(400, "InvalidRequest", nil, "Metadata header is required")
        }
        guard try await bucketExists(bucket) else { throw StorageFailure.noBucket }
        let contentType = metadata["contentType"].flatMap { $0.isEmpty ? nil : $0 } ?? "application/octet-stream"
        let cacheSeconds = metadata["cacheControl"] ?? ""
        let cacheControl = !cacheSeconds.isEmpty && cacheSeconds.allSatisfy(\.isNumber) ? "max-age=\(cacheSeconds)" : "no-cache"
        try await checkUpload(bucket: bucket, name: objectName, mimetype: contentType, length: length, claims: claims, request: request)

        let version = UUID().uuidString.lowercased()
        let id = JWT.base64URL(Data("\(bucket)/\(objectName)/\(version)".utf8))
        let file = folder.appendingPathComponent("uploads").appendingPathComponent(version)
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw StorageFailure(500, "InternalError", "internal", "could not create the upload")
        }
        let upload = ResumableUpload(id: id, owner: claims.sub ?? "", bucket: bucket, objectName: objectName, length: length, offset: 0,
                                     contentType: contentType, cacheControl: cacheControl,
                                     metadataHeader: request.header("upload-metadata") ?? "", file: file)
        state.withLock { $0.uploads[id] = upload }
        var headers = [("Location", "\(baseURL)/storage/v1/upload/resumable/\(id)"), ("Tus-Resumable", "1.0.0")]
        if request.header("content-type") == "application/offset+octet-stream" {
            let (offset, complete) = try await write(request.body, at: 0, to: id, claims: claims, request: request)
            headers.append(("Upload-Offset", String(offset)))
            if complete { headers.append(("Tus-Complete", "1")) }
        } else if length == 0 {
            _ = try await write(Data(), at: 0, to: id, claims: claims, request: request)
            headers.append(("Tus-Complete", "1"))
        }
        return .bytes(status: 201, data: Data(), contentType: "", headers: headers)
    }

    /// HEAD: how many bytes the upload holds.
    private func uploadStatus(_ id: String, claims: Claims) throws -> FakeResponse {
        guard let upload = ownUpload(id, claims: claims) else { throw tusAnswer(404, "The file for this url was not found\n") }
        var headers = [("Upload-Offset", String(upload.offset)), ("Upload-Length", String(upload.length)),
                       ("Cache-Control", "no-store"), ("Tus-Resumable", "1.0.0")]
        if !upload.metadataHeader.isEmpty { headers.append(("Upload-Metadata", upload.metadataHeader)) }
        return .bytes(status: 200, data: Data(), contentType: "", headers: headers)
    }

    /// PATCH: the next chunk, at exactly the offset the server has (else 409).
    private func appendChunk(_ request: RecordedRequest, id: String, claims: Claims) async throws -> FakeResponse {
        guard let upload = ownUpload(id, claims: claims) else { throw tusAnswer(404, "The file for this url was not found\n") }
        guard let offset = request.header("upload-offset").flatMap({ Int($0) }), offset >= 0 else {
            throw tusAnswer(403, "Upload-Offset header required\n")
        }
        guard request.header("content-type") == "application/offset+octet-stream" else {
            throw tusAnswer(403, "Content-Type header required\n")
        }
        if !upload.finished {
            try await checkUpload(bucket: upload.bucket, name: upload.objectName, mimetype: upload.contentType, length: upload.length,
                                  claims: claims, request: request)
        }
        let (next, complete) = try await write(request.body, at: offset, to: id, claims: claims, request: request)
        var headers = [("Upload-Offset", String(next)), ("Tus-Resumable", "1.0.0")]
        if complete { headers.append(("Tus-Complete", "1")) }
        return .bytes(status: 204, data: Data(), contentType: "", headers: headers)
    }

    /// Appends `bytes` at `offset` and, when that completes the upload, stores it as the object.
    /// The new offset and whether the upload is complete.
    private func write(_ bytes: Data, at offset: Int, to id: String, claims: Claims,
                       request: RecordedRequest) async throws -> (offset: Int, complete: Bool) {
        // Claimed under the lock: one chunk at a time, at the right offset, within the length.
        let claimed: Result<ResumableUpload, Answer> = state.withLock { state in
            guard var upload = state.uploads[id] else { return .failure(tusAnswer(404, "The file for this url was not found\n")) }
            guard !upload.busy, upload.offset == offset else { return .failure(tusAnswer(409, "Upload-Offset conflict\n")) }
            guard offset + bytes.count <= upload.length else { return .failure(tusAnswer(413, "upload's size exceeded\n")) }
            upload.busy = true
            state.uploads[id] = upload
            return .success(upload)
        }
        var upload = try claimed.get()
        do {
            if !bytes.isEmpty {
                let handle = try FileHandle(forWritingTo: upload.file)
                defer { try? handle.close() }
                _ = try handle.seekToEnd()
                try handle.write(contentsOf: bytes)
            }
            upload.offset = offset + bytes.count
            if upload.offset == upload.length, !upload.finished {
                try await finish(upload, claims: claims, request: request)
                upload.finished = true
            }
        } catch {
            if error is StorageFailure || error is PSQLError {
                // The object was refused: the upload is discarded, as Storage's failed completion leaves nothing.
                discard(upload)
            } else {
                state.withLock { $0.uploads[id]?.busy = false }
            }
            if let error = error as? PSQLError { throw StorageFailure.database(error) }
            throw error
        }
        upload.busy = false
        let stored = upload
        state.withLock { $0.uploads[id] = stored }
        return (stored.offset, stored.finished)
    }

    /// The last byte is in: the object's row, written as the caller, and its file in place.
    private func finish(_ upload: ResumableUpload, claims: Claims, request: RecordedRequest) async throws {
        let bytes = try Data(contentsOf: upload.file)
        let metadata = Self.objectMetadata(size: bytes.count, mimetype: upload.contentType,
                                           eTag: "\"\(hex(Insecure.MD5.hash(data: bytes)))\"", cacheControl: upload.cacheControl)
        _ = try await transaction { connection in
            try await self.putRow(bucket: upload.bucket, name: upload.objectName, metadata: metadata, upsert: true, claims: claims,
                                  request: request, on: connection)
        }
        try install(upload.file, bucket: upload.bucket, name: upload.objectName)
    }

    /// Storage's canUpload: the row the upload will make, written as the caller and rolled back,
    /// so that a policy's refusal (or an existing object without x-upsert) comes before the bytes.
    private func checkUpload(bucket: String, name: String, mimetype: String, length: Int, claims: Claims,
                             request: RecordedRequest) async throws {
        let metadata = jsonText(["mimetype": mimetype, "contentLength": length] as [String: Any])
        let upsert = request.header("x-upsert") == "true"
        do {
            _ = try await transaction { connection -> String in
                _ = try await self.putRow(bucket: bucket, name: name, metadata: metadata, upsert: upsert, claims: claims, request: request,
                                          on: connection)
                throw RollBack()
            }
        } catch is RollBack {
            return
        } catch let error as PSQLError {
            throw StorageFailure.database(error, duplicate: upsert ? "ResourceAlreadyExists" : "KeyAlreadyExists")
        }
    }

    /// The upload if it exists and the caller made it.
    private func ownUpload(_ id: String, claims: Claims) -> ResumableUpload? {
        state.withLock { state in
            guard let upload = state.uploads[id], let sub = claims.sub, upload.owner == sub else { return nil }
            return upload
        }
    }

    /// Forgets an upload and removes its bytes.
    private func discard(_ upload: ResumableUpload) {
        _ = state.withLock { $0.uploads.removeValue(forKey: upload.id) }
        try? FileManager.default.removeItem(at: upload.file)
    }

    /// Upload-Metadata: comma-separated `key base64value` pairs (a key alone has no value); nil if malformed.
    static func tusMetadata(_ header: String?) -> [String: String]? {
        guard let header, !header.isEmpty else { return [:] }
        var metadata: [String: String] = [:]
        for pair in header.split(separator: ",") {
            let tokens = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: false)
            guard (1...2).contains(tokens.count), !tokens[0].isEmpty, metadata[String(tokens[0])] == nil else { return nil }
            if tokens.count == 1 {
                metadata[String(tokens[0])] = ""
                continue
            }
            guard let value = Data(base64Encoded: String(tokens[1])) else { return nil }
            metadata[String(tokens[0])] = String(decoding: value, as: UTF8.self)
        }
        return metadata
    }
}
