import SentioBacktest
import SentioCore
import SentioSignals

// Declaration order is key order (``APIJSON``): do not reorder stored properties.

/// The summary of a backtest: what `sentio backtest --format json` prints and what a saved run keeps, byte for
/// byte (`statistics` of SentioApplication's `RunRecord`).
///
/// Units: every `…Percent` field is a **percent** (`2.5` = 2.5 %); ratios (`sharpeRatio`, `sortinoRatio`,
/// `calmarRatio`, `profitFactor`, `sqn`) are plain numbers; money is in the prices' currency (the investor's with
/// `currency`). Definitions and conventions are in ``conventions`` and in SentioBacktest's `BacktestStatistics`.
///
/// Numbers are never `null` except the statistics that can be undefined, which are `null` exactly when undefined:
/// - `moneyWeightedReturnPercent`: the cash flows have no XIRR (no sign change);
/// - `cagrPercent`: no return period (a single step);
/// - `annualizedVolatilityPercent`, `sharpeRatio`: fewer than two returns (Sharpe also: zero volatility);
/// - `sortinoRatio`: no negative return; `calmarRatio`: no drawdown or no CAGR;
/// - `winRatePercent`, `averageTradePercent`, `bestTradePercent`, `worstTradePercent`, `averageHoldingBars`,
///   `averageHoldingDays`: no closed trade; `profitFactor`: no losing trade; `sqn`: fewer than two closed trades
///   or zero spread.
///
/// `currency` is `null` unless the run was in an investor currency (see ``BacktestCurrencySummary``).
/// `benchmark` compares the run with a benchmark on the bars both have (``BacktestBenchmarkSummary``); it is
/// `null` when none was asked for, or when the default benchmark (equal-weight buy-and-hold of the universe)
/// cannot be compared, and then `warnings` holds a `benchmark-unavailable` entry with the reason. `warnings`
/// lists signs of a degenerate run (``BacktestSummaryWarning``; `[]` when none).
/// A non-finite value anywhere is an error (``APIContractError`` when building, ``APIEncodingError`` when
/// encoding), never `null`.
@dynamicMemberLookup
public struct BacktestSummary: Sendable, Equatable, Codable {
    /// The strategy's name (`sentio`, `rsi`, `buy-and-hold`, `dca`).
    public var strategy: String
    public var symbols: [String]
    /// First and last step of the timeline.
    public var start: APITimestamp
    public var end: APITimestamp
    /// Timeline steps.
    public var bars: Int
    /// The run's figures, written as fields of the summary itself, between `bars` and `rejectionsByReason`, under
    /// their own names and in their order (SentioBacktest's `PerformanceStatistics`, which defines each one:
    /// `initialCapital`, `totalContributions`, `finalEquity`, `finalCash`, `totalReturnPercent`, … `orderCount`,
    /// `rejectedOrderCount`). Read them as properties of the summary (`summary.sharpeRatio`).
    public var statistics: PerformanceStatistics
    /// Rejected orders per reason (`insufficient-cash`, …), keys sorted; `{}` when none.
    public var rejectionsByReason: RejectionCounts
    public var openPositions: [BacktestOpenPosition]
    public var currency: BacktestCurrencySummary?
    public var benchmark: BacktestBenchmarkSummary?
    public var warnings: [BacktestSummaryWarning]
    public var config: BacktestRunConfig
    public var conventions: BacktestConventions

    /// A figure of ``statistics`` (`summary.finalEquity`).
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<PerformanceStatistics, Value>) -> Value {
        get { statistics[keyPath: keyPath] }
        set { statistics[keyPath: keyPath] = newValue }
    }

    /// The summary's own keys; the figures' keys are ``statistics``' (written flat between `bars` and
    /// `rejectionsByReason`).
    enum CodingKeys: String, CodingKey {
        case strategy, symbols, start, end, bars, rejectionsByReason, openPositions, currency, benchmark, warnings, config
        case conventions
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        strategy = try c.decode(String.self, forKey: .strategy)
        symbols = try c.decode([String].self, forKey: .symbols)
        start = try c.decode(APITimestamp.self, forKey: .start)
        end = try c.decode(APITimestamp.self, forKey: .end)
        bars = try c.decode(Int.self, forKey: .bars)
        statistics = try PerformanceStatistics(from: decoder)
        rejectionsByReason = try c.decode(RejectionCounts.self, forKey: .rejectionsByReason)
        openPositions = try c.decode([BacktestOpenPosition].self, forKey: .openPositions)
        currency = try c.decodeIfPresent(BacktestCurrencySummary.self, forKey: .currency)
        benchmark = try c.decodeIfPresent(BacktestBenchmarkSummary.self, forKey: .benchmark)
        warnings = try c.decode([BacktestSummaryWarning].self, forKey: .warnings)
        config = try c.decode(BacktestRunConfig.self, forKey: .config)
        conventions = try c.decode(BacktestConventions.self, forKey: .conventions)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(strategy, forKey: .strategy)
        try c.encode(symbols, forKey: .symbols)
        try c.encode(start, forKey: .start)
        try c.encode(end, forKey: .end)
        try c.encode(bars, forKey: .bars)
        try statistics.encode(to: encoder)
        try c.encode(rejectionsByReason, forKey: .rejectionsByReason)
        try c.encode(openPositions, forKey: .openPositions)
        try c.encodeIfPresent(currency, forKey: .currency)
        try c.encodeIfPresent(benchmark, forKey: .benchmark)
        try c.encode(warnings, forKey: .warnings)
        try c.encode(config, forKey: .config)
        try c.encode(conventions, forKey: .conventions)
    }
}

