@testable import DiaryKit
@testable import DiarySync
@testable import SyncSession
import FakeServers
import Foundation
import Testing
@testable import DiaryTestSupport

// MARK: - A database shaped like a Supabase project (supabaseShapeSQL, in FakeServers)

/// The server SQL on a Supabase-shaped database: people who sign up through Auth get an
/// account, act through `authenticated` with their token's `sub`, keep to their own rows and
/// Storage folder, and leave nothing behind when their auth user is deleted.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DIARY_TEST_PG_URL"] != nil), .serialized)
struct SupabaseSchemaTests {
    /// A Supabase-shaped database with the script applied twice (by statements, then pasted whole).
    fileprivate static func project(signedUpBefore early: String? = nil) async throws -> SchemaServer {
        let server = try await SchemaServer.make(before: supabaseShapeSQL + (early.map { "\nINSERT INTO auth.users (id, email) VALUES ('\($0)', 'early@example.com');" } ?? ""))
        try await server.applyScriptAsFile()
        return server
    }

    /// Signs someone up the way Supabase Auth writes the row (as its own role).
    fileprivate static func signUp(_ server: SchemaServer) async throws -> String {
        let id = randomId()
        try await server.admin("SET ROLE supabase_auth_admin; INSERT INTO auth.users (id, aud, role, email) VALUES ('\(id)', 'authenticated', 'authenticated', '\(id)@example.com');")
        return id
    }

