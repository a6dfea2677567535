import Foundation
import SentioCore

/// Net present value of dated flows at an annual rate.
///
/// `XNPV(r) = Σᵢ aᵢ (1 + r)^(−tᵢ)`, `tᵢ = dayCount.yearFraction(from: t₀, to: dᵢ)`, where `t₀` is the
/// earliest date of a non-zero amount (so input order does not matter). With `.actual365Fixed` this is
/// Excel's `XNPV` (Microsoft, "XNPV function") and pyxirr's `xnpv` whenever the earliest flow is not zero.
/// Zero amounts are ignored wherever they are dated: they add nothing and do not move `t₀` (so a zero row
/// dated centuries away cannot change the value); with every amount zero the XNPV is 0.
/// The terms are added with compensated (Neumaier) summation, so cancellation between large flows costs
/// no more than the rounding of the individual terms.
/// - Parameters:
///   - rate: annual rate as a decimal fraction, greater than −1.
///   - flows: dated amounts, negative = paid out.
///   - dayCount: the year-fraction convention (default Actual/365 Fixed).
/// - Returns: the NPV at `t₀` (±∞ when a discount factor overflows).
/// - Throws: `XIRRError.noFlows`, `.nonFiniteAmount`, `.rateOutOfDomain`.
public func xnpv(rate: Double, flows: [CashFlow], dayCount: DayCount = .actual365Fixed) throws(XIRRError) -> Double {
    guard !flows.isEmpty else { throw .noFlows }
    guard rate > -1, rate.isFinite else { throw .rateOutOfDomain(rate) }
    for (i, f) in flows.enumerated() where !f.amount.isFinite { throw .nonFiniteAmount(index: i, amount: f.amount) }
    guard let t0 = flows.lazy.filter({ $0.amount != 0 }).map(\.date).min() else { return 0 }
    var sum = CompensatedSum()
    let logGrowth = log1p(rate)
    for f in flows where f.amount != 0 {
        sum.add(f.amount * exp(-dayCount.yearFraction(from: t0, to: f.date) * logGrowth))
    }
    return sum.value
}

/// Compensated summation in Neumaier's form ("Rundungsfehleranalyse einiger Verfahren zur Summation
/// endlicher Summen", *ZAMM* 54, 1974), with Knuth's branch-free TwoSum for the rounding error of each
/// addition: the error of the total is about one rounding of the result plus `O(n·ε²)·Σ|terms|`, instead
/// of `O(n·ε)·Σ|terms|` for a plain loop.
struct CompensatedSum {
    private var sum = 0.0
    private var compensation = 0.0

    @inline(__always)
    mutating func add(_ term: Double) {
        // Knuth's branch-free TwoSum: `t + e` is exactly `sum + term`.
        let t = sum + term
        let back = t - sum
        compensation += (sum - (t - back)) + (term - back)
        sum = t
    }

    /// The compensated total (the plain sum once it is no longer finite).
    var value: Double { sum.isFinite ? sum + compensation : sum }
}

/// Internal rate of return of dated flows: the annual rate `r` with `XNPV(r) = 0`.
///
/// Solver: Newton–Raphson from `guess` with the analytic derivative
/// `XNPV′(r) = −Σᵢ tᵢ aᵢ (1 + r)^(−tᵢ−1)`, stepping in `L = log(1 + r)` (`ΔL = −XNPV / ((1+r)·XNPV′)`), so
/// that `1 + r` stays positive. The Newton result is accepted only if it is verified to be a root
/// (|NPV| ≤ 1e-9·Σ|aᵢ|(1+r)^(−tᵢ), or the NPV changes sign across it) and is then polished by one Newton step
/// with exactly computed discount factors. Otherwise — and, with `rootSearch: .full`, whenever the flows
/// change sign more than once in date order, unless the discounted running sum at Newton's root proves that
/// root unique (Laguerre's rule, see `XIRRKernel.isCertifiedUniqueRoot`) — rates from just above −100 %
/// upward are searched for sign
/// changes of the NPV: `L` from log(1e-9) to log(1e4) (r up to 999,900 %) is halved up to 12 times (cells
/// ≈ 0.73 % of `1 + r`); convexity bounds and duration bounds prune cells without roots and certify cells
/// with at most one (see `XIRRKernel.bracketRoots`); each bracketed sign change is solved by Brent's method
/// in `L` (Brent 1973, *Algorithms for Minimization without Derivatives*, ch. 4). When nothing is found, the
/// error gives the NPV's range over a fixed grid of 210 rates over the same span.
///
/// Root rule: with one sign change the root is unique (Descartes' rule of signs for generalized
/// polynomials in `x = 1/(1+r)`). With several, the root nearest `guess` is returned, as Excel's XIRR
/// returns the root reached from its guess, and the others are listed in `otherRoots`.
///
/// Certificate: every rate returned — the main one and each of `otherRoots` — is checked once more right
/// before it is returned, with one `exp` per flow and compensated summation: `|XNPV(r)|` plus a bound on
/// its evaluation error must be at most `1e-9 · Σ|aᵢ|` (the undiscounted total) — the *residual* certificate —
/// or, where the discounted flows are so large that their evaluation error alone exceeds that (rates far from
/// 0 % with flows decades apart), the XNPV evaluated with the same error bound must have *proven* opposite signs
/// at two rates around the reported one, at most `tolerance · max(1, |r|)` apart — the *sign-change* certificate:
/// a root lies between them (``XIRRResult/certificate`` says which held). A candidate that fails both is
/// not reported; when none passes, the call throws `rootNotCertified` (the NPV changes sign but no double
/// rate brings it provably close to a root) or `noRootFound`. Nothing returns NaN or an unchecked number.
///
/// Input rules: zero amounts are dropped before solving, wherever dated (they change neither `t₀` nor the
/// result, to the bit); the flows are sorted by date and then amount, so the order of the input (same-day
/// flows included) does not change any bit of the result.
///
/// - Parameters:
///   - flows: dated amounts in any order; at least one negative and one positive, on two dates or more.
///   - dayCount: year-fraction convention (default Actual/365 Fixed, as Excel and pyxirr).
///   - guess: Newton's start and the reference for choosing among roots (default 0.1).
///   - tolerance: convergence on the rate: `|Δr| ≤ tolerance · max(1, |r|)` (default 1e-12).
///   - maxIterations: cap on Newton and on each Brent solve (default 100).
///   - rootSearch: `.full` (default) or `.newtonFirst` (see `XIRRRootSearch`).
/// - Throws: `XIRRError` for each malformed input, `.noRootFound` with the NPV's range over the scan, and
///   `.rootNotCertified` when the NPV changes sign but no rate passes the certificate.
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
    /// Skip the scan when ``XIRRKernel/isCertifiedUniqueRoot(_:_:)`` proves Newton's root unique (tests turn
    /// it off to compare with the exhaustive scan).
    var certifyUniqueRoot = true

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

