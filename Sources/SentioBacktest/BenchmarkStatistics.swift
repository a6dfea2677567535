import SentioCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A benchmark as a value series on its own timestamps: the closes of an instrument, or an index level such as
/// ``equalWeight(_:timeline:holdingAdjustments:)``. Only ratios of consecutive values are used, so the scale does not matter.
public struct BenchmarkSeries: Sendable, Equatable {
    /// What the benchmark is, as shown in outputs (a symbol, or `equal-weight buy-and-hold`).
    public var name: String
    /// UTC epoch seconds, strictly increasing.
    public var timestamps: [Int64]
    /// Prices or index levels, one per timestamp.
    public var values: [Double]

    /// The name of the default benchmark, ``equalWeight(_:timeline:holdingAdjustments:)``.
    public static let equalWeightName = "equal-weight buy-and-hold"

    public init(name: String, timestamps: [Int64], values: [Double]) {
        precondition(timestamps.count == values.count, "benchmark \(name): timestamps and values differ in length")
        self.name = name
        self.timestamps = timestamps
        self.values = values
    }

    /// The closes of one instrument.
    public init(_ series: OHLCVSeries) {
        self.init(name: series.symbol, timestamps: series.timestamps, values: series.close)
    }

    /// Equal-weight buy-and-hold of a universe on `timeline`, as an index starting at 1:
    /// `V(t) = (1/N) Σᵢ closeᵢ(last bar ≤ t) / closeᵢ(first bar)`.
    ///
    /// Each symbol gets `1/N` at its first close and holds it (fractional, no costs, no rebalancing); before a
    /// symbol's first bar its share stays in cash (ratio 1), and on steps where it has no bar its last close is
    /// kept. A symbol whose first close is not positive stays in cash throughout.
    ///
    /// With `holdingAdjustments` (by symbol: the corporate actions a backtest applies to holdings on the same
    /// prices, `Backtest.corporateActions`), the holding is adjusted as the portfolio's is: at the symbol's first bar
    /// at or after an action's time (after its first bar: the holding starts at the first close), the shares are
    /// multiplied by the split ratio and `cashPerShare` × shares is kept in cash (not reinvested), so
    /// `Vᵢ(t) = (closeᵢ(t) · mᵢ(t) + Dᵢ(t)) / closeᵢ(first bar)` with mᵢ the product of the ratios applied so far
    /// and Dᵢ the dividends received per original share: the true return of holding the shares.
    public static func equalWeight(
        _ series: [OHLCVSeries], timeline: [Int64], holdingAdjustments: [String: [HoldingAdjustment]] = [:]
    ) -> BenchmarkSeries {
        var values = [Double](repeating: series.isEmpty ? 1 : 0, count: timeline.count)
        let share = series.isEmpty ? 0 : 1 / Double(series.count)
        for s in series {
            guard let firstClose = s.close.first, firstClose > 0 else {
                for k in values.indices { values[k] += share }
                continue
            }
            let actions = (holdingAdjustments[s.symbol] ?? []).sorted { $0.time < $1.time }
            // Actions at or before the first bar apply before the holding is bought.
            var nextAction = actions.firstIndex { $0.time > s.timestamps[0] } ?? actions.count
            var shares = 1.0, cash = 0.0
            var bar = -1
            for (k, t) in timeline.enumerated() {
                while bar + 1 < s.count, s.timestamps[bar + 1] <= t {
                    bar += 1
                    while nextAction < actions.count && actions[nextAction].time <= s.timestamps[bar] {
                        shares *= actions[nextAction].shareMultiplier
                        cash += shares * actions[nextAction].cashPerShare
                        nextAction += 1
                    }
                }
                values[k] += bar < 0 ? share : share * (actions.isEmpty ? s.close[bar] : s.close[bar] * shares + cash) / firstClose
            }
        }
        return BenchmarkSeries(name: equalWeightName, timestamps: timeline, values: values)
    }
}

/// Why benchmark-relative statistics cannot be computed. Never replaced by a number.
public enum BenchmarkError: UserInputError, Sendable, Equatable {
    /// Fewer than three timestamps are shared by the strategy and the benchmark (two returns are needed for a
    /// variance).
    case tooFewCommonBars(benchmark: String, common: Int)
    /// The benchmark's returns on the common bars have zero variance: beta is undefined.
    case zeroBenchmarkVariance(benchmark: String, returns: Int)
    /// A benchmark value on a common bar is not finite and positive (a return cannot be formed).
    case invalidValue(benchmark: String, time: Int64, value: Double)

