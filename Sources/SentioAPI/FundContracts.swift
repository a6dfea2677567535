import Foundation
import SentioCore
import SentioFunds
import SentioSignals

/// Adapters from the fund engine (SentioFunds: `FundMetrics`, `FundReport`) to ``Fund``, ``FundDetail``,
/// ``Document``, ``PortfolioSummary`` and ``Dashboard``.
///
/// Money is the engine's exact decimal converted to the nearest `Double`. A figure the engine cannot define
/// (no IRR, no paid-in capital so no TVPI/DPI, no NAV report yet, missing metadata) is an
/// ``APIContractError`` naming the fund and the field, never `null` or 0.
///
/// **Capital-call documents.** Each capital call on or before the as-of date becomes a `CAPITAL_CALL`
/// document: title `Capital Call #n` (n = 1-based number in call-date order, file order on the same date),
/// `uploadDate` the call date, `dueDate` the due date (`null` when the events give none), `callAmount` the
/// amount, `url` the events file's `url` cell of the call (or an override from `urls`, keyed by the engine's
/// call id, e.g. `NVP-III-C001`), else `null`, and `parsedData` `{"callNumber": "n", "percentage": "p%"}`
/// with p = 100 × amount / commitment (the commitment as of the as-of date), computed in exact decimals and
/// rounded to 2 decimals half away from zero, trailing zeros dropped (`"5%"`, `"6.87%"`, `"0.5%"`; `"n/a"`
/// for a zero commitment). `paymentStatus` follows ``paymentStatus(isPaid:callDate:dueDate:paymentDate:asOf:)``.
///
/// **Report documents.** Each NAV report becomes a document dated its report date: `ANNUAL_REPORT` when the
/// date is in December (the year-end report), `QUARTERLY_REPORT` otherwise; title `Annual Report YYYY` or
/// `Qn YYYY Quarterly Report` (quarter of the report date); `dueDate`, `callAmount` and `paymentStatus` are
/// `null`; `url` is the NAV row's `url` cell, else `null`; `parsedData` `{"period": "Qn YYYY"|"YYYY",
/// "nav": "<exact decimal>"}`. Documents are in date order, a call before a report on the same date.
public enum FundContracts {
    /// The payment status of a capital call as of `asOf`.
    ///
    /// The call is paid when SentioFunds counts it as paid in as of `asOf`: its status (SentioFunds' `CapitalCall.status`,
    /// already as of the metrics' as-of date) is PAID. PENDING, LATE and OVERDUE calls are unpaid (not in
    /// `paidIn`, counted in `activeCapitalCalls`), so the documents never contradict the fund's figures.
    /// The payment date is the call's `payment_date` from the events (or `paymentDate` when given), else the
    /// call date. The rule is ``paymentStatus(isPaid:callDate:dueDate:paymentDate:asOf:)``.
    public static func paymentStatus(of call: CapitalCall, paymentDate: CivilDate? = nil, asOf: CivilDate) -> PaymentStatus {
        paymentStatus(isPaid: !call.status.isActive, callDate: call.callDate, dueDate: call.dueDate,
            paymentDate: paymentDate ?? call.paymentDate, asOf: asOf)
    }

    /// The payment status of a capital call from its dates.
    ///
    /// With `paid` = `paymentDate` when given, else `callDate`, and the call counted as paid only when
    /// `isPaid` and `paid ≤ asOf` (a payment after the as-of date had not happened yet):
    /// - paid, and `paid ≤ dueDate` (or no due date) → `PAID`;
    /// - paid, and `paid > dueDate` → `LATE`;
    /// - not paid, and `asOf ≤ dueDate` (or no due date) → `PENDING`;
    /// - not paid, and `asOf > dueDate` → `OVERDUE`.
    ///
    /// A file's own PENDING/LATE/OVERDUE label only says "unpaid": the status is re-derived for the as-of
    /// date, so a call labelled LATE or OVERDUE whose due date is after the as-of date is `PENDING` then.
    public static func paymentStatus(
        isPaid: Bool, callDate: CivilDate, dueDate: CivilDate?, paymentDate: CivilDate? = nil, asOf: CivilDate
    ) -> PaymentStatus {
        let paid = paymentDate ?? callDate
        if isPaid && paid <= asOf {
            if let due = dueDate, paid > due { return .late }
            return .paid
        }
        if let due = dueDate, asOf > due { return .overdue }
        return .pending
    }

