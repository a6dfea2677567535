import Dispatch
import Foundation
import SentioBacktest
import SentioCore
import SentioFunds
import SentioIndicators
import SentioSignals

/// One combination to run: its index in the grid's order, its values, and the backtest it stands for (the base
/// request with the combination's values, ``SweepRequestBuilder``).
public struct SweepJob: Sendable {
    public var index: Int
    public var parameters: SweepParameters
    public var request: BacktestRequest

    public init(index: Int, parameters: SweepParameters, request: BacktestRequest) {
        self.index = index
        self.parameters = parameters
        self.request = request
    }
}

/// Runs sweep combinations over one market, in parallel, sharing the work that does not depend on a combination.
///
/// **Shared work.** Combinations are grouped by the part of their strategy that is computed from the bars alone
/// (`SharedWorkKey`): the RSI series of an `rsi` run depends only on the period; the signals of a `sentio` run only
/// on the model configuration. Each group's series are computed once (in parallel over symbols, with the same
/// functions the strategy uses, SentioIndicators' `relativeStrengthIndex` and SentioSignals' `SignalModelState`) and
/// handed to every run of the group through the strategies' injection points; then the group's runs execute on
/// `threads` workers. Groups run one after the other, so at most one group's series are alive.
///
/// **Memory.** Each run is reduced to its `SweepStatistics` as soon as it ends; its equity curve and trade log are
/// released. Peak memory is the market (symbols × bars), one group's shared series (symbols × bars), `threads`
/// runs in flight (each O(bars + trades)) and one row per combination: O(symbols × bars + combinations), never
/// O(combinations × bars).
///
/// **Identity.** A row's statistics are those of the run of the job's request with the strategy
/// `BacktestRequest.makeStrategy()` builds, the shared series substituted for identical ones, computed as a
/// backtest's summary computes them (``SweepStatistics/init(_:benchmark:)``): the same numbers, bit for bit, as
/// `sentio backtest --format json` with the same options.
public struct SweepRunner: Sendable {
    /// Concurrent runs (≥ 1).
    public var threads: Int
    /// Called after each finished run with (runs done, runs in total); never from two threads at once.
    public var progress: (@Sendable (_ done: Int, _ total: Int) -> Void)?

    /// The default thread count: the active processor count.
    public static var defaultThreads: Int { ProcessInfo.processInfo.activeProcessorCount }

    public init(threads: Int = SweepRunner.defaultThreads, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) {
        self.threads = max(1, threads)
        self.progress = progress
    }

    /// Runs every job on `market` and returns one row per job, in job order (not sorted).
    ///
    /// - Parameters:
    ///   - jobs: the combinations.
    ///   - market: the bars.
    ///   - benchmark: what each row's `benchmark` statistics compare with.
    /// - Throws: ``SweepCombinationError`` (naming the combination) for the first failing job by index.
    public func run(_ jobs: [SweepJob], on market: Market, benchmark: SweepBenchmarkChoice = .none) throws -> [SweepRow] {
        let counter = ProgressCounter(total: jobs.count, report: progress)
        return try run(jobs, on: market, benchmark: benchmark, counter: counter)
    }

    func run(_ jobs: [SweepJob], on market: Market, benchmark: SweepBenchmarkChoice, counter: ProgressCounter) throws -> [SweepRow] {
        var rows = [SweepRow?](repeating: nil, count: jobs.count)
        for group in SharedWorkKey.groups(jobs) {
            let shared = try SharedWork(key: group.key, market: market)
            let results = parallelMap(group.members.count, threads: threads) { k -> Result<SweepStatistics, any Error> in
                let job = jobs[group.members[k]]
                defer { counter.step() }
                return Result { try SweepStatistics(try Self.backtest(job, on: market, shared: shared), benchmark: benchmark) }
            }
            for (k, result) in results.enumerated() {
                let job = jobs[group.members[k]]
                switch result {
                case .success(let s): rows[group.members[k]] = SweepRow(index: job.index, parameters: job.parameters, statistics: s)
                case .failure(let error): throw SweepCombinationError.wrap(error, job: job)
                }
            }
        }
        return rows.map { $0! }
    }