    public var description: String {
        switch self {
        case .tooFewCommonBars(let b, let n):
            return "benchmark \(b): \(n) bar(s) in common with the strategy's timeline; at least 3 are needed"
        case .zeroBenchmarkVariance(let b, let n):
            return "benchmark \(b): its \(n) returns on the common bars have zero variance, so beta is undefined"
        case .invalidValue(let b, let t, let v):
            return "benchmark \(b): value \(v) at \(iso8601(epochSeconds: t)) is not a positive number"
        }
    }
}

/// Statistics of a strategy relative to a benchmark, on the timestamps both series have.
///
/// Returns: on the common timestamps `t₀ < t₁ < …`, the strategy's `rₖ = W(tₖ)/W(tₖ₋₁) − 1` where `W` is its
/// time-weighted wealth index (``strategyWealthIndex(_:)``, deposits excluded), and the benchmark's
/// `bₖ = V(tₖ)/V(tₖ₋₁) − 1`. `n` returns, `P` periods per year; sample moments (ddof 1). Conventions as
/// quantstats 0.0.86 (`stats.greeks`, `stats.information_ratio`):
/// - `beta = cov(r, b) / var(b)`;
/// - `alpha = (mean(r) − beta · mean(b)) · P` (annualized, a fraction: 0.05 = 5 % a year);
/// - `correlation = cov(r, b) / (std(r) · std(b))` (Pearson);
/// - `informationRatio = mean(r − b) / std(r − b)` per period, **not** annualized (quantstats' definition);
/// - `trackingErrorPercent = std(r − b) · √P · 100` (annualized, percent);
/// - `totalReturnPercent = (V(last)/V(first) − 1) · 100` and `cagrPercent = ((1 + total)^(P/n) − 1) · 100` are the
///   benchmark's own, over the common bars.
public struct BenchmarkStatistics: Sendable, Equatable {
    /// The benchmark's name (its symbol, or `equal-weight buy-and-hold`).
    public var symbol: String
    /// Timestamps both series have; returns are one fewer.
    public var commonBars: Int
    public var firstCommonTime: Int64
    public var lastCommonTime: Int64
    public var totalReturnPercent: Double
    public var cagrPercent: Double
    public var alpha: Double
    public var beta: Double
    /// `nil` when the strategy's returns on the common bars have zero variance (no position ever held).
    public var correlation: Double?
    /// `nil` when the active returns `r − b` have zero variance (the strategy is the benchmark).
    public var informationRatio: Double?
    public var trackingErrorPercent: Double
    public var periodsPerYear: Double
    /// How ``periodsPerYear`` was chosen, in words.
    public var periodsPerYearSource: String

    /// Statistics as given (read back from a written form), in the order a backtest summary's `benchmark` object
    /// lists them.
    public init(
        symbol: String, totalReturnPercent: Double, cagrPercent: Double, alpha: Double, beta: Double,
        correlation: Double?, informationRatio: Double?, trackingErrorPercent: Double, commonBars: Int,
        firstCommonTime: Int64, lastCommonTime: Int64, periodsPerYear: Double, periodsPerYearSource: String
    ) {
        self.symbol = symbol
        self.totalReturnPercent = totalReturnPercent
        self.cagrPercent = cagrPercent
        self.alpha = alpha
        self.beta = beta
        self.correlation = correlation
        self.informationRatio = informationRatio
        self.trackingErrorPercent = trackingErrorPercent
        self.commonBars = commonBars
        self.firstCommonTime = firstCommonTime
        self.lastCommonTime = lastCommonTime
        self.periodsPerYear = periodsPerYear
        self.periodsPerYearSource = periodsPerYearSource
    }

