import Foundation
import Testing

@Suite("Sealing a diary that synced in clear, through the built binaries and a real Postgres", .enabled(if: clusterURL != nil), .serialized)
struct EncryptTests {
    @Test("encrypt killed at 20 random points, then run to the end: nothing readable on the server, nothing lost, the other devices follow with the passphrase")
    func encryptKilledAndResumed() async throws {
        let a = try Sandbox(), b = try Sandbox(), c = try Sandbox()
        for device in [a, b, c] { device.language = "en_US.UTF-8" }
        let server = try SyncServer.make(operator: a)
        #expect(try server.login(a, sealed: false).status == 0)
        #expect(try server.login(b, sealed: false).status == 0)
        let marker = "kiwi" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        // 600 pages from a jrnl export, and one from a photo with a chat.
        let tag = "@" + marker.prefix(12)
        let entries: [[String: Any]] = (0..<600).map { (n: Int) -> [String: Any] in
            let date = String(format: "2026-10-%02d", 1 + n % 28), time = String(format: "%02d:%02d", n / 60 % 24, n % 60)
            return ["title": "\(marker) title \(n)", "body": "\(marker) words \(n)", "date": date, "time": time,
                    "tags": [tag], "starred": n % 7 == 0]
        }
        let export = try a.makeFile("journal.json", try JSONSerialization.data(withJSONObject: ["tags": [:], "entries": entries]))
        let imported = try a.run("diary-sync", ["import", export.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let photo = try a.makeMedia("sea.jpg")
        try a.savedPage("\(marker) by the sea", photo: photo)
        let photoHash = try #require(try shell(["sha256sum", photo.path]).output.split(separator: " ").first.map(String.init))
        #expect(try a.run("diary-sync", []).status == 0)
        #expect(try b.run("diary-sync", []).status == 0)
        func everything(_ device: Sandbox) throws -> String {
            try device.run("diary-find", ["--full", "--json"]).stdout.replacingOccurrences(of: device.home.path, with: "$DIARY_HOME")
        }
        let before = try everything(a)
        #expect(try everything(b) == before)

        let passphrase = try a.makeFile("passphrase", Data((SyncServer.passphrase + "\n").utf8))
        let seed = ProcessInfo.processInfo.environment["DIARY_TEST_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970)
        // Each round's wait, 30 ms to 1.5 s, from the seed (a multiplicative hash of seed and round).
        func wait(_ round: Int) -> Int { 30 + Int(((seed &+ UInt64(round)) &* 0x9E37_79B9_7F4A_7C15) >> 40) % 1471 }
        // Each reseal batch waits a little, so that kills land between batches as well as in them.
        a.extraEnvironment["DIARY_SYNC_PAUSE"] = "after-reseal:1"
        var recoveryKeys: Set<String> = []
        var stopped: [String] = []
        for round in 0..<20 {
            let (process, stdout, _) = try a.start("diary-sync", ["encrypt", "--passphrase-file", passphrase.path])
            try await Task.sleep(for: .milliseconds(wait(round)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let printed = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            recoveryKeys.formUnion(printed.split(separator: "\n").map(String.init))
            stopped.append(try psql(server.admin, """
                SELECT coalesce((SELECT sealing::text FROM diary.key_envelope), 'clear') || ' '
                       || (SELECT count(*) FROM diary.entry WHERE NOT doc ? 'parts')
                """).output)
        }
        print("encrypt stopped at (sealing, clear pages left):", stopped)
        // Some kills fell half-way through the pages (the rest before or after).
        #expect(stopped.contains { $0.hasPrefix("true ") && $0 != "true 601" && $0 != "true 0" }, "seed \(seed): \(stopped)")
        a.extraEnvironment = [:]
        let finished = try a.run("diary-sync", ["encrypt", "--passphrase-file", passphrase.path])
        #expect(finished.status == 0, "seed \(seed): \(finished.stderr)")
        recoveryKeys.formUnion(finished.stdout.split(separator: "\n").map(String.init))
        #expect(recoveryKeys.count == 1, "seed \(seed): one recovery key, however often it was cut off: \(recoveryKeys)")
        #expect(try a.run("diary-sync", ["encrypt", "--passphrase-file", passphrase.path]).stderr.contains("already syncs sealed"))

        // Nothing of the diary is left readable on the server; nothing was lost here.
        #expect(try psql(server.admin, "SELECT count(*) FROM diary.entry WHERE NOT doc ? 'parts'").output == "0")
        #expect(try psql(server.admin, "SELECT count(*) FROM diary.entry").output == "601")
        let dump = try shell(["pg_dump", "--data-only", server.admin]).output
        #expect(!dump.isEmpty && dump.contains("ib1.1."))
        let bytes = Array(marker.utf8)
        for start in 0...(bytes.count - 8) {
            let piece = String(decoding: bytes[start..<start + 8], as: UTF8.self)
            #expect(!dump.contains(piece), "seed \(seed): \(piece) stayed on the server")
        }
        #expect(!dump.contains(photoHash), "seed \(seed): the photo's own hash stayed on the server")
        #expect(try everything(a) == before, "seed \(seed)")

        // B, in clear, is told to log in again; its change waits, then goes up sealed.
        let page = try #require(try b.run("diary-find", ["--json"]).lines.first?["id"] as? String)
        #expect(try b.run("diary-save", [page, "--title", "changed on B"]).status == 0)
        let refused = try b.run("diary-sync", [])
        #expect(refused.status == 77 && refused.stderr.contains("diary-sync login again"), "\(refused.stderr)")
        #expect(try server.login(b).status == 0)
        #expect(try b.run("diary-sync", []).status == 0)
        #expect(try a.run("diary-sync", []).status == 0)
        #expect(try everything(a) == everything(b))
        #expect(try everything(a) != before)

        // A new device opens it all with the passphrase, the photo byte for byte.
        #expect(try server.login(c).status == 0)
        #expect(try c.run("diary-sync", []).status == 0)
        #expect(try everything(c) == everything(a))
        let files = try shell(["sh", "-c", "sha256sum \"$0\"/media/*/*", c.home.path]).output
        #expect(files.contains(photoHash))
    }
}
