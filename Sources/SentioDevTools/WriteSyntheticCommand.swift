import ArgumentParser
import Foundation
import Sentio

/// `sentio-dev write-synthetic`: a test helper that saves synthetic runs one after another.
struct WriteSyntheticCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write-synthetic",
        abstract: "Save synthetic backtest runs in a loop (for crash-safety tests).",
        discussion: "Saves --count runs one after another, printing each id as soon as it is committed, so that a test can kill the process in the middle of a save and check that the store is still consistent. Each run is a seeded random walk of daily equity from 2023-01-02 (seed = run number).")

    @Option(name: .customLong("db"), help: ArgumentHelp("SQLite store file (default: $SENTIO_DB if set, else ./sentio.sqlite).", valueName: "FILE"))
    var database: String?

    @Option(help: ArgumentHelp("Number of runs to save.", valueName: "N")) var count: Int = 10
    @Option(help: ArgumentHelp("Trades per run.", valueName: "N")) var trades: Int = 100
    @Option(help: ArgumentHelp("Equity points per run.", valueName: "N")) var points: Int = 10_000

    func validate() throws {
        if count < 0 { throw ValidationError("--count must not be negative, got \(count)") }
        if trades < 0 { throw ValidationError("--trades must not be negative, got \(trades)") }
        if points < 1 { throw ValidationError("--points must be at least 1, got \(points)") }
    }

    func run() throws {
        if database?.isEmpty == true { throw DevUsageError("--db needs a file path; got an empty string") }
        let database = try SentioDatabase(path: self.database ?? SentioDatabase.defaultPath(), mode: .createIfMissing)
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
                inputFingerprint: "synthetic", label: "written by sentio-dev write-synthetic",
                startTimestamp: equity.first?.timestamp, endTimestamp: equity.last?.timestamp,
                initialCapital: 100_000, finalEquity: value)
            let id = try database.saveRun(run, trades: tradeList, equity: equity)
            print("saved run \(id)")
            fflush(nil)  // flush stdout so the parent sees each id as soon as it is committed
        }
    }
}