    /// The list form of a fund.
    /// - Throws: ``APIContractError`` for missing metadata (name, domicile, vintage, manager), no IRR
    ///   (with the engine's reason), no paid-in capital (TVPI/DPI undefined) or no NAV report yet.
    public static func fund(_ m: FundMetrics, metadata: FundMetadata?) throws(APIContractError) -> Fund {
        func missing(_ field: String, _ why: String) -> APIContractError {
            APIContractError(subject: m.id, field: field, message: why)
        }
        guard let meta = metadata else { throw missing("name", "no metadata for the fund (name, manager, domicile, vintage)") }
        guard let name = meta.name, !name.isEmpty else { throw missing("name", "missing from the fund metadata") }
        guard let domicile = meta.domicile, !domicile.isEmpty else { throw missing("domicile", "missing from the fund metadata") }
        guard let vintage = meta.vintage else { throw missing("vintage", "missing from the fund metadata") }
        guard let manager = meta.manager, !manager.isEmpty else { throw missing("manager", "missing from the fund metadata") }
        guard let irr = m.irr?.rate, irr.isFinite else {
            throw missing("irr", m.irrError.map { "undefined: \($0.description)" } ?? "undefined")
        }
        guard let tvpi = m.tvpi, let dpi = m.dpi, tvpi.isFinite, dpi.isFinite else {
            throw missing("tvpi", "undefined: no paid-in capital as of \(m.asOf)")
        }
        guard let last = m.lastReportDate else { throw missing("lastReportDate", "no NAV report on or before \(m.asOf)") }
        let history = m.navHistory.enumerated().map { k, p in
            NAVPoint(id: ContractID.make("nav", m.id, String(k + 1)), date: APITimestamp(p.date), nav: p.nav.doubleValue)
        }
        return Fund(
            id: ContractID.make("fund", m.id), name: name, domicile: domicile, vintage: vintage, manager: manager,
            commitment: m.commitment.doubleValue, paidIn: m.paidIn.doubleValue, nav: m.nav.doubleValue, irr: irr,
            tvpi: tvpi, dpi: dpi, lastReportDate: APITimestamp(last), navHistory: history)
    }

    /// The detail form: ``fund(_:metadata:)`` plus ``documents(_:urls:paymentDates:)``.
    public static func fundDetail(
        _ m: FundMetrics, metadata: FundMetadata?, urls: [String: String] = [:], paymentDates: [String: CivilDate] = [:]
    ) throws(APIContractError) -> FundDetail {
        FundDetail(fund: try fund(m, metadata: metadata), documents: documents(m, urls: urls, paymentDates: paymentDates))
    }

    /// The fund's documents: capital calls and NAV reports (rules in ``FundContracts``).
    /// - Parameters:
    ///   - m: the fund's metrics (its calls and NAV reports on or before its as-of date, with the events'
    ///     urls and payment dates).
    ///   - urls: document links by the engine's call or NAV id (`NVP-III-C001`, `NVP-III-N004`), replacing
    ///     the events' `url`; `url` is `null` where neither gives one.
    ///   - paymentDates: payment dates by call id, replacing the events' `payment_date` (see
    ///     ``paymentStatus(of:paymentDate:asOf:)``).
    public static func documents(
        _ m: FundMetrics, urls: [String: String] = [:], paymentDates: [String: CivilDate] = [:]
    ) -> [Document] {
        var dated: [(date: CivilDate, kind: Int, number: Int, document: Document)] = []
        for (k, call) in m.capitalCalls.enumerated() {
            let n = k + 1
            let percentage = m.commitment > 0 ? percentText(call.amount, of: m.commitment) : "n/a"
            dated.append((call.callDate, 0, n, Document(
                id: ContractID.make("document", m.id, "capital-call", String(n)), type: .capitalCall,
                title: "Capital Call #\(n)", uploadDate: APITimestamp(call.callDate), dueDate: call.dueDate.map(APITimestamp.init),
                callAmount: call.amount.doubleValue, paymentStatus: paymentStatus(of: call, paymentDate: paymentDates[call.id], asOf: m.asOf),
                url: urls[call.id] ?? call.url, parsedData: OrderedStrings([("callNumber", String(n)), ("percentage", percentage)]))))
        }
        for (k, point) in m.navHistory.enumerated() {
            let n = k + 1, d = point.date
            let annual = d.month == 12
            let quarter = "Q\((d.month - 1) / 3 + 1) \(d.year)"
            dated.append((d, 1, n, Document(
                id: ContractID.make("document", m.id, "report", String(n)),
                type: annual ? .annualReport : .quarterlyReport,
                title: annual ? "Annual Report \(d.year)" : "\(quarter) Quarterly Report", uploadDate: APITimestamp(d),
                dueDate: nil, callAmount: nil, paymentStatus: nil, url: urls[point.id] ?? point.url,
                parsedData: OrderedStrings([("period", annual ? String(d.year) : quarter), ("nav", point.nav.description)]))))
        }
        return dated.sorted { ($0.date, $0.kind, $0.number) < ($1.date, $1.kind, $1.number) }.map(\.document)
    }

