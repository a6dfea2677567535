import Foundation
import SentioCore

/// One dated cash flow: negative amounts are paid out by the investor (contributions),
/// positive amounts are received (distributions, a final valuation).
public struct CashFlow: Sendable, Hashable {
    public var date: CivilDate
    public var amount: Double

    public init(date: CivilDate, amount: Double) {
        self.date = date
        self.amount = amount
    }
}

/// How `xirr` chooses among several roots.
public enum XIRRRootSearch: String, Sendable, Hashable, Codable {
    /// Find every root the scan can bracket whenever the flows change sign more than once in date order,
    /// return the root nearest the guess and report the others. With one sign change the root is unique
    /// (Descartes' rule of signs, which holds for real exponents) and Newton's answer is returned at once.
    case full
    /// Excel-like: return the root Newton's method reaches from the guess; scan and bracket only when
    /// Newton fails. Other roots are not searched for (`otherRoots` is empty). Faster on flows with many
    /// sign changes.
    case newtonFirst
}

/// Which algorithm produced the returned rate.
public enum XIRRMethod: String, Sendable, Hashable, Codable {
    /// Newton–Raphson with the analytic derivative, started at the guess.
    case newton
    /// Brent's method on a bracket found by scanning rates from just above −100 %.
    case brent
}

/// How a reported rate was proven to be a root of the XNPV (see `xirr(flows:dayCount:guess:tolerance:maxIterations:rootSearch:)`).
public enum XIRRCertificate: Sendable, Hashable {
    /// The residual certificate: at the rate, `|XNPV(r)|` plus a rigorous bound on its evaluation error (one `exp`
    /// per flow, compensated summation) is at most `1e-9 · Σ|aᵢ|`.
    case residual
    /// The sign-change certificate: the XNPV, evaluated with the same rigorous error bound, has proven opposite
    /// signs at `lower` and `upper` (`lower ≤ r ≤ upper`, `upper − lower ≤ tolerance · max(1, |r|)`), so by
    /// continuity a root lies between them. It holds where the residual certificate cannot: rates far from 0 % with
    /// flows decades apart, whose discounted flows are so large that their evaluation error exceeds 1e-9 of the
    /// flows although a sign change between two nearby doubles is certain.
    case signChange(lower: Double, upper: Double)

    /// `residual` or `sign-change` (the name `sentio xirr --format json` prints).
    public var name: String {
        switch self {
        case .residual: return "residual"
        case .signChange: return "sign-change"
        }
    }
}

/// The result of `xirr`: a certified root of the XNPV.
public struct XIRRResult: Sendable, Hashable {
    /// The annual rate `r` (a decimal fraction, 0.15 = 15 %), proven a root by ``certificate``: `|xnpv(r)| ≤ 1e-9 ·
    /// Σ|aᵢ|` with compensated summation and an error bound, or a proven sign change of the XNPV within the
    /// tolerance around `r`.
    public var rate: Double
    /// Newton iterations plus Brent iterations spent on the returned root.
    public var iterations: Int
    /// The algorithm that produced `rate`.
    public var method: XIRRMethod
    /// Other roots of the XNPV found by the scan, ascending, each certified as `rate` is; empty when the
    /// root is unique or when the search was `.newtonFirst`.
    public var otherRoots: [Double]
    /// Which certificate proved ``rate`` a root.
    public var certificate: XIRRCertificate

    public init(rate: Double, iterations: Int, method: XIRRMethod, otherRoots: [Double], certificate: XIRRCertificate = .residual) {
        self.rate = rate
        self.iterations = iterations
        self.method = method
        self.otherRoots = otherRoots
        self.certificate = certificate
    }
}

/// Why an XIRR or XNPV could not be computed from the given flows.
public enum XIRRError: UserInputError, Equatable {
    case noFlows
    case singleFlow
    /// Amount number `index` (0-based, in input order) is NaN or infinite.
    case nonFiniteAmount(index: Int, amount: Double)
    case allAmountsZero
    /// Every non-zero amount has the same sign, so no rate can make the NPV zero.
    case allSameSign(positive: Bool)
    case allOnOneDate(CivilDate)
    /// The scan from `lowestRate` to `highestRate` found no sign change of the NPV, which stayed
    /// within `[npvMinimum, npvMaximum]`.
    case noRootFound(npvMinimum: Double, npvMaximum: Double, lowestRate: Double, highestRate: Double)
    /// A rate at or below −100 % (where `(1 + r)^(-t)` is undefined), or NaN.
    case rateOutOfDomain(Double)
    /// The NPV changes sign near `rate` (the candidate nearest the guess), but no rate could be certified:
    /// at `rate` the XNPV, evaluated with compensated summation, plus the bound on that evaluation's error is not
    /// within `1e-9 · Σ|flows|` of zero (`relativeResidual` = |XNPV| / Σ|flows|, `relativeErrorBound` = the bound /
    /// Σ|flows|; ∞ when a discounted flow overflows), and no sign change of the XNPV is proven within the
    /// tolerance around it. `relativeDiscountedSize` = Σ|flows discounted at `rate`| / Σ|flows| says why: when it is
    /// huge, the discounted flows cancel far below double precision's resolution of their size.
    case rootNotCertified(rate: Double, relativeResidual: Double, relativeErrorBound: Double, relativeDiscountedSize: Double)

    public var description: String {
        switch self {
        case .noFlows: return "no cash flows: XIRR needs at least two flows of opposite sign"
        case .singleFlow: return "a single cash flow: XIRR needs at least two flows of opposite sign"
        case .nonFiniteAmount(let index, let amount):
            return "cash flow \(index + 1) has a non-finite amount (\(amount))"
        case .allAmountsZero: return "all cash-flow amounts are zero: every rate is a root, XIRR is undefined"
        case .allSameSign(let positive):
            return "all cash flows are \(positive ? "positive" : "negative"): XIRR needs at least one "
                + "negative and one positive flow"
        case .allOnOneDate(let date):
            return "all cash flows are on one date (\(date)): XIRR needs flows on at least two dates"
        case .noRootFound(let lo, let hi, let r0, let r1):
            return "no rate between \(r0) and \(r1) makes the NPV zero: over that scan the NPV stays between "
                + "\(Self.short(lo)) and \(Self.short(hi)) without changing sign"
        case .rateOutOfDomain(let r):
            return "rate \(r) is out of the domain: it must be greater than -1 (-100%)"
        case .rootNotCertified(let r, let residual, let errorBound, let size):
            var text = "no rate can be certified: the NPV changes sign near \(r), but there |XNPV| + its evaluation "
                + "error bound is "
            text += residual.isFinite && errorBound.isFinite
                ? "\(Self.short(residual)) + \(Self.short(errorBound)) = \(Self.short(residual + errorBound)) of the "
                    + "total |flows|, above the 1e-9 a reported rate must meet, and no sign change of the XNPV is "
                    + "proven (beyond that bound) within the tolerance around the rate"
                : "not finite (a discounted flow overflows)"
            if size.isFinite && size > 1e3 {
                text += "; discounted at that rate the flows add up to \(Self.short(size)) times their undiscounted "
                    + "total and cancel below double precision (flows far apart in time at a rate far from 0%)"
            }
            return text
        }
    }

    private static func short(_ x: Double) -> String {
        x.isFinite ? String(format: "%.6g", x) : "\(x)"
    }
}
