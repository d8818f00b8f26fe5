import Crypto
@testable import DiaryKit
import DiarySeal
@testable import DiarySync
@testable import SyncSession
import FakeServers
import Foundation
import Testing
@testable import DiaryTestSupport

/// A Supabase-shaped database (supabaseShapeSQL, then the diary's server script) on the test
/// cluster, behind the fake Auth, PostgREST and Storage APIs. No live Supabase project is used.
final class SupabaseProjectUnderTest: Sendable {
    let admin: ServerAddress
    let adminPassword: String?
    let fake: FakeSupabase

    private init(admin: ServerAddress, adminPassword: String?, fake: FakeSupabase) {
        self.admin = admin
        self.adminPassword = adminPassword
        self.fake = fake
    }

    static func make() async throws -> SupabaseProjectUnderTest {
        let admin = try await TestCluster.freshDatabase("s_")
        try await ServerConnection.with(admin, password: admin.password) { server in
            for statement in SQLScript.statements(supabaseShapeSQL) { try await server.run(script: statement) }
        }
        _ = try await Accounts.initialiseServer(admin, password: admin.password)
        var url = URLComponents()
        url.scheme = "postgres"
        url.user = admin.user
        url.password = admin.password
        url.host = admin.host
        url.port = admin.port
        url.path = "/" + admin.database
        let fake = try await FakeSupabase.start(databaseURL: url.string!)
        return SupabaseProjectUnderTest(admin: admin, adminPassword: admin.password, fake: fake)
    }

    /// Signs someone new up and logs a device of theirs in, its access token good for
    /// `tokenSeconds` (under a minute: the next request renews it first).
    func newPerson(password: String = "a-long-pass-phrase", tokenSeconds: Int = 3600) async throws -> (email: String, device: SupabaseDevice) {
        let email = "p\(UUID().uuidString.prefix(8).lowercased())@example.com"
        _ = try await project.signUp(email: email, password: password)
        fake.accessTokenSeconds = tokenSeconds
        defer { fake.accessTokenSeconds = 3600 }
        return (email, try await SupabaseDevice.logIn(project, email, password))
    }

    var project: SupabaseProject { get throws { try SupabaseProject(url: fake.baseURL, anonKey: fake.anonKey) } }

    /// Runs one statement as the database's owner.
    func adminExecute(_ sql: String) async throws {
        try await ServerConnection.with(admin, password: adminPassword) { server in _ = try await server.run(script: sql) }
    }

    /// The value of a one-value query, as text, as the database's owner sees it.
    func adminText(_ sql: String) async throws -> String? {
        try await ServerConnection.with(admin, password: adminPassword) { server in try await server.run(script: "SELECT (\(sql))::text") }
    }

    /// Requests the fake received whose path starts with `prefix`.
    func requests(_ method: String, _ prefix: String) -> [RecordedRequest] {
        fake.requests.filter { $0.method == method && $0.path.hasPrefix(prefix) }
    }

    /// How many times a refresh token was spent.
    var refreshes: Int { requests("POST", "/auth/v1/token").filter { $0.query["grant_type"] == "refresh_token" }.count }
}

/// One device of a person signed in through the project: its own diary and credentials file.
// Used from one test task at a time; the stopped-upload test hands it to a child task and waits for it.
final class SupabaseDevice: @unchecked Sendable {
    let diary: TestDiary
    let credentials: Credentials
    var store: DiaryStore { diary.store }
    var paths: DiaryPaths { store.paths }
    /// A sealed diary's keys on this device; nil in clear.
    var keys: SyncKeys?

    init(_ session: SupabaseSession, userId: String) throws {
        diary = try TestDiary()
        credentials = Credentials(login: .supabase(session), userId: userId)
        try Accounts.saveLogin(credentials, keys: nil, store: diary.store)
    }