    /// The backtest of `job` on `market` (the shared series substituted).
    static func backtest(_ job: SweepJob, on market: Market, shared: SharedWork) throws -> BacktestResult {
        let configuration = job.request.configuration(symbolCount: market.series.count)
        let backtest = Backtest(configuration)
        switch job.request.strategy {
        case .rsi:
            let rsi = job.request.resolvedRSI
            return try backtest.run(RSIStrategy(period: rsi.period, lower: rsi.lower, upper: rsi.upper, rsi: shared.rsiProvider), on: market)
        case .sentio:
            try job.request.resolvedSignalModel.validate()
            return try backtest.run(SignalStrategy(name: "sentio", provider: shared.signalProvider), on: market)
        case .buyAndHold, .dca, .taCross, .rebalance:
            return try backtest.run(try job.request.makeStrategy(), on: market)
        }
    }

    /// One job's run with its full result (the walk-forward's out-of-sample runs).
    static func result(of job: SweepJob, on market: Market, benchmark: SweepBenchmarkChoice) throws -> (BacktestResult, SweepStatistics) {
        let shared = try SharedWork(key: SharedWorkKey(job.request), market: market)
        let result = try backtest(job, on: market, shared: shared)
        return (result, try SweepStatistics(result, benchmark: benchmark))
    }
}

/// What the rows of a sweep compare with (each row's `benchmark` statistics).
public enum SweepBenchmarkChoice: Sendable {
    /// None: every row's `benchmark` is `nil`.
    case none
    /// One the user asked for: a benchmark that cannot be compared is an error.
    case given(BenchmarkSeries)
    /// The default (equal-weight buy-and-hold of the universe, `BenchmarkSeries.equalWeight`): one that cannot be
    /// compared leaves `benchmark` `nil`, as in a backtest's summary.
    case standard(BenchmarkSeries)
}

extension SweepStatistics {
    /// The statistics of `result` as a backtest's summary reports them: SentioBacktest's `BacktestStatistics` with
    /// the money-weighted return by SentioFunds' XIRR, and `BenchmarkStatistics` against `benchmark`.
    ///
    /// - Throws: `BenchmarkError` (SentioBacktest) when a ``SweepBenchmarkChoice/given(_:)`` benchmark cannot be
    ///   compared; ``SweepStatisticsError`` for a run without steps or a figure that is not finite (which the
    ///   backtest's summary refuses too).
    public init(_ result: BacktestResult, benchmark: SweepBenchmarkChoice) throws {
        guard !result.timestamps.isEmpty else { throw SweepStatisticsError("the backtest has no steps") }
        let statistics = BacktestStatistics(result, moneyWeightedReturn: BacktestMoneyWeightedReturn.xirr(_:)).performance
        var compared: BenchmarkStatistics?
        switch benchmark {
        case .none: compared = nil
        case .given(let series): compared = try BenchmarkStatistics(result, benchmark: series)
        case .standard(let series): compared = try? BenchmarkStatistics(result, benchmark: series)
        }
        self.init(statistics: statistics, benchmark: compared)
        try checkFinite(openPositions: result.openPositions)
    }

