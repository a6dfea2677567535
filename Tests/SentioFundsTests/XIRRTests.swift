import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioFunds

func flows(_ items: [(String, Double)]) -> [CashFlow] {
    items.map { CashFlow(date: date($0.0), amount: $0.1) }
}

/// Excel's documentation example for XIRR (Microsoft support, "XIRR function").
let excelExample = flows([
    ("2008-01-01", -10000), ("2008-03-01", 2750), ("2008-10-30", 4250), ("2009-02-15", 3250), ("2009-04-01", 2750),
])

/// `rate` is a root to working precision: |XNPV| ≤ 1e-9 of the discounted |flows|, or XNPV changes sign
/// between the doubles two ulps below and above (near −100 % a rate cannot get closer than that).
func isRootToWorkingPrecision(_ rate: Double, _ f: [CashFlow]) throws -> Bool {
    let t0 = f.map(\.date).min()!
    let scale = f.reduce(0.0) { $0 + abs($1.amount) * pow(1 + rate, -DayCount.actual365Fixed.yearFraction(from: t0, to: $1.date)) }
    if abs(try xnpv(rate: rate, flows: f)) <= 1e-9 * scale { return true }
    let below = try xnpv(rate: rate.nextDown.nextDown, flows: f), above = try xnpv(rate: rate.nextUp.nextUp, flows: f)
    return (below <= 0) != (above < 0) || below == 0 || above == 0
}

@Suite("XIRR and XNPV")
struct XIRRTests {
    @Test("Excel's documented example gives 0.373362535")
    func excelDocumentedExample() throws {
        let result = try xirr(flows: excelExample)
        // Excel prints 0.373362535 (its own iteration stops early); pyxirr 0.10.8 gives 0.37336253351883136.
        #expect(abs(result.rate - 0.373362535) < 2e-9)
        expectClose(result.rate, 0.37336253351883136, relative: 1e-13)
        #expect(result.method == .newton)
        #expect(result.otherRoots.isEmpty)
        // Excel's XNPV example on the same flows at 9 %: 2086.647602.
        #expect(abs(try xnpv(rate: 0.09, flows: excelExample) - 2086.647602) < 5e-7)
    }

    @Test("input order does not matter")
    func orderIndependence() throws {
        let forward = try xirr(flows: excelExample).rate
        let reversed = try xirr(flows: excelExample.reversed()).rate
        var rng = SplitMix64(seed: 7)
        let random = try xirr(flows: excelExample.shuffled(using: &rng)).rate
        #expect(forward == reversed)
        #expect(forward == random)
    }

    @Test("agrees with pyxirr 0.10.8 to 1e-9 on 200 private-equity histories, every day count")
    func pyxirrFixtures() throws {
        let series = try loadFixtureSeries()
        let results = try loadTextRows("funds/xirr_results.csv")
        #expect(series.count == 200 && results.count == 200)
        let conventions: [(String, DayCount)] = [
            ("act365f", .actual365Fixed), ("act360", .actual360), ("actact", .actualActualISDA),
            ("thirty360us", .thirty360US), ("thirty360bond", .thirty360BondBasis),
        ]
        var compared = 0
        for (k, rows) in series.enumerated() {
            let f = rows.map { CashFlow(date: $0.date, amount: $0.amount) }
            for (column, dayCount) in conventions {
                guard let expected = Double(results[k]["xirr_\(column)"]!) else { continue }
                let result = try xirr(flows: f, dayCount: dayCount)
                // With several roots Sentio returns the one nearest the guess; pyxirr's must be among them.
                let roots = [result.rate] + result.otherRoots
                let best = roots.min { relativeDifference($0, expected) < relativeDifference($1, expected) }!
                // 1e-9 relative, or 1e-11 absolute for rates near zero: on series 65 (Actual/360, r ≈ -0.0015)
                // pyxirr stops 1.5e-12 from the root (its NPV there is 6e-4; ours -1.4e-8, checked with
                // 50-digit decimal arithmetic).
                expectClose(best, expected, relative: 1e-9, absolute: 1e-11, "series \(k) \(column)")
                compared += 1
            }
            for rate in [-0.5, 0.0, 0.1, 0.35] {
                let expected = Double(results[k]["xnpv_\(rate)"]!)!
                let t0 = f.map(\.date).min()!
                let scale = f.reduce(0.0) {
                    $0 + abs($1.amount) * pow(1 + rate, -DayCount.actual365Fixed.yearFraction(from: t0, to: $1.date))
                }
                expectClose(try xnpv(rate: rate, flows: f), expected, relative: 1e-12, absolute: 1e-13 * scale, "xnpv series \(k) at \(rate)")
            }
        }
        #expect(compared >= 990)
    }

