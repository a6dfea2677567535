import SentioCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The conventions behind `BacktestStatistics`, reported beside the numbers.
public struct StatisticsConventions: Sendable, Equatable {
    /// Return periods per year used to annualize (252 for daily bars unless given).
    public var periodsPerYear: Double
    /// How `periodsPerYear` was chosen, in words.
    public var periodsPerYearSource: String
    /// Risk-free rate per year (0).
    public var riskFreeRate: Double
    /// Delta degrees of freedom of standard deviations (1: sample).
    public var ddof: Int

    public init(periodsPerYear: Double, periodsPerYearSource: String, riskFreeRate: Double = 0, ddof: Int = 1) {
        self.periodsPerYear = periodsPerYear
        self.periodsPerYearSource = periodsPerYearSource
        self.riskFreeRate = riskFreeRate
        self.ddof = ddof
    }

    /// Infers periods per year from the bar spacing: the median gap between timeline steps.
    /// Median gap ≥ 20 days: monthly (12); ≥ 5 days: weekly (52); ≥ 12 hours: daily (252 trading days);
    /// shorter: intraday, `252 × (bars per calendar day with data)`.
    public static func inferred(from timestamps: [Int64]) -> StatisticsConventions {
        guard timestamps.count >= 2 else {
            return StatisticsConventions(periodsPerYear: 252, periodsPerYearSource: "default for daily bars (fewer than 2 bars)")
        }
        // The median gap; when one gap value covers most of the bars (the usual case) it is the median,
        // found without sorting.
        let firstGap = timestamps[1] - timestamps[0]
        var sameAsFirst = 0
        for i in 1..<timestamps.count where timestamps[i] - timestamps[i - 1] == firstGap { sameAsFirst += 1 }
        let median: Int64
        if sameAsFirst * 2 > timestamps.count - 1 {
            median = firstGap
        } else {
            var gaps = [Int64]()
            gaps.reserveCapacity(timestamps.count - 1)
            for i in 1..<timestamps.count { gaps.append(timestamps[i] - timestamps[i - 1]) }
            gaps.sort()
            median = gaps[gaps.count / 2]
        }
        let day: Int64 = 86_400
        if median >= 20 * day { return StatisticsConventions(periodsPerYear: 12, periodsPerYearSource: "inferred: monthly bars") }
        if median >= 5 * day { return StatisticsConventions(periodsPerYear: 52, periodsPerYearSource: "inferred: weekly bars") }
        if median >= day / 2 { return StatisticsConventions(periodsPerYear: 252, periodsPerYearSource: "inferred: daily bars, 252 trading days") }
        var days = 0
        var lastDay = Int64.min
        for t in timestamps {
            let d = floorDivide(t, day)
            if d != lastDay { days += 1; lastDay = d }
        }
        let barsPerDay = (Double(timestamps.count) / Double(days)).rounded()
        return StatisticsConventions(
            periodsPerYear: 252 * barsPerDay,
            periodsPerYearSource: "inferred: intraday bars, 252 trading days x \(Int(barsPerDay)) bars per day")
    }
}

