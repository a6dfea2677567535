import Foundation
import SentioCore

/// Public-market-equivalent measures of a fund against an index, all dated (XIRR-based where a rate).
///
/// Notation: the fund's flows `aₖ` at dates `dₖ` (calls negative, distributions positive), its NAV at
/// `d_NAV`, the valuation date `T` = the latest of those dates, `Iₓ` the index level on or before date x.
/// Each flow is carried to `T` with the index: `FVₖ = aₖ · I_T / Iₖ`, and the NAV too:
/// `NAV_T = NAV · I_T / I_NAV` (equal to the NAV when it is dated `T`, the usual case).
/// `FV(C) = Σ_{aₖ<0} −FVₖ`, `FV(D) = Σ_{aₖ>0} FVₖ`.
public struct PMEResult: Sendable, Hashable {
    /// The date all flows are carried to (the latest flow or NAV date).
    public var valuationDate: CivilDate
    /// Kaplan–Schoar PME: `(FV(D) + NAV_T) / FV(C)`; above 1 means the fund beat the index.
    /// Kaplan & Schoar (2005), "Private Equity Performance: Returns, Persistence, and Capital Flows",
    /// *Journal of Finance* 60(4). Equal to pyxirr's `pe.ks_pme`.
    public var ksPME: Double?
    /// Direct Alpha: the XIRR (annual, effective) of the index-compounded flows `FVₖ` at their own dates
    /// plus `NAV_T` at `T`. Gredil, Griffiths & Stucke (2014), "Benchmarking Private Equity: The Direct
    /// Alpha Method". Their continuously compounded alpha is `log(1 + directAlpha)`. pyxirr's
    /// `pe.direct_alpha` is the periodic IRR of the same flows.
    public var directAlpha: Double?
    /// Long–Nickels PME: the XIRR of the fund's calls and distributions with the final value replaced by
    /// the value of the same flows invested in the index, `lnPMENAV = FV(C) − FV(D)`, at `T`.
    /// Long & Nickels (1996), "A Private Investment Benchmark". pyxirr's `pe.ln_pme` is the periodic IRR.
    public var lnPME: Double?
    /// `FV(C) − FV(D)`: the index-replicating position's value at `T` (may be negative when the fund
    /// distributed more than the index would have allowed — the known flaw PME+ corrects).
    public var lnPMENAV: Double
    /// PME+: the XIRR of the calls, the distributions scaled by `λ`, and `NAV_T` at `T`, where
    /// `λ = (FV(C) − NAV_T) / FV(D)` makes the index position end at the fund's NAV.
    /// Rouvinez (2003), "Private Equity Benchmarking with PME+", *Venture Capital Journal*.
    /// pyxirr's `pe.pme_plus_lambda` gives the same λ; `pe.pme_plus` is the periodic IRR.
    public var pmePlus: Double?
    /// The PME+ scaling factor `λ`; `nil` without distributions.
    public var pmePlusLambda: Double?
    /// Why a measure is `nil` (e.g. "lnPme: all cash flows are negative ..."), or that its XIRR has
    /// other roots (then the root nearest 0.1 is reported, as for every XIRR).
    public var notes: [String]
}

/// Computes the four PME measures of a fund's flows against an index.
/// - Parameters:
///   - flows: the fund's calls (negative) and distributions (positive), without the NAV.
///   - nav: the latest NAV as a flow (amount ≥ 0 at its report date), or `nil` when none.
///   - indexLevel: the index level on or before a date; must be defined at every flow, NAV and valuation
///     date (the fund layer checks this and names the offending line).
///   - dayCount: year fractions for the XIRR-based measures.
public func publicMarketEquivalent(
    flows: [CashFlow], nav: CashFlow?, dayCount: DayCount = .actual365Fixed, indexLevel: (CivilDate) -> Double
) -> PMEResult {
    precondition(!flows.isEmpty || nav != nil, "publicMarketEquivalent needs at least one flow or a NAV")
    let valuationDate = (flows.map(\.date) + [nav?.date].compactMap { $0 }).max()!
    let finalLevel = indexLevel(valuationDate)
    var futureValues: [CashFlow] = []
    var fvContributions = 0.0, fvDistributions = 0.0
    // The same sums in index units (Σ|aₖ|/Iₖ): KS-PME needs no I_T, and computed this way it equals, to the
    // bit, the running value of `FundMetrics.multiplesAtNAVDates` (same terms, same order).
    var contributionsOverIndex = 0.0, distributionsOverIndex = 0.0
    for f in flows {
        let level = indexLevel(f.date)
        let fv = f.amount * finalLevel / level
        futureValues.append(CashFlow(date: f.date, amount: fv))
        if fv < 0 {
            fvContributions -= fv
            contributionsOverIndex += -f.amount / level
        } else {
            fvDistributions += fv
            distributionsOverIndex += f.amount / level
        }
    }
    let navAtValuation = nav.map { $0.amount * finalLevel / indexLevel($0.date) } ?? 0
    var notes: [String] = []
    func rate(_ name: String, _ f: [CashFlow]) -> Double? {
        do {
            let result = try xirr(flows: f, dayCount: dayCount)
            if !result.otherRoots.isEmpty {
                notes.append("\(name): other roots \(result.otherRoots.map { "\($0)" }.joined(separator: ", ")); "
                    + "reported the one nearest 0.1")
            }
            return result.rate
        } catch {
            notes.append("\(name): \(error.description)")
            return nil
        }
    }
    let ks: Double?
    if fvContributions > 0 {
        // (FV(D) + NAV_T) / FV(C) with the common factor I_T cancelled.
        ks = (distributionsOverIndex + (nav.map { $0.amount / indexLevel($0.date) } ?? 0)) / contributionsOverIndex
    } else {
        ks = nil
        notes.append("ksPme: no capital calls")
    }
    let directAlpha = rate("directAlpha", futureValues + [CashFlow(date: valuationDate, amount: navAtValuation)])
    let lnNAV = fvContributions - fvDistributions
    let lnPME = rate("lnPme", flows + [CashFlow(date: valuationDate, amount: lnNAV)])
    var lambda: Double? = nil
    var pmePlus: Double? = nil
    if fvDistributions > 0 {
        let l = (fvContributions - navAtValuation) / fvDistributions
        lambda = l
        pmePlus = rate("pmePlus", flows.map { $0.amount > 0 ? CashFlow(date: $0.date, amount: $0.amount * l) : $0 }
            + [CashFlow(date: valuationDate, amount: navAtValuation)])
    } else {
        notes.append("pmePlus: no distributions, so the scaling factor λ is undefined")
    }
    return PMEResult(
        valuationDate: valuationDate, ksPME: ks, directAlpha: directAlpha, lnPME: lnPME, lnPMENAV: lnNAV,
        pmePlus: pmePlus, pmePlusLambda: lambda, notes: notes)
}
