import Foundation
import Testing

/// The throwaway cluster the test script started (`scripts/pg-cluster.sh`).
let clusterURL = ProcessInfo.processInfo.environment["DIARY_TEST_PG_URL"]
private let clusterDir = ProcessInfo.processInfo.environment["DIARY_TEST_PG_DIR"]


/// A fresh database with the diary server installed by `diary-sync server-init`, and one
/// login made by `diary-sync user-add`.
struct SyncServer {
    let admin: String
    let user: String
    let password: String
    let userId: String
    var userURL: String { admin.replacing(/\/\/[^@]*@/, with: "//\(user)@") }

    static func make(operator sandbox: Sandbox) throws -> SyncServer {
        let cluster = try #require(clusterURL)
        let name = "e_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        #expect(try psql(cluster, "CREATE DATABASE \(name)").status == 0)
        let admin = cluster.replacing(/\/diary_test$/, with: "/\(name)")
        let initialised = try sandbox.run("diary-sync", ["server-init", "--url", admin])
        #expect(initialised.status == 0, "\(initialised.stderr)")
        let user = "alice_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(8)
        let added = try sandbox.run("diary-sync", ["user-add", user, "--url", admin, "--json"])
        #expect(added.status == 0, "\(added.stderr)")
        let line = try #require(added.lines.first)
        return SyncServer(admin: admin, user: user, password: try #require(line["password"] as? String),
                          userId: try #require(line["user_id"] as? String))
    }

    /// The diary passphrase the tests' devices give (from a file, as scripts do).
    static let passphrase = "a diary passphrase for tests"

    /// Logs a device in with the password on stdin, accepting the server's terms: sealed (the
    /// default for a new account; the passphrase read from a file), or in clear.
    func login(_ device: Sandbox, sealed: Bool = true) throws -> RunResult {
        let file = device.root.appendingPathComponent("passphrase")
        try Data((Self.passphrase + "\n").utf8).write(to: file)
        return try device.run("diary-sync", ["login", "--url", userURL, "--password-stdin", "--accept-consent"]
                                  + (sealed ? ["--passphrase-file", file.path] : ["--no-seal"]), stdin: password + "\n")
    }

    func count(_ table: String) throws -> Int {
        Int(try psql(admin, "SELECT count(*) FROM diary.\(table)").output) ?? -1
    }
}

@Suite("Sync through a real Postgres", .enabled(if: clusterURL != nil), .serialized)
struct SyncTests {
    private func device() throws -> Sandbox {
        let sandbox = try Sandbox()
        sandbox.language = "en_US.UTF-8"
        return sandbox
    }

