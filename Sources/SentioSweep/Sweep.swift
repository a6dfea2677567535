import SentioBacktest
import SentioCore

/// A sweep as asked for: the grid, the metric, the shard, and one ``SweepJob`` per combination of the shard.
///
/// The jobs come from a ``SweepRequestBuilder`` (each combination's `BacktestRequest`: the base request with the
/// combination's values, every combination checked before any runs); ``run(on:runner:)`` does the rest: running,
/// ranking, the output.
public struct Sweep: Sendable {
    public var grid: SweepGrid
    public var metric: SweepMetric
    public var shard: SweepShard?
    /// The strategy's name and the fixed options as given (recorded in the output; merge compares them).
    public var strategy: String
    public var options: [String]
    public var source: BacktestDataSource
    /// The shard's combinations (all of them without a shard), ascending index.
    public var jobs: [SweepJob]
    /// The benchmark every row is compared with (`--benchmark`); `nil`: equal-weight buy-and-hold of the universe,
    /// as `sentio backtest` (``benchmarkChoice(on:)``).
    public var benchmark: BenchmarkSeries?

    public init(
        grid: SweepGrid, metric: SweepMetric, shard: SweepShard?, strategy: String, options: [String],
        source: BacktestDataSource, jobs: [SweepJob], benchmark: BenchmarkSeries? = nil
    ) {
        self.grid = grid
        self.metric = metric
        self.shard = shard
        self.strategy = strategy
        self.options = options
        self.source = source
        self.jobs = jobs
        self.benchmark = benchmark
    }

    /// What the rows of a run on `market` compare with: the given benchmark (one that cannot be compared is an
    /// error), else the equal-weight buy-and-hold of `market`'s symbols on its timeline — the choice
    /// `sentio backtest` makes, so a row's `benchmark` equals the backtest's.
    public func benchmarkChoice(on market: Market) -> SweepBenchmarkChoice {
        benchmark.map { .given($0) } ?? .standard(BenchmarkSeries.equalWeight(market.series, timeline: market.timeline))
    }

    /// The combination indices this sweep runs: the shard's (``SweepShard``), or all.
    public static func indices(of grid: SweepGrid, shard: SweepShard?) -> [Int] {
        shard.map { Array($0.indices(of: grid.count)) } ?? Array(0..<grid.count)
    }

    /// Runs the jobs on `market` and returns the output, rows sorted by the metric (see ``SweepMetric``).
    ///
    /// - Throws: ``SweepCombinationError`` for a combination whose backtest fails.
    public func run(on market: Market, runner: SweepRunner) throws -> SweepOutput {
        let rows = try runner.run(jobs, on: market, benchmark: benchmarkChoice(on: market))
        return output(rows: rows, market: market)
    }

    /// The output contract for `rows` (sorted here).
    func output(rows: [SweepRow], market: Market, walkForward: SweepWalkForward? = nil) -> SweepOutput {
        SweepOutput(
            grid: grid.parameters, metric: metric, combinations: grid.count, shard: shard?.info, strategy: strategy,
            options: options, data: SweepDataInfo(market: market, source: source), rows: metric.sorted(rows),
            walkForward: walkForward)
    }
}

/// Merging shard outputs (`sentio sweep merge`).
public enum SweepMerge {
    /// The outputs of shards 1…N of one sweep, merged into the unsharded sweep's output (same rows, same order, the
    /// same bytes in every format).
    ///
    /// - Parameter shards: each shard's output with the file it came from (for messages).
    /// - Throws: ``SweepFileError`` when a file is not a shard, the shards disagree on the grid, metric, strategy,
    ///   options, data or shard count, a shard is missing or given twice, or a shard's rows are not exactly its
    ///   combinations.
    public static func merge(_ shards: [(file: String, output: SweepOutput)]) throws(SweepFileError) -> SweepOutput {
        guard let (firstFile, first) = shards.first else { throw SweepFileError(file: "", message: "no shard file given") }
        guard let info = first.shard else {
            throw SweepFileError(file: firstFile, message: "not a shard output (its shard is null): nothing to merge")
        }
        var seen: [Int: String] = [:]
        var rows: [SweepRow] = []
        for (file, out) in shards {
            guard let s = out.shard else { throw SweepFileError(file: file, message: "not a shard output (its shard is null)") }
            func differs(_ what: String) -> SweepFileError {
                SweepFileError(file: file, message: "\(what) differs from \(firstFile)'s: not shards of the same sweep")
            }
            if out.grid != first.grid { throw differs("the grid") }
            if out.metric != first.metric { throw differs("the metric") }
            if out.strategy != first.strategy || out.options != first.options { throw differs("the strategy or options") }
            if out.data != first.data { throw differs("the data") }
            if out.combinations != first.combinations { throw differs("the combination count") }
            if s.count != info.count { throw SweepFileError(file: file, message: "is shard \(s.index)/\(s.count), \(firstFile) is of \(info.count) shards") }
            if out.walkForward != nil { throw SweepFileError(file: file, message: "a walk-forward output cannot be merged") }
            if let other = seen[s.index] { throw SweepFileError(file: file, message: "shard \(s.index)/\(s.count) given twice (also \(other))") }
            seen[s.index] = file
            let expected = Array(stride(from: s.index - 1, to: out.combinations, by: s.count))
            guard out.rows.map(\.index).sorted() == expected else {
                throw SweepFileError(file: file, message: "shard \(s.index)/\(s.count) does not hold exactly its \(expected.count) combinations")
            }
            let grid = try? SweepGrid(parameters: out.grid)
            for row in out.rows where grid?.combination(row.index) != row.parameters {
                throw SweepFileError(file: file, message: "row \(row.index): its parameters are not the grid's combination \(row.index)")
            }
            rows += out.rows
        }
        let missing = (1...info.count).filter { seen[$0] == nil }
        guard missing.isEmpty else {
            throw SweepFileError(file: "", message: "missing shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(info.count)" }.joined(separator: ", "))")
        }
        var merged = first
        merged.shard = nil
        merged.rows = first.metric.sorted(rows)
        return merged
    }
}
