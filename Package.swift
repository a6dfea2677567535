// swift-tools-version:6.1
import PackageDescription

// Dependencies point one way, toward SentioCore:
//   {SentioCLI, SentioServer} → SentioApplication → SentioAPI → engine modules (Live, Sweep, Store, Reports, Backtest, Signals, Funds,
//     Savings, Data, Indicators) → SentioCore → CSentioLinearAlgebra
// SentioAPI holds the wire contracts and the one JSON encoder; SentioApplication the glue between the engine modules,
// the store and the contracts (a backtest's outputs, a sweep's text forms, store adapters and import, bar selection,
// indicator output, saved runs, terminal tables). Sentio (the umbrella) only re-exports the engine modules.
// SentioData, SentioFunds and SentioSavings share SentioCSV (the one CSV tokenizer, number grammar and text-file reader).
// The core knows nothing of CSV, SQLite or the command line.
let package = Package(
    name: "Sentio",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Sentio", targets: ["Sentio"]),
        .executable(name: "sentio", targets: ["SentioCLI"]),
        .executable(name: "sentio-dev", targets: ["SentioDevTools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // sentio serve (SentioServer only; no core module depends on these).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
        // SentioServer's NIO modules (NIOCore, NIOPosix, NIOHTTP1, NIOWebSocket, NIOConcurrencyHelpers), until now
        // reached only through Hummingbird.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.65.0"),
        // LP portal accounts: bcrypt password hashes (HummingbirdBcrypt) and SHA-256 of invitation/reset tokens.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
    ],
    targets: [
        // OpenBLAS (CBLAS) and LAPACKE from Debian's libopenblas-dev and liblapacke-dev.
        .systemLibrary(
            name: "CSentioLinearAlgebra",
            path: "Sources/CSentioLinearAlgebra",
            pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev", "liblapacke-dev"])]
        ),
        .target(name: "SentioCore", dependencies: ["CSentioLinearAlgebra"]),
        .target(name: "SentioCSV", dependencies: ["SentioCore"]),
        .target(name: "SentioData", dependencies: ["SentioCore", "SentioCSV"]),
        .target(name: "SentioIndicators", dependencies: ["SentioCore"]),
        .target(name: "SentioSignals", dependencies: ["SentioCore", "SentioIndicators"]),
        .target(name: "SentioLive", dependencies: ["SentioCore", "SentioSignals", "SentioBacktest", "SentioData", "SentioStore"]),
        .target(name: "SentioFunds", dependencies: ["SentioCore", "SentioCSV"]),
        .target(name: "SentioSavings", dependencies: ["SentioCore", "SentioCSV"]),
        .target(name: "SentioBacktest", dependencies: ["SentioCore", "SentioIndicators", "SentioSignals"]),
        .target(
            name: "SentioStore",
            dependencies: [
                "SentioCore", .product(name: "GRDB", package: "GRDB.swift"),
                // The SQLite C API for the measured fast paths (bar blocks, bulk inserts, the journal's replay).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(name: "SentioReports", dependencies: ["SentioCore", "SentioBacktest", "SentioFunds"]),
        // The wire contracts and the one JSON encoder; the live events' contracts are adapters from SentioLive's
        // typed events; the sweep's text forms (CSV, table) render SentioSweep's output.
        .target(
            name: "SentioAPI",
            dependencies: ["SentioCore", "SentioData", "SentioSignals", "SentioBacktest", "SentioFunds", "SentioLive"]
        ),
        // The application glue between the engine modules, the store and the contracts, used by the CLI and the server.
        .target(
            name: "SentioApplication",
            dependencies: [
                "SentioCore", "SentioData", "SentioIndicators", "SentioSignals", "SentioFunds", "SentioBacktest", "SentioSweep",
                "SentioStore", "SentioAPI",
            ]
        ),
        // Parameter sweeps and walk-forward over SentioBacktest: the grid, each combination's request, the runs, the
        // rows (SentioBacktest's figures; the money-weighted return by SentioFunds' XIRR), the HTML report.
        .target(name: "SentioSweep", dependencies: ["SentioCore", "SentioIndicators", "SentioSignals", "SentioBacktest", "SentioFunds", "SentioReports"]),
        // Measurement: one clock, one percentile, the workloads of `sentio bench` (used by the CLI and sentio-dev).
        .target(
            name: "SentioBench",
            dependencies: ["SentioCore", "SentioCSV", "SentioData", "SentioIndicators", "SentioSignals", "SentioBacktest", "SentioFunds"]
        ),
        .target(
            name: "Sentio",
            dependencies: [
                "SentioCore", "SentioData", "SentioIndicators", "SentioSignals", "SentioFunds",
                "SentioBacktest", "SentioLive", "SentioStore", "SentioReports", "SentioSavings",
            ]
        ),
        .target(
            name: "SentioServer",
            // Every module it imports.
            dependencies: [
                "Sentio", "SentioAPI", "SentioApplication", "SentioLive", "SentioData", "SentioCore", "SentioCSV", "SentioSignals",
                "SentioBacktest", "SentioFunds", "SentioSavings", "SentioStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            // The OpenAPI document is compiled into the binary from its one file (PackageResources.openapi_json).
            resources: [.embedInCode("Resources/openapi.json")]
        ),
        .executableTarget(
            name: "SentioCLI",
            dependencies: [
                "Sentio", "SentioData", "SentioFunds", "SentioStore", "SentioAPI", "SentioApplication", "SentioLive", "SentioServer",
                "SentioSweep", "SentioBench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Benchmark and test machinery kept out of the user's `sentio` (malloc-hook allocation counter, synthetic writers).
        .executableTarget(
            name: "SentioDevTools",
            dependencies: [
                "Sentio", "SentioStore", "SentioServer", "SentioLive", "SentioBench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .target(name: "SentioTestSupport", dependencies: ["SentioCore"], path: "Tests/SentioTestSupport"),
        // Strict decoders written from the field lists, independent of SentioAPI's types (shared by the
        // contract tests and the server tests).
        .target(name: "SentioContractDecoders", path: "Tests/SentioContractDecoders"),
        .testTarget(name: "SentioCoreTests", dependencies: ["SentioCore", "SentioTestSupport"]),
        .testTarget(name: "SentioCSVTests", dependencies: ["SentioCSV", "SentioCore", "SentioData", "SentioFunds", "SentioTestSupport"]),
        .testTarget(name: "SentioDataTests", dependencies: ["SentioData", "SentioCSV", "SentioCore", "SentioTestSupport"]),
        .testTarget(name: "SentioIndicatorsTests", dependencies: ["SentioIndicators", "SentioCore", "SentioData", "SentioTestSupport"]),
        .testTarget(name: "SentioSignalsTests", dependencies: ["SentioSignals", "SentioCore", "SentioData", "SentioIndicators", "SentioTestSupport"]),
        .testTarget(name: "SentioFundsTests", dependencies: ["SentioFunds", "SentioCore", "SentioTestSupport"]),
        .testTarget(name: "SentioSavingsTests", dependencies: ["SentioSavings", "SentioCore", "SentioTestSupport"]),
        .testTarget(name: "SentioBacktestTests", dependencies: ["SentioBacktest", "SentioCore", "SentioData", "SentioIndicators", "SentioSignals", "SentioTestSupport"]),
        .testTarget(name: "SentioLiveTests", dependencies: ["SentioLive", "SentioBacktest", "SentioCore", "SentioData", "SentioSignals", "SentioStore", "SentioAPI", "SentioTestSupport"]),
        .testTarget(name: "SentioSweepTests", dependencies: ["SentioSweep", "SentioAPI", "SentioApplication", "SentioReports", "SentioBacktest", "SentioCore", "SentioData", "SentioSignals", "SentioTestSupport"]),
        .testTarget(name: "SentioStoreTests", dependencies: ["SentioStore", "SentioCore", "SentioTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "SentioReportsTests", dependencies: ["SentioReports", "SentioBacktest", "SentioCore", "SentioFunds", "SentioTestSupport"]),
        .testTarget(
            name: "SentioCLITests",
            dependencies: [
                "SentioCLI", "SentioDevTools", "Sentio", "SentioAPI", "SentioApplication", "SentioLive", "SentioStore", "SentioBench",
                "SentioTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "SentioAPITests",
            dependencies: [
                "SentioAPI", "SentioApplication", "SentioCore", "SentioSignals", "SentioBacktest", "SentioFunds", "SentioData", "SentioStore",
                "SentioTestSupport", "SentioContractDecoders", "SentioCLI",
            ],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "SentioServerTests",
            dependencies: [
                "SentioServer", "SentioAPI", "SentioBacktest", "SentioCore", "SentioData", "SentioFunds", "SentioLive", "SentioStore",
                "SentioCLI", "SentioTestSupport", "SentioContractDecoders",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            // schemathesis.sh: run by .ci/run against a live `sentio serve`, not by `swift test`; the SignalR client
            // script is run by FamilyHubTests; the investing app's third-party client (growfolio-flow.sh,
            // growfolio_flow.py) is run by InvestingTests; apple-test-token.sh mints test tokens for schemathesis.sh and
            // the serve benchmark.
            exclude: ["schemathesis.sh", "signalr_family_client.py", "growfolio-flow.sh", "growfolio_flow.py", "apple-test-token.sh"]
        ),
    ]
)