    private func sync(_ device: Sandbox, _ arguments: [String] = []) throws -> [String: Any] {
        let result = try device.run("diary-sync", arguments + ["--json"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.lines.first ?? [:]
    }

    /// Every entry with its chat as `diary-find` prints it, file paths relative to the diary.
    private func everything(_ device: Sandbox) throws -> String {
        try device.run("diary-find", ["--full", "--json"]).stdout.replacingOccurrences(of: device.home.path, with: "$DIARY_HOME")
    }

    @Test("login, sync both ways with media, status, no password anywhere, and watch sees another device")
    func loginSyncAndWatch() async throws {
        let a = try device(), b = try device()
        let server = try SyncServer.make(operator: a)

        let early = try a.run("diary-sync", [])
        #expect(early.status == 77)
        #expect(early.stderr.contains("Not logged in"))
        #expect(early.stdout.isEmpty)
        let wrong = try a.run("diary-sync", ["login", "--url", server.userURL, "--password-stdin", "--accept-consent"], stdin: "wrong\n")
        #expect(wrong.status == 77)
        #expect(wrong.stderr.contains("Permission denied"))

        let login = try server.login(a)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("InnerBloom"), "the server's terms are shown")
        #expect(!login.stderr.contains("AI"))
        let credentials = a.root.appendingPathComponent("state/diary/credentials")
        let mode = try FileManager.default.attributesOfItem(atPath: credentials.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try server.login(b).status == 0)

        let photo = try a.makeMedia("beach.jpg", size: "640x480")
        let beach = try a.savedPage("windy at the beach", photo: photo)
        let first = try sync(a)
        #expect(first["pushed"] as? Int == 1)
        #expect(first["media_sent"] as? Int == 1)
        let second = try sync(b)
        #expect(second["pulled"] as? Int == 1)
        #expect(second["media_fetched"] as? Int == 1)
        _ = try sync(a)
        #expect(try everything(a) == everything(b))
        #expect(try everything(b).contains(beach))
        let shown = try b.run("diary-find", ["--show", beach, "--json"]).lines.first
        let path = try #require(((shown?["media"] as? [[String: Any]])?.first)?["path"] as? String)
        #expect(FileManager.default.contents(atPath: path) == FileManager.default.contents(atPath: photo.path))

        let status = try a.run("diary-sync", ["status", "--json"]).lines.first ?? [:]
        #expect(status["logged_in"] as? Bool == true)
        #expect(status["pending"] as? Int == 0)
        #expect(status["last_sync_at"] is String)
        #expect(!(status["server"] as? String ?? "").contains(server.password))

        // The password lives in the credentials file only.
        for file in [a.home.appendingPathComponent("diary.sqlite"), a.home.appendingPathComponent("diary.sqlite-wal")] {
            let bytes = FileManager.default.contents(atPath: file.path) ?? Data()
            #expect(bytes.range(of: Data(server.password.utf8)) == nil)
        }
        let dump = try shell(["pg_dump", server.admin]).output
        #expect(dump.contains("diary.entry"))
        #expect(!dump.contains(server.password))
        if let clusterDir {
            let log = (try? String(contentsOfFile: clusterDir + "/server.log", encoding: .utf8)) ?? ""
            #expect(!log.contains(server.password))
        }

        // watch on B; a page written on A appears there.
        let (watcher, output, _) = try b.start("diary-sync", ["watch", "--json"])
        defer { if watcher.isRunning { watcher.interrupt() } }
        try await Task.sleep(for: .seconds(1.5))
        let hill = try a.savedPage("clouds on the hill", photo: photo)
        _ = try sync(a)
        let deadline = Date().addingTimeInterval(20)
        var seen = ""
        while Date() < deadline, !seen.contains("\"pulled\":1") {
            let chunk = output.fileHandleForReading.availableData
            seen += String(decoding: chunk, as: UTF8.self)
        }
        #expect(seen.contains("\"pulled\":1"), "watch output: \(seen)")
        #expect(try everything(b).contains(hill))
        watcher.interrupt()
    }

    @Test("a sealed diary: a wrong passphrase keeps nothing, the recovery key sets a new one, keys status, passphrase and rotate")
    func sealedDiaryKeys() async throws {
        let a = try device(), b = try device(), c = try device()
        let server = try SyncServer.make(operator: a)
        let first = try server.login(a)
        #expect(first.status == 0, "\(first.stderr)")
        let recoveryKey = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(recoveryKey.wholeMatch(of: /([0-9A-Z]{4}-){13}[0-9A-Z]{4}/) != nil, "the recovery key, alone on stdout")
        #expect(first.stderr.contains("recovery key") && !first.stderr.contains(recoveryKey))
        let keyFile = a.root.appendingPathComponent("state/diary/keys")
        #expect(try FileManager.default.attributesOfItem(atPath: keyFile.path)[.posixPermissions] as? Int == 0o600)
        let page = try a.savedPage("a page only its devices can read", photo: try a.makeMedia("tide.jpg"))
        _ = try sync(a)
        let status = try a.run("diary-sync", ["keys", "status", "--json"]).lines.first ?? [:]
        #expect(status["sealed"] as? Bool == true && status["items_key"] as? Int == 1 && status["on_this_device"] as? Bool == true)
        #expect(status["ops"] as? Int == 3 && status["mem"] as? Int == 256 << 20)

        // A wrong passphrase: 77, and neither keys nor a login stay behind.
        let wrongFile = b.root.appendingPathComponent("wrong")
        try Data("not the passphrase at all\n".utf8).write(to: wrongFile)
        let wrong = try b.run("diary-sync", ["login", "--url", server.userURL, "--password-stdin", "--accept-consent",
                                             "--passphrase-file", wrongFile.path], stdin: server.password + "\n")
        #expect(wrong.status == 77)
        #expect(wrong.stderr.contains("passphrase does not open"))
        for name in ["keys", "credentials"] {
            #expect(!FileManager.default.fileExists(atPath: b.root.appendingPathComponent("state/diary/\(name)").path))
        }
        let noPassphrase = try b.run("diary-sync", ["login", "--url", server.userURL, "--password-stdin", "--accept-consent"],
                                     stdin: server.password + "\n")
        #expect(noPassphrase.status == 64 && noPassphrase.stderr.contains("--passphrase-file"))

        // The recovery key opens it on C and sets a new passphrase; only the envelope changes.
        let rows = "SELECT md5(string_agg(doc::text, '' ORDER BY id)) FROM diary.entry"
        let before = try psql(server.admin, rows).output
        let newFile = c.root.appendingPathComponent("new")
        try Data("a brand new passphrase\n".utf8).write(to: newFile)
        let recovered = try c.run("diary-sync", ["login", "--url", server.userURL, "--password-stdin", "--accept-consent",
                                                 "--recovery-key", "-", "--passphrase-file", newFile.path],
                                  stdin: server.password + "\n" + recoveryKey.lowercased().replacingOccurrences(of: "-", with: " ") + "\n")
        #expect(recovered.status == 0, "\(recovered.stderr)")
        #expect(try psql(server.admin, rows).output == before)
        #expect(try server.login(b).status == 77, "the old passphrase no longer opens it")
        let renewed = try b.run("diary-sync", ["login", "--url", server.userURL, "--password-stdin", "--accept-consent",
                                               "--passphrase-file", newFile.path], stdin: server.password + "\n")
        #expect(renewed.status == 0, "\(renewed.stderr)")
        #expect(try sync(b)["pulled"] as? Int == 1)
        #expect(try everything(b).contains(page))
        #expect(try everything(a) == everything(b))

        // A new passphrase from A, then a new items key: B, with the old keys, still reads what comes.
        let changed = try a.run("diary-sync", ["keys", "passphrase", "--passphrase-file", wrongFile.path])
        #expect(changed.status == 0, "\(changed.stderr)")
        let rotated = try a.run("diary-sync", ["keys", "rotate"])
        #expect(rotated.status == 0 && rotated.stderr.contains("Items key 2"), "\(rotated.stderr)")
        let later = try a.savedPage("after the rotation", photo: try a.makeMedia("later.jpg"))
        _ = try sync(a)
        #expect(try psql(server.admin, "SELECT doc->'parts'->'content'->>'box' FROM diary.entry WHERE id = '\(later)'").output.hasPrefix("ib1.2."))
        #expect(try sync(b)["pulled"] as? Int == 1)
        #expect(try everything(a) == everything(b))
        let onB = try b.run("diary-sync", ["keys", "--json"]).lines.first ?? [:]
        #expect(onB["items_key"] as? Int == 2 && onB["device_items_key"] as? Int == 2)

        // Leaving takes the envelope and the key file too.
        let deleted = try a.run("diary-sync", ["delete-account", "--yes"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try psql(server.admin, "SELECT count(*) FROM diary.key_envelope").output == "0")
        #expect(!FileManager.default.fileExists(atPath: keyFile.path))
    }

    @Test("on a terminal the passphrase is asked twice, hidden, and two different ones change nothing")
    func passphraseOnATerminal() async throws {
        let a = try device(), b = try device()
        let server = try SyncServer.make(operator: a)
        func login(_ device: Sandbox, _ first: String, _ second: String, until last: String) throws -> (status: Int32, screen: String) {
            let terminal = try PseudoTerminal()
            let process = try terminal.launch("diary-sync", ["login", "--url", server.userURL, "--accept-consent"], in: device, controlling: true)
            var screen = terminal.read(until: "Password for")
            terminal.type(server.password + "\n")
            screen += terminal.read(until: "passphrase (not your login password")
            terminal.type(first + "\n")
            screen += terminal.read(until: "again")
            terminal.type(second + "\n")
            screen += terminal.read(until: last)
            process.waitUntilExit()
            return (process.terminationStatus, screen)
        }
        let differ = try login(a, "one passphrase here", "another one here", until: "differ")
        #expect(differ.status == 64, "\(differ.screen)")
        #expect(differ.screen.contains("differ"))
        #expect(!FileManager.default.fileExists(atPath: a.root.appendingPathComponent("state/diary/credentials").path))
        let made = try login(b, "the same passphrase", "the same passphrase", until: "Logged in")
        #expect(made.status == 0, "\(made.screen)")
        #expect(!made.screen.contains("the same passphrase") && !made.screen.contains(server.password), "nothing typed is echoed")
        #expect(made.screen.contains("recovery key"))
        #expect(FileManager.default.fileExists(atPath: b.root.appendingPathComponent("state/diary/keys").path))
    }

    @Test("kill -9 after the server committed, then a rerun: nothing is duplicated")
    func killedAfterCommit() async throws {
        let a = try device(), b = try device()
        let server = try SyncServer.make(operator: a)
        #expect(try server.login(a).status == 0)
        #expect(try server.login(b).status == 0)
        let photo = try a.makeMedia("cat.jpg")
        for text in ["one", "two", "three"] { try a.savedPage(text, photo: photo) }

        let queued = try a.run("diary-sync", ["status", "--json"]).lines.first?["pending"] as? Int
        a.extraEnvironment["DIARY_SYNC_PAUSE"] = "after-push:60"
        let (process, _, _) = try a.start("diary-sync", [])
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, try server.count("entry") < 3 { try await Task.sleep(for: .milliseconds(100)) }
        #expect(try server.count("entry") == 3)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        a.extraEnvironment = [:]
        let pending = try a.run("diary-sync", ["status", "--json"]).lines.first?["pending"] as? Int
        #expect(pending == queued, "the outbox was not cleared before the kill")

        let rerun = try sync(a)
        #expect(rerun["pushed"] as? Int == 3)
        #expect(try server.count("entry") == 3)
        #expect(try server.count("message") == 9)
        #expect(try server.count("push_receipt") == 3)
        #expect(try sync(b)["pulled"] as? Int == 3)
        #expect(try b.run("diary-find", ["--json"]).lines.count == 3)
    }

    @Test("a full media space: pages sync, files stay here (69, in words), and go up once the operator raises the limit")
    func mediaSpaceFull() throws {
        let a = try device(), b = try device()
        let server = try SyncServer.make(operator: a)
        #expect(try server.login(a).status == 0)
        #expect(try server.login(b).status == 0)
        let limited = try a.run("diary-sync", ["quota", "--url", server.admin, "--user", server.user, "1K", "--json"])
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(limited.lines.first?["limit_bytes"] as? Int == 1000)
        #expect(limited.lines.first?["used_bytes"] as? Int == 0)
        try a.savedPage("by the river", photo: try a.makeMedia("river.jpg"))
        try a.savedPage("at the market", photo: try a.makeMedia("market.jpg", size: "400x300"))

        let full = try a.run("diary-sync", ["--json"])
        #expect(full.status == 69)
        #expect(full.stderr.contains("media space on the server is used up"), "\(full.stderr)")
        #expect(full.stderr.contains("2 media files stay on this device"))
        let report = try #require(full.lines.first)
        #expect(report["pushed"] as? Int == 2)
        #expect(report["media_sent"] as? Int == 0)
        #expect(report["media_over_quota"] as? Int == 2)
        #expect(try server.count("entry") == 2)
        #expect(try server.count("media_object") == 0)
        let status = try a.run("diary-sync", ["status", "--json"])
        #expect(status.lines.first?["last_error"] as? String == "media space used up")
        a.language = "zh_TW.UTF-8"
        let again = try a.run("diary-sync", [])
        #expect(again.status == 69)
        #expect(again.stderr.contains("伺服器上你的媒體空間已經用完"))
        #expect(!again.stdout.contains("已是最新"))
        a.language = "en_US.UTF-8"

        // The operator's mistakes are named.
        let badSize = try a.run("diary-sync", ["quota", "--url", server.admin, "lots"])
        #expect(badSize.status == 64)
        #expect(badSize.stderr.contains("Cannot understand this size"))
        let nobody = try a.run("diary-sync", ["quota", "--url", server.admin, "--user", "nobody_here", "2G"])
        #expect(nobody.status == 66)
        #expect(nobody.stderr.contains("No such login on the server"))

        let lifted = try a.run("diary-sync", ["quota", "--url", server.admin, "--user", server.user, "none", "--readable"])
        #expect(lifted.status == 0, "\(lifted.stderr)")
        #expect(lifted.stdout.contains("limit none"))
        #expect(try sync(a)["media_sent"] as? Int == 2)
        #expect(try server.count("media_object") == 2)
        let pulled = try sync(b)
        #expect(pulled["pulled"] as? Int == 2)
        #expect(pulled["media_fetched"] as? Int == 2)
    }

    @Test("the server restarted mid-batch: exit 75, nothing lost, a rerun finishes")
    func serverRestartMidBatch() async throws {
        let dir = try #require(clusterDir)
        let a = try device(), b = try device()
        let server = try SyncServer.make(operator: a)
        #expect(try server.login(a).status == 0)
        #expect(try server.login(b).status == 0)
        let photo = try a.makeMedia("dog.jpg")
        for index in 0..<25 {
            let result = try a.run("diary-new", [photo.path, "--text", "note \(index)"])
            #expect(result.status == 0)
        }
        a.extraEnvironment["DIARY_SYNC_PAUSE"] = "after-push:3"
        let syncing = Task { try await a.runDetached("diary-sync", []) }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, try server.count("entry") < 20 { try await Task.sleep(for: .milliseconds(100)) }
        let restarted = try await Self.restartServer(dir)
        #expect(restarted == 0, "\((try? String(contentsOfFile: dir + "/restart.log", encoding: .utf8)) ?? "")")
        let interrupted = try await syncing.value
        a.extraEnvironment = [:]
        #expect(interrupted.status == 75, "\(interrupted.stderr)")
        #expect(interrupted.stderr.contains("kept on this device"))
        // The next batch travels while the first one's answer is settled: when the server
        // went down it had committed that one whole or not at all, never half.
        let onServer = try server.count("entry")
        #expect(onServer == 20 || onServer == 25)

        #expect(try sync(a)["pushed"] as? Int ?? -1 <= 5)
        #expect(try server.count("entry") == 25)
        #expect(try server.count("push_receipt") == 25, "nothing applied twice")
        #expect(try sync(b)["pulled"] as? Int == 25)
    }

    @Test("a long and a short transaction committing out of order are both pulled")
    func outOfOrderCommits() async throws {
        let a = try device(), b = try device(), c = try device()
        let server = try SyncServer.make(operator: a)
        // In clear: session 1 below pushes an exported record by hand, as no device of a
        // sealed diary could.
        for device in [a, b, c] { #expect(try server.login(device, sealed: false).status == 0) }
        let photo = try a.makeMedia("sea.jpg")
        let long = try a.savedPage("the long one", photo: photo)
        // The exact record A would push, taken from an export.
        let archive = a.root.appendingPathComponent("long.tar")
        #expect(try a.run("diary-sync", ["export", long, "-o", archive.path]).status == 0)
        let record = try #require(try shell(["tar", "-xOf", archive.path, "entries.jsonl"]).output
            .split(separator: "\n").first.map(String.init))
        let quoted = record.replacingOccurrences(of: "'", with: "''")

        // Session 1 pushes inside a transaction and holds it open.
        let session = Process()
        session.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        session.arguments = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", server.userURL]
        session.environment = ["PATH": "/usr/bin:/bin", "PGPASSWORD": server.password]
        let input = Pipe()
        session.standardInput = input
        session.standardOutput = FileHandle.nullDevice
        try session.run()
        input.fileHandleForWriting.write(Data("BEGIN;\nSELECT diary.push('[{\"key\": \"long\", \"record\": \(quoted)}]'::jsonb);\n".utf8))
        try await Task.sleep(for: .seconds(1))

        // Meanwhile C pushes a short one: it waits for the long one instead of overtaking it.
        let short = try c.savedPage("the short one", photo: photo)
        let shortPush = Task { try await c.runDetached("diary-sync", ["push"]) }
        try await Task.sleep(for: .seconds(1))
        #expect(try sync(b, ["pull"])["pulled"] as? Int == 0, "nothing is visible before the commits")

        input.fileHandleForWriting.write(Data("COMMIT;\n".utf8))
        try input.fileHandleForWriting.close()
        session.waitUntilExit()
        #expect(session.terminationStatus == 0)
        #expect(try await shortPush.value.status == 0)

        #expect(try sync(b, ["pull"])["pulled"] as? Int == 2)
        let found = try everything(b)
        #expect(found.contains(long) && found.contains(short))
        let order = try psql(server.admin, "SELECT string_agg(id, ',' ORDER BY server_seq) FROM diary.entry").output
        #expect(order == "\(long),\(short)")
    }

    @Test("persona and language set on one device follow the person to the others (F-019)")
    func settingsFollowThePerson() throws {
        let a = try device(), b = try device()
        b.language = "zh_TW.UTF-8"
        let server = try SyncServer.make(operator: a)
        #expect(try server.login(a).status == 0)
        #expect(try server.login(b).status == 0)
        #expect(try a.run("diary-sync", ["set", "persona", "fun"]).status == 0)
        #expect(try a.run("diary-sync", ["set", "language", "en"]).status == 0)
        let bogus = try a.run("diary-sync", ["set", "persona", "nobody"])
        #expect(bogus.status == 64)
        #expect(try b.run("diary-sync", ["status", "--readable"]).stdout.contains("等待同步"))
        _ = try sync(a)
        _ = try sync(b)
        let settings = try b.run("diary-sync", ["set", "--json"]).lines
        #expect(settings.first { $0["key"] as? String == "persona" }?["value"] as? String == "fun")
        #expect(try b.run("diary-sync", ["status", "--readable"]).stdout.contains("Waiting"), "B now speaks English")
        #expect(try b.run("diary-sync", ["status", "--readable", "--lang", "zh-Hant"]).stdout.contains("等待同步"), "--lang still wins")
    }

    @Test("offline, refused credentials and an uninitialised server: clear words, right status, nothing lost")
    func failures() throws {
        let a = try device()
        let server = try SyncServer.make(operator: a)
        #expect(try server.login(a).status == 0)
        let photo = try a.makeMedia("x.jpg")
        try a.savedPage("kept safe", photo: photo)
        let before = try a.run("diary-sync", ["status", "--json"]).lines.first?["pending"] as? Int

        // The server is gone: the credentials point at a closed port.
        let file = a.root.appendingPathComponent("state/diary/credentials")
        let saved = try String(contentsOf: file, encoding: .utf8)
        let closed = saved.replacing(/127\.0\.0\.1:\d+/, with: "127.0.0.1:9")
        try closed.write(to: file, atomically: true, encoding: .utf8)
        chmod(file.path, 0o600)
        let offline = try a.run("diary-sync", [])
        #expect(offline.status == 75)
        #expect(offline.stderr.contains("Sync failed; everything is kept on this device"))
        #expect(offline.stdout.isEmpty)
        #expect(try a.run("diary-sync", ["status", "--json"]).lines.first?["pending"] as? Int == before)
        let zh = try a.run("diary-sync", ["--lang", "zh-Hant"])
        #expect(zh.stderr.contains("雲端同步失敗，已保留在本機，稍後會再試"))
        // What is no sync says what happened instead: the server is out of reach, nothing changed.
        for arguments in [["keys", "status"], ["server-init", "--url", "postgres://x:y@127.0.0.1:9/db"],
                          ["quota", "--url", "postgres://x:y@127.0.0.1:9/db"]] {
            let unreachable = try a.run("diary-sync", arguments)
            #expect(unreachable.status == 75, "\(arguments)")
            #expect(unreachable.stderr.contains("Cannot reach the server") && !unreachable.stderr.contains("Sync failed"),
                    "\(arguments): \(unreachable.stderr)")
        }
        let login = try a.run("diary-sync", ["login", "--url", "postgres://x@127.0.0.1:9/db", "--password-stdin", "--lang", "zh-Hant"],
                              stdin: "y\n")
        #expect(login.status == 75 && login.stderr.contains("連不上伺服器"), "\(login.stderr)")

        // A credentials file others can read is refused.
        try saved.write(to: file, atomically: true, encoding: .utf8)
        chmod(file.path, 0o644)
        let exposed = try a.run("diary-sync", [])
        #expect(exposed.status == 77)
        #expect(exposed.stderr.contains("chmod 600"))
        chmod(file.path, 0o600)

        // A database without the diary's tables.
        let bare = try device()
        let name = "bare_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(8)
        #expect(try psql(try #require(clusterURL), "CREATE DATABASE \(name)").status == 0)
        let bareURL = try #require(clusterURL).replacing(/\/diary_test$/, with: "/\(name)")
        let notReady = try bare.run("diary-sync", ["login", "--url", bareURL, "--accept-consent"])
        #expect(notReady.status == 69)
        #expect(notReady.stderr.contains("server-init"))
    }

    @Test("another person cannot read, count or change anything, whatever SQL they send")
    func isolation() throws {
        let a = try device(), b = try device()
        let alice = try SyncServer.make(operator: a)
        let bobAdded = try a.run("diary-sync", ["user-add", "bob_" + alice.user.suffix(8), "--url", alice.admin, "--json"])
        #expect(bobAdded.status == 0, "\(bobAdded.stderr)")
        let bobPassword = try #require(bobAdded.lines.first?["password"] as? String)
        let bobURL = alice.admin.replacing(/\/\/[^@]*@/, with: "//bob_\(alice.user.suffix(8)):\(bobPassword)@")
        // In clear, so that the last check can read Alice's words back as her admin.
        #expect(try alice.login(a, sealed: false).status == 0)
        let photo = try a.makeMedia("secret.jpg")
        try a.savedPage("alice's secret", photo: photo)
        _ = try sync(a)
        #expect(try alice.count("entry") == 1)

        for table in ["entry", "message", "media", "entry_tag", "setting", "media_chunk", "media_object", "conflict", "push_receipt"] {
            #expect(try psql(bobURL, "SELECT count(*) FROM diary.\(table)").output == "0", "\(table)")
        }
        #expect(try psql(bobURL, "SELECT count(*) FROM diary.account").output == "1", "only his own account row")
        #expect(try psql(bobURL, "UPDATE diary.entry SET doc = '{}'::jsonb RETURNING id").output.isEmpty)
        #expect(try psql(bobURL, "DELETE FROM diary.media_chunk RETURNING n").output.isEmpty)
        let forged = try psql(bobURL, """
            INSERT INTO diary.entry(user_id, id, hlc, device_id, deleted, created_at, occurred_at, doc, server_seq)
            VALUES ('\(alice.userId)', 'x', 'x', 'x', false, now(), now(), '{}', 1)
            """)
        #expect(forged.status != 0 && forged.output.contains("row-level security"), "\(forged.output)")
        #expect(try psql(bobURL, "SELECT diary.push('[]'::jsonb, 'd')").status == 0, "his own push works")
        #expect(try psql(bobURL, "SELECT count(*) FROM diary.deletion_audit").status != 0)
        #expect(try psql(bobURL, "SET ROLE \(alice.user)").status != 0)
        #expect(try alice.count("entry") == 1)
        #expect(try psql(alice.admin, "SELECT doc->>'note' FROM diary.entry").output == "alice's secret")
        _ = b
    }

    @Test("logout --wipe-local clears this device and a new login brings it all back; delete-account empties the server")
    func logoutAndDeleteAccount() throws {
        let a = try device(), b = try device()
        let server = try SyncServer.make(operator: a)
        #expect(try server.login(a).status == 0)
        let photo = try a.makeMedia("home.jpg")
        let id = try a.savedPage("home", photo: photo)
        _ = try sync(a)

        let refused = try a.run("diary-sync", ["logout", "--wipe-local"])
        #expect(refused.status == 64, "no terminal to confirm on: nothing happens")
        #expect(try a.run("diary-find", ["--json"]).lines.count == 1)
        let wiped = try a.run("diary-sync", ["logout", "--wipe-local", "--yes"])
        #expect(wiped.status == 0)
        #expect(try a.run("diary-find", ["--json"]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: a.root.appendingPathComponent("state/diary/credentials").path))
        #expect(try server.login(a).status == 0)
        #expect(try sync(a)["pulled"] as? Int == 1)
        #expect(try a.run("diary-find", ["--show", id, "--json"]).status == 0)

        #expect(try server.login(b).status == 0)
        let deleted = try a.run("diary-sync", ["delete-account", "--yes"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        for table in ["entry", "message", "media_chunk", "media_object", "account"] { #expect(try server.count(table) == 0, "\(table)") }
        let audit = try psql(server.admin, "SELECT user_hash FROM diary.deletion_audit").output
        #expect(audit.count == 64)
        #expect(!audit.contains(server.userId))
        #expect(try a.run("diary-sync", ["status", "--json"]).lines.first?["logged_in"] as? Bool == false)
        #expect(try a.run("diary-find", ["--show", id, "--json"]).status == 0, "the local diary stays")
        let again = try b.run("diary-sync", [])
        #expect(again.status == 77)
    }

    /// Restarts the test cluster and returns the script's exit status. Spawned and reaped
    /// by hand, output to DIR/restart.log: Foundation's Process missed the exit of this
    /// script (whose server, started through runuser, outlives it) and waited forever.
    static func restartServer(_ dir: String) async throws -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let arguments = [repository + "/scripts/pg-cluster.sh", "restart", dir]
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 1, dir + "/restart.log", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
                var argv = arguments.map { strdup($0) } + [nil]
                defer { argv.forEach { free($0) } }
                var pid: pid_t = 0
                guard posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0 else {
                    continuation.resume(returning: -1)
                    return
                }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                continuation.resume(returning: (status >> 8) & 0xff)
            }
        }
    }

    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }
}
