import Crypto
import DiaryKit
import DiarySeal
import SyncSession
import Foundation

/// The server's consent text in both languages, and its version.
package struct ServerConsent: Sendable, Equatable {
    package var version: Int
    var zhHant: String
    var en: String

    package func text(_ language: Language) -> String { language == .en ? en : zhHant }

    /// Read from the server's config value `consent`: `{"version", "zh-Hant", "en"}`.
    init?(json: JSON) {
        guard let zh = json["zh-Hant"]?.stringValue, let en = json["en"]?.stringValue else { return nil }
        self.init(version: json["version"]?.integerValue.flatMap { Int(exactly: $0) } ?? 1, zhHant: zh, en: en)
    }

    init(version: Int, zhHant: String, en: String) {
        self.version = version
        self.zhHant = zhHant
        self.en = en
    }
}

/// Setting a server up, adding people to it, and a device's login to it.
package enum Accounts {
    /// Installs or upgrades the diary tables, policies and functions on a server, in one
    /// transaction under a lock (two operators at once wait for each other).
    package static func initialiseServer(_ address: ServerAddress, password: String?) async throws -> Int {
        try await ServerConnection.with(address, password: password) { server in try await server.transaction { server in
            try await server.text("SELECT pg_advisory_xact_lock(7312004617)")
            var installed = 0
            if try await server.text("SELECT (to_regclass('diary.schema_migration') IS NOT NULL)::text") == "true" {
                installed = try await server.text("SELECT coalesce(max(version), 0)::text FROM diary.schema_migration").flatMap(Int.init) ?? 0
            }
            if installed > ServerSchema.version { throw SyncError.serverTooNew(installed) }
            for statement in SQLScript.statements(ServerSchema.script) {
                try await server.run(script: statement)
            }
            return ServerSchema.version
        } }
    }

    /// Creates a person's login on the server (the operator's job) and returns their user
    /// id. Only a SCRAM verifier of the password travels, so no server log can hold it.
    package static func addUser(_ address: ServerAddress, password: String?, name: String, newPassword: String) async throws -> String {
        guard name.wholeMatch(of: /[a-z][a-z0-9_]{0,62}/) != nil else { throw SyncError.badUserName(name) }
        let verifier = ScramVerifier.make(password: newPassword)
        do {
            return try await ServerConnection.with(address, password: password) { server in
                guard let userId = try await server.text("SELECT diary.add_user(\(name), \(verifier))::text") else {
                    throw SyncError.serverState("add_user")
                }
                return userId
            }
        } catch SyncError.userExists {
            throw SyncError.userExists(name)
        } catch SyncError.badUserName {
            throw SyncError.badUserName(name)
        }
    }

    /// A login's media limit (its own or the server's default; with no `user`, the default
    /// alone) and what its media take, after setting it when `limit` is given (`.some(nil)`
    /// removes it). Returns (limit, used); nil means none or not asked.
    package static func mediaQuota(_ address: ServerAddress, password: String?, user: String?,
                                   limit: Int64??) async throws -> (limit: Int64?, used: Int64?) {
        do {
            let answer = try await ServerConnection.with(address, password: password) { server in
                switch limit {
                case let .some(bytes): try await server.json("SELECT diary.set_media_quota(\(user), \(bytes))::text")
                case .none: try await server.json("SELECT diary.media_quota(\(user))::text")
                }
            }
            return (answer["limit"]?.integerValue, answer["used"]?.integerValue)
        } catch SyncError.noSuchAccount {
            throw SyncError.noSuchAccount(user ?? "")
        }
    }

    /// A password for a new login: 24 letters and digits (about 143 bits).
    package static func generatePassword() -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<24).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }

    /// Checks the login against the server: the person's user id and the consent text the
    /// server asks them to accept, if any.
    package static func verifyLogin(_ address: ServerAddress, password: String) async throws -> (userId: String, consent: ServerConsent?) {
        let (me, consentText) = try await ServerConnection.with(address, password: password) { server in
            (try await server.whoami(),
             try await server.text("SELECT value::text FROM diary.config WHERE key = 'consent'"))
        }
        guard let userId = me["user_id"]?.stringValue else { throw SyncError.permissionDenied }
        return (userId, consentText.flatMap { JSON.parse(Data($0.utf8)) }.flatMap(ServerConsent.init(json:)))
    }

    /// Checks a Supabase session against the server: the person must have a diary account
    /// (made when they signed up); their user id and the consent text, if any.
    package static func verifySession(_ session: SupabaseSession, paths: DiaryPaths) async throws -> (userId: String, consent: ServerConsent?) {
        let me = try await SupabaseServer(SupabaseTokens(session, paths: paths, saved: false)).whoami()
        guard let userId = me["user_id"]?.stringValue else { throw SyncError.permissionDenied }
        return (userId, me["consent"].flatMap(ServerConsent.init(json:)))
    }

    /// Ends a Supabase session on the server (its refresh token stops working); nothing to do
    /// for a Postgres login, and an unreachable server does not stop a logout.
    package static func endSession(_ credentials: Credentials) async {
        guard case let .supabase(session) = credentials.login else { return }
        try? await session.project.logOut(session)
    }

    /// Refuses a login to another account than the one this diary synced with.
    package static func checkBinding(_ credentials: Credentials, store: DiaryStore) throws {
        if let bound = try store.ledger.syncedUser(), bound != credentials.userId { throw SyncError.otherAccount }
    }

    /// Stores the login for this diary, with a sealed diary's keys (none: it syncs in clear);
    /// a diary synced with another account is refused.
    package static func saveLogin(_ credentials: Credentials, keys: DiaryKeys?, store: DiaryStore) throws {
        try checkBinding(credentials, store: store)
        if let keys { try KeyFile.save(keys, store.paths) } else { KeyFile.remove(store.paths) }
        try credentials.save(store.paths)
        try store.ledger.bindSyncUser(credentials.userId)
    }

    /// Forgets the login; with `wipeLocal`, also empties this diary (entries and files).
    package static func logout(store: DiaryStore, wipeLocal: Bool) throws {
        Credentials.remove(store.paths)
        KeyFile.remove(store.paths)
        PendingKeys.remove(store.paths)
        try store.ledger.unbindSyncUser()
        guard wipeLocal else { return }
        try store.ledger.wipeAll()
        for folder in [store.paths.media, store.paths.thumbnails] {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Deletes everything of this person on the server (an audit row with a hashed id is
    /// all that stays there) and forgets the login. The local diary is left as it is.
    package static func deleteAccount(store: DiaryStore, credentials: Credentials) async throws -> Int64 {
        let removed = try await credentials.withServer(paths: store.paths) { server in try await server.deleteAccount() }
        Credentials.remove(store.paths)
        KeyFile.remove(store.paths)
        PendingKeys.remove(store.paths)
        try store.ledger.unbindSyncUser()
        return removed
    }
}

/// The SCRAM-SHA-256 verifier Postgres stores for a password (RFC 5802/7677): what
/// `CREATE ROLE … PASSWORD` takes so that the password itself never reaches the server.
enum ScramVerifier {
    static let iterations = 4096

    static func make(password: String, salt: [UInt8]? = nil) -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = salt ?? (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let key = SymmetricKey(data: Array(password.utf8))
        // PBKDF2-HMAC-SHA256 with one 32-byte block.
        var block = Array(HMAC<SHA256>.authenticationCode(for: salt + [0, 0, 0, 1], using: key))
        var salted = block
        for _ in 1..<iterations {
            block = Array(HMAC<SHA256>.authenticationCode(for: block, using: key))
            for index in salted.indices { salted[index] ^= block[index] }
        }
        let saltedKey = SymmetricKey(data: salted)
        let clientKey = Array(HMAC<SHA256>.authenticationCode(for: Array("Client Key".utf8), using: saltedKey))
        let storedKey = Array(SHA256.hash(data: clientKey))
        let serverKey = Array(HMAC<SHA256>.authenticationCode(for: Array("Server Key".utf8), using: saltedKey))
        func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
        return "SCRAM-SHA-256$\(iterations):\(base64(salt))$\(base64(storedKey)):\(base64(serverKey))"
    }
}