    /// Computes the statistics of a strategy's wealth index against `benchmark`.
    ///
    /// - Parameters:
    ///   - times: the strategy's timeline (increasing).
    ///   - wealth: the strategy's wealth index on `times` (``strategyWealthIndex(_:)``).
    ///   - benchmark: the benchmark's values on its own timestamps.
    ///   - periodsPerYear: the annualization factor `P`; `nil` infers it from the spacing of the common timestamps
    ///     (`StatisticsConventions.inferred(from:)`: weekly common bars give 52 even when the strategy's are daily).
    /// - Throws: ``BenchmarkError`` when fewer than three timestamps are common, a benchmark value on them is not
    ///   positive, or the benchmark's returns have zero variance.
    public init(
        times: [Int64], wealth: [Double], benchmark: BenchmarkSeries, periodsPerYear: Double? = nil
    ) throws(BenchmarkError) {
        precondition(times.count == wealth.count, "times and wealth differ in length")
        var r = [Double](), b = [Double]()
        var i = 0, j = 0
        var previous: (w: Double, v: Double)? = nil
        var commonTimes = [Int64]()
        var first: (t: Int64, v: Double)? = nil
        var last: (t: Int64, v: Double)? = nil
        let bt = benchmark.timestamps
        while i < times.count && j < bt.count {
            if times[i] < bt[j] { i += 1; continue }
            if times[i] > bt[j] { j += 1; continue }
            let v = benchmark.values[j], w = wealth[i]
            guard v.isFinite, v > 0 else { throw .invalidValue(benchmark: benchmark.name, time: bt[j], value: v) }
            commonTimes.append(bt[j])
            if first == nil { first = (bt[j], v) }
            last = (bt[j], v)
            if let p = previous {
                r.append(w / p.w - 1)
                b.append(v / p.v - 1)
            }
            previous = (w, v)
            i += 1; j += 1
        }
        guard commonTimes.count >= 3, let first, let last else {
            throw .tooFewCommonBars(benchmark: benchmark.name, common: commonTimes.count)
        }
        let conventions = periodsPerYear.map { StatisticsConventions(periodsPerYear: $0, periodsPerYearSource: "given") }
            ?? StatisticsConventions.inferred(from: commonTimes)
        let periodsPerYear = conventions.periodsPerYear
        let n = Double(r.count)
        let meanR = r.reduce(0, +) / n, meanB = b.reduce(0, +) / n
        var covRB = 0.0, varR = 0.0, varB = 0.0, sumD = 0.0
        for k in r.indices {
            let dr = r[k] - meanR, db = b[k] - meanB
            covRB += dr * db; varR += dr * dr; varB += db * db
            sumD += r[k] - b[k]
        }
        covRB /= n - 1; varR /= n - 1; varB /= n - 1
        guard varB > 0 else { throw .zeroBenchmarkVariance(benchmark: benchmark.name, returns: r.count) }
        let meanD = sumD / n
        var varD = 0.0
        for k in r.indices { let d = r[k] - b[k] - meanD; varD += d * d }
        varD /= n - 1
        symbol = benchmark.name
        commonBars = commonTimes.count
        periodsPerYearSource = conventions.periodsPerYearSource
        firstCommonTime = first.t
        lastCommonTime = last.t
        self.periodsPerYear = periodsPerYear
        let growth = last.v / first.v
        totalReturnPercent = (growth - 1) * 100
        cagrPercent = (pow(growth, periodsPerYear / n) - 1) * 100
        beta = covRB / varB
        alpha = (meanR - beta * meanB) * periodsPerYear
        correlation = varR > 0 ? covRB / (varR.squareRoot() * varB.squareRoot()) : nil
        informationRatio = varD > 0 ? meanD / varD.squareRoot() : nil
        trackingErrorPercent = varD.squareRoot() * periodsPerYear.squareRoot() * 100
    }

    /// The statistics of `result` against `benchmark`, annualized with `periodsPerYear` (`nil`: inferred from the
    /// common timestamps).
    /// - Throws: ``BenchmarkError`` (see ``init(times:wealth:benchmark:periodsPerYear:)``).
    public init(_ result: BacktestResult, benchmark: BenchmarkSeries, periodsPerYear: Double? = nil) throws(BenchmarkError) {
        try self.init(
            times: result.timestamps, wealth: strategyWealthIndex(result), benchmark: benchmark,
            periodsPerYear: periodsPerYear)
    }
}

/// The time-weighted wealth index of a run on its timeline: `W₀ = 1`, `Wₜ = Wₜ₋₁ (Eₜ − Dₜ) / Eₜ₋₁` where
/// `Eₜ₋₁ > 0` (else `Wₜ = Wₜ₋₁`), so deposits do not count as gains. Its step ratios are `periodReturns`.
public func strategyWealthIndex(_ result: BacktestResult) -> [Double] {
    wealthIndex(equity: result.equity, contributions: result.contributions)
}

/// The wealth index of an equity curve net of deposits (see ``strategyWealthIndex(_:)``).
public func wealthIndex(equity: [Double], contributions: [Double]) -> [Double] {
    precondition(equity.count == contributions.count, "equity and contributions must align")
    var w = 1.0
    var out = [Double]()
    out.reserveCapacity(equity.count)
    for t in equity.indices {
        if t > 0 && equity[t - 1] > 0 { w *= (equity[t] - contributions[t]) / equity[t - 1] }
        out.append(w)
    }
    return out
}