    /// SQL as PostgREST runs an RPC for a signed-in person: role authenticated, the JWT's claims set for the transaction.
    static func asUser(_ id: String?, _ sql: String, role: String = "authenticated") -> String {
        let claims = id.map { #"{"sub":"\#($0)","role":"authenticated","aud":"authenticated"}"# } ?? #"{"role":"anon"}"#
        return "BEGIN; SET LOCAL ROLE \(role); SET LOCAL request.jwt.claims = '\(claims)';\n\(sql)\nCOMMIT;"
    }

    static func entry(_ text: String) -> JSON {
        let clock = HLCSource()
        let t = clock.hlc("dev-a")
        return Records.entry(id: randomId(), hlc: t, device: "dev-a", note: text,
                             messages: [Records.message(id: randomId(), author: "person", text: text, minute: 1, hlc: t, device: "dev-a")],
                             tagLinks: [Records.tag("walk", position: 0, hlc: t, device: "dev-a")])
    }

    @Test func theOperatorsOwnRoleAppliesTheScriptAgainAndAgain() async throws {
        // As on a real project: the script pasted by postgres, which may create a trigger on
        // auth.users but not drop one; the second run is how every upgrade arrives.
        let server = try await SchemaServer.make(before: supabaseShapeSQL, applied: false)
        let password = UUID().uuidString
        try await server.admin("ALTER ROLE postgres PASSWORD '\(password)'")
        let operatorRole = SchemaServer.Person(role: "postgres", password: password, id: "")
        #expect(try await server.run("SHOW is_superuser", as: operatorRole) == "off")
        for _ in 0..<2 {
            try await server.run("BEGIN;\n" + ServerSchema.script + "\nCOMMIT;", as: operatorRole)
        }
        // And again after a superuser's run, which takes the role list from PUBLIC.
        try await server.applyScript()
        try await server.run("BEGIN;\n" + ServerSchema.script + "\nCOMMIT;", as: operatorRole)
        #expect(try await server.admin("""
            SELECT string_agg(tgname, ' ' ORDER BY tgname) FROM pg_trigger WHERE tgrelid = 'auth.users'::regclass AND NOT tgisinternal
            """) == "diary_account diary_forget")
        let alice = try await Self.signUp(server)
        #expect(try await server.admin("SELECT count(*) FROM diary.account WHERE user_id = '\(alice)'") == "1")
        try await server.admin("SET ROLE supabase_auth_admin; DELETE FROM auth.users WHERE id = '\(alice)';")
        #expect(try await server.admin("SELECT count(*) FROM diary.account WHERE user_id = '\(alice)'") == "0")
    }

    @Test func whoSignsUpGetsAnAccountAndSyncsAsAuthenticated() async throws {
        let early = randomId()
        let server = try await Self.project(signedUpBefore: early)
        #expect(try await server.admin("SELECT count(*) FROM diary.account WHERE user_id = '\(early)' AND role_name IS NULL") == "1",
                "someone who signed up before the script ran")
        let alice = try await Self.signUp(server)
        #expect(try await server.admin("SELECT count(*) FROM diary.account WHERE user_id = '\(alice)'") == "1")
        #expect(try await server.admin("SELECT count(*) FROM pg_auth_members WHERE member = 'authenticated'::regrole") == "0",
                "privileges are granted to authenticated itself: a NOINHERIT role gains nothing from membership")

        let pushed = try await server.admin(Self.asUser(alice, "SELECT diary.push($j$\(Records.batch([("k1", Self.entry("河邊散步"))]))$j$::jsonb);"))
        #expect(pushStatuses(JSON.parse(Data(pushed.utf8)) ?? .null) == ["applied"], "\(pushed)")
        let pulled = try await server.admin(Self.asUser(alice, "SELECT diary.pull(0, 10);"))
        #expect(JSON.parse(Data(pulled.utf8))?["items"]?.arrayValue?.count == 1)
        let who = try await server.admin(Self.asUser(alice, "SELECT diary.whoami();"))
        #expect(JSON.parse(Data(who.utf8))?["user_id"]?.stringValue == alice)
        // The early one sees none of it.
        let other = try await server.admin(Self.asUser(early, "SELECT diary.pull(0, 10);"))
        #expect(JSON.parse(Data(other.utf8))?["items"]?.arrayValue?.isEmpty == true)
    }

    @Test func aSignedInLoginWithoutAnAccountCanWriteNothing() async throws {
        let server = try await Self.project()
        let stranger = randomId()  // a valid token, but no diary account (never signed up here, or deleted)
        let chunk = await server.attempt(Self.asUser(stranger, "INSERT INTO diary.media_chunk (user_id, sha256, n, bytes) VALUES ('\(stranger)', '\(fakeSHA256("x"))', 0, '\\x01');"), as: nil)
        #expect(chunk.sqlState == "42501", "\(chunk.errors)")
        #expect(await server.attempt(Self.asUser(stranger, "SELECT diary.push('[]'::jsonb);"), as: nil).sqlState == "42501")
        #expect(await server.attempt(Self.asUser(stranger, "SELECT diary.missing_chunks('\(fakeSHA256("x"))', 1);"), as: nil).sqlState == "42501")
        let object = await server.attempt(Self.asUser(stranger, "INSERT INTO storage.objects (bucket_id, name) VALUES ('diary-media', '\(stranger)/e/x.jpg');"), as: nil)
        #expect(object.sqlState == "42501", "no Storage writes without an account either: \(object.errors)")
        #expect(try await server.admin("SELECT (SELECT count(*) FROM diary.media_chunk) + (SELECT count(*) FROM storage.objects)") == "0")
        // Not signed in at all: no access to anything in diary.
        #expect(await server.attempt(Self.asUser(nil, "SELECT diary.pull(0, 10);", role: "anon"), as: nil).sqlState == "42501")
        #expect(await server.attempt(Self.asUser(nil, "SELECT count(*) FROM diary.entry;", role: "anon"), as: nil).sqlState == "42501")
    }

    @Test func storageKeepsEachPersonToTheirOwnFolder() async throws {
        let server = try await Self.project()
        #expect(try await server.admin("SELECT public FROM storage.buckets WHERE id = 'diary-media'") == "f", "a private bucket")
        let alice = try await Self.signUp(server), bob = try await Self.signUp(server)
        try await server.admin(Self.asUser(alice, "INSERT INTO storage.objects (bucket_id, name) VALUES ('diary-media', '\(alice)/entry-1/photo.jpg');"))
        let intoBob = await server.attempt(Self.asUser(alice, "INSERT INTO storage.objects (bucket_id, name) VALUES ('diary-media', '\(bob)/entry-1/photo.jpg');"), as: nil)
        #expect(intoBob.sqlState == "42501", "Alice cannot write into Bob's folder")
        let move = await server.attempt(Self.asUser(alice, "UPDATE storage.objects SET name = '\(bob)/entry-1/photo.jpg' WHERE name LIKE '\(alice)/%';"), as: nil)
        #expect(move.sqlState == "42501", "nor move a file there")
        #expect(try await server.admin("SELECT count(*) FROM storage.objects WHERE name LIKE '\(bob)/%'") == "0")
        #expect(try await server.admin(Self.asUser(bob, "SELECT count(*) FROM storage.objects;")) == "0", "Bob sees none of Alice's")
        #expect(try await server.admin(Self.asUser(alice, "SELECT count(*) FROM storage.objects;")) == "1")
        #expect(try await server.admin(Self.asUser(nil, "SELECT count(*) FROM storage.objects;", role: "anon")) == "0")
    }

    @Test func deletingTheAuthUserRemovesEverythingAndLeavesAnAnonymousAudit() async throws {
        let server = try await Self.project()
        let alice = try await Self.signUp(server), bob = try await Self.signUp(server)
        for person in [alice, bob] {
            try await server.admin(Self.asUser(person, """
                SELECT diary.push($j$\(Records.batch([("k-\(person)", Self.entry("海邊"))]))$j$::jsonb);
                INSERT INTO diary.media_chunk (user_id, sha256, n, bytes) VALUES ('\(person)', '\(fakeSHA256("p"))', 0, '\\xffd8');
                SELECT diary.finish_media('\(fakeSHA256("p"))', 2, 1, '\(person)/e/\(fakeSHA256("p")).jpg');
                INSERT INTO storage.objects (bucket_id, name) VALUES ('diary-media', '\(person)/e/\(fakeSHA256("p")).jpg');
                """))
        }
        func rows(_ id: String) async throws -> String {
            try await server.admin("SELECT " + (SchemaServer.personTables + ["account"])
                .map { "(SELECT count(*) FROM diary.\($0) WHERE user_id = '\(id)')" }.joined(separator: " + "))
        }
        let before = (try await rows(alice), try await rows(bob))
        #expect(before.0 != "0" && before.0 == before.1)
        // As Supabase Auth deletes a user: as its own role, with whatever claims its session has.
        let claimsAfter = try await server.admin("""
            BEGIN; SET LOCAL ROLE supabase_auth_admin; SET LOCAL request.jwt.claims = '{"role":"service_role"}';
            DELETE FROM auth.users WHERE id = '\(alice)';
            SELECT current_setting('request.jwt.claims') || '|' || coalesce(current_setting('request.jwt.claim.sub', true), '');
            COMMIT;
            """)
        #expect(claimsAfter == #"{"role":"service_role"}|"#, "the deleting session's claims are put back")
        #expect(try await rows(alice) == "0", "every row, chunk and the account")
        #expect(try await server.admin("SELECT name FROM diary.storage_removal") == "\(alice)/e/\(fakeSHA256("p")).jpg",
                "the Storage object waits for the Storage API")
        let hash = try await sha256Hex(alice)
        #expect(try await server.admin("SELECT count(*) FROM diary.deletion_audit WHERE user_hash = '\(hash)'") == "1")
        #expect(try await server.admin("SELECT count(*) FROM diary.deletion_audit WHERE user_hash LIKE '%\(alice)%'") == "0")
        #expect(try await rows(bob) != "0", "Bob keeps everything")
        #expect(try await server.admin(Self.asUser(bob, "SELECT diary.pull(0, 10);")).contains("海邊"))
    }
}
