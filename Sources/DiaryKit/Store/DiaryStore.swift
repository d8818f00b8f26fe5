import Foundation
import GRDB

/// The one owner of the diary database: opening, migrating, its one writer, and the
/// entries. The rest is in rooms over the same writer: `trash`, `history`, `tags`, `media`
/// and the sync `ledger`.
///
/// WAL lets a chat in one terminal and a search in another run at once; writes take an
/// immediate transaction and wait (busy timeout) instead of failing when another process
/// holds the lock. Each command is one short process doing one thing at a time, so it
/// holds a single connection: opening a pool of them cost more than most searches.
public final class DiaryStore: Sendable {
    public let paths: DiaryPaths
    let database: DatabaseQueue
    /// This device's stable id, made the first time the database is opened.
    public let deviceId: String
    /// The wall clock the hybrid clock reads (a test can set one that runs behind).
    let wallClock: @Sendable () -> Date

    /// Opens (creating and migrating if needed) the diary under `paths.home`.
    public static func open(_ paths: DiaryPaths, busyTimeout: TimeInterval = 15,
                            wallClock: @escaping @Sendable () -> Date = { Date() }) throws -> DiaryStore {
        try createHome(paths.home)
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.label = "diary"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Reads through a memory map: no system call per page when a search walks the index.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
            // Statement journals and temporary tables in memory: in a big merge each statement
            // that may fail halfway keeps the pages it changes in a journal of its own, and
            // in files that was most of a pull's system time (1.3 GB written for 10,000 entries).
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            db.add(tokenizer: SearchTokenizer.self)
        }
        return try translatingErrors {
            let database = try DatabaseQueue(path: paths.database.path, configuration: configuration)
            try Schema.prepare(database, lockFile: paths.home.appendingPathComponent(".migrate.lock"), busyTimeout: busyTimeout)
            // Read first: a search should not take the write lock just to learn the device id.
            let known = try database.read { db in try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM sync_state WHERE key = 'device_id'")) }
            let device = try known ?? database.write { db in try Schema.deviceId(db) }
            return DiaryStore(paths: paths, database: database, deviceId: device, wallClock: wallClock)
        }
    }

    private init(paths: DiaryPaths, database: DatabaseQueue, deviceId: String, wallClock: @escaping @Sendable () -> Date) {
        self.paths = paths
        self.database = database
        self.deviceId = deviceId
        self.wallClock = wallClock
    }

    // mkdir(2) directly: FileManager also looks up the folder's owner and group names,
    // which reads the user and group databases on every start.
    private static func createHome(_ home: URL) throws {
        let path = home.standardizedFileURL.path
        func make() -> Bool { mkdir(path, 0o700) == 0 || errno == EEXIST }
        if make() { return }
        if errno == ENOENT, path != "/" {
            try createHome(home.deletingLastPathComponent())
            if make() { return }
        }
        throw StoreError.cannotCreateHome(home.path)
    }

    /// For a command about to walk the whole diary (a piped search, an export): reads go
    /// through SQLite's small page cache instead of the memory map, whose touched pages count
    /// against the process however little of them it keeps.
    public func readWithoutMemoryMap() throws {
        try DiaryStore.translatingErrors { try database.inDatabase { db in try db.execute(sql: "PRAGMA mmap_size = 0") } }
    }

