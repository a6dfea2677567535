import SentioCore
import SentioIndicators
import SentioTestSupport
import Testing

/// Independent per-window OLS: SVD least squares (LAPACK `dgelsd`) for the coefficients and the
/// Cholesky inverse of the raw `X'X` (LAPACK `dpotri`) for the standard errors.
struct NaiveWindowFit {
    var coefficients: [Double], standardErrors: [Double], rSquared: Double, residualSD: Double

    init?(y: ArraySlice<Double>, regressors: [ArraySlice<Double>]) {
        let n = y.count, p = regressors.count + 1
        let design = Matrix(columns: [[Double](repeating: 1, count: n)] + regressors.map(Array.init))
        guard let fit = try? design.leastSquares(Array(y)),
              let inverse = try? design.crossProduct().inversePositiveDefinite() else { return nil }
        let mean = y.reduce(0, +) / Double(n)
        var tss = 0.0
        for v in y { tss += (v - mean) * (v - mean) }
        let variance = fit.residualSumOfSquares / Double(n - p)
        coefficients = fit.coefficients
        standardErrors = (0..<p).map { (variance * inverse[$0, $0]).squareRoot() }
        rSquared = 1 - fit.residualSumOfSquares / tss
        residualSD = variance.squareRoot()
    }
}

func randomDesign(rows: Int, k: Int, seed: UInt64, level: Double = 0) -> (y: [Double], x: [[Double]]) {
    var rng = SplitMix64(seed: seed)
    var x = [[Double]](repeating: [], count: k)
    var y = [Double]()
    var walk = [Double](repeating: level, count: k)
    for _ in 0..<rows {
        var yt = 0.3 + rng.nextGaussian()
        for j in 0..<k {
            walk[j] += level == 0 ? 0 : rng.nextGaussian()
            let v = walk[j] + rng.nextGaussian()
            x[j].append(v)
            yt += Double(j + 1) * 0.1 * v
        }
        y.append(yt)
    }
    return (y, x)
}

@Suite("Rolling OLS")
struct RollingRegressionTests {
    func compareToStatsmodels(_ name: String, tStatistics: Bool, relative: Double, parameterRelative: Double? = nil) throws {
        let f = try loadNumericCSV(name)
        let regressors = [f["x1"]!, f["x2"]!, f["x3"]!]
        let result = rollingRegression(f["y"]!, regressors: regressors, window: 60)
        #expect(result.firstValidIndex == 59)
        #expect(result.status[..<59].allSatisfy { $0 == .warmingUp })
        #expect(result.status[59...].allSatisfy { $0 == .estimated })
        for (j, label) in ["const", "b1", "b2", "b3"].enumerated() {
            expectClose(result.coefficients[j], f["param_" + label]!, relative: parameterRelative ?? relative, "\(name) param \(label)")
            expectClose(result.standardErrors[j], f["bse_" + label]!, relative: relative, "\(name) bse \(label)")
            if tStatistics {
                expectClose(result.tStatistics[j], f["t_" + label]!, relative: relative, "\(name) t \(label)")
            }
        }
        expectClose(result.rSquared, f["rsquared"]!, relative: relative, "\(name) rsquared")
        expectClose(result.residualStandardDeviation, f["resid_std"]!, relative: relative, "\(name) resid std")
    }

    /// statsmodels 0.15.0 `RollingOLS`, GOOG daily log returns on three lagged features, W = 60.
    @Test func matchesStatsmodelsOnGOOGReturns() throws {
        try compareToStatsmodels("indicators/goog_rolling_ols.csv", tStatistics: true, relative: 1e-8)
    }

    /// Price levels (≈ 100…700, regressors correlated > 0.99). statsmodels solves the raw `X'X`
    /// and loses up to ~1e-8 relative on the small coefficients, so its params are checked at 1e-6
    /// and the exact (rational-arithmetic) coefficients of every 25th window at 1e-9 (the tiny intercepts, ~0.01 against a level of ~300, limit it); standard
    /// errors, R² and residual deviation agree with statsmodels at 1e-8.
    @Test func matchesStatsmodelsOnGOOGPriceLevels() throws {
        let name = "indicators/goog_rolling_ols_levels.csv"
        try compareToStatsmodels(name, tStatistics: false, relative: 1e-8, parameterRelative: 1e-6)
        let f = try loadNumericCSV(name)
        let result = rollingRegression(f["y"]!, regressors: [f["x1"]!, f["x2"]!, f["x3"]!], window: 60)
        var checked = 0
        for (j, label) in ["const", "b1", "b2", "b3"].enumerated() {
            let exact = f["exact_" + label]!
            for t in exact.indices where !exact[t].isNaN {
                expectClose(result.coefficients[j][t], exact[t], relative: 1e-9, "exact \(label) at \(t)")
                checked += 1
            }
        }
        #expect(checked >= 4 * 80)
    }