/// The grid of rates, ascending, from just above −100 % to 999,900 %, over which `noRootFound` reports
/// the NPV's range.
let xirrScanRates: [Double] = {
    var rates: [Double] = []
    // Geometric in the growth factor 1 + r: dense near r = −1, sparse far above.
    let points = 130
    let lo = log(1e-9), hi = log(1e4)
    for k in 1..<points { rates.append(exp(lo + (hi - lo) * Double(k) / Double(points)) - 1) }
    rates.append(1e-9 - 1)  // exact end points, for readable messages
    rates.append(9999)
    // A 5 % grid where practical rates lie.
    for k in -18...60 { rates.append(Double(k) / 20) }
    rates.sort()
    var unique: [Double] = []
    for r in rates where r > -1 && (unique.last.map { r - $0 > 1e-12 } ?? true) { unique.append(r) }
    return unique
}()

/// Reusable buffers for one series at a time: sorted year fractions, amounts, day gaps, discount factors and
/// found roots. One workspace per thread; after the first series of a given length, solving allocates
/// nothing (except `otherRoots` when there are several roots).
struct XIRRWorkspace {
    // Buffers only grow; the current series occupies the first `count` elements.
    var times: [Double] = []
    var amounts: [Double] = []
    var days: [Int] = []
    /// Day gaps between consecutive sorted flows (first 0), for Actual/365F and Actual/360.
    var gaps: [Int] = []
    var factors: [Double] = []
    var roots: [XIRRKernel.Root] = []
    var count = 0
    var daysPerYear = 0.0
    /// The power of two the amounts were divided by (see ``load(days:amounts:dayCount:)``).
    var amountScale = 1.0

    init(capacity: Int) {
        grow(to: capacity)
        roots.reserveCapacity(8)
    }

    private mutating func grow(to n: Int) {
        guard times.count < n else { return }
        let extra = n - times.count
        times.append(contentsOf: repeatElement(0, count: extra))
        amounts.append(contentsOf: repeatElement(0, count: extra))
        days.append(contentsOf: repeatElement(0, count: extra))
        gaps.append(contentsOf: repeatElement(0, count: extra))
        factors.append(contentsOf: repeatElement(0, count: extra))
    }

    /// Validates one series, fills the buffers sorted by date and solves.
    mutating func solve(
        days inputDays: UnsafeBufferPointer<Int>, amounts inputAmounts: UnsafeBufferPointer<Double>,
        settings: XIRRSettings
    ) throws(XIRRError) -> XIRRResult {
        try load(days: inputDays, amounts: inputAmounts, dayCount: settings.dayCount)
        guard settings.guess > -1, settings.guess.isFinite else { throw .rateOutOfDomain(settings.guess) }
        let n = count, perYear = daysPerYear
        roots.removeAll(keepingCapacity: true)
        return try times.withUnsafeBufferPointer { t throws(XIRRError) in
            try amounts.withUnsafeBufferPointer { a throws(XIRRError) in
                try gaps.withUnsafeBufferPointer { g throws(XIRRError) in
                    try factors.withUnsafeMutableBufferPointer { w throws(XIRRError) in
                        let series = XIRRKernel.Series(
                            times: UnsafeBufferPointer(rebasing: t[..<n]), amounts: UnsafeBufferPointer(rebasing: a[..<n]),
                            gaps: perYear > 0 ? UnsafeBufferPointer(rebasing: g[..<n]) : UnsafeBufferPointer(rebasing: g[..<0]),
                            daysPerYear: perYear, factors: UnsafeMutableBufferPointer(rebasing: w[..<n]),
                            amountScale: amountScale)
                        let signChanges = Self.signChanges(series.amounts)
                        return try XIRRKernel.solve(series, signChanges: signChanges, settings: settings, roots: &roots)
                    }
                }
            }
        }
    }

    /// Copies the non-zero flows of a series into the buffers, sorted by date and then amount, scaled by a
    /// power of two, and converts dates to year fractions from the earliest of them.
    ///
    /// - Zero amounts are dropped before anything else looks at the series: they are no terms of the XNPV,
    ///   wherever dated, so they can change neither `t₀` nor the year fractions nor the root search (a zero
    ///   row dated centuries away used to stretch the time axis until every factor underflowed).
    /// - Sorting by (day, amount) is a total order on the remaining flows: the buffers, and so every bit of
    ///   the result, do not depend on the order of the input rows (same-day flows included). Input that is
    ///   already in that order (the usual case) is copied in one pass; otherwise it is sorted.
    /// - Amounts are multiplied by `2^−e` (exact), `e` the binary exponent of the largest, so sums of many
    ///   huge amounts cannot overflow; the roots are unchanged. `amountScale` = `2^e` restores NPVs for
    ///   messages.
    mutating func load(
        days inputDays: UnsafeBufferPointer<Int>, amounts inputAmounts: UnsafeBufferPointer<Double>,
        dayCount: DayCount
    ) throws(XIRRError) {
        let inputCount = inputAmounts.count
        precondition(inputDays.count == inputCount)
        guard inputCount > 0 else { throw .noFlows }
        var anyPositive = false, anyNegative = false, nonZero = 0, largest = 0.0
        for i in 0..<inputCount {
            let a = inputAmounts[i]
            guard a.isFinite else { throw .nonFiniteAmount(index: i, amount: a) }
            if a > 0 { anyPositive = true } else if a < 0 { anyNegative = true }
            if a != 0 { nonZero += 1 }
            largest = max(largest, abs(a))
        }
        guard inputCount > 1 else { throw .singleFlow }
        guard anyPositive || anyNegative else { throw .allAmountsZero }
        guard anyPositive && anyNegative else { throw .allSameSign(positive: anyPositive) }
        grow(to: nonZero)
        count = nonZero
        let exponent = max(Int(largest.exponent), -1000)
        amountScale = Double(sign: .plus, exponent: exponent, significand: 1)
        let normalize = Double(sign: .plus, exponent: -exponent, significand: 1)
        var inOrder = true
        days.withUnsafeMutableBufferPointer { d in
            amounts.withUnsafeMutableBufferPointer { a in
                var j = 0
                for i in 0..<inputCount where inputAmounts[i] != 0 {
                    d[j] = inputDays[i]
                    a[j] = inputAmounts[i] * normalize
                    if j > 0 && (d[j - 1], a[j - 1]) > (d[j], a[j]) { inOrder = false }
                    j += 1
                }
            }
        }
        if !inOrder {
            // Cold path (rows out of date order): one allocation for the pairs.
            var pairs = (0..<nonZero).map { (days[$0], amounts[$0]) }
            pairs.sort { $0 < $1 }
            for (k, p) in pairs.enumerated() {
                days[k] = p.0
                amounts[k] = p.1
            }
        }
        let n = nonZero
        let first = days[0]
        guard days[n - 1] != first else { throw .allOnOneDate(CivilDate(daysSinceEpoch: first)) }
        switch dayCount {
        case .actual365Fixed, .actual360:
            let perYear: Double = dayCount == .actual365Fixed ? 365 : 360
            daysPerYear = perYear
            days.withUnsafeBufferPointer { d in
                times.withUnsafeMutableBufferPointer { t in
                    gaps.withUnsafeMutableBufferPointer { g in
                        var previous = first
                        for i in 0..<n {
                            t[i] = Double(d[i] - first) / perYear
                            g[i] = d[i] - previous
                            previous = d[i]
                        }
                    }
                }
            }
        default:
            daysPerYear = 0
            let start = CivilDate(daysSinceEpoch: first)
            for i in 0..<n { times[i] = dayCount.yearFraction(from: start, to: CivilDate(daysSinceEpoch: days[i])) }
        }
    }