    /// Runs `body` in one immediate write transaction.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try transaction(.immediate, body)
    }

    /// Runs `body` on a snapshot.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        // A deferred transaction, not `DatabaseQueue.read`: that one brackets the body with
        // `PRAGMA query_only`, and SQLite expires every prepared statement at each flag
        // pragma, so each read made every cached statement parse again at its next use
        // (11 % of a push's instructions).
        try transaction(.deferred, body)
    }

    private func transaction<T>(_ kind: Database.TransactionKind, _ body: (Database) throws -> T) throws -> T {
        try DiaryStore.translatingErrors {
            try database.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(kind) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        }
    }

    /// Checks the file's structure (`PRAGMA integrity_check`); true when sound.
    public func integrityCheck() throws -> Bool {
        try read { db in try String.fetchOne(db.cachedStatement(sql: "PRAGMA integrity_check")) == "ok" }
    }

    /// Checks the full-text index: FTS5's own integrity check, and exactly one row for every
    /// live entry (not in the trash). True when sound.
    public func searchIndexIsConsistent() throws -> Bool {
        // FTS5 runs its check as an insert, so this takes the write lock for a moment.
        try write { db in
            try db.cachedStatement(sql: "INSERT INTO entry_fts(entry_fts, rank) VALUES ('integrity-check', 1)").execute()
            return try Bool.fetchOne(db.cachedStatement(sql: """
                SELECT (SELECT count(*) FROM entry_fts) = (SELECT count(*) FROM entry WHERE deleted_at IS NULL AND trashed_at IS NULL)
                   AND NOT EXISTS (SELECT 1 FROM entry e WHERE e.deleted_at IS NULL AND e.trashed_at IS NULL
                                   AND NOT EXISTS (SELECT 1 FROM entry_fts f WHERE f.rowid = e.moment_key))
                """)) ?? false
        }
    }

    static func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            if error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED { throw StoreError.busy }
            throw StoreError.io("\(error.resultCode): \(error.message ?? "")")
        }
    }

    /// Stamps one change: the next hybrid clock reading, recorded for the device.
    func tick(_ db: Database) throws -> String {
        let last = try Self.syncState(db, "hlc").flatMap(HybridTimestamp.init)
        let next = HybridTimestamp.next(after: last, now: wallClock(), device: deviceId)
        try Self.setSyncState(db, "hlc", next.description)
        return next.description
    }

    /// Reads one value of this device's sync bookkeeping.
    static func syncState(_ db: Database, _ key: String) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM sync_state WHERE key = ?"), arguments: [key])
    }

    /// Writes one value of this device's sync bookkeeping.
    static func setSyncState(_ db: Database, _ key: String, _ value: String) throws {
        try db.cachedStatement(sql: "INSERT INTO sync_state(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            .execute(arguments: [key, value])
    }

    /// Queues a row for sync in the transaction that changed it; a newer change to the same
    /// row replaces an untried older one, so the queue holds one mutation per row.
    func enqueue(_ db: Database, table: SyncedTable, rowId: String, op: OutboxOperation = .upsert, hlc: String) throws {
        try db.cachedStatement(sql: "DELETE FROM outbox WHERE table_name = ? AND row_id = ? AND attempts = 0").execute(arguments: [table.rawValue, rowId])
        try db.cachedStatement(sql: """
            INSERT INTO outbox(table_name, row_id, op, hlc, created_at) VALUES (?, ?, ?, ?, ?)
            """).execute(arguments: [table.rawValue, rowId, op.rawValue, hlc, Timestamps.millis(Date())])
    }
}

