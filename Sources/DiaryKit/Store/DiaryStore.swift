import Foundation
import GRDB

/// The one owner of the diary database: opening, migrating, and every read and write.
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
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-entries-messages-tags-outbox") { db in
            try db.execute(sql: v1)
        }
        migrator.registerMigration("v2-voice-memos-chat-digest-device-settings") { db in
            try db.execute(sql: v2)
        }
        migrator.registerMigration("v3-moment-order-bigram-search", migrate: v3)
        migrator.registerMigration("v4-conflicts-thumbnails") { db in
            try db.execute(sql: v4)
        }
        migrator.registerMigration("v5-sync-tag-removals-dead-letters-media-transfers") { db in
            try db.execute(sql: v5)
        }
        migrator.registerMigration("v6-one-context-shape") { db in
            try db.execute(sql: v6)
        }
        migrator.registerMigration("v7-star-trash-order-history") { db in
            try db.execute(sql: v7)
        }
        // A pulled record this build cannot read is kept aside, so one bad record does not
        // stop every later sync; `diary-sync status` shows them.
        migrator.registerMigration("v8-pulled-rejects") { db in
            try db.execute(sql: """
                CREATE TABLE pulled_reject (
                    id INTEGER PRIMARY KEY,
                    record TEXT NOT NULL,
                    problem TEXT NOT NULL,
                    received_at INTEGER NOT NULL
                );
                """)
        }
        // Place names (a Day One import's town, region and country among them) are found by
        // search like the person's own words: a column of their own in the index.
        migrator.registerMigration("v9-searchable-place-names") { db in
            try db.execute(sql: """
                DROP TABLE entry_vocabulary;
                DROP TABLE entry_fts;
                CREATE VIRTUAL TABLE entry_fts USING fts5(
                    title, summary, note, transcript, tags, person_chat, analysis, companion_chat, place,
                    tokenize = 'diary_bigram'
                );
                CREATE VIRTUAL TABLE entry_vocabulary USING fts5vocab(entry_fts, row);
                """)
            for id in try String.fetchAll(db, sql: "SELECT id FROM entry WHERE deleted_at IS NULL AND trashed_at IS NULL") {
                try DiaryStore.reindex(db, entryId: id)
            }
        }
        migrator.registerMigration("v10-file-attachments") { db in
            try db.execute(sql: v10)
        }
        // What another diary's export says that ours kept nowhere, so that exporting it back
        // loses nothing: the journal a page came from, a tag's case as written, and where a
        // photo stood in the text.
        migrator.registerMigration("v11-journals-tag-spellings-media-anchors") { db in
            try db.execute(sql: """
                ALTER TABLE entry ADD COLUMN journal TEXT;
                ALTER TABLE entry_tag ADD COLUMN label TEXT;
                ALTER TABLE media ADD COLUMN anchor INTEGER;
                """)
        }
        // Feelings over time count tags per day: the live entries' days by id, so the count
        // reads this small index instead of each (large) entry row.
        migrator.registerMigration("v12-live-entry-days-by-id") { db in
            try db.execute(sql: "CREATE INDEX entry_live_day_by_id ON entry(id, local_date) WHERE deleted_at IS NULL AND trashed_at IS NULL")
        }
        // A reflection is a page of its own kind: the days it looks back on and the pages it cites.
        migrator.registerMigration("v13-reflections") { db in
            try db.execute(sql: "ALTER TABLE entry ADD COLUMN reflection TEXT")
        }
        migrator.registerMigration("v14-tag-day-counts") { db in
            try db.execute(sql: v14)
        }
        // Meaning-based recall: one vector per saved page, made by the embedder the person
        // configured. They stay on this device (no outbox trigger, not in records or archives)
        // and are made again on demand; a page whose words change loses its vector.
        migrator.registerMigration("v15-page-vectors") { db in
            try db.execute(sql: """
                CREATE TABLE page_vector (
                    entry_id TEXT PRIMARY KEY REFERENCES entry(id) ON DELETE CASCADE,
                    model TEXT NOT NULL,
                    vector BLOB NOT NULL,
                    made_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE TRIGGER page_vector_stale AFTER UPDATE OF title, summary, note, deleted_at ON entry
                WHEN OLD.title IS NOT NEW.title OR OLD.summary IS NOT NEW.summary OR OLD.note IS NOT NEW.note
                  OR OLD.deleted_at IS NOT NEW.deleted_at
                BEGIN
                    DELETE FROM page_vector WHERE entry_id = NEW.id;
                END;
                """)
        }
        return migrator
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

    // The migrations' SQL, in version order; each says why it was made.

    // Every synced table carries id, user_id (null until login), hlc, deleted_at and device_id.
    // Times are milliseconds since 1970; local_date is the day in the entry's own time zone.
    static let v1 = """
        CREATE TABLE entry (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT,
            device_id TEXT NOT NULL,
            hlc TEXT NOT NULL,
            deleted_at INTEGER,
            status TEXT NOT NULL CHECK (status IN ('draft', 'chatting', 'saved', 'summary_failed')),
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            occurred_at INTEGER NOT NULL,
            time_zone TEXT NOT NULL,
            local_date TEXT NOT NULL,
            note TEXT,
            transcript TEXT,
            analysis TEXT,
            analysis_provider TEXT,
            context TEXT,
            persona TEXT NOT NULL,
            provider TEXT,
            title TEXT,
            summary TEXT,
            summarized_at INTEGER,
            last_error TEXT
        );
        CREATE INDEX entry_by_occurred ON entry(occurred_at, id);
        CREATE INDEX entry_by_local_date ON entry(local_date);
        CREATE INDEX entry_by_status ON entry(status, updated_at);

        CREATE TABLE media (
            id TEXT PRIMARY KEY,
            entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
            position INTEGER NOT NULL DEFAULT 0,
            user_id TEXT,
            device_id TEXT NOT NULL,
            hlc TEXT NOT NULL,
            deleted_at INTEGER,
            kind TEXT NOT NULL CHECK (kind IN ('photo', 'video')),
            sha256 TEXT NOT NULL,
            mime TEXT NOT NULL,
            ext TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            width INTEGER,
            height INTEGER,
            duration REAL,
            taken_at INTEGER
        );
        CREATE INDEX media_by_entry ON media(entry_id, position);
        CREATE INDEX media_by_sha256 ON media(sha256);

        CREATE TABLE message (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
            user_id TEXT,
            device_id TEXT NOT NULL,
            hlc TEXT NOT NULL,
            deleted_at INTEGER,
            author TEXT NOT NULL CHECK (author IN ('person', 'companion')),
            persona TEXT NOT NULL,
            provider TEXT,
            text TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX message_by_entry ON message(entry_id, seq);

        CREATE TABLE tag (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            user_id TEXT,
            device_id TEXT NOT NULL,
            hlc TEXT NOT NULL,
            deleted_at INTEGER,
            created_at INTEGER NOT NULL,
            last_used_at INTEGER,
            entry_count INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX tag_by_use ON tag(last_used_at DESC, entry_count DESC);

        CREATE TABLE entry_tag (
            entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
            tag_id TEXT NOT NULL REFERENCES tag(id),
            position INTEGER NOT NULL DEFAULT 0,
            user_id TEXT,
            device_id TEXT NOT NULL,
            hlc TEXT NOT NULL,
            deleted_at INTEGER,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (entry_id, tag_id)
        );
        CREATE INDEX entry_tag_by_tag ON entry_tag(tag_id, entry_id);

        CREATE TABLE setting (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            user_id TEXT,
            device_id TEXT NOT NULL,
            hlc TEXT NOT NULL,
            updated_at INTEGER NOT NULL
        );

        CREATE TABLE usage (
            day TEXT NOT NULL,
            kind TEXT NOT NULL,
            count INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (day, kind)
        );

        CREATE TABLE outbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            table_name TEXT NOT NULL,
            row_id TEXT NOT NULL,
            op TEXT NOT NULL CHECK (op IN ('upsert', 'delete')),
            hlc TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER,
            last_error TEXT
        );
        CREATE INDEX outbox_by_row ON outbox(table_name, row_id);

        CREATE TABLE sync_state (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );

        CREATE VIRTUAL TABLE entry_fts USING fts5(
            title, summary, note, transcript, tags, person_chat, analysis, companion_chat,
            tokenize = 'unicode61 remove_diacritics 2'
        );
        """

    // Voice memos are media too (kind 'audio'); SQLite cannot change a CHECK constraint, so
    // the media table is rebuilt. A long talk keeps a running digest of its early turns.
    // Consent and one-time notices belong to this device and never sync.
    static let v2 = """
        CREATE TABLE media_v2 (
            id TEXT PRIMARY KEY,
            entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
            position INTEGER NOT NULL DEFAULT 0,
            user_id TEXT,
            device_id TEXT NOT NULL,
            hlc TEXT NOT NULL,
            deleted_at INTEGER,
            kind TEXT NOT NULL CHECK (kind IN ('photo', 'video', 'audio')),
            sha256 TEXT NOT NULL,
            mime TEXT NOT NULL,
            ext TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            width INTEGER,
            height INTEGER,
            duration REAL,
            taken_at INTEGER
        );
        INSERT INTO media_v2 SELECT id, entry_id, position, user_id, device_id, hlc, deleted_at, kind, sha256, mime, ext,
                                    bytes, width, height, duration, taken_at FROM media;
        DROP TABLE media;
        ALTER TABLE media_v2 RENAME TO media;
        CREATE INDEX media_by_entry ON media(entry_id, position);
        CREATE INDEX media_by_sha256 ON media(sha256);

        ALTER TABLE entry ADD COLUMN digest TEXT;
        ALTER TABLE entry ADD COLUMN digest_through TEXT;

        CREATE TABLE device_setting (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """

    // Entries are keyed by their moment so that time order is the table's own order and the
    // full-text rowid. The index is rebuilt with the bigram tokenizer over the original text
    // (it used to hold pre-cut words), so snippets quote what the person wrote. Entry rows
    // are large (note, analysis, page); the partial indexes over live entries let counts,
    // the calendar and this-day-in-history read a few small pages instead of every row, and
    // triggers keep the number of live entries in one row, whoever writes (sync included).
    static func v3(_ db: Database) throws {
        try db.cachedStatement(sql: "ALTER TABLE entry RENAME COLUMN seq TO moment_key").execute()
        // Old keys are small counters; moving them far below any moment keeps the two apart.
        try db.cachedStatement(sql: "UPDATE entry SET moment_key = moment_key - 4611686018427387904").execute()
        let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT id, occurred_at FROM entry ORDER BY occurred_at, id"))
        for row in rows {
            let key = try MomentKey.next(db, occurredAt: row["occurred_at"])
            try db.cachedStatement(sql: "UPDATE entry SET moment_key = ? WHERE id = ?").execute(arguments: [key, row["id"] as String])
        }
        try db.execute(sql: """
            DROP TABLE entry_fts;
            CREATE VIRTUAL TABLE entry_fts USING fts5(
                title, summary, note, transcript, tags, person_chat, analysis, companion_chat,
                tokenize = 'diary_bigram'
            );
            DROP INDEX entry_by_occurred;
            DROP INDEX entry_by_local_date;
            CREATE INDEX entry_by_created ON entry(created_at);
            CREATE INDEX entry_by_updated ON entry(updated_at);
            CREATE INDEX entry_live_by_day ON entry(local_date) WHERE deleted_at IS NULL;
            CREATE INDEX entry_live_by_month_day ON entry(substr(local_date, 6), local_date) WHERE deleted_at IS NULL;
            CREATE VIRTUAL TABLE entry_vocabulary USING fts5vocab(entry_fts, row);
            CREATE TABLE entry_total (live INTEGER NOT NULL);
            INSERT INTO entry_total SELECT count(*) FROM entry WHERE deleted_at IS NULL;
            CREATE TRIGGER entry_total_insert AFTER INSERT ON entry WHEN NEW.deleted_at IS NULL
                BEGIN UPDATE entry_total SET live = live + 1; END;
            CREATE TRIGGER entry_total_delete AFTER DELETE ON entry WHEN OLD.deleted_at IS NULL
                BEGIN UPDATE entry_total SET live = live - 1; END;
            CREATE TRIGGER entry_total_tombstone AFTER UPDATE OF deleted_at ON entry
                WHEN (OLD.deleted_at IS NULL) != (NEW.deleted_at IS NULL)
                BEGIN UPDATE entry_total SET live = live + CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END; END;
            """)
        for row in rows { try DiaryStore.reindex(db, entryId: row["id"]) }
    }

    // A merge (import, restore, later sync) never drops the version that lost: it is kept
    // here, whole, once per row and clock. Thumbnails are content-addressed like media.
    static let v4 = """
        CREATE TABLE conflict (
            id TEXT PRIMARY KEY,
            table_name TEXT NOT NULL,
            row_id TEXT NOT NULL,
            hlc TEXT NOT NULL,
            winner_hlc TEXT NOT NULL,
            source TEXT NOT NULL,
            kept_at INTEGER NOT NULL,
            version TEXT NOT NULL,
            UNIQUE (table_name, row_id, hlc)
        );
        ALTER TABLE media ADD COLUMN thumbnail TEXT;
        """

    // Sync merges tags as add/remove sets, so a removal is kept (by name: tag ids differ
    // between devices) until a newer add replaces it. An outbox row the server refused for
    // good is a dead letter: kept and shown, never retried blindly, never dropped. Media
    // bytes travel apart from their rows: what to send and fetch is remembered here, and
    // which contents the server already holds.
    static let v5 = """
        CREATE TABLE tag_removal (
            entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            device_id TEXT NOT NULL,
            hlc TEXT NOT NULL,
            removed_at INTEGER NOT NULL,
            PRIMARY KEY (entry_id, name)
        );
        ALTER TABLE outbox ADD COLUMN dead_at INTEGER;
        CREATE TABLE media_transfer (
            sha256 TEXT NOT NULL,
            direction TEXT NOT NULL CHECK (direction IN ('up', 'down')),
            entry_id TEXT NOT NULL,
            ext TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            PRIMARY KEY (sha256, direction)
        );
        CREATE TABLE media_on_server (sha256 TEXT PRIMARY KEY);
        """

    // The context column takes the shape entry records have (weather nested), so one
    // coder reads and writes it everywhere; rows written flat by v1–v5 are rewritten.
    static let v6 = """
        UPDATE entry SET context = json_object(
            'place', json_extract(context, '$.place'),
            'latitude', json_extract(context, '$.latitude'),
            'longitude', json_extract(context, '$.longitude'),
            'weather', CASE WHEN json_extract(context, '$.weather_description') IS NULL
                             AND json_extract(context, '$.temperature_c') IS NULL THEN NULL
                        ELSE json_object('description', json_extract(context, '$.weather_description'),
                                         'temperature_c', json_extract(context, '$.temperature_c')) END)
        WHERE context IS NOT NULL AND json_valid(context) AND json_type(context, '$.weather') IS NULL;
        """

    // A page the person stars, puts in the trash or moves in their own order is one small
    // write that must not undo a concurrent edit of its words on another device, so each of
    // those has its own clock (field_clocks: content, star, trash, order) and merges apart.
    // A page in the trash is hidden like a tombstone (counts, calendar, search) but can come
    // back; the versions an edit, a new page or a merge replaced are kept in entry_version.
    static let v7 = """
        ALTER TABLE entry ADD COLUMN starred INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE entry ADD COLUMN trashed_at INTEGER;
        ALTER TABLE entry ADD COLUMN order_key TEXT;
        ALTER TABLE entry ADD COLUMN edited_at INTEGER;
        ALTER TABLE entry ADD COLUMN field_clocks TEXT;
        CREATE TABLE entry_version (
            id TEXT PRIMARY KEY,
            entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
            hlc TEXT NOT NULL,
            replaced_at INTEGER NOT NULL,
            replaced_by TEXT NOT NULL CHECK (replaced_by IN ('person', 'companion', 'sync', 'import')),
            device_id TEXT NOT NULL,
            version TEXT NOT NULL,
            UNIQUE (entry_id, hlc)
        );
        CREATE INDEX entry_version_by_entry ON entry_version(entry_id, replaced_at);
        DROP INDEX entry_live_by_day;
        DROP INDEX entry_live_by_month_day;
        CREATE INDEX entry_live_by_day ON entry(local_date) WHERE deleted_at IS NULL AND trashed_at IS NULL;
        CREATE INDEX entry_live_by_month_day ON entry(substr(local_date, 6), local_date) WHERE deleted_at IS NULL AND trashed_at IS NULL;
        CREATE INDEX entry_in_trash ON entry(trashed_at) WHERE deleted_at IS NULL AND trashed_at IS NOT NULL;
        CREATE INDEX entry_starred ON entry(moment_key) WHERE starred = 1 AND deleted_at IS NULL AND trashed_at IS NULL;
        DROP TRIGGER entry_total_insert;
        DROP TRIGGER entry_total_delete;
        DROP TRIGGER entry_total_tombstone;
        CREATE TRIGGER entry_total_insert AFTER INSERT ON entry WHEN NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL
            BEGIN UPDATE entry_total SET live = live + 1; END;
        CREATE TRIGGER entry_total_delete AFTER DELETE ON entry WHEN OLD.deleted_at IS NULL AND OLD.trashed_at IS NULL
            BEGIN UPDATE entry_total SET live = live - 1; END;
        CREATE TRIGGER entry_total_hidden AFTER UPDATE OF deleted_at, trashed_at ON entry
            WHEN (OLD.deleted_at IS NULL AND OLD.trashed_at IS NULL) != (NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL)
            BEGIN UPDATE entry_total SET live = live + CASE WHEN NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL THEN 1 ELSE -1 END; END;
        """

    // Attachments other than photos, videos and memos (a Day One export's PDFs) are kept
    // as files of their own kind: the media table's check allows it (SQLite rebuilds the
    // table to change a check).
    static let v10 = """
        CREATE TABLE media_v10 (
            id TEXT PRIMARY KEY,
            entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
            position INTEGER NOT NULL DEFAULT 0,
            user_id TEXT,
            device_id TEXT NOT NULL,
            hlc TEXT NOT NULL,
            deleted_at INTEGER,
            kind TEXT NOT NULL CHECK (kind IN ('photo', 'video', 'audio', 'file')),
            sha256 TEXT NOT NULL,
            mime TEXT NOT NULL,
            ext TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            width INTEGER,
            height INTEGER,
            duration REAL,
            taken_at INTEGER,
            thumbnail TEXT
        );
        INSERT INTO media_v10 SELECT id, entry_id, position, user_id, device_id, hlc, deleted_at, kind, sha256, mime, ext,
                                     bytes, width, height, duration, taken_at, thumbnail FROM media;
        DROP TABLE media;
        ALTER TABLE media_v10 RENAME TO media;
        CREATE INDEX media_by_entry ON media(entry_id, position);
        CREATE INDEX media_by_sha256 ON media(sha256);
        """

    // Feelings over time count tags per day over the whole diary; reading every tag link's
    // entry for that costs a quarter of a second at 100,000 pages. So the live pages per tag
    // and local day are kept counted here, by triggers, whoever writes (edits, sync, imports).
    // A page is live when it is neither deleted nor in the trash.
    static let v14 = """
        CREATE TABLE tag_day (
            tag_id TEXT NOT NULL,
            local_date TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (tag_id, local_date)
        ) WITHOUT ROWID;
        INSERT INTO tag_day (tag_id, local_date, n)
            SELECT et.tag_id, e.local_date, count(*) FROM entry_tag et JOIN entry e ON e.id = et.entry_id
            WHERE e.deleted_at IS NULL AND e.trashed_at IS NULL GROUP BY et.tag_id, e.local_date;
        CREATE TRIGGER tag_day_link_added AFTER INSERT ON entry_tag
            WHEN (SELECT deleted_at IS NULL AND trashed_at IS NULL FROM entry WHERE id = NEW.entry_id)
        BEGIN
            INSERT INTO tag_day (tag_id, local_date, n) SELECT NEW.tag_id, local_date, 1 FROM entry WHERE id = NEW.entry_id
                ON CONFLICT (tag_id, local_date) DO UPDATE SET n = n + 1;
        END;
        CREATE TRIGGER tag_day_link_removed AFTER DELETE ON entry_tag
            WHEN (SELECT deleted_at IS NULL AND trashed_at IS NULL FROM entry WHERE id = OLD.entry_id)
        BEGIN
            UPDATE tag_day SET n = n - 1
            WHERE tag_id = OLD.tag_id AND local_date = (SELECT local_date FROM entry WHERE id = OLD.entry_id);
        END;
        CREATE TRIGGER tag_day_entry_moved AFTER UPDATE OF local_date, deleted_at, trashed_at ON entry
            WHEN OLD.local_date IS NOT NEW.local_date
              OR (OLD.deleted_at IS NULL AND OLD.trashed_at IS NULL) != (NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL)
        BEGIN
            UPDATE tag_day SET n = n - 1
            WHERE OLD.deleted_at IS NULL AND OLD.trashed_at IS NULL AND local_date = OLD.local_date
              AND tag_id IN (SELECT tag_id FROM entry_tag WHERE entry_id = OLD.id);
            INSERT INTO tag_day (tag_id, local_date, n) SELECT tag_id, NEW.local_date, 1 FROM entry_tag
                WHERE entry_id = NEW.id AND NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL
                ON CONFLICT (tag_id, local_date) DO UPDATE SET n = n + 1;
        END;
        CREATE TRIGGER tag_day_entry_removed BEFORE DELETE ON entry
            WHEN OLD.deleted_at IS NULL AND OLD.trashed_at IS NULL
        BEGIN
            UPDATE tag_day SET n = n - 1
            WHERE local_date = OLD.local_date AND tag_id IN (SELECT tag_id FROM entry_tag WHERE entry_id = OLD.id);
        END;
        """
}