    @Test("xnpv at every returned root is zero to working precision")
    func npvAtRootIsZero() throws {
        for rows in try loadFixtureSeries() {
            let f = rows.map { CashFlow(date: $0.date, amount: $0.amount) }
            let result = try xirr(flows: f)
            for rate in [result.rate] + result.otherRoots {
                let npv = try xnpv(rate: rate, flows: f)
                let t0 = f.map(\.date).min()!
                let scale = f.reduce(0.0) {
                    $0 + abs($1.amount) * pow(1 + rate, -DayCount.actual365Fixed.yearFraction(from: t0, to: $1.date))
                }
                #expect(abs(npv) <= 1e-9 * scale, "npv \(npv) at \(rate), scale \(scale)")
            }
        }
    }

    @Test("two roots: -1, +2.3, -1.32 a year apart have roots 10% and 20%; the one nearest the guess wins")
    func multipleRoots() throws {
        // NPV = -1 + 2.3x - 1.32x², x = 1/(1+r): roots x = 1/1.1 and 1/1.2 (2021 and 2022 have 365 days).
        let f = flows([("2021-01-01", -1), ("2022-01-01", 2.3), ("2023-01-01", -1.32)])
        let nearTen = try xirr(flows: f, guess: 0.05)
        #expect(abs(nearTen.rate - 0.1) < 1e-12)
        #expect(nearTen.otherRoots.count == 1)
        #expect(abs((nearTen.otherRoots.first ?? 0) - 0.2) < 1e-12)
        let nearTwenty = try xirr(flows: f, guess: 0.25)
        #expect(abs(nearTwenty.rate - 0.2) < 1e-12)
        #expect(abs((nearTwenty.otherRoots.first ?? 0) - 0.1) < 1e-12)
        // 0.16 is nearer 0.2 than 0.1, whatever Newton reaches from there.
        #expect(abs(try xirr(flows: f, guess: 0.16).rate - 0.2) < 1e-12)
        // Excel-like search: Newton's root from the guess, no scan.
        let excelLike = try xirr(flows: f, guess: 0.05, rootSearch: .newtonFirst)
        #expect(abs(excelLike.rate - 0.1) < 1e-12 && excelLike.otherRoots.isEmpty)
    }

