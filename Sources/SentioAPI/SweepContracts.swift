import Foundation
import SentioBacktest
import SentioCore

// Declaration order is key order (``APIJSON``): do not reorder stored properties.

/// The result of `sentio sweep` (and of each shard, and of `sentio sweep merge`): the grid, the metric the rows are
/// sorted by, and one row per combination with its backtest statistics.
///
/// The JSON form is lossless (every number in its shortest round-trip form): shards write it and
/// `sentio sweep merge` reads it back. Fields:
/// - `grid`: the parameters in grid order, each with its values as given (range values expanded);
/// - `metric`: the ``SweepMetric`` the rows are sorted by;
/// - `combinations`: the total number of combinations of the grid (every shard states the whole grid's count);
/// - `shard`: `{"index", "count"}` (index 1-based) for a shard's output, `null` for a whole sweep or a merge;
/// - `strategy`, `options`: the strategy and the fixed backtest options exactly as given on the command line
///   (everything but the grid and the sweep's own options), compared textually by merge;
/// - `data`: where the bars came from and the period they cover;
/// - `rows`: the combinations run (the shard's only, for a shard), sorted by the metric (see ``SweepMetric``);
/// - `walkForward`: the walk-forward analysis with `--walk-forward`, else `null`.
public struct SweepOutput: Sendable, Equatable, Codable {
    public var grid: [SweepGridParameter]
    public var metric: SweepMetric
    public var combinations: Int
    public var shard: SweepShardInfo?
    public var strategy: String
    public var options: [String]
    public var data: SweepDataInfo
    public var rows: [SweepRow]
    public var walkForward: SweepWalkForward?

    public init(
        grid: [SweepGridParameter], metric: SweepMetric, combinations: Int, shard: SweepShardInfo?, strategy: String,
        options: [String], data: SweepDataInfo, rows: [SweepRow], walkForward: SweepWalkForward? = nil
    ) {
        self.grid = grid
        self.metric = metric
        self.combinations = combinations
        self.shard = shard
        self.strategy = strategy
        self.options = options
        self.data = data
        self.rows = rows
        self.walkForward = walkForward
    }
}

/// One parameter of the grid: a backtest option name (without `--`) and its values as strings, in order.
public struct SweepGridParameter: Sendable, Equatable, Codable {
    public var name: String
    public var values: [String]

    public init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }
}

/// Which part of a sharded sweep an output holds: combinations `i` with `i mod count == index − 1`.
public struct SweepShardInfo: Sendable, Equatable, Codable {
    /// 1-based.
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }
}

/// The bars a sweep ran on: the source (CSV paths or a store, `--from`/`--to`) and the timeline covered.
public struct SweepDataInfo: Sendable, Equatable, Codable {
    public var paths: [String]
    public var database: String?
    public var from: APITimestamp?
    public var to: APITimestamp?
    public var symbols: [String]
    public var start: APITimestamp
    public var end: APITimestamp
    /// Timeline steps.
    public var bars: Int

    public init(
        paths: [String], database: String?, from: APITimestamp?, to: APITimestamp?, symbols: [String],
        start: APITimestamp, end: APITimestamp, bars: Int
    ) {
        self.paths = paths
        self.database = database
        self.from = from
        self.to = to
        self.symbols = symbols
        self.start = start
        self.end = end
        self.bars = bars
    }
}

/// A combination's parameter values, as a JSON object in grid order (`{"rsi-period": "7", "rsi-lower": "20"}`).
public struct SweepParameters: Sendable, Equatable, Codable {
    public var values: [(name: String, value: String)]

    public init(_ values: [(name: String, value: String)]) { self.values = values }

    /// The value of `name`, or `nil` when the grid has no such parameter.
    public subscript(name: String) -> String? { values.first { $0.name == name }?.value }