    /// Every number the backtest's summary checks (the figures, the benchmark's, the open positions'), finite.
    func checkFinite(openPositions: [OpenPosition]) throws(SweepStatisticsError) {
        var numbers: [(String, Double)] = Mirror(reflecting: statistics).children.compactMap { child in
            (child.value as? Double).map { (child.label ?? "", $0) }
        }
        if let b = benchmark {
            numbers += [("benchmark.totalReturnPercent", b.totalReturnPercent), ("benchmark.cagrPercent", b.cagrPercent),
                        ("benchmark.alpha", b.alpha), ("benchmark.beta", b.beta), ("benchmark.trackingErrorPercent", b.trackingErrorPercent),
                        ("benchmark.correlation", b.correlation ?? 0), ("benchmark.informationRatio", b.informationRatio ?? 0)]
        }
        for (i, p) in openPositions.enumerated() {
            numbers += [("openPositions[\(i)].entryPrice", p.entryPrice), ("openPositions[\(i)].currentPrice", p.currentPrice),
                        ("openPositions[\(i)].shares", p.shares), ("openPositions[\(i)].marketValue", p.marketValue),
                        ("openPositions[\(i)].unrealizedPnL", p.unrealizedPnL)]
        }
        for (field, value) in numbers where !value.isFinite {
            throw SweepStatisticsError("\(field): is \(value): the statistic cannot be trusted")
        }
    }
}

/// A backtest whose statistics cannot be reported (no steps, a figure that is not finite).
public struct SweepStatisticsError: UserInputError, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "backtest summary: \(message)" }
}

/// A combination that is invalid or whose backtest failed; names the combination.
public struct SweepCombinationError: UserInputError, Equatable {
    public var index: Int
    public var parameters: SweepParameters
    public var message: String
    /// Whether the combination's settings are invalid (found by ``SweepRequestBuilder`` before any run), rather
    /// than its run failing.
    public var isInvalidRequest = false

    public var description: String {
        "combination \(index) (\(parameters.values.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")))"
            + (isInvalidRequest ? " is invalid: " : ": ") + message
    }

    /// `error` naming `job` when it is a user-input error; other errors pass through (internal errors stay internal).
    static func wrap(_ error: any Error, job: SweepJob) -> any Error {
        wrap(error, index: job.index, parameters: job.parameters)
    }

    /// `error` naming combination `index` when it is a user-input error; other errors pass through.
    static func wrap(_ error: any Error, index: Int, parameters: SweepParameters) -> any Error {
        guard let user = error as? any UserInputError else { return error }
        return SweepCombinationError(index: index, parameters: parameters, message: user.description)
    }
}

/// What runs of a sweep can share: the bars-only part of their strategy.
enum SharedWorkKey: Hashable {
    case none
    case rsi(period: Int)
    /// The model configuration's JSON (sorted keys): equal configurations, equal keys.
    case signalModel(String)

    init(_ request: BacktestRequest) {
        switch request.strategy {
        case .rsi: self = .rsi(period: request.resolvedRSI.period)
        case .sentio:
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let data = (try? encoder.encode(request.resolvedSignalModel)) ?? Data()
            self = .signalModel(String(decoding: data, as: UTF8.self))
        case .buyAndHold, .dca, .taCross, .rebalance: self = .none
        }
    }

    /// Jobs (as positions in `jobs`) grouped by key, groups in order of first appearance.
    static func groups(_ jobs: [SweepJob]) -> [(key: SharedWorkKey, members: [Int])] {
        var order: [SharedWorkKey] = []
        var members: [SharedWorkKey: [Int]] = [:]
        for (k, job) in jobs.enumerated() {
            let key = SharedWorkKey(job.request)
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(k)
        }
        return order.map { ($0, members[$0]!) }
    }
}

/// One group's shared series and the providers that hand them to the strategies.
///
/// The providers are the strategies' own injection points (`IndicatorProvider`, `SignalProvider`): they return the
/// precomputed series for a series of this market and compute afresh (with the same function) for anything else,
/// so a lookup miss can cost time but never change a number.
final class SharedWork: Sendable {
    let key: SharedWorkKey
    /// RSI per symbol, keyed by the address of the symbol's close column (the array the strategy is handed).
    private let rsi: [Int: IndicatorSeries]
    private let rsiPeriod: Int
    /// Signal decisions per symbol name, with the bar count they were computed for.
    private let signals: [String: [SignalDecision]]
    private let signalConfig: SignalModelConfig?