/// The figures of a backtest: returns, risk, drawdown, trades and costs, each with its definition. Undefined
/// values (no trades, no losses, zero volatility) are `nil`.
///
/// Return-based figures use the simple per-step returns of the equity curve net of deposits,
/// `rₜ = (Eₜ − Dₜ) / Eₜ₋₁ − 1` (time-weighted; `Dₜ` is the deposit at step t's close), over the steps
/// with `Eₜ₋₁ > 0`. Definitions follow empyrical / quantstats (see each property).
///
/// The one declaration of these figures: ``BacktestStatistics`` computes them, and the wire contracts (SentioAPI's
/// backtest summary and sweep rows) write them under these names, in this order (declaration order is the JSON key
/// order). `init()` is the all-zero value that the computation starts from.
public struct PerformanceStatistics: Sendable, Equatable, Codable {
    public var initialCapital: Double = 0
    /// Deposits made during the run (DCA); 0 otherwise.
    public var totalContributions: Double = 0
    public var finalEquity: Double = 0
    /// Cash at the last step (equity minus the open positions' market value).
    public var finalCash: Double = 0
    /// `(final − initial − contributions) / (initial + contributions) × 100`.
    public var totalReturnPercent: Double = 0
    /// Time-weighted return: `(Π(1 + rₜ) − 1) × 100`. Equals the total return without deposits.
    public var timeWeightedReturnPercent: Double = 0
    /// Money-weighted return: XIRR of −initial capital, −deposits and +final equity, in percent a year.
    public var moneyWeightedReturnPercent: Double? = nil
    /// `(Π(1 + rₜ))^(P / n) − 1`, n returns, P periods per year (empyrical `annual_return`).
    public var cagrPercent: Double? = nil
    /// `std(r, ddof 1) × √P × 100` (empyrical `annual_volatility`).
    public var annualizedVolatilityPercent: Double? = nil
    /// `mean(r) / std(r, ddof 1) × √P`, risk-free 0 (empyrical / quantstats `sharpe`). backtesting.py's
    /// differs: geometric annual return / its own annualized volatility.
    public var sharpeRatio: Double? = nil
    /// `mean(r) × P / (√(mean(min(r, 0)²)) × √P)` (empyrical `sortino_ratio`, quantstats `sortino`).
    public var sortinoRatio: Double? = nil
    /// `CAGR / |max drawdown|` (empyrical `calmar_ratio`).
    public var calmarRatio: Double? = nil
    /// Deepest fall of the wealth index `Π(1 + rₜ)` from its running peak, in percent (≤ 0; empyrical
    /// `max_drawdown`, and backtesting.py's `Max. Drawdown [%]` without deposits).
    public var maxDrawdownPercent: Double = 0
    /// Longest time from a peak to the step that regains it (or the last step), in steps and in days.
    public var maxDrawdownDurationBars: Int = 0
    public var maxDrawdownDurationDays: Double = 0
    /// Closed trades only; positions open at the end are counted in `openPositionCount`.
    public var tradeCount: Int = 0
    public var openPositionCount: Int = 0
    /// Share of closed trades with `pnl > 0`, percent.
    public var winRatePercent: Double? = nil
    /// `Σ pnl⁺ / |Σ pnl⁻|` in currency (backtesting.py sums trade returns in percent instead).
    public var profitFactor: Double? = nil
    /// Arithmetic mean of trade `pnlPercent` (backtesting.py's `Avg. Trade` is a geometric mean).
    public var averageTradePercent: Double? = nil
    public var bestTradePercent: Double? = nil
    public var worstTradePercent: Double? = nil
    /// Mean of (exit − entry) over closed trades, in timeline steps and in days.
    public var averageHoldingBars: Double? = nil
    public var averageHoldingDays: Double? = nil
    /// Share of steps during which some position was held, percent (backtesting.py's `Exposure Time`).
    public var exposurePercent: Double = 0
    /// Commissions and fixed fees paid, open positions' entries included.
    public var commissionsPaid: Double = 0
    /// System quality number `√n × mean(pnl) / std(pnl, ddof 1)` (Van Tharp; backtesting.py's `SQN`).
    public var sqn: Double? = nil
    public var orderCount: Int = 0
    public var rejectedOrderCount: Int = 0

    public init() {}
}

/// The statistics of a backtest: its ``PerformanceStatistics`` (read them as properties of this value, e.g.
/// `statistics.sharpeRatio`) and the ``StatisticsConventions`` they were computed with.
@dynamicMemberLookup
public struct BacktestStatistics: Sendable, Equatable {
    /// The figures.
    public var performance: PerformanceStatistics
    /// Periods per year, risk-free rate and degrees of freedom behind the figures.
    public var conventions: StatisticsConventions
    /// The exposure of a run with short selling allowed; `nil` otherwise (kept out of ``performance``, whose figures
    /// are the summary contract's).
    public var shortSelling: ShortSellingStatistics?

