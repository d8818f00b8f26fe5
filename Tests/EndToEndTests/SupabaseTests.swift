import DiaryKit
import FakeServers
import Foundation
import Testing

/// A Supabase-shaped database set up as an operator would (the diary's SQL by
/// `diary-sync server-init`), behind the fake Auth, PostgREST and Storage APIs. No live
/// Supabase project is used.
private struct Project {
    let admin: String
    let fake: FakeSupabase

    static func make(operator sandbox: Sandbox) async throws -> Project {
        let cluster = try #require(clusterURL)
        let name = "sb_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        #expect(try psql(cluster, "CREATE DATABASE \(name)").status == 0)
        let admin = cluster.replacing(/\/diary_test$/, with: "/\(name)")
        #expect(try psql(admin, supabaseShapeSQL).status == 0)
        let initialised = try await sandbox.runDetached("diary-sync", ["server-init", "--url", admin])
        #expect(initialised.status == 0, "\(initialised.stderr)")
        return Project(admin: admin, fake: try await FakeSupabase.start(databaseURL: admin))
    }

    var url: String { fake.baseURL }

    func count(_ sql: String) throws -> Int { Int(try psql(admin, sql).output) ?? -1 }

    var refreshes: Int { fake.requests.filter { $0.path == "/auth/v1/token" && $0.query["grant_type"] == "refresh_token" }.count }
}

@Suite("Sync through a Supabase project's APIs", .enabled(if: clusterURL != nil), .serialized)
struct SupabaseTests {
    private func device() throws -> Sandbox {
        let sandbox = try Sandbox()
        sandbox.language = "en_US.UTF-8"
        return sandbox
    }

    /// `--passphrase-file` with the diary passphrase the tests' devices give.
    private func passphrase(_ device: Sandbox) throws -> [String] {
        let file = device.root.appendingPathComponent("passphrase")
        try Data("a diary passphrase for tests\n".utf8).write(to: file)
        return ["--passphrase-file", file.path]
    }

