import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioFunds

// Issue 11, class 1: XIRR must never report a non-root. Properties over seeded random series that include
// the shapes that broke it: zero amounts dated centuries away, huge and tiny amounts, many sign changes,
// dates far apart and same-day flows.

/// An adversarial random series: 2 to 40 flows (sometimes 200), dates from a few days to centuries apart,
/// same-day flows, amounts from 1e-300 to 1e300 or ordinary money, sign patterns from one change to
/// alternating, and (in some series) zero amounts anywhere, including centuries away.
func adversarialSeries(_ rng: inout SplitMix64) -> [CashFlow] {
    let n = Int.random(in: 0..<20, using: &rng) == 0 ? 200 : Int.random(in: 2...40, using: &rng)
    let dateStyle = Int.random(in: 0..<4, using: &rng)
    let amountStyle = Int.random(in: 0..<4, using: &rng)
    let signStyle = Int.random(in: 0..<3, using: &rng)
    var day = CivilDate(year: Int.random(in: 1800...2100, using: &rng), month: 1, day: 1)!.daysSinceEpoch
        + Int.random(in: 0..<365, using: &rng)
    var f: [CashFlow] = []
    for i in 0..<n {
        if i > 0 {
            switch dateStyle {
            case 0: day += Int.random(in: 20...40, using: &rng)  // monthly
            case 1: day += Int.random(in: 0...3, using: &rng)  // many same-day flows
            case 2: day += Int.random(in: 0..<8, using: &rng) == 0 ? Int.random(in: 3650...60_000, using: &rng) : Int.random(in: 0...400, using: &rng)
            default: day += Int.random(in: 0...2000, using: &rng)
            }
        }
        let magnitude: Double
        switch amountStyle {
        case 0: magnitude = Double(Int.random(in: 1...100_000_000, using: &rng)) / 100
        case 1: magnitude = pow(10, Double.random(in: -300...300, using: &rng))  // huge and tiny mixed
        case 2: magnitude = pow(10, Double.random(in: -3...12, using: &rng))
        default: magnitude = Double(Int.random(in: 1...9, using: &rng))  // small integers: exact cancellations
        }
        let negative: Bool
        switch signStyle {
        case 0: negative = i < max(1, n / 3)  // calls first, then distributions
        case 1: negative = i % 2 == 0  // alternating
        default: negative = Bool.random(using: &rng)
        }
        f.append(CashFlow(date: CivilDate(daysSinceEpoch: day), amount: negative ? -magnitude : magnitude))
    }
    if Int.random(in: 0..<3, using: &rng) == 0 { f = withZeroFlows(f, &rng) }
    return f
}

/// `f` with one to four zero amounts inserted at random positions, dated anywhere from year 1 to year 9999
/// (or on an existing flow's date).
func withZeroFlows(_ f: [CashFlow], _ rng: inout SplitMix64) -> [CashFlow] {
    var out = f
    let lowest = CivilDate(year: 1, month: 1, day: 1)!.daysSinceEpoch
    let highest = CivilDate(year: 9999, month: 12, day: 31)!.daysSinceEpoch
    for _ in 0..<Int.random(in: 1...4, using: &rng) {
        let day: Int
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: day = Int.random(in: lowest...highest, using: &rng)
        case 1: day = f.map(\.date.daysSinceEpoch).max()! + Int.random(in: 36_500...200_000, using: &rng)  // centuries later
        case 2: day = f.map(\.date.daysSinceEpoch).min()! - Int.random(in: 36_500...200_000, using: &rng)  // centuries earlier
        default: day = f[Int.random(in: 0..<f.count, using: &rng)].date.daysSinceEpoch
        }
        let zero = CashFlow(date: CivilDate(daysSinceEpoch: min(max(day, lowest), highest)), amount: Bool.random(using: &rng) ? 0 : -0.0)
        out.insert(zero, at: Int.random(in: 0...out.count, using: &rng))
    }
    return out
}

/// `|XNPV(rate)| / Σ|aᵢ|` and a bound on the error of that evaluation, computed independently of the code under
/// test: in 80-bit extended precision where available (x86), with `pow` of the growth factor and a
/// compensated sum, `t₀` the earliest non-zero flow.
func independentRelativeResidual(_ rate: Double, _ f: [CashFlow]) -> (residual: Double, error: Double) {
    let (signed, error) = independentSignedRelativeXNPV(rate, f)
    return (abs(signed), error)
}

