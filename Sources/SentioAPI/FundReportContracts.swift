import Foundation
import SentioCore
import SentioFunds

/// `sentio fund --format json` (the default `report` view): Sentio's own fund report, every metric of
/// SentioFunds' `FundReport` with its conventions.
///
/// Keys in declaration order. Rates and multiples are **decimal fractions** (`0.15` = 15 %); money is the
/// engine's exact decimal written as the nearest `Double` (amounts of up to 15 significant digits, such as
/// cents below 10¹³, print exactly as in the events); dates are midnight UTC (`"2024-12-31T00:00:00Z"`). A
/// figure the engine cannot define is `null` with a note saying why (`irrNote`, `pooledIrrNote`, `pme.notes`):
/// DPI/RVPI/TVPI without paid-in capital, PIC without a commitment, an IRR without a certified rate, a missing
/// metadata field. `pme` is present only with an index.
public struct FundReportResponse: Sendable, Hashable, Codable {
    /// The report's as-of date: the requested one, else the latest fund as-of date.
    public var asOf: APITimestamp?
    public var conventions: Conventions
    public var funds: [FundEntry]
    public var portfolioSummary: Summary

    /// How to read the numbers.
    public struct Conventions: Sendable, Hashable, Codable {
        /// The day count's code (`act365f`, …) and name.
        public var dayCount: String
        public var dayCountName: String
        public var rates: String
        public var irrRootRule: String
        public var paidIn: String
        /// The index file of the PME measures, or `null`.
        public var index: String?
    }

    /// One fund.
    public struct FundEntry: Sendable, Hashable, Codable {
        /// The fund id of the events file.
        public var id: String
        public var name: String?
        public var domicile: String?
        public var vintage: Int?
        public var manager: String?
        public var asOf: APITimestamp
        public var commitment: Double
        public var paidIn: Double
        public var unfunded: Double
        public var distributions: Double
        public var nav: Double
        public var lastReportDate: APITimestamp?
        public var dpi: Double?
        public var rvpi: Double?
        public var tvpi: Double?
        public var pic: Double?
        public var irr: Double?
        public var irrNote: String?
        public var navHistory: [NAV]
        public var capitalCalls: [Call]
        /// Only with an index (the key is absent otherwise).
        public var pme: PME?

        enum CodingKeys: String, CodingKey {
            case id, name, domicile, vintage, manager, asOf, commitment, paidIn, unfunded, distributions, nav
            case lastReportDate, dpi, rvpi, tvpi, pic, irr, irrNote, navHistory, capitalCalls, pme
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(name, forKey: .name)
            try c.encode(domicile, forKey: .domicile)
            try c.encode(vintage, forKey: .vintage)
            try c.encode(manager, forKey: .manager)
            try c.encode(asOf, forKey: .asOf)
            try c.encode(commitment, forKey: .commitment)
            try c.encode(paidIn, forKey: .paidIn)
            try c.encode(unfunded, forKey: .unfunded)
            try c.encode(distributions, forKey: .distributions)
            try c.encode(nav, forKey: .nav)
            try c.encode(lastReportDate, forKey: .lastReportDate)
            try c.encode(dpi, forKey: .dpi)
            try c.encode(rvpi, forKey: .rvpi)
            try c.encode(tvpi, forKey: .tvpi)
            try c.encode(pic, forKey: .pic)
            try c.encode(irr, forKey: .irr)
            try c.encode(irrNote, forKey: .irrNote)
            try c.encode(navHistory, forKey: .navHistory)
            try c.encode(capitalCalls, forKey: .capitalCalls)
            if let pme { try c.encode(pme, forKey: .pme) }
        }
    }

    /// A reported NAV (`id` is the engine's, `FUND-Nnnn`).
    public struct NAV: Sendable, Hashable, Codable {
        public var id: String
        public var date: APITimestamp
        public var nav: Double
        /// The report's link from the events, or `null`.
        public var url: String?
    }

    /// A capital call (`id` is the engine's, `FUND-Cnnn`); `paymentStatus` is the engine's status as of the
    /// fund's as-of date (PAID, or PENDING/LATE/OVERDUE for an unpaid call, see SentioFunds' `CapitalCall`).
    public struct Call: Sendable, Hashable, Codable {
        public var id: String
        public var callDate: APITimestamp
        public var dueDate: APITimestamp?
        public var callAmount: Double
        public var paymentStatus: String
        public var paymentDate: APITimestamp?
        public var url: String?
    }

