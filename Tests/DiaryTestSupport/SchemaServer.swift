import Foundation
import DiaryKit
import DiarySync
import SyncSession

// MARK: - The cluster, through psql

/// What one psql run printed.
struct PSQLOutcome {
    var status: Int32
    var output: String
    var errors: String
    var succeeded: Bool { status == 0 }
    /// The SQLSTATE of the first error (psql runs with VERBOSITY verbose).
    var sqlState: String? {
        guard let range = errors.range(of: #"ERROR:  [0-9A-Z]{5}:"#, options: .regularExpression) else { return nil }
        return String(errors[range].dropFirst(8).prefix(5))
    }
}

struct PSQLFailure: Error, CustomStringConvertible {
    var description: String
}

/// A command found on PATH, with stdin from a file and stdout and stderr going to files (a
/// pipe that nobody reads could fill up and stall it).
struct ChildProcess {
    let process = Process()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("psql-\(UUID().uuidString)")

    init(_ arguments: [String], environment: [String: String], input: Data?) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["out", "err"] { _ = FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: nil) }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: folder.appendingPathComponent("out"))
        process.standardError = try FileHandle(forWritingTo: folder.appendingPathComponent("err"))
        if let input {
            let inURL = folder.appendingPathComponent("in")
            _ = FileManager.default.createFile(atPath: inURL.path, contents: input)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
    }

    /// Runs it to the end without holding a thread while it runs (the tests share Swift's
    /// few concurrency threads with everything else).
    func outcome() async throws -> PSQLOutcome {
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return try collect(status)
    }

    /// The same, blocking: only for cleaning up in a deinit, which cannot wait otherwise.
    func blockingOutcome() throws -> PSQLOutcome {
        try process.run()
        process.waitUntilExit()
        return try collect(process.terminationStatus)
    }

    private func collect(_ status: Int32) throws -> PSQLOutcome {
        // Closed here: the Process keeps its handles alive, and hundreds of psql runs would
        // otherwise leave as many descriptors open in the test process (children inherit them).
        for handle in [process.standardInput, process.standardOutput, process.standardError] {
            if let handle = handle as? FileHandle, handle !== FileHandle.nullDevice { try? handle.close() }
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        return PSQLOutcome(status: status,
                           output: try String(contentsOf: folder.appendingPathComponent("out"), encoding: .utf8)
                               .trimmingCharacters(in: .newlines),
                           errors: try String(contentsOf: folder.appendingPathComponent("err"), encoding: .utf8))
    }
}

func runProcess(_ arguments: [String], environment: [String: String] = [:], input: Data? = nil) async throws -> PSQLOutcome {
    try await ChildProcess(arguments, environment: environment, input: input).outcome()
}

/// A psql session that stays open while the test feeds it statements.
final class PSQLSession {
    let name: String
    private let process = Process()
    private let input = Pipe()
    private var closed = false

    init(arguments: [String], environment: [String: String], name: String) throws {
        self.name = name
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    func send(_ sql: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data(sql.utf8))
    }

    /// Ends psql's input: it finishes what it has and exits.
    func close() {
        guard !closed else { return }
        closed = true
        try? input.fileHandleForWriting.close()
    }

    /// Waits (polling, up to 30 s) for psql to exit; its status, or -1 when it did not.
    func waitForExit() async -> Int32 {
        for _ in 0..<1500 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return process.isRunning ? -1 : process.terminationStatus
    }
}

/// A database of its own on the test cluster with ServerSchema.script applied; dropped,
/// with the people's roles, when the test is over.
final class SchemaServer {
    /// The tables holding people's rows (all but config, deletion_audit, schema_migration).
    static let personTables = ["entry", "media", "message", "entry_tag", "setting", "conflict", "push_receipt",
                               "media_chunk", "media_object"]

    struct Person {
        var role: String
        var password: String
        var id: String
    }

    let host: String
    let port: Int
    let adminUser: String
    let adminPassword: String
    let adminDatabase: String
    let database: String
    private let tag: String
    private var roles: [String] = []

    private init(_ database: ServerAddress, cluster: ServerAddress) {
        host = database.host
        port = database.port
        adminUser = database.user
        adminPassword = database.password ?? ""
        adminDatabase = cluster.database
        self.database = database.database
        tag = String(database.database.suffix(10))
    }

    /// A fresh database with the script applied by the admin (unless not `applied`); `before`
    /// runs first (a platform's own schema).
    static func make(before: String? = nil, applied: Bool = true) async throws -> SchemaServer {
        let server = SchemaServer(try await TestCluster.freshDatabase("diary_t_"), cluster: try TestCluster.address())
        if let before { try await server.admin(before) }
        if applied { try await server.applyScript() }
        return server
    }

    deinit {
        let cleanup = "DROP DATABASE IF EXISTS \(database) WITH (FORCE);\n" + roles.map { "DROP ROLE IF EXISTS \($0);\n" }.joined()
        _ = try? ChildProcess(baseArguments(database: adminDatabase, user: adminUser), environment: environment(password: adminPassword, name: "cleanup"),
                         input: Data(cleanup.utf8)).blockingOutcome()
    }

