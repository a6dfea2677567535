import Foundation
import SentioCore

/// Net present value of dated flows at an annual rate.
///
/// `XNPV(r) = Σᵢ aᵢ (1 + r)^(−tᵢ)`, `tᵢ = dayCount.yearFraction(from: t₀, to: dᵢ)`, where `t₀` is the
/// earliest date (so input order does not matter). With `.actual365Fixed` this is Excel's `XNPV`
/// (Microsoft, "XNPV function") and pyxirr's `xnpv`.
/// - Parameters:
///   - rate: annual rate as a decimal fraction, greater than −1.
///   - flows: dated amounts, negative = paid out.
///   - dayCount: the year-fraction convention (default Actual/365 Fixed).
/// - Returns: the NPV at `t₀`.
/// - Throws: `XIRRError.noFlows`, `.nonFiniteAmount`, `.rateOutOfDomain`.
public func xnpv(rate: Double, flows: [CashFlow], dayCount: DayCount = .actual365Fixed) throws(XIRRError) -> Double {
    guard !flows.isEmpty else { throw .noFlows }
    guard rate > -1, rate.isFinite else { throw .rateOutOfDomain(rate) }
    for (i, f) in flows.enumerated() where !f.amount.isFinite { throw .nonFiniteAmount(index: i, amount: f.amount) }
    let t0 = flows.map(\.date).min()!
    var sum = 0.0
    let logGrowth = log1p(rate)
    for f in flows {
        sum += f.amount * exp(-dayCount.yearFraction(from: t0, to: f.date) * logGrowth)
    }
    return sum
}

/// Internal rate of return of dated flows: the annual rate `r` with `XNPV(r) = 0`.
///
/// Solver: Newton–Raphson from `guess` with the analytic derivative
/// `XNPV′(r) = −Σᵢ tᵢ aᵢ (1 + r)^(−tᵢ−1)`, stepping in `L = log(1 + r)` (`ΔL = −XNPV / ((1+r)·XNPV′)`), so
/// that `1 + r` stays positive. The Newton result is accepted only if it is verified to be a root
/// (|NPV| ≤ 1e-9·Σ|aᵢ|(1+r)^(−tᵢ) at the last iterate, or the NPV changes sign across it). Otherwise — and, with `rootSearch: .full`, whenever the flows change sign more
/// than once in date order — rates from just above −100 % upward are scanned for sign changes of the NPV:
/// `L = log(1 + r)` from log(1e-9) to log(1e4) (r up to 999,900 %) is halved 12 times (cells ≈ 0.73 % of
/// `1 + r`), pruning every cell where convexity bounds on the discounted inflows and outflows show the NPV
/// keeps one sign (see `XIRRKernel.bracketRoots`); each bracketed sign change is solved by Brent's method (Brent 1973, *Algorithms for Minimization
/// without Derivatives*, ch. 4). When nothing is found, the error gives the NPV's range over a fixed grid
/// of 650 rates over the same span.
///
/// Root rule: with one sign change the root is unique (Descartes' rule of signs for generalized
/// polynomials in `x = 1/(1+r)`). With several, the root nearest `guess` is returned, as Excel's XIRR
/// returns the root reached from its guess, and the others are listed in `otherRoots`.
/// The returned rate is always a verified root; nothing returns NaN.
///
/// - Parameters:
///   - flows: dated amounts in any order; at least one negative and one positive, on two dates or more.
///   - dayCount: year-fraction convention (default Actual/365 Fixed, as Excel and pyxirr).
///   - guess: Newton's start and the reference for choosing among roots (default 0.1).
///   - tolerance: convergence on the rate: `|Δr| ≤ tolerance · max(1, |r|)` (default 1e-12).
///   - maxIterations: cap on Newton and on each Brent solve (default 100).
///   - rootSearch: `.full` (default) or `.newtonFirst` (see `XIRRRootSearch`).
/// - Throws: `XIRRError` for each malformed input, and `.noRootFound` with the NPV's range over the scan.
public func xirr(
    flows: [CashFlow], dayCount: DayCount = .actual365Fixed, guess: Double = 0.1, tolerance: Double = 1e-12,
    maxIterations: Int = 100, rootSearch: XIRRRootSearch = .full
) throws(XIRRError) -> XIRRResult {
    var workspace = XIRRWorkspace(capacity: flows.count)
    let days = flows.map(\.date.daysSinceEpoch)
    let amounts = flows.map(\.amount)
    let settings = XIRRSettings(
        dayCount: dayCount, guess: guess, tolerance: tolerance, maxIterations: maxIterations, rootSearch: rootSearch)
    return try days.withUnsafeBufferPointer { d throws(XIRRError) in
        try amounts.withUnsafeBufferPointer { a throws(XIRRError) in
            try workspace.solve(days: d, amounts: a, settings: settings)
        }
    }
}