/// The run against a benchmark (the `benchmark` object of ``BacktestSummary``), on the timestamps both series
/// have (SentioBacktest's `BenchmarkStatistics`; conventions as quantstats 0.0.86):
/// - `beta = cov(r, b) / var(b)`, sample moments (ddof 1) of the strategy's returns `r` (time-weighted, deposits
///   excluded, compounded between common bars) and the benchmark's `b`;
/// - `alpha = (mean(r) − beta · mean(b)) · periodsPerYear`, annualized, a **fraction** (0.05 = 5 % a year), as
///   quantstats' `greeks`;
/// - `correlation`: Pearson's, `null` when the strategy's returns do not vary (no position held);
/// - `informationRatio = mean(r − b) / std(r − b)` per period, **not** annualized, as quantstats'
///   `information_ratio`; `null` when `r − b` does not vary (quantstats returns 0 there);
/// - `trackingErrorPercent = std(r − b) · √periodsPerYear · 100`, a **percent** a year;
/// - `totalReturnPercent`, `cagrPercent`: the benchmark's own over the common bars, percents (CAGR as the run's:
///   `growth^(periodsPerYear / returns) − 1`).
/// `periodsPerYear` is inferred from the spacing of the common bars (`periodsPerYearSource` says how);
/// `commonBars` counts them, `start`/`end` are the first and last.
public struct BacktestBenchmarkSummary: Sendable, Equatable, Codable {
    /// The benchmark's symbol, its file's symbol, or `equal-weight buy-and-hold`.
    public var symbol: String
    public var totalReturnPercent: Double
    public var cagrPercent: Double
    public var alpha: Double
    public var beta: Double
    public var correlation: Double?
    public var informationRatio: Double?
    public var trackingErrorPercent: Double
    public var commonBars: Int
    public var start: APITimestamp
    public var end: APITimestamp
    public var periodsPerYear: Double
    public var periodsPerYearSource: String

    public init(_ s: BenchmarkStatistics) {
        symbol = s.symbol
        totalReturnPercent = s.totalReturnPercent
        cagrPercent = s.cagrPercent
        alpha = s.alpha
        beta = s.beta
        correlation = s.correlation
        informationRatio = s.informationRatio
        trackingErrorPercent = s.trackingErrorPercent
        commonBars = s.commonBars
        start = APITimestamp(epochSeconds: s.firstCommonTime)
        end = APITimestamp(epochSeconds: s.lastCommonTime)
        periodsPerYear = s.periodsPerYear
        periodsPerYearSource = s.periodsPerYearSource
    }
}

/// A sign of a degenerate run (an entry of `warnings` in ``BacktestSummary``): `code` is stable
/// (`commissions-high`: commissions above 10 % of the money put in; `rejections-exceed-fills`;
/// `benchmark-unavailable`: the default benchmark could not be compared), `message` states the figures.
public struct BacktestSummaryWarning: Sendable, Equatable, Codable {
    public var code: String
    public var message: String

    public init(_ w: BacktestWarning) {
        code = w.code
        message = w.message
    }
}

/// A position still held at the end of a backtest, marked to market (not a closed trade).
///
/// `shares` is the exact amount (fractional with fractional sizing); `marketValue = shares × currentPrice`;
/// `unrealizedPnL = shares × (currentPrice − entryPrice) − entry commissions and fees`.
public struct BacktestOpenPosition: Sendable, Equatable, Codable {
    public var symbol: String
    public var entryTime: APITimestamp
    public var entryPrice: Double
    public var currentPrice: Double
    public var shares: Double
    public var marketValue: Double
    public var unrealizedPnL: Double

