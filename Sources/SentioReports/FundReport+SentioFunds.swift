import Foundation
import SentioCore
import SentioFunds

extension FundReportContent {
    /// The report content of `sentio fund`: SentioFunds' report plus, per fund, the series recomputed from
    /// its events — cumulative paid-in and distributions at each cash-flow date (the fund's own IRR flows),
    /// and TVPI, DPI and (with an index) Kaplan–Schoar PME as of each NAV report date, from
    /// `FundMetrics.multiplesAtNAVDates(events:asOf:index:)` (the same values as `FundMetrics(id:events:asOf:)`
    /// as of each date, in O(n log n)).
    public init(report: FundReport, events: FundEventFile, index: IndexSeries?, title: String = "Fund report") throws {
        func money(_ v: Double) -> String { NumberText.fixed(v, decimals: 0) }
        func rate(_ v: Double) -> String { NumberText.percent(100 * v) }
        func multiple(_ v: Double) -> String { NumberText.fixed(v, decimals: 2, grouping: false) + "x" }
        let p = report.portfolio
        let portfolio = [
            Statistic(key: "totalCommitment", label: "Total commitment", value: p.totalCommitment.doubleValue, format: money),
            Statistic(key: "totalPaidIn", label: "Paid-in", value: p.totalPaidIn.doubleValue, format: money),
            Statistic(key: "totalDistributions", label: "Distributions", value: p.totalDistributions.doubleValue, format: money),
            Statistic(key: "totalNav", label: "Total NAV", value: p.totalNav.doubleValue, format: money),
            Statistic(key: "portfolioTvpi", label: "Portfolio TVPI", value: p.portfolioTvpi, format: multiple),
            Statistic(key: "pooledIrr", label: "Pooled IRR", value: p.pooledIrr?.rate, signed: true, format: rate),
            Statistic(key: "activeCapitalCalls", label: "Active capital calls", value: Double(p.activeCapitalCalls)) { NumberText.fixed($0, decimals: 0) },
        ]
        var notes = ["IRR: XIRR with day count \(report.dayCount.rawValue) of paid calls (negative), distributions and the latest NAV "
            + "as a final flow. Multiples: DPI = distributions / paid-in, TVPI = (distributions + NAV) / paid-in."]
        if let file = report.indexFile {
            notes.append("Public market equivalents against the index in \(file) (level on or before each flow date).")
        }

        var funds: [Fund] = []
        for entry in report.funds {
            let m = entry.metrics
            let meta = entry.metadata
            var details: [String] = []
            if let manager = meta?.manager { details.append("Manager \(manager)") }
            if let domicile = meta?.domicile { details.append("domicile \(domicile)") }
            if let vintage = meta?.vintage { details.append("vintage \(vintage)") }
            details.append("as of \(m.asOf)")
            var headline = [
                Statistic(key: "commitment", label: "Commitment", value: m.commitment.doubleValue, format: money),
                Statistic(key: "paidIn", label: "Paid-in", value: m.paidIn.doubleValue, format: money),
                Statistic(key: "unfunded", label: "Unfunded", value: m.unfunded.doubleValue, format: money),
                Statistic(key: "distributions", label: "Distributions", value: m.distributions.doubleValue, format: money),
                Statistic(key: "nav", label: "NAV", value: m.nav.doubleValue, format: money),
                Statistic(key: "irr", label: "IRR", value: m.irr?.rate, signed: true, format: rate),
                Statistic(key: "tvpi", label: "TVPI", value: m.tvpi, format: multiple),
                Statistic(key: "dpi", label: "DPI", value: m.dpi, format: multiple),
                Statistic(key: "rvpi", label: "RVPI", value: m.rvpi, format: multiple),
                Statistic(key: "pic", label: "PIC", value: m.pic, format: multiple),
            ]
            if m.activeCapitalCalls > 0 {
                headline.append(Statistic(key: "activeCapitalCalls", label: "Active calls", value: Double(m.activeCapitalCalls)) { NumberText.fixed($0, decimals: 0) })
            }
            var pme: [Statistic] = []
            var pmeNotes: [String] = []
            if let r = entry.pme {
                pme = [
                    Statistic(key: "ksPME", label: "KS-PME", value: r.ksPME, format: multiple),
                    Statistic(key: "directAlpha", label: "Direct Alpha", value: r.directAlpha, signed: true, format: rate),
                    Statistic(key: "lnPME", label: "Long–Nickels PME (IRR)", value: r.lnPME, format: rate),
                    Statistic(key: "pmePlus", label: "PME+ (IRR)", value: r.pmePlus, format: rate),
                    Statistic(key: "irrMinusLnPME", label: "IRR − LN-PME", value: m.irr.flatMap { irr in r.lnPME.map { irr.rate - $0 } },
                              signed: true, format: rate),
                ]
                pmeNotes = ["KS-PME > 1 and Direct Alpha > 0 mean the fund beat the index; LN-PME and PME+ are the IRRs an "
                    + "investor would have earned with the same calls and distributions in the index."] + r.notes
            }

            // Cumulative flows from the fund's IRR flows (paid calls negative, distributions positive).
            var callDates: [CivilDate] = [], callValues: [Double] = []
            var distributionDates: [CivilDate] = [], distributionValues: [Double] = []
            var paid = 0.0, distributed = 0.0
            for f in m.cashFlows {
                if f.amount < 0 {
                    paid -= f.amount
                    if callDates.last == f.date { callValues[callValues.count - 1] = paid } else { callDates.append(f.date); callValues.append(paid) }
                } else {
                    distributed += f.amount
                    if distributionDates.last == f.date { distributionValues[distributionValues.count - 1] = distributed } else { distributionDates.append(f.date); distributionValues.append(distributed) }
                }
            }

            // Multiples as of each NAV date, carried forward in one pass over the events (O(n log n); recomputing
            // FundMetrics per date, with its IRR, was O(n²)).
            let fundEvents = events.eventsByFund[m.id] ?? []
            let history = FundMetrics.multiplesAtNAVDates(events: fundEvents, asOf: m.asOf, index: index)
            let navDates = m.navHistory.map(\.date)
            precondition(history.map(\.date) == navDates, "NAV history and multiples history differ")
            let tvpi = history.map { $0.tvpi ?? .nan }, dpi = history.map { $0.dpi ?? .nan }
            let ks = index == nil ? [] : history.map { $0.ksPME ?? .nan }
            let calls = m.capitalCalls.map {
                Call(id: $0.id, callDate: $0.callDate, dueDate: $0.dueDate, amount: $0.amount.doubleValue, status: $0.status.rawValue)
            }
            funds.append(Fund(
                id: m.id, name: meta?.name ?? m.id, details: details.joined(separator: ", ") + ".", headline: headline, pme: pme,
                pmeNotes: pmeNotes,
                nav: DatedSeries(dates: navDates, values: m.navHistory.map(\.nav.doubleValue)),
                cumulativeCalls: DatedSeries(dates: callDates, values: callValues),
                cumulativeDistributions: DatedSeries(dates: distributionDates, values: distributionValues),
                tvpi: DatedSeries(dates: navDates, values: tvpi), dpi: DatedSeries(dates: navDates, values: dpi),
                ksPME: index == nil ? nil : DatedSeries(dates: navDates, values: ks), calls: calls))
        }
        let asOf = report.asOf.map { "as of \($0)" } ?? ""
        self.init(title: title, subtitle: "\(report.funds.count) funds \(asOf)", portfolio: portfolio, funds: funds, notes: notes)
    }
}

/// Writes the HTML report of `sentio fund` to `path` (atomically).
public func writeFundReport(report: FundReport, events: FundEventFile, index: IndexSeries?, to path: String) throws {
    let content = try FundReportContent(report: report, events: events, index: index)
    try writeReportAtomically(FundReportRenderer().render(content), to: path)
}