/// Solver settings shared by the single-series and batch entry points.
struct XIRRSettings: Sendable {
    var dayCount: DayCount
    var guess: Double
    var tolerance: Double
    var maxIterations: Int
    var rootSearch: XIRRRootSearch

    init(dayCount: DayCount, guess: Double, tolerance: Double, maxIterations: Int, rootSearch: XIRRRootSearch) {
        precondition(tolerance > 0 && tolerance.isFinite, "tolerance must be positive")
        precondition(maxIterations > 0, "maxIterations must be positive")
        self.dayCount = dayCount
        self.guess = guess
        self.tolerance = tolerance
        self.maxIterations = maxIterations
        self.rootSearch = rootSearch
    }
}

/// The scan grid of rates, ascending, from just above −100 % to 999,900 %.
let xirrScanRates: [Double] = {
    var rates: [Double] = []
    // Geometric in the growth factor 1 + r: dense near r = −1, sparse far above.
    let points = 260
    let lo = log(1e-9), hi = log(1e4)
    for k in 1..<points { rates.append(exp(lo + (hi - lo) * Double(k) / Double(points)) - 1) }
    rates.append(1e-9 - 1)  // exact end points, for readable messages
    rates.append(9999)
    // A 1 % grid where practical roots lie, so that nearby roots (10 % and 20 %) are separated.
    for k in -90...300 { rates.append(Double(k) / 100) }
    rates.sort()
    var unique: [Double] = []
    for r in rates where r > -1 && (unique.last.map { r - $0 > 1e-12 } ?? true) { unique.append(r) }
    return unique
}()

/// Reusable buffers for one series at a time: sorted year fractions and amounts. One workspace per thread;
/// after the first series of a given length, solving allocates nothing (except `otherRoots` when roots
/// are several).
struct XIRRWorkspace {
    var times: [Double] = []
    var amounts: [Double] = []
    var days: [Int] = []

    init(capacity: Int) {
        times.reserveCapacity(capacity)
        amounts.reserveCapacity(capacity)
        days.reserveCapacity(capacity)
    }

    /// Validates one series, fills the buffers sorted by date and solves.
    mutating func solve(
        days inputDays: UnsafeBufferPointer<Int>, amounts inputAmounts: UnsafeBufferPointer<Double>,
        settings: XIRRSettings
    ) throws(XIRRError) -> XIRRResult {
        try load(days: inputDays, amounts: inputAmounts, dayCount: settings.dayCount)
        guard settings.guess > -1, settings.guess.isFinite else { throw .rateOutOfDomain(settings.guess) }
        let signChanges = Self.signChanges(amounts)
        return try times.withUnsafeBufferPointer { t throws(XIRRError) in
            try amounts.withUnsafeBufferPointer { a throws(XIRRError) in
                try XIRRKernel.solve(times: t, amounts: a, signChanges: signChanges, settings: settings)
            }
        }
    }

