import Foundation
import SentioBacktest
import SentioCore

// Declaration order is key order (SentioCore's `OrderedJSON`): do not reorder stored properties.
// Times are UTC epoch seconds, written as `iso8601(epochSeconds:)` strings (`"2024-12-31T00:00:00Z"`).

/// The result of a sweep (and of each shard, and of a merge of shards): the grid, the metric the rows are sorted
/// by, and one row per combination with its backtest statistics.
///
/// The JSON form (``json()``) is lossless (every number in its shortest round-trip form): shards write it and
/// ``read(json:file:)`` reads it back for ``SweepMerge``. Fields:
/// - `grid`: the parameters in grid order, each with its values as given (range values expanded);
/// - `metric`: the ``SweepMetric`` the rows are sorted by;
/// - `combinations`: the total number of combinations of the grid (every shard states the whole grid's count);
/// - `shard`: `{"index", "count"}` (index 1-based) for a shard's output, `null` for a whole sweep or a merge;
/// - `strategy`, `options`: the strategy and the fixed backtest options exactly as given on the command line
///   (everything but the grid and the sweep's own options), compared textually by merge;
/// - `data`: where the bars came from and the period they cover;
/// - `rows`: the combinations run (the shard's only, for a shard), sorted by the metric (see ``SweepMetric``);
/// - `walkForward`: the walk-forward analysis (``Sweep/runWalkForward(_:on:runner:)``), else `null`.
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

/// One parameter of the grid: a setting's name (``SweepRequestBuilder/settingNames``) and its values as strings,
/// in order.
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

/// The bars a sweep ran on: the source (SentioBacktest's `BacktestDataSource`) and the timeline covered (UTC epoch seconds).
public struct SweepDataInfo: Sendable, Equatable, Codable {
    public var paths: [String]
    public var database: String?
    public var from: Int64?
    public var to: Int64?
    public var symbols: [String]
    public var start: Int64
    public var end: Int64
    /// Timeline steps.
    public var bars: Int

    public init(
        paths: [String], database: String?, from: Int64?, to: Int64?, symbols: [String], start: Int64, end: Int64,
        bars: Int
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

    /// The bars of `market`, read from `source`.
    public init(market: Market, source: BacktestDataSource) {
        self.init(
            paths: source.paths, database: source.database, from: source.from, to: source.to, symbols: market.symbols,
            start: market.timeline.first!, end: market.timeline.last!, bars: market.timeline.count)
    }

    enum CodingKeys: String, CodingKey {
        case paths, database, from, to, symbols, start, end, bars
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(paths, forKey: .paths)
        try c.encodeIfPresent(database, forKey: .database)
        try c.encodeTime(from, forKey: .from)
        try c.encodeTime(to, forKey: .to)
        try c.encode(symbols, forKey: .symbols)
        try c.encodeTime(start, forKey: .start)
        try c.encodeTime(end, forKey: .end)
        try c.encode(bars, forKey: .bars)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            paths: try c.decode([String].self, forKey: .paths), database: try c.decodeIfPresent(String.self, forKey: .database),
            from: try c.decodeTimeIfPresent(forKey: .from), to: try c.decodeTimeIfPresent(forKey: .to),
            symbols: try c.decode([String].self, forKey: .symbols), start: try c.decodeTime(forKey: .start),
            end: try c.decodeTime(forKey: .end), bars: try c.decode(Int.self, forKey: .bars))
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
        var c = encoder.container(keyedBy: NameKey.self)
        for (name, value) in values { try c.encode(value, forKey: NameKey(name)) }
    }

    /// Decodes the object; the key order of a JSON object is not kept by `Decoder`, so the reader puts the values
    /// back in grid order.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: NameKey.self)
        var values: [(name: String, value: String)] = []
        for key in c.allKeys { values.append((key.stringValue, try c.decode(String.self, forKey: key))) }
        self.init(values.sorted { $0.name < $1.name })
    }

    /// Any key (a parameter's name).
    struct NameKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// One combination of a sweep: its index in the grid's order, its parameter values and its statistics.
public struct SweepRow: Sendable, Equatable, Codable {
    /// 0-based index of the combination (see ``SweepGrid`` for the order).
    public var index: Int
    public var parameters: SweepParameters
    public var statistics: SweepStatistics

    public init(index: Int, parameters: SweepParameters, statistics: SweepStatistics) {
        self.index = index
        self.parameters = parameters
        self.statistics = statistics
    }
}