    /// Sign changes of the non-zero amounts in date order: an upper bound on the number of roots.
    static func signChanges(_ amounts: UnsafeBufferPointer<Double>) -> Int {
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

/// The numeric kernels over one series in contiguous buffers.
enum XIRRKernel {
    typealias Root = (rate: Double, iterations: Int, method: XIRRMethod)

    /// Sorted year fractions `t` (t₀ = 0) and amounts `a`; optional day gaps for chained discount factors;
    /// a scratch buffer for the factors.
    struct Series {
        var times: UnsafeBufferPointer<Double>
        var amounts: UnsafeBufferPointer<Double>
        var gaps: UnsafeBufferPointer<Int>
        var daysPerYear: Double
        var factors: UnsafeMutableBufferPointer<Double>
        /// The amounts are the input's divided by this power of two (for messages only).
        var amountScale = 1.0
        var count: Int { amounts.count }
    }

    /// `e^(−gap·c)` per distinct day gap, direct-mapped on `gap mod 32`: monthly flows have four gaps (28 to
    /// 31 days), irregular ones a dozen or more, and each distinct gap costs one `exp` per evaluation. (The
    /// values are the same whichever slot holds them: a miss only recomputes the same expression.)
    struct GapFactorCache {
        static let slots = 32
        let gaps: UnsafeMutablePointer<Int>
        let values: UnsafeMutablePointer<Double>

        @inline(__always)
        func factor(gap: Int, rate c: Double) -> Double {
            let slot = gap & (Self.slots - 1)
            if gaps[slot] == gap { return values[slot] }
            let v = exp(-Double(gap) * c)
            gaps[slot] = gap
            values[slot] = v
            return v
        }
    }

    /// Fills `series.factors` with `wᵢ = e^(−tᵢL − m)`, `L = log(1+r)`, `m = max(0, −t_{n−1}L)` (so the
    /// largest factor is 1 and nothing overflows) and returns `m`.
    ///
    /// `exact`: one `exp` per flow. Otherwise, for day counts with a fixed year length, factors are chained
    /// from the largest one by multiplying per-gap factors `e^(∓gap·L/daysPerYear)` (one `exp` per distinct
    /// gap): the relative error grows by at most a few ulps per flow, far inside the margins of the root
    /// search and the tolerance of Newton's iterations. Final rates are polished with exact factors.
    @inline(__always)
    static func discountFactors(_ s: Series, logGrowth: Double, exact: Bool) -> Double {
        let t = s.times, w = s.factors, n = s.count
        let m = max(0, -t[n - 1] * logGrowth)
        if exact || s.gaps.isEmpty {
            for i in 0..<n { w[i] = exp(-t[i] * logGrowth - m) }
            return m
        }
        let c = logGrowth / s.daysPerYear
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: GapFactorCache.slots) { cachedGaps in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: GapFactorCache.slots) { cachedValues in
                // Gaps are never negative (flows are sorted by date), so −1 marks an empty slot.
                cachedGaps.initialize(repeating: -1)
                let cache = GapFactorCache(gaps: cachedGaps.baseAddress!, values: cachedValues.baseAddress!)
                var v = 1.0
                if logGrowth >= 0 {
                    // Factors decrease with time: start at t₀ (factor 1) and walk forward.
                    w[0] = 1
                    for i in 1..<n {
                        v *= cache.factor(gap: s.gaps[i], rate: c)
                        w[i] = v
                    }
                } else {
                    // Factors increase with time: start at the last flow (factor 1) and walk back.
                    w[n - 1] = 1
                    var i = n - 1
                    while i > 0 {
                        v *= cache.factor(gap: s.gaps[i], rate: -c)
                        w[i - 1] = v
                        i -= 1
                    }
                }
                return m
            }
        }
    }

    /// `Σ aᵢ (1+r)^(−tᵢ)`, its derivative in `r`, and `Σ |aᵢ| (1+r)^(−tᵢ)` (the scale of rounding errors).
    @inline(__always)
    static func npvAndDerivative(_ s: Series, rate: Double, exact: Bool) -> (npv: Double, derivative: Double, scale: Double) {
        let (f, slope, scale) = npvAndLogSlope(s, logGrowth: log1p(rate), exact: exact)
        return (f, slope / (1 + rate), scale)
    }

    /// The NPV at `L = log(1+r)`, its derivative in `L` (`−Σ tᵢ aᵢ e^(−tᵢL)`), and its scale.
    @inline(__always)
    static func npvAndLogSlope(_ s: Series, logGrowth: Double, exact: Bool) -> (npv: Double, slope: Double, scale: Double) {
        let m = discountFactors(s, logGrowth: logGrowth, exact: exact)
        let t = s.times, a = s.amounts, w = s.factors
        var f = 0.0, dfL = 0.0, scale = 0.0
        for i in 0..<s.count {
            let term = a[i] * w[i]
            f += term
            dfL -= t[i] * term
            scale += abs(term)
        }
        let grow = m == 0 ? 1 : exp(m)
        return (f * grow, dfL * grow, scale * grow)
    }

    /// The NPV divided by the positive factor `e^m` (same sign, same roots, finite everywhere on the
    /// search domain), and the NPV itself (possibly ±∞, for messages). Exact factors.
    static func scaledNPV(_ s: Series, rate: Double) -> (scaled: Double, npv: Double) {
        let m = discountFactors(s, logGrowth: log1p(rate), exact: true)
        var g = 0.0
        for i in 0..<s.count { g += s.amounts[i] * s.factors[i] }
        return (g, g * exp(m))
    }

    /// Whether `rate` is a root of the NPV to working precision (exact factors).
    static func isVerifiedRoot(_ rate: Double, _ s: Series) -> Bool {
        guard rate > -1, rate.isFinite else { return false }
        let (f, _, scale) = npvAndDerivative(s, rate: rate, exact: true)
        if f.isFinite && scale.isFinite && abs(f) <= 1e-9 * scale { return true }
        // A sign change across r·(1 ± 1e-9) in the growth factor 1 + r: near −100 % the rate itself cannot
        // be closer to the root than an ulp of 1, which is a large relative change of 1 + r.
        let logGrowth = log1p(rate), delta = 1e-9 * max(1, abs(logGrowth))
        let below = scaledNPV(s, rate: expm1(logGrowth + delta)).scaled
        let above = scaledNPV(s, rate: expm1(logGrowth - delta)).scaled
        return (below <= 0 && above >= 0) || (below >= 0 && above <= 0)
    }