    /// A figure of ``performance`` (`statistics.finalEquity`).
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<PerformanceStatistics, Value>) -> Value {
        get { performance[keyPath: keyPath] }
        set { performance[keyPath: keyPath] = newValue }
    }

    /// Computes the statistics of `result`.
    ///
    /// - Parameters:
    ///   - result: the finished backtest.
    ///   - periodsPerYear: annualization factor; `nil` infers it from the bar spacing (see
    ///     `StatisticsConventions.inferred(from:)`).
    ///   - moneyWeightedReturn: the XIRR function (a rate per year, 0.1 = 10 %, of dated cash flows; `nil` when
    ///     the flows have none) applied to ``moneyWeightedCashFlows(_:)``. This module does not depend on
    ///     SentioFunds: front ends pass its `xirr` (SentioFunds' `BacktestMoneyWeightedReturn.xirr`, Actual/365
    ///     Fixed). Passing `nil` leaves ``PerformanceStatistics/moneyWeightedReturnPercent`` unset (say so wherever it is shown).
    public init(
        _ result: BacktestResult, periodsPerYear: Double? = nil,
        moneyWeightedReturn: MoneyWeightedReturnFunction?
    ) {
        var conventions = StatisticsConventions.inferred(from: result.timestamps)
        if let p = periodsPerYear {
            conventions = StatisticsConventions(periodsPerYear: p, periodsPerYearSource: "given")
        }
        self.conventions = conventions
        var p = PerformanceStatistics()
        let ppy = conventions.periodsPerYear
        let returns = periodReturns(equity: result.equity, contributions: result.contributions)

        p.initialCapital = result.configuration.initialCapital
        p.totalContributions = result.totalContributions
        p.finalEquity = result.finalEquity
        p.finalCash = result.finalCash
        let invested = p.initialCapital + p.totalContributions
        p.totalReturnPercent = invested > 0 ? (p.finalEquity - invested) / invested * 100 : 0
        var growth = 1.0
        for r in returns { growth *= 1 + r }
        p.timeWeightedReturnPercent = (growth - 1) * 100
        p.cagrPercent = returns.isEmpty ? nil : (annualReturn(returns, periodsPerYear: ppy) * 100)
        p.annualizedVolatilityPercent = annualizedVolatility(returns, periodsPerYear: ppy).map { $0 * 100 }
        p.sharpeRatio = SentioBacktest.sharpeRatio(returns, periodsPerYear: ppy)
        p.sortinoRatio = SentioBacktest.sortinoRatio(returns, periodsPerYear: ppy)
        let drawdown = maximumDrawdown(equity: result.equity, contributions: result.contributions, timestamps: result.timestamps)
        p.maxDrawdownPercent = drawdown.depth * 100
        p.maxDrawdownDurationBars = drawdown.durationSteps
        p.maxDrawdownDurationDays = drawdown.durationSeconds / 86_400
        if let cagr = p.cagrPercent, drawdown.depth < 0 { p.calmarRatio = cagr / 100 / abs(drawdown.depth) }

        let trades = result.trades
        p.tradeCount = trades.count
        p.openPositionCount = result.openPositions.count
        if !trades.isEmpty {
            let n = Double(trades.count)
            p.winRatePercent = Double(trades.filter { $0.pnl > 0 }.count) / n * 100
            let gains = trades.reduce(0) { $0 + max($1.pnl, 0) }
            let losses = trades.reduce(0) { $0 + min($1.pnl, 0) }
            p.profitFactor = losses < 0 ? gains / -losses : nil
            p.averageTradePercent = trades.reduce(0) { $0 + $1.pnlPercent } / n
            p.bestTradePercent = trades.map(\.pnlPercent).max()
            p.worstTradePercent = trades.map(\.pnlPercent).min()
            p.averageHoldingBars = Double(trades.reduce(0) { $0 + $1.exitStep - $1.entryStep }) / n
            p.averageHoldingDays = trades.reduce(0.0) { $0 + Double($1.exitTime - $1.entryTime) } / n / 86_400
            p.sqn = systemQualityNumber(trades.map(\.pnl))
        }
        var exposedSteps = 0
        for e in result.exposed where e { exposedSteps += 1 }
        p.exposurePercent = result.exposed.isEmpty ? 0 : Double(exposedSteps) / Double(result.exposed.count) * 100
        p.commissionsPaid = result.commissionsPaid
        p.orderCount = result.orders.count
        var rejected = 0
        for o in result.orders where o.rejection != nil { rejected += 1 }
        p.rejectedOrderCount = rejected
        if let xirr = moneyWeightedReturn {
            p.moneyWeightedReturnPercent = xirr(moneyWeightedCashFlows(result)).map { $0 * 100 }
        }
        performance = p
        if !result.shortValue.isEmpty {
            let exposure = grossAndNetExposure(result)
            shortSelling = ShortSellingStatistics(
                averageGrossExposurePercent: exposure.averageGross, averageNetExposurePercent: exposure.averageNet,
                maxGrossExposurePercent: exposure.maxGross, borrowFeesPaid: result.borrowFeesPaid)
        }
    }
}

