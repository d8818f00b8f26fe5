import AsyncHTTPClient
import DiaryKit
import Foundation
import NIOCore
import NIOHTTP1

/// A Supabase project: its address and its public ("anon") key, which every request to its
/// APIs carries. The anon key identifies the project, not the person; it is still kept out
/// of logs and messages like any other credential.
package struct SupabaseProject: Sendable, Equatable {
    /// `https://xyz.supabase.co`, without a trailing slash.
    package let url: String
    package let anonKey: String

    package init(url text: String, anonKey: String) throws(SyncError) {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let components = URLComponents(string: trimmed), ["https", "http"].contains(components.scheme ?? ""),
              let host = components.host, !host.isEmpty, components.query == nil, components.user == nil else {
            throw SyncError.badAddress(URLRedaction.shown(text))
        }
        // Plain http only on this machine (a local stack, the tests): a token must not cross a network in clear.
        if components.scheme == "http", !["localhost", "127.0.0.1", "::1", "[::1]"].contains(host) {
            throw SyncError.badAddress(URLRedaction.shown(text))
        }
        guard !anonKey.isEmpty, anonKey.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else { throw SyncError.anonKeyNeeded }
        url = trimmed
        self.anonKey = anonKey
    }

    // MARK: HTTP

    /// One answer from the project's APIs.
    package struct Reply: Sendable {
        package var status: Int
        package var headers: HTTPHeaders
        package var body: ByteBuffer

        /// Reads a response's body, at most `limit` bytes.
        package init(_ response: HTTPClientResponse, upTo limit: Int) async throws {
            do {
                body = try await response.body.collect(upTo: limit)
            } catch {
                throw SyncError.offline
            }
            status = Int(response.status.code)
            headers = response.headers
        }

        package init(status: Int, headers: HTTPHeaders, body: ByteBuffer) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        package var json: JSON? { JSON.parse(Data(body.readableBytesView)) }
        package var ok: Bool { (200..<300).contains(status) }

        /// The error code of a failed answer, whichever API gave it: Auth's `error_code` (or
        /// older `error`), PostgREST's `code`, Storage's `error`/`statusCode`.
        package var errorCode: String? {
            guard let json else { return nil }
            return json["error_code"]?.stringValue ?? json["code"]?.stringValue ?? json["error"]?.stringValue
        }
    }

    /// Longest a request may take: a pull page or a 6 MiB upload chunk on a slow line.
    package static let timeout: TimeAmount = .seconds(60)
    /// Largest answer read into memory (downloads stream instead).
    package static let largestAnswer = 64 << 20

    /// Sends one request with the anon key and, when given, the person's token as the bearer.
    package func send(_ method: HTTPMethod, _ path: String, bearer: String?, headers: [(String, String)] = [],
              body: ByteBuffer? = nil) async throws -> Reply {
        try await Reply(try await start(method, path, bearer: bearer, headers: headers, body: body), upTo: Self.largestAnswer)
    }

    /// Sends one request and hands back the response with its body still to be read.
    package func start(_ method: HTTPMethod, _ path: String, bearer: String?, headers: [(String, String)] = [],
               body: ByteBuffer? = nil) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: path.hasPrefix("http") ? path : url + path)
        request.method = method
        request.headers.add(name: "apikey", value: anonKey)
        request.headers.add(name: "Authorization", value: "Bearer \(bearer ?? anonKey)")
        request.headers.add(name: "User-Agent", value: "diary-sync/\(DiaryVersion.current)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            if !request.headers.contains(name: "Content-Type") { request.headers.add(name: "Content-Type", value: "application/json") }
            request.body = .bytes(body)
        }
        do {
            return try await supabaseHTTP.execute(request, timeout: Self.timeout)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // Refused, reset, timed out, TLS: the network's doing; nothing about the request is shown.
            throw SyncError.offline
        }
    }

    package static func body(_ json: JSON) -> ByteBuffer { ByteBuffer(string: json.serialized) }

    // MARK: Auth (/auth/v1)

    /// What signing up gave: a session at once, or a confirmation email to answer first.
    package enum SignUp: Sendable {
        case session(SupabaseSession, userId: String)
        case confirmationSent
    }

    /// `POST /auth/v1/signup`: a new account with an email and a password.
    package func signUp(email: String, password: String) async throws -> SignUp {
        let reply = try await send(.POST, "/auth/v1/signup", bearer: nil,
                                   body: Self.body(.object([("email", .string(email)), ("password", .string(password))])))
        guard reply.ok, let json = reply.json else { throw Self.authRefusal(reply, email: email) }
        // With email confirmation on (the hosted default) the answer is the user alone.
        guard json["access_token"] != nil else { return .confirmationSent }
        let (session, userId) = try grant(json, email: email)
        return .session(session, userId: userId)
    }

    /// `POST /auth/v1/token?grant_type=password`.
    package func logIn(email: String, password: String) async throws -> (SupabaseSession, userId: String) {
        try await token("password", .object([("email", .string(email)), ("password", .string(password))]), email: email)
    }

    /// `POST /auth/v1/otp`: mails a one-time code to someone who already has an account.
    package func sendCode(email: String) async throws {
        let reply = try await send(.POST, "/auth/v1/otp", bearer: nil,
                                   body: Self.body(.object([("email", .string(email)), ("create_user", .bool(false))])))
        guard reply.ok else { throw Self.authRefusal(reply, email: email) }
    }

    /// `POST /auth/v1/verify`: the mailed code for a session.
    package func verify(email: String, code: String) async throws -> (SupabaseSession, userId: String) {
        let reply = try await send(.POST, "/auth/v1/verify", bearer: nil, body: Self.body(.object([
            ("type", .string("email")), ("email", .string(email)), ("token", .string(code)),
        ])))
        guard reply.ok, let json = reply.json else { throw Self.authRefusal(reply, email: email) }
        return try grant(json, email: email)
    }

    /// `POST /auth/v1/token?grant_type=refresh_token`: a new access token for the session's
    /// refresh token, which is spent doing so (the answer carries the next one).
    package func refresh(_ session: SupabaseSession) async throws -> SupabaseSession {
        do {
            return try await token("refresh_token", .object([("refresh_token", .string(session.refreshToken))]), email: session.email).0
        } catch SyncError.auth(.wrongPassword) {
            // invalid_grant here means the refresh token is spent or revoked: the session is over.
            throw SyncError.auth(.sessionEnded)
        }
    }

    /// `POST /auth/v1/logout?scope=local`: ends this device's session on the server (its
    /// refresh tokens stop working). Auth's default scope, global, would log out every other
    /// device of the person too.
    package func logOut(_ session: SupabaseSession) async throws {
        let reply = try await send(.POST, "/auth/v1/logout?scope=local", bearer: session.accessToken)
        // An expired or already ended session is as logged out as it gets.
        guard reply.ok || [401, 403, 404].contains(reply.status) else { throw Self.authRefusal(reply, email: session.email) }
    }

    private func token(_ grantType: String, _ body: JSON, email: String) async throws -> (SupabaseSession, userId: String) {
        let reply = try await send(.POST, "/auth/v1/token?grant_type=\(grantType)", bearer: nil, body: Self.body(body))
        guard reply.ok, let json = reply.json else { throw Self.authRefusal(reply, email: email) }
        return try grant(json, email: email)
    }

    /// Reads a session answer: tokens, expiry and the user.
    private func grant(_ json: JSON, email: String) throws -> (SupabaseSession, userId: String) {
        guard let access = json["access_token"]?.stringValue, let refresh = json["refresh_token"]?.stringValue,
              let userId = json["user"]?["id"]?.stringValue else {
            throw SyncError.serverState("auth answer")
        }
        let now = Int64(Date().timeIntervalSince1970)
        // A number that is not a time in seconds is read as none: the next request renews.
        let expiresAt = json["expires_at"]?.integerValue
            ?? json["expires_in"]?.integerValue.map { now &+ $0 } ?? now + 3600
        let session = SupabaseSession(project: self, email: json["user"]?["email"]?.stringValue ?? email,
                                      accessToken: access, refreshToken: refresh, expiresAt: expiresAt)
        return (session, userId)
    }

    /// What a refused Auth request means for the person (Auth's error codes, or its older
    /// `error` field where it has none).
    package static func authRefusal(_ reply: Reply, email: String) -> SyncError {
        if reply.status == 429 { return .auth(.tooManyRequests) }
        if reply.status >= 500 { return .offline }
        switch reply.errorCode ?? "" {
        case "invalid_credentials", "invalid_grant": return .auth(.wrongPassword)
        case "email_not_confirmed": return .auth(.emailNotConfirmed(email))
        case "user_already_exists", "email_exists": return .auth(.alreadyRegistered(email))
        case "weak_password": return .auth(.weakPassword)
        case "otp_expired": return .auth(.wrongCode)
        case "otp_disabled", "user_not_found", "signup_disabled": return .auth(.unknownEmail(email))
        case "over_request_rate_limit", "over_email_send_rate_limit": return .auth(.tooManyRequests)
        case "refresh_token_already_used", "refresh_token_not_found", "session_not_found", "session_expired", "bad_jwt":
            return .auth(.sessionEnded)
        case "email_address_invalid", "validation_failed": return .auth(.badEmail(email))
        default: return .serverState("auth \(reply.status)")
        }
    }
}

