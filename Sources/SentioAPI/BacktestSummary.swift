import SentioBacktest
import SentioCore
import SentioSignals

// Declaration order is key order (``APIJSON``): do not reorder stored properties.

/// The summary of a backtest: what `sentio backtest --format json` prints and what a saved run keeps, byte for
/// byte (`statistics` of ``RunRecord``).
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
public struct BacktestSummary: Sendable, Equatable, Codable {
    /// The strategy's name (`sentio`, `rsi`, `buy-and-hold`, `dca`).
    public var strategy: String
    public var symbols: [String]
    /// First and last step of the timeline.
    public var start: APITimestamp
    public var end: APITimestamp
    /// Timeline steps.
    public var bars: Int
    public var initialCapital: Double
    /// Deposits (DCA); 0 otherwise.
    public var totalContributions: Double
    public var finalEquity: Double
    public var finalCash: Double
    /// `100 × (finalEquity − initialCapital − totalContributions) / (initialCapital + totalContributions)`.
    public var totalReturnPercent: Double
    public var timeWeightedReturnPercent: Double
    /// Percent a year (XIRR, Actual/365 Fixed).
    public var moneyWeightedReturnPercent: Double?
    public var cagrPercent: Double?
    public var annualizedVolatilityPercent: Double?
    public var sharpeRatio: Double?
    public var sortinoRatio: Double?
    public var calmarRatio: Double?
    /// ≤ 0.
    public var maxDrawdownPercent: Double
    public var maxDrawdownDurationBars: Int
    public var maxDrawdownDurationDays: Double
    /// Closed trades.
    public var tradeCount: Int
    public var openPositionCount: Int
    public var winRatePercent: Double?
    public var profitFactor: Double?
    public var averageTradePercent: Double?
    public var bestTradePercent: Double?
    public var worstTradePercent: Double?
    public var averageHoldingBars: Double?
    public var averageHoldingDays: Double?
    public var exposurePercent: Double
    public var commissionsPaid: Double
    public var sqn: Double?
    public var orderCount: Int
    public var rejectedOrderCount: Int
    /// Rejected orders per reason (`insufficient-cash`, …), keys sorted; `{}` when none.
    public var rejectionsByReason: RejectionCounts
    public var openPositions: [BacktestOpenPosition]
    public var currency: BacktestCurrencySummary?
    public var benchmark: BacktestBenchmarkSummary?
    public var warnings: [BacktestSummaryWarning]
    public var config: BacktestRunConfig
    public var conventions: BacktestConventions
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

/// Where the bars came from: CSV paths or a store, and the `--from`/`--to` range (UTC epoch seconds).
public struct BacktestDataSource: Sendable, Equatable {
    public var paths: [String]
    /// The store file when the bars were read from one.
    public var database: String?
    public var from: Int64?
    public var to: Int64?

    public init(paths: [String] = [], database: String? = nil, from: Int64? = nil, to: Int64? = nil) {
        self.paths = paths
        self.database = database
        self.from = from
        self.to = to
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
        let s = statistics
        var rejections = [String: Int]()
        for o in result.orders { if let r = o.rejection { rejections[r.rawValue, default: 0] += 1 } }
        self.init(
            strategy: result.strategyName, symbols: result.symbols, start: APITimestamp(epochSeconds: first),
            end: APITimestamp(epochSeconds: last), bars: result.timestamps.count, initialCapital: s.initialCapital,
            totalContributions: s.totalContributions, finalEquity: s.finalEquity, finalCash: result.finalCash,
            totalReturnPercent: s.totalReturnPercent, timeWeightedReturnPercent: s.timeWeightedReturnPercent,
            moneyWeightedReturnPercent: s.moneyWeightedReturnPercent, cagrPercent: s.cagrPercent,
            annualizedVolatilityPercent: s.annualizedVolatilityPercent, sharpeRatio: s.sharpeRatio,
            sortinoRatio: s.sortinoRatio, calmarRatio: s.calmarRatio, maxDrawdownPercent: s.maxDrawdownPercent,
            maxDrawdownDurationBars: s.maxDrawdownDurationBars, maxDrawdownDurationDays: s.maxDrawdownDurationDays,
            tradeCount: s.tradeCount, openPositionCount: s.openPositionCount, winRatePercent: s.winRatePercent,
            profitFactor: s.profitFactor, averageTradePercent: s.averageTradePercent, bestTradePercent: s.bestTradePercent,
            worstTradePercent: s.worstTradePercent, averageHoldingBars: s.averageHoldingBars,
            averageHoldingDays: s.averageHoldingDays, exposurePercent: s.exposurePercent,
            commissionsPaid: s.commissionsPaid, sqn: s.sqn, orderCount: s.orderCount,
            rejectedOrderCount: s.rejectedOrderCount, rejectionsByReason: RejectionCounts(rejections),
            openPositions: result.openPositions.map(BacktestOpenPosition.init), currency: currency,
            benchmark: benchmark.map(BacktestBenchmarkSummary.init), warnings: warnings.map(BacktestSummaryWarning.init),
            config: config,
            conventions: BacktestConventions(s.conventions, fill: result.configuration.fill))
        try checkFinite()
    }

    /// Every number of the summary as (field, value), optional ones only when present.
    var numbers: [(String, Double)] {
        var out: [(String, Double)] = [
            ("initialCapital", initialCapital), ("totalContributions", totalContributions), ("finalEquity", finalEquity),
            ("finalCash", finalCash), ("totalReturnPercent", totalReturnPercent),
            ("timeWeightedReturnPercent", timeWeightedReturnPercent), ("maxDrawdownPercent", maxDrawdownPercent),
            ("maxDrawdownDurationDays", maxDrawdownDurationDays), ("exposurePercent", exposurePercent),
            ("commissionsPaid", commissionsPaid),
        ]
        let optional: [(String, Double?)] = [
            ("moneyWeightedReturnPercent", moneyWeightedReturnPercent), ("cagrPercent", cagrPercent),
            ("annualizedVolatilityPercent", annualizedVolatilityPercent), ("sharpeRatio", sharpeRatio),
            ("sortinoRatio", sortinoRatio), ("calmarRatio", calmarRatio), ("winRatePercent", winRatePercent),
            ("profitFactor", profitFactor), ("averageTradePercent", averageTradePercent),
            ("bestTradePercent", bestTradePercent), ("worstTradePercent", worstTradePercent),
            ("averageHoldingBars", averageHoldingBars), ("averageHoldingDays", averageHoldingDays), ("sqn", sqn),
        ]
        for (field, value) in optional { if let value { out.append((field, value)) } }
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
