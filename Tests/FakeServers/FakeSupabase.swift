import Crypto
import Foundation
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// A Supabase project's HTTP APIs on 127.0.0.1 for tests: Auth (`/auth/v1`), PostgREST's RPC
/// (`/rest/v1/rpc`) and Storage (`/storage/v1`, with tus resumable uploads), over a real Postgres
/// that has `supabaseShapeSQL` and the diary's server script applied. Rows live in the database
/// (auth.users, auth.sessions, auth.refresh_tokens, auth.one_time_tokens, storage.objects), so
/// triggers, grants and row-level security decide as they would on a project; object bytes live
/// in a temporary folder of its own. Statuses and error bodies follow the real servers
/// (supabase/auth, PostgREST, supabase/storage with tus-node-server); where this fake is
/// stricter or simpler than they are, a comment says so.
public final class FakeSupabase: Sendable {
    /// A JWT (HS256, signed with the project's secret) with role "anon", like a project's anon key.
    public let anonKey: String
    /// A JWT with role "service_role", like a project's service key (the role bypasses row-level security).
    public let serviceRoleKey: String

    let jwtSecret: [UInt8]
    let autoconfirm: Bool
    let database: PostgresClient
    let logger: Logger
    /// The schema pgcrypto lives in, quoted, for crypt(), gen_salt() and digest().
    let pgcrypto: String
    /// Where object bytes and partial uploads are kept; removed by shutdown().
    let folder: URL

    private let pool: Task<Void, Never>
    private let http = Mutex<FakeHTTPServer?>(nil)
    private let stopped = Mutex(false)
    let state = Mutex(State())

    /// What the fake remembers between requests besides the database.
    struct State {
        var accessTokenSeconds = 3600
        var jwtLeewaySeconds = 0
        /// The last one-time code "mailed" to each address (lowercased).
        var codes: [String: String] = [:]
        /// tus uploads by id, finished ones included (a HEAD still reports their offset).
        var uploads: [String: ResumableUpload] = [:]
        /// PostgREST's schema cache: the functions found, by schema, name and argument names.
        var procedures: [String: Procedure] = [:]
    }

    /// "http://127.0.0.1:PORT"
    public var baseURL: String { http.withLock { $0?.baseURL } ?? "http://127.0.0.1:0" }

    /// Lifetime of access tokens issued from now on, in seconds (default 3600); tests set 1–2 to force refreshes.
    public var accessTokenSeconds: Int {
        get { state.withLock { $0.accessTokenSeconds } }
        set { state.withLock { $0.accessTokenSeconds = newValue } }
    }

    /// How long past its `exp` PostgREST still takes a JWT, in seconds. Real PostgREST allows 30
    /// (since v11.0.1, PostgREST#1139); this fake defaults to 0 so that tests with 1–2 second
    /// tokens see them refused at once. Auth and Storage allow none, as the real ones do.
    public var jwtLeewaySeconds: Int {
        get { state.withLock { $0.jwtLeewaySeconds } }
        set { state.withLock { $0.jwtLeewaySeconds = newValue } }
    }

    /// The last one-time code "mailed" to that address (6 digits), by signup or `POST /auth/v1/otp`.
    public func lastCode(for email: String) -> String? { state.withLock { $0.codes[email.lowercased()] } }

    /// Every request, as FakeHTTPServer records them (complete bodies, in arrival order).
    public var requests: [RecordedRequest] { http.withLock { $0?.requests } ?? [] }

    private init(anonKey: String, serviceRoleKey: String, jwtSecret: [UInt8], autoconfirm: Bool, database: PostgresClient,
                 pool: Task<Void, Never>, logger: Logger, pgcrypto: String, folder: URL) {
        self.anonKey = anonKey
        self.serviceRoleKey = serviceRoleKey
        self.jwtSecret = jwtSecret
        self.autoconfirm = autoconfirm
        self.database = database
        self.pool = pool
        self.logger = logger
        self.pgcrypto = pgcrypto
        self.folder = folder
    }

