import Crypto
import DiaryKit
import DiarySeal
import DiarySync
import SyncSession
import Foundation

/// True when the test script started a Postgres cluster (`DIARY_TEST_PG_URL`).
let postgresAvailable = ProcessInfo.processInfo.environment["DIARY_TEST_PG_URL"] != nil

/// The throwaway Postgres cluster the test script started (`DIARY_TEST_PG_URL`): the one
/// place tests get a database from, whether they then speak to it through the driver
/// (`TestServer`) or through psql as an operator would (`SchemaServer`).
enum TestCluster {
    /// The cluster's address, as its admin (password included).
    static func address() throws -> ServerAddress {
        try ServerAddress(ProcessInfo.processInfo.environment["DIARY_TEST_PG_URL"] ?? "")
    }

    /// A new, empty database on the cluster, as its admin (password included).
    static func freshDatabase(_ prefix: String) async throws -> ServerAddress {
        let cluster = try address()
        let name = prefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        _ = try await ServerConnection.with(cluster, password: cluster.password) { server in
            try await server.run(script: "CREATE DATABASE \(name)")
        }
        var admin = cluster
        admin.database = String(name)
        return admin
    }
}

/// A fresh database on the throwaway test cluster, with the diary's server side installed.
final class TestServer: Sendable {
    let admin: ServerAddress
    let adminPassword: String

    private init(admin: ServerAddress, adminPassword: String) {
        self.admin = admin
        self.adminPassword = adminPassword
    }

    static func make() async throws -> TestServer {
        let admin = try await TestCluster.freshDatabase("t_")
        _ = try await Accounts.initialiseServer(admin, password: admin.password)
        return TestServer(admin: admin, adminPassword: admin.password ?? "")
    }

    /// A person: their login on this server.
    struct Person: Sendable {
        var address: ServerAddress
        var password: String
        var userId: String

        /// Seals the person's diary on the server (as a first login does) and returns its keys;
        /// the passphrase costs the floor, to keep tests quick.
        func seal(passphrase: String = "a passphrase for tests") async throws -> (keys: DiaryKeys, envelope: KeyEnvelope, recoveryKey: RecoveryKey) {
            let made = try DiaryKeys.create(account: userId, passphrase: passphrase, cost: .floor)
            let credentials = Credentials(address: address, password: password, userId: userId)
            try await SealedAccount.put(made.envelope, credentials, paths: DiaryPaths(homeFlag: "/nonexistent", environment: [:]))
            return made
        }
    }

    func addPerson(_ prefix: String = "p") async throws -> Person {
        let name = prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(10)
        let password = Accounts.generatePassword()
        let userId = try await Accounts.addUser(admin, password: adminPassword, name: name, newPassword: password)
        return Person(address: admin.asUser(name), password: password, userId: userId)
    }

    /// The whole database as `pg_dump` writes it (data only): what an operator's backup holds.
    func dataDump() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var url = admin
        url.password = nil
        process.arguments = ["pg_dump", "--data-only", url.description]
        process.environment = ProcessInfo.processInfo.environment.merging(["PGPASSWORD": adminPassword]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadUnknown) }
        return String(decoding: data, as: UTF8.self)
    }

    /// Every 8-byte piece of `marker`, as text and as the hex a bytea column is dumped in:
    /// what must not be found in a dump of a sealed diary.
    static func pieces(of marker: String) -> [String] {
        let bytes = Array(marker.utf8)
        return (0...(bytes.count - 8)).flatMap { start -> [String] in
            let piece = Array(bytes[start..<start + 8])
            return [String(decoding: piece, as: UTF8.self), piece.map { String(format: "%02x", $0) }.joined()]
        }
    }

    /// Runs a query as the admin and returns the first column of the first row.
    func adminText(_ sql: String) async throws -> String? {
        try await ServerConnection.with(admin, password: adminPassword) { server in try await server.run(script: sql) }
    }
}

/// One device of a person: its own diary, syncing as that person.
final class TestDevice {
    let diary: TestDiary
    let person: TestServer.Person
    var store: DiaryStore { diary.store }
    /// A sealed diary's keys on this device (kept across syncs, as the key file is); nil in clear.
    var keys: SyncKeys?

    init(_ person: TestServer.Person, keys: DiaryKeys? = nil, wallClock: @escaping @Sendable () -> Date = { Date() }) throws {
        diary = try TestDiary(wallClock: wallClock)
        self.person = person
        try store.ledger.bindSyncUser(person.userId)
        if let keys {
            try KeyFile.save(keys, store.paths)
            self.keys = SyncKeys(keys, paths: store.paths)
        }
    }

    var credentials: Credentials {
        Credentials(address: person.address, password: person.password, userId: person.userId, consentVersion: 1)
    }

    @discardableResult
    func sync(_ steps: SyncEngine.Steps = .all) async throws -> SyncReport {
        try await SyncEngine(store: store, userId: person.userId, keys: keys).run(credentials, steps: steps)
    }

    /// Every entry, tombstones included, as archive JSON lines sorted by id: what two
    /// converged devices must agree on byte for byte.
    func everything() throws -> [String] {
        try store.entryRecords(ids: store.entryIds(includingDeleted: true)).map(\.json.serialized).sorted()
    }

    /// Three pages written minutes apart, tagged 旅游 and 海, 旅游, and 山: where the
    /// convergence tests start, in clear and sealed.
    func threeTaggedPages() throws -> (String, String, String) {
        (try diary.page("一", tags: ["旅游", "海"], at: Date().addingTimeInterval(-300)),
         try diary.page("二", tags: ["旅游"], at: Date().addingTimeInterval(-200)),
         try diary.page("三", tags: ["山"], at: Date().addingTimeInterval(-100)))
    }

    /// Stores bytes as a media file and returns the item describing them.
    func mediaFile(_ bytes: [UInt8], ext: String = "jpg") throws -> MediaItem { try storeMediaFile(bytes, ext: ext, in: store) }
}

/// Stores bytes as a media file of a diary and returns the item describing them.
func storeMediaFile(_ bytes: [UInt8], ext: String = "jpg", in store: DiaryStore) throws -> MediaItem {
    let sha = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    let folder = ContentAddressedFolder(store.paths.media)
    let (path, descriptor) = folder.makeTemporaryFile()!
    _ = bytes.withUnsafeBytes { FileIO.writeAll(descriptor, $0) }
    close(descriptor)
    _ = folder.install(path, sha256: sha, fileExtension: ext)
    return MediaItem(kind: ext == "mp4" ? .video : .photo, sha256: sha, mime: ext == "mp4" ? "video/mp4" : "image/jpeg",
                     fileExtension: ext, bytes: Int64(bytes.count), width: 10, height: 10)
}