    public static func == (a: SweepParameters, b: SweepParameters) -> Bool {
        a.values.map(\.name) == b.values.map(\.name) && a.values.map(\.value) == b.values.map(\.value)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: APIJSONValue.Key.self)
        for (name, value) in values { try c.encode(value, forKey: APIJSONValue.Key(name)) }
    }

    /// Decodes the object; the key order of a JSON object is not kept by `Decoder`, so the reader puts the values
    /// back in grid order.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: APIJSONValue.Key.self)
        var values: [(name: String, value: String)] = []
        for key in c.allKeys { values.append((key.stringValue, try c.decode(String.self, forKey: key))) }
        self.init(values.sorted { $0.name < $1.name })
    }
}

/// One combination of a sweep: its index in the grid's order, its parameter values and its statistics.
public struct SweepRow: Sendable, Equatable, Codable {
    /// 0-based index of the combination (see `SweepGrid` in SentioSweep for the order).
    public var index: Int
    public var parameters: SweepParameters
    public var statistics: SweepStatistics

    public init(index: Int, parameters: SweepParameters, statistics: SweepStatistics) {
        self.index = index
        self.parameters = parameters
        self.statistics = statistics
    }
}

/// The statistics fields of ``BacktestSummary``, same names, same values, same units (percents as percents):
/// a row of a sweep is what `sentio backtest --format json` prints for that combination, without the
/// configuration, conventions, open positions, warnings and per-reason rejection counts. `null` exactly where the
/// summary has `null` (an undefined statistic). `benchmark` is the summary's `benchmark` object.
@dynamicMemberLookup
public struct SweepStatistics: Sendable, Equatable, Codable {
    /// The figures (SentioBacktest's `PerformanceStatistics`), written as fields of the row's `statistics` object.
    public var statistics: PerformanceStatistics
    /// The run against the benchmark (`--benchmark`, else equal-weight buy-and-hold of the universe), as the
    /// backtest summary's `benchmark`; `nil` when the default benchmark cannot be compared.
    public var benchmark: BacktestBenchmarkSummary?

    /// A figure of ``statistics`` (`row.statistics.sharpeRatio`).
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<PerformanceStatistics, Value>) -> Value {
        get { statistics[keyPath: keyPath] }
        set { statistics[keyPath: keyPath] = newValue }
    }

    /// The statistics of `s`: its figures and its benchmark.
    public init(_ s: BacktestSummary) {
        statistics = s.statistics
        benchmark = s.benchmark
    }

    enum CodingKeys: String, CodingKey {
        case benchmark
    }

    public init(from decoder: any Decoder) throws {
        statistics = try PerformanceStatistics(from: decoder)
        benchmark = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(BacktestBenchmarkSummary.self, forKey: .benchmark)
    }

    public func encode(to encoder: any Encoder) throws {
        try statistics.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(benchmark, forKey: .benchmark)
    }

    /// The benchmark columns of the CSV form, after the figures.
    static let benchmarkFieldNames = [
        "benchmarkSymbol", "benchmarkTotalReturnPercent", "alpha", "beta", "correlation", "informationRatio",
        "trackingErrorPercent",
    ]

    /// Field names and values in declaration order (`nil`: the statistic is undefined), for the CSV form; the
    /// benchmark object flattened to `benchmarkSymbol`, `benchmarkTotalReturnPercent`, `alpha`, `beta`,
    /// `correlation`, `informationRatio`, `trackingErrorPercent` (empty without a benchmark).
    public var fields: [(name: String, value: String?)] {
        func d(_ x: Double?) -> String? { x.flatMap(APIJSON.number) }
        let values: [String?] = [
            benchmark?.symbol, d(benchmark?.totalReturnPercent), d(benchmark?.alpha), d(benchmark?.beta),
            d(benchmark?.correlation), d(benchmark?.informationRatio), d(benchmark?.trackingErrorPercent),
        ]
        return statistics.textFields + zip(Self.benchmarkFieldNames, values).map { ($0, $1) }
    }
}

