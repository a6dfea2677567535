// Added by the signals work (issue 3): the point forecast of the latest window and its standard error,
// which the signal model needs and the rolling-regression API did not expose. Reads the state the
// latest `update` left behind (means, slopes, L⁻¹ of the centered co-moment Cholesky factor); no
// allocation, O(k²).

extension RollingRegression {
    /// The latest window's fitted value at regressors `x` and the standard error of that fitted value.
    ///
    /// With `x̃ = (1, x₁ … x_k)`: `ŷ = x̃·β̂` and `se(ŷ) = σ̂ √(x̃ᵀ(X'X)⁻¹x̃)`, the standard error of the
    /// estimated conditional mean (not of a new observation; for that add `σ̂²` under the root). In the
    /// centered form kept by the state, `x̃ᵀ(X'X)⁻¹x̃ = 1/W + (x − m_x)ᵀ Cₓₓ⁻¹ (x − m_x) =
    /// 1/W + ‖L⁻¹(x − m_x)‖²`, with `Cₓₓ = LLᵀ`. Same quantity as statsmodels
    /// `OLSResults.get_prediction(x̃).se_mean`.
    ///
    /// - Returns: `(value, standardError)`, both NaN unless ``status`` is `.estimated`.
    public func forecast(regressors x: UnsafeBufferPointer<Double>) -> (value: Double, standardError: Double) {
        precondition(x.count == regressorCount, "expected \(regressorCount) regressors, got \(x.count)")
        guard status == .estimated else { return (.nan, .nan) }
        return storage.withUnsafeBufferPointer { buffer in
            Self.withConstantRegressorCount(layout) { L in
                let s = buffer.baseAddress!
                let k = L.k
                var value = s[L.coefficients]
                var quadratic = 0.0
                for i in 0..<k {
                    value += s[L.coefficients + 1 + i] * x[i]
                    // (L⁻¹ (x − m))ᵢ; L⁻¹ is lower triangular, row-major k×k at `inverse` (row i contiguous).
                    let inverseRow = s + (L.inverse &+ i &* k), mean = s + L.mean
                    var v = 0.0
                    for l in 0..<(i &+ 1) { v += inverseRow[l] * (x[l] - mean[l]) }
                    quadratic += v * v
                }
                let standardError = s[L.residualSD] * (1 / Double(L.window) + quadratic).squareRoot()
                return (value, standardError)
            }
        }
    }

    /// Convenience for ``forecast(regressors:)-(UnsafeBufferPointer<Double>)`` with an array.
    public func forecast(regressors x: [Double]) -> (value: Double, standardError: Double) {
        x.withUnsafeBufferPointer { forecast(regressors: $0) }
    }
}
