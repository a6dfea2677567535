// swift-tools-version:6.1
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, which depends on where the repository was cloned.
let sentioPackageName = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// A nested package so that a plain `swift build` of Sentio never pulls the benchmark plugin.
// Run with `swift package benchmark` from this folder (see the README's Performance section).
let package = Package(
    name: "SentioBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../"),
        // Only the malloc interposer trait: the default traits need a package not available here.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "SentioBenchmarks",
            dependencies: [
                .product(name: "Sentio", package: sentioPackageName),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/SentioBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
