import SentioCore

/// Outcome of one rolling-regression window.
public enum RegressionWindowStatus: UInt8, Sendable, Equatable, Codable {
    /// Fewer than `window` rows seen: no estimate yet.
    case warmingUp
    /// The window was estimated; all outputs are defined.
    case estimated
    /// The window's design is rank-deficient or numerically singular (a regressor constant over
    /// the window, or regressors collinear): all outputs are NaN.
    case singular
    /// The window holds a NaN or infinite value: all outputs are NaN.
    case nonFiniteInput
    /// The window's finite values are so large that its means or co-moments exceed the largest double
    /// (e.g. a regressor of 1e200): all outputs are NaN. Callers report this as an error naming the row.
    case unrepresentable
}

/// Streaming ordinary least squares over a sliding window of `W` rows, with an intercept and
/// `k` regressors — the per-window estimates of statsmodels `RollingOLS(y, add_constant(X), window=W)`.
///
/// For the window's rows `(xᵣ, yᵣ)`, with `β = (b₀, b₁ … b_k)` (b₀ the intercept):
/// - coefficients `β̂ = argmin Σ (yᵣ − b₀ − xᵣ·b)²` (statsmodels `params`);
/// - residual variance `σ̂² = SSR/(W − k − 1)`, residual standard deviation `σ̂`
///   (`sqrt(mse_resid)`);
/// - standard errors `sqrt(σ̂² · [(X'X)⁻¹]ⱼⱼ)` (`bse`) and t-statistics `β̂ⱼ/seⱼ` (`tvalues`);
/// - centered `R² = 1 − SSR/Σ(yᵣ − ȳ)²` (`rsquared`).
///
/// **Conditioning.** The state keeps the window means `m` and the *centered* co-moment matrix
/// `C = Σ (zᵣ − m)(zᵣ − m)ᵀ` of `z = (x₁ … x_k, y)`, never the raw `X'X`: price-level
/// regressors (say 500 ± 20) would make `X'X` ill-conditioned by the level², while `C` only sees
/// the spread. Slopes solve `Cₓₓ b = Cₓᵧ` by a k×k Cholesky factorization `Cₓₓ = LLᵀ`;
/// `b₀ = m_y − m_x·b`, `SSR = C_yy − ‖L⁻¹Cₓᵧ‖²`, `[(X'X)⁻¹]` for the slopes is `Cₓₓ⁻¹` and for the
/// intercept `1/W + m_xᵀ Cₓₓ⁻¹ m_x`.
///
/// **Updates.** When the window is full each new row replaces the oldest by the rank-two Welford
/// update `m' = m + (z − o)/W`, `C' = C + (z − m')(z − m)ᵀ − (o − m')(o − m)ᵀ` (O(k²)), and every
/// `reseedInterval` updates (default `W`) the means and `C` are recomputed exactly from the
/// window's rows (two-pass; the centered cross-product in a fixed summation order, `DeterministicKernels`, so
/// the same bits on every CPU, where BLAS `dsyrk` summed in a CPU-dependent order), so rounding error never
/// accumulates over more than one interval. The window's rows live in a ring buffer allocated at
/// `init`; an update never allocates.
///
/// **Degenerate windows** are not an error for the whole series: the window's outputs are NaN
/// and its status is ``RegressionWindowStatus/singular`` when a regressor's centered sum of squares
/// `Cᵢᵢ ≤ 10⁻¹²·W·max xᵢ²` (the largest `xᵢ²` seen since the last re-seed: constant over the
/// window, up to rounding) or a Cholesky pivot falls
/// below `10⁻¹⁰` of its diagonal (collinear regressors). A window containing a non-finite value has
/// status ``RegressionWindowStatus/nonFiniteInput`` and NaN outputs; estimation resumes (with an
/// exact re-seed) once the value has left the window. A window whose `y` is constant has `R² = NaN`.
/// A window of finite values whose moments overflow has status ``RegressionWindowStatus/unrepresentable``.
///
/// **Accuracy of the rolling state.** Besides the periodic re-seed, every update adds to a rigorous
/// bound on the rounding error of the means and co-moments (per column: the drift of the mean and
/// the largest `|zᵢ|` since the last re-seed; O(k) flops), and re-seeds as soon as the bound could
/// exceed the tolerance. So the state always holds means within `1e-12·Σ|zᵢ|/W` and co-moments within
/// `1e-12·(√(Cᵢᵢ·Qⱼ) + √(Qᵢ·Cⱼⱼ))` of the exact window values (`Qᵢ = Σzᵢ²`: the change of `Cᵢⱼ`
/// under relative input perturbations of 1e-12), whatever large values have left the window; each
/// estimate is the exact OLS of such moments (Cholesky is backward stable). The bound assumes the
/// re-seed's cross-product errs by at most `W·u` relative (recursive summation of `W` products: `γ_W`), which certifies windows up to about
/// 1,800 rows; longer windows re-seed at every update once the bound is reached.
public struct RollingRegression: Sendable, Codable {
    /// Window length `W` (rows per estimate).
    public let window: Int
    /// Number of regressors `k`, not counting the intercept.
    public let regressorCount: Int
    /// Number of rank-two updates between exact re-seeds.
    public let reseedInterval: Int