    /// Newton–Raphson from `guess`, stepping in `L = log(1+r)`. Returns the rate when it converged to a
    /// verified root (then polished by one exact Newton step), the iterations spent, and whether the root is
    /// certified unique (see ``isCertifiedUniqueRoot(_:_:)``; only tested with `certify`).
    static func newton(
        _ s: Series, settings: XIRRSettings, certify: Bool
    ) -> (rate: Double?, iterations: Int, unique: Bool, certified: Bool) {
        // Newton in L = log(1+r): ΔL = −f / (df/dL). The NPV is a sum of exponentials in L, so steps are
        // better scaled than in r (fewer iterations at high rates), and 1 + r = e^L stays positive.
        var logGrowth = log1p(settings.guess), r = settings.guess
        for iteration in 1...settings.maxIterations {
            let (f, slope, _) = npvAndLogSlope(s, logGrowth: logGrowth, exact: false)
            guard f.isFinite, slope.isFinite, slope != 0 else { return (nil, iteration, false, false) }
            let nextLogGrowth = logGrowth - f / slope
            let next = expm1(nextLogGrowth)
            guard next.isFinite, next > -1 else { return (nil, iteration, false, false) }
            if abs(next - r) <= settings.tolerance * max(1, abs(next)) {
                let (polished, unique, certified) = polish(next, s, certify: certify)
                return (polished, iteration, unique, certified)
            }
            logGrowth = nextLogGrowth
            r = next
        }
        return (nil, settings.maxIterations, false, false)
    }

    /// Verifies a converged Newton iterate with exact factors and takes one last exact Newton step when it
    /// is a small correction; `nil` when the point is not a root. With `certify`, also tells whether the
    /// root is certified unique, from the exact factors already computed at `r` (no further `exp`).
    ///
    /// `certified`: whether the returned rate `ρ` passes the check of ``certify(_:_:)``, shown from the same
    /// pass at no extra cost per flow: with `wᵢ` the exact factors at `r` and `δ = log1p(ρ) − log1p(r)`,
    /// `XNPV(ρ) = e^m Σ aᵢwᵢ e^(−tᵢδ)` and `e^(−tᵢδ) = 1 − tᵢδ + ρᵢ`, `|ρᵢ| ≤ ½(tᵢδ)² e^(tᵢ|δ|)`, so
    /// `XNPV(ρ) = e^m (S₀ − δS₁ + R)` with `S₀ = Σ aᵢwᵢ` (the NPV's sum) and `S₁ = Σ tᵢaᵢwᵢ` (minus the
    /// slope's). The bound uses `D = Σ|aᵢwᵢ|` and `T = t_max`: each factor is within `ε(3 + 4T|L|)` of exact,
    /// each plain sum within `nε` of its terms' total (`D`, `T·D`), `δ` within `ε(2|L'| + 2|L| + |δ|)`, and
    /// `|R| ≤ ½δ²T²D e^(T|δ|)`. `false` only means "not shown here": the caller then runs the full check.
    static func polish(_ r: Double, _ s: Series, certify: Bool) -> (rate: Double?, unique: Bool, certified: Bool) {
        let logGrowth = log1p(r)
        let m = discountFactors(s, logGrowth: logGrowth, exact: true)
        let t = s.times, a = s.amounts, w = s.factors, n = s.count
        var f = 0.0, dfL = 0.0, scale = 0.0, total = 0.0
        for i in 0..<n {
            let term = a[i] * w[i]
            f += term
            dfL -= t[i] * term
            scale += abs(term)
            total += abs(a[i])
        }
        let grow = m == 0 ? 1 : exp(m)
        let npv = f * grow, derivative = dfL * grow / (1 + r), discounted = scale * grow
        guard npv.isFinite, discounted.isFinite else { return (isVerifiedRoot(r, s) ? r : nil, false, false) }
        guard abs(npv) <= 1e-9 * discounted else { return (isVerifiedRoot(r, s) ? r : nil, false, false) }
        let unique = certify && runningSumKeepsSign(s)
        let step = derivative != 0 ? npv / derivative : 0
        let polished = r - step
        let rate = abs(step) <= 1e-9 * (1 + abs(r)) && polished > -1 ? polished : r
        // The certificate of `rate` from the sums above (S₀ = f, S₁ = −dfL).
        let eps = Double.ulpOfOne, count = Double(n)
        let newLogGrowth = rate == r ? logGrowth : log1p(rate)
        let delta = newLogGrowth - logGrowth, d = abs(delta)
        let value = f + delta * dfL
        let tMax = t[n - 1], spread = tMax * abs(logGrowth)
        let deltaError = rate == r ? 0 : eps * (2 * abs(newLogGrowth) + 2 * abs(logGrowth) + d)
        var bound = eps * scale * (3 + 4 * spread + count)
        bound += d * eps * tMax * scale * (4 + 4 * spread + count) + deltaError * tMax * scale
        bound += eps * (abs(value) + abs(delta * dfL)) + 0.5 * d * d * tMax * tMax * scale * exp(min(tMax * d, 700))
        bound += count * Double.leastNonzeroMagnitude
        let certified = value.isFinite && bound.isFinite
            && (abs(value) + bound) * grow * (1 + 2 * eps) <= certifiedResidual * total
        return (rate, unique, certified)
    }

    /// Brent's method on `[lo, hi]` in `L = log(1+r)`, where the scaled NPV has values `flo`, `fhi` of
    /// opposite signs. Working in `L` keeps the relative precision of `1 + r` near −100 %, where an absolute
    /// tolerance on `r` would be far too coarse. Returns the rate `e^L − 1`.
    static func brent(
        _ s: Series, lo: Double, hi: Double, flo: Double, fhi: Double, settings: XIRRSettings
    ) -> (rate: Double, iterations: Int) {
        let (logRoot, iterations) = brentInLogGrowth(s, lo: lo, hi: hi, flo: flo, fhi: fhi, settings: settings)
        return (expm1(logRoot), iterations)
    }

