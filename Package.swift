// swift-tools-version:6.0
import PackageDescription

// Five small commands over one shared module. The capabilities that bring heavy
// dependencies (the companion's network client, archives, sync) and the command-line glue
// are targets of their own, each in the folder under Sources/ that bears its name, so each
// executable links only what it uses and the compiler keeps dependencies pointing one way:
// commands → command-line glue → capabilities → DiaryKit. docs/ARCHITECTURE.md draws it.
let package = Package(
    name: "InnerBloomDiary",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "diary-new", targets: ["diary-new"]),
        .executable(name: "diary-chat", targets: ["diary-chat"]),
        .executable(name: "diary-save", targets: ["diary-save"]),
        .executable(name: "diary-find", targets: ["diary-find"]),
        .executable(name: "diary-sync", targets: ["diary-sync"]),
        // For the benchmark package beside it (bench/), which fills diaries through the store.
        .library(name: "DiaryKit", targets: ["DiaryKit"]),
        .library(name: "CompanionClient", targets: ["CompanionClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", exact: "0.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "3.12.3"),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", exact: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // The shared module every command imports: the SQLite store, search, media intake,
        // settings, personas and the offline companion, the words people read. No network,
        // no crypto library, no archive library, no ArgumentParser.
        .target(
            name: "DiaryKit",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            // The store's migrations are SQL files (Store/Migrations/*.sql), embedded at build time.
            plugins: ["EmbedSQL"]
        ),
        // The companion's network client: OpenAI-compatible providers, the weather service,
        // choosing and failing over between providers (AsyncHTTPClient).
        .target(
            name: "CompanionClient",
            dependencies: [
                "DiaryKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // libarchive from the system (Debian: libarchive-dev); only DiaryArchive imports it.
        .systemLibrary(
            name: "CArchive",
            pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]
        ),
        // libsodium from the system (Debian: libsodium-dev): Argon2id and XChaCha20-Poly1305,
        // which swift-crypto lacks. Only DiarySeal imports it.
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // A sealed diary: the keys (a diary key wrapped by the passphrase and by a recovery key,
        // items keys wrapped by it, the owner-only key file), record parts sealed and bound to
        // where they belong, keyed names, media sealed chunk by chunk. Linked by sync only.
        .target(name: "DiarySeal", dependencies: ["DiaryKit", "CSodium"]),
        // Backups, exports, restores and imports as ordinary archives; Day One; the HTML diary.
        .target(
            name: "DiaryArchive",
            dependencies: [
                "DiaryKit", "CArchive",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Who this device is to the sync server: the credentials file, a Supabase project's
        // Auth sessions renewed one process at a time, its RPC, sync's errors and words, and
        // the operator's companion gateway (AsyncHTTPClient, no Postgres driver), so the
        // companion commands can use the session without linking the rest of sync.
        .target(
            name: "SyncSession",
            dependencies: [
                "DiaryKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Sync through Postgres: the server SQL (ServerSQL/*.sql, embedded at build time), the
        // wire format, batching, backoff, media chunks, accounts and watch (PostgresNIO); and
        // through a Supabase project's REST and Storage APIs (AsyncHTTPClient). A sealed
        // diary's records and files are sealed and opened here with DiarySeal.
        .target(
            name: "DiarySync",
            dependencies: [
                "DiaryKit", "SyncSession", "DiarySeal",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            plugins: ["EmbedSQL"]
        ),
        // Puts a target's .sql files into its code at build time (EmbeddedSQL.files): SQL is
        // kept and reviewed as SQL, and the installed tools need no files beside them. Used by
        // DiaryKit (the store's migrations) and DiarySync (the server's SQL).
        .executableTarget(name: "embed-sql"),
        .plugin(name: "EmbedSQL", capability: .buildTool(), dependencies: ["embed-sql"]),
        // Command-line glue every command shares: options, context, output, rendering, exit
        // statuses, prompts (ArgumentParser). The core never imports it.
        .target(
            name: "DiaryCLI",
            dependencies: [
                "DiaryKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // diary-find's command: search and browse, nothing but the local store.
        .target(name: "FindCLI", dependencies: ["DiaryCLI"]),
        // diary-new, diary-chat and diary-save: the commands that talk with the companion.
        // With the sync session: the operator's gateway is reached with the person's own token.
        .target(name: "CompanionCLI", dependencies: ["DiaryCLI", "CompanionClient", "SyncSession"]),
        // diary-sync's commands: sync, accounts, backups and archives.
        .target(name: "SyncCLI", dependencies: ["DiaryCLI", "SyncSession", "DiarySync", "DiarySeal", "DiaryArchive"]),
        .executableTarget(name: "diary-new", dependencies: ["CompanionCLI"]),
        .executableTarget(name: "diary-chat", dependencies: ["CompanionCLI"]),
        .executableTarget(name: "diary-save", dependencies: ["CompanionCLI"]),
        .executableTarget(name: "diary-find", dependencies: ["FindCLI"]),
        .executableTarget(name: "diary-sync", dependencies: ["SyncCLI"]),
        // The two targets below hold test code only, so they live under Tests/ (a plain target's
        // folder is otherwise looked for under Sources/).
        // Local stand-ins for the servers tests cannot reach (model provider, weather, a
        // Supabase project's Auth, REST and Storage APIs over a real Postgres).
        .target(
            name: "FakeServers",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/FakeServers"
        ),
        // Fixtures every unit test target shares: a diary in a fresh temp folder, media made
        // byte by byte, the test Postgres cluster (fresh databases, reached through the driver
        // or through psql as an operator would) and records built by hand in the wire shape.
        .target(
            name: "DiaryTestSupport",
            dependencies: [
                "DiaryKit", "SyncSession", "DiarySync", "DiarySeal",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/DiaryTestSupport"
        ),
        // One test target per library target; each imports its own target and the support.
        .testTarget(name: "DiaryKitTests", dependencies: [
            "DiaryKit", "DiaryTestSupport",
            .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        .testTarget(name: "CompanionClientTests", dependencies: ["CompanionClient", "DiaryTestSupport", "FakeServers"]),
        .testTarget(name: "DiaryArchiveTests", dependencies: ["DiaryArchive", "DiaryTestSupport"]),
        .testTarget(name: "SyncSessionTests", dependencies: ["SyncSession", "DiaryTestSupport"]),
        .testTarget(name: "DiarySealTests", dependencies: ["DiarySeal", "DiaryTestSupport"]),
        .testTarget(name: "DiarySyncTests", dependencies: [
            "DiarySync", "DiarySeal", "DiaryTestSupport", "FakeServers",
            .product(name: "GRDB", package: "GRDB.swift"), .product(name: "NIOCore", package: "swift-nio"),
        ]),
        .testTarget(name: "DiaryCLITests", dependencies: ["DiaryCLI", "DiaryTestSupport"]),
        .testTarget(name: "SyncCLITests", dependencies: ["SyncCLI"]),
        // The built commands run through real pipes, in a fresh temp DIARY_HOME each.
        .testTarget(name: "EndToEndTests", dependencies: ["DiaryKit", "FakeServers"]),
    ]
)