    @Test("three roots (10%, 20%, 30%) are all found; the nearest the guess is returned")
    func threeRoots() throws {
        // NPV·(something positive) = (x − 1/1.1)(x − 1/1.2)(x − 1/1.3) with x = 1/(1+r), flows a year apart
        // (2021, 2022, 2023 have 365 days): coefficients of x⁰…x³ are the flows.
        let (a, b, c) = (1 / 1.1, 1 / 1.2, 1 / 1.3)
        let f = flows([("2021-01-01", -a * b * c), ("2022-01-01", a * b + b * c + c * a), ("2023-01-01", -(a + b + c)), ("2024-01-01", 1)])
        for (guess, expected) in [(0.0, 0.1), (0.19, 0.2), (0.5, 0.3)] {
            let result = try xirr(flows: f, guess: guess)
            #expect(abs(result.rate - expected) < 1e-9, "guess \(guess): \(result)")
            let all = ([result.rate] + result.otherRoots).sorted()
            #expect(all.count == 3)
            for (found, root) in zip(all, [0.1, 0.2, 0.3]) { #expect(abs(found - root) < 1e-9) }
        }
    }

    @Test("random long series with many sign changes: every reported root is a root, batch equals single")
    func randomLongSeries() throws {
        var rng = SplitMix64(seed: 2026)
        var batch = CashFlowBatch()
        var all: [[CashFlow]] = []
        for k in 0..<40 {
            let n = [3, 12, 60, 400][k % 4]
            var day = CivilDate(year: 2001, month: 1, day: 1)!.daysSinceEpoch
            var f: [CashFlow] = []
            for i in 0..<n {
                day += Int.random(in: 0...40, using: &rng)
                let sign: Double = i == 0 || Double.random(in: 0..<1, using: &rng) < 0.45 ? -1 : 1
                f.append(CashFlow(date: CivilDate(daysSinceEpoch: day), amount: sign * Double(Int.random(in: 1...1_000_000, using: &rng)) / 100))
            }
            f.append(CashFlow(date: CivilDate(daysSinceEpoch: day + 30), amount: 1000))
            all.append(f)
            batch.append(f)
        }
        let results = xirr(batch: batch, threads: 2)
        var solved = 0
        for (f, result) in zip(all, results) {
            let single = Result { () throws(XIRRError) in try xirr(flows: f) }
            #expect(single == result)
            guard case .success(let r) = result else { continue }
            solved += 1
            for rate in [r.rate] + r.otherRoots {
                #expect(try isRootToWorkingPrecision(rate, f), "root \(rate) of a series of \(f.count)")
            }
        }
        #expect(solved >= 30)
    }

    @Test("Brent fallback when Newton is capped, still a verified root")
    func brentFallback() throws {
        let result = try xirr(flows: excelExample, maxIterations: 2)
        #expect(result.method == .brent)
        #expect(abs(result.rate - 0.37336253351883136) < 1e-10)
        #expect(abs(try xirr(flows: excelExample, guess: -0.999999).rate - 0.37336253351883136) < 1e-10)
        #expect(abs(try xirr(flows: excelExample, guess: 1e5).rate - 0.37336253351883136) < 1e-10)
    }

    @Test("rates near -100% and very high rates")
    func extremeRates() throws {
        // Lose 99.9 % in one year: r = -0.999.
        let loss = try xirr(flows: flows([("2021-01-01", -1000), ("2022-01-01", 1)]))
        expectClose(loss.rate, -0.999, relative: 1e-10)
        // 100x in one year: r = 99.
        let gain = try xirr(flows: flows([("2021-01-01", -1), ("2022-01-01", 100)]))
        expectClose(gain.rate, 99, relative: 1e-10)
    }

    @Test("every malformed input has its own error and message")
    func errors() throws {
        func error(_ f: [CashFlow], guess: Double = 0.1) -> XIRRError? {
            do {
                _ = try xirr(flows: f, guess: guess)
                return nil
            } catch { return error }
        }
        #expect(error([]) == .noFlows)
        #expect(XIRRError.noFlows.description.contains("no cash flows"))
        #expect(error(flows([("2021-01-01", -1)])) == .singleFlow)
        #expect(XIRRError.singleFlow.description.contains("single cash flow"))
        #expect(error(flows([("2021-01-01", 0), ("2022-01-01", 0)])) == .allAmountsZero)
        #expect(XIRRError.allAmountsZero.description.contains("all cash-flow amounts are zero"))
        #expect(error(flows([("2021-01-01", 1), ("2022-01-01", 2)])) == .allSameSign(positive: true))
        #expect(error(flows([("2021-01-01", -1), ("2022-01-01", 0)])) == .allSameSign(positive: false))
        #expect(XIRRError.allSameSign(positive: false).description.contains("all cash flows are negative"))
        #expect(error(flows([("2021-01-01", -1), ("2021-01-01", 2)])) == .allOnOneDate(date("2021-01-01")))
        #expect(XIRRError.allOnOneDate(date("2021-01-01")).description.contains("one date (2021-01-01)"))
        let nan = error(flows([("2021-01-01", -1), ("2022-01-01", .nan)]))
        if case .nonFiniteAmount(let index, _) = nan { #expect(index == 1) } else { Issue.record("got \(String(describing: nan))") }
        #expect(error(flows([("2021-01-01", -.infinity), ("2022-01-01", 1)])) == .nonFiniteAmount(index: 0, amount: -.infinity))
        #expect(XIRRError.nonFiniteAmount(index: 1, amount: .nan).description == "cash flow 2 has a non-finite amount (nan)")
        #expect(error(excelExample, guess: -1) == .rateOutOfDomain(-1))
        #expect(throws: XIRRError.rateOutOfDomain(-2)) { try xnpv(rate: -2, flows: excelExample) }
        #expect(throws: XIRRError.noFlows) { try xnpv(rate: 0.1, flows: []) }
    }

    @Test("no root: the error reports the NPV's range over the scan")
    func noRoot() throws {
        // -1 + 2x - 2x² < 0 for every x = 1/(1+r) > 0: two sign changes, no root.
        let f = flows([("2021-01-01", -1), ("2022-01-01", 2), ("2023-01-01", -2)])
        do {
            _ = try xirr(flows: f)
            Issue.record("expected noRootFound")
        } catch {
            guard case .noRootFound(let lo, let hi, let r0, let r1) = error else {
                Issue.record("got \(error)")
                return
            }
            // The maximum of -1 + 2x - 2x² is -0.5 at x = 0.5 (r = 100 %, on the 1 % grid).
            expectClose(hi, -0.5, relative: 1e-9)
            #expect(lo < -1e6)
            #expect(r0 > -1 && r0 < -0.99999999 && r1 >= 9999)
            #expect(error.description.contains("makes the NPV zero"))
            #expect(error.description.contains("without changing sign"))
        }
        // A root too large to represent (x1e6 in one day) is reported as not found, never as a wrong number.
        #expect(throws: XIRRError.self) { try xirr(flows: flows([("2021-01-01", -1), ("2021-01-02", 1e6)])) }
    }
}

@Suite("Day counts")
struct DayCountTests {
    @Test("hand-computed year fractions")
    func handComputed() {
        let a = date("2020-01-31"), b = date("2020-03-31"), febEnd = date("2020-02-29"), prior = date("2019-12-15")
        // 60 actual days (Jan 31 → Mar 31, 2020 is a leap year: 29 + 31).
        #expect(DayCount.actual365Fixed.yearFraction(from: a, to: b) == 60.0 / 365)
        #expect(DayCount.actual360.yearFraction(from: a, to: b) == 60.0 / 360)
        // Both dates in 2020 (366 days).
        #expect(DayCount.actualActualISDA.yearFraction(from: a, to: b) == 60.0 / 366)
        // 2019-12-15 → 2021-01-15: 17 days of 2019 over 365, all of 2020, 14 days of 2021 over 365.
        let isda = DayCount.actualActualISDA.yearFraction(from: prior, to: date("2021-01-15"))
        #expect(abs(isda - (17.0 / 365 + 1 + 14.0 / 365)) < 1e-15)
        // 30/360 US: D1 = 31 → 30; D2 = 31 with D1 ≥ 30 → 30: 60 days.
        #expect(DayCount.thirty360US.yearFraction(from: a, to: b) == 60.0 / 360)
        // Feb 29 (end of February) → Mar 31: US sets D1 = 30 then D2 = 30: 30 days; bond basis keeps D1 = 29
        // and D2 = 31: 32 days.
        #expect(DayCount.thirty360US.yearFraction(from: febEnd, to: b) == 30.0 / 360)
        #expect(DayCount.thirty360BondBasis.yearFraction(from: febEnd, to: b) == 32.0 / 360)
        // Feb 28 2019 → Feb 29 2020, both ends of February: US gives 360 days, bond basis 361.
        #expect(DayCount.thirty360US.yearFraction(from: date("2019-02-28"), to: febEnd) == 1)
        #expect(DayCount.thirty360BondBasis.yearFraction(from: date("2019-02-28"), to: febEnd) == 361.0 / 360)
        // Reversed order is the negative.
        #expect(DayCount.actualActualISDA.yearFraction(from: date("2021-01-15"), to: prior) == -isda)
    }

    @Test("year fractions agree with pyxirr.year_fraction")
    func pyxirrYearFractions() throws {
        let columns: [(String, DayCount)] = [
            ("act365f", .actual365Fixed), ("act360", .actual360), ("actact", .actualActualISDA),
            ("thirty360us", .thirty360US), ("thirty360bond", .thirty360BondBasis),
        ]
        let rows = try loadTextRows("funds/year_fractions.csv")
        #expect(rows.count > 200)
        for row in rows {
            let start = date(row["start"]!), end = date(row["end"]!)
            for (column, dayCount) in columns {
                expectClose(dayCount.yearFraction(from: start, to: end), Double(row[column]!)!, relative: 1e-14,
                    "\(column) \(start) → \(end)")
            }
        }
    }

    @Test("each day count gives a root of its own XNPV; Actual/360 relates to Actual/365 exactly")
    func rateUnderEachConvention() throws {
        for dayCount in DayCount.allCases {
            let r = try xirr(flows: excelExample, dayCount: dayCount).rate
            #expect(abs(try xnpv(rate: r, flows: excelExample, dayCount: dayCount)) < 1e-8)
        }
        // Actual/360 stretches time by 365/360, so (1 + r360)^(365/360) = 1 + r365.
        let r365 = try xirr(flows: excelExample).rate, r360 = try xirr(flows: excelExample, dayCount: .actual360).rate
        expectClose(pow(1 + r360, 365.0 / 360), 1 + r365, relative: 1e-12)
    }
}

@Suite("Batch XIRR")
struct XIRRBatchTests {
    @Test("batch equals single-series results on 1 and 2 threads, errors in place")
    func batchMatchesSingle() throws {
        let series = try loadFixtureSeries()
        var batch = CashFlowBatch()
        for rows in series { batch.append(rows.map { CashFlow(date: $0.date, amount: $0.amount) }) }
        batch.append([CashFlow(date: date("2021-01-01"), amount: 5)])
        batch.append([CashFlow]())
        for threads in [1, 2] {
            let results = xirr(batch: batch, threads: threads)
            #expect(results.count == series.count + 2)
            for (k, rows) in series.enumerated() {
                let single = try xirr(flows: rows.map { CashFlow(date: $0.date, amount: $0.amount) })
                #expect(try results[k].get() == single, "series \(k)")
            }
            #expect(throws: XIRRError.singleFlow) { try results[series.count].get() }
            #expect(throws: XIRRError.noFlows) { try results[series.count + 1].get() }
        }
    }
}