    /// Starts on 127.0.0.1 (free port) over the database at `databaseURL` — a superuser URL like
    /// postgres://user@127.0.0.1:PORT/dbname (trust auth, maybe with password) that already has
    /// supabaseShapeSQL and the diary's server script applied. It may `CREATE EXTENSION IF NOT EXISTS pgcrypto`.
    public static func start(databaseURL: String, jwtSecret: String = "fake-supabase-jwt-secret-for-tests-only",
                             autoconfirm: Bool = true) async throws -> FakeSupabase {
        var logger = Logger(label: "FakeSupabase")
        logger.logLevel = .critical
        let target = try DatabaseTarget(databaseURL)
        // One plain connection first: a wrong address fails here at once (a pool would keep
        // retrying), and pgcrypto is made sure of before anything needs it.
        let first = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(),
            configuration: .init(host: target.host, port: target.port, username: target.user, password: target.password,
                                 database: target.database, tls: .disable),
            id: 1, logger: logger)
        let pgcrypto: String
        do {
            try await first.query("CREATE EXTENSION IF NOT EXISTS pgcrypto", logger: logger)
            let rows = try await first.query("""
                SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                WHERE e.extname = 'pgcrypto'
                """, logger: logger).collect()
            pgcrypto = try rows.first?.decode(String.self) ?? "public"
            try await first.close()
        } catch {
            try? await first.close()
            throw error
        }