/// An internal rate of return of dated cash flows (UTC epoch seconds, amounts in currency, negative = paid in),
/// as a rate per year (0.1 = 10 %), or `nil` when the flows have none (no sign change, a single date).
/// The backtest passes it in (see ``BacktestStatistics/init(_:periodsPerYear:moneyWeightedReturn:)``).
public typealias MoneyWeightedReturnFunction = (_ flows: [(time: Int64, amount: Double)]) -> Double?

/// Dated cash flows from the investor's side: −initial capital at the first step, −each deposit at its
/// step, +final equity at the last step. Their XIRR is the money-weighted return.
public func moneyWeightedCashFlows(_ result: BacktestResult) -> [(time: Int64, amount: Double)] {
    guard let first = result.timestamps.first, let last = result.timestamps.last else { return [] }
    var flows = [(time: Int64, amount: Double)]()
    if result.configuration.initialCapital > 0 { flows.append((first, -result.configuration.initialCapital)) }
    for (i, d) in result.contributions.enumerated() where d != 0 { flows.append((result.timestamps[i], -d)) }
    flows.append((last, result.finalEquity))
    return flows
}

/// Simple per-step returns net of deposits: `rₜ = (Eₜ − Dₜ) / Eₜ₋₁ − 1` for each t ≥ 1 with `Eₜ₋₁ > 0`.
public func periodReturns(equity: [Double], contributions: [Double]) -> [Double] {
    precondition(equity.count == contributions.count, "equity and contributions must align")
    var r = [Double]()
    r.reserveCapacity(max(0, equity.count - 1))
    for t in 1..<max(1, equity.count) where equity[t - 1] > 0 {
        r.append((equity[t] - contributions[t]) / equity[t - 1] - 1)
    }
    return r
}

/// Compound annual growth from per-period returns: `(Π(1 + r))^(P / n) − 1` (empyrical `annual_return`).
public func annualReturn(_ returns: [Double], periodsPerYear: Double) -> Double {
    var growth = 1.0
    for r in returns { growth *= 1 + r }
    return growth <= 0 ? -1 : pow(growth, periodsPerYear / Double(returns.count)) - 1
}

/// Sample mean and standard deviation (ddof 1), two-pass.
@usableFromInline
func meanAndStandardDeviation(_ x: [Double]) -> (mean: Double, std: Double)? {
    guard x.count >= 2 else { return nil }
    var s = 0.0
    for v in x { s += v }
    let mean = s / Double(x.count)
    var ss = 0.0
    for v in x { ss += (v - mean) * (v - mean) }
    return (mean, (ss / Double(x.count - 1)).squareRoot())
}

/// `std(r, ddof 1) × √P` (empyrical `annual_volatility`); `nil` for fewer than two returns.
public func annualizedVolatility(_ returns: [Double], periodsPerYear: Double) -> Double? {
    meanAndStandardDeviation(returns).map { $0.std * periodsPerYear.squareRoot() }
}

/// `(mean(r) − r_f/P) / std(r, ddof 1) × √P` (empyrical `sharpe_ratio`); `nil` when undefined.
public func sharpeRatio(_ returns: [Double], periodsPerYear: Double, riskFreeRate: Double = 0) -> Double? {
    guard let m = meanAndStandardDeviation(returns), m.std > 0 else { return nil }
    return (m.mean - riskFreeRate / periodsPerYear) / m.std * periodsPerYear.squareRoot()
}