/// The statistics of a combination's backtest: its figures (SentioBacktest's `PerformanceStatistics`) and its run
/// against the benchmark (SentioBacktest's `BenchmarkStatistics`) — the figures and the `benchmark` object that
/// `sentio backtest --format json` prints for that combination, same names, same values, same units (percents as
/// percents), without the configuration, conventions, open positions, warnings and per-reason rejection counts.
///
/// JSON form: the figures as fields of the object (in `PerformanceStatistics`' order, `null` exactly where
/// undefined), then `benchmark`: `{"symbol", "totalReturnPercent", "cagrPercent", "alpha", "beta",
/// "correlation", "informationRatio", "trackingErrorPercent", "commonBars", "start", "end", "periodsPerYear",
/// "periodsPerYearSource"}` (the backtest summary's `benchmark`; `start`/`end` the first and last common bar) or
/// `null`.
@dynamicMemberLookup
public struct SweepStatistics: Sendable, Equatable, Codable {
    /// The figures, written as fields of the row's `statistics` object.
    public var statistics: PerformanceStatistics
    /// The run against the benchmark (the sweep's benchmark, else equal-weight buy-and-hold of the universe);
    /// `nil` when the default benchmark cannot be compared.
    public var benchmark: BenchmarkStatistics?

    public init(statistics: PerformanceStatistics, benchmark: BenchmarkStatistics?) {
        self.statistics = statistics
        self.benchmark = benchmark
    }