    /// Logs in with a password, as `diary-sync login --supabase` does.
    static func logIn(_ project: SupabaseProject, _ email: String, _ password: String) async throws -> SupabaseDevice {
        let (session, _) = try await project.logIn(email: email, password: password)
        let paths = DiaryPaths(homeFlag: "/nonexistent", environment: [:])
        let (userId, _) = try await Accounts.verifySession(session, paths: paths)
        return try SupabaseDevice(session, userId: userId)
    }

    @discardableResult
    func sync(_ steps: SyncEngine.Steps = .all) async throws -> SyncReport {
        // As every command does: the login as saved now (a refresh may have replaced it).
        let saved = try #require(try Credentials.load(paths))
        return try await SyncEngine(store: store, userId: saved.userId, keys: keys).run(saved, steps: steps)
    }

    var session: SupabaseSession {
        get throws {
            guard case let .supabase(session)? = try Credentials.load(paths)?.login else { throw SyncError.notLoggedIn }
            return session
        }
    }

    func everything() throws -> [String] {
        try store.entryRecords(ids: store.entryIds(includingDeleted: true)).map(\.json.serialized).sorted()
    }

    func mediaFile(_ bytes: [UInt8], ext: String = "jpg") throws -> MediaItem { try storeMediaFile(bytes, ext: ext, in: store) }
}

private func randomEmail() -> String { "p\(UUID().uuidString.prefix(8).lowercased())@example.com" }

private func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}