    /// Copies a series into the buffers sorted by date (insertion sort: series are short and usually
    /// already in order) and converts dates to year fractions from the earliest date.
    mutating func load(
        days inputDays: UnsafeBufferPointer<Int>, amounts inputAmounts: UnsafeBufferPointer<Double>,
        dayCount: DayCount
    ) throws(XIRRError) {
        let n = inputAmounts.count
        precondition(inputDays.count == n)
        guard n > 0 else { throw .noFlows }
        var anyPositive = false, anyNegative = false
        for i in 0..<n {
            let a = inputAmounts[i]
            guard a.isFinite else { throw .nonFiniteAmount(index: i, amount: a) }
            if a > 0 { anyPositive = true } else if a < 0 { anyNegative = true }
        }
        guard n > 1 else { throw .singleFlow }
        guard anyPositive || anyNegative else { throw .allAmountsZero }
        guard anyPositive && anyNegative else { throw .allSameSign(positive: anyPositive) }
        days.removeAll(keepingCapacity: true)
        amounts.removeAll(keepingCapacity: true)
        for i in 0..<n {
            let d = inputDays[i], a = inputAmounts[i]
            var j = days.count
            days.append(d)
            amounts.append(a)
            while j > 0 && days[j - 1] > d {
                days[j] = days[j - 1]
                amounts[j] = amounts[j - 1]
                j -= 1
            }
            days[j] = d
            amounts[j] = a
        }
        let first = days[0]
        guard days[n - 1] != first else { throw .allOnOneDate(CivilDate(daysSinceEpoch: first)) }
        times.removeAll(keepingCapacity: true)
        switch dayCount {
        case .actual365Fixed:
            for d in days { times.append(Double(d - first) / 365) }
        case .actual360:
            for d in days { times.append(Double(d - first) / 360) }
        default:
            let start = CivilDate(daysSinceEpoch: first)
            for d in days { times.append(dayCount.yearFraction(from: start, to: CivilDate(daysSinceEpoch: d))) }
        }
    }

    /// Sign changes of the non-zero amounts in date order: an upper bound on the number of roots.
    static func signChanges(_ amounts: [Double]) -> Int {
        var changes = 0
        var lastSign = 0.0
        for a in amounts where a != 0 {
            let s: Double = a > 0 ? 1 : -1
            if lastSign != 0 && s != lastSign { changes += 1 }
            lastSign = s
        }
        return changes
    }
}

/// The numeric kernels over contiguous buffers of year fractions `t` and amounts `a`.
enum XIRRKernel {
    /// `Σ aᵢ (1+r)^(−tᵢ)` and its derivative in `r`.
    @inline(__always)
    static func npvAndDerivative(
        rate: Double, times t: UnsafeBufferPointer<Double>, amounts a: UnsafeBufferPointer<Double>
    ) -> (npv: Double, derivative: Double, scale: Double) {
        let logGrowth = log1p(rate)
        var f = 0.0, df = 0.0, scale = 0.0
        for i in 0..<t.count {
            let term = a[i] * exp(-t[i] * logGrowth)
            f += term
            df -= t[i] * term
            scale += abs(term)
        }
        return (f, df / (1 + rate), scale)
    }

    /// The NPV divided by a positive factor `exp(M)` chosen so that no term overflows: same sign, same
    /// roots, finite everywhere on the scan. Also returns the unscaled NPV (possibly ±∞) for messages.
    static func scaledNPV(
        rate: Double, times t: UnsafeBufferPointer<Double>, amounts a: UnsafeBufferPointer<Double>
    ) -> (scaled: Double, npv: Double) {
        let logGrowth = log1p(rate)
        // Times are sorted ascending from 0, so the largest exponent −tᵢ·L is at t = 0 or t = tₙ.
        let m = max(0, -t[t.count - 1] * logGrowth)
        var g = 0.0
        for i in 0..<t.count { g += a[i] * exp(-t[i] * logGrowth - m) }
        return (g, g * exp(m))
    }

