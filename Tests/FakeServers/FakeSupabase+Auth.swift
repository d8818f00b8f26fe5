import Foundation
import PostgresNIO

// Supabase Auth (GoTrue, github.com/supabase/auth): sign-up, password and refresh-token grants,
// one-time codes by email, logout and the current user. Users are rows of auth.users written
// as supabase_auth_admin (the role Auth connects as), so triggers on auth.users run as on a
// project; passwords are bcrypt through pgcrypto, as GoTrue stores them.

/// An Auth refusal: its HTTP status, error code (internal/api/apierrors/errorcode.go) and message.
struct AuthRefusal: Error {
    let status: Int
    let code: String
    let message: String
    /// weak_password's reasons ("length").
    var reasons: [String]? = nil

    init(_ status: Int, _ code: String, _ message: String, reasons: [String]? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.reasons = reasons
    }

    static let invalidLogin = AuthRefusal(400, "invalid_credentials", "Invalid login credentials")
    static let badCode = AuthRefusal(403, "otp_expired", "Token has expired or is invalid")
}

/// An OAuth-style refusal (`{"error","error_description"}`, always 400), as GoTrue still sends for a few grant errors.
struct OAuthRefusal: Error {
    let error: String
    let description: String
}

extension FakeSupabase {
    /// How long a mailed code is good for: GoTrue's default MAILER_OTP_EXP.
    static let codeLifetime = "1 hour"
    /// The instance_id GoTrue writes on every row.
    static let instanceId = "00000000-0000-0000-0000-000000000000"

    /// A user as GoTrue shows one (models.User's JSON), from the row `u` of auth.users.
    static let userJSON = """
        jsonb_strip_nulls(jsonb_build_object(
            'id', u.id, 'aud', coalesce(u.aud, ''), 'role', coalesce(u.role, ''), 'email', coalesce(u.email, ''),
            'email_confirmed_at', u.email_confirmed_at, 'confirmed_at', u.email_confirmed_at, 'phone', '',
            'app_metadata', coalesce(u.raw_app_meta_data, '{}'::jsonb), 'user_metadata', coalesce(u.raw_user_meta_data, '{}'::jsonb),
            'identities', '[]'::jsonb, 'created_at', u.created_at, 'updated_at', u.updated_at, 'is_anonymous', false))::text
        """

    func auth(_ request: RecordedRequest, route: String) async throws -> FakeResponse {
        do {
            switch (request.method, route) {
            case ("POST", "/signup"): return try await signUp(request)
            case ("POST", "/token"):
                switch request.query["grant_type"] {
                case "password": return try await passwordGrant(request)
                case "refresh_token": return try await refreshGrant(request)
                default: throw AuthRefusal(400, "invalid_credentials", "unsupported_grant_type")
                }
            case ("POST", "/otp"): return try await sendCode(request)
            case ("POST", "/verify"): return try await verifyCode(request)
            case ("POST", "/logout"): return try await logOut(request)
            case ("GET", "/user"): return try await currentUser(request)
            case (_, "/signup"), (_, "/token"), (_, "/otp"), (_, "/verify"), (_, "/logout"), (_, "/user"):
                return .bytes(status: 405, data: Data(), contentType: "")
            default:
                return .body(status: 404, text: "404 page not found\n", contentType: "text/plain; charset=utf-8")
            }
        } catch let refusal as AuthRefusal {
            return Self.answer(refusal, to: request)
        } catch let refusal as OAuthRefusal {
            return .json(400, ["error": refusal.error, "error_description": refusal.description])
        }
    }

    /// An Auth error as GoTrue writes it (internal/api/errors.go): `{"code":<status>,"error_code","msg"}` and the
    /// header x-sb-error-code; for clients that send `X-Supabase-Api-Version: 2024-01-01` or later,
    /// `{"code":<error code>,"message"}` and the version echoed back.
    static func answer(_ refusal: AuthRefusal, to request: RecordedRequest) -> FakeResponse {
        var body: [String: Any]
        var headers: [(String, String)] = []
        if let version = request.header("x-supabase-api-version"), version.count == 10, version >= "2024-01-01" {
            body = ["code": refusal.code, "message": refusal.message]
            headers.append(("X-Supabase-Api-Version", "2024-01-01"))
        } else {
            body = ["code": refusal.status, "error_code": refusal.code, "msg": refusal.message]
            headers.append(("x-sb-error-code", refusal.code))
        }
        if let reasons = refusal.reasons { body["weak_password"] = ["reasons": reasons] }
        return .json(refusal.status, body, headers: headers)
    }

