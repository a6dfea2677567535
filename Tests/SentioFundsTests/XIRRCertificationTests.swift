import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioFunds

/// Solves one series with the default full root search, with or without the uniqueness certificate.
private func solveFull(
    _ f: [CashFlow], guess: Double, certify: Bool, dayCount: DayCount = .actual365Fixed
) -> Result<XIRRResult, XIRRError> {
    var workspace = XIRRWorkspace(capacity: f.count)
    var settings = XIRRSettings(
        dayCount: dayCount, guess: guess, tolerance: 1e-12, maxIterations: 100, rootSearch: .full)
    settings.certifyUniqueRoot = certify
    let days = f.map(\.date.daysSinceEpoch), amounts = f.map(\.amount)
    return days.withUnsafeBufferPointer { d in
        amounts.withUnsafeBufferPointer { a in
            Result { () throws(XIRRError) in try workspace.solve(days: d, amounts: a, settings: settings) }
        }
    }
}

/// Calls `body` with a kernel series (sorted by date, Actual/365F, exact factors only).
private func withSeries<R>(_ f: [CashFlow], _ body: (XIRRKernel.Series) -> R) -> R {
    let sorted = f.sorted { $0.date.daysSinceEpoch < $1.date.daysSinceEpoch }
    let first = sorted[0].date.daysSinceEpoch
    let times = sorted.map { Double($0.date.daysSinceEpoch - first) / 365 }
    let amounts = sorted.map(\.amount)
    var factors = [Double](repeating: 0, count: f.count)
    let gaps: [Int] = []
    return times.withUnsafeBufferPointer { t in
        amounts.withUnsafeBufferPointer { a in
            gaps.withUnsafeBufferPointer { g in
                factors.withUnsafeMutableBufferPointer { w in
                    body(XIRRKernel.Series(times: t, amounts: a, gaps: g, daysPerYear: 0, factors: w))
                }
            }
        }
    }
}

/// Every root the exhaustive branch-and-bound scan brackets, ascending.
private func scannedRoots(_ f: [CashFlow]) -> [Double] {
    withSeries(f) { s in
        var roots: [XIRRKernel.Root] = []
        let settings = XIRRSettings(
            dayCount: .actual365Fixed, guess: 0.1, tolerance: 1e-12, maxIterations: 100, rootSearch: .full)
        XIRRKernel.bracketRoots(s, settings: settings, knownRoot: nil, into: &roots)
        return roots.map(\.rate).sorted()
    }
}

/// Private-equity-like monthly history: calls, then distributions with occasional calls, a final NAV.
private func privateEquityHistory(_ rng: inout SplitMix64, months: Int, lateCallChance: Double) -> [CashFlow] {
    let start = CivilDate(year: 2005 + Int.random(in: 0..<15, using: &rng), month: Int.random(in: 1...12, using: &rng), day: Int.random(in: 1...28, using: &rng))!
    let calls = Int.random(in: 1...max(1, months / 3), using: &rng)
    var f: [CashFlow] = []
    for k in 0..<months {
        let amount: Double
        if k < calls {
            amount = -Double.random(in: 1e5...1e6, using: &rng)
        } else if Double.random(in: 0..<1, using: &rng) < lateCallChance {
            amount = -Double.random(in: 0...3e5, using: &rng)
        } else {
            amount = Double.random(in: 0...8e5, using: &rng)
        }
        f.append(CashFlow(date: start.addingMonths(k), amount: amount))
    }
    f[months - 1].amount = abs(f[months - 1].amount) * Double.random(in: 0.2...4, using: &rng)
    return f
}

