import DiaryKit
import Foundation

/// How this device logs in to the sync server: a 0600 JSON file under
/// `$XDG_STATE_HOME/diary/`. Passwords and tokens live only here (never in the database, a
/// log or a message); a file others can read is refused rather than used.
package struct Credentials: Sendable, Equatable {
    /// The two ways of reaching a server.
    package enum Login: Sendable, Equatable {
        /// Straight to Postgres, as a login role of the person's own.
        case postgres(ServerAddress, password: String)
        /// Through a Supabase project's Auth, REST and Storage APIs, as a signed-in person.
        case supabase(SupabaseSession)
    }

    package var login: Login
    package var userId: String
    /// The version of the server's consent text the person accepted.
    package var consentVersion: Int?

    package init(login: Login, userId: String, consentVersion: Int? = nil) {
        self.login = login
        self.userId = userId
        self.consentVersion = consentVersion
    }

    package init(address: ServerAddress, password: String, userId: String, consentVersion: Int? = nil) {
        self.init(login: .postgres(address, password: password), userId: userId, consentVersion: consentVersion)
    }

    /// The server as shown to people: its URL without any secret.
    package var server: String {
        switch login {
        case let .postgres(address, _): return address.description
        case let .supabase(session): return session.project.url
        }
    }

    /// Who is logged in, as shown to people: the login role or the email address.
    package var account: String {
        switch login {
        case let .postgres(address, _): return address.user
        case let .supabase(session): return session.email
        }
    }

    package static func file(_ paths: DiaryPaths) -> URL { paths.stateDirectory.appendingPathComponent("credentials") }

    /// Reads the credentials; nil when there are none.
    package static func load(_ paths: DiaryPaths) throws -> Credentials? {
        let path = file(paths).path
        guard let exposed = FileIO.readableByOthers(path) else { return nil }
        if exposed { throw SyncError.credentialsExposed(path) }
        guard let data = FileManager.default.contents(atPath: path), let json = JSON.parse(data),
              let userId = json["user_id"]?.stringValue else {
            throw SyncError.notLoggedIn
        }
        let consent = json["consent_version"]?.integerValue.flatMap { Int(exactly: $0) }
        if let session = SupabaseSession(json: json) {
            return Credentials(login: .supabase(session), userId: userId, consentVersion: consent)
        }
        guard let url = json["url"]?.stringValue, let password = json["password"]?.stringValue else { throw SyncError.notLoggedIn }
        return Credentials(address: try ServerAddress(url), password: password, userId: userId, consentVersion: consent)
    }

    /// Writes the file, readable by its owner only (`FileIO.replaceOwnerOnly`).
    package func save(_ paths: DiaryPaths) throws {
        var fields: [(String, JSON)]
        switch login {
        case let .postgres(address, password): fields = [("url", .string(address.description)), ("password", .string(password))]
        case let .supabase(session): fields = session.fields
        }
        fields += [("user_id", .string(userId)), ("consent_version", .optional(consentVersion))]
        let file = Self.file(paths)
        guard FileIO.replaceOwnerOnly(file.lastPathComponent, in: paths.stateDirectory.path,
                                      with: Array((JSON.object(fields).serialized + "\n").utf8)) else {
            throw StoreError.cannotCreateHome(paths.stateDirectory.path)
        }
    }

    /// Removes the file; true when there was one.
    @discardableResult
    package static func remove(_ paths: DiaryPaths) -> Bool { unlink(file(paths).path) == 0 }
}
