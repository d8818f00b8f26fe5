import DiaryKit
import Foundation

/// Why a sync, a login or a server task did not go through. Local data is never touched by
/// one of these: what was queued stays queued.
package enum SyncError: Error, Equatable {
    /// No credentials on this device.
    case notLoggedIn
    /// The server could not be reached or dropped the connection (temporary).
    case offline
    /// The same, for a command that is no sync (a login, keys, the operator's tasks).
    case unreachable
    /// Wrong password, no such account, or the account may not do this.
    case permissionDenied
    /// The server answered with something unexpected; trying again may help.
    case serverState(String)
    /// The server has no diary tables (or older ones than this tool needs).
    case serverNotReady
    /// The server's tables are newer than this tool knows.
    case serverTooNew(Int)
    /// The credentials file can be read by other users; it is not used.
    case credentialsExposed(String)
    /// The address is not a `postgres://` URL this tool understands.
    case badAddress(String)
    /// A password is needed and there is no terminal to ask on.
    case passwordNeeded
    /// The person did not accept the server's consent text.
    case consentDeclined
    /// This diary already syncs with another account.
    case otherAccount
    /// A user name Postgres would not take as a login.
    case badUserName(String)
    /// That login already exists on the server.
    case userExists(String)
    /// The server's accounts belong to another system (Supabase Auth), not to user-add.
    case foreignAuth
    /// A destructive step was not confirmed.
    case notConfirmed
    /// The person's media space on the server is used up; this many files wait on the device.
    case mediaSpaceFull(waiting: Int)
    /// No diary account has that login name.
    case noSuchAccount(String)
    /// A size that is not a number of bytes (with an optional K, M, G or T) nor `none`.
    case badSize(String)
    /// Supabase Auth said no.
    case auth(AuthRefusal)
    /// A Supabase project needs its anon key (`--anon-key` or `SUPABASE_ANON_KEY`).
    case anonKeyNeeded
    /// The project's REST API does not expose the schema `diary` (a setting in its dashboard).
    case schemaNotExposed
}

/// Why Supabase Auth refused a sign-up, a login or a session.
package enum AuthRefusal: Equatable, Sendable {
    case wrongPassword
    case emailNotConfirmed(String)
    case alreadyRegistered(String)
    case weakPassword
    case wrongCode
    case unknownEmail(String)
    case badEmail(String)
    case tooManyRequests
    /// The refresh token was spent or revoked (logged out elsewhere, the account deleted).
    case sessionEnded
}