/// The schema and its named, append-only migrations.
enum Schema {
    /// The migrations, in version order: each is a file in `Store/Migrations/`
    /// (`v03-moment-order-bigram-search.sql` is the migration `v3-moment-order-bigram-search`),
    /// embedded at build time, that says why it was made; a few have a Swift step as well.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for file in EmbeddedSQL.files {
            let identifier = migrationIdentifier(file.name)
            migrator.registerMigration(identifier) { db in try migrate(identifier, sql: file.text, db) }
        }
        return migrator
    }

    /// Runs one migration's SQL with the Swift it needs around it: v3 gives entries their
    /// moment keys first, and v3 and v9 make the full-text index again, which is then filled.
    private static func migrate(_ identifier: String, sql: String, _ db: Database) throws {
        switch identifier {
        case "v3-moment-order-bigram-search":
            let ids = try giveEntriesMomentKeys(db)
            try db.execute(sql: sql)
            for id in ids { try DiaryStore.reindex(db, entryId: id) }
        case "v9-searchable-place-names", "v16-recalled-titles-unindexed":
            try db.execute(sql: sql)
            for id in try String.fetchAll(db, sql: "SELECT id FROM entry WHERE deleted_at IS NULL AND trashed_at IS NULL") {
                try DiaryStore.reindex(db, entryId: id)
            }
        default:
            try db.execute(sql: sql)
        }
    }

    /// `v03-moment-order-bigram-search.sql` → `v3-moment-order-bigram-search`: the names
    /// GRDB has recorded in every diary since each migration was made.
    static func migrationIdentifier(_ fileName: String) -> String {
        let stem = fileName.hasSuffix(".sql") ? String(fileName.dropLast(4)) : fileName
        guard let dash = stem.firstIndex(of: "-"), let number = Int(stem[stem.index(after: stem.startIndex)..<dash]) else { return stem }
        return "v\(number)" + stem[dash...]
    }

    /// Makes the database ready: WAL and every migration. An existing diary is checked
    /// without locking; anything unfinished (a new diary, an upgrade) is done under a file
    /// lock, so that two processes opening a new diary at once neither race to create it nor
    /// read it half made. Refuses a database from a newer version.
    static func prepare(_ database: DatabaseQueue, lockFile: URL, busyTimeout: TimeInterval) throws {
        let migrator = migrator
        func state() throws -> (wal: Bool, superseded: Bool, complete: Bool) {
            try database.read { db in
                (try String.fetchOne(db.cachedStatement(sql: "PRAGMA journal_mode")) == "wal",
                 try migrator.hasBeenSuperseded(db), try migrator.hasCompletedMigrations(db))
            }
        }
        // The common case: an existing, current diary. Any error here (another process is
        // creating the tables this instant) means: take the lock and look again.
        if let ready = try? state() {
            if ready.superseded { throw StoreError.newerVersion }
            if ready.wal && ready.complete { return }
        }
        let descriptor = Foundation.open(lockFile.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        defer { if descriptor >= 0 { close(descriptor) } }
        if descriptor >= 0 { flock(descriptor, LOCK_EX) }
        // Switching to WAL needs the database to itself and does not wait for a reader that
        // is still looking at the new file: try again for as long as a write would wait.
        let deadline = Date().addingTimeInterval(busyTimeout)
        while true {
            do {
                try database.writeWithoutTransaction { db in
                    if try String.fetchOne(db.cachedStatement(sql: "PRAGMA journal_mode")) != "wal" {
                        try db.cachedStatement(sql: "PRAGMA journal_mode = WAL").execute()
                    }
                }
                break
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                usleep(10_000)
            }
        }
        if try database.read({ db in try migrator.hasBeenSuperseded(db) }) { throw StoreError.newerVersion }
        try migrator.migrate(database)
    }

    static func deviceId(_ db: Database) throws -> String {
        if let id = try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM sync_state WHERE key = 'device_id'")) { return id }
        let id = UUIDv7.make()
        try db.cachedStatement(sql: "INSERT INTO sync_state(key, value) VALUES ('device_id', ?)").execute(arguments: [id])
        return id
    }

    // v3 keys entries by their moment (see its file): the old keys, small counters, move
    // far below any moment to keep the two apart, then each entry gets its key in time order.
    // Returns every entry's id, in that order.
    static func giveEntriesMomentKeys(_ db: Database) throws -> [String] {
        try db.cachedStatement(sql: "ALTER TABLE entry RENAME COLUMN seq TO moment_key").execute()
        try db.cachedStatement(sql: "UPDATE entry SET moment_key = moment_key - 4611686018427387904").execute()
        let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT id, occurred_at FROM entry ORDER BY occurred_at, id"))
        for row in rows {
            let key = try MomentKey.next(db, occurredAt: row["occurred_at"])
            try db.cachedStatement(sql: "UPDATE entry SET moment_key = ? WHERE id = ?").execute(arguments: [key, row["id"] as String])
        }
        return rows.map { $0["id"] }
    }
}
