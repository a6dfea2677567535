import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioFunds

/// The sign-change certificate on ill-conditioned flows (issue 28): flows decades apart whose roots lie far from
/// 0 %, where the discounted flows are so much larger than the flows that `|XNPV| ≤ 1e-9·Σ|flows|` cannot be shown
/// although the XNPV provably changes sign between two doubles close to the rate.
@Suite("XIRR sign-change certificate")
struct XIRRSignChangeCertificateTests {
    /// Steep random series: 3 to 8 flows 5 to 60 years apart, amounts over six orders of magnitude, alternating signs.
    static func steepSeries(_ rng: inout SplitMix64) -> [CashFlow] {
        let start = CivilDate(year: 1900, month: 1, day: 1)!.daysSinceEpoch
        var f: [CashFlow] = []
        var day = start
        for i in 0..<Int.random(in: 3...8, using: &rng) {
            day += Int.random(in: 1800...22_000, using: &rng)
            let amount = pow(10, Double.random(in: -3...3, using: &rng)) * (i % 2 == 0 ? -1 : 1)
            f.append(CashFlow(date: CivilDate(daysSinceEpoch: day), amount: amount))
        }
        return f
    }

    @Test("every sign-change certificate is confirmed by an independent evaluation, on 4,000 steep series")
    func certificatesAreSound() {
        var rng = SplitMix64(seed: 0x28_0003)
        var signChange = 0, confirmed = 0, residual = 0, uncertified = 0
        for k in 0..<4000 {
            let f = Self.steepSeries(&rng)
            let guess = [-0.9, -0.5, 0.1, 2.0][k % 4]
            switch Result(catching: { () throws(XIRRError) in try xirr(flows: f, guess: guess) }) {
            case .success(let result):
                switch result.certificate {
                case .residual:
                    residual += 1
                case .signChange(let lower, let upper):
                    signChange += 1
                    #expect(lower <= result.rate && result.rate <= upper, "series \(k)")
                    #expect(upper - lower <= 1e-12 * max(1, abs(result.rate)), "series \(k): [\(lower), \(upper)]")
                    let below = independentSign(lower, f), above = independentSign(upper, f)
                    // Where the independent evaluation can tell both signs, they must differ.
                    if below != 0 && above != 0 {
                        #expect(below == -above, "series \(k): no sign change between \(lower) and \(upper)")
                        confirmed += 1
                    }
                }
            case .failure(.rootNotCertified(_, let residualSize, let bound, _)):
                // The message states the quantity it tests: |XNPV| + bound, above 1e-9.
                #expect(!(residualSize + bound <= 1e-9), "series \(k): certifiable \(residualSize) + \(bound)")
                uncertified += 1
            case .failure:
                continue
            }
        }
        #expect(signChange > 50 && confirmed > 50, "sign-change \(signChange), confirmed \(confirmed)")
        #expect(residual > 100, "residual \(residual)")
        _ = uncertified
    }

    @Test("the error message states the quantity it compares with 1e-9")
    func messageStatesTheTestedQuantity() {
        let error = XIRRError.rootNotCertified(rate: -0.61, relativeResidual: 4.3e-10, relativeErrorBound: 1.2e-8, relativeDiscountedSize: 2e6)
        #expect(error.description.contains("|XNPV| + its evaluation error bound is 4.3e-10 + 1.2e-08 = 1.243e-08 of the total |flows|"))
    }
}