    public init(_ p: OpenPosition) {
        symbol = p.symbol
        entryTime = APITimestamp(epochSeconds: p.entryTime)
        entryPrice = p.entryPrice
        currentPrice = p.currentPrice
        shares = p.shares
        marketValue = p.marketValue
        unrealizedPnL = p.unrealizedPnL
    }
}

/// Counts per reason as a JSON object `{"reason": count}`, keys sorted.
public struct RejectionCounts: Sendable, Equatable, Codable {
    public var counts: [(reason: String, count: Int)]

    public init(_ counts: [String: Int]) {
        self.counts = counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    public static func == (a: RejectionCounts, b: RejectionCounts) -> Bool {
        a.counts.map(\.reason) == b.counts.map(\.reason) && a.counts.map(\.count) == b.counts.map(\.count)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: APIJSONValue.Key.self)
        for (reason, count) in counts { try c.encode(count, forKey: APIJSONValue.Key(reason)) }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: APIJSONValue.Key.self)
        var counts: [String: Int] = [:]
        for key in c.allKeys { counts[key.stringValue] = try c.decode(Int.self, forKey: key) }
        self.init(counts)
    }
}

/// The configuration of a run, every default resolved (the `config` object of ``BacktestSummary``).
///
/// `commissionRate` is a **fraction** of notional (0.001 = 0.1 %); `slippageBasisPoints` in basis points;
/// `stopLossPercent`/`takeProfitPercent` are **percents** (5 = 5 %). Fields that do not apply to the run's
/// strategy or sizing are `null` (`maxPositions` without equal weight, `fraction` without fraction sizing,
/// `rsi…` without `rsi`, `amount`/`every` without `dca`, `signalModel` without `sentio`, `currency`/`fx`
/// without an investor currency, `database` for CSV input, `from`/`to` when not given).
public struct BacktestRunConfig: Sendable, Equatable, Codable {
    public var strategy: StrategyKind
    public var paths: [String]
    public var database: String?
    public var from: APITimestamp?
    public var to: APITimestamp?
    public var symbols: [String]
    public var initialCapital: Double
    public var commissionRate: Double
    public var feePerOrder: Double
    public var slippageBasisPoints: Double
    public var fill: FillTiming
    public var sizing: SizingRule
    public var maxPositions: Int?
    public var fraction: Double?
    public var fractionalShares: Bool
    public var stopLossPercent: Double?
    public var takeProfitPercent: Double?
    public var stopReference: StopReference
    public var rsiPeriod: Int?
    public var rsiLower: Double?
    public var rsiUpper: Double?
    public var amount: Double?
    /// `week` or `month`.
    public var every: String?
    public var currency: String?
    public var fx: String?
    public var signalModel: SignalModelConfig?

    /// The configuration of a run of `request` with the simulator's `configuration`.
    public init(
        request: BacktestRequest, configuration c: BacktestConfiguration, symbols: [String], source: BacktestDataSource,
        fxFile: String? = nil
    ) {
        strategy = request.strategy
        paths = source.paths
        database = source.database
        from = source.from.map(APITimestamp.init(epochSeconds:))
        to = source.to.map(APITimestamp.init(epochSeconds:))
        self.symbols = symbols
        initialCapital = c.initialCapital
        commissionRate = c.costs.commissionRate
        feePerOrder = c.costs.feePerOrder
        slippageBasisPoints = c.costs.slippageBasisPoints
        fill = c.fill
        switch c.sizing {
        case .allIn: sizing = .allIn
        case .equalWeight(let n): sizing = .equalWeight; maxPositions = n
        case .fractionOfEquity(let f): sizing = .fraction; fraction = f
        }
        fractionalShares = c.fractionalShares
        stopLossPercent = c.stopLossPercent
        takeProfitPercent = c.takeProfitPercent
        stopReference = c.stopReference
        if request.strategy == .rsi {
            let rsi = request.resolvedRSI
            (rsiPeriod, rsiLower, rsiUpper) = (rsi.period, rsi.lower, rsi.upper)
        }
        if request.strategy == .dca {
            let dca = request.resolvedDCA
            (amount, every) = (dca.amount, dca.period.rawValue)
        }
        currency = request.investorCurrency
        fx = fxFile
        signalModel = request.strategy == .sentio ? request.resolvedSignalModel : nil
    }
}

/// How the statistics were computed, stated beside them (the `conventions` object of ``BacktestSummary``).
public struct BacktestConventions: Sendable, Equatable, Codable {
    public var periodsPerYear: Double
    public var periodsPerYearSource: String
    /// A fraction per year (0 = 0 %).
    public var riskFreeRate: Double
    public var ddof: Int
    public var returns: String
    public var sharpeRatio: String
    public var cagr: String
    public var maxDrawdown: String
    public var profitFactor: String
    public var moneyWeightedReturn: String
    public var fills: String
    public var stops: String
    public var openPositions: String
    public var timestamps: String

