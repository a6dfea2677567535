import ArgumentParser
import Foundation
import Sentio
import SentioAPI
import SentioApplication
import SentioSweep

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SweepMetric: ExpressibleByArgument {}

/// `sentio sweep`: a parameter grid of backtests (run, merge shards, read saved sweeps).
struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Run a backtest for every combination of a parameter grid, ranked by a metric; merge shards; read saved sweeps.",
        subcommands: [SweepRunCommand.self, SweepMergeCommand.self, SweepListCommand.self, SweepShowCommand.self],
        defaultSubcommand: SweepRunCommand.self
    )
}

/// `sentio sweep [run]`: the grid's backtests.
struct SweepRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Backtest every combination of --grid (the default subcommand: `sentio sweep DATA --grid ...`).",
        discussion: """
            Example: sentio sweep Data/market --strategy rsi --grid 'rsi-period=7,14,21;rsi-lower=20,25,30;rsi-upper=70:80:5'
            The grid: NAME=V1,V2,...;NAME2=... where each NAME is a backtest option without '--' (rsi-period, \
            stop-loss, commission, horizon, ...) and a value may be a range START:STOP:STEP (STOP included, exact \
            decimal steps: 0.1:0.3:0.1 is 0.1, 0.2, 0.3). Every other backtest option is fixed for all combinations; \
            an option may not be both fixed and in the grid. Every combination is checked before any runs (an invalid \
            one, such as rsi-lower >= rsi-upper, is named).
            Each row is exactly what `sentio backtest` with the fixed options plus the combination's values reports \
            (the statistics of `backtest --format json`, same names). Rows are ranked by --metric, highest first \
            (undefined values last, ties by combination number). Combination numbers count from 0 with the last grid \
            parameter varying fastest.
            Benchmark: each row's benchmark statistics (alpha, beta, correlation, information ratio, tracking error) \
            compare the run with --benchmark FILE|SYMBOL, as `sentio backtest --benchmark` does (default: equal-weight \
            buy-and-hold of the universe); --metric alpha or information-ratio ranks by them.
            Sharding: --shard K/N runs the combinations i with i mod N = K-1; write each shard with --format json \
            and join them with `sentio sweep merge`, which gives exactly the unsharded output.
            Walk-forward: --walk-forward TRAIN:TEST (bars, e.g. 5000:1000, or durations h/d/w/m/y, e.g. 2y:6m) \
            rolls windows forward by TEST; in each, the best combination on TRAIN runs on TEST, starting from the \
            previous test's final equity; see the SentioSweep documentation for the edge rules.
            Saved sweeps (--save): `sentio sweep list --db FILE` and `sentio sweep show ID --db FILE`.
            Exit codes: 0 success; 2 bad input or options; 1 internal error.
            """
    )

    @Argument(help: ArgumentHelp("CSV files or directories of SYMBOL.csv files (default: Data/market; with --db, the stored bars).", valueName: "PATH"))
    var paths: [String] = []

    @Option(help: ArgumentHelp("The parameter grid: NAME=V1,V2;NAME2=START:STOP:STEP (backtest option names without '--').", valueName: "GRID"))
    var grid: String

    @Option(help: ArgumentHelp("Statistic to rank by, highest first (max-drawdown: shallowest first).", valueName: "METRIC"))
    var metric: SweepMetric = .sharpe

    @Option(parsing: .unconditional, help: ArgumentHelp("Backtests run at once (default: the number of cores).", valueName: "N"))
    var threads: Int?

    @Option(help: ArgumentHelp("Output format: table, json (lossless; what shards write and merge reads) or csv.", valueName: "FORMAT"))
    var format: OutputFormat = .table

    @Option(help: ArgumentHelp("Write the output to FILE instead of standard output.", valueName: "FILE"))
    var output: String?

    @Option(help: ArgumentHelp("Run only part K of N of the grid: combinations i with i mod N = K-1 (K from 1).", valueName: "K/N"))
    var shard: String?

    @Option(name: .customLong("walk-forward"), help: ArgumentHelp("Rolling walk-forward: TRAIN:TEST in bars (5000:1000) or durations (2y:6m, 30d:7d; h, d, w, m, y).", valueName: "TRAIN:TEST"))
    var walkForward: String?

    @Option(name: .customLong("report"), help: ArgumentHelp("Also write an HTML report (heatmap of the metric, walk-forward equity) to PATH.", valueName: "PATH.html"))
    var reportPath: String?

    @Option(help: ArgumentHelp("With --report: the two grid parameters of the heatmap, X,Y (default: the first two of the grid).", valueName: "X,Y"))
    var heatmap: String?

    /// Passed to each combination's backtest options as it is (read there by `BacktestCommand.loadBenchmark`).
    @Option(help: BacktestCommand.benchmarkHelp)
    var benchmark: String?

    @Flag(help: "Save the sweep in the store given by --db; read it back with `sentio sweep list` and `sentio sweep show ID`.")
    var save = false

    @Option(help: ArgumentHelp("With --save: a label to recognise the sweep by.", valueName: "TEXT"))
    var label: String?

    @OptionGroup var strategyOptions: StrategyOptions
    @OptionGroup var selection: SymbolSelectionOptions
    @OptionGroup var range: BarRangeOptions
    @OptionGroup var store: StoreOptions

    func validate() throws {
        try format.require([.table, .json, .csv])
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
        if !save && label != nil { throw ValidationError("--label applies to --save only") }
        if heatmap != nil && reportPath == nil { throw ValidationError("--heatmap applies to --report only") }
        if shard != nil && walkForward != nil { throw ValidationError("--walk-forward cannot be sharded: run it in one process") }
        if shard != nil && (reportPath != nil || save) {
            throw ValidationError("--report and --save apply to a whole sweep: merge the shards first (`sentio sweep merge ... --save`)")
        }
        if !paths.isEmpty && store.database != nil && !save {
            throw ValidationError("give either PATH (CSV input) or --db FILE (stored bars), not both; with --save, PATH is the data and --db the store the sweep is saved to")
        }
        do { _ = try SweepGrid.parse(grid) } catch { throw ValidationError("\(error)") }
        if let shard { do { _ = try SweepShard(parsing: shard) } catch { throw ValidationError("\(error)") } }
        if let walkForward { do { _ = try WalkForwardSpec(parsing: walkForward) } catch { throw ValidationError("\(error)") } }
        let outputs = [output, reportPath].compactMap { $0 }
        if Set(outputs).count != outputs.count { throw ValidationError("--output and --report must be different files") }
    }

    func run() throws {
        let plan = try SweepPlan(command: self, arguments: SweepPlan.commandArguments())
        let progress = TerminalProgress("sweep", phases: ["reading", "backtests"])
        progress.begin("reading")
        let loaded = try plan.base.loadMarketWithReports()
        if !MarketFileOptions.holdingAdjustments(loaded.results, actions: loaded.actions).isEmpty {
            throw UsageError(
                "sentio sweep does not apply --actions to holdings (sentio backtest does): use --adjust total with an "
                    + "adjusted close, or --adjust splits without dividends in the actions file")
        }
        MarketFileOptions.printNotesAndStatement(loaded.results)
        let market = loaded.market
        var sweep = plan.sweep
        sweep.benchmark = try plan.base.loadBenchmark(universe: market)
        progress.begin("backtests", unit: "runs")
        let runner = SweepRunner(threads: threads ?? SweepRunner.defaultThreads, progress: progress.callback)
        let result: SweepOutput
        if let walkForward {
            result = try sweep.runWalkForward(try WalkForwardSpec(parsing: walkForward), on: market, runner: runner)
        } else {
            result = try sweep.run(on: market, runner: runner)
        }
        progress.finish()  // before anything is printed on standard output
        try SweepOutputWriter(format: format, output: output, reportPath: reportPath, heatmap: heatmap, save: save ? store : nil, label: label)
            .write(result)
    }
}

