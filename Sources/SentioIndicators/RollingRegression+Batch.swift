import SentioCore

/// Per-window results of a rolling regression over a whole series (see ``RollingRegression``).
///
/// Every array has one entry per input row; entries before ``firstValidIndex`` and entries of
/// windows whose ``status`` is not `.estimated` are NaN.
public struct RollingRegressionSeries: Sendable {
    /// Window length `W`.
    public let window: Int
    /// Index of the first full window's last row: `W − 1` (or the row count if shorter).
    public let firstValidIndex: Int
    /// `coefficients[j][t]`: coefficient `j` (0 = intercept, then one per regressor) of the window
    /// ending at row `t` (statsmodels `RollingOLS.fit().params`).
    public var coefficients: [[Double]]
    /// Standard errors, same layout (statsmodels `bse`).
    public var standardErrors: [[Double]]
    /// t-statistics, same layout (statsmodels `tvalues`).
    public var tStatistics: [[Double]]
    /// Centered R² per window (statsmodels `rsquared`).
    public var rSquared: [Double]
    /// Residual standard deviation `sqrt(SSR/(W − k − 1))` per window.
    public var residualStandardDeviation: [Double]
    /// Outcome per window; `.singular` / `.nonFiniteInput` windows have NaN outputs.
    public var status: [RegressionWindowStatus]
}

/// Rolling OLS of `y` on an intercept and the `regressors` over windows of `window` rows — the
/// equivalent of statsmodels `RollingOLS(y, add_constant(X), window=window).fit()`.
///
/// Runs ``RollingRegression`` row by row, so results are bit-identical to the streaming state;
/// each window is seeded (first window and every `reseedInterval` rows) by an exact fixed-order cross-product (`DeterministicKernels`)
/// cross-product of the centered window and updated in between by rank-two updates. See
/// ``RollingRegression`` for formulas, conditioning and the handling of singular windows (NaN and
/// flagged, never a crash or an error for the whole series).
///
/// - Parameters:
///   - y: dependent variable, one value per row.
///   - regressors: the `k` regressor columns, each with `y.count` values.
///   - window: rows per window `W > k + 1`.
///   - reseedInterval: rows between exact re-seeds (default `window`).
public func rollingRegression(
    _ y: [Double], regressors: [[Double]], window: Int, reseedInterval: Int? = nil
) -> RollingRegressionSeries {
    let k = regressors.count
    let n = y.count
    for (j, column) in regressors.enumerated() {
        precondition(column.count == n, "regressor \(j) has \(column.count) rows, y has \(n)")
    }
    var state = RollingRegression(window: window, regressorCount: k, reseedInterval: reseedInterval)
    let p = k + 1
    // Distinct buffers from the start (copies of one shared array would be copied on first write).
    func nanColumn() -> [Double] { makeDoubleArray(count: n) { $0.initialize(repeating: .nan) } }
    var coefficients = (0..<p).map { _ in nanColumn() }
    var standardErrors = (0..<p).map { _ in nanColumn() }
    var tStatistics = (0..<p).map { _ in nanColumn() }
    var rSquared = nanColumn(), residualSD = nanColumn()
    var status = [RegressionWindowStatus](repeating: .warmingUp, count: n)
    var row = [Double](repeating: 0, count: k)
    let L = state.layout
    for t in 0..<n {
        for j in 0..<k { row[j] = regressors[j][t] }
        let outcome = row.withUnsafeBufferPointer { state.update(y: y[t], regressors: $0) }
        status[t] = outcome
        guard outcome != .warmingUp else { continue }
        // Copy the state's outputs (read straight from its storage: no accessor checks per value).
        state.storage.withUnsafeBufferPointer { buffer in
            let s = buffer.baseAddress!
            for j in 0..<p {
                coefficients[j][t] = s[L.coefficients + j]
                guard outcome == .estimated else { continue }  // NaN (the columns' initial value)
                (standardErrors[j][t], tStatistics[j][t]) = RollingRegression.standardErrorAndTStatistic(s, L, j)
            }
            rSquared[t] = s[L.rSquared]
            residualSD[t] = s[L.residualSD]
        }
    }
    return RollingRegressionSeries(
        window: window, firstValidIndex: min(window - 1, n),
        coefficients: coefficients, standardErrors: standardErrors, tStatistics: tStatistics,
        rSquared: rSquared, residualStandardDeviation: residualSD, status: status)
}