    // MARK: Requests

    /// The request's JSON object, or GoTrue's bad_json refusal.
    private func body(_ request: RecordedRequest) throws -> [String: Any] {
        guard let body = jsonObject(request.body) else {
            throw AuthRefusal(400, "bad_json", "Could not parse request body as JSON: invalid character")
        }
        return body
    }

    /// An email address as GoTrue takes it (internal/api/mail.go validateEmail): present, at most
    /// 255 characters, of a plausible form, lowercased.
    private func email(_ value: Any?) throws -> String {
        let email = (value as? String ?? "").trimmingCharacters(in: .whitespaces)
        guard !email.isEmpty else { throw AuthRefusal(400, "validation_failed", "An email address is required") }
        guard email.count <= 255 else { throw AuthRefusal(400, "validation_failed", "An email address is too long") }
        let halves = email.split(separator: "@", omittingEmptySubsequences: false)
        guard halves.count == 2, !halves[0].isEmpty, halves[1].contains("."), !halves[1].hasPrefix("."), !halves[1].hasSuffix("."),
              !email.contains(where: \.isWhitespace) else {
            throw AuthRefusal(400, "validation_failed", "Unable to validate email address: invalid format")
        }
        return email.lowercased()
    }

    // MARK: Sign-up and grants

    /// `POST /auth/v1/signup` (internal/api/signup.go).
    private func signUp(_ request: RecordedRequest) async throws -> FakeResponse {
        let body = try body(request)
        let password = body["password"] as? String ?? ""
        guard !password.isEmpty else { throw AuthRefusal(400, "validation_failed", "Signup requires a valid password") }
        // The default minimum length (GOTRUE_PASSWORD_MIN_LENGTH), checked before the address.
        guard password.count >= 6 else {
            throw AuthRefusal(422, "weak_password", "Password should be at least 6 characters.", reasons: ["length"])
        }
        let email = try email(body["email"])
        let metadata = jsonText(body["data"] as? [String: Any] ?? [:])
        let code = Self.randomCode()
        let (answer, mailed) = try await transaction { connection -> (FakeResponse, Bool) in
            let crypto = self.pgcrypto
            let hash = try await self.firstText("SELECT \(unescaped: crypto).crypt(\(password), \(unescaped: crypto).gen_salt('bf'))",
                                                on: connection) ?? ""
            let codeHash = try await self.codeHash(email: email, code: code, on: connection)
            try await self.become("supabase_auth_admin", claims: "", on: connection)
            let rows = try await connection.query("""
                SELECT id::text, email_confirmed_at IS NOT NULL FROM auth.users WHERE lower(email) = \(email) FOR UPDATE
                """, logger: self.logger).collect()
            if let row = rows.first {
                let (id, confirmed) = try row.decode((String, Bool).self)
                if confirmed {
                    // With autoconfirm GoTrue says so; without, it answers as for a new sign-up and
                    // mails nothing, so that nobody learns which addresses have accounts.
                    if self.autoconfirm { throw AuthRefusal(422, "user_already_exists", "User already registered") }
                    return (.json(200, Self.obfuscatedUser(email)), false)
                }
                if self.autoconfirm {
                    try await connection.query("UPDATE auth.users SET email_confirmed_at = now(), updated_at = now() WHERE id = \(id)::uuid",
                                               logger: self.logger)
                    return (.body(status: 200, text: try await self.issueSession(userId: id, method: "password", on: connection)), false)
                }
                // Unconfirmed: the confirmation is mailed again; the password stays as it was.
                try await self.storeCode(userId: id, email: email, type: "confirmation_token", hash: codeHash, on: connection)
                return (.body(status: 200, text: try await self.userText(id, on: connection) ?? "{}"), true)
            }
            let id = try await self.firstText("""
                INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
                                        raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
                VALUES (\(Self.instanceId)::uuid, gen_random_uuid(), 'authenticated', 'authenticated', \(email), \(hash),
                        CASE WHEN \(self.autoconfirm) THEN now() END, '{"provider":"email","providers":["email"]}'::jsonb,
                        \(metadata)::jsonb, now(), now())
                RETURNING id::text
                """, on: connection) ?? ""
            if self.autoconfirm {
                return (.body(status: 200, text: try await self.issueSession(userId: id, method: "password", on: connection)), false)
            }
            try await self.storeCode(userId: id, email: email, type: "confirmation_token", hash: codeHash, on: connection)
            return (.body(status: 200, text: try await self.userText(id, on: connection) ?? "{}"), true)
        }
        if mailed { state.withLock { $0.codes[email] = code } }
        return answer
    }