    @usableFromInline let layout: Layout
    @usableFromInline var storage: [Double]
    @usableFromInline var nextSlot = 0
    @usableFromInline var rowCount = 0
    @usableFromInline var updatesSinceReseed = 0
    @usableFromInline var nonFiniteRows = 0
    @usableFromInline var needsReseed = true
    /// Status of the latest window.
    public private(set) var status: RegressionWindowStatus = .warmingUp

    /// Offsets of the state's arrays inside `storage` (one allocation for everything). Only `k`, `m` and `window`
    /// are stored: the offsets are computed (a few integer operations the optimizer folds), so copying the layout
    /// into a kernel's local costs three words, not a 25-word `memcpy` per update (measured with callgrind). The
    /// fixed-size arrays come first, the two window-sized ones last.
    @usableFromInline
    struct Layout: Sendable, Codable {
        let k: Int, m: Int, window: Int

        init(window: Int, k: Int) {
            self.k = k
            m = k + 1
            self.window = window
        }

        var mean: Int { 0 }
        var previousMean: Int { m }
        var comoments: Int { 2 &* m }
        var largest: Int { comoments &+ m &* m }
        var meanLow: Int { largest &+ m }
        var meanError: Int { meanLow &+ m }
        var reseedDrift: Int { meanError &+ m }
        var newRow: Int { reseedDrift &+ 1 }
        var oldRow: Int { newRow &+ m }
        var cholesky: Int { oldRow &+ m }
        var inverse: Int { cholesky &+ k &* k }
        var w: Int { inverse &+ k &* k }
        var slopes: Int { w &+ k }
        var coefficients: Int { slopes &+ k }
        var rSquared: Int { coefficients &+ m }
        var residualSD: Int { rSquared &+ 1 }
        var variance: Int { residualSD &+ 1 }
        var rows: Int { variance &+ 1 }
        var centered: Int { rows &+ window &* m }
        var total: Int { centered &+ window &* m }
    }

    /// - Parameters:
    ///   - window: rows per window `W`; must exceed `regressorCount + 1` (positive residual
    ///     degrees of freedom).
    ///   - regressorCount: number of regressors `k ≥ 0` (the intercept is added).
    ///   - reseedInterval: updates between exact re-computations (default `window`).
    public init(window: Int, regressorCount: Int, reseedInterval: Int? = nil) {
        precondition(regressorCount >= 0, "regressor count must be non-negative")
        precondition(window > regressorCount + 1, "window must exceed regressorCount + 1")
        let interval = reseedInterval ?? window
        precondition(interval >= 1, "reseed interval must be positive")
        self.window = window
        self.regressorCount = regressorCount
        self.reseedInterval = interval
        layout = Layout(window: window, k: regressorCount)
        storage = [Double](repeating: .nan, count: layout.total)
    }

