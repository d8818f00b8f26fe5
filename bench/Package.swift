// swift-tools-version:6.0
import Foundation
import PackageDescription

// The root package is a path dependency, whose identity SwiftPM takes from its folder's
// name; reading that name here lets the benchmarks build from a clone in any folder.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

// The benchmark tools live in their own package so the product keeps its five executables.
// Sources/FakeServers is a link to the tests' fake servers: the companion benchmark times
// our client against the same local stand-in for the model provider, and bench/sync.sh
// syncs through the stand-in for a Supabase project.
let package = Package(
    name: "DiaryBench",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // The corpus writes the sqlite3 floor file with GRDB (the same version DiaryKit uses).
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        // The corpus hashes the media it writes (the same version DiaryKit uses).
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "3.12.3"),
        // The Supabase stand-in keeps its Auth users, RPC calls and Storage objects in Postgres.
        .package(url: "https://github.com/vapor/postgres-nio.git", exact: "1.33.2"),
    ],
    targets: [
        .executableTarget(name: "diary-corpus", dependencies: [
            .product(name: "DiaryKit", package: root),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .target(name: "FakeServers", dependencies: [
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        .executableTarget(name: "supabase-standin", dependencies: ["FakeServers"]),
        .executableTarget(name: "recall-bench", dependencies: [.product(name: "DiaryKit", package: root)]),
        .executableTarget(name: "companion-bench", dependencies: [
            .product(name: "DiaryKit", package: root), .product(name: "CompanionClient", package: root), "FakeServers",
        ]),
    ]
)