/// Sync through a Supabase project's APIs: Auth sessions, RPC, Storage, tokens renewed one
/// at a time, and people kept apart on every path.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DIARY_TEST_PG_URL"] != nil), .serialized)
struct SupabaseSyncTests {
    @Test func signUpLogInAndSyncTwoDevicesWithAPhotoThroughStorage() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let project = try server.project
        let email = randomEmail()
        guard case let .session(session, userId) = try await project.signUp(email: email, password: "sea-breeze-42") else {
            Issue.record("autoconfirm gives a session at once")
            return
        }
        #expect(try await server.adminText("SELECT count(*) FROM diary.account WHERE user_id = '\(userId)'") == "1",
                "signing up made the diary account")
        let a = try SupabaseDevice(session, userId: userId)
        let b = try await SupabaseDevice.logIn(project, email, "sea-breeze-42")

        let photo = randomBytes(300_000)
        let item = try a.mediaFile(photo)
        let beach = try a.diary.draft("海邊的風", media: [item])
        let first = try await a.sync()
        #expect(first.pushed == 1 && first.mediaSent == 1)
        let name = "\(userId)/\(beach)/\(item.sha256).jpg"
        #expect(try await server.adminText("SELECT (metadata->>'size') FROM storage.objects WHERE bucket_id = 'diary-media' AND name = '\(name)'")
                == "300000", "the seed's object path, in the person's folder")
        #expect(try await server.adminText("SELECT chunks FROM diary.media_object WHERE sha256 = '\(item.sha256)'") == "0")
        #expect(try await server.adminText("SELECT count(*) FROM diary.media_chunk") == "0", "no bytes in the database")
        #expect(server.requests("POST", "/rest/v1/rpc/push").allSatisfy { $0.header("content-profile") == "diary" })

        let second = try await b.sync()
        #expect(second.pulled == 1 && second.mediaFetched == 1)
        let fetched = ContentAddressedFolder(b.store.paths.media).path(sha256: item.sha256, fileExtension: "jpg")
        #expect(FileManager.default.contents(atPath: fetched) == Data(photo), "the bytes, checked by SHA-256 on the way down")
        #expect(try a.everything() == b.everything())

        // An idle sync is one round trip: a pull, nothing else.
        let before = server.fake.requests.count
        #expect(try await b.sync().isEmpty)
        #expect(server.fake.requests.count - before == 1)
        #expect(server.fake.requests.suffix(1).first?.path == "/rest/v1/rpc/pull")
    }

    @Test func aSealedDiaryTravelsThroughRPCAndStorageUnreadable() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let (email, a) = try await server.newPerson(password: "sea-breeze-42")
        let userId = a.credentials.userId
        let made = try DiaryKeys.create(account: userId, passphrase: "a passphrase for tests", cost: .floor)
        try await SealedAccount.put(made.envelope, a.credentials, paths: a.paths)
        a.keys = SyncKeys(made.keys, paths: a.paths)
        let b = try await SupabaseDevice.logIn(try server.project, email, "sea-breeze-42")
        guard case let .sealed(envelope) = try await SealedAccount.look(b.credentials, paths: b.paths) else {
            Issue.record("the envelope comes back through RPC")
            return
        }
        b.keys = SyncKeys(try DiaryKeys.open(envelope, account: userId, passphrase: "a passphrase for tests"), paths: b.paths)

        // Over 6 MiB: the resumable upload, chunk by chunk.
        let marker = "marker" + UUID().uuidString
        let photo = Array(marker.utf8) + randomBytes(7 << 20)
        let item = try a.mediaFile(photo)
        let page = try a.diary.page(marker, tags: [marker])
        let beach = try a.diary.draft(marker, media: [item])
        let first = try await a.sync()
        #expect(first.pushed == 2 && first.mediaSent == 1 && first.refused == 0)
        let names = try #require(try await server.adminText("SELECT string_agg(name, ' ') FROM storage.objects WHERE bucket_id = 'diary-media'"))
        #expect(!names.contains(item.sha256) && !names.contains(".jpg"), "the object's name says nothing of the file")
        let sent = server.fake.requests.filter { $0.method != "GET" }
        #expect(!sent.isEmpty)
        for request in sent {
            for needle in [marker.prefix(12), item.sha256.prefix(16)] {
                #expect(request.body.range(of: Data(needle.utf8)) == nil, "\(request.path) carried \(needle)")
            }
        }

        let second = try await b.sync()
        #expect(second.pulled == 2 && second.mediaFetched == 1 && second.rejected == 0)
        #expect(try b.store.entry(id: page).title == marker)
        let fetched = ContentAddressedFolder(b.store.paths.media).path(sha256: item.sha256, fileExtension: "jpg")
        #expect(FileManager.default.contents(atPath: fetched) == Data(photo))
        #expect(try b.store.entry(id: beach).media.count == 1)
        #expect(try a.everything() == b.everything())
        // An idle sealed sync is still one round trip.
        let before = server.fake.requests.count
        #expect(try await b.sync().isEmpty)
        #expect(server.fake.requests.count - before == 1)
    }

    @Test func anAccountInClearIsSealedThroughRPCAndItsClearObjectsRemoved() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let (email, a) = try await server.newPerson(password: "sea-breeze-42")
        let b = try await SupabaseDevice.logIn(try server.project, email, "sea-breeze-42")
        let marker = "marker" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let item = try a.mediaFile(Array(marker.utf8) + randomBytes(300_000))
        _ = try a.diary.draft(marker, media: [item])
        _ = try a.diary.page(marker, tags: [marker])
        try await a.sync()
        try await b.sync()
        let objects = "SELECT coalesce(string_agg(name, ' '), '') FROM storage.objects WHERE bucket_id = 'diary-media'"
        #expect(try await server.adminText(objects)?.contains(item.sha256) == true)

        let sealing = AccountSealing(store: a.store, credentials: try #require(try Credentials.load(a.paths)))
        try await sealing.prepare()
        let made = try DiaryKeys.create(account: a.credentials.userId, passphrase: "a passphrase for tests", cost: .floor)
        let outcome = try await sealing.seal(made.keys, envelope: made.envelope) {}
        #expect(outcome == AccountSealing.Outcome(pages: 2, settings: outcome.settings, files: 1))
        // One object left, the sealed one, through the Storage API; nothing in the rows reads.
        let names = try #require(try await server.adminText(objects))
        #expect(!names.contains(item.sha256) && !names.contains(".jpg") && names.split(separator: " ").count == 1, "\(names)")
        #expect(try await server.adminText("SELECT count(*) FROM diary.media_object") == "1")
        #expect(try await server.adminText("""
            SELECT count(*) FROM (SELECT doc::text AS t FROM diary.entry UNION ALL SELECT doc::text FROM diary.media
                                  UNION ALL SELECT doc::text FROM diary.message UNION ALL SELECT doc::text FROM diary.entry_tag
                                  UNION ALL SELECT name FROM diary.entry_tag UNION ALL SELECT value FROM diary.setting) x
             WHERE t LIKE '%\(marker.prefix(16))%' OR t LIKE '%\(item.sha256)%'
            """) == "0")
        #expect(server.requests("DELETE", "/storage/v1/object/").count == 1, "the clear object went through the Storage API")

        b.keys = SyncKeys(made.keys, paths: b.paths)
        let c = try await SupabaseDevice.logIn(try server.project, email, "sea-breeze-42")
        c.keys = SyncKeys(made.keys, paths: c.paths)
        #expect(try await c.sync().mediaFetched == 1)
        #expect(try a.everything() == c.everything() && b.everything() == c.everything())
    }

    @Test func aCodeByEmailLogsInAndWrongAnswersSayWhy() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let project = try server.project
        let email = randomEmail()
        _ = try await project.signUp(email: email, password: "long-enough-1")
        await #expect(throws: SyncError.auth(.alreadyRegistered(email))) { try await project.signUp(email: email, password: "another-one-2") }
        await #expect(throws: SyncError.auth(.wrongPassword)) { try await project.logIn(email: email, password: "not-it") }
        let stranger = randomEmail()
        await #expect(throws: SyncError.auth(.unknownEmail(stranger))) { try await project.sendCode(email: stranger) }

        try await project.sendCode(email: email)
        let code = try #require(server.fake.lastCode(for: email))
        let wrong = code == "000000" ? "111111" : "000000"
        await #expect(throws: SyncError.auth(.wrongCode)) { try await project.verify(email: email, code: wrong) }
        let (session, userId) = try await project.verify(email: email, code: code)
        #expect(session.email == email)
        let paths = DiaryPaths(homeFlag: "/nonexistent", environment: [:])
        #expect(try await Accounts.verifySession(session, paths: paths).userId == userId)
        await #expect(throws: SyncError.auth(.wrongCode), "a code works once") { try await project.verify(email: email, code: code) }
    }

    @Test func anotherPersonReachesNothingOfAlicesThroughRPCOrStorage() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let project = try server.project
        let alice = try await server.newPerson().device, bob = try await server.newPerson().device
        let item = try alice.mediaFile(randomBytes(5_000))
        let page = try alice.diary.draft("只屬於我的", media: [item])
        try await alice.sync()
        let name = "\(alice.credentials.userId)/\(page)/\(item.sha256).jpg"

        let bobServer = SupabaseServer(SupabaseTokens(try bob.session, paths: bob.paths))
        // RPC with Alice's ids.
        #expect(try await bobServer.presentMedia([item.sha256]).isEmpty)
        let pulled = try await bobServer.pull(after: 0, limit: 100, device: "bob")
        #expect(pulled["items"]?.arrayValue?.isEmpty == true)
        let record = try #require(try alice.store.entryRecords(ids: [page]).first)
        var stolen = record
        stolen.note = "Bob 改的"
        _ = try await bobServer.push(JSON.array([.object([("key", .string("bob-k1")), ("record", stolen.json)])]).serialized, device: "bob")
        #expect(try await server.adminText("SELECT doc->>'note' FROM diary.entry WHERE id = '\(page)' AND user_id = '\(alice.credentials.userId)'") == "只屬於我的",
                "Alice's page is unchanged whatever Bob's push did")
        let register = try await bobServer.rpc("register_object", JSON.object([
            ("sha", .string(item.sha256)), ("bytes", .int(5_000)), ("name", .string(name)),
        ]).serialized)
        #expect(register == .bool(false), "Bob cannot claim Alice's object")
        // Storage with Alice's path.
        let transfer = MediaTransfer(sha256: item.sha256, entryId: page, fileExtension: "jpg", bytes: 5_000)
        #expect(try await bobServer.download(transfer) { _ in true } == false)
        let token = try await bobServer.tokens.current()
        let read = try await project.send(.GET, "/storage/v1/object/authenticated/diary-media/\(name)", bearer: token)
        #expect(!read.ok)
        let write = try await project.send(.POST, "/storage/v1/object/diary-media/\(name)", bearer: token, headers: [("x-upsert", "true")],
                                           body: .init(string: "overwritten"))
        #expect(!write.ok, "Bob cannot overwrite Alice's file")
        #expect(try await server.adminText("SELECT metadata->>'size' FROM storage.objects WHERE name = '\(name)'") == "5000")
        // Not signed in at all: the anon key alone reaches nothing.
        let anonymous = try await project.send(.POST, "/rest/v1/rpc/pull", bearer: nil, headers: [("Content-Profile", "diary")],
                                               body: .init(string: #"{"after":0,"max_rows":10}"#))
        #expect(SupabaseProject.refusal(anonymous) == .permissionDenied)
    }

    @Test func anExpiredTokenMidPushIsRenewedOnceAndNothingIsDuplicated() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let device = try await server.newPerson(tokenSeconds: 2).device
        // The device believes its token good for an hour (a skewed clock); the server does not.
        var saved = try #require(try Credentials.load(device.paths))
        guard case var .supabase(session) = saved.login else { throw SyncError.notLoggedIn }
        let staleRefresh = session.refreshToken
        session.expiresAt = Int64(Date().timeIntervalSince1970) + 3600
        saved.login = .supabase(session)
        try saved.save(device.paths)
        for index in 0..<30 { try device.diary.page("第 \(index) 頁", tags: ["日常"]) }
        try await Task.sleep(for: .seconds(3))

        let report = try await device.sync()
        #expect(report.pushed == 30)
        #expect(server.refreshes == 1, "one refresh")
        #expect(try await server.adminText("SELECT count(*) FROM diary.entry") == "30", "no page twice")
        #expect(try device.session.refreshToken != staleRefresh, "the new refresh token is saved")
        #expect(try device.store.ledger.state().pending == 0)
        #expect(try await device.sync().isEmpty)
    }

    @Test func storageSayingTheTokenExpiredMidDownloadRenewsItToo() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let (email, a) = try await server.newPerson()
        let photo = randomBytes(40_000)
        let item = try a.mediaFile(photo)
        let page = try a.diary.draft("晚霞", media: [item])
        try await a.sync()
        let b = try await SupabaseDevice.logIn(try server.project, email, "a-long-pass-phrase")
        // B's token lapses between the media list and the download (its clock thinks otherwise).
        server.fake.accessTokenSeconds = 2
        var session = try await server.project.logIn(email: email, password: "a-long-pass-phrase").0
        server.fake.accessTokenSeconds = 3600
        session.expiresAt = Int64(Date().timeIntervalSince1970) + 3600
        try Credentials(login: .supabase(session), userId: b.credentials.userId).save(b.paths)
        let storage = SupabaseServer(SupabaseTokens(session, paths: b.paths))
        #expect(try await storage.presentMedia([item.sha256]) == [item.sha256])
        try await Task.sleep(for: .seconds(2.5))
        var received = Data()
        let transfer = MediaTransfer(sha256: item.sha256, entryId: page, fileExtension: "jpg", bytes: Int64(photo.count))
        #expect(try await storage.download(transfer) { received.append(contentsOf: $0.readableBytesView); return true })
        #expect(received == Data(photo))
        #expect(server.refreshes == 1)
    }

    @Test func twoRefreshingAtOnceShareOneRefreshAndKeepTheSession() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let device = try await server.newPerson(tokenSeconds: 30).device
        // Two keepers over the same credentials file: each opens the lock file itself, so they
        // exclude each other as two processes would.
        let session = try device.session
        let first = SupabaseTokens(session, paths: device.paths), second = SupabaseTokens(session, paths: device.paths)
        async let one = first.current()
        async let two = second.current()
        let tokens = try await [one, two]
        #expect(tokens[0] == tokens[1], "the second took the token the first saved")
        #expect(server.refreshes == 1, "a refresh token is spent once")
        #expect(try await device.sync().isEmpty, "the session lives on")
    }

    @Test func anEndedSessionKeepsEverythingQueuedAndSaysLogInAgain() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let device = try await server.newPerson(tokenSeconds: 30).device
        // Logged out elsewhere: the session and its refresh tokens are revoked.
        try await server.project.logOut(try device.session)
        try device.diary.page("離線也在", tags: ["日常"])
        let queued = try device.store.ledger.state().pending
        await #expect(throws: SyncError.auth(.sessionEnded)) { try await device.sync() }
        #expect(try queued > 0 && device.store.ledger.state().pending == queued, "nothing local is lost")
        #expect(try Credentials.load(device.paths) != nil)
    }

    @Test func aBigVideoGoesUpResumablyInSixMebibyteChunks() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let project = try server.project
        let (email, a) = try await server.newPerson(password: "big-video-99")
        let b = try await SupabaseDevice.logIn(project, email, "big-video-99")
        let video = randomBytes(13 << 20)
        let item = try a.mediaFile(video, ext: "mp4")
        try a.diary.draft("整段影片", media: [item])
        #expect(try await a.sync().mediaSent == 1)
        let patches = server.requests("PATCH", "/storage/v1/upload/resumable/")
        #expect(patches.map(\.body.count) == [6 << 20, 6 << 20, 1 << 20])
        #expect(patches.map { $0.header("upload-offset") } == ["0", String(6 << 20), String(12 << 20)])
        #expect(try await b.sync().mediaFetched == 1)
        let fetched = ContentAddressedFolder(b.store.paths.media).path(sha256: item.sha256, fileExtension: "mp4")
        #expect(FileManager.default.contents(atPath: fetched) == Data(video))
    }

    @Test func anUploadStoppedHalfWayGoesOnFromTheServersOffset() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let a = try await server.newPerson().device
        let video = randomBytes(19 << 20)
        let item = try a.mediaFile(video, ext: "mp4")
        try a.diary.draft("停下來再繼續", media: [item])
        let stopped = Task { try await a.sync() }
        while server.requests("PATCH", "/storage/v1/upload/resumable/").count < 2 { try await Task.sleep(for: .milliseconds(5)) }
        stopped.cancel()
        _ = await stopped.result
        let sentBefore = server.requests("PATCH", "/storage/v1/upload/resumable/").count
        #expect(try await a.sync().mediaSent == 1)
        let all = server.requests("PATCH", "/storage/v1/upload/resumable/")
        #expect(!server.requests("HEAD", "/storage/v1/upload/resumable/").isEmpty, "the rerun asked how far it got")
        #expect(all[sentBefore...].allSatisfy { $0.header("upload-offset") != "0" }, "nothing sent twice from the start")
        #expect(server.requests("POST", "/storage/v1/upload/resumable").count == 1, "the same upload went on")
        #expect(try await server.adminText("SELECT metadata->>'size' FROM storage.objects WHERE name LIKE '%\(item.sha256).mp4'") == String(19 << 20))
    }

    @Test func theOperatorsMediaLimitHoldsThroughStorage() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let device = try await server.newPerson().device
        let userId = device.credentials.userId
        try await server.adminExecute("UPDATE diary.account SET media_quota = 100000 WHERE user_id = '\(userId)'")
        try device.diary.draft("第一張", media: [try device.mediaFile(randomBytes(60_000))])
        try device.diary.draft("第二張", media: [try device.mediaFile(randomBytes(60_000))])
        let first = try await device.sync()
        #expect(first.pushed == 2 && first.mediaSent == 1 && first.mediaOverQuota == 1)
        #expect(try await server.adminText("SELECT media_bytes FROM diary.account WHERE user_id = '\(userId)'") == "60000",
                "a registered object counts like chunks")
        #expect(try await server.adminText("SELECT count(*) FROM storage.objects") == "1", "the file over the limit never travelled")

        // Past the device's own check, the server still refuses to count a file over the limit.
        let storage = SupabaseServer(SupabaseTokens(try device.session, paths: device.paths))
        let token = try await storage.tokens.current()
        let sha = String(repeating: "ab", count: 32), name = "\(userId)/e/\(sha).jpg"
        let sent = try await server.project.send(.POST, "/storage/v1/object/diary-media/\(name)", bearer: token, body: .init(bytes: randomBytes(50_000)))
        #expect(sent.ok)
        await #expect(throws: SyncError.mediaSpaceFull(waiting: 0)) {
            try await storage.rpc("register_object", JSON.object([("sha", .string(sha)), ("bytes", .int(50_000)), ("name", .string(name))]).serialized)
        }

        try await server.adminExecute("UPDATE diary.account SET media_quota = NULL WHERE user_id = '\(userId)'")
        let second = try await device.sync()
        #expect(second.mediaSent == 1 && second.mediaOverQuota == 0, "it goes up once the limit is raised")
    }

    @Test func theOperatorsCompanionLimitsAreCountedOnTheServer() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let alice = try await server.newPerson().device
        try await alice.sync()
        #expect(try CompanionGateway.signedIn(paths: alice.paths, store: alice.store) == nil, "no gateway named yet")

        try await server.adminExecute("""
            INSERT INTO diary.config VALUES ('gateway', '{"url": "http://127.0.0.1:9/v1", "model": "companion"}'),
                                            ('companion_limits', '{"replies_per_entry": 2, "pages_per_day": 1}')
            """)
        try await alice.sync()
        let gateway = try #require(try CompanionGateway.signedIn(paths: alice.paths, store: alice.store))
        #expect(gateway.url == "http://127.0.0.1:9/v1" && gateway.model == "companion" && !gateway.premium)
        #expect(try await gateway.accessToken() == (try alice.session.accessToken))

        try await gateway.count(.reply(entryId: "e1"))
        try await gateway.count(.reply(entryId: "e1"))
        await #expect(throws: CompanionError.turnLimitReached(limit: 2)) { try await gateway.count(.reply(entryId: "e1")) }
        try await gateway.count(.reply(entryId: "e2"))
        try await gateway.count(.page)
        await #expect(throws: CompanionError.pageLimitReached(limit: 1)) { try await gateway.count(.page) }
        let userId = alice.credentials.userId
        #expect(try await server.adminText("SELECT string_agg(kind || ':' || used, ',' ORDER BY kind, scope) FROM diary.companion_use WHERE user_id = '\(userId)'")
                == "page:1,reply:2,reply:1")
        // Only the counting function writes counts: the people's role may read its own rows.
        #expect(try await server.adminText("SELECT has_table_privilege('authenticated', 'diary.companion_use', 'INSERT')") == "false")
        #expect(try await server.adminText("SELECT has_table_privilege('authenticated', 'diary.companion_use', 'UPDATE')") == "false")
        #expect(try await server.adminText("SELECT has_table_privilege('authenticated', 'diary.companion_use', 'DELETE')") == "false")

        // Bob's counts are his own, even for an entry id of the same name.
        let bob = try await server.newPerson().device
        try await bob.sync()
        let bobs = try #require(try CompanionGateway.signedIn(paths: bob.paths, store: bob.store))
        try await bobs.count(.reply(entryId: "e1"))
        await #expect(throws: SyncError.serverState("22023")) {
            try await SupabaseServer(bobs.tokens).rpc("use_companion", #"{"what": "sideways"}"#)
        }

        // Premium lifts the limits, and the device learns it at its next sync.
        try await server.adminExecute("UPDATE diary.account SET premium = true WHERE user_id = '\(userId)'")
        try await alice.sync()
        let premium = try #require(try CompanionGateway.signedIn(paths: alice.paths, store: alice.store))
        #expect(premium.premium)
        try await premium.count(.page)
        try await premium.count(.reply(entryId: "e1"))

        // A limit the server cannot read counts as used up (F-020).
        try await server.adminExecute("UPDATE diary.account SET premium = false WHERE user_id = '\(userId)'")
        try await server.adminExecute(#"UPDATE diary.config SET value = '{"replies_per_entry": "plenty"}' WHERE key = 'companion_limits'"#)
        await #expect(throws: CompanionError.usageUnknown) { try await gateway.count(.reply(entryId: "e3")) }

        // Logging out forgets the gateway: a Postgres login or none has no session to send.
        try alice.store.ledger.unbindSyncUser()
        #expect(try CompanionGateway.signedIn(paths: alice.paths, store: alice.store) == nil)
    }

    @Test func deletingTheAccountRemovesEveryObjectEveryRowAndTheAuthUser() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let device = try await server.newPerson().device, stays = try await server.newPerson().device
        try device.diary.draft("要刪掉的", media: [try device.mediaFile(randomBytes(2_000))])
        try stays.diary.draft("留下來的", media: [try stays.mediaFile(randomBytes(3_000))])
        try await device.sync()
        try await stays.sync()
        let userId = device.credentials.userId
        let removed = try await Accounts.deleteAccount(store: device.store, credentials: device.credentials)
        #expect(removed > 0)
        #expect(try await server.adminText("SELECT count(*) FROM auth.users WHERE id = '\(userId)'") == "0", "the auth user is gone")
        let left = try await server.adminText("SELECT " + ["entry", "media", "message", "entry_tag", "setting", "push_receipt", "media_object", "account"]
            .map { "(SELECT count(*) FROM diary.\($0) WHERE user_id = '\(userId)')" }.joined(separator: " + "))
        #expect(left == "0")
        #expect(try await server.adminText("SELECT count(*) FROM storage.objects WHERE name LIKE '\(userId)/%'") == "0",
                "the objects went through the Storage API first")
        #expect(try await server.adminText("SELECT count(*) FROM diary.storage_removal") == "0", "nothing left for the operator")
        #expect(try await server.adminText("SELECT count(*) FROM storage.objects") == "1", "the other person's photo stays")
        #expect(try await server.adminText("SELECT count(*) FROM diary.deletion_audit") == "1")
        #expect(try Credentials.load(device.paths) == nil, "this device is logged out")
        #expect(try device.store.entryIds(includingDeleted: false).count == 1, "the local diary stays")
        #expect(try await stays.sync().isEmpty && stays.everything().count == 1, "the other person keeps everything")
    }

    @Test func noTokenOrKeyReachesTheDatabase() async throws {
        let server = try await SupabaseProjectUnderTest.make()
        let project = try server.project
        let device = try await server.newPerson(password: "secret-words-8").device
        try device.diary.page("一頁", tags: ["日常"])
        try await device.sync()
        let session = try device.session
        let file = Credentials.file(device.paths).path
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        let home = device.store.paths.home.path
        for name in try FileManager.default.contentsOfDirectory(atPath: home) where name.hasPrefix("diary.sqlite") {
            let bytes = try #require(FileManager.default.contents(atPath: home + "/" + name))
            for secret in [session.accessToken, session.refreshToken, project.anonKey, "secret-words-8"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(name) holds no credential")
            }
        }
        #expect(try await server.adminText("SELECT count(*) FROM diary.setting WHERE value::text LIKE '%\(session.refreshToken)%'") == "0")
    }
}