    /// The contract form of the engine's portfolio summary. When the TVPI is undefined (no capital paid in, e.g. no
    /// fund at all: the dashboard of an investor with no accessible fund) it is written as `0.0` with
    /// `portfolioTvpiDefined: false` (see ``PortfolioSummary``).
    public static func portfolioSummary(_ p: SentioFunds.PortfolioSummary) -> PortfolioSummary {
        PortfolioSummary(
            totalCommitment: p.totalCommitment.doubleValue, totalNav: p.totalNav.doubleValue, portfolioTvpi: p.portfolioTvpi,
            activeCapitalCalls: p.activeCapitalCalls)
    }

    /// The funds of a report in list form, in the report's order.
    public static func funds(_ report: FundReport) throws(APIContractError) -> [Fund] {
        var out: [Fund] = []
        for e in report.funds { out.append(try fund(e.metrics, metadata: e.metadata)) }
        return out
    }

    /// `GET /api/dashboard` from a fund report and the crypto holdings (``CryptoContracts``).
    public static func dashboard(_ report: FundReport, crypto: CryptoHoldingsResponse) throws(APIContractError) -> Dashboard {
        Dashboard(portfolioSummary: portfolioSummary(report.portfolio), funds: try funds(report), cryptoHoldings: crypto.holdings)
    }

    /// `100 × part / whole` in exact decimals, rounded to 2 decimals half away from zero, trailing zeros
    /// dropped, with a `%` sign (`"5%"`, `"6.87%"`). `whole` must be positive.
    public static func percentText(_ part: Decimal, of whole: Decimal) -> String {
        var quotient = 100 * part / whole, rounded = Decimal()
        NSDecimalRound(&rounded, &quotient, 2, .plain)
        return trimmed(rounded.description) + "%"
    }

    static func trimmed(_ text: String) -> String {
        guard text.contains(".") else { return text }
        var t = Substring(text)
        while t.hasSuffix("0") { t = t.dropLast() }
        if t.hasSuffix(".") { t = t.dropLast() }
        return String(t)
    }
}

/// `sentio xirr --format json`: the rate of dated cash flows with how it was found (Sentio's own shape).
///
/// `xirr` is the annual rate as a **decimal fraction** (0.15 = 15 %), a certified root; `certificate` says which
/// certificate held: `residual` (|XNPV| plus its evaluation error bound ≤ 1e-9 of Σ|amounts|) or `sign-change` (the
/// XNPV has proven opposite signs at `bracket[0]` and `bracket[1]`, which enclose `xirr` within the solver's
/// tolerance; `bracket` is `null` for the residual certificate); `otherRoots` the other certified rates, ascending; `method` the solver's (`newton`, `brent`, …);
/// `iterations` the solver's; `dayCount` the convention's name (`act365f`, …); `guess` the starting guess
/// (a decimal fraction); `flows` the number of non-zero flows (zero amounts are no terms of the XNPV);
/// `firstDate`/`lastDate` the earliest and latest dates of those flows (midnight UTC).
public struct XIRRResponse: Sendable, Hashable, Codable {
    public var xirr: Double
    public var certificate: String
    public var bracket: [Double]?
    public var otherRoots: [Double]
    public var method: String
    public var iterations: Int
    public var dayCount: String
    public var guess: Double
    public var flows: Int
    public var firstDate: APITimestamp
    public var lastDate: APITimestamp

    /// The response for `result`, solved from `flows` (all of them, zero amounts included) with `guess`.
    /// - Throws: ``APIContractError`` when no flow has a non-zero amount (no rate would exist).
    public init(_ result: XIRRResult, flows all: [CashFlow], dayCount: DayCount, guess: Double) throws(APIContractError) {
        let used = all.filter { $0.amount != 0 }
        guard let first = used.map(\.date).min(), let last = used.map(\.date).max() else {
            throw APIContractError(subject: "xirr", field: "flows", message: "no non-zero cash flow")
        }
        xirr = result.rate
        certificate = result.certificate.name
        if case .signChange(let lower, let upper) = result.certificate { bracket = [lower, upper] }
        otherRoots = result.otherRoots
        method = result.method.rawValue
        iterations = result.iterations
        self.dayCount = dayCount.rawValue
        self.guess = guess
        flows = used.count
        firstDate = APITimestamp(first)
        lastDate = APITimestamp(last)
    }
}

/// `sentio xirr --npv-at RATE --format json`: `{"dayCount", "flows", "rate", "xnpv"}` (Sentio's own shape):
/// the XNPV of the flows at the annual `rate` (a decimal fraction), `flows` counting every row.
public struct XNPVResponse: Sendable, Hashable, Codable {
    public var dayCount: String
    public var flows: Int
    public var rate: Double
    public var xnpv: Double

    public init(dayCount: DayCount, flows: Int, rate: Double, xnpv: Double) {
        self.dayCount = dayCount.rawValue
        self.flows = flows
        self.rate = rate
        self.xnpv = xnpv
    }
}