    /// Whether `rate` is a root of the NPV to working precision.
    static func isVerifiedRoot(
        _ rate: Double, times t: UnsafeBufferPointer<Double>, amounts a: UnsafeBufferPointer<Double>
    ) -> Bool {
        guard rate > -1, rate.isFinite else { return false }
        let (f, _, scale) = npvAndDerivative(rate: rate, times: t, amounts: a)
        if f.isFinite && scale.isFinite && abs(f) <= 1e-9 * scale { return true }
        let delta = 1e-9 * (1 + abs(rate))
        guard rate - delta > -1 else { return false }
        let below = scaledNPV(rate: rate - delta, times: t, amounts: a).scaled
        let above = scaledNPV(rate: rate + delta, times: t, amounts: a).scaled
        return (below <= 0 && above >= 0) || (below >= 0 && above <= 0)
    }

    /// Newton–Raphson from `guess`. Returns the rate and iterations when it converged to a verified root.
    static func newton(
        times t: UnsafeBufferPointer<Double>, amounts a: UnsafeBufferPointer<Double>, settings: XIRRSettings
    ) -> (rate: Double?, iterations: Int) {
        var r = settings.guess
        for iteration in 1...settings.maxIterations {
            let (f, df, scale) = npvAndDerivative(rate: r, times: t, amounts: a)
            guard f.isFinite, df.isFinite, df != 0 else { return (nil, iteration) }
            // Newton in L = log(1+r): ΔL = −f / (df/dL) with df/dL = (1+r)·df/dr. The NPV is a sum of
            // exponentials in L, so steps are better scaled than in r (fewer iterations at high rates), and
            // 1 + r = e^L stays positive without clamping.
            // r + (1+r)(e^ΔL − 1), not (1+r)e^ΔL − 1, which would lose r's low bits to the rounding of 1 + r.
            let next = r + (1 + r) * expm1(-f / (df * (1 + r)))
            guard next.isFinite, next > -1 else { return (nil, iteration) }
            if abs(next - r) <= settings.tolerance * max(1, abs(next)) {
                // Converged: the NPV at the last iterate is already negligible, or the sign check decides.
                if abs(f) <= 1e-9 * scale { return (next, iteration) }
                return (isVerifiedRoot(next, times: t, amounts: a) ? next : nil, iteration)
            }
            r = next
        }
        return (nil, settings.maxIterations)
    }

    /// Brent's method on `[lo, hi]` where the scaled NPV has values `flo`, `fhi` of opposite signs.
    static func brent(
        lo: Double, hi: Double, flo: Double, fhi: Double, times t: UnsafeBufferPointer<Double>,
        amounts amt: UnsafeBufferPointer<Double>, settings: XIRRSettings
    ) -> (rate: Double, iterations: Int) {
        var a = lo, b = hi, fa = flo, fb = fhi
        var c = a, fc = fa
        var d = b - a, e = d
        for iteration in 1...max(settings.maxIterations, 200) {
            if (fb > 0) == (fc > 0) {
                c = a; fc = fa; d = b - a; e = d
            }
            if abs(fc) < abs(fb) {
                a = b; b = c; c = a
                fa = fb; fb = fc; fc = fa
            }
            let tol1 = 2 * Double.ulpOfOne * abs(b) + 0.5 * settings.tolerance * max(1, abs(b))
            let xm = 0.5 * (c - b)
            if abs(xm) <= tol1 || fb == 0 { return (b, iteration) }
            if abs(e) >= tol1 && abs(fa) > abs(fb) {
                let s = fb / fa
                var p: Double, q: Double
                if a == c {
                    p = 2 * xm * s
                    q = 1 - s
                } else {
                    let qq = fa / fc, r = fb / fc
                    p = s * (2 * xm * qq * (qq - r) - (b - a) * (r - 1))
                    q = (qq - 1) * (r - 1) * (s - 1)
                }
                if p > 0 { q = -q }
                p = abs(p)
                if 2 * p < min(3 * xm * q - abs(tol1 * q), abs(e * q)) {
                    e = d; d = p / q
                } else {
                    d = xm; e = d
                }
            } else {
                d = xm; e = d
            }
            a = b; fa = fb
            b += abs(d) > tol1 ? d : (xm > 0 ? tol1 : -tol1)
            fb = scaledNPV(rate: b, times: t, amounts: amt).scaled
        }
        return (b, max(settings.maxIterations, 200))
    }