/// The statistic a sweep ranks its combinations by. Higher is better for every metric (`max-drawdown` is ≤ 0, so
/// the shallowest drawdown ranks first).
///
/// Order of rows: by the metric's value, highest first; a combination whose metric is undefined (`null`, e.g. the
/// Sharpe ratio of a run without volatility) ranks after every defined one; ties (and undefined values) by
/// combination index, ascending. The order is total, so every run, shard merge and thread count gives the same order.
public enum SweepMetric: String, Sendable, Codable, CaseIterable {
    case sharpe
    case totalReturn = "total-return"
    case calmar
    case sortino
    case cagr
    case maxDrawdown = "max-drawdown"
    case profitFactor = "profit-factor"
    case winRate = "win-rate"
    /// Annualized alpha against the benchmark (`benchmark.alpha`).
    case alpha
    /// Information ratio against the benchmark (`benchmark.informationRatio`).
    case informationRatio = "information-ratio"

    /// The ``SweepStatistics`` field the metric reads.
    public var field: String {
        switch self {
        case .sharpe: "sharpeRatio"
        case .totalReturn: "totalReturnPercent"
        case .calmar: "calmarRatio"
        case .sortino: "sortinoRatio"
        case .cagr: "cagrPercent"
        case .maxDrawdown: "maxDrawdownPercent"
        case .profitFactor: "profitFactor"
        case .winRate: "winRatePercent"
        case .alpha: "benchmark.alpha"
        case .informationRatio: "benchmark.informationRatio"
        }
    }

    /// The metric's value in `s`, `nil` when undefined.
    public func value(_ s: SweepStatistics) -> Double? {
        switch self {
        case .sharpe: s.sharpeRatio
        case .totalReturn: s.totalReturnPercent
        case .calmar: s.calmarRatio
        case .sortino: s.sortinoRatio
        case .cagr: s.cagrPercent
        case .maxDrawdown: s.maxDrawdownPercent
        case .profitFactor: s.profitFactor
        case .winRate: s.winRatePercent
        case .alpha: s.benchmark?.alpha
        case .informationRatio: s.benchmark?.informationRatio
        }
    }

    /// Whether `a` ranks before `b` (see the type's ordering rule).
    public func ranks(_ a: (index: Int, statistics: SweepStatistics), before b: (index: Int, statistics: SweepStatistics)) -> Bool {
        switch (value(a.statistics), value(b.statistics)) {
        case let (x?, y?) where x != y: return x > y
        case (_?, nil): return true
        case (nil, _?): return false
        default: return a.index < b.index
        }
    }

    /// `rows` in the metric's order.
    public func sorted(_ rows: [SweepRow]) -> [SweepRow] {
        rows.sorted { ranks(($0.index, $0.statistics), before: ($1.index, $1.statistics)) }
    }
}

/// A walk-forward analysis: rolling (train, test) windows; in each, the combination ranking first in-sample by the
/// metric runs out of sample; the out-of-sample runs are stitched into one equity curve (see the SentioSweep
/// article "Parameter sweeps" for the window and stitching rules).
public struct SweepWalkForward: Sendable, Equatable, Codable {
    /// The train and test lengths as given (`5000` bars, or a duration such as `2y`, `6m`, `30d`).
    public var train: String
    public var test: String
    public var windows: [SweepWalkForwardWindow]
    public var outOfSample: SweepStitchedEquity

    public init(train: String, test: String, windows: [SweepWalkForwardWindow], outOfSample: SweepStitchedEquity) {
        self.train = train
        self.test = test
        self.windows = windows
        self.outOfSample = outOfSample
    }
}

/// One walk-forward window: the in-sample (train) period, the best combination there and its statistics, and the
/// out-of-sample (test) run of that combination.
public struct SweepWalkForwardWindow: Sendable, Equatable, Codable {
    /// 1-based.
    public var window: Int
    /// First and last timeline step of the train and of the test period.
    public var trainStart: APITimestamp
    public var trainEnd: APITimestamp
    public var testStart: APITimestamp
    public var testEnd: APITimestamp
    public var trainBars: Int
    public var testBars: Int
    /// The best combination in-sample (index in the grid's order) and its values.
    public var best: Int
    public var parameters: SweepParameters
    public var inSample: SweepStatistics
    public var outOfSample: SweepStatistics

