// swift-tools-version:6.0
import PackageDescription

// The benchmark tools live in their own package so the product keeps its five executables.
let package = Package(
    name: "DiaryBench",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(name: "diary-corpus", dependencies: [.product(name: "DiaryKit", package: "main")]),
    ]
)