    /// The PME measures (rates as decimal fractions, KS-PME and λ as ratios; see SentioFunds' `PMEResult`).
    public struct PME: Sendable, Hashable, Codable {
        public var valuationDate: APITimestamp
        public var ksPme: Double?
        public var directAlpha: Double?
        public var lnPme: Double?
        public var lnPmeNav: Double?
        public var pmePlus: Double?
        public var pmePlusLambda: Double?
        public var notes: [String]
    }

    /// Totals over the funds.
    public struct Summary: Sendable, Hashable, Codable {
        public var totalCommitment: Double
        public var totalPaidIn: Double
        public var totalDistributions: Double
        public var totalNav: Double
        public var portfolioTvpi: Double?
        public var activeCapitalCalls: Int
        public var pooledIrr: Double?
        public var pooledIrrNote: String?
    }

    /// The report in this shape. Non-finite figures become `null` (the engine gives them only where the
    /// figure is undefined, e.g. no paid-in capital).
    public init(_ report: FundReport) {
        func finite(_ x: Double?) -> Double? { x.flatMap { $0.isFinite ? $0 : nil } }
        asOf = report.asOf.map(APITimestamp.init)
        conventions = Conventions(
            dayCount: report.dayCount.rawValue, dayCountName: report.dayCount.displayName,
            rates: "decimal fractions (0.15 = 15%); multiples as ratios",
            irrRootRule: "unique root when flows change sign once; otherwise the root nearest the guess 0.1; "
                + "every rate leaves |XNPV| <= 1e-9 of the sum of |flows| (else null with a note); zero flows are ignored",
            paidIn: "calls with status PAID or no status, paid (payment_date) on or before the as-of date; "
                + "PENDING, LATE and OVERDUE calls are unpaid",
            index: report.indexFile)
        funds = report.funds.map { e in
            let m = e.metrics, meta = e.metadata
            var irrNote: String? = m.irrError?.description
            if irrNote == nil, let r = m.irr, !r.otherRoots.isEmpty {
                irrNote = "other roots: " + r.otherRoots.map { "\($0)" }.joined(separator: ", ")
            }
            return FundEntry(
                id: m.id, name: meta?.name, domicile: meta?.domicile, vintage: meta?.vintage, manager: meta?.manager,
                asOf: APITimestamp(m.asOf), commitment: m.commitment.doubleValue, paidIn: m.paidIn.doubleValue,
                unfunded: m.unfunded.doubleValue, distributions: m.distributions.doubleValue, nav: m.nav.doubleValue,
                lastReportDate: m.lastReportDate.map(APITimestamp.init), dpi: finite(m.dpi), rvpi: finite(m.rvpi),
                tvpi: finite(m.tvpi), pic: finite(m.pic), irr: finite(m.irr?.rate), irrNote: irrNote,
                navHistory: m.navHistory.map { NAV(id: $0.id, date: APITimestamp($0.date), nav: $0.nav.doubleValue, url: $0.url) },
                capitalCalls: m.capitalCalls.map {
                    Call(id: $0.id, callDate: APITimestamp($0.callDate), dueDate: $0.dueDate.map(APITimestamp.init),
                         callAmount: $0.amount.doubleValue, paymentStatus: $0.status.rawValue,
                         paymentDate: $0.paymentDate.map(APITimestamp.init), url: $0.url)
                },
                pme: e.pme.map { p in
                    PME(valuationDate: APITimestamp(p.valuationDate), ksPme: finite(p.ksPME), directAlpha: finite(p.directAlpha),
                        lnPme: finite(p.lnPME), lnPmeNav: finite(p.lnPMENAV), pmePlus: finite(p.pmePlus),
                        pmePlusLambda: finite(p.pmePlusLambda), notes: p.notes)
                })
        }
        let p = report.portfolio
        portfolioSummary = Summary(
            totalCommitment: p.totalCommitment.doubleValue, totalPaidIn: p.totalPaidIn.doubleValue,
            totalDistributions: p.totalDistributions.doubleValue, totalNav: p.totalNav.doubleValue,
            portfolioTvpi: finite(p.portfolioTvpi), activeCapitalCalls: p.activeCapitalCalls,
            pooledIrr: finite(p.pooledIrr?.rate), pooledIrrNote: p.pooledIrrError?.description)
    }
}