/// The sign of XNPV(rate) by the Float80 evaluation of ``independentSignedRelativeXNPV(_:_:)`` when its error bound
/// can tell it, else 0.
func independentSign(_ rate: Double, _ f: [CashFlow]) -> Int {
    let (signed, error) = independentSignedRelativeXNPV(rate, f)
    guard signed.isFinite, abs(signed) > error else { return 0 }
    return signed > 0 ? 1 : -1
}

/// Whether a root of the XNPV provably lies within the sign-change certificate's largest bracket around `rate`
/// (`rate ± 1e-12·max(1, |rate|)`), by the independent Float80 evaluation: `true` for proven opposite signs at
/// both ends, `false` for proven equal signs, `nil` when the evaluation cannot tell.
func independentSignChangeAround(_ rate: Double, _ f: [CashFlow]) -> Bool? {
    let width = 1e-12 * max(1, abs(rate))
    let below = independentSign(rate - width, f), above = independentSign(rate + width, f)
    guard below != 0 && above != 0 else { return nil }
    return below == -above
}

/// `XNPV(rate) / Σ|flows|` with its sign, and a bound on the error of that value, in 80-bit arithmetic.
func independentSignedRelativeXNPV(_ rate: Double, _ f: [CashFlow]) -> (value: Double, error: Double) {
    let nonZero = f.filter { $0.amount != 0 }
    let t0 = nonZero.map(\.date).min()!
    let biggest = nonZero.map { abs($0.amount) }.max()!
    #if arch(x86_64) && !os(Windows)
    typealias Wide = Float80
    #else
    typealias Wide = Double
    #endif
    let growth = Wide(1) + Wide(rate)  // exact in 80 bits for any double rate > -1 of practical size
    var sum: Wide = 0, compensation: Wide = 0, total: Wide = 0, size: Wide = 0
    var errorTerms: Wide = 0
    for flow in nonZero {
        let t = Wide(flow.date.daysSinceEpoch - t0.daysSinceEpoch) / 365
        let a = Wide(flow.amount) / Wide(biggest)
        let term = a * Wide.exp(-t * Wide.log(growth))
        let s = sum + term
        compensation += abs(sum) >= abs(term) ? (sum - s) + term : (term - s) + sum
        sum = s
        total += abs(a)
        size += abs(term)
        errorTerms += abs(term) * (4 + 4 * abs(t * Wide.log(growth)))
    }
    let npv = sum + compensation
    let eps = Wide.ulpOfOne
    return (Double(npv / total), Double(eps * (errorTerms + 4 * abs(npv)) / total))
}

extension Float80 {
    static func exp(_ x: Float80) -> Float80 { Foundation.exp(x) }
    static func log(_ x: Float80) -> Float80 { Foundation.log(x) }
}

extension Double {
    static func exp(_ x: Double) -> Double { Foundation.exp(x) }
    static func log(_ x: Double) -> Double { Foundation.log(x) }
}

/// The same result to the bit: rates, other roots, iterations and method; or the same error.
func sameBits(_ a: Result<XIRRResult, XIRRError>, _ b: Result<XIRRResult, XIRRError>) -> Bool {
    switch (a, b) {
    case (.success(let x), .success(let y)):
        return x.rate.bitPattern == y.rate.bitPattern && x.iterations == y.iterations && x.method == y.method
            && x.otherRoots.map(\.bitPattern) == y.otherRoots.map(\.bitPattern)
    case (.failure(let x), .failure(let y)):
        return x == y
    default:
        return false
    }
}

func solve(_ f: [CashFlow], guess: Double = 0.1, rootSearch: XIRRRootSearch = .full) -> Result<XIRRResult, XIRRError> {
    Result { () throws(XIRRError) in try xirr(flows: f, guess: guess, rootSearch: rootSearch) }
}

