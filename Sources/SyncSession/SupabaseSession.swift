import DiaryKit
import Foundation
import NIOCore

/// A person signed in to a Supabase project: the short-lived access token (a JWT) their
/// requests carry, and the refresh token that buys the next one. Kept only in the 0600
/// credentials file.
package struct SupabaseSession: Sendable, Equatable {
    package var project: SupabaseProject
    package var email: String
    package var accessToken: String
    package var refreshToken: String
    /// When the access token stops working (Unix seconds).
    package var expiresAt: Int64

    package init(project: SupabaseProject, email: String, accessToken: String, refreshToken: String, expiresAt: Int64) {
        self.project = project
        self.email = email
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    /// Refreshed this long before it expires, so no request sets out with a token about to lapse.
    package static let margin: Int64 = 60

    package func expiresSoon(now: Date = Date()) -> Bool { Int64(now.timeIntervalSince1970) + Self.margin >= expiresAt }

    /// Read from the credentials file; nil when it holds a Postgres login.
    package init?(json: JSON) {
        guard let url = json["supabase"]?.stringValue, let key = json["anon_key"]?.stringValue,
              let project = try? SupabaseProject(url: url, anonKey: key), let email = json["email"]?.stringValue,
              let access = json["access_token"]?.stringValue, let refresh = json["refresh_token"]?.stringValue,
              let expires = json["expires_at"]?.doubleValue else { return nil }
        self.init(project: project, email: email, accessToken: access, refreshToken: refresh, expiresAt: Int64(expires))
    }

    /// Its fields in the credentials file.
    package var fields: [(String, JSON)] {
        [("supabase", .string(project.url)), ("anon_key", .string(project.anonKey)), ("email", .string(email)),
         ("access_token", .string(accessToken)), ("refresh_token", .string(refreshToken)), ("expires_at", .int(expiresAt))]
    }
}

/// Hands out a live access token for the signed-in person and renews it when needed.
///
/// A refresh token is good for one use: Supabase Auth revokes the whole session when a spent
/// one comes back, so two processes refreshing with the same token at once (a `watch` and a
/// `diary-sync` run by hand) would log the person out. Renewing therefore happens under an
/// exclusive lock on a file beside the credentials: whoever gets it first refreshes and saves;
/// whoever waited finds the new token in the file and uses it. An expired or ended session
/// never touches the diary itself: the person logs in again and everything syncs on.
package final class SupabaseTokens: Sendable {
    package let paths: DiaryPaths
    private let session: Locked<SupabaseSession>
    /// False for a session just granted and not saved yet (a login checking it): used as it is.
    private let saved: Bool

    package init(_ session: SupabaseSession, paths: DiaryPaths, saved: Bool = true) {
        self.paths = paths
        self.session = Locked(session)
        self.saved = saved
    }

    package var project: SupabaseProject { session.withLock { $0.project } }

    /// A token good for at least another minute.
    package func current() async throws -> String {
        let now = session.withLock { $0 }
        if !saved || !now.expiresSoon() { return now.accessToken }
        return try await renew(replacing: now.accessToken)
    }

    /// A new token after the server refused `stale` (expired early, or revoked by a refresh elsewhere).
    package func renew(replacing stale: String) async throws -> String {
        let lock = try await FileLock.acquire(paths.stateDirectory.appendingPathComponent("credentials.lock").path)
        defer { lock.release() }
        guard var credentials = try Credentials.load(paths), case let .supabase(saved) = credentials.login,
              saved.project == project else {
            throw SyncError.notLoggedIn
        }
        // Another process renewed it while this one waited for the lock.
        if saved.accessToken != stale, !saved.expiresSoon() {
            session.withLock { $0 = saved }
            return saved.accessToken
        }
        let fresh = try await saved.project.refresh(saved)
        credentials.login = .supabase(fresh)
        try credentials.save(paths)
        session.withLock { $0 = fresh }
        return fresh.accessToken
    }
}

extension SupabaseTokens {
    /// Sends a request with a live token; when the answer says the token expired, renews it
    /// and sends the request once more.
    package func authorised(_ send: (String) async throws -> SupabaseProject.Reply) async throws -> SupabaseProject.Reply {
        let token = try await current()
        let reply = try await send(token)
        guard SupabaseProject.tokenRefused(status: reply.status, message: reply.json?["message"]?.stringValue) else { return reply }
        return try await send(try await renew(replacing: token))
    }

    /// Calls `diary.<function>` through PostgREST with named arguments (a JSON object's text).
    package func rpc(_ function: String, _ arguments: String) async throws -> JSON {
        let reply = try await authorised { token in
            try await self.project.send(.POST, "/rest/v1/rpc/\(function)", bearer: token,
                                        headers: [("Content-Profile", "diary"), ("Accept", "application/json")],
                                        body: ByteBuffer(string: arguments))
        }
        guard reply.ok else { throw SupabaseProject.refusal(reply) }
        guard let json = reply.json else { throw SyncError.serverState("rpc \(function)") }
        return json
    }
}

/// An exclusive `flock` on a file, waited for without blocking a thread; released by
/// `release()` or, at the latest, when the process ends.
package final class FileLock {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Waits up to `seconds` for the lock.
    package static func acquire(_ path: String, seconds: Double = 60) async throws -> FileLock {
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError.cannotCreateHome(folder) }
        let deadline = Date().addingTimeInterval(seconds)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard Date() < deadline, !Task.isCancelled else {
                close(descriptor)
                throw Task.isCancelled ? CancellationError() : SyncError.offline
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return FileLock(descriptor: descriptor)
    }

    /// Lets the next waiter in (closing the file drops the lock).
    package func release() { close(descriptor) }
}