/// `mean(r) × P / (√(mean(min(r, 0)²)) × √P)` (empyrical `sortino_ratio` with required return 0);
/// `nil` without any negative return.
public func sortinoRatio(_ returns: [Double], periodsPerYear: Double) -> Double? {
    guard !returns.isEmpty else { return nil }
    var sum = 0.0, downside = 0.0
    for r in returns {
        sum += r
        if r < 0 { downside += r * r }
    }
    guard downside > 0 else { return nil }
    let n = Double(returns.count)
    return (sum / n) * periodsPerYear / ((downside / n).squareRoot() * periodsPerYear.squareRoot())
}

/// `√n × mean(pnl) / std(pnl, ddof 1)`; `nil` for fewer than two trades or zero spread.
public func systemQualityNumber(_ pnl: [Double]) -> Double? {
    guard let m = meanAndStandardDeviation(pnl), m.std > 0 else { return nil }
    return Double(pnl.count).squareRoot() * m.mean / m.std
}

/// The deepest drawdown of the wealth index and the longest drawdown duration.
///
/// The wealth index is `W₀ = 1, Wₜ = Wₜ₋₁ (Eₜ − Dₜ) / Eₜ₋₁` (so deposits do not hide losses). Depth is
/// `min(W / running max − 1)` (≤ 0); duration is the longest span from the last step at the running max
/// to the first later step that regains it (or the last step, if never regained), as in backtesting.py.
public func maximumDrawdown(
    equity: [Double], contributions: [Double], timestamps: [Int64]
) -> (depth: Double, durationSteps: Int, durationSeconds: Double) {
    let n = equity.count
    guard n > 0 else { return (0, 0, 0) }
    var wealth = 1.0, peak = 1.0, peakStep = 0, inDrawdown = false
    var depth = 0.0, longest = 0, longestSeconds = 0.0
    func close(at t: Int) {
        if t - peakStep > longest {
            longest = t - peakStep
            longestSeconds = Double(timestamps[t] - timestamps[peakStep])
        }
    }
    for t in 0..<n {
        if t > 0 && equity[t - 1] > 0 { wealth *= (equity[t] - contributions[t]) / equity[t - 1] }
        if wealth >= peak {
            if inDrawdown { close(at: t) }
            inDrawdown = false
            peak = wealth
            peakStep = t
        } else {
            inDrawdown = true
            depth = min(depth, wealth / peak - 1)
        }
    }
    if inDrawdown { close(at: n - 1) }
    return (depth, longest, longestSeconds)
}

/// The gross and net exposure of a run with short selling, in percent of equity, per step: net `= (equity − cash) /
/// equity` (equity = cash + Σ shares × close) and gross `= (equity − cash + 2 × short value) / equity`; their means
/// over the steps with positive equity and the largest gross (all `nil` without such a step or without the
/// ``BacktestResult/shortValue`` curve).
public func grossAndNetExposure(_ result: BacktestResult) -> (averageGross: Double?, averageNet: Double?, maxGross: Double?) {
    guard result.shortValue.count == result.equity.count else { return (nil, nil, nil) }
    var gross = 0.0, net = 0.0, maxGross = -Double.infinity, n = 0
    for t in result.equity.indices where result.equity[t] > 0 {
        let netValue = result.equity[t] - result.cash[t]
        let g = (netValue + 2 * result.shortValue[t]) / result.equity[t] * 100
        gross += g
        net += netValue / result.equity[t] * 100
        maxGross = Swift.max(maxGross, g)
        n += 1
    }
    guard n > 0 else { return (nil, nil, nil) }
    return (gross / Double(n), net / Double(n), maxGross)
}

/// The exposure figures of a run with short selling allowed (``BacktestStatistics/shortSelling``).
public struct ShortSellingStatistics: Sendable, Equatable, Codable {
    /// The mean over steps of the gross exposure `Σ |shares × close| / equity × 100` (steps with equity ≤ 0 left out).
    public var averageGrossExposurePercent: Double?
    /// The mean over steps of the net exposure `Σ shares × close / equity × 100` (shorts count negative).
    public var averageNetExposurePercent: Double?
    /// The largest gross exposure.
    public var maxGrossExposurePercent: Double?
    /// Borrow fees paid on short positions.
    public var borrowFeesPaid: Double
}
