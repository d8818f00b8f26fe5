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
    ],
    targets: [
        .target(
            name: "DiaryKit",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(name: "diary-new", dependencies: ["DiaryKit"]),
        .executableTarget(name: "diary-chat", dependencies: ["DiaryKit"]),
        .executableTarget(name: "diary-save", dependencies: ["DiaryKit"]),
        .executableTarget(name: "diary-find", dependencies: ["DiaryKit"]),
        .executableTarget(name: "diary-sync", dependencies: ["DiaryKit"]),
        .testTarget(name: "DiaryKitTests", dependencies: ["DiaryKit"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["DiaryKit"]
        ),
    ]
)
