// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "InnerBloomDiary",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "diary-new", targets: ["diary-new"]),
        .executable(name: "diary-chat", targets: ["diary-chat"]),
        .executable(name: "diary-save", targets: ["diary-save"]),
        .executable(name: "diary-find", targets: ["diary-find"]),
        .executable(name: "diary-sync", targets: ["diary-sync"]),
        .library(name: "DiaryKit", targets: ["DiaryKit"]),
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
        // libarchive from the system (Debian: libarchive-dev); only DiaryKit/Archive imports it.
        .systemLibrary(
            name: "CArchive",
            pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]
        ),
        .target(
            name: "DiaryKit",
            dependencies: [
                "CArchive",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "diary-new", dependencies: ["DiaryKit"]),
        .executableTarget(name: "diary-chat", dependencies: ["DiaryKit"]),
        .executableTarget(name: "diary-save", dependencies: ["DiaryKit"]),
        .executableTarget(name: "diary-find", dependencies: ["DiaryKit"]),
        .executableTarget(name: "diary-sync", dependencies: ["DiaryKit"]),
        // Local stand-ins for the servers tests cannot reach (model provider, weather).
        .target(
            name: "FakeServers",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/FakeServers"
        ),
        .testTarget(name: "DiaryKitTests", dependencies: ["DiaryKit", "FakeServers"]),
        .testTarget(name: "EndToEndTests", dependencies: ["DiaryKit", "FakeServers"]),
    ]
)
