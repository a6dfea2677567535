import SentioCore
import SentioIndicators
import SentioTestSupport
import Testing

/// `RollingRegression.forecast(regressors:)` (added for the signal model) against a direct dense computation:
/// `ŷ = x̃·β` with β by LAPACK least squares, `se = σ̂ √(x̃ᵀ(X̃ᵀX̃)⁻¹x̃)` with the inverse by LAPACK `dpotri`.
@Suite("Rolling regression forecast")
struct RegressionForecastTests {
    @Test func matchesDenseComputation() throws {
        var rng = SplitMix64(seed: 31)
        let window = 40, k = 3, rows = 300
        var regression = RollingRegression(window: window, regressorCount: k, reseedInterval: 17)
        var xs: [[Double]] = [], ys: [Double] = []
        for row in 0..<rows {
            // A level offset makes the raw X'X ill-conditioned; the centered state must not care.
            let x = (0..<k).map { j in 50 * Double(j) + rng.nextGaussian() }
            let y = 0.3 + 0.5 * x[0] - 0.2 * x[1] + rng.nextGaussian()
            xs.append(x)
            ys.append(y)
            let status = regression.update(y: y, regressors: x)
            let probe = (0..<k).map { j in 50 * Double(j) + 2 * rng.nextGaussian() }
            let (value, standardError) = regression.forecast(regressors: probe)
            guard row >= window - 1 else {
                #expect(status == .warmingUp && value.isNaN && standardError.isNaN)
                continue
            }
            #expect(status == .estimated)
            let lo = row - window + 1
            let design = Matrix(columns: [[Double](repeating: 1, count: window)] + (0..<k).map { j in (lo...row).map { xs[$0][j] } })
            let fit = try design.leastSquares(Array(ys[lo...row]))
            let inverse = try design.crossProduct().inversePositiveDefinite()
            let augmented = [1] + probe
            let expectedValue = zip(augmented, fit.coefficients).map(*).reduce(0, +)
            var quadratic = 0.0
            for i in 0...k { for j in 0...k { quadratic += augmented[i] * inverse[i, j] * augmented[j] } }
            let sigma = (fit.residualSumOfSquares / Double(window - k - 1)).squareRoot()
            expectClose(value, expectedValue, relative: 1e-9, "forecast at row \(row)")
            expectClose(standardError, sigma * quadratic.squareRoot(), relative: 1e-7, "standard error at row \(row)")
        }
    }
}