    /// Rows consumed before the first estimate: `window − 1`.
    public var lookback: Int { window - 1 }

    /// Adds the row `(y, x₁ … x_k)`, dropping the oldest once `window` rows are held, and
    /// estimates the window: O(k²) for the update (amortized over re-seeds), O(k³) for the k×k
    /// solve, no allocation.
    ///
    /// - Returns: the window's status; read the estimates with ``coefficient(_:)`` etc.
    @discardableResult
    public mutating func update(y: Double, regressors x: UnsafeBufferPointer<Double>) -> RegressionWindowStatus {
        precondition(x.count == regressorCount, "expected \(regressorCount) regressors, got \(x.count)")
        let L = layout
        let slot = nextSlot
        let evicting = rowCount == window
        let (newFinite, oldFinite) = storage.withUnsafeMutableBufferPointer { buffer in
            Self.withConstantRegressorCount(L) { Self.storeRow(y: y, x: x, into: buffer.baseAddress!, $0, slot: slot, evicting: evicting) }
        }
        nextSlot = slot + 1 == window ? 0 : slot + 1
        if !evicting { rowCount += 1 }
        if !newFinite { nonFiniteRows += 1 }
        if evicting && !oldFinite { nonFiniteRows -= 1 }

        guard rowCount == window else {
            status = .warmingUp
            return status
        }
        let interval = reseedInterval
        var reseed = needsReseed || !evicting || updatesSinceReseed >= interval
        let invalid = nonFiniteRows > 0
        if !invalid && !reseed {
            updatesSinceReseed += 1
        } else if invalid {
            reseed = false
            needsReseed = true
        } else {
            needsReseed = false
            updatesSinceReseed = 0
        }
        let updates = updatesSinceReseed
        var reseeded = reseed
        let result: RegressionWindowStatus = storage.withUnsafeMutableBufferPointer { buffer in
            let s = buffer.baseAddress!
            if invalid {
                Self.fillOutputs(s, L, with: .nan)
                return .nonFiniteInput
            }
            if reseed {
                Self.reseed(s, L)
            } else {
                Self.withConstantRegressorCount(L) { Self.replaceOldestRow(s, $0) }
                if !Self.withConstantRegressorCount(L, { Self.withinTolerance(s, $0, updates: updates) }) {
                    Self.reseed(s, L)
                    reseeded = true
                }
            }
            // An update that passed `withinTolerance` has finite means and co-moments; after a re-seed, check.
            if reseeded {
                for i in 0..<L.m where !(s[L.mean + i].isFinite && s[L.comoments + i + i * L.m].isFinite) {
                    Self.fillOutputs(s, L, with: .nan)
                    return .unrepresentable
                }
            }
            return Self.withConstantRegressorCount(L) { Self.estimate(s, $0) }
        }
        if reseeded && !reseed { updatesSinceReseed = 0 }
        if result == .unrepresentable { needsReseed = true }
        status = result
        return result
    }

    /// Same as the `UnsafeBufferPointer` overload, for an array of the `k` regressor values.
    @discardableResult
    public mutating func update(y: Double, regressors: [Double]) -> RegressionWindowStatus {
        regressors.withUnsafeBufferPointer { update(y: y, regressors: $0) }
    }

