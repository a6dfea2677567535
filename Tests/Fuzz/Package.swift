// swift-tools-version:6.1
// libFuzzer targets for Sentio's readers. A nested package, so that the main package's `swift build` never
// builds them (they have no `main`: libFuzzer supplies it). Build and run: see Tests/Fuzz/README.md.
import PackageDescription

let package = Package(
    name: "SentioFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Sentio", path: "../..")],
    targets: [
        .target(name: "FuzzOracle", path: "Sources/FuzzOracle"),
        .executableTarget(
            name: "FuzzOHLCVReader",
            dependencies: ["FuzzOracle", .product(name: "Sentio", package: "Sentio")],
            path: "Sources/FuzzOHLCVReader"),
        .executableTarget(
            name: "FuzzFundReaders",
            dependencies: ["FuzzOracle", .product(name: "Sentio", package: "Sentio")],
            path: "Sources/FuzzFundReaders"),
    ]
)