@Suite("XIRR uniqueness certificate (Laguerre's rule on the discounted running sum)")
struct XIRRCertificationTests {
    @Test("random private-equity histories: results with the certificate equal the exhaustive search's")
    func certificateMatchesExhaustiveSearch() {
        var rng = SplitMix64(seed: 4242)
        var certifiedWithSeveralSignChanges = 0, severalRoots = 0
        for k in 0..<1500 {
            let months = [6, 24, 60, 120][k % 4]
            let f = privateEquityHistory(&rng, months: months, lateCallChance: [0.05, 0.15, 0.4][k % 3])
            let guess = [0.1, -0.5, 0.8, 3.0][k % 4]
            let fast = solveFull(f, guess: guess, certify: true)
            let exhaustive = solveFull(f, guess: guess, certify: false)
            #expect(fast == exhaustive, "series \(k)")
            guard case .success(let result) = exhaustive else { continue }
            if !result.otherRoots.isEmpty { severalRoots += 1 }
            let changes = f.map(\.amount).filter { $0 != 0 }.map { $0 > 0 }
            let signChanges = zip(changes, changes.dropFirst()).filter { $0 != $1 }.count
            let certified = withSeries(f) { XIRRKernel.isCertifiedUniqueRoot(result.rate, $0) }
            if certified {
                // A certified root is the only one the scan finds too (none when it lies above the scanned
                // range, r ≤ 999,900 %, as short histories' rates can).
                let roots = scannedRoots(f)
                if result.rate < 9999 {
                    #expect(roots.count == 1 && abs(roots[0] - result.rate) <= 1e-7 * (1 + abs(result.rate)), "series \(k): \(roots) vs \(result.rate)")
                } else {
                    #expect(roots.isEmpty, "series \(k): \(roots) vs \(result.rate)")
                }
                #expect(result.otherRoots.isEmpty)
                if signChanges > 1 { certifiedWithSeveralSignChanges += 1 }
            }
        }
        // The shortcut is exercised, and so is the search for several roots.
        #expect(certifiedWithSeveralSignChanges > 500)
        #expect(severalRoots > 0)
    }

    @Test("every day count: results with the certificate equal the exhaustive search's")
    func everyDayCount() {
        var rng = SplitMix64(seed: 99)
        for k in 0..<400 {
            // Irregular dates (any day of the month, 30/360 end-of-month rules included).
            var f = privateEquityHistory(&rng, months: [12, 36][k % 2], lateCallChance: 0.2)
            for i in f.indices {
                f[i].date = CivilDate(daysSinceEpoch: f[i].date.daysSinceEpoch + Int.random(in: 0...3, using: &rng))
            }
            for dayCount in DayCount.allCases {
                #expect(
                    solveFull(f, guess: 0.1, certify: true, dayCount: dayCount)
                        == solveFull(f, guess: 0.1, certify: false, dayCount: dayCount), "series \(k), \(dayCount)")
            }
        }
    }

    @Test("never certifies a root when there are others")
    func rejectsMultipleRoots() throws {
        // Roots at 10 % and 20 % (x = 1/(1+r): −1 + 2.3x − 1.32x²); and at 10 %, 20 %, 30 %.
        let two = flows([("2021-01-01", -1), ("2022-01-01", 2.3), ("2023-01-01", -1.32)])
        let (a, b, c) = (1 / 1.1, 1 / 1.2, 1 / 1.3)
        let three = flows([
            ("2021-01-01", -a * b * c), ("2022-01-01", a * b + b * c + c * a), ("2023-01-01", -(a + b + c)),
            ("2024-01-01", 1),
        ])
        for (f, roots) in [(two, [0.1, 0.2]), (three, [0.1, 0.2, 0.3])] {
            for root in roots {
                let rate = try xirr(flows: f, guess: root).rate
                #expect(abs(rate - root) < 1e-9)
                #expect(!withSeries(f) { XIRRKernel.isCertifiedUniqueRoot(rate, $0) }, "root \(root)")
            }
        }
    }

    @Test("certifies a unique root with several sign changes; not a point that is no root")
    func certifiesUniqueRoot() throws {
        // Calls, a distribution, a late call, a large final value: three sign changes, one root.
        let f = flows([
            ("2020-01-15", -1000), ("2020-06-15", -500), ("2021-01-15", 300), ("2021-06-15", -200),
            ("2022-01-15", 2500),
        ])
        let result = try xirr(flows: f)
        #expect(result.otherRoots.isEmpty)
        #expect(withSeries(f) { XIRRKernel.isCertifiedUniqueRoot(result.rate, $0) })
        #expect(scannedRoots(f).count == 1)
        // Far from the root the NPV is not small: no certificate.
        #expect(!withSeries(f) { XIRRKernel.isCertifiedUniqueRoot(result.rate + 0.05, $0) })
        // A zero amount first leaves a zero running sum: no certificate (conservative), same result.
        let leadingZero = [CashFlow(date: date("2019-12-15"), amount: 0)] + f
        #expect(!withSeries(leadingZero) { XIRRKernel.isCertifiedUniqueRoot(try! xirr(flows: leadingZero).rate, $0) })
        #expect(solveFull(leadingZero, guess: 0.1, certify: true) == solveFull(leadingZero, guess: 0.1, certify: false))
    }
}