    public init(_ k: StatisticsConventions, fill: FillTiming) {
        periodsPerYear = k.periodsPerYear
        periodsPerYearSource = k.periodsPerYearSource
        riskFreeRate = k.riskFreeRate
        ddof = k.ddof
        returns = "simple per-bar returns of equity net of deposits (time-weighted)"
        sharpeRatio = "mean/std(ddof 1) x sqrt(periodsPerYear), as empyrical/quantstats; backtesting.py uses geometric annual return / annualized volatility"
        cagr = "(growth)^(periodsPerYear / returns) - 1, as empyrical annual_return"
        maxDrawdown = "deepest fall of the time-weighted wealth index from its running peak, percent <= 0"
        profitFactor = "gross profit / gross loss of closed trades, in currency"
        moneyWeightedReturn = "XIRR (Actual/365 Fixed) of -initial capital, -deposits and +final equity, percent a year"
        fills = fill == .nextOpen
            ? "decided at a bar's close, filled at the symbol's next open"
            : "decided and filled at the same bar's close (look-ahead-prone)"
        stops = "checked against each bar's low/high; a gap fills at the open; a bar touching both exits at the stop; live on the entry bar with next-open fills"
        openPositions = "marked to market at the last close in finalEquity; not counted as closed trades"
        timestamps = "UTC, ISO-8601"
    }
}

extension BacktestSummary {
    /// The summary of `result`.
    ///
    /// - Parameters:
    ///   - result: the finished backtest.
    ///   - statistics: `result`'s statistics (with the money-weighted return: see SentioFunds' `BacktestMoneyWeightedReturn`).
    ///   - config: the run's configuration object.
    ///   - currency: the investor-currency view, for a DCA run in another currency.
    ///   - benchmark: the run against its benchmark, if any.
    ///   - warnings: signs of a degenerate run (SentioBacktest's `BacktestWarning`).
    /// - Throws: ``APIContractError`` for a run without steps or a non-finite figure (naming the field).
    public init(
        result: BacktestResult, statistics: BacktestStatistics, config: BacktestRunConfig,
        currency: BacktestCurrencySummary? = nil, benchmark: BenchmarkStatistics? = nil, warnings: [BacktestWarning] = []
    ) throws(APIContractError) {
        guard let first = result.timestamps.first, let last = result.timestamps.last else {
            throw APIContractError(subject: "backtest", field: "start", message: "the backtest has no steps")
        }
        var rejections = [String: Int]()
        for o in result.orders { if let r = o.rejection { rejections[r.rawValue, default: 0] += 1 } }
        self.strategy = result.strategyName
        self.symbols = result.symbols
        self.start = APITimestamp(epochSeconds: first)
        self.end = APITimestamp(epochSeconds: last)
        self.bars = result.timestamps.count
        self.statistics = statistics.performance
        self.rejectionsByReason = RejectionCounts(rejections)
        self.openPositions = result.openPositions.map(BacktestOpenPosition.init)
        self.currency = currency
        self.benchmark = benchmark.map(BacktestBenchmarkSummary.init)
        self.warnings = warnings.map(BacktestSummaryWarning.init)
        self.config = config
        self.conventions = BacktestConventions(statistics.conventions, fill: result.configuration.fill)
        try checkFinite()
    }

    /// Every number of the summary as (field, value), optional ones only when present.
    var numbers: [(String, Double)] {
        var out = statistics.namedNumbers
        if let b = benchmark {
            out += [("benchmark.totalReturnPercent", b.totalReturnPercent), ("benchmark.cagrPercent", b.cagrPercent),
                    ("benchmark.alpha", b.alpha), ("benchmark.beta", b.beta),
                    ("benchmark.trackingErrorPercent", b.trackingErrorPercent)]
            if let c = b.correlation { out.append(("benchmark.correlation", c)) }
            if let i = b.informationRatio { out.append(("benchmark.informationRatio", i)) }
        }
        for (i, p) in openPositions.enumerated() {
            out += [("openPositions[\(i)].entryPrice", p.entryPrice), ("openPositions[\(i)].currentPrice", p.currentPrice),
                    ("openPositions[\(i)].shares", p.shares), ("openPositions[\(i)].marketValue", p.marketValue),
                    ("openPositions[\(i)].unrealizedPnL", p.unrealizedPnL)]
        }
        return out
    }

    /// - Throws: ``APIContractError`` naming the first non-finite number (a statistic that overflowed).
    func checkFinite() throws(APIContractError) {
        for (field, value) in numbers where !value.isFinite {
            throw APIContractError(subject: "backtest summary", field: field, message: "is \(value): the statistic cannot be trusted")
        }
    }
}