    /// Coefficient `j` of the latest window: 0 is the intercept, `j ≥ 1` the slope of regressor `j`.
    /// NaN unless ``status`` is `.estimated`.
    public func coefficient(_ j: Int) -> Double {
        precondition(j >= 0 && j <= regressorCount, "coefficient index out of range")
        return status == .warmingUp ? .nan : storage[layout.coefficients + j]
    }
    /// Standard error of coefficient `j` (statsmodels `bse`), computed on demand from the window's factorization.
    public func standardError(_ j: Int) -> Double {
        precondition(j >= 0 && j <= regressorCount, "coefficient index out of range")
        guard status == .estimated else { return .nan }
        return storage.withUnsafeBufferPointer { Self.standardError($0.baseAddress!, layout, j) }
    }
    /// t-statistic of coefficient `j` (statsmodels `tvalues`).
    public func tStatistic(_ j: Int) -> Double {
        precondition(j >= 0 && j <= regressorCount, "coefficient index out of range")
        guard status == .estimated else { return .nan }
        return storage.withUnsafeBufferPointer { Self.standardErrorAndTStatistic($0.baseAddress!, layout, j).tStatistic }
    }
    /// Centered R² of the latest window (statsmodels `rsquared`).
    public var rSquared: Double { status == .warmingUp ? .nan : storage[layout.rSquared] }
    /// Residual standard deviation `sqrt(SSR/(W − k − 1))` (statsmodels `sqrt(mse_resid)`).
    public var residualStandardDeviation: Double { status == .warmingUp ? .nan : storage[layout.residualSD] }

    // MARK: - Kernels over the state's storage

    /// Runs `kernel` with a layout whose regressor count is a compile-time constant when it is the signal model's
    /// `k = 5` (the optimizer then unrolls the kernels' loops over `k` and `m`; callgrind: about 40 % fewer
    /// instructions per update), else with `L` itself. The same source and the same operations either way, so the
    /// results are bit-identical.
    @inline(__always)
    static func withConstantRegressorCount<R>(_ L: Layout, _ kernel: (Layout) -> R) -> R {
        if L.k == 5 { return kernel(Layout(window: L.window, k: 5)) }
        return kernel(L)
    }

    static func fillOutputs(_ s: UnsafeMutablePointer<Double>, _ L: Layout, with value: Double) {
        for j in 0..<L.m { s[L.coefficients + j] = value }
        s[L.rSquared] = value
        s[L.residualSD] = value
        s[L.variance] = value
    }

    /// Exact means (compensated sums) and centered co-moments from the window's rows: two passes, the fixed-order
    /// cross-product of `DeterministicKernels`.
    static func reseed(_ s: UnsafeMutablePointer<Double>, _ L: Layout) {
        let m = L.m, n = L.window
        let rows = s + L.rows, centered = s + L.centered
        let u = WindowArithmetic.unitRoundoff
        var drift = 0.0
        for i in 0..<m {
            var sum = 0.0, compensation = 0.0
            var largest = 0.0
            for r in 0..<n {
                let v = rows[r * m + i]
                let t = sum + v
                compensation += abs(sum) >= abs(v) ? (sum - t) + v : (v - t) + sum
                sum = t
                largest = max(largest, abs(v))
            }
            let mean = (sum + compensation) / Double(n)
            s[L.mean + i] = mean
            s[L.largest + i] = largest
            // Neumaier: |error of the sum| ≤ 2u·|Σ| + 2n·u²·Σ|z|; then the division's rounding.
            s[L.meanLow + i] = 0
            let meanError = 3 * u * abs(mean) + 2 * Double(n) * u * u * largest
            s[L.meanError + i] = meanError
            drift = max(drift, largest > 0 ? meanError / largest : 0)
        }
        s[L.reseedDrift] = drift
        for r in 0..<n {
            for i in 0..<m { centered[r * m + i] = rows[r * m + i] - s[L.mean + i] }
        }
        DeterministicKernels.sumOfOuterProducts(columnsOf: centered, dimension: m, count: n, into: s + L.comoments)
    }