    init(key: SharedWorkKey, market: Market) throws {
        self.key = key
        let series = market.series
        switch key {
        case .none:
            (rsi, rsiPeriod, signals, signalConfig) = ([:], 0, [:], nil)
        case .rsi(let period):
            let values = parallelMap(series.count, threads: SweepRunner.defaultThreads) { relativeStrengthIndex(series[$0].close, period: period) }
            var byAddress: [Int: IndicatorSeries] = [:]
            for (k, s) in series.enumerated() { byAddress[address(of: s.close)] = values[k] }
            (rsi, rsiPeriod, signals, signalConfig) = (byAddress, period, [:], nil)
        case .signalModel(let json):
            let config = try JSONDecoder().decode(SignalModelConfig.self, from: Data(json.utf8))
            try config.validate()
            let results = parallelMap(series.count, threads: SweepRunner.defaultThreads) { k in
                Result { try signalDecisions(series[k], config: config) }
            }
            var bySymbol: [String: [SignalDecision]] = [:]
            for (k, r) in results.enumerated() { bySymbol[series[k].symbol] = try r.get() }
            (rsi, rsiPeriod, signals, signalConfig) = ([:], 0, bySymbol, config)
        }
    }

    var rsiProvider: IndicatorProvider {
        { [self] close, period in
            if period == rsiPeriod, let cached = rsi[address(of: close)], cached.values.count == close.count { return cached }
            return relativeStrengthIndex(close, period: period)
        }
    }

    var signalProvider: SignalProvider {
        { [self] series in
            if let cached = signals[series.symbol], cached.count == series.count { return cached }
            return try signalDecisions(series, config: signalConfig ?? SignalModelConfig())
        }
    }
}

/// The signal model's decisions for every bar of `series`, as `SignalStrategy.sentio(config:)` computes them.
func signalDecisions(_ series: OHLCVSeries, config: SignalModelConfig) throws -> [SignalDecision] {
    var state = SignalModelState(symbol: series.symbol, config: config)
    var decisions = [SignalDecision]()
    decisions.reserveCapacity(series.count)
    for i in 0..<series.count { decisions.append(SignalDecision(try state.update(series[bar: i]))) }
    return decisions
}

/// The address of an array's storage (its identity while it is not mutated).
func address(of array: [Double]) -> Int {
    array.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
}

/// Counts finished runs and reports them, serialized.
final class ProgressCounter: @unchecked Sendable {
    // Unchecked: `done` is only touched under `lock`.
    private let lock = NSLock()
    private var done = 0
    let total: Int
    private let report: (@Sendable (Int, Int) -> Void)?

    init(total: Int, report: (@Sendable (Int, Int) -> Void)?) {
        self.total = total
        self.report = report
    }

    func step() {
        lock.lock()
        defer { lock.unlock() }
        done += 1
        report?(done, total)
    }
}

/// `(0..<count).map(body)` on up to `threads` workers pulling indices from a shared counter (so long and short runs
/// balance). Results keep their order.
func parallelMap<T>(_ count: Int, threads: Int, _ body: @Sendable (Int) -> T) -> [T] {
    guard count > 1, threads > 1 else { return (0..<count).map(body) }
    nonisolated(unsafe) let slots = UnsafeMutableBufferPointer<T?>.allocate(capacity: count)
    slots.initialize(repeating: nil)
    defer {
        slots.deinitialize()
        slots.deallocate()
    }
    let next = NextIndex()
    DispatchQueue.concurrentPerform(iterations: min(threads, count)) { _ in
        // Each index is taken once, so each slot is written by one worker only.
        while let i = next.take(below: count) { slots[i] = body(i) }
    }
    return slots.map { $0! }
}

private final class NextIndex: @unchecked Sendable {
    // Unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = 0

    func take(below count: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard value < count else { return nil }
        value += 1
        return value - 1
    }
}