/// The sweep's jobs, built from the command line: the backtest's options (this command's arguments without the
/// sweep's own options) give the base request, as `sentio backtest` builds it; the grid gives the axes;
/// SentioSweep's `SweepRequestBuilder` makes each combination's request and checks it.
struct SweepPlan {
    var base: BacktestCommand
    var sweep: Sweep

    /// Options of `sentio sweep` that `sentio backtest` does not take (with their value, except `--save`).
    static let sweepOnlyOptions: Set<String> = [
        "--grid", "--metric", "--threads", "--format", "--output", "--shard", "--walk-forward", "--report", "--heatmap", "--label",
    ]

    /// Options of `sentio backtest` that select or write data rather than describe the run: not grid parameters.
    static let dataOptions: Set<String> = [
        "symbols", "from", "to", "db", "currency", "fx", "events", "trades", "equity", "portfolio", "save", "label", "format", "report",
    ]

    /// The arguments after `sweep` (and `run`) on this process's command line.
    static func commandArguments() -> [String] {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let k = arguments.firstIndex(of: "sweep") { arguments.removeSubrange(...k) }
        if arguments.first == "run" { arguments.removeFirst() }
        return arguments
    }

    init(command: SweepRunCommand, arguments: [String]) throws {
        let grid = try SweepGrid.parse(command.grid)
        let shard = try command.shard.map { try SweepShard(parsing: $0) }
        // The backtest's arguments (recorded in the output as given): without the sweep's own options; with --save
        // and PATH, --db is the store to save to, not the data.
        var backtestArguments: [String] = []
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            let name = a.hasPrefix("--") ? String(a.split(separator: "=", maxSplits: 1)[0]) : a
            if a == "--" { backtestArguments += arguments[i...]; break }
            if a == "--save" { i += 1; continue }
            if Self.sweepOnlyOptions.contains(name) || (name == "--db" && command.save && !command.paths.isEmpty) {
                i += a.contains("=") ? 1 : 2
                continue
            }
            backtestArguments.append(a)
            i += 1
        }
        let fixed = Set(backtestArguments.filter { $0.hasPrefix("--") }.map { String($0.split(separator: "=", maxSplits: 1)[0]) })
        // Every grid name must be a strategy option (what `sentio backtest` takes besides data selection), given once.
        for p in grid.parameters {
            if Self.dataOptions.contains(p.name) || Self.sweepOnlyOptions.contains("--" + p.name) {
                throw UsageError("--grid: \(p.name) is not a strategy option of `sentio backtest` (the grid varies strategy, cost, sizing and model options)")
            }
            if p.name == "config" {
                throw UsageError("--grid: config cannot be a grid parameter: give --config FILE and put the model's parameters in the grid")
            }
            if fixed.contains("--" + p.name) {
                throw UsageError("--grid: \(p.name) is both in the grid and given as --\(p.name): give it in one place")
            }
        }
        do {
            base = try BacktestCommand.parse(backtestArguments)
        } catch {
            throw UsageError(BacktestCommand.message(for: error))
        }
        let builder = try SweepRequestBuilder(base: try base.request, grid: grid)
        let options = backtestArguments.filter { !command.paths.contains($0) }
        sweep = Sweep(
            grid: grid, metric: command.metric, shard: shard, strategy: base.strategyOptions.strategy.rawValue, options: options,
            source: base.dataSource, jobs: try builder.jobs(shard: shard))
    }
}