    /// Copies the row `(x, y)` to `newRow` and into the window's ring at `slot` (the evicted row, if any, to
    /// `oldRow`); returns whether the new and the evicted row are finite.
    @inline(__always)
    static func storeRow(
        y: Double, x: UnsafeBufferPointer<Double>, into s: UnsafeMutablePointer<Double>, _ L: Layout, slot: Int, evicting: Bool
    ) -> (newFinite: Bool, oldFinite: Bool) {
        var newFinite = y.isFinite
        var oldFinite = true
        let row = s + L.rows + slot * L.m
        for i in 0..<L.k {
            s[L.newRow + i] = x[i]
            if !x[i].isFinite { newFinite = false }
        }
        s[L.newRow + L.k] = y
        for i in 0..<L.m {
            if evicting {
                s[L.oldRow + i] = row[i]
                if !row[i].isFinite { oldFinite = false }
            }
            row[i] = s[L.newRow + i]
        }
        return (newFinite, oldFinite)
    }

    /// Rank-two Welford replacement of the oldest row (`oldRow`) by the newest (`newRow`).
    @inline(__always)
    static func replaceOldestRow(_ s: UnsafeMutablePointer<Double>, _ L: Layout) {
        let m = L.m
        let z = s + L.newRow, o = s + L.oldRow
        let mean = s + L.mean, previous = s + L.previousMean, c = s + L.comoments
        let inverse = 1 / Double(L.window)
        for i in 0..<m {
            let oldMean = mean[i]
            previous[i] = oldMean
            let zi = z[i]
            let delta = zi - o[i]
            // The mean is kept as a double-double (mean + meanLow, TwoSum), so that its rounding does not
            // accumulate: the stored `mean` stays within u·|mean| + (the step errors) of the exact mean.
            let step = delta * inverse
            let high = oldMean + step
            let b = high - oldMean
            let low = s[L.meanLow + i] + ((oldMean - (high - b)) + (step - b))
            let renormalized = high + low
            s[L.meanLow + i] = low - (renormalized - high)
            mean[i] = renormalized
            s[L.largest + i] = max(s[L.largest + i], abs(zi))
        }
        for j in 0..<m {
            let zj = z[j] - previous[j], oj = o[j] - previous[j]
            for i in 0..<(j &+ 1) {
                c[i + j * m] += (z[i] - mean[i]) * zj - (o[i] - mean[i]) * oj
            }
        }
    }