    /// A figure of ``statistics`` (`row.statistics.sharpeRatio`).
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<PerformanceStatistics, Value>) -> Value {
        get { statistics[keyPath: keyPath] }
        set { statistics[keyPath: keyPath] = newValue }
    }

    enum CodingKeys: String, CodingKey {
        case benchmark
    }

    /// The keys of the `benchmark` object, in order.
    enum BenchmarkKeys: String, CodingKey {
        case symbol, totalReturnPercent, cagrPercent, alpha, beta, correlation, informationRatio, trackingErrorPercent,
            commonBars, start, end, periodsPerYear, periodsPerYearSource
    }

    public init(from decoder: any Decoder) throws {
        statistics = try PerformanceStatistics(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard try c.contains(.benchmark) && !c.decodeNil(forKey: .benchmark) else {
            benchmark = nil
            return
        }
        let b = try c.nestedContainer(keyedBy: BenchmarkKeys.self, forKey: .benchmark)
        benchmark = BenchmarkStatistics(
            symbol: try b.decode(String.self, forKey: .symbol),
            totalReturnPercent: try b.decode(Double.self, forKey: .totalReturnPercent),
            cagrPercent: try b.decode(Double.self, forKey: .cagrPercent), alpha: try b.decode(Double.self, forKey: .alpha),
            beta: try b.decode(Double.self, forKey: .beta),
            correlation: try b.decodeIfPresent(Double.self, forKey: .correlation),
            informationRatio: try b.decodeIfPresent(Double.self, forKey: .informationRatio),
            trackingErrorPercent: try b.decode(Double.self, forKey: .trackingErrorPercent),
            commonBars: try b.decode(Int.self, forKey: .commonBars), firstCommonTime: try b.decodeTime(forKey: .start),
            lastCommonTime: try b.decodeTime(forKey: .end), periodsPerYear: try b.decode(Double.self, forKey: .periodsPerYear),
            periodsPerYearSource: try b.decode(String.self, forKey: .periodsPerYearSource))
    }

    public func encode(to encoder: any Encoder) throws {
        try statistics.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        guard let s = benchmark else {
            try c.encodeNil(forKey: .benchmark)
            return
        }
        var b = c.nestedContainer(keyedBy: BenchmarkKeys.self, forKey: .benchmark)
        try b.encode(s.symbol, forKey: .symbol)
        try b.encode(s.totalReturnPercent, forKey: .totalReturnPercent)
        try b.encode(s.cagrPercent, forKey: .cagrPercent)
        try b.encode(s.alpha, forKey: .alpha)
        try b.encode(s.beta, forKey: .beta)
        try b.encodeIfPresent(s.correlation, forKey: .correlation)
        try b.encodeIfPresent(s.informationRatio, forKey: .informationRatio)
        try b.encode(s.trackingErrorPercent, forKey: .trackingErrorPercent)
        try b.encode(s.commonBars, forKey: .commonBars)
        try b.encodeTime(s.firstCommonTime, forKey: .start)
        try b.encodeTime(s.lastCommonTime, forKey: .end)
        try b.encode(s.periodsPerYear, forKey: .periodsPerYear)
        try b.encode(s.periodsPerYearSource, forKey: .periodsPerYearSource)
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
/// metric runs out of sample; the out-of-sample runs are stitched into one equity curve (see ``WalkForwardSpec`` and
/// the module's overview for the window and stitching rules).
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
    /// First and last timeline step of the train and of the test period (UTC epoch seconds).
    public var trainStart: Int64
    public var trainEnd: Int64
    public var testStart: Int64
    public var testEnd: Int64
    public var trainBars: Int
    public var testBars: Int
    /// The best combination in-sample (index in the grid's order) and its values.
    public var best: Int
    public var parameters: SweepParameters
    public var inSample: SweepStatistics
    public var outOfSample: SweepStatistics

    public init(
        window: Int, trainStart: Int64, trainEnd: Int64, testStart: Int64, testEnd: Int64, trainBars: Int, testBars: Int,
        best: Int, parameters: SweepParameters, inSample: SweepStatistics, outOfSample: SweepStatistics
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

    enum CodingKeys: String, CodingKey {
        case window, trainStart, trainEnd, testStart, testEnd, trainBars, testBars, best, parameters, inSample, outOfSample
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(window, forKey: .window)
        try c.encodeTime(trainStart, forKey: .trainStart)
        try c.encodeTime(trainEnd, forKey: .trainEnd)
        try c.encodeTime(testStart, forKey: .testStart)
        try c.encodeTime(testEnd, forKey: .testEnd)
        try c.encode(trainBars, forKey: .trainBars)
        try c.encode(testBars, forKey: .testBars)
        try c.encode(best, forKey: .best)
        try c.encode(parameters, forKey: .parameters)
        try c.encode(inSample, forKey: .inSample)
        try c.encode(outOfSample, forKey: .outOfSample)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            window: try c.decode(Int.self, forKey: .window), trainStart: try c.decodeTime(forKey: .trainStart),
            trainEnd: try c.decodeTime(forKey: .trainEnd), testStart: try c.decodeTime(forKey: .testStart),
            testEnd: try c.decodeTime(forKey: .testEnd), trainBars: try c.decode(Int.self, forKey: .trainBars),
            testBars: try c.decode(Int.self, forKey: .testBars), best: try c.decode(Int.self, forKey: .best),
            parameters: try c.decode(SweepParameters.self, forKey: .parameters),
            inSample: try c.decode(SweepStatistics.self, forKey: .inSample),
            outOfSample: try c.decode(SweepStatistics.self, forKey: .outOfSample))
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

/// One point of an equity curve (`time` in UTC epoch seconds).
public struct SweepEquityPoint: Sendable, Equatable, Codable {
    public var time: Int64
    public var equity: Double

    public init(time: Int64, equity: Double) {
        self.time = time
        self.equity = equity
    }

    enum CodingKeys: String, CodingKey {
        case time, equity
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeTime(time, forKey: .time)
        try c.encode(equity, forKey: .equity)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(time: try c.decodeTime(forKey: .time), equity: try c.decode(Double.self, forKey: .equity))
    }
}

extension SweepOutput {
    /// The JSON form (SentioCore's `OrderedJSON`: keys in declaration order, numbers in their shortest round-trip
    /// form, times as `YYYY-MM-DDTHH:MM:SSZ`), ending with a newline.
    ///
    /// - Throws: `JSONEncodingError` (SentioCore) for a non-finite number, naming its field.
    public func json() throws(JSONEncodingError) -> String { try OrderedJSON.encode(self) }

    /// The output read back from its JSON form (a shard file): `JSONDecoder` reads what ``json()`` wrote, and the
    /// parameters of every row are put back in grid order.
    ///
    /// - Throws: ``SweepFileError`` naming `file` for text that is not a sweep output, or a row whose parameters
    ///   are not the grid's.
    public static func read(json text: String, file: String) throws(SweepFileError) -> SweepOutput {
        let decoded: SweepOutput
        do {
            decoded = try JSONDecoder().decode(SweepOutput.self, from: Data(text.utf8))
        } catch let DecodingError.keyNotFound(key, context) {
            throw SweepFileError(file: file, message: "not a sweep output: missing key '\(key.stringValue)' at \(JSONEncodingError.path(context.codingPath))")
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

extension KeyedEncodingContainer {
    /// `t` (UTC epoch seconds) as `YYYY-MM-DDTHH:MM:SSZ`; `null` for `nil`.
    mutating func encodeTime(_ t: Int64?, forKey key: Key) throws {
        try encodeIfPresent(t.map { iso8601(epochSeconds: $0) }, forKey: key)
    }
}

extension KeyedDecodingContainer {
    /// Exactly `YYYY-MM-DDTHH:MM:SSZ` (years 0001–9999), as UTC epoch seconds.
    func decodeTime(forKey key: Key) throws -> Int64 {
        let text = try decode(String.self, forKey: key)
        guard let t = epochSeconds(iso8601: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "expected YYYY-MM-DDTHH:MM:SSZ, got \(text)")
        }
        return t
    }

    /// ``decodeTime(forKey:)``, `nil` for a missing key or `null`.
    func decodeTimeIfPresent(forKey key: Key) throws -> Int64? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeTime(forKey: key)
    }
}