    public init(
        window: Int, trainStart: APITimestamp, trainEnd: APITimestamp, testStart: APITimestamp, testEnd: APITimestamp,
        trainBars: Int, testBars: Int, best: Int, parameters: SweepParameters, inSample: SweepStatistics,
        outOfSample: SweepStatistics
    ) {
        self.window = window
        self.trainStart = trainStart
        self.trainEnd = trainEnd
        self.testStart = testStart
        self.testEnd = testEnd
        self.trainBars = trainBars
        self.testBars = testBars
        self.best = best
        self.parameters = parameters
        self.inSample = inSample
        self.outOfSample = outOfSample
    }
}

/// The out-of-sample runs of a walk-forward, one after the other: each test window starts from the previous
/// window's ending equity. `totalReturnPercent = 100 × (finalEquity − initialCapital) / initialCapital`.
public struct SweepStitchedEquity: Sendable, Equatable, Codable {
    public var initialCapital: Double
    public var finalEquity: Double
    public var totalReturnPercent: Double
    /// Equity at every step of every test window, in time order.
    public var equity: [SweepEquityPoint]

    public init(initialCapital: Double, finalEquity: Double, totalReturnPercent: Double, equity: [SweepEquityPoint]) {
        self.initialCapital = initialCapital
        self.finalEquity = finalEquity
        self.totalReturnPercent = totalReturnPercent
        self.equity = equity
    }
}

/// One point of an equity curve.
public struct SweepEquityPoint: Sendable, Equatable, Codable {
    public var time: APITimestamp
    public var equity: Double

    public init(time: APITimestamp, equity: Double) {
        self.time = time
        self.equity = equity
    }
}

extension SweepOutput {
    /// The output read back from its JSON form (a shard file): `JSONDecoder` reads what ``APIJSON`` wrote, and the
    /// parameters of every row are put back in grid order.
    ///
    /// - Throws: ``SweepFileError`` naming `file` for text that is not a sweep output, or a row whose parameters
    ///   are not the grid's.
    public static func read(json text: String, file: String) throws(SweepFileError) -> SweepOutput {
        let decoded: SweepOutput
        do {
            decoded = try JSONDecoder().decode(SweepOutput.self, from: Data(text.utf8))
        } catch let DecodingError.keyNotFound(key, context) {
            throw SweepFileError(file: file, message: "not a sweep output: missing key '\(key.stringValue)' at \(APIEncodingError.path(context.codingPath))")
        } catch {
            throw SweepFileError(file: file, message: "not a sweep output (\(error))")
        }
        return try decoded.canonicalized(file: file)
    }

    /// Rows' parameters in grid order, checked against the grid.
    func canonicalized(file: String) throws(SweepFileError) -> SweepOutput {
        var out = self
        let names = grid.map(\.name)
        for k in out.rows.indices {
            let p = out.rows[k].parameters
            guard p.values.count == names.count, Set(p.values.map(\.name)) == Set(names) else {
                throw SweepFileError(file: file, message: "row \(out.rows[k].index): parameters \(p.values.map(\.name)) are not the grid's \(names)")
            }
            out.rows[k].parameters = SweepParameters(names.map { ($0, p[$0]!) })
        }
        if var wf = out.walkForward {
            for k in wf.windows.indices {
                let p = wf.windows[k].parameters
                wf.windows[k].parameters = SweepParameters(names.compactMap { n in p[n].map { (n, $0) } })
            }
            out.walkForward = wf
        }
        return out
    }

    /// The JSON form (``APIJSON``).
    public func json() throws(APIEncodingError) -> String { try APIJSON.encode(self) }