    /// Whether the rounding-error bound of the means and co-moments after `updates` rank-two updates
    /// since the last re-seed is within the tolerance (see the type's "Accuracy" paragraph).
    ///
    /// With `aᵢ` the largest `|zᵢ|` since the re-seed (so every `|Δzᵢ| ≤ 2aᵢ`) and `k` updates: the means
    /// are kept as double-doubles, so the error of `mean + meanLow` grows per update by at most
    /// `u·(3|Δzᵢ|/W + u·|meanᵢ|) ≤ u·aᵢ·(6/W + u)`, and the stored `meanᵢ` is off by at most that plus
    /// `u·|meanᵢ|`: `δᵢ(k) ≤ Eᵢ + k·u·aᵢ·(6/W + u) + u·aᵢ` (`Eᵢ` the re-seed's bound). Every co-moment errs by
    /// at most `√(SᵢSⱼ)·K`, `Sᵢ = aᵢ²`, with `K = 4·D + 16k·u + 2W·u`: each update adds ≤ 16u·√(SᵢSⱼ) of
    /// rounding plus `|Δzᵢ|·δⱼ + δᵢ·|Δzⱼ|` from the means' errors, whose sum over the updates is at most
    /// `2aⱼ·Σδᵢ + …`, `Σδᵢ/aᵢ ≤ D = k·maxᵢ Eᵢ/aᵢ + k²·u·(3/W + u) + k·u`; the re-seed (the fixed-order cross-product) adds
    /// ≤ 2W·u. It is enough that `K·Sᵢ ≤ 2t·√(Cᵢᵢ·Qᵢ)` for every column (then by AM–GM
    /// `K·√(SᵢSⱼ) ≤ t·(√(CᵢᵢQⱼ) + √(QᵢCⱼⱼ))`), and `δᵢ·W ≤ t·√Qᵢ` for the means. O(k) flops, no
    /// per-update bookkeeping beyond `aᵢ`.
    @inline(__always)
    static func withinTolerance(_ s: UnsafeMutablePointer<Double>, _ L: Layout, updates: Int) -> Bool {
        let m = L.m
        let u = WindowArithmetic.unitRoundoff, t = WindowArithmetic.checkTolerance
        let n = Double(L.window)
        let updateCount = Double(updates)
        let stepGrowth = u * (6 / n + u)
        let drift = updateCount * s[L.reseedDrift] + updateCount * updateCount * u * (3 / n + u) + updateCount * u
        let k = 4 * drift + u * (16 * updateCount + 2 * n)
        let meanGrowth = updateCount * stepGrowth + u
        let twoT = 2 * t, tSquaredOverNSquared = t * t / (n * n)
        for i in 0..<m {
            let a = s[L.largest + i]
            if a == 0 { continue }  // the column is all zeros since the re-seed: exact
            let c = s[L.comoments + i + i * m]
            let meanError = s[L.meanError + i] + meanGrowth * a
            // Fast sufficient test with Cᵢᵢ ≤ √(CᵢᵢQᵢ) and Cᵢᵢ ≤ Qᵢ (most columns, most updates).
            if c < .infinity, a >= 0x1p-200, k * (a * a) <= twoT * c, meanError * meanError <= tSquaredOverNSquared * c {
                continue
            }
            let mean = s[L.mean + i]
            let sumOfSquares = c + n * mean * mean
            guard sumOfSquares < .infinity else { return false }  // overflow (or NaN): re-seed and report
            let square = a * a
            if a <= 0x1p200 && a >= 0x1p-200 {
                let lhs = k * square
                guard lhs * lhs <= 4 * t * t * c * sumOfSquares,
                      meanError * meanError * n * n <= t * t * sumOfSquares else { return false }
            } else {
                guard k * square <= 2 * t * c.squareRoot() * sumOfSquares.squareRoot(),
                      meanError * n <= t * sumOfSquares.squareRoot() else { return false }
            }
        }
        return true
    }

    /// Relative threshold under which a regressor counts as constant over the window.
    static let constantColumnTolerance = 1e-12
    /// Relative Cholesky pivot threshold under which regressors count as collinear.
    static let pivotTolerance = 1e-10

