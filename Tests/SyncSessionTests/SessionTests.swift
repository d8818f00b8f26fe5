@testable import DiaryKit
@testable import DiaryTestSupport
@testable import SyncSession
import Foundation
import Testing

struct SessionTests {
    @Test func serverAddressesKeepThePasswordApart() throws {
        let address = try ServerAddress("postgres://alice:s3cret@db.example:6543/diary?sslmode=require")
        #expect(address.host == "db.example" && address.port == 6543 && address.user == "alice" && address.database == "diary")
        #expect(address.password == "s3cret")
        #expect(address.tls == .require)
        #expect(address.description == "postgres://alice@db.example:6543/diary?sslmode=require")
        #expect(try ServerAddress("postgresql://bob@127.0.0.1/diary").tls == .disable, "loopback needs no TLS")
        #expect(try ServerAddress("postgres://bob@db.example").database == "bob")
        #expect(try ServerAddress("postgres://bob@db.example/d").tls == .prefer)
        for bad in ["http://x@y/z", "postgres://db.example/diary", "postgres://a:pw@h/d?sslmode=maybe"] {
            #expect(throws: SyncError.self) { try ServerAddress(bad) }
        }
        let refused = Result<ServerAddress, SyncError> { () throws(SyncError) in try ServerAddress("postgres://a:topsecret@h/d?sslmode=maybe") }
        #expect(refused.map(\.host) == .failure(SyncError.badAddress("postgres://a:…@h/d?sslmode=maybe")))
    }

    @Test func credentialsAreWrittenPrivateAndRefusedWhenOthersCanRead() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("creds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let paths = DiaryPaths(homeFlag: root.appendingPathComponent("home").path, environment: ["XDG_STATE_HOME": root.path])
        #expect(try Credentials.load(paths) == nil)
        let credentials = Credentials(address: try ServerAddress("postgres://alice@db.example/diary"), password: "pw",
                                      userId: "0194f3c2-0000-7000-8000-000000000000", consentVersion: 1)
        try credentials.save(paths)
        let file = Credentials.file(paths).path
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        #expect(try Credentials.load(paths) == credentials)
        chmod(file, 0o640)
        #expect(throws: SyncError.credentialsExposed(file)) { try Credentials.load(paths) }
        #expect(Credentials.remove(paths))
        #expect(try Credentials.load(paths) == nil)

        // A Supabase session round-trips too, and a project address must be https (http only on this machine).
        let session = SupabaseSession(project: try SupabaseProject(url: "https://xyz.supabase.co/", anonKey: "anon.key.value"),
                                      email: "me@example.com", accessToken: "a.b.c", refreshToken: "r1", expiresAt: 1_800_000_000)
        let signedIn = Credentials(login: .supabase(session), userId: "0194f3c2-0000-7000-8000-000000000001", consentVersion: 2)
        try signedIn.save(paths)
        #expect(try Credentials.load(paths) == signedIn)
        #expect(signedIn.server == "https://xyz.supabase.co" && signedIn.account == "me@example.com")
        #expect(throws: SyncError.badAddress("http://xyz.supabase.co")) { try SupabaseProject(url: "http://xyz.supabase.co", anonKey: "k") }
        #expect(throws: SyncError.anonKeyNeeded) { try SupabaseProject(url: "https://xyz.supabase.co", anonKey: "") }
        #expect(try SupabaseProject(url: "http://127.0.0.1:54321", anonKey: "k").url == "http://127.0.0.1:54321")
    }
}

@Suite struct SyncPhraseTests {
    static let all: [Phrase] = [
        .syncNeedsLogin, .syncFailedKept, .permissionDenied, .serverDataState, .serverNotReady, .serverTooNew(version: 2),
        .credentialsExposed(path: "/x"), .badServerAddress(url: "x"), .passwordNeeded, .passwordPrompt(user: "a"),
        .consentRequired, .consentAccept, .otherAccount, .badUserName(name: "X"), .userExists(name: "a"), .notConfirmed,
        .foreignAuth, .synced(sent: 1, received: 2, conflicts: 1, mediaSent: 1, mediaFetched: 1, mediaWaiting: 1),
        .syncUpToDate, .syncRefused(count: 1), .loggedIn(user: "a", server: "s"), .loggedOut, .localDiaryWiped, .confirmWipe,
        .confirmDeleteAccount(user: "a"), .accountDeleted(rows: 3), .serverReady(version: 1),
        .userAdded(name: "a", passwordShown: true), .watching(server: "s"), .watchOffline(seconds: 2),
        .syncStatusLine(server: "s", pending: 1, dead: 0, conflicts: 0, lastSync: nil, lastError: "offline"),
        .mediaTransfersWaiting(send: 1, fetch: 1), .deadLetterLine(table: "entry", row: "r", error: "e"),
        .conflictLine(table: "entry", row: "r", hlc: "h", winner: "w", source: "sync"), .deadLettersRequeued(count: 1),
    ]

    @Test func everySentenceHasTwoLanguagesAndNeverSaysAI() {
        let broken = phrasesBreakingTheRules(Self.all)
        #expect(broken.isEmpty, "\(broken)")
    }

    @Test func seedWordsAreKept() {
        #expect(Phrase.syncFailedKept.text(.zhHant) == "雲端同步失敗，已保留在本機，稍後會再試")
        #expect(Phrase.permissionDenied.text(.zhHant).hasPrefix("沒有權限"))
        #expect(Phrase.serverDataState.text(.zhHant) == "資料狀態異常，請重試")
    }
}