    /// What GoTrue answers for an address that already has a confirmed account when confirmation
    /// is on (sanitizeUser): a made-up user with no identities.
    private static func obfuscatedUser(_ email: String) -> [String: Any] {
        let now = ISO8601DateFormatter().string(from: Date())
        return ["id": UUID().uuidString.lowercased(), "aud": "authenticated", "role": "", "email": email, "phone": "",
                "confirmation_sent_at": now, "app_metadata": ["provider": "email", "providers": ["email"]], "user_metadata": [:] as [String: Any],
                "identities": [] as [Any], "created_at": now, "updated_at": now, "is_anonymous": false]
    }

    /// `POST /auth/v1/token?grant_type=password` (internal/api/token.go ResourceOwnerPasswordGrant).
    private func passwordGrant(_ request: RecordedRequest) async throws -> FakeResponse {
        let body = try body(request)
        let email = (body["email"] as? String ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        let password = body["password"] as? String ?? ""
        guard !email.isEmpty else { throw AuthRefusal(400, "validation_failed", "missing email or phone") }
        let text = try await transaction { connection -> String in
            let rows = try await connection.query("""
                SELECT id::text, coalesce(encrypted_password = \(unescaped: self.pgcrypto).crypt(\(password), encrypted_password), false),
                       email_confirmed_at IS NOT NULL
                FROM auth.users WHERE lower(email) = \(email)
                """, logger: self.logger).collect()
            guard let row = rows.first else { throw AuthRefusal.invalidLogin }
            let (id, matches, confirmed) = try row.decode((String, Bool, Bool).self)
            guard matches else { throw AuthRefusal.invalidLogin }
            guard confirmed else { throw AuthRefusal(400, "email_not_confirmed", "Email not confirmed") }
            try await self.become("supabase_auth_admin", claims: "", on: connection)
            return try await self.issueSession(userId: id, method: "password", on: connection)
        }
        return .body(status: 200, text: text)
    }

    /// `POST /auth/v1/token?grant_type=refresh_token` (internal/tokens/service.go RefreshTokenGrant).
    ///
    /// The presented token is revoked and a new one, its child, issued in the same session. A
    /// revoked token presented again revokes every token of its session and is refused. Real
    /// GoTrue is kinder: it hands back the active child when the parent comes again, and lets a
    /// revoked token be reused for GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL (10 s). This
    /// fake is strict (reuse interval 0), so that two processes refreshing the same token at once
    /// end the session here — which is what the client's lock around refreshing must prevent.
    /// The token row is locked (`SELECT … FOR UPDATE`), so of two concurrent refreshes one waits
    /// for the other and then finds its token spent.
    private func refreshGrant(_ request: RecordedRequest) async throws -> FakeResponse {
        let body = try body(request)
        guard let token = body["refresh_token"] as? String, !token.isEmpty else {
            throw OAuthRefusal(error: "invalid_request", description: "refresh_token required")
        }
        let outcome = try await transaction { connection -> Result<String, AuthRefusal> in
            try await self.become("supabase_auth_admin", claims: "", on: connection)
            let rows = try await connection.query("""
                SELECT id, coalesce(user_id, ''), coalesce(revoked, false), session_id::text
                FROM auth.refresh_tokens WHERE token = \(token) FOR UPDATE
                """, logger: self.logger).collect()
            guard let row = rows.first else {
                throw AuthRefusal(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
            }
            let (id, userId, revoked, session) = try row.decode((Int64, String, Bool, String?).self)
            guard let session, try await self.firstText("SELECT id::text FROM auth.sessions WHERE id = \(session)::uuid FOR UPDATE",
                                                        on: connection) != nil else {
                throw AuthRefusal(400, "session_not_found", "Invalid Refresh Token: No Valid Session Found")
            }
            if revoked {
                // Spent before: someone else has this token. The whole session goes (committed).
                try await connection.query("""
                    UPDATE auth.refresh_tokens SET revoked = true, updated_at = now() WHERE session_id = \(session)::uuid AND revoked = false
                    """, logger: self.logger)
                return .failure(AuthRefusal(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used"))
            }
            try await connection.query("UPDATE auth.refresh_tokens SET revoked = true, updated_at = now() WHERE id = \(id)",
                                       logger: self.logger)
            let next = Self.randomRefreshToken()
            try await connection.query("""
                INSERT INTO auth.refresh_tokens (token, user_id, revoked, parent, session_id, created_at, updated_at)
                VALUES (\(next), \(userId), false, \(token), \(session)::uuid, now(), now())
                """, logger: self.logger)
            try await connection.query("UPDATE auth.sessions SET updated_at = now() WHERE id = \(session)::uuid", logger: self.logger)
            return .success(try await self.sessionText(userId: userId, sessionId: session, refreshToken: next, method: "password",
                                                       on: connection))
        }
        switch outcome {
        case let .success(text): return .body(status: 200, text: text)
        case let .failure(refusal): throw refusal
        }
    }

    // MARK: One-time codes

    /// `POST /auth/v1/otp` with an email (internal/api/otp.go, magic_link.go): mails a 6-digit
    /// code. An unknown address with `create_user` false is refused; with it true (GoTrue's
    /// default) the user is made, unconfirmed unless autoconfirm. GoTrue's 60-second wait
    /// between two mails to one address (over_email_send_rate_limit) is left out.
    private func sendCode(_ request: RecordedRequest) async throws -> FakeResponse {
        let body = try body(request)
        let email = try email(body["email"])
        let createUser = body["create_user"] as? Bool ?? true
        let code = Self.randomCode()
        try await transaction { connection in
            let codeHash = try await self.codeHash(email: email, code: code, on: connection)
            try await self.become("supabase_auth_admin", claims: "", on: connection)
            let rows = try await connection.query("""
                SELECT id::text, email_confirmed_at IS NOT NULL FROM auth.users WHERE lower(email) = \(email) FOR UPDATE
                """, logger: self.logger).collect()
            let user: (id: String, confirmed: Bool)
            if let row = rows.first {
                user = try row.decode((String, Bool).self)
            } else {
                guard createUser else { throw AuthRefusal(422, "otp_disabled", "Signups not allowed for otp") }
                let id = try await self.firstText("""
                    INSERT INTO auth.users (instance_id, id, aud, role, email, email_confirmed_at, raw_app_meta_data, raw_user_meta_data,
                                            created_at, updated_at)
                    VALUES (\(Self.instanceId)::uuid, gen_random_uuid(), 'authenticated', 'authenticated', \(email),
                            CASE WHEN \(self.autoconfirm) THEN now() END, '{"provider":"email","providers":["email"]}'::jsonb, '{}'::jsonb,
                            now(), now())
                    RETURNING id::text
                    """, on: connection) ?? ""
                user = (id, self.autoconfirm)
            }
            // A confirmed user gets a magic-link code (recovery_token), an unconfirmed one a confirmation.
            try await self.storeCode(userId: user.id, email: email, type: user.confirmed ? "recovery_token" : "confirmation_token",
                                     hash: codeHash, on: connection)
        }
        state.withLock { $0.codes[email] = code }
        return .json(200, [:] as [String: Any])
    }

    /// `POST /auth/v1/verify` with an email and a code (internal/api/verify.go): the code works
    /// once, within the hour; it confirms the address and starts a session.
    private func verifyCode(_ request: RecordedRequest) async throws -> FakeResponse {
        let body = try body(request)
        let type = body["type"] as? String ?? ""
        guard !type.isEmpty else { throw AuthRefusal(400, "validation_failed", "Verify requires a verification type") }
        let code = body["token"] as? String ?? ""
        guard !code.isEmpty else { throw AuthRefusal(400, "validation_failed", "Verify requires either a token or a token hash") }
        let email: String
        do { email = try self.email(body["email"]) } catch {
            throw AuthRefusal(422, "validation_failed", "Invalid email format")
        }
        let types: [String]
        switch type {
        case "email": types = ["confirmation_token", "recovery_token"]
        case "signup", "invite": types = ["confirmation_token"]
        case "magiclink", "recovery": types = ["recovery_token"]
        default: throw AuthRefusal(400, "validation_failed", "Unsupported verification type")
        }
        let text = try await transaction { connection -> String in
            let codeHash = try await self.codeHash(email: email, code: code, on: connection)
            try await self.become("supabase_auth_admin", claims: "", on: connection)
            guard let id = try await self.firstText("SELECT id::text FROM auth.users WHERE lower(email) = \(email) FOR UPDATE",
                                                    on: connection) else {
                throw AuthRefusal.badCode
            }
            let used = try await connection.query("""
                DELETE FROM auth.one_time_tokens
                WHERE user_id = \(id)::uuid AND token_type = ANY(\(types)) AND token_hash = \(codeHash)
                  AND created_at > now() - \(Self.codeLifetime)::interval
                RETURNING token_type
                """, logger: self.logger).collect()
            guard !used.isEmpty else { throw AuthRefusal.badCode }
            try await connection.query("""
                UPDATE auth.users SET email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now() WHERE id = \(id)::uuid
                """, logger: self.logger)
            return try await self.issueSession(userId: id, method: "otp", on: connection)
        }
        return .body(status: 200, text: text)
    }

    /// GoTrue's token hash of a mailed code (internal/crypto GenerateTokenHash): SHA-224 of the address and the code, in hex.
    private func codeHash(email: String, code: String, on connection: PostgresConnection) async throws -> String {
        try await firstText("SELECT encode(\(unescaped: pgcrypto).digest(\(email + code), 'sha224'), 'hex')", on: connection) ?? ""
    }

    /// Keeps the one code of this kind a user has (a new one replaces the last), hashed.
    private func storeCode(userId: String, email: String, type: String, hash: String, on connection: PostgresConnection) async throws {
        try await connection.query("""
            INSERT INTO auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to, created_at)
            VALUES (gen_random_uuid(), \(userId)::uuid, \(type), \(hash), \(email), now())
            ON CONFLICT (user_id, token_type) DO UPDATE
                SET token_hash = EXCLUDED.token_hash, relates_to = EXCLUDED.relates_to, created_at = EXCLUDED.created_at
            """, logger: logger)
    }

    // MARK: Signed-in requests

    /// `POST /auth/v1/logout` (internal/api/logout.go): ends the user's sessions (scope global,
    /// the default), this one (local) or the others; their refresh tokens go with them. 204.
    private func logOut(_ request: RecordedRequest) async throws -> FakeResponse {
        let scope = request.query["scope"] ?? "global"
        guard ["global", "local", "others"].contains(scope) else {
            throw AuthRefusal(400, "validation_failed", "Unsupported logout scope \"\(scope)\"")
        }
        let caller = try await signedIn(request)
        try await transaction { connection in
            try await self.become("supabase_auth_admin", claims: "", on: connection)
            switch (scope, caller.sessionId) {
            case let ("local", session?):
                try await connection.query("DELETE FROM auth.sessions WHERE id = \(session)::uuid", logger: self.logger)
            case let ("others", session?):
                try await connection.query("DELETE FROM auth.sessions WHERE id <> \(session)::uuid AND user_id = \(caller.userId)::uuid",
                                           logger: self.logger)
            default:
                try await connection.query("DELETE FROM auth.sessions WHERE user_id = \(caller.userId)::uuid", logger: self.logger)
            }
        }
        return .bytes(status: 204, data: Data(), contentType: "")
    }

    /// `GET /auth/v1/user`: the signed-in user.
    private func currentUser(_ request: RecordedRequest) async throws -> FakeResponse {
        let caller = try await signedIn(request)
        let text = try await transaction { connection in try await self.userText(caller.userId, on: connection) ?? "{}" }
        return .body(status: 200, text: text)
    }

    /// Who the bearer token says is asking, checked as GoTrue's requireAuthentication does
    /// (internal/api/auth.go): a valid token, its user, and its session still there.
    private func signedIn(_ request: RecordedRequest) async throws -> (userId: String, sessionId: String?) {
        guard let token = Self.bearer(request), !token.isEmpty else {
            throw AuthRefusal(401, "no_authorization", "This endpoint requires a valid Bearer token")
        }
        let claims: Claims
        switch verify(token) {
        case let .success(valid): claims = valid
        case let .failure(problem):
            // golang-jwt's words for what went wrong.
            let why = switch problem {
            case .expired: "token has invalid claims: token is expired"
            case .signature: "token signature is invalid: signature is invalid"
            case let .algorithm(name): "token signature is invalid: signing method \(name) is invalid"
            case .empty, .parts, .malformed: "token is malformed: token contains an invalid number of segments"
            }
            throw AuthRefusal(403, "bad_jwt", "invalid JWT: unable to parse or verify signature, \(why)")
        }
        guard let sub = claims.sub, !sub.isEmpty else { throw AuthRefusal(403, "bad_jwt", "invalid claim: missing sub claim") }
        guard UUID(uuidString: sub) != nil else { throw AuthRefusal(400, "bad_jwt", "invalid claim: sub claim must be a UUID") }
        let session = claims.sessionId.flatMap { $0.isEmpty ? nil : $0 }
        if let session, UUID(uuidString: session) == nil {
            throw AuthRefusal(403, "bad_jwt", "invalid claim: session_id claim must be a UUID")
        }
        try await transaction { connection in
            guard try await self.firstText("SELECT id::text FROM auth.users WHERE id = \(sub)::uuid", on: connection) != nil else {
                throw AuthRefusal(403, "user_not_found", "User from sub claim in JWT does not exist")
            }
            if let session, try await self.firstText("SELECT id::text FROM auth.sessions WHERE id = \(session)::uuid",
                                                     on: connection) == nil {
                throw AuthRefusal(403, "session_not_found", "Session from session_id claim in JWT does not exist")
            }
        }
        return (sub, session)
    }

    // MARK: Sessions

    /// A new session with its first refresh token; the answer's JSON text (GoTrue's AccessTokenResponse).
    private func issueSession(userId: String, method: String, on connection: PostgresConnection) async throws -> String {
        let session = try await firstText("""
            INSERT INTO auth.sessions (id, user_id, created_at, updated_at) VALUES (gen_random_uuid(), \(userId)::uuid, now(), now())
            RETURNING id::text
            """, on: connection) ?? ""
        let refreshToken = Self.randomRefreshToken()
        try await connection.query("""
            INSERT INTO auth.refresh_tokens (token, user_id, revoked, session_id, created_at, updated_at)
            VALUES (\(refreshToken), \(userId), false, \(session)::uuid, now(), now())
            """, logger: logger)
        return try await sessionText(userId: userId, sessionId: session, refreshToken: refreshToken, method: method, on: connection)
    }

    /// `{"access_token","token_type":"bearer","expires_in","expires_at","refresh_token","user"}`
    /// with a fresh access token: HS256, claims as GoTrue's AccessTokenClaims (sub, email, role,
    /// aud, exp, iat, session_id, aal, amr, metadata).
    private func sessionText(userId: String, sessionId: String, refreshToken: String, method: String,
                             on connection: PostgresConnection) async throws -> String {
        guard let text = try await userText(userId, on: connection),
              let user = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw AuthRefusal(403, "user_not_found", "User from sub claim in JWT does not exist")
        }
        let seconds = accessTokenSeconds
        // Rounded, not truncated: a 1-second token then lives 0.5–1.5 s, never next to nothing.
        let issued = Int(Date().timeIntervalSince1970.rounded())
        let expires = issued + seconds
        let role = (user["role"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "authenticated"
        let audience = (user["aud"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "authenticated"
        let claims: [String: Any] = [
            "iss": baseURL + "/auth/v1", "sub": userId, "aud": audience, "exp": expires, "iat": issued,
            "email": user["email"] as? String ?? "", "phone": "", "role": role,
            "app_metadata": user["app_metadata"] ?? [:] as [String: Any], "user_metadata": user["user_metadata"] ?? [:] as [String: Any],
            "aal": "aal1", "amr": [["method": method, "timestamp": issued]], "session_id": sessionId, "is_anonymous": false,
        ]
        return jsonText([
            "access_token": sign(claims), "token_type": "bearer", "expires_in": seconds, "expires_at": expires,
            "refresh_token": refreshToken, "user": user,
        ] as [String: Any])
    }

    /// The user's JSON text, nil when there is no such user.
    private func userText(_ id: String, on connection: PostgresConnection) async throws -> String? {
        try await firstText("SELECT \(unescaped: Self.userJSON) FROM auth.users u WHERE u.id = \(id)::uuid", on: connection)
    }

    /// A refresh token as GoTrue makes one (crypto.SecureAlphanumeric(12)): 12 base32 letters and digits.
    static func randomRefreshToken() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var generator = SystemRandomNumberGenerator()
        return String((0..<12).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// A 6-digit one-time code (GOTRUE_MAILER_OTP_LENGTH's default).
    static func randomCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = Int.random(in: 0..<1_000_000, using: &generator)
        let digits = String(value)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }
}