@Suite("XIRR robustness properties (issue 11): only certified roots, zero flows inert, order-free")
struct XIRRRobustnessPropertyTests {
    @Test("every reported rate, main and other roots, is a root: |XNPV| ≤ 1e-9·Σ|flows|, or a proven sign change within 1e-12 of it (2,500 adversarial series)")
    func everyReportedRateIsARoot() {
        var rng = SplitMix64(seed: 0x11_0001)
        var solved = 0, otherRoots = 0, notCertified = 0, bySignChange = 0
        for k in 0..<2500 {
            let f = adversarialSeries(&rng)
            let guess = [0.1, -0.5, 2.0, -0.99][k % 4]
            for search in [XIRRRootSearch.full, .newtonFirst] {
                switch solve(f, guess: guess, rootSearch: search) {
                case .success(let result):
                    solved += 1
                    otherRoots += result.otherRoots.count
                    for rate in [result.rate] + result.otherRoots {
                        #expect(rate > -1 && rate.isFinite, "series \(k): \(rate)")
                        let (residual, error) = independentRelativeResidual(rate, f)
                        if residual <= 1e-9 + error { continue }
                        // Not within 1e-9 of the flows (the discounted flows dwarf them): then the sign-change
                        // certificate must hold, checked by the independent evaluation, which must be able to tell.
                        bySignChange += 1
                        #expect(independentSignChangeAround(rate, f) == true, "series \(k) (\(search)): rate \(rate) leaves |XNPV| = \(residual)·Σ|flows| and no proven sign change around it")
                    }
                case .failure(let error):
                    if case .rootNotCertified = error { notCertified += 1 }
                    // Every error says why in words.
                    #expect(!error.description.isEmpty)
                }
            }
        }
        // The property is not vacuous: most series have certified rates, some several.
        #expect(solved > 1700, "solved \(solved)")
        #expect(otherRoots > 0)
        _ = notCertified
        _ = bySignChange
    }

    @Test("zero-amount flows never change the result, wherever dated (2,500 series, to the bit)")
    func zeroFlowsAreInert() {
        var rng = SplitMix64(seed: 0x11_0002)
        var compared = 0
        for k in 0..<2500 {
            let f = adversarialSeries(&rng).filter { $0.amount != 0 }
            guard f.count >= 2 else { continue }
            let padded = withZeroFlows(f, &rng)
            let guess = [0.1, -0.5, 2.0][k % 3]
            #expect(sameBits(solve(f, guess: guess), solve(padded, guess: guess)), "series \(k)")
            // XNPV: zero rows do not move t₀ either.
            let rate = [0.0, 0.1, -0.5][k % 3]
            let plain = try? xnpv(rate: rate, flows: f), withZeros = try? xnpv(rate: rate, flows: padded)
            #expect(plain?.bitPattern == withZeros?.bitPattern, "xnpv series \(k)")
            compared += 1
        }
        #expect(compared > 2000)
    }