    /// The rows as CSV: `rank,index`, one column per grid parameter, then every ``SweepStatistics`` field (numbers in
    /// their shortest round-trip form, empty for an undefined statistic). Ends with a newline.
    public func csv() -> String {
        var header = ["rank", "index"] + grid.map(\.name)
        header += rowsStatisticsNames
        var lines = [header.map(Self.csvField).joined(separator: ",")]
        for (rank, row) in rows.enumerated() {
            var cells = [String(rank + 1), String(row.index)]
            cells += grid.map { row.parameters[$0.name] ?? "" }
            cells += row.statistics.fields.map { $0.value ?? "" }
            lines.append(cells.map(Self.csvField).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private var rowsStatisticsNames: [String] {
        PerformanceStatistics.figureNames + SweepStatistics.benchmarkFieldNames
    }

    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The rows for a terminal: a heading (strategy, data, grid size, shard), then one line per combination in rank
    /// order with its parameters and the main statistics (percents with 2 decimals, ratios with 3, `n/a` when
    /// undefined), then the walk-forward windows when present. Ends with a newline.
    public func table() -> String {
        let f = TextTable.fixed
        var out = "Sweep of \(strategy) on \(data.symbols.count) symbol\(data.symbols.count == 1 ? "" : "s"), "
            + "\(data.start) .. \(data.end) (\(data.bars) bars): \(rows.count) of \(combinations) combination\(combinations == 1 ? "" : "s")"
        if let shard { out += " (shard \(shard.index)/\(shard.count))" }
        out += ", ranked by \(metric.rawValue)\n\n"
        var table: [[String]] = [["rank", "#"] + grid.map(\.name) + [
            "return %", "CAGR %", "Sharpe", "Sortino", "Calmar", "max DD %", "trades", "win %", "PF", "final equity",
        ]]
        for (rank, row) in rows.enumerated() {
            let s = row.statistics
            table.append([String(rank + 1), String(row.index)] + grid.map { row.parameters[$0.name] ?? "" } + [
                f(s.totalReturnPercent, 2, ""), f(s.cagrPercent, 2, ""), f(s.sharpeRatio, 3, ""), f(s.sortinoRatio, 3, ""),
                f(s.calmarRatio, 3, ""), f(s.maxDrawdownPercent, 2, ""), String(s.tradeCount), f(s.winRatePercent, 2, ""),
                f(s.profitFactor, 3, ""), f(s.finalEquity, 2, ""),
            ])
        }
        let numeric = Set(0..<table[0].count)
        out += TextTable.render(table, rightAligned: numeric) + "\n"
        if let wf = walkForward { out += "\n" + wf.table(grid: grid.map(\.name), metric: metric) }
        return out
    }
}

extension SweepWalkForward {
    /// The windows for a terminal, then the stitched out-of-sample result.
    func table(grid: [String], metric: SweepMetric) -> String {
        let f = TextTable.fixed
        var out = "Walk-forward (train \(train), test \(test)): best in-sample by \(metric.rawValue), run out of sample\n\n"
        var table: [[String]] = [["window", "test period", "#"] + grid + [
            "IS \(metric.rawValue)", "IS return %", "OOS \(metric.rawValue)", "OOS return %", "OOS final equity",
        ]]
        for w in windows {
            table.append([String(w.window), "\(w.testStart) .. \(w.testEnd)", String(w.best)]
                + grid.map { w.parameters[$0] ?? "" } + [
                    f(metric.value(w.inSample), 3, ""), f(w.inSample.totalReturnPercent, 2, ""),
                    f(metric.value(w.outOfSample), 3, ""), f(w.outOfSample.totalReturnPercent, 2, ""),
                    f(w.outOfSample.finalEquity, 2, ""),
                ])
        }
        out += TextTable.render(table, rightAligned: Set([0] + Array(2..<table[0].count))) + "\n"
        out += "\nOut of sample, stitched: \(f(outOfSample.initialCapital, 2, "")) -> \(f(outOfSample.finalEquity, 2, "")) "
            + "(\(f(outOfSample.totalReturnPercent, 2, " %")), \(outOfSample.equity.count) steps)\n"
        return out
    }
}

/// A sweep output file that cannot be read or merged; names the file.
public struct SweepFileError: UserInputError, Equatable {
    public var file: String
    public var message: String

    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { file.isEmpty ? message : "\(file): \(message)" }
}