    /// Discounted inflows `P(L) = Σ_{aᵢ>0} aᵢ e^(−tᵢL)` and outflows `N(L) = Σ_{aᵢ<0} |aᵢ| e^(−tᵢL)` at
    /// `L = log(1+r)`, with their derivatives in `L`, all scaled by `e^(−scale)` so that nothing overflows.
    struct Evaluation {
        var logGrowth: Double
        var scale: Double
        var inflows: Double, outflows: Double
        var inflowsSlope: Double, outflowsSlope: Double
        var inflowsCurvature: Double, outflowsCurvature: Double
    }

    @inline(__always)
    static func evaluate(
        logGrowth: Double, times t: UnsafeBufferPointer<Double>, amounts a: UnsafeBufferPointer<Double>
    ) -> Evaluation {
        let m = max(0, -t[t.count - 1] * logGrowth)
        var p = 0.0, n = 0.0, dp = 0.0, dn = 0.0, d2p = 0.0, d2n = 0.0
        for i in 0..<t.count {
            let term = a[i] * exp(-t[i] * logGrowth - m)
            let slope = t[i] * term
            if term > 0 {
                p += term
                dp -= slope
                d2p += t[i] * slope
            } else {
                n -= term
                dn += slope
                d2n -= t[i] * slope
            }
        }
        return Evaluation(
            logGrowth: logGrowth, scale: m, inflows: p, outflows: n, inflowsSlope: dp, outflowsSlope: dn,
            inflowsCurvature: d2p, outflowsCurvature: d2n)
    }

    /// The search domain in `L = log(1+r)`: growth factors 1e-9 … 1e4 (r from −99.9999999 % to 999,900 %),
    /// cut into `2^searchDepth` cells (≈ 0.0073 wide in `L`, i.e. 0.73 % relative steps in 1 + r).
    static let searchLow = log(1e-9), searchHigh = log(1e4), searchDepth = 12

    /// Every root the branch-and-bound search brackets, each solved by Brent.
    ///
    /// The NPV is `f(L) = P(L) − N(L)` with `P`, `N` the discounted inflows and outflows: positive sums of
    /// exponentials, hence convex in `L`. On a cell `[L₀, L₁]` a convex function lies above its tangents and
    /// below its chord, so `tangent(P) − chord(N) ≤ f ≤ chord(P) − tangent(N)`: linear bounds. A cell whose
    /// lower bound is positive (or upper bound negative) at both ends has no root and is pruned. The same
    /// bounds on `f′ = V − U` (`U = −P′`, `V = −N′`, also positive convex sums) show where `f` is monotone:
    /// a monotone cell holds one root if its ends differ in sign (solved by Brent, or Newton's root if it
    /// lies there) and none otherwise. The remaining cells are halved down to the finest width, where a sign
    /// change is solved by Brent. Two roots closer than one finest cell, with no sign change between them,
    /// can be missed (as by any scan); Newton's root is always kept.
    static func bracketRoots(
        times t: UnsafeBufferPointer<Double>, amounts a: UnsafeBufferPointer<Double>, settings: XIRRSettings,
        knownRoot: Double?, into roots: inout [(rate: Double, iterations: Int)]
    ) {
        let lo = evaluate(logGrowth: searchLow, times: t, amounts: a)
        let hi = evaluate(logGrowth: searchHigh, times: t, amounts: a)
        if lo.inflows == lo.outflows { roots.append((expm1(searchLow), 0)) }
        search(lo, hi, depth: 0, knownRoot: knownRoot, times: t, amounts: a, settings: settings, into: &roots)
    }

