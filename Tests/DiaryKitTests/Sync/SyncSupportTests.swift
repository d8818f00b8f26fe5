@testable import DiaryKit
@testable import DiarySync
@testable import SyncSession
import Foundation
import Testing

struct SyncSupportTests {
    @Test func scramVerifierMatchesAnIndependentComputation() {
        // RFC 7677's password and salt; expected value computed with Python's hashlib
        // (pbkdf2_hmac + hmac), independently of this code.
        let salt = [UInt8](Data(base64Encoded: "W22ZaJ0SNY7soEsUEjb6gQ==")!)
        #expect(ScramVerifier.make(password: "pencil", salt: salt)
                == "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=")
        #expect(!ScramVerifier.make(password: "pencil").contains("pencil"))
        #expect(ScramVerifier.make(password: "pencil") != ScramVerifier.make(password: "pencil"), "a fresh salt each time")
    }

    @Test func scriptSplitsOnlyOnRealSemicolons() {
        let script = """
            -- a comment; not a statement
            CREATE TABLE a (t text DEFAULT 'x;y');
            CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
            CREATE FUNCTION g() RETURNS text LANGUAGE sql AS $body$ SELECT 'it''s; fine' $body$;
            SELECT "odd;name" FROM a;
            """
        let statements = SQLScript.statements(script)
        #expect(statements.count == 4)
        #expect(statements[0] == "CREATE TABLE a (t text DEFAULT 'x;y')")
        #expect(statements[1].hasSuffix("BEGIN RETURN 1; END $$"))
        #expect(statements[2].hasSuffix("SELECT 'it''s; fine' $body$"))
        #expect(statements[3] == "SELECT \"odd;name\" FROM a")
    }

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
