import Foundation
import SentioCore

/// The `sentio fund` report: every fund's metrics (and PME when an index is given) plus the portfolio
/// summary. ``table()`` renders it as text; its JSON form is SentioAPI's `FundReportResponse` (written by the
/// one contract encoder, `APIJSON`).
public struct FundReport: Sendable {
    public struct Entry: Sendable {
        public var metrics: FundMetrics
        public var metadata: FundMetadata?
        public var pme: PMEResult?
    }

    /// The requested as-of date, or `nil` for each fund's last event.
    public var requestedAsOf: CivilDate?
    public var dayCount: DayCount
    public var funds: [Entry]
    public var portfolio: PortfolioSummary
    public var indexFile: String?

    /// Builds the report. Events after `asOf` are ignored.
    ///
    /// An `asOf` before the file's first event is an error, not a report of zeros (no fund would have any
    /// event to report). A fund whose own first event comes after `asOf` (while others have started) is
    /// reported with zero amounts and no IRR, which is what it held then.
    /// - Throws: `FundInputError` for a fund missing from `metadata`, a flow dated before the index, or an
    ///   `asOf` before the first event (naming that event's line).
    public init(
        events: FundEventFile, metadata: FundMetadataFile? = nil, index: IndexSeries? = nil, asOf: CivilDate? = nil,
        dayCount: DayCount = .actual365Fixed
    ) throws(FundInputError) {
        if let metadata { try events.validate(against: metadata) }
        if let asOf, let first = events.firstEvent, asOf < first.date {
            throw FundInputError(file: events.file, line: first.line > 0 ? first.line : nil, field: "date",
                message: "the as-of date \(asOf) is before the first event (fund '\(first.fundID)' on \(first.date)): "
                    + "nothing had happened yet, every figure would be zero")
        }
        var entries: [Entry] = []
        for id in events.fundIDs {
            let metrics = FundMetrics(id: id, events: events.eventsByFund[id]!, asOf: asOf, dayCount: dayCount)
            let pme = try index.flatMap { index throws(FundInputError) in
                try metrics.publicMarketEquivalent(index: index, eventsFile: events.file, dayCount: dayCount)
            }
            entries.append(Entry(metrics: metrics, metadata: metadata?.funds[id], pme: pme))
        }
        self.requestedAsOf = asOf
        self.dayCount = dayCount
        self.funds = entries
        self.portfolio = PortfolioSummary(funds: entries.map(\.metrics), dayCount: dayCount)
        self.indexFile = index?.file
    }

    /// The report's as-of date: the requested one, else the latest fund as-of date.
    public var asOf: CivilDate? { requestedAsOf ?? funds.map(\.metrics.asOf).max() }

    // MARK: Table

    /// A readable text table: one row per fund, the portfolio summary, and the PME table when an index
    /// was given. IRRs in percent here (JSON has decimal fractions).
    public func table() -> String {
        var lines: [String] = []
        let asOfText = requestedAsOf.map { "as of \($0)" } ?? "as of each fund's last event"
        lines.append("Funds \(asOfText) (day count \(dayCount.displayName))")
        lines.append("")
        var rows: [[String]] = [["id", "name", "vintage", "commitment", "paid-in", "unfunded", "distributions", "NAV",
            "NAV date", "DPI", "RVPI", "TVPI", "PIC", "IRR", "active calls"]]
        for e in funds {
            let m = e.metrics
            rows.append([
                m.id, e.metadata?.name ?? "-", e.metadata?.vintage.map(String.init) ?? "-", money(m.commitment),
                money(m.paidIn), money(m.unfunded), money(m.distributions), money(m.nav),
                m.lastReportDate?.description ?? "-", ratio(m.dpi), ratio(m.rvpi), ratio(m.tvpi), ratio(m.pic),
                percent(m.irr?.rate), String(m.activeCapitalCalls),
            ])
        }
        lines += Self.align(rows, rightAligned: Set(2..<15))
        lines.append("")
        let p = portfolio
        lines.append("Portfolio: commitment \(money(p.totalCommitment)), paid-in \(money(p.totalPaidIn)), "
            + "distributions \(money(p.totalDistributions)), NAV \(money(p.totalNav))")
        lines.append("           TVPI \(ratio(p.portfolioTvpi)), pooled IRR \(percent(p.pooledIrr?.rate)), "
            + "active capital calls \(p.activeCapitalCalls)")
        let notes = funds.compactMap { e in e.metrics.irrError.map { "\(e.metrics.id) IRR: \($0.description)" } }
            + [p.pooledIrrError.map { "pooled IRR: \($0.description)" }].compactMap { $0 }
        if let indexFile {
            lines.append("")
            lines.append("PME against \(indexFile) (flows carried to the valuation date with the index)")
            var pmeRows: [[String]] = [["id", "valuation", "IRR", "KS-PME", "Direct Alpha", "LN-PME", "PME+", "PME+ λ"]]
            for e in funds {
                guard let pme = e.pme else { continue }
                pmeRows.append([
                    e.metrics.id, pme.valuationDate.description, percent(e.metrics.irr?.rate), ratio(pme.ksPME),
                    percent(pme.directAlpha), percent(pme.lnPME), percent(pme.pmePlus), ratio(pme.pmePlusLambda),
                ])
            }
            lines += Self.align(pmeRows, rightAligned: Set(2..<8))
        }
        let pmeNotes = funds.flatMap { e in (e.pme?.notes ?? []).map { "\(e.metrics.id) \($0)" } }
        if !(notes + pmeNotes).isEmpty {
            lines.append("")
            lines += (notes + pmeNotes).map { "note: \($0)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func money(_ d: Decimal) -> String {
        var value = d, rounded = Decimal()
        NSDecimalRound(&rounded, &value, 2, .plain)
        let text = rounded.description
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let integer = String(parts[0])
        var fraction = parts.count > 1 ? String(parts[1]) : ""
        while fraction.count < 2 { fraction += "0" }
        let negative = integer.hasPrefix("-")
        let digits = Array(negative ? integer.dropFirst() : Substring(integer))
        var grouped = ""
        for (k, c) in digits.enumerated() {
            if k > 0 && (digits.count - k) % 3 == 0 { grouped += "," }
            grouped.append(c)
        }
        return (negative ? "-" : "") + grouped + "." + fraction
    }

    private func ratio(_ x: Double?) -> String { x.map { String(format: "%.4f", $0) } ?? "n/a" }
    private func percent(_ x: Double?) -> String { x.map { String(format: "%.2f%%", $0 * 100) } ?? "n/a" }

    private static func align(_ rows: [[String]], rightAligned: Set<Int>) -> [String] {
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows { for (k, c) in row.enumerated() { widths[k] = max(widths[k], c.count) } }
        return rows.map { row in
            row.enumerated().map { k, c in
                let pad = String(repeating: " ", count: widths[k] - c.count)
                return rightAligned.contains(k) ? pad + c : c + pad
            }.joined(separator: "  ").trimmed(of: " ")
        }
    }
}

extension FundEventFile {
    /// The earliest event over all funds (the first in file order among those on the earliest date).
    public var firstEvent: FundEvent? {
        fundIDs.compactMap { eventsByFund[$0]?.first }.min { ($0.date, $0.line) < ($1.date, $1.line) }
    }
}