    /// Solves the window from means and centered co-moments; writes the coefficients, `L⁻¹`, R², the residual
    /// variance and standard deviation. The coefficients' standard errors and t-statistics, which the forecast does
    /// not need, are derived from these on demand (``standardErrorAndTStatistic(_:_:_:)``).
    @inline(__always)
    static func estimate(_ s: UnsafeMutablePointer<Double>, _ L: Layout) -> RegressionWindowStatus {
        let k = L.k, m = L.m
        let n = Double(L.window)
        let c = s + L.comoments, mean = s + L.mean, largest = s + L.largest
        // `chol` and `inv` are row-major k×k lower triangles (row i at `i·k`), so the inner products below run
        // along contiguous rows. Index arithmetic wraps (`&+`, `&*`): indices are below k², no overflow checks.
        let chol = s + L.cholesky, inv = s + L.inverse, w = s + L.w, b = s + L.slopes
        for i in 0..<k where !(c[i &+ i &* m] > constantColumnTolerance * n * (largest[i] * largest[i])) {
            fillOutputs(s, L, with: .nan)
            return .singular
        }
        // Cholesky Cₓₓ = L Lᵀ; C (column-major m×m) holds Cₓₓ[j, i] at `j + i·m`, j ≤ i.
        for j in 0..<k {
            let rowJ = chol + j &* k
            let pivot = c[j &+ j &* m]
            var d = pivot
            for l in 0..<j { d -= rowJ[l] * rowJ[l] }
            guard d > pivotTolerance * pivot else {
                fillOutputs(s, L, with: .nan)
                return .singular
            }
            // The diagonal of `chol` stores 1/Lⱼⱼ: one division per pivot, multiplications after.
            let reciprocal = 1 / d.squareRoot()
            rowJ[j] = reciprocal
            var i = j &+ 1
            while i < k {
                let rowI = chol + i &* k
                var v = c[j &+ i &* m]
                for l in 0..<j { v -= rowI[l] * rowJ[l] }
                rowI[j] = v * reciprocal
                i &+= 1
            }
        }
        // w = L⁻¹ Cₓᵧ, slopes b = L⁻ᵀ w, SSR = C_yy − ‖w‖².
        var explained = 0.0
        let cy = c + k &* m
        for i in 0..<k {
            let rowI = chol + i &* k
            var v = cy[i]
            for l in 0..<i { v -= rowI[l] * w[l] }
            w[i] = v * rowI[i]
            explained += w[i] * w[i]
        }
        var row = k &- 1
        while row >= 0 {
            var v = w[row]
            var l = row &+ 1
            while l < k {
                v -= chol[l &* k &+ row] * b[l]
                l &+= 1
            }
            b[row] = v * chol[row &* k &+ row]
            row &-= 1
        }
        let totalSS = cy[k]
        let ssr = max(0, totalSS - explained)
        // L⁻¹ (lower; its diagonal is the stored reciprocals): diag(Cₓₓ⁻¹)ᵢ = Σ_{r ≥ i} (L⁻¹)ᵣᵢ², and m_xᵀ Cₓₓ⁻¹ m_x = ‖L⁻¹ m_x‖².
        for j in 0..<k {
            var i = j
            while i < k {
                let rowI = chol + i &* k
                var v = i == j ? 1.0 : 0.0
                var l = j
                while l < i {
                    v -= rowI[l] * inv[l &* k &+ j]
                    l &+= 1
                }
                inv[i &* k &+ j] = v * rowI[i]
                i &+= 1
            }
        }
        var intercept = mean[k]
        for i in 0..<k { intercept -= b[i] * mean[i] }
        let variance = ssr / Double(L.window - k - 1)
        s[L.coefficients] = intercept
        for i in 0..<k { s[L.coefficients + 1 + i] = b[i] }
        s[L.rSquared] = 1 - ssr / totalSS
        s[L.variance] = variance
        s[L.residualSD] = variance.squareRoot()
        return .estimated
    }

    /// Standard error of coefficient `j` of an estimated window: `sqrt(σ̂² · (1/W + ‖L⁻¹ m_x‖²))` for the
    /// intercept, `sqrt(σ̂² · Σ_{r ≥ i} (L⁻¹)ᵣᵢ²)` for slope `i = j − 1` (the diagonal of `Cₓₓ⁻¹`).
    static func standardError(_ s: UnsafePointer<Double>, _ L: Layout, _ j: Int) -> Double {
        let k = L.k
        let inv = s + L.inverse, mean = s + L.mean
        let variance = s[L.variance]
        if j == 0 {
            var meanQuadratic = 0.0
            for i in 0..<k {
                var v = 0.0
                for l in 0..<(i + 1) { v += inv[i * k + l] * mean[l] }
                meanQuadratic += v * v
            }
            return (variance * (1 / Double(L.window) + meanQuadratic)).squareRoot()
        }
        let i = j - 1
        var diagonal = 0.0
        for r in i..<k { diagonal += inv[r * k + i] * inv[r * k + i] }
        return (variance * diagonal).squareRoot()
    }

    /// Standard error and t-statistic `β̂ⱼ / seⱼ` of coefficient `j` of an estimated window.
    static func standardErrorAndTStatistic(_ s: UnsafePointer<Double>, _ L: Layout, _ j: Int) -> (standardError: Double, tStatistic: Double) {
        let standardError = standardError(s, L, j)
        return (standardError, s[L.coefficients + j] / standardError)
    }
}