/// The client every request to a Supabase project goes through. As for the companion's
/// services, a connection that cannot be made fails at once; the sync's own backoff decides
/// when to try again.
private let supabaseHTTP: HTTPClient = {
    var configuration = HTTPClient.Configuration.singletonConfiguration
    configuration.connectionPool.retryConnectionEstablishment = false
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}()

extension SupabaseProject {
    /// PostgREST says 401 for an expired or unusable JWT; Storage says 400 (or 403) with the
    /// JWT library's complaint in its message (`"exp" claim timestamp check failed`,
    /// `jwt expired`).
    package static func tokenRefused(status: Int, message: String?) -> Bool {
        if status == 401 { return true }
        guard [400, 403].contains(status), let message = message?.lowercased() else { return false }
        return message.contains("\"exp\" claim") || (message.contains("jwt") && (message.contains("expired") || message.contains("invalid")))
    }

    /// What a refused REST or Storage request means for the person. Storage puts the HTTP
    /// status it means in the body's `statusCode`.
    package static func refusal(_ reply: Reply) -> SyncError {
        let code = reply.errorCode ?? ""
        let meant = reply.json?["statusCode"]?.stringValue.flatMap(Int.init) ?? reply.status
        switch (code, meant) {
        case ("IB001", _), (_, 413): return .mediaSpaceFull(waiting: 0)
        case ("PGRST106", _): return .schemaNotExposed
        case ("PGRST202", _), ("42883", _), ("42P01", _), ("3F000", _): return .serverNotReady
        case ("42501", _), (_, 401), (_, 403): return .permissionDenied
        case (_, 408), (_, 429), (_, 500...): return .offline
        default: return .serverState(code.isEmpty ? "http \(reply.status)" : code)
        }
    }
}