    @Test("the result does not depend on the order of the rows (2,500 shuffled series, to the bit; batch too)")
    func orderDoesNotMatter() {
        var rng = SplitMix64(seed: 0x11_0003)
        var batch = CashFlowBatch(), shuffledBatch = CashFlowBatch()
        var expected: [Result<XIRRResult, XIRRError>] = []
        for k in 0..<2500 {
            var f = adversarialSeries(&rng)
            // Several flows on one date with different amounts: their order must not matter either.
            if k % 5 == 0, let d = f.first?.date {
                f += (0..<3).map { _ in CashFlow(date: d, amount: Double(Int.random(in: -9...9, using: &rng))) }
            }
            let shuffled = f.shuffled(using: &rng)
            let result = solve(f)
            #expect(sameBits(result, solve(shuffled)), "series \(k)")
            if k % 3 == 0 { #expect(sameBits(result, solve(f.reversed())), "series \(k) reversed") }
            if k % 10 == 0 {
                batch.append(f)
                shuffledBatch.append(shuffled)
                expected.append(result)
            }
        }
        for (k, (a, b)) in zip(xirr(batch: batch, threads: 2), xirr(batch: shuffledBatch, threads: 1)).enumerated() {
            #expect(sameBits(a, expected[k]) && sameBits(b, expected[k]), "batch series \(k)")
        }
    }

    @Test("the certificate does not reject true roots: 2,000 series built to have one known root")
    func knownRootsAreFound() {
        var rng = SplitMix64(seed: 0x11_0004)
        var checked = 0, illConditioned = 0
        for _ in 0..<2000 {
            // Calls, then distributions; the last distribution sets XNPV(r*) = 0: one sign change, root r*.
            let root = [Double.random(in: -0.95 ... -0.2, using: &rng), Double.random(in: -0.2...0.6, using: &rng),
                        Double.random(in: 0.6...20, using: &rng)][Int.random(in: 0..<3, using: &rng)]
            let n = Int.random(in: 2...60, using: &rng)
            var day = CivilDate(year: Int.random(in: 1990...2030, using: &rng), month: 1, day: 1)!.daysSinceEpoch
            var f: [CashFlow] = []
            let calls = Int.random(in: 1...n, using: &rng)
            for i in 0..<n {
                if i > 0 { day += Int.random(in: 0...200, using: &rng) }
                let amount = Double(Int.random(in: 100...10_000_000, using: &rng))
                f.append(CashFlow(date: CivilDate(daysSinceEpoch: day), amount: i < calls ? -amount : amount))
            }
            let last = CivilDate(daysSinceEpoch: day + Int.random(in: 30...3000, using: &rng))
            let t0 = f[0].date
            let years = { (d: CivilDate) in Double(d.daysSinceEpoch - t0.daysSinceEpoch) / 365 }
            let npv = f.reduce(0.0) { $0 + $1.amount * pow(1 + root, -years($1.date)) }
            let final = -npv * pow(1 + root, years(last))
            guard final > 0, final.isFinite else { continue }
            f.append(CashFlow(date: last, amount: final))
            // How precisely double arithmetic can resolve XNPV near r*, relative to Σ|flows|: ε times the
            // discounted flows weighted by (1 + |tᵢ·log(1+r*)|) (the sensitivity of each term to rounding).
            let logGrowth = log1p(root)
            let total = f.reduce(0.0) { $0 + abs($1.amount) }
            let floor = Double.ulpOfOne * f.reduce(0.0) {
                let x = years($1.date) * logGrowth
                return $0 + abs($1.amount) * exp(-x) * (1 + abs(x))
            } / total
            switch solve(f) {
            case .success(let result):
                #expect(abs(result.rate - root) <= 1e-6 * (1 + abs(root)), "\(result.rate) vs \(root)")
                #expect(result.otherRoots.isEmpty)
                checked += 1
            case .failure(.rootNotCertified(let rate, _, _, _)) where floor > 1e-11:
                // Ill-conditioned: the discounted flows are so much larger than the flows that no double rate
                // can be shown to meet 1e-9; the error still points at the root.
                #expect(abs(rate - root) <= 1e-6 * (1 + abs(root)), "\(rate) vs \(root)")
                illConditioned += 1
            case .failure(let error):
                Issue.record("no rate for a series with the well-conditioned root \(root) (floor \(floor)): \(error)")
            }
        }
        #expect(checked > 1000, "checked \(checked)")
        #expect(illConditioned < checked / 10, "ill-conditioned \(illConditioned)")
    }

    @Test("issue 11: 1, -3, 3 a year apart and 0 in 2600 has no rate, exactly as without the zero row")
    func issueExampleFarZeroRow() {
        let base = flows([("2020-01-01", 1), ("2021-01-01", -3), ("2022-01-01", 3)])
        let padded = base + flows([("2600-01-01", 0)])
        let withoutZero = solve(base), withZero = solve(padded)
        guard case .failure(.noRootFound) = withoutZero else {
            Issue.record("expected no rate, got \(withoutZero)")
            return
        }
        #expect(sameBits(withoutZero, withZero))
        // The NPV is 1 - 3x + 3x² > 0 for every x = 1/(1+r): no root anywhere, whatever the guess.
        for guess in [-0.99, -0.725, 0.1, 5.0] {
            #expect(sameBits(solve(padded, guess: guess), solve(base, guess: guess)))
        }
    }

    @Test("a rate whose NPV cannot be pinned below 1e-9·Σ|flows| is an error with a reason, not a number")
    func uncertifiableRootIsAnError() throws {
        // Discounted at r ≈ -0.9 over 400 years the middle flows reach ~1e400 times the flows... but cancel:
        // the series' NPV changes sign there, yet no double rate resolves it.
        let kernel = try #require(uncertifiableExample())
        #expect(kernel.description.contains("no rate can be certified"))
        #expect(kernel.description.contains("NPV changes sign near"))
    }

    /// A series with a sign change of the NPV in a region where the discounted flows are far larger than
    /// the flows: searched among random steep series (seeded) so that the test does not hard-code a result.
    private func uncertifiableExample() -> XIRRError? {
        var rng = SplitMix64(seed: 0x11_0005)
        for _ in 0..<5000 {
            let start = CivilDate(year: 1900, month: 1, day: 1)!.daysSinceEpoch
            var f: [CashFlow] = []
            for i in 0..<Int.random(in: 3...6, using: &rng) {
                let day = start + i * Int.random(in: 5000...40_000, using: &rng)
                let amount = pow(10, Double.random(in: -3...3, using: &rng)) * (i % 2 == 0 ? -1 : 1)
                f.append(CashFlow(date: CivilDate(daysSinceEpoch: day), amount: amount))
            }
            if case .failure(let error) = solve(f, guess: -0.9), case .rootNotCertified = error { return error }
        }
        return nil
    }
}