/// Writes a sweep's output: the chosen format to standard output or `--output`, the report, the store.
struct SweepOutputWriter {
    var format: OutputFormat
    var output: String?
    var reportPath: String?
    var heatmap: String?
    var save: StoreOptions?
    var label: String?

    func write(_ result: SweepOutput) throws {
        let text: String
        switch format {
        case .json: text = try result.json()
        case .csv: text = result.csv()
        default: text = result.table()
        }
        // All files or none (OutputTransaction): staged, the sweep saved, then renamed into place.
        let outputs = OutputTransaction()
        if let output { try outputs.stage(output, text: text) }
        if let reportPath {
            let axes = try heatmap.map { spec -> (String, String) in
                let names = spec.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
                guard names.count == 2 else { throw UsageError("--heatmap expects X,Y (two grid parameter names), got '\(spec)'") }
                return (names[0], names[1])
            }
            try outputs.stage(reportPath, text: try SweepReport.html(result, heatmap: axes))
        }
        var saved: String?
        if let save {
            let database = try save.open(mode: .createIfMissing)
            let id = try database.saveSweep(StoredSweep(
                label: label, strategy: result.strategy, metric: result.metric.rawValue, combinations: result.combinations,
                rowCount: result.rows.count, symbols: result.data.symbols, startTimestamp: result.data.start,
                endTimestamp: result.data.end, outputJSON: try result.json()))
            saved = "saved sweep \(id) to \(database.path) (read it back with `sentio sweep show \(id) --db \(database.path)`)"
        }
        try outputs.commit()
        if let saved { printError(saved) }
        if output == nil { print(text, terminator: "") }
    }
}
