import ArgumentParser
import Foundation
import Sentio
import SentioAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sentio runs`: list, show and compare backtest runs saved in a store.
struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List, show and compare backtest runs saved in a Sentio store.",
        discussion: """
            Runs are saved by `sentio backtest --save --db FILE`. Statistics come from each run's saved statistics \
            (the summary `sentio backtest --format json` printed, kept byte for byte); a statistic a run lacks shows as '-'.
            """,
        subcommands: [List.self, Show.self, Compare.self, WriteSynthetic.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List saved runs, oldest first, with their headline statistics.")
        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("Output format: table or json (the RunList contract).", valueName: "FORMAT"))
        var format: OutputFormat = .table

        func validate() throws { try format.require([.table, .json]) }

        func run() throws {
            let database = try store.open(mode: .readOnly)
            let list = try RunList(try database.runs())
            print(format == .json ? try APIJSON.encode(list) : list.table(storePath: database.path) + "\n", terminator: "")
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one run in full: configuration, statistics, trades and an equity summary (json: the whole curve).")
        @Argument(help: "Run id (see `sentio runs list`).")
        var id: Int64
        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("Output format: table or json (the RunDetail contract).", valueName: "FORMAT"))
        var format: OutputFormat = .table

        func validate() throws { try format.require([.table, .json]) }

        func run() throws {
            let detail = try RunDetail(try store.open(mode: .readOnly).run(id: id))
            print(format == .json ? try APIJSON.encode(detail) : detail.table() + "\n", terminator: "")
        }
    }

    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare runs side by side: every statistic, and the configuration values that differ.")
        @Argument(help: "Two or more run ids.")
        var ids: [Int64]
        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("Output format: table or json (the RunComparison contract).", valueName: "FORMAT"))
        var format: OutputFormat = .table

        func validate() throws {
            try format.require([.table, .json])
            if ids.count < 2 { throw ValidationError("compare needs at least two run ids, got \(ids.count)") }
        }

        func run() throws {
            let database = try store.open(mode: .readOnly)
            let comparison = try RunComparison(try ids.map { try database.run(id: $0).run })
            print(format == .json ? try APIJSON.encode(comparison) : comparison.table() + "\n", terminator: "")
        }
    }

    /// Test helper (hidden): saves synthetic runs one after another, printing each id, so that a test can kill the
    /// process in the middle of a save and check that the store is still consistent.
    struct WriteSynthetic: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write-synthetic", abstract: "Test helper: save synthetic runs in a loop.", shouldDisplay: false)
        @OptionGroup var store: StoreOptions
        @Option(help: "Number of runs to save.") var count: Int = 10
        @Option(help: "Trades per run.") var trades: Int = 100
        @Option(help: "Equity points per run.") var points: Int = 10_000

        func validate() throws {
            if count < 0 { throw ValidationError("--count must not be negative, got \(count)") }
            if trades < 0 { throw ValidationError("--trades must not be negative, got \(trades)") }
            if points < 1 { throw ValidationError("--points must be at least 1, got \(points)") }
        }

        func run() throws {
            let database = try store.open(mode: .createIfMissing)
            for n in 0..<count {
                // A seeded random walk of daily equity, so that listings and comparisons have something to show.
                var state = UInt64(n + 1) &* 0x9E37_79B9_7F4A_7C15
                func uniform() -> Double {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return Double(state >> 11) / Double(1 << 53)
                }
                let start: Int64 = 1_672_617_600  // 2023-01-02
                var value = 100_000.0, peak = value, maxDrawdown = 0.0
                var equity: [StoredEquityPoint] = []
                equity.reserveCapacity(points)
                for i in 0..<points {
                    if i > 0 { value *= 1 + 0.02 * (uniform() - 0.48) }
                    peak = max(peak, value)
                    maxDrawdown = max(maxDrawdown, 1 - value / peak)
                    equity.append(StoredEquityPoint(timestamp: start + Int64(i) * 86_400, equity: value, cash: value * 0.1))
                }
                let tradeList = (0..<trades).map { i in
                    StoredTrade(
                        symbol: "SYN", entryTimestamp: start + Int64(i) * 86_400, entryPrice: 100,
                        exitTimestamp: start + Int64(i) * 86_400 + 3_600, exitPrice: 101, shares: 10, pnl: 10, pnlPercent: 1,
                        signalType: "BUY", exitReason: "synthetic")
                }
                let totalReturn = (value / 100_000 - 1) * 100
                let run = StoredRun(
                    strategy: "synthetic", symbols: ["SYN"], configJSON: #"{"seed":\#(n + 1)}"#,
                    statisticsJSON: #"{"maxDrawdownPercent":\#(maxDrawdown * 100),"totalReturnPercent":\#(totalReturn),"tradeCount":\#(trades)}"#,
                    inputFingerprint: "synthetic", label: "written by sentio runs write-synthetic",
                    startTimestamp: equity.first?.timestamp, endTimestamp: equity.last?.timestamp,
                    initialCapital: 100_000, finalEquity: value)
                let id = try database.saveRun(run, trades: tradeList, equity: equity)
                print("saved run \(id)")
                fflush(nil)  // flush stdout so the parent sees each id as soon as it is committed
            }
        }
    }
}

/// `--db FILE`, shared by every command that uses the store (`import`, `runs`, and the `--save` flags).
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("db"),
        help: ArgumentHelp(
            "SQLite store file (default: $SENTIO_DB if set, else ./sentio.sqlite in the working directory).",
            valueName: "FILE"))
    var database: String?

    /// The path to use: `--db`, else the documented default.
    var path: String { database ?? SentioDatabase.defaultPath() }

    /// Opens the store; `.readOnly` for commands that only read (a store whose file or folder is not writable is
    /// then opened read-only, creating no `-wal`/`-shm` files). An empty `--db ''` is a usage error (exit 2).
    func open(mode: SentioDatabase.OpenMode) throws -> SentioDatabase {
        if database?.isEmpty == true { throw UsageError("--db needs a file path; got an empty string") }
        return try SentioDatabase(path: path, mode: mode)
    }
}