    /// As `diary-sync server-init` does: statement by statement (each its own query, as the
    /// split in SQLScript makes them) inside one transaction.
    func applyScript() async throws {
        let statements = SQLScript.statements(ServerSchema.script)
        var arguments = baseArguments(database: database, user: adminUser)
        arguments += ["-c", "BEGIN"] + statements.flatMap { ["-c", $0] } + ["-c", "COMMIT"]
        try check(await runProcess(arguments, environment: environment(password: adminPassword, name: "apply")))
    }

    /// As an operator pasting it into an SQL editor: the whole text in one transaction.
    func applyScriptAsFile() async throws {
        try check(await run(sql: "BEGIN;\n" + ServerSchema.script + "\nCOMMIT;", database: database))
    }

    func addPerson(_ name: String) async throws -> Person {
        let role = "t\(tag)_\(name)"
        let password = UUID().uuidString
        // Given a plain password, Postgres makes the SCRAM verifier itself (fine for tests;
        // the client sends a verifier it computed).
        let id = try await admin("SET password_encryption = 'scram-sha-256';\nSELECT diary.add_user('\(role)', '\(password)');")
        roles.append(role)
        return Person(role: role, password: password, id: id)
    }

    func addPeople(_ names: [String]) async throws -> [Person] {
        var people: [Person] = []
        for name in names { people.append(try await addPerson(name)) }
        return people
    }

    @discardableResult
    func admin(_ sql: String) async throws -> String {
        try check(await run(sql: sql, database: database)).output
    }

    /// Runs SQL as the person (or the admin for nil) and returns what it printed.
    @discardableResult
    func run(_ sql: String, as person: Person?) async throws -> String {
        try check(await attempt(sql, as: person)).output
    }

    func attempt(_ sql: String, as person: Person?) async -> PSQLOutcome {
        do {
            return try await run(sql: sql, database: database, user: person?.role ?? adminUser, password: person?.password ?? adminPassword)
        } catch {
            return PSQLOutcome(status: -1, output: "", errors: "\(error)")
        }
    }

    func json(_ sql: String, as person: Person?) async throws -> JSON {
        let text = try await run(sql, as: person)
        guard let value = JSON.parse(Data(text.utf8)) else { throw PSQLFailure(description: "not JSON: \(text)") }
        return value
    }

    func push(_ items: [(key: String, record: JSON)], as person: Person) async throws -> JSON {
        try await json("SELECT diary.push($j$\(Records.batch(items))$j$::jsonb)", as: person)
    }

    func pull(after cursor: Int64, max rows: Int, as person: Person) async throws -> JSON {
        try await json("SELECT diary.pull(\(cursor), \(rows))", as: person)
    }

    /// The person's rows in every table, account included, as the admin counts them.
    func rowCounts(of person: Person) async throws -> [Int] {
        var counts: [Int] = []
        for table in Self.personTables + ["account"] {
            counts.append(Int(try await admin("SELECT count(*) FROM diary.\(table) WHERE user_id = '\(person.id)'")) ?? -1)
        }
        return counts
    }

    /// Waits (up to 10 s) until an admin query prints something other than 0.
    func waitFor(_ sql: String) async throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try await admin(sql) != "0" { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw PSQLFailure(description: "timed out waiting for: \(sql)")
    }

    /// A psql session kept open, fed through a pipe.
    func openSession(as person: Person, name: String) throws -> PSQLSession {
        let application = "ib_\(tag)_\(name)"
        return try PSQLSession(arguments: baseArguments(database: database, user: person.role),
                               environment: environment(password: person.password, name: application), name: application)
    }

    /// A statement running in its own psql, not waited for.
    func startInBackground(_ sql: String, as person: Person, name: String) throws -> PSQLSession {
        let session = try openSession(as: person, name: name)
        try session.send(sql + "\n")
        session.close()
        return session
    }

    private func baseArguments(database: String, user: String) -> [String] {
        ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose",
         "-h", host, "-p", String(port), "-U", user, "-d", database]
    }

    private func environment(password: String, name: String) -> [String: String] {
        ["PGPASSWORD": password, "PGAPPNAME": name, "PGCONNECT_TIMEOUT": "10", "PGOPTIONS": "", "PGSSLMODE": "disable"]
    }

    private func run(sql: String, database: String, user: String? = nil, password: String? = nil) async throws -> PSQLOutcome {
        try await runProcess(baseArguments(database: database, user: user ?? adminUser),
                             environment: environment(password: password ?? adminPassword, name: "ib_\(tag)"), input: Data(sql.utf8))
    }

    @discardableResult
    private func check(_ outcome: PSQLOutcome) throws -> PSQLOutcome {
        guard outcome.succeeded else { throw PSQLFailure(description: "psql failed (\(outcome.status)): \(outcome.errors)") }
        return outcome
    }
}