        var configuration = PostgresClient.Configuration(host: target.host, port: target.port, username: target.user,
                                                         password: target.password, database: target.database, tls: .disable)
        configuration.options.maximumConnections = 16
        let database = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let pool = Task { await database.run() }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fake-supabase-\(UUID().uuidString)")
        let secret = Array(jwtSecret.utf8)
        let issued = Int(Date().timeIntervalSince1970)
        let tenYears = 10 * 365 * 86_400
        let fake = FakeSupabase(
            anonKey: JWT.sign(["iss": "supabase", "ref": "fake", "role": "anon", "iat": issued, "exp": issued + tenYears], secret: secret),
            serviceRoleKey: JWT.sign(["iss": "supabase", "ref": "fake", "role": "service_role", "iat": issued, "exp": issued + tenYears],
                                     secret: secret),
            jwtSecret: secret, autoconfirm: autoconfirm, database: database, pool: pool, logger: logger, pgcrypto: pgcrypto,
            folder: folder)
        do {
            for sub in ["objects", "uploads", "staging"] {
                try FileManager.default.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
            }
            // Weak: the server's handler must not keep the fake alive after the test lets it go.
            let server = try await FakeHTTPServer.start { [weak fake] request in
                guard let fake else { return .body(status: 503, text: #"{"message":"FakeSupabase is gone"}"#) }
                return await fake.handle(request)
            }
            fake.http.withLock { $0 = server }
        } catch {
            try? await fake.shutdown()
            throw error
        }
        return fake
    }

    /// Stops the HTTP server, closes the database connections and removes the object folder.
    public func shutdown() async throws {
        guard stopped.withLock({ done in defer { done = true }; return !done }) else { return }
        let server = http.withLock { $0 }
        var failure: (any Error)?
        do { try await server?.shutdown() } catch { failure = error }
        pool.cancel()
        await pool.value
        try? FileManager.default.removeItem(at: folder)
        if let failure { throw failure }
    }

    // A test that lets the fake go without shutdown() still gets its connections, port and folder back.
    deinit {
        guard stopped.withLock({ done in defer { done = true }; return !done }) else { return }
        pool.cancel()
        if let server = http.withLock({ $0 }) { Task { try? await server.shutdown() } }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Deletes an auth user as Auth's admin API does (`DELETE /auth/v1/admin/users/{id}`): as
    /// supabase_auth_admin, with a service_role JWT's claims, so triggers on auth.users (the
    /// diary's own, which removes the person's data) run as they would on a project. Returns
    /// whether there was such a user.
    @discardableResult
    public func deleteUser(id: String) async throws -> Bool {
        guard UUID(uuidString: id) != nil else { return false }
        return try await transaction { connection in
            try await self.become("supabase_auth_admin", claims: #"{"role":"service_role"}"#, on: connection)
            let rows = try await connection.query("DELETE FROM auth.users WHERE id = \(id)::uuid RETURNING id::text",
                                                  logger: self.logger).collect()
            return !rows.isEmpty
        }
    }

    // MARK: Routing

    /// Answers one request: the gateway's API key check, then Auth, PostgREST or Storage.
    func handle(_ request: RecordedRequest) async -> FakeResponse {
        // Kong, in front of every Supabase API, wants the project's key (header or query parameter).
        guard let key = request.header("apikey") ?? request.query["apikey"], !key.isEmpty else {
            return .json(401, ["message": "No API key found in request", "hint": "No `apikey` request header or url param was found."])
        }
        guard key == anonKey || key == serviceRoleKey else {
            return .json(401, ["message": "Invalid API key", "hint": "Double check your Supabase `anon` or `service_role` API key."])
        }
        let path = request.path
        do {
            if path.hasPrefix("/auth/v1/") { return try await auth(request, route: String(path.dropFirst("/auth/v1".count))) }
            if path.hasPrefix("/rest/v1/") { return try await rest(request, route: String(path.dropFirst("/rest/v1".count))) }
            if path.hasPrefix("/storage/v1/") { return try await storage(request, route: String(path.dropFirst("/storage/v1".count))) }
            return .json(404, ["message": "no Route matched with those values"])
        } catch let answer as Answer {
            return answer.response
        } catch {
            // Nothing a client should meet (the database gone, a bug here): said plainly, so a failing test shows why.
            return .json(500, ["message": "FakeSupabase failed: \(String(reflecting: error))"])
        }
    }

    // MARK: Database

    /// Runs `body` in one transaction on a pooled connection: committed when it returns, rolled back when it throws.
    func transaction<Value: Sendable>(_ body: (PostgresConnection) async throws -> Value) async throws -> Value {
        try await database.withConnection { connection in
            try await connection.query("BEGIN", logger: self.logger)
            do {
                let value = try await body(connection)
                try await connection.query("COMMIT", logger: self.logger)
                return value
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: self.logger)
                throw error
            }
        }
    }

    /// Acts as `role` with these JWT claims for the rest of the transaction, the way PostgREST and
    /// Storage do it (`set_config('role', …, true)` is `SET LOCAL ROLE` with a bind parameter),
    /// with any other `settings` in the same statement, as PostgREST sends them all at once.
    func become(_ role: String, claims: String, sub: String? = nil, settings: KeyValuePairs<String, String> = [:],
                on connection: PostgresConnection) async throws {
        var binds = PostgresBindings()
        var calls: [String] = []
        for (name, value) in [("role", role), ("request.jwt.claims", claims), ("request.jwt.claim.sub", sub ?? ""),
                              ("request.jwt.claim.role", role)] + settings.map({ ($0.key, $0.value) }) {
            binds.append(name)
            binds.append(value)
            calls.append("set_config($\(binds.count - 1), $\(binds.count), true)")
        }
        try await connection.query(PostgresQuery(unsafeSQL: "SELECT " + calls.joined(separator: ", "), binds: binds), logger: logger)
    }

    /// The first column of the first row as text, nil when there is no row or it is NULL.
    func firstText(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> String? {
        let rows = try await connection.query(query, logger: logger).collect()
        guard let row = rows.first else { return nil }
        return try row.decode(String?.self)
    }

    // MARK: Tokens

    /// A new HS256 JWT with these claims, signed with the project's secret.
    func sign(_ claims: [String: Any]) -> String { JWT.sign(claims, secret: jwtSecret) }

    /// Whether a request's bearer is a live access token of this project (as an operator's
    /// gateway checks it with the project's JWT secret).
    public func acceptsAccessToken(_ token: String) -> Bool {
        if case let .success(claims) = verify(token), claims.role == "authenticated" { return true }
        return false
    }

    /// The claims of a token signed with the project's secret, or why it is refused.
    func verify(_ token: String, leeway: Int = 0) -> Result<Claims, JWT.Problem> {
        JWT.verify(token, secret: jwtSecret, leeway: leeway)
    }

    /// The bearer token of the Authorization header, nil when there is none.
    static func bearer(_ request: RecordedRequest) -> String? {
        guard let value = request.header("authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}

/// A finished answer thrown from deep inside a handler (rolling back any transaction on the way).
struct Answer: Error {
    let response: FakeResponse
    init(_ response: FakeResponse) { self.response = response }
}

extension FakeResponse {
    /// A JSON answer (JSONSerialization-compatible value).
    static func json(_ status: Int, _ value: Any, headers: [(String, String)] = [],
                     contentType: String = "application/json") -> FakeResponse {
        .body(status: status, text: jsonText(value), contentType: contentType, headers: headers)
    }
}

/// The JSON object of a request body; an empty body is an empty object, anything else is nil.
func jsonObject(_ data: Data) -> [String: Any]? {
    if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [:] }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

/// Where the database is, read from a postgres:// URL.
struct DatabaseTarget {
    var host: String
    var port: Int
    var user: String
    var password: String?
    var database: String

    init(_ url: String) throws {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
              let user = parts.user, !user.isEmpty else {
            throw FakeSupabaseError.badDatabaseURL
        }
        host = parts.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = parts.port ?? 5432
        self.user = user
        password = parts.password
        let name = String(parts.path.drop { $0 == "/" })
        database = name.isEmpty ? user : name
    }
}

public enum FakeSupabaseError: Error, Sendable {
    /// The database URL is not postgres://user[:password]@host[:port]/database.
    case badDatabaseURL
}

// MARK: - JSON Web Tokens

/// A verified JWT's claims, as the fake uses them.
struct Claims: Sendable {
    /// The payload as it came, for `request.jwt.claims`.
    var json: String
    /// The database role to act as ("anon" when the token names none, as PostgREST does).
    var role: String
    var sub: String?
    var email: String?
    var sessionId: String?
}

/// HS256 JSON Web Tokens (RFC 7519) signed with the project's secret, as Supabase issues them.
enum JWT {
    /// Why a token is refused; each API words it its own way.
    enum Problem: Error, Equatable {
        case empty
        case parts(Int)
        case algorithm(String)
        case signature
        case malformed
        case expired
    }

    static func sign(_ claims: [String: Any], secret: [UInt8]) -> String {
        let header = base64URL(Data(jsonText(["alg": "HS256", "typ": "JWT"]).utf8))
        let payload = base64URL(Data(jsonText(claims).utf8))
        let input = header + "." + payload
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: secret))
        return input + "." + base64URL(Data(mac))
    }

    /// The claims if the token is well formed, HS256, signed with `secret` and not past `exp` (+ `leeway` seconds).
    static func verify(_ token: String, secret: [UInt8], leeway: Int = 0) -> Result<Claims, Problem> {
        if token.isEmpty { return .failure(.empty) }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .failure(.parts(parts.count)) }
        guard let headerData = base64URLDecode(parts[0]),
              let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any] else {
            return .failure(.malformed)
        }
        let algorithm = header["alg"] as? String ?? ""
        guard algorithm == "HS256" else { return .failure(.algorithm(algorithm)) }
        guard let signature = base64URLDecode(parts[2]),
              HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data("\(parts[0]).\(parts[1])".utf8),
                                                     using: SymmetricKey(data: secret)) else {
            return .failure(.signature)
        }
        guard let payloadData = base64URLDecode(parts[1]),
              let payload = (try? JSONSerialization.jsonObject(with: payloadData)) as? [String: Any] else {
            return .failure(.malformed)
        }
        if let exp = number(payload["exp"]), Date().timeIntervalSince1970 >= exp + Double(leeway) {
            return .failure(.expired)
        }
        let role = (payload["role"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "anon"
        return .success(Claims(json: String(decoding: payloadData, as: UTF8.self), role: role, sub: payload["sub"] as? String,
                               email: payload["email"] as? String, sessionId: payload["session_id"] as? String))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URLDecode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// A JSON number as JSONSerialization hands it over (NSNumber, Int or Double), nil for anything else.
func number(_ value: Any?) -> Double? {
    switch value {
    case let value as Int: return Double(value)
    case let value as Double: return value
    case let value as NSNumber: return value.doubleValue
    default: return nil
    }
}

/// Lowercase hexadecimal digits of some bytes.
func hex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
}

// MARK: - PostgREST (/rest/v1)

extension FakeSupabase {
    /// The schemas PostgREST exposes (PGRST_DB_SCHEMAS): Supabase's public and the diary's own.
    static let exposedSchemas = ["public", "diary"]

    /// One function of pg_proc as PostgREST's schema cache sees it: its IN parameters and what it returns.
    struct Procedure: Sendable {
        var names: [String]
        var types: [String]
        /// How many of the last parameters have defaults.
        var defaults: Int
        var returnsSet: Bool
        var returnType: String

        var required: ArraySlice<String> { names.prefix(names.count - defaults) }
    }

    /// `POST /rest/v1/rpc/{function}` (and `GET` with the arguments in the query): the function in
    /// the schema of Content-Profile (Accept-Profile for GET, public by default), run in one
    /// transaction as the role of the request's JWT with its claims in `request.jwt.claims`,
    /// as PostgREST does. Arguments go in as bind parameters, each cast to its parameter's type.
    func rest(_ request: RecordedRequest, route: String) async throws -> FakeResponse {
        guard route.hasPrefix("/rpc/") else {
            let table = route.drop { $0 == "/" }
            throw Self.restError(404, "PGRST205", "Could not find the table 'public.\(table)' in the schema cache")
        }
        let function = String(route.dropFirst("/rpc/".count))
        guard ["POST", "GET", "HEAD"].contains(request.method) else {
            throw Self.restError(405, "PGRST101", "Cannot use the \(request.method) method on RPC")
        }
        let reading = request.method != "POST"
        let schema = request.header(reading ? "accept-profile" : "content-profile") ?? "public"
        guard Self.exposedSchemas.contains(schema) else {
            throw Self.restError(406, "PGRST106", "Invalid schema: \(schema)",
                                 hint: "Only the following schemas are exposed: " + Self.exposedSchemas.joined(separator: ", "))
        }
        let claims = try restClaims(request)
        // The arguments as one JSON object: the body, or the query's values as strings.
        let argumentsText: String
        let keys: Set<String>
        if reading {
            // The key may come as a query parameter too; it is the gateway's, not an argument.
            let query = request.query.filter { $0.key != "apikey" }
            argumentsText = jsonText(query)
            keys = Set(query.keys)
        } else {
            guard let object = jsonObject(request.body) else { throw Self.restError(400, "PGRST102", "Empty or invalid json") }
            argumentsText = request.body.isEmpty || object.isEmpty ? "{}" : request.bodyText
            keys = Set(object.keys)
        }
        let notFound = Self.noFunction(schema: schema, function: function, keys: keys)
        guard function.range(of: "^[a-z_][a-z0-9_]*$", options: .regularExpression) != nil else { throw notFound }
        guard let procedure = try await procedure(schema: schema, function: function, keys: keys) else { throw notFound }

        // Every argument is read from the one JSON bind ($1) by its name (a bind too) and cast.
        var binds = PostgresBindings()
        binds.append(argumentsText)
        var arguments: [String] = []
        for (name, type) in zip(procedure.names, procedure.types) where keys.contains(name) {
            binds.append(name)
            let value = "($1::jsonb -> $\(binds.count))"
            let expression: String
            if reading {
                expression = "($1::jsonb ->> $\(binds.count))::\(type)"
            } else if type == "jsonb" || type == "json" {
                expression = "nullif(\(value), 'null'::jsonb)::\(type)"
            } else if type.hasSuffix("[]") {
                expression = """
                    (CASE WHEN jsonb_typeof(\(value)) = 'null' THEN NULL
                          ELSE ARRAY(SELECT e FROM jsonb_array_elements_text(\(value)) WITH ORDINALITY AS a(e, n) ORDER BY n) END)::\(type)
                    """
            } else {
                expression = "($1::jsonb ->> $\(binds.count))::\(type)"
            }
            arguments.append("\(Self.quoted(name)) => \(expression)")
        }
        let call = "\(Self.quoted(schema)).\(Self.quoted(function))(\(arguments.joined(separator: ", ")))"
        let sql: String
        if procedure.returnType == "void" {
            sql = "SELECT (\(call))::text"
        } else if procedure.returnsSet {
            sql = "SELECT coalesce(jsonb_agg(to_jsonb(r)), '[]'::jsonb)::text FROM \(call) AS r"
        } else {
            sql = "SELECT to_jsonb(\(call))::text"
        }
        let headers = jsonText(Dictionary(request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }))
        do {
            let text = try await transaction { connection -> String? in
                try await self.become(claims.role, claims: claims.json, settings: [
                    "search_path": Self.quoted(schema) + ", public, extensions", "request.method": request.method,
                    "request.path": request.path, "request.headers": headers,
                ], on: connection)
                return try await self.firstText(PostgresQuery(unsafeSQL: sql, binds: binds), on: connection)
            }
            if procedure.returnType == "void" { return .bytes(status: 204, data: Data(), contentType: "") }
            return .body(status: 200, text: text ?? "null", contentType: "application/json; charset=utf-8")
        } catch let error as PSQLError {
            throw Self.restError(error, authenticated: claims.role != "anon")
        }
    }

    /// The claims PostgREST acts on: the bearer token's, or with none the API key's (the anon
    /// key: role anon). A bad token is PGRST301, an expired one PGRST303, both 401.
    private func restClaims(_ request: RecordedRequest) throws -> Claims {
        let token = Self.bearer(request) ?? request.header("apikey") ?? request.query["apikey"] ?? ""
        switch verify(token, leeway: jwtLeewaySeconds) {
        case let .success(claims):
            return claims
        case let .failure(problem):
            // Messages as PostgREST's JwtError (src/library/PostgREST/Error.hs).
            let (code, message) = switch problem {
            case .empty: ("PGRST301", "Empty JWT is sent in Authorization header")
            case let .parts(count): ("PGRST301", "Expected 3 parts in JWT; got \(count)")
            case .algorithm: ("PGRST301", "Wrong or unsupported encoding algorithm")
            case .signature: ("PGRST301", "JWT cryptographic operation failed")
            case .malformed: ("PGRST303", "Parsing claims failed")
            case .expired: ("PGRST303", "JWT expired")
            }
            throw Self.restError(401, code, message,
                                 headers: [("WWW-Authenticate", #"Bearer error="invalid_token", error_description="\#(message)""#)])
        }
    }

    /// The function PostgREST would pick: named so, in that schema, taking every key given as a
    /// named parameter and needing no other.
    private func procedure(schema: String, function: String, keys: Set<String>) async throws -> Procedure? {
        // PostgREST reads pg_proc into its schema cache once, not for every call; a function it
        // did not find is looked for again (a test may create it later).
        let cacheKey = ([schema, function] + keys.sorted()).joined(separator: "\u{0}")
        if let known = state.withLock({ $0.procedures[cacheKey] }) { return known }
        let rows = try await database.query("""
            SELECT array(SELECT coalesce(p.proargnames[a.n], '')
                         FROM generate_series(1, coalesce(array_length(p.proargmodes, 1), p.pronargs::int)) AS a(n)
                         WHERE p.proargmodes IS NULL OR p.proargmodes[a.n] IN ('i', 'b', 'v') ORDER BY a.n),
                   array(SELECT format_type(t.oid, NULL) FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS t(oid, n) ORDER BY t.n),
                   p.pronargdefaults::int, p.proretset, format_type(p.prorettype, NULL)
            FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace
            WHERE s.nspname = \(schema) AND p.proname = \(function) AND p.prokind = 'f'
            """, logger: logger).collect()
        for row in rows {
            let (names, types, defaults, returnsSet, returnType) = try row.decode(([String], [String], Int, Bool, String).self)
            let procedure = Procedure(names: names, types: types, defaults: defaults, returnsSet: returnsSet, returnType: returnType)
            if names.count == types.count, keys.isSubset(of: Set(names)), Set(procedure.required).isSubset(of: keys) {
                state.withLock { $0.procedures[cacheKey] = procedure }
                return procedure
            }
        }
        return nil
    }

    /// PGRST202, worded as PostgREST words it for a POST with a JSON body.
    private static func noFunction(schema: String, function: String, keys: Set<String>) -> Answer {
        let names = keys.sorted()
        let listed = names.joined(separator: ", ")
        let message = "Could not find the function \(schema).\(function)" + (names.isEmpty ? " without parameters" : "(\(listed))")
            + " in the schema cache"
        let searched = names.isEmpty ? " without parameters" : " with parameter\(names.count > 1 ? "s" : "") \(listed)"
        return restError(404, "PGRST202", message,
                         details: "Searched for the function \(schema).\(function)\(searched) or with a single unnamed json/jsonb parameter,"
                             + " but no matches were found in the schema cache.")
    }

    /// A PostgREST error: `{"code","details","hint","message"}`.
    static func restError(_ status: Int, _ code: String, _ message: String, details: String? = nil, hint: String? = nil,
                          headers: [(String, String)] = []) -> Answer {
        Answer(.json(status, ["code": code, "message": message, "details": details ?? NSNull(), "hint": hint ?? NSNull()] as [String: Any],
                     headers: headers, contentType: "application/json; charset=utf-8"))
    }

    /// A database error as PostgREST answers it: the SQLSTATE as the code, the status by its
    /// mapping (mapSQLtoHTTP in src/library/PostgREST/Error.hs), `WWW-Authenticate: Bearer` on 401.
    static func restError(_ error: PSQLError, authenticated: Bool) -> Answer {
        guard let info = error.serverInfo, let state = info[.sqlState] else {
            return restError(503, "PGRST001", "Database client error. Retrying the connection.")
        }
        let message = info[.message] ?? ""
        let status = httpStatus(sqlState: state, message: message, authenticated: authenticated)
        return restError(status, state, message, details: info[.detail], hint: info[.hint],
                         headers: status == 401 ? [("WWW-Authenticate", "Bearer")] : [])
    }

    /// PostgREST's HTTP status for a SQLSTATE (docs/references/errors.rst, "HTTP Status Codes").
    static func httpStatus(sqlState state: String, message: String, authenticated: Bool) -> Int {
        switch state {
        case "23503", "23505": return 409
        case "25006": return 405
        case "21000": return message.hasSuffix("requires a WHERE clause") ? 400 : 500
        case "22023": return message.hasPrefix("role") && message.hasSuffix("does not exist") ? 401 : 400
        case "53400": return 500
        case "57P01": return 503
        case "P0001": return 400
        case "42883": return message.hasPrefix("function xmlagg(") ? 406 : 404
        case "42P01": return 404
        case "42P17": return 500
        case "42501": return authenticated ? 403 : 401
        default: break
        }
        if state.hasPrefix("PT"), let status = Int(state.dropFirst(2)) { return status }
        switch state.prefix(2) {
        case "08": return 503
        case "09", "25", "2D", "38", "39", "3B", "40", "54", "55", "57", "58", "F0", "HV", "P0", "XX": return 500
        case "0L", "0P", "28": return 403
        case "53": return 503
        default: return 400
        }
    }

    /// A name as a quoted SQL identifier.
    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