    private static func search(
        _ e0: Evaluation, _ e1: Evaluation, depth: Int, knownRoot: Double?, times t: UnsafeBufferPointer<Double>,
        amounts a: UnsafeBufferPointer<Double>, settings: XIRRSettings, into roots: inout [(rate: Double, iterations: Int)]
    ) {
        // Bring both ends to a common scale (factors ≤ 1: no overflow).
        let common = max(e0.scale, e1.scale)
        let s0 = exp(e0.scale - common), s1 = exp(e1.scale - common)
        let p0 = e0.inflows * s0, n0 = e0.outflows * s0, dp0 = e0.inflowsSlope * s0, dn0 = e0.outflowsSlope * s0
        let p1 = e1.inflows * s1, n1 = e1.outflows * s1, dp1 = e1.inflowsSlope * s1, dn1 = e1.outflowsSlope * s1
        let w = e1.logGrowth - e0.logGrowth
        let f0 = p0 - n0, f1 = p1 - n1
        // Pruning must survive rounding: demand a margin well above the sums' rounding error.
        let margin = 1e-12 * (p0 + n0 + p1 + n1)
        // f′ = v − u with u = −P′, v = −N′ positive and convex; u′ = −P″, v′ = −N″.
        let u0 = -dp0, v0 = -dn0, u1 = -dp1, v1 = -dn1
        let du0 = -e0.inflowsCurvature * s0, dv0 = -e0.outflowsCurvature * s0
        let du1 = -e1.inflowsCurvature * s1, dv1 = -e1.outflowsCurvature * s1
        let slopeMargin = 1e-12 * (u0 + v0 + u1 + v1)
        let slopeLower = max(min(v0 - u0, v0 + dv0 * w - u1), min(v1 - dv1 * w - u0, v1 - u1))
        let slopeUpper = min(max(v0 - u0, v1 - u0 - du0 * w), max(v0 - u1 + du1 * w, v1 - u1))
        let monotone = slopeLower > slopeMargin || slopeUpper < -slopeMargin
        let signChange = f0 != 0 && f1 != 0 && (f0 > 0) != (f1 > 0)
        if monotone {
            if signChange {
                let r0 = expm1(e0.logGrowth), r1 = expm1(e1.logGrowth)
                if let knownRoot, knownRoot >= r0 && knownRoot <= r1 {
                    roots.append((knownRoot, 0))
                } else {
                    let g0 = scaledNPV(rate: r0, times: t, amounts: a).scaled
                    let g1 = scaledNPV(rate: r1, times: t, amounts: a).scaled
                    if g0 != 0 && g1 != 0 && (g0 > 0) != (g1 > 0) {
                        roots.append(brent(lo: r0, hi: r1, flo: g0, fhi: g1, times: t, amounts: a, settings: settings))
                    }
                }
            } else if f1 == 0 {
                roots.append((expm1(e1.logGrowth), 0))
            }
            return
        }
        if f0 > 0 && f1 > 0 {
            let lowerFromLeftTangent = min(f0, p0 + dp0 * w - n1)
            let lowerFromRightTangent = min(p1 - dp1 * w - n0, f1)
            if max(lowerFromLeftTangent, lowerFromRightTangent) > margin { return }
        } else if f0 < 0 && f1 < 0 {
            let upperFromLeftTangent = max(f0, p1 - n0 - dn0 * w)
            let upperFromRightTangent = max(p0 - n1 + dn1 * w, f1)
            if min(upperFromLeftTangent, upperFromRightTangent) < -margin { return }
        }
        if depth == searchDepth {
            if f1 == 0 {
                roots.append((expm1(e1.logGrowth), 0))
            } else if f0 != 0 && (f0 > 0) != (f1 > 0) {
                let r0 = expm1(e0.logGrowth), r1 = expm1(e1.logGrowth)
                let g0 = scaledNPV(rate: r0, times: t, amounts: a).scaled
                let g1 = scaledNPV(rate: r1, times: t, amounts: a).scaled
                if g0 != 0 && g1 != 0 && (g0 > 0) != (g1 > 0) {
                    roots.append(brent(lo: r0, hi: r1, flo: g0, fhi: g1, times: t, amounts: a, settings: settings))
                }
            }
            return
        }
        let mid = evaluate(logGrowth: 0.5 * (e0.logGrowth + e1.logGrowth), times: t, amounts: a)
        search(e0, mid, depth: depth + 1, knownRoot: knownRoot, times: t, amounts: a, settings: settings, into: &roots)
        search(mid, e1, depth: depth + 1, knownRoot: knownRoot, times: t, amounts: a, settings: settings, into: &roots)
    }