    private static func brentInLogGrowth(
        _ s: Series, lo: Double, hi: Double, flo: Double, fhi: Double, settings: XIRRSettings
    ) -> (logGrowth: Double, iterations: Int) {
        var a = lo, b = hi, fa = flo, fb = fhi
        var c = a, fc = fa
        var d = b - a, e = d
        let cap = max(settings.maxIterations, 200)
        for iteration in 1...cap {
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
                let ratio = fb / fa
                var p: Double, q: Double
                if a == c {
                    p = 2 * xm * ratio
                    q = 1 - ratio
                } else {
                    let qq = fa / fc, r = fb / fc
                    p = ratio * (2 * xm * qq * (qq - r) - (b - a) * (r - 1))
                    q = (qq - 1) * (r - 1) * (ratio - 1)
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
            fb = scaledNPV(s, rate: expm1(b)).scaled
        }
        return (b, cap)
    }

    /// Discounted inflows `P(L) = Σ_{aᵢ>0} aᵢ e^(−tᵢL)` and outflows `N(L) = Σ_{aᵢ<0} |aᵢ| e^(−tᵢL)` at
    /// `L = log(1+r)`, with their first and second derivatives in `L`, all scaled by `e^(−scale)`.
    struct Evaluation {
        var logGrowth: Double
        var scale: Double
        var inflows: Double, outflows: Double
        var inflowsSlope: Double, outflowsSlope: Double
        var inflowsCurvature: Double, outflowsCurvature: Double
    }

    @inline(__always)
    static func evaluate(_ s: Series, logGrowth: Double) -> Evaluation {
        let m = discountFactors(s, logGrowth: logGrowth, exact: false)
        let t = s.times, a = s.amounts, w = s.factors
        var p = 0.0, n = 0.0, dp = 0.0, dn = 0.0, d2p = 0.0, d2n = 0.0
        for i in 0..<s.count {
            // Branch-free split by sign: the signs of PE flows alternate unpredictably.
            let term = a[i] * w[i]
            let inflow = max(term, 0), outflow = max(-term, 0)
            let ti = t[i]
            p += inflow
            n += outflow
            dp -= ti * inflow
            dn -= ti * outflow
            d2p += ti * ti * inflow
            d2n += ti * ti * outflow
        }
        return Evaluation(
            logGrowth: logGrowth, scale: m, inflows: p, outflows: n, inflowsSlope: dp, outflowsSlope: dn,
            inflowsCurvature: d2p, outflowsCurvature: d2n)
    }

    /// The search domain in `L = log(1+r)`: growth factors 1e-9 … 1e4 (r from −99.9999999 % to 999,900 %),
    /// cut into at most `2^searchDepth` cells (≈ 0.0073 wide in `L`, i.e. 0.73 % steps in 1 + r).
    static let searchLow = log(1e-9), searchHigh = log(1e4), searchDepth = 12

    /// Every root the branch-and-bound search brackets, appended to `roots`.
    ///
    /// The NPV is `f(L) = P(L) − N(L)` with `P`, `N` the discounted inflows and outflows: positive sums of
    /// exponentials, hence convex in `L`. On a cell `[L₀, L₁]` a convex function lies above its tangents and
    /// below its chord, so `tangent(P) − chord(N) ≤ f ≤ chord(P) − tangent(N)`: linear bounds. A cell whose
    /// lower bound is positive (or upper bound negative) at both ends has no root and is pruned. The same
    /// bounds on `f′ = V − U` (`U = −P′`, `V = −N′`, also positive convex sums) show where `f` is monotone,
    /// and so do the durations `−P′/P` and `−N′/N` (both decrease with `L`; when the inflows' smallest
    /// duration on the cell exceeds the outflows' largest, or the reverse, `log P − log N` is monotone):
    /// such a cell holds one root if its ends differ in sign (solved by Brent, or Newton's root if it
    /// lies there) and none otherwise. The remaining cells are halved down to the finest width, where a sign
    /// change is solved by Brent. Two roots closer than one finest cell, with no sign change between them,
    /// can be missed (as by any scan); Newton's root is always kept.
    static func bracketRoots(_ s: Series, settings: XIRRSettings, knownRoot: Double?, into roots: inout [Root]) {
        let lo = evaluate(s, logGrowth: searchLow)
        let hi = evaluate(s, logGrowth: searchHigh)
        if lo.inflows == lo.outflows { roots.append((expm1(searchLow), 0, .brent)) }
        search(s, lo, hi, depth: 0, knownRoot: knownRoot, settings: settings, into: &roots)
    }

    private static func search(
        _ s: Series, _ e0: Evaluation, _ e1: Evaluation, depth: Int, knownRoot: Double?, settings: XIRRSettings,
        into roots: inout [Root]
    ) {
        // Bring both ends to a common scale (factors ≤ 1: no overflow).
        let common = max(e0.scale, e1.scale)
        let s0 = e0.scale == common ? 1 : exp(e0.scale - common), s1 = e1.scale == common ? 1 : exp(e1.scale - common)
        let p0 = e0.inflows * s0, n0 = e0.outflows * s0, dp0 = e0.inflowsSlope * s0, dn0 = e0.outflowsSlope * s0
        let p1 = e1.inflows * s1, n1 = e1.outflows * s1, dp1 = e1.inflowsSlope * s1, dn1 = e1.outflowsSlope * s1
        let w = e1.logGrowth - e0.logGrowth
        let f0 = p0 - n0, f1 = p1 - n1
        // Pruning must survive rounding: demand a margin well above the sums' rounding error (a few ulps
        // per flow from the chained factors and the sums).
        let relativeMargin = max(1e-12, 16 * Double(s.count) * Double.ulpOfOne)
        let margin = relativeMargin * (p0 + n0 + p1 + n1)
        // f′ = v − u with u = −P′, v = −N′ positive and convex; u′ = −P″, v′ = −N″.
        let u0 = -dp0, v0 = -dn0, u1 = -dp1, v1 = -dn1
        let du0 = -e0.inflowsCurvature * s0, dv0 = -e0.outflowsCurvature * s0
        let du1 = -e1.inflowsCurvature * s1, dv1 = -e1.outflowsCurvature * s1
        let slopeMargin = relativeMargin * (u0 + v0 + u1 + v1)
        let slopeLower = max(min(v0 - u0, v0 + dv0 * w - u1), min(v1 - dv1 * w - u0, v1 - u1))
        let slopeUpper = min(max(v0 - u0, v1 - u0 - du0 * w), max(v0 - u1 + du1 * w, v1 - u1))
        // Durations: D_P = −P′/P and D_N = −N′/N are the discount-weighted mean times of the inflows and
        // the outflows; both decrease with L (their derivative is minus a variance). log P − log N has
        // derivative D_N − D_P, so if D_P(L₁) > D_N(L₀) it decreases across the whole cell (and increases
        // if D_N(L₁) > D_P(L₀)): f then has at most one root there. Ratios need no common scale.
        let durationMargin = relativeMargin * 4
        let inflowsEarliest = u1 / p1, outflowsLatest = v0 / n0, outflowsEarliest = v1 / n1, inflowsLatest = u0 / p0
        let logRatioMonotone = p0 > 0 && p1 > 0 && n0 > 0 && n1 > 0
            && (inflowsEarliest > outflowsLatest * (1 + durationMargin) + durationMargin
                || outflowsEarliest > inflowsLatest * (1 + durationMargin) + durationMargin)
        let monotone = logRatioMonotone || slopeLower > slopeMargin || slopeUpper < -slopeMargin
        let signChange = f0 != 0 && f1 != 0 && (f0 > 0) != (f1 > 0)
        if monotone || depth == searchDepth {
            if signChange {
                let r0 = expm1(e0.logGrowth), r1 = expm1(e1.logGrowth)
                if monotone, let knownRoot, knownRoot >= r0 && knownRoot <= r1 {
                    roots.append((knownRoot, 0, .newton))
                } else {
                    let g0 = scaledNPV(s, rate: r0).scaled, g1 = scaledNPV(s, rate: r1).scaled
                    if g0 != 0 && g1 != 0 && (g0 > 0) != (g1 > 0) {
                        let found = brent(s, lo: e0.logGrowth, hi: e1.logGrowth, flo: g0, fhi: g1, settings: settings)
                        roots.append((found.rate, found.iterations, .brent))
                    }
                }
            } else if f1 == 0 {
                roots.append((expm1(e1.logGrowth), 0, .brent))
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
        let mid = evaluate(s, logGrowth: 0.5 * (e0.logGrowth + e1.logGrowth))
        search(s, e0, mid, depth: depth + 1, knownRoot: knownRoot, settings: settings, into: &roots)
        search(s, mid, e1, depth: depth + 1, knownRoot: knownRoot, settings: settings, into: &roots)
    }

    /// Whether `rate`, a polished Newton root, is provably the only root, so the scan can be skipped.
    ///
    /// Laguerre's extension of Descartes' rule (G. J. O. Jameson, "Counting zeros of generalised
    /// polynomials", *Math. Gazette* 90, 2006): for `g(y) = Σ bᵢ y^λᵢ` with `λ₀ < λ₁ < …` real, the number
    /// of zeros in `0 < y < 1` is at most the number of sign changes of the partial sums `b₀, b₀+b₁, …`.
    /// With `x = 1/(1+r) = x*·y` and `bᵢ = aᵢ x*^tᵢ` (the flows discounted at the root `r*`), the zeros with
    /// `y < 1` are the roots above `r*`; reversing time (`y = x*/x`, exponents `−tᵢ`) gives the roots below
    /// `r*` from the partial sums taken from the last flow, which equal `NPV(r*) − Sₖ₋₁`. So if the discounted
    /// running total `Sₖ = Σ_{i≤k} bᵢ`, `k < n−1`, keeps one strict sign (the running NPV never crosses zero
    /// before the end), `r*` is the only root: no scan is needed and the full search would return the same.
    ///
    /// (Evaluated at a point `r` near the root rather than at the root itself, the forward sums bound the
    /// roots above `r` and the backward ones, `f(r) − Sₖ₋₁`, those below, by 0 + 1 or 1 + 0 depending on the
    /// sign of `f(r)`: still at most one root in all.)
    ///
    /// Rounding: `r*` is within `δL ≈ 2|f|/|f′|` (in `L = log(1+r)`) of the exact root, over which each `Sₖ`
    /// moves by at most `δL·Σ|bᵢ|tᵢ` (times `e^(t_max·δL)`); the sums must clear that and their own rounding
    /// error with a wide margin, and the slope may not vanish within `δL`. Otherwise this returns `false`
    /// and the caller scans.
    static func isCertifiedUniqueRoot(_ rate: Double, _ s: Series) -> Bool {
        guard rate > -1, rate.isFinite else { return false }
        _ = discountFactors(s, logGrowth: log1p(rate), exact: true)
        return runningSumKeepsSign(s)
    }

    /// The test of ``isCertifiedUniqueRoot(_:_:)`` on the factors in `s.factors` (exact, at a point near the
    /// root, scaled by any positive constant).
    static func runningSumKeepsSign(_ s: Series) -> Bool {
        let t = s.times, a = s.amounts, w = s.factors, n = s.count
        var f = 0.0, slope = 0.0, scale = 0.0, moment1 = 0.0, moment2 = 0.0
        for i in 0..<n {
            let term = a[i] * w[i], size = abs(term), ti = t[i]
            f += term
            slope -= ti * term
            scale += size
            moment1 += ti * size
            moment2 += ti * ti * size
        }
        guard f.isFinite, slope.isFinite, scale.isFinite, moment2.isFinite, scale > 0, slope != 0 else { return false }
        let distance = 2 * abs(f) / abs(slope)
        let spread = exp(min(t[n - 1] * distance, 1))
        // The slope keeps its sign within `distance` of r*, so the exact root is that close.
        guard 4 * distance * moment2 * spread < abs(slope) else { return false }
        let margin = 4 * distance * moment1 * spread + 64 * Double(n) * Double.ulpOfOne * scale
        var running = 0.0
        var sign = 0.0
        for i in 0..<(n - 1) {
            // Laguerre's rule orders terms by exponent: the year fractions must not decrease with the date
            // (true of every day count here; checked rather than assumed).
            guard t[i + 1] >= t[i] else { return false }
            running += a[i] * w[i]
            guard abs(running) > margin else { return false }
            let current: Double = running > 0 ? 1 : -1
            if sign == 0 {
                sign = current
            } else if current != sign {
                return false
            }
        }
        return true
    }

    /// The NPV's range over the scan grid (for the message of `noRootFound`; cold path).
    @inline(never)
    static func npvRange(_ s: Series) -> (minimum: Double, maximum: Double) {
        var npvMin = Double.infinity, npvMax = -Double.infinity
        for r in xirrScanRates {
            // Chained factors are precise enough for a message.
            let m = discountFactors(s, logGrowth: log1p(r), exact: false)
            var g = 0.0
            for i in 0..<s.count { g += s.amounts[i] * s.factors[i] }
            let npv = g * exp(m)
            if !npv.isNaN {
                npvMin = min(npvMin, npv)
                npvMax = max(npvMax, npv)
            }
        }
        return (npvMin, npvMax)
    }

    /// The relative residual a reported rate may leave: `|XNPV(r)| ≤ 1e-9 · Σ|aᵢ|`.
    static let certifiedResidual = 1e-9

    /// The outcome of ``certify(_:_:)``.
    struct Certificate {
        /// Whether `|XNPV(r)|` plus the bound on its evaluation error is at most `1e-9 · Σ|aᵢ|`, or (with
        /// `bracket`) a sign change of the XNPV is proven around `r`.
        var holds: Bool
        /// `|XNPV(r)| / Σ|aᵢ|` as evaluated (∞ when a discounted flow overflows).
        var relativeResidual: Double
        /// The bound on the evaluation error of `XNPV(r)`, over `Σ|aᵢ|` (∞ when a discounted flow overflows).
        var relativeErrorBound: Double
        /// `Σ|aᵢ|(1+r)^(−tᵢ) / Σ|aᵢ|`: how much larger the discounted flows are than the flows; the
        /// evaluation error grows with it.
        var relativeDiscountedSize: Double
        /// The proven sign change `(lower, upper)` when the sign-change certificate holds (see ``signChangeBracket(_:_:tolerance:)``).
        var bracket: (lower: Double, upper: Double)? = nil

        /// The public form of a certificate that holds.
        var kind: XIRRCertificate {
            if let bracket { return .signChange(lower: bracket.lower, upper: bracket.upper) }
            return .residual
        }

        static let failed = Certificate(holds: false, relativeResidual: .infinity, relativeErrorBound: .infinity, relativeDiscountedSize: .infinity)
    }

    /// The final check of every rate before it is returned: evaluates `XNPV(r) = Σ aᵢ (1+r)^(−tᵢ)` once more
    /// with one `exp` per flow (no chained factors, no rescaling) and compensated summation, bounds the
    /// evaluation error, and accepts `r` only if `|XNPV(r)| + error ≤ 1e-9 · Σ|aᵢ|`.
    ///
    /// The residual is measured against the undiscounted total `Σ|aᵢ|`, not against the discounted one:
    /// far from 0 % with flows decades apart the discounted terms can be many orders of magnitude larger than
    /// the flows and cancel, and a "root to working precision" of those terms can leave an NPV of a third of
    /// the flows (the failure this check exists for). Error bound: each term `aᵢ·e^(xᵢ)`, `xᵢ = −tᵢ·log1p(r)`,
    /// is within `ε(3 + 3|xᵢ|)` of exact, ε = 2⁻⁵² (the argument is off by at most `2ε|xᵢ|` — half an ulp
    /// for `tᵢ`, one for `log1p`, half for the product — which `exp` turns into a relative error; `exp`
    /// adds one ulp and the product with `aᵢ` half an ulp; rounded up for margin); Neumaier's sum adds
    /// `2ε|S| + 2nε²Σ|terms|`.
    static func certify(_ rate: Double, _ s: Series) -> Certificate {
        guard rate > -1, rate.isFinite else { return .failed }
        // The cheap form first (chained factors, a few `exp` per series); it only ever says "holds" with a
        // rigorous bound, so on failure the one-`exp`-per-flow evaluation decides.
        if !s.gaps.isEmpty, let quick = certifyChained(rate, s), quick.holds { return quick }
        return certifyExact(rate, s)
    }

    /// ``certify(_:_:)`` with the chained factors of ``discountFactors(_:logGrowth:exact:)`` (day counts
    /// with a fixed year length): `wᵢ = e^(−tᵢL − m)` is the product of `kᵢ` cached gap factors counted from
    /// the flow whose factor is 1, each within `ε(1.5 + 2|gap·L/days|)` of exact, so `wᵢ` is within
    /// `ε(3 + 2kᵢ + 3|tᵢL + m|)` relative. The XNPV is `e^m · Σ aᵢwᵢ`. `nil` when `e^m` overflows.
    static func certifyChained(_ rate: Double, _ s: Series) -> Certificate? {
        let logGrowth = log1p(rate)
        let m = discountFactors(s, logGrowth: logGrowth, exact: false)
        let t = s.times, a = s.amounts, w = s.factors, n = s.count
        let grow = exp(m)
        guard grow.isFinite else { return nil }
        var sum = CompensatedSum()
        var total = 0.0, discounted = 0.0, termErrors = 0.0
        let forward = logGrowth >= 0
        for i in 0..<n {
            let term = a[i] * w[i]
            let steps = Double(forward ? i : n - 1 - i)
            sum.add(term)
            total += abs(a[i])
            discounted += abs(term)
            termErrors += abs(term) * (3 + 2 * steps + 3 * abs(t[i] * logGrowth + m))
        }
        let scaled = sum.value
        guard scaled.isFinite, discounted.isFinite, total > 0 else { return nil }
        let eps = Double.ulpOfOne
        let bound = eps * (termErrors + 2 * abs(scaled)) + 2 * Double(n) * eps * eps * discounted
            + Double(n) * Double.leastNonzeroMagnitude
        // e^m: one ulp plus the argument's rounding.
        let growError = 1 + eps * (2 + 2 * abs(m))
        let npv = scaled * grow
        let holds = (abs(scaled) + bound) * grow * growError <= certifiedResidual * total
        let errorBound = ((abs(scaled) + bound) * grow * growError - abs(npv)) / total
        return Certificate(
            holds: holds, relativeResidual: abs(npv) / total, relativeErrorBound: errorBound,
            relativeDiscountedSize: discounted * grow / total)
    }

    /// ``certify(_:_:)`` with one `exp` per flow.
    static func certifyExact(_ rate: Double, _ s: Series) -> Certificate {
        guard let e = boundedNPV(rate, s) else { return .failed }
        let holds = abs(e.npv) + e.bound <= certifiedResidual * e.total
        return Certificate(
            holds: holds, relativeResidual: abs(e.npv) / e.total, relativeErrorBound: e.bound / e.total,
            relativeDiscountedSize: e.discounted / e.total)
    }

    /// `XNPV(rate)` with one `exp` per flow and compensated summation, and a rigorous bound on its evaluation
    /// error (the derivation is in ``certify(_:_:)``); `total` = `Σ|aᵢ|`, `discounted` = `Σ|aᵢ|(1+r)^(−tᵢ)`.
    /// `nil` when a discounted flow overflows.
    static func boundedNPV(_ rate: Double, _ s: Series) -> (npv: Double, bound: Double, total: Double, discounted: Double)? {
        let logGrowth = log1p(rate)
        let t = s.times, a = s.amounts, n = s.count
        var sum = CompensatedSum()
        var total = 0.0, discounted = 0.0, termErrors = 0.0
        for i in 0..<n {
            let x = -t[i] * logGrowth
            let term = a[i] * exp(x)
            sum.add(term)
            total += abs(a[i])
            discounted += abs(term)
            termErrors += abs(term) * (3 + 3 * abs(x))
        }
        let npv = sum.value
        guard npv.isFinite, discounted.isFinite, total > 0 else { return nil }
        let eps = Double.ulpOfOne
        // The last term: amounts that underflowed to subnormals when scaled (each off by at most one).
        let bound = eps * (termErrors + 2 * abs(npv)) + 2 * Double(n) * eps * eps * discounted
            + Double(n) * Double.leastNonzeroMagnitude
        return (npv, bound, total, discounted)
    }

    /// The sign-change certificate: the narrowest interval `[lower, upper]` around `rate`, of width at most
    /// `tolerance · max(1, |rate|)`, at whose ends the XNPV has *proven* opposite signs (`|XNPV| >` its evaluation
    /// error bound at both ends, ``boundedNPV(_:_:)``); by continuity of the XNPV on `r > −1` a root lies inside,
    /// within the solver's tolerance of `rate`. The ends are `rate` itself and `rate ± d·ulp(rate)` for
    /// `d = 1, 2, 4, …` (adjacent doubles first). `nil` when no such interval exists (cold path: only after the
    /// residual certificate failed; at most about 2·log₂(tolerance/ε) evaluations).
    static func signChangeBracket(_ rate: Double, _ s: Series, tolerance: Double) -> (lower: Double, upper: Double)? {
        func provenSign(_ r: Double) -> Int {
            guard r > -1, r.isFinite, let e = boundedNPV(r, s), abs(e.npv) > e.bound else { return 0 }
            return e.npv > 0 ? 1 : -1
        }
        let width = tolerance * max(1, abs(rate))
        let center = provenSign(rate)
        var distance = rate.ulp
        while distance <= width {
            let lower = rate - distance, upper = rate + distance
            let below = provenSign(lower), above = provenSign(upper)
            if center != 0 && below == -center { return (lower, rate) }
            if center != 0 && above == -center { return (rate, upper) }
            if center == 0 && below != 0 && above == -below && upper - lower <= width { return (lower, upper) }
            distance *= 2
        }
        return nil
    }

    /// The NPV at `rate` and its derivative in `L = log(1+r)`, with one `exp` per flow and compensated sums.
    static func accurateNPVAndLogSlope(_ rate: Double, _ s: Series) -> (npv: Double, slope: Double) {
        let logGrowth = log1p(rate)
        var f = CompensatedSum(), slope = CompensatedSum()
        for i in 0..<s.count {
            let term = s.amounts[i] * exp(-s.times[i] * logGrowth)
            f.add(term)
            slope.add(-s.times[i] * term)
        }
        return (f.value, slope.value)
    }

    /// A candidate root that fails ``certify(_:_:)`` may only be a few ulps off (the scan's Brent stops at
    /// `tolerance` in `L`, and the fast Newton iterations use chained factors): up to six Newton steps with
    /// the accurate evaluation, then the two doubles either side of the best iterate, keeping the rate of
    /// smallest |NPV|; when the best rate still fails the residual certificate, the sign-change certificate
    /// (``signChangeBracket(_:_:tolerance:)``) is tried around it. Returns the best rate and its certificate (cold
    /// path: only after a failed check).
    @inline(never)
    static func refineAndCertify(_ rate: Double, _ s: Series, tolerance: Double) -> (rate: Double, certificate: Certificate) {
        var best = rate, bestCertificate = certify(rate, s)
        var r = rate
        for _ in 0..<6 {
            let (f, slope) = accurateNPVAndLogSlope(r, s)
            guard f.isFinite, slope.isFinite, slope != 0 else { break }
            let next = expm1(log1p(r) - f / slope)
            guard next > -1, next.isFinite, next != r else { break }
            r = next
            let c = certify(r, s)
            if c.relativeResidual < bestCertificate.relativeResidual {
                best = r
                bestCertificate = c
            }
        }
        var below = best, above = best
        for _ in 0..<2 {
            below = below.nextDown
            above = above.nextUp
            for candidate in [below, above] where candidate > -1 {
                let c = certify(candidate, s)
                if c.holds && (!bestCertificate.holds || c.relativeResidual < bestCertificate.relativeResidual) {
                    best = candidate
                    bestCertificate = c
                }
            }
        }
        if !bestCertificate.holds, let bracket = signChangeBracket(best, s, tolerance: tolerance) {
            bestCertificate.holds = true
            bestCertificate.bracket = bracket
        }
        return (best, bestCertificate)
    }

    /// Solves one validated series; `roots` is a reusable buffer. Every rate returned (main and other
    /// roots) has passed ``certify(_:_:)``; candidates that fail it are dropped, and when none is left the
    /// error says why (`rootNotCertified` when the NPV does change sign, `noRootFound` otherwise).
    static func solve(
        _ s: Series, signChanges: Int, settings: XIRRSettings, roots: inout [Root]
    ) throws(XIRRError) -> XIRRResult {
        // Certifying uniqueness matters only when the full search would otherwise run.
        let certify = settings.certifyUniqueRoot && settings.rootSearch == .full && signChanges > 1
        var (newtonRate, newtonIterations, newtonRootIsUnique, newtonCertified) = newton(s, settings: settings, certify: certify)
        var newtonCertificate = XIRRCertificate.residual
        if let rate = newtonRate, !newtonCertified, !Self.certify(rate, s).holds {
            let refined = refineAndCertify(rate, s, tolerance: settings.tolerance)
            if refined.certificate.holds {
                newtonRate = refined.rate
                newtonCertificate = refined.certificate.kind
            } else {
                // Newton stopped at a point that is no root to the required accuracy: search instead.
                newtonRate = nil
                newtonRootIsUnique = false
            }
        }
        if let newtonRate, signChanges == 1 || settings.rootSearch == .newtonFirst || newtonRootIsUnique {
            return XIRRResult(
                rate: newtonRate, iterations: newtonIterations, method: .newton, otherRoots: [], certificate: newtonCertificate)
        }
        bracketRoots(s, settings: settings, knownRoot: newtonRate, into: &roots)
        // Ascending, one copy of each (Newton's if any); every candidate then faces the certificate below.
        var kept = 0
        if let newtonRate { roots.append((newtonRate, newtonIterations, .newton)) }
        roots.sort { $0.rate < $1.rate }
        kept = 0
        for k in roots.indices {
            if kept > 0 && abs(roots[k].rate - roots[kept - 1].rate) <= 1e-7 * (1 + abs(roots[k].rate)) {
                if roots[k].method == .newton { roots[kept - 1] = roots[k] }
                continue
            }
            roots[kept] = roots[k]
            kept += 1
        }
        roots.removeLast(roots.count - kept)
        // The final check: every rate reported must leave |XNPV| ≤ 1e-9·Σ|aᵢ| (Newton's already passed).
        let guess = settings.guess
        var rejected: (rate: Double, certificate: Certificate)? = nil
        // The certificate of each kept root, in step with `roots[0..<kept]`.
        var kinds: [XIRRCertificate] = []
        kept = 0
        for k in roots.indices {
            var certificate = Certificate(holds: true, relativeResidual: 0, relativeErrorBound: 0, relativeDiscountedSize: 0)
            var kind = newtonCertificate
            if roots[k].method != .newton {
                certificate = Self.certify(roots[k].rate, s)
                if !certificate.holds {
                    let refined = refineAndCertify(roots[k].rate, s, tolerance: settings.tolerance)
                    roots[k].rate = refined.rate
                    certificate = refined.certificate
                }
                kind = certificate.kind
            }
            if certificate.holds {
                roots[kept] = roots[k]
                kinds.append(kind)
                kept += 1
            } else if rejected.map({ abs(roots[k].rate - guess) < abs($0.rate - guess) }) ?? true {
                rejected = (roots[k].rate, certificate)
            }
        }
        roots.removeLast(roots.count - kept)
        guard !roots.isEmpty else {
            if let rejected {
                throw .rootNotCertified(
                    rate: rejected.rate, relativeResidual: rejected.certificate.relativeResidual,
                    relativeErrorBound: rejected.certificate.relativeErrorBound,
                    relativeDiscountedSize: rejected.certificate.relativeDiscountedSize)
            }
            let range = npvRange(s)
            throw .noRootFound(
                npvMinimum: range.minimum * s.amountScale, npvMaximum: range.maximum * s.amountScale,
                lowestRate: xirrScanRates[0], highestRate: xirrScanRates[xirrScanRates.count - 1])
        }
        var chosen = 0
        for k in roots.indices where abs(roots[k].rate - guess) < abs(roots[chosen].rate - guess) { chosen = k }
        let best = roots[chosen]
        var others: [Double] = []
        if roots.count > 1 {
            others.reserveCapacity(roots.count - 1)
            for k in roots.indices where k != chosen { others.append(roots[k].rate) }
        }
        let iterations = best.method == .newton ? newtonIterations : newtonIterations + best.iterations
        return XIRRResult(
            rate: best.rate, iterations: iterations, method: best.method, otherRoots: others, certificate: kinds[chosen])
    }
}
