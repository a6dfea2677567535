import SentioCore

/// Rolling risk of a return series over a trailing window, as quantstats 0.0.86's `stats.rolling_sharpe` and
/// `stats.rolling_volatility` (risk-free 0): for each return `k ≥ window − 1`, the sample mean and standard
/// deviation (ddof 1) of returns `k − window + 1 … k`. Entries before the first full window are `nil`.
public struct RollingRisk: Sendable, Equatable {
    /// Returns per window.
    public var window: Int
    public var periodsPerYear: Double
    /// `std · √P` per window (a fraction: 0.2 = 20 % a year); `nil` before the first full window.
    public var volatility: [Double?]
    /// `mean / std · √P` per window; `nil` before the first full window and where the window's returns are all
    /// equal (zero volatility: quantstats gives NaN there).
    public var sharpe: [Double?]

    /// The window quantstats uses by default: 126 returns (about six months of daily bars).
    public static let defaultWindow = 126

    /// Computes the rolling volatility and Sharpe ratio of `returns`.
    ///
    /// Each window is computed with two passes over its own returns (no running sums whose rounding would
    /// accumulate), O(n · window).
    /// - Parameters:
    ///   - returns: simple per-period returns (see `periodReturns(equity:contributions:)`).
    ///   - window: returns per window, at least 2.
    ///   - periodsPerYear: the annualization factor `P`.
    public init(returns: [Double], window: Int = defaultWindow, periodsPerYear: Double) {
        precondition(window >= 2, "a rolling window needs at least 2 returns")
        self.window = window
        self.periodsPerYear = periodsPerYear
        let root = periodsPerYear.squareRoot()
        var volatility = [Double?](repeating: nil, count: returns.count)
        var sharpe = [Double?](repeating: nil, count: returns.count)
        if returns.count >= window {
            for k in (window - 1)..<returns.count {
                let lower = k - window + 1
                var sum = 0.0
                for i in lower...k { sum += returns[i] }
                let mean = sum / Double(window)
                var ss = 0.0
                for i in lower...k { ss += (returns[i] - mean) * (returns[i] - mean) }
                let std = (ss / Double(window - 1)).squareRoot()
                volatility[k] = std * root
                sharpe[k] = std > 0 ? mean / std * root : nil
            }
        }
        self.volatility = volatility
        self.sharpe = sharpe
    }
}

/// One drawdown of a wealth index: from a peak, down to its trough, back to the peak's level (or not yet).
public struct DrawdownPeriod: Sendable, Equatable {
    /// The step of the peak the fall started from (the last step at the running maximum).
    public var startStep: Int
    /// The step of the lowest value before recovery.
    public var troughStep: Int
    /// The first step whose value regains the peak; `nil` if the series ends under water.
    public var recoveryStep: Int?
    /// `trough / peak − 1`, a fraction ≤ 0 (−0.25 = 25 % below the peak).
    public var depth: Double
    /// Steps from the peak to the recovery (or to the last step, if not recovered).
    public var lengthSteps: Int
}

/// Every drawdown of `wealth`, deepest first (ties: earlier first).
///
/// A drawdown starts at the last step at the running maximum before the series falls below it and ends at the
/// first later step whose value is at least that maximum (its recovery); a series that ends below its maximum
/// has a last drawdown without recovery, measured to the last step. The deepest one's `depth` is the maximum
/// drawdown of `maximumDrawdown(equity:contributions:timestamps:)` for the same wealth index.
/// - Parameter wealth: a wealth index (see `wealthIndex(equity:contributions:)`); non-finite values are skipped.
public func drawdownPeriods(_ wealth: [Double]) -> [DrawdownPeriod] {
    var periods: [DrawdownPeriod] = []
    var peak = -Double.infinity, peakStep = 0
    var open: DrawdownPeriod? = nil
    var lastStep = 0
    for (t, w) in wealth.enumerated() where w.isFinite {
        lastStep = t
        if w >= peak {
            if var d = open {
                d.recoveryStep = t
                d.lengthSteps = t - d.startStep
                periods.append(d)
                open = nil
            }
            peak = w
            peakStep = t
        } else {
            let depth = w / peak - 1
            if open == nil {
                open = DrawdownPeriod(startStep: peakStep, troughStep: t, recoveryStep: nil, depth: depth, lengthSteps: 0)
            } else if depth < open!.depth {
                open!.depth = depth
                open!.troughStep = t
            }
        }
    }
    if var d = open {
        d.lengthSteps = lastStep - d.startStep
        periods.append(d)
    }
    return periods.enumerated()
        .sorted { ($0.element.depth, $0.offset) < ($1.element.depth, $1.offset) }
        .map(\.element)
}