    @Test("batch equals streaming bit for bit", arguments: [(1, 8), (3, 60), (5, 20), (0, 10)])
    func batchEqualsStreaming(k: Int, window: Int) {
        let d = randomDesign(rows: 700, k: k, seed: UInt64(17 + k), level: 50)
        let batch = rollingRegression(d.y, regressors: d.x, window: window)
        var state = RollingRegression(window: window, regressorCount: k)
        var mismatches = 0
        for t in 0..<d.y.count {
            let status = state.update(y: d.y[t], regressors: d.x.map { $0[t] })
            if status != batch.status[t] { mismatches += 1 }
            guard status != .warmingUp else { continue }
            for j in 0...k {
                if state.coefficient(j).bitPattern != batch.coefficients[j][t].bitPattern { mismatches += 1 }
                if state.standardError(j).bitPattern != batch.standardErrors[j][t].bitPattern { mismatches += 1 }
                if state.tStatistic(j).bitPattern != batch.tStatistics[j][t].bitPattern { mismatches += 1 }
            }
            if state.rSquared.bitPattern != batch.rSquared[t].bitPattern { mismatches += 1 }
            if state.residualStandardDeviation.bitPattern != batch.residualStandardDeviation[t].bitPattern { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(batch.status[(window - 1)...].allSatisfy { $0 == .estimated })
    }

    @Test func noLookAhead() {
        let d = randomDesign(rows: 400, k: 2, seed: 5)
        let full = rollingRegression(d.y, regressors: d.x, window: 30)
        for m in [0, 10, 29, 30, 31, 257] {
            let prefix = rollingRegression(Array(d.y[..<m]), regressors: d.x.map { Array($0[..<m]) }, window: 30)
            #expect(prefix.firstValidIndex == min(29, m))
            for j in 0..<3 {
                #expect(zip(prefix.coefficients[j], full.coefficients[j][..<m]).allSatisfy { $0.bitPattern == $1.bitPattern })
                #expect(zip(prefix.standardErrors[j], full.standardErrors[j][..<m]).allSatisfy { $0.bitPattern == $1.bitPattern })
            }
            #expect(zip(prefix.rSquared, full.rSquared[..<m]).allSatisfy { $0.bitPattern == $1.bitPattern })
            #expect(prefix.status == Array(full.status[..<m]))
        }
    }

    @Test func agreesWithPerWindowLeastSquares() {
        let d = randomDesign(rows: 500, k: 3, seed: 99, level: 200)
        let result = rollingRegression(d.y, regressors: d.x, window: 40)
        for t in 39..<500 {
            let lo = t - 39
            let naive = NaiveWindowFit(y: d.y[lo...t], regressors: d.x.map { $0[lo...t] })!
            for j in 0...3 {
                expectClose(result.coefficients[j][t], naive.coefficients[j], relative: 1e-8, "coef \(j) at \(t)")
                expectClose(result.standardErrors[j][t], naive.standardErrors[j], relative: 1e-8, "se \(j) at \(t)")
                expectClose(result.tStatistics[j][t], naive.coefficients[j] / naive.standardErrors[j], relative: 1e-8)
            }
            expectClose(result.rSquared[t], naive.rSquared, relative: 1e-8, "R² at \(t)")
            expectClose(result.residualStandardDeviation[t], naive.residualSD, relative: 1e-8)
        }
    }

    /// A regressor that is constant inside some windows, and one exactly collinear stretch: those
    /// windows are NaN and flagged `.singular`; the others still match the naive fit.
    @Test func singularWindowsAreFlaggedNotFatal() {
        var d = randomDesign(rows: 300, k: 2, seed: 8)
        for t in 100..<160 { d.x[0][t] = 0 }  // constant regressor: windows ending in 119...159
        for t in 200..<240 { d.x[1][t] = 2 * d.x[0][t] - 1 }  // collinear: windows ending in 219...239
        let result = rollingRegression(d.y, regressors: d.x, window: 20)
        for t in 19..<300 {
            let constant = (119...159).contains(t), collinear = (219...239).contains(t)
            if constant || collinear {
                #expect(result.status[t] == .singular, "index \(t)")
                #expect(result.coefficients[1][t].isNaN && result.rSquared[t].isNaN)
            } else {
                #expect(result.status[t] == .estimated, "index \(t)")
                let naive = NaiveWindowFit(y: d.y[(t - 19)...t], regressors: d.x.map { $0[(t - 19)...t] })!
                expectClose(result.coefficients[1][t], naive.coefficients[1], relative: 1e-8, "coef at \(t)")
            }
        }
    }

    @Test func nonFiniteRowsInvalidateOnlyTheirWindows() {
        var d = randomDesign(rows: 200, k: 2, seed: 21)
        d.x[1][70] = .nan
        d.y[120] = .infinity
        let result = rollingRegression(d.y, regressors: d.x, window: 25)
        for t in 24..<200 {
            let bad = (70...94).contains(t) || (120...144).contains(t)
            #expect(result.status[t] == (bad ? .nonFiniteInput : .estimated), "index \(t)")
            if bad { #expect(result.coefficients[0][t].isNaN) } else {
                let naive = NaiveWindowFit(y: d.y[(t - 24)...t], regressors: d.x.map { $0[(t - 24)...t] })!
                expectClose(result.coefficients[2][t], naive.coefficients[2], relative: 1e-8, "coef at \(t)")
            }
        }
    }

    /// Rank-two updates between re-seeds stay within rounding of an exact re-seed at every row:
    /// relative 1e-9, or 1e-9 of the coefficient's standard error for coefficients near zero.
    @Test(arguments: [nil, 500] as [Int?])
    func updatesAgreeWithExactReseedEveryRow(reseedInterval: Int?) {
        let d = randomDesign(rows: 3_000, k: 3, seed: 77, level: 300)
        let updated = rollingRegression(d.y, regressors: d.x, window: 50, reseedInterval: reseedInterval)
        let exact = rollingRegression(d.y, regressors: d.x, window: 50, reseedInterval: 1)
        for j in 0...3 {
            for t in 49..<3_000 {
                let se = exact.standardErrors[j][t]
                expectClose(updated.coefficients[j][t], exact.coefficients[j][t], relative: 1e-9, absolute: 1e-9 * se, "coef \(j) at \(t)")
                expectClose(updated.standardErrors[j][t], se, relative: 1e-9, "se \(j) at \(t)")
            }
        }
        expectClose(updated.rSquared, exact.rSquared, relative: 1e-9)
    }

    /// The state is a value: a copy advanced separately leaves the original untouched.
    @Test func streamingStateHasValueSemantics() {
        let d = randomDesign(rows: 120, k: 2, seed: 4)
        var a = RollingRegression(window: 30, regressorCount: 2)
        for t in 0..<80 { a.update(y: d.y[t], regressors: [d.x[0][t], d.x[1][t]]) }
        let before = (0...2).map { a.coefficient($0) }
        var b = a
        for t in 80..<120 { b.update(y: d.y[t], regressors: [d.x[0][t], d.x[1][t]]) }
        #expect((0...2).map { a.coefficient($0) } == before)
        #expect(b.coefficient(1) != a.coefficient(1))
        for t in 80..<120 { a.update(y: d.y[t], regressors: [d.x[0][t], d.x[1][t]]) }
        #expect((0...2).allSatisfy { a.coefficient($0).bitPattern == b.coefficient($0).bitPattern })
    }

    @Test func shortInputsAreAllInvalid() {
        let d = randomDesign(rows: 9, k: 3, seed: 1)
        for m in 0...9 {
            let r = rollingRegression(Array(d.y[..<m]), regressors: d.x.map { Array($0[..<m]) }, window: 10)
            #expect(r.firstValidIndex == m)
            #expect(r.status.allSatisfy { $0 == .warmingUp })
            #expect(r.coefficients.allSatisfy { $0.count == m && $0.allSatisfy(\.isNaN) })
        }
    }

    /// 10⁶ rows with drifting price-level regressors: scattered windows against the naive fit.
    @Test func doesNotDriftOverAMillionRows() {
        let rows = 1_000_000, window = 60
        let d = randomDesign(rows: rows, k: 3, seed: 31_337, level: 100)
        let result = rollingRegression(d.y, regressors: d.x, window: window)
        var worst = 0.0
        for t in stride(from: window - 1, to: rows, by: 24_989) + [rows - 1] {
            let lo = t - window + 1
            let naive = NaiveWindowFit(y: d.y[lo...t], regressors: d.x.map { $0[lo...t] })!
            for j in 0...3 {
                worst = max(worst, relativeDifference(result.coefficients[j][t], naive.coefficients[j]))
                worst = max(worst, relativeDifference(result.standardErrors[j][t], naive.standardErrors[j]))
            }
            worst = max(worst, relativeDifference(result.rSquared[t], naive.rSquared))
        }
        #expect(worst < 1e-8, "worst relative difference \(worst)")
    }
}
