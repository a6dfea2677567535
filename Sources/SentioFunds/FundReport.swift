import Foundation
import SentioCore

/// The `sentio fund` report: every fund's metrics (and PME when an index is given) plus the portfolio
/// summary, rendered as JSON or as a text table.
///
/// JSON shape (keys in this order; rates and multiples are decimal fractions, 0.15 = 15 %; money is an
/// exact decimal number; dates are `YYYY-MM-DD`; an undefined value is `null` with a `…Note` saying why):
/// ```
/// { "asOf": date|null,
///   "conventions": { "dayCount", "dayCountName", "rates", "irrRootRule", "paidIn", "index" },
///   "funds": [ { "id", "name", "domicile", "vintage", "manager", "asOf", "commitment", "paidIn", "unfunded",
///                "distributions", "nav", "lastReportDate", "dpi", "rvpi", "tvpi", "pic", "irr", "irrNote",
///                "navHistory": [ { "id", "date", "nav" } ],
///                "capitalCalls": [ { "id", "callDate", "dueDate", "callAmount", "paymentStatus" } ],
///                "pme": { "valuationDate", "ksPme", "directAlpha", "lnPme", "lnPmeNav", "pmePlus",
///                         "pmePlusLambda", "notes": [..] } } ],      // "pme" only with an index
///   "portfolioSummary": { "totalCommitment", "totalPaidIn", "totalDistributions", "totalNav",
///                         "portfolioTvpi", "activeCapitalCalls", "pooledIrr", "pooledIrrNote" } }
/// ```
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

    // MARK: JSON

    /// Pretty-printed JSON in the documented key order, ending with a newline.
    public func json() -> String {
        var out = ""
        jsonValue.write(to: &out, indent: 0)
        return out + "\n"
    }

    var jsonValue: JSONValue {
        .object([
            ("asOf", .date(asOf)),
            ("conventions", .object([
                ("dayCount", .string(dayCount.rawValue)),
                ("dayCountName", .string(dayCount.displayName)),
                ("rates", .string("decimal fractions (0.15 = 15%); multiples as ratios")),
                ("irrRootRule", .string("unique root when flows change sign once; otherwise the root nearest the guess 0.1; "
                    + "every rate leaves |XNPV| <= 1e-9 of the sum of |flows| (else null with a note); zero flows are ignored")),
                ("paidIn", .string("calls with status PAID or no status; PENDING, LATE and OVERDUE calls are unpaid")),
                ("index", indexFile.map { .string($0) } ?? .null),
            ])),
            ("funds", .array(funds.map(Self.fundJSON))),
            ("portfolioSummary", .object([
                ("totalCommitment", .decimal(portfolio.totalCommitment)),
                ("totalPaidIn", .decimal(portfolio.totalPaidIn)),
                ("totalDistributions", .decimal(portfolio.totalDistributions)),
                ("totalNav", .decimal(portfolio.totalNav)),
                ("portfolioTvpi", .number(portfolio.portfolioTvpi)),
                ("activeCapitalCalls", .int(portfolio.activeCapitalCalls)),
                ("pooledIrr", .number(portfolio.pooledIrr?.rate)),
                ("pooledIrrNote", portfolio.pooledIrrError.map { .string($0.description) } ?? .null),
            ])),
        ])
    }

    private static func fundJSON(_ entry: Entry) -> JSONValue {
        let m = entry.metrics, meta = entry.metadata
        var fields: [(String, JSONValue)] = [
            ("id", .string(m.id)),
            ("name", meta?.name.map { .string($0) } ?? .null),
            ("domicile", meta?.domicile.map { .string($0) } ?? .null),
            ("vintage", meta?.vintage.map { .int($0) } ?? .null),
            ("manager", meta?.manager.map { .string($0) } ?? .null),
            ("asOf", .date(m.asOf)),
            ("commitment", .decimal(m.commitment)),
            ("paidIn", .decimal(m.paidIn)),
            ("unfunded", .decimal(m.unfunded)),
            ("distributions", .decimal(m.distributions)),
            ("nav", .decimal(m.nav)),
            ("lastReportDate", .date(m.lastReportDate)),
            ("dpi", .number(m.dpi)),
            ("rvpi", .number(m.rvpi)),
            ("tvpi", .number(m.tvpi)),
            ("pic", .number(m.pic)),
            ("irr", .number(m.irr?.rate)),
            ("irrNote", irrNote(m.irr, m.irrError)),
            ("navHistory", .array(m.navHistory.map {
                .object([("id", .string($0.id)), ("date", .date($0.date)), ("nav", .decimal($0.nav))])
            })),
            ("capitalCalls", .array(m.capitalCalls.map {
                .object([
                    ("id", .string($0.id)), ("callDate", .date($0.callDate)), ("dueDate", .date($0.dueDate)),
                    ("callAmount", .decimal($0.amount)), ("paymentStatus", .string($0.status.rawValue)),
                ])
            })),
        ]
        if let p = entry.pme {
            fields.append(("pme", .object([
                ("valuationDate", .date(p.valuationDate)),
                ("ksPme", .number(p.ksPME)),
                ("directAlpha", .number(p.directAlpha)),
                ("lnPme", .number(p.lnPME)),
                ("lnPmeNav", .number(p.lnPMENAV)),
                ("pmePlus", .number(p.pmePlus)),
                ("pmePlusLambda", .number(p.pmePlusLambda)),
                ("notes", .array(p.notes.map { .string($0) })),
            ])))
        }
        return .object(fields)
    }

    private static func irrNote(_ result: XIRRResult?, _ error: XIRRError?) -> JSONValue {
        if let error { return .string(error.description) }
        if let result, !result.otherRoots.isEmpty {
            return .string("other roots: " + result.otherRoots.map { "\($0)" }.joined(separator: ", "))
        }
        return .null
    }

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

/// A JSON value with ordered object keys, for deterministic hand-ordered output.
enum JSONValue {
    case null
    case string(String)
    case raw(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func number(_ x: Double?) -> JSONValue {
        guard let x, x.isFinite else { return .null }
        return .raw("\(x)")
    }
    static func int(_ n: Int) -> JSONValue { .raw(String(n)) }
    static func decimal(_ d: Decimal) -> JSONValue { .raw(d.description) }
    static func date(_ d: CivilDate?) -> JSONValue { d.map { .string($0.description) } ?? .null }

    func write(to out: inout String, indent: Int) {
        let pad = String(repeating: "  ", count: indent + 1), closing = String(repeating: "  ", count: indent)
        switch self {
        case .null: out += "null"
        case .raw(let text): out += text
        case .string(let s): out += Self.quoted(s)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[\n"
            for (k, item) in items.enumerated() {
                out += pad
                item.write(to: &out, indent: indent + 1)
                out += k + 1 < items.count ? ",\n" : "\n"
            }
            out += closing + "]"
        case .object(let fields):
            if fields.isEmpty { out += "{}"; return }
            out += "{\n"
            for (k, (key, value)) in fields.enumerated() {
                out += pad + Self.quoted(key) + ": "
                value.write(to: &out, indent: indent + 1)
                out += k + 1 < fields.count ? ",\n" : "\n"
            }
            out += closing + "}"
        }
    }

    static func quoted(_ s: String) -> String { JSONText.quoted(s) }
}