    /// The NPV's range over the scan grid (for the message of `noRootFound`; cold path).
    @inline(never)
    static func npvRange(
        times t: UnsafeBufferPointer<Double>, amounts a: UnsafeBufferPointer<Double>
    ) -> (minimum: Double, maximum: Double) {
        var npvMin = Double.infinity, npvMax = -Double.infinity
        for r in xirrScanRates {
            let npv = scaledNPV(rate: r, times: t, amounts: a).npv
            if !npv.isNaN {
                npvMin = min(npvMin, npv)
                npvMax = max(npvMax, npv)
            }
        }
        return (npvMin, npvMax)
    }

    static func solve(
        times t: UnsafeBufferPointer<Double>, amounts a: UnsafeBufferPointer<Double>, signChanges: Int,
        settings: XIRRSettings
    ) throws(XIRRError) -> XIRRResult {
        let (newtonRate, newtonIterations) = newton(times: t, amounts: a, settings: settings)
        if let newtonRate, signChanges == 1 || settings.rootSearch == .newtonFirst {
            return XIRRResult(rate: newtonRate, iterations: newtonIterations, method: .newton, otherRoots: [])
        }
        var bracketed: [(rate: Double, iterations: Int)] = []
        bracketRoots(times: t, amounts: a, settings: settings, knownRoot: newtonRate, into: &bracketed)
        var candidates: [(rate: Double, iterations: Int, method: XIRRMethod)] = bracketed
            .filter { isVerifiedRoot($0.rate, times: t, amounts: a) }
            .map { ($0.rate, $0.iterations, .brent) }
        if let newtonRate {
            // Newton's root replaces the scan's copy of the same root (same value to within the tolerance).
            let same = { (r: Double) in abs(r - newtonRate) <= 1e-7 * (1 + abs(r)) }
            candidates.removeAll { same($0.rate) }
            candidates.append((newtonRate, newtonIterations, .newton))
        }
        guard !candidates.isEmpty else {
            let range = npvRange(times: t, amounts: a)
            throw .noRootFound(
                npvMinimum: range.minimum, npvMaximum: range.maximum,
                lowestRate: xirrScanRates[0], highestRate: xirrScanRates[xirrScanRates.count - 1])
        }
        candidates.sort { $0.rate < $1.rate }
        let guess = settings.guess
        let chosen = candidates.indices.min { abs(candidates[$0].rate - guess) < abs(candidates[$1].rate - guess) }!
        let best = candidates[chosen]
        let others = candidates.enumerated().filter { $0.offset != chosen }.map(\.element.rate)
        let iterations = best.method == .brent ? newtonIterations + best.iterations : best.iterations
        return XIRRResult(rate: best.rate, iterations: iterations, method: best.method, otherRoots: others)
    }
}
