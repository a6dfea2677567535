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

/// The result of `xirr`: a verified root of the XNPV.
public struct XIRRResult: Sendable, Hashable {
    /// The annual rate `r` (a decimal fraction, 0.15 = 15 %) with `xnpv(r) = 0`.
    public var rate: Double
    /// Newton iterations plus Brent iterations spent on the returned root.
    public var iterations: Int
    /// The algorithm that produced `rate`.
    public var method: XIRRMethod
    /// Other roots of the XNPV found by the scan, ascending; empty when the root is unique or when the
    /// search was `.newtonFirst`.
    public var otherRoots: [Double]

    public init(rate: Double, iterations: Int, method: XIRRMethod, otherRoots: [Double]) {
        self.rate = rate
        self.iterations = iterations
        self.method = method
        self.otherRoots = otherRoots
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
        }
    }

    private static func short(_ x: Double) -> String {
        x.isFinite ? String(format: "%.6g", x) : "\(x)"
    }
}