    private func sync(_ device: Sandbox, _ arguments: [String] = []) async throws -> [String: Any] {
        let result = try await device.runDetached("diary-sync", arguments + ["--json"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.lines.first ?? [:]
    }

    @Test("sign up, log in elsewhere with a code, sync a photo both ways, watch by polling, log out, delete the account")
    func signUpSyncWatchAndLeave() async throws {
        let a = try device(), b = try device()
        let project = try await Project.make(operator: a)
        let email = "me-\(UUID().uuidString.prefix(6).lowercased())@example.com"

        let noKey = try await a.runDetached("diary-sync", ["signup", "--supabase", project.url, "--email", email, "--password-stdin"],
                                            input: Data("x\n".utf8))
        #expect(noKey.status == 64)
        #expect(noKey.stderr.contains("anon key"))
        let signup = try await a.runDetached("diary-sync", ["signup", "--supabase", project.url, "--anon-key", project.fake.anonKey,
                                                            "--email", email, "--password-stdin", "--accept-consent"] + passphrase(a),
                                             input: Data("tide-pools-and-shells\n".utf8))
        #expect(signup.status == 0, "\(signup.stderr)")
        #expect(signup.stderr.contains("Logged in"))
        #expect(!signup.stderr.contains("AI") && !signup.stderr.contains(project.fake.anonKey))
        let again = try await b.runDetached("diary-sync", ["signup", "--supabase", project.url, "--anon-key", project.fake.anonKey,
                                                           "--email", email, "--password-stdin"], input: Data("whatever-else-1\n".utf8))
        #expect(again.status == 73)
        #expect(again.stderr.contains("already signed up"))

        b.extraEnvironment["SUPABASE_ANON_KEY"] = project.fake.anonKey
        let sent = try await b.runDetached("diary-sync", ["login", "--supabase", project.url, "--email", email, "--send-code"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let code = try #require(project.fake.lastCode(for: email))
        let wrongCode = try await b.runDetached("diary-sync", ["login", "--supabase", project.url, "--email", email, "--code-stdin",
                                                               "--accept-consent"], input: Data((code == "123456" ? "654321" : "123456").utf8 + [10]))
        #expect(wrongCode.status == 77)
        #expect(wrongCode.stderr.contains("code is wrong"))
        let login = try await b.runDetached("diary-sync", ["login", "--supabase", project.url, "--email", email, "--code-stdin",
                                                           "--accept-consent"] + passphrase(b), input: Data((code + "\n").utf8))
        #expect(login.status == 0, "\(login.stderr)")

        let photo = try a.makeMedia("shells.jpg", size: "640x480")
        let shells = try a.savedPage("shells at low tide", photo: photo)
        let first = try await sync(a)
        #expect(first["pushed"] as? Int == 1 && first["media_sent"] as? Int == 1)
        #expect(try project.count("SELECT count(*) FROM storage.objects WHERE name LIKE '%/\(shells)/%'") == 1)
        let second = try await sync(b)
        #expect(second["pulled"] as? Int == 1 && second["media_fetched"] as? Int == 1)
        let shown = try b.run("diary-find", ["--show", shells, "--json"]).lines.first
        let path = try #require(((shown?["media"] as? [[String: Any]])?.first)?["path"] as? String)
        #expect(FileManager.default.contents(atPath: path) == FileManager.default.contents(atPath: photo.path))

        let status = try a.run("diary-sync", ["status", "--json"]).lines.first ?? [:]
        #expect(status["server"] as? String == project.url)
        #expect(status["account"] as? String == email)
        let credentials = a.root.appendingPathComponent("state/diary/credentials")
        #expect(try FileManager.default.attributesOfItem(atPath: credentials.path)[.posixPermissions] as? Int == 0o600)
        let saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: credentials)) as? [String: Any])
        let refresh = try #require(saved["refresh_token"] as? String)
        for name in try FileManager.default.contentsOfDirectory(atPath: a.home.path) where name.hasPrefix("diary.sqlite") {
            let bytes = try Data(contentsOf: a.home.appendingPathComponent(name))
            #expect(bytes.range(of: Data(refresh.utf8)) == nil && bytes.range(of: Data(project.fake.anonKey.utf8)) == nil)
        }

        // watch on B polls; a page written on A appears there.
        let (watcher, output, _) = try b.start("diary-sync", ["watch", "--json"])
        defer { if watcher.isRunning { watcher.interrupt() } }
        let seen = Locked("")
        DispatchQueue.global().async {
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return }
                seen.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
        try await Task.sleep(for: .seconds(1))
        let dunes = try a.savedPage("wind over the dunes", photo: photo)
        _ = try await sync(a)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !seen.withLock({ $0.contains("\"pulled\":1") }) { try await Task.sleep(for: .milliseconds(100)) }
        #expect(seen.withLock { $0 }.contains("\"pulled\":1"), "watch output: \(seen.withLock { $0 })")
        watcher.interrupt()
        watcher.waitUntilExit()
        #expect(try b.run("diary-find", ["--show", dunes, "--json"]).status == 0)

        // Logging out ends the session on the server too: its refresh token stops working.
        let logout = try await b.runDetached("diary-sync", ["logout"])
        #expect(logout.status == 0)
        let ended = try project.count("SELECT count(*) FROM auth.refresh_tokens WHERE revoked IS NOT TRUE AND user_id = (SELECT id::text FROM auth.users WHERE email = '\(email)')")
        #expect(ended == 1, "only A's session is left")

        let deleted = try await a.runDetached("diary-sync", ["delete-account", "--yes"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try project.count("SELECT count(*) FROM auth.users WHERE email = '\(email)'") == 0)
        #expect(try project.count("SELECT count(*) FROM diary.entry") == 0)
        #expect(try project.count("SELECT count(*) FROM storage.objects") == 0, "the photo went through the Storage API")
        #expect(try a.run("diary-find", ["--show", shells, "--json"]).status == 0, "the diary on this device stays")
        try await project.fake.shutdown()
    }

    @Test("the companion talks through the operator's gateway with the person's session; the server counts the limits")
    func operatorsGateway() async throws {
        let a = try device()
        let project = try await Project.make(operator: a)
        let gateway = try await FakeOpenAI.start(accepting: project.fake.acceptsAccessToken)
        defer { Task { try? await gateway.shutdown() } }
        #expect(try psql(project.admin, """
            INSERT INTO diary.config VALUES ('gateway', '{"url": "\(gateway.baseURL)", "model": "companion"}'),
                                            ('companion_limits', '{"replies_per_entry": 1, "pages_per_day": 1}')
            """).status == 0)
        let email = "gw-\(UUID().uuidString.prefix(6).lowercased())@example.com"
        let signup = try await a.runDetached("diary-sync", ["signup", "--supabase", project.url, "--anon-key", project.fake.anonKey,
                                                            "--email", email, "--password-stdin", "--accept-consent"] + passphrase(a),
                                             input: Data("gateway-walks-77\n".utf8))
        #expect(signup.status == 0, "\(signup.stderr)")
        _ = try await sync(a)
        // No provider, no key on this device: only the consent to send pages out.
        let folder = a.root.appendingPathComponent("config/diary")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "[companion]\nconsent = true\nretries = 0\n".write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)

        let photo = try a.makeMedia("harbour.jpg")
        let new = try await a.runDetached("diary-new", [photo.path, "--text", "the harbour at dusk"])
        #expect(new.status == 0, "\(new.stderr)")
        let entry = try #require(new.lines.first?["id"] as? String)
        let first = try await a.runDetached("diary-chat", [entry, "-m", "boats coming home"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.lines.compactMap { $0["provider"] as? String }.last == "gateway")
        let credentials = try JSONSerialization.jsonObject(with: Data(contentsOf: a.root.appendingPathComponent("state/diary/credentials"))) as? [String: Any]
        let token = try #require(credentials?["access_token"] as? String)
        #expect(!gateway.chatRequests.isEmpty && gateway.chatRequests.allSatisfy { $0.authorization == "Bearer \(token)" && $0.model == "companion" })
        #expect(gateway.server.requests.allSatisfy { $0.header("x-diary-premium") == "false" })

        // The second reply on this entry is past the operator's limit: the words are kept.
        let second = try await a.runDetached("diary-chat", [entry, "-m", "one more thing"])
        #expect(second.status == 69, "\(second.stderr)")
        #expect(second.stderr.contains("1 per entry"))
        let kept = try a.run("diary-find", ["--show", entry, "--json"]).stdout
        #expect(kept.contains("one more thing"))
        // Wiping the device's own counts changes nothing: the count is the server's.
        _ = try a.sql("DELETE FROM usage")
        #expect(try await a.runDetached("diary-chat", [entry, "-m", "and again"]).status == 69)
        #expect(try project.count("SELECT used FROM diary.companion_use WHERE kind = 'reply'") == 1)

        let saved = try await a.runDetached("diary-save", [entry])
        #expect(saved.status == 0, "\(saved.stderr)")
        let other = try await a.runDetached("diary-new", [photo.path, "--text", "a second walk"])
        let otherId = try #require(other.lines.first?["id"] as? String)
        let refused = try await a.runDetached("diary-save", [otherId])
        #expect(refused.status == 75 && refused.stderr.contains("1 a day"), "\(refused.stderr)")

        // Without the server the usage is unknown, and unknown counts as used up.
        try await project.fake.shutdown()
        let unknown = try await a.runDetached("diary-chat", [otherId, "-m", "is anyone there"])
        #expect(unknown.status == 75 && unknown.stderr.contains("Can't check your usage"), "\(unknown.stderr)")
        let requests = gateway.chatRequests.count
        #expect(try a.run("diary-find", ["--show", otherId, "--json"]).stdout.contains("is anyone there"))
        #expect(gateway.chatRequests.count == requests)
        for result in [new, first, second, saved, refused, unknown] {
            #expect(!result.stderr.contains(token) && !result.stdout.contains(token) && !result.stderr.contains("AI"))
        }
        #expect(!(try a.snapshot()).contains(token), "the session token is not in the diary")
    }

    @Test("two processes renewing one session at once, and kill -9 after the server committed")
    func raceAndKill() async throws {
        let a = try device()
        let project = try await Project.make(operator: a)
        let email = "race-\(UUID().uuidString.prefix(6).lowercased())@example.com"
        // Within the minute before expiry: each process renews before its first request.
        project.fake.accessTokenSeconds = 30
        let signup = try await a.runDetached("diary-sync", ["signup", "--supabase", project.url, "--anon-key", project.fake.anonKey,
                                                            "--email", email, "--password-stdin", "--accept-consent"] + passphrase(a),
                                             input: Data("racing-clocks-77\n".utf8))
        #expect(signup.status == 0, "\(signup.stderr)")
        project.fake.accessTokenSeconds = 3600
        async let one = a.runDetached("diary-sync", ["pull"])
        async let two = a.runDetached("diary-sync", ["pull"])
        let both = try await [one, two]
        #expect(both.map(\.status) == [0, 0], "\(both.map(\.stderr))")
        #expect(project.refreshes == 1, "one refresh, the other process took its token")
        #expect(try await a.runDetached("diary-sync", []).status == 0, "the session lives on")

        let photo = try a.makeMedia("kite.jpg")
        for text in ["one", "two", "three"] { try a.savedPage(text, photo: photo) }
        a.extraEnvironment["DIARY_SYNC_PAUSE"] = "after-push:60"
        let (process, _, _) = try a.start("diary-sync", [])
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, try project.count("SELECT count(*) FROM diary.entry") < 3 { try await Task.sleep(for: .milliseconds(100)) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        a.extraEnvironment = [:]
        let rerun = try await sync(a)
        #expect(rerun["pushed"] as? Int == 3)
        #expect(try project.count("SELECT count(*) FROM diary.entry") == 3)
        #expect(try project.count("SELECT count(*) FROM diary.push_receipt") == 3)
        try await project.fake.shutdown()
    }
}
