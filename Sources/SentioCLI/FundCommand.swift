import ArgumentParser
import Foundation
import Sentio
import SentioAPI

extension DayCount: ExpressibleByArgument {}

/// What `sentio fund` prints (`--view`).
enum FundView: String, ExpressibleByArgument, CaseIterable {
    /// Sentio's fund report (every metric, PME, portfolio summary): table or JSON.
    case report
    /// `GET /api/dashboard`: `{"portfolioSummary", "funds", "cryptoHoldings"}`.
    case dashboard
    /// The funds in the contract's list form (`[Fund]`).
    case funds
    /// One fund in detail form (`Fund` + `documents`), chosen with `--fund ID`.
    case fund
    /// One fund's documents (`[Document]`), chosen with `--fund ID`.
    case documents
    /// `GET /api/crypto`: `{"holdings", "totalValue"}` from `--holdings`.
    case crypto
}

struct FundCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fund",
        abstract: "Fund multiples (DPI, RVPI, TVPI, PIC), IRR, capital calls, PME and crypto holdings from a fund events file.",
        discussion: """
            FILE is a CSV with a header `fund_id,date,type,amount[,due_date,status,payment_date,url]`; type is \
            commitment, call, distribution or nav; amounts are positive decimals (the type gives the direction); \
            status (calls only) is PENDING, PAID, LATE or OVERDUE (none = PAID); payment_date (calls only, \
            YYYY-MM-DD) is when the call was paid; url (calls and NAVs) is the document's http(s) link. A call counts \
            as paid-in when its status is PAID and its payment date, if any, is on or before the as-of date.
            --meta gives fund names (CSV `id,name,manager,domicile,vintage` or JSON with those keys); \
            --index a CSV `date,close` for the PME measures (level on or before each flow date).
            --holdings is a CSV `symbol,name,amount`, valued at the latest close at or before the as-of date of \
            each symbol's OHLCV series from --prices (CSV files or directories) or, without --prices, from the \
            store's bars (--db); a symbol without such a close is an error.
            --view chooses the output: report (the default: every metric, as a table or Sentio's JSON report), or \
            one of the app contracts as JSON: dashboard, funds, fund and documents (with --fund ID), crypto.
            Rates are decimal fractions in JSON (0.15 = 15%), percentages in the table.
            Store: `sentio fund FILE [--meta M] --save [--db DB]` also saves the events (and the metadata) in the \
            store (DB, else the default store), replacing the stored events of each fund in FILE; \
            `sentio fund --db DB` (no FILE) reports on every fund stored there, with the stored metadata, ordered by \
            first event date. FILE with --db needs --save; --meta needs FILE.
            """)

    @Argument(help: "Fund events CSV: fund_id,date,type,amount[,due_date,status,payment_date,url] (default: none; then --db DB reads the stored events).")
    var file: String?

    @Option(help: "Fund metadata, CSV (id,name,manager,domicile,vintage) or JSON (default: none; names null in the report, an error in the contract views).")
    var meta: String?

    @Option(help: "Public index CSV (date,close) for KS-PME, Direct Alpha, LN-PME and PME+ (default: none, no PME).")
    var index: String?

    @Option(name: .customLong("as-of"), help: "As-of date YYYY-MM-DD: only events on or before it count, and holdings are valued at it (default: each fund's last event; holdings at the latest of them).")
    var asOf: String?

    @Option(name: .customLong("day-count"), help: "Day count for the IRRs: act365f (Actual/365 Fixed), act360, actact (Actual/Actual ISDA), 30-360 (30/360 US), 30-360-bond (30/360 Bond Basis).")
    var dayCount: DayCount = .actual365Fixed

    @Option(help: "What to print: the fund report (table or JSON), or one app contract as JSON (fund and documents need --fund, crypto needs --holdings).")
    var view: FundView = .report

    @Option(help: ArgumentHelp("The fund of --view fund and --view documents: its fund_id in FILE.", valueName: "ID"))
    var fund: String?

    @Option(help: ArgumentHelp("Crypto holdings CSV (symbol,name,amount) for --view crypto and the dashboard (default: none; the dashboard lists no holdings).", valueName: "FILE"))
    var holdings: String?

    @Option(help: ArgumentHelp("OHLCV CSV files or directories with the holdings' prices, comma-separated (default: the store's bars, --db).", valueName: "PATHS"))
    var prices: String?

    @Option(help: "Output format: table (--view report only) or json (default: table for the report, json for the other views).")
    var format: OutputFormat?

    @Option(name: .customLong("report"), help: ArgumentHelp(
        "Also write a self-contained HTML report (portfolio summary; per fund NAV, J-curve, multiples, PME, capital calls) to PATH (default: none).",
        valueName: "PATH.html"))
    var reportPath: String?

    @Flag(help: "Also save FILE's events and --meta metadata in the store (--db DB, else the default store).")
    var save = false

    @OptionGroup var store: StoreOptions

    /// The format to write: `--format`, else table for the report and JSON for the contract views.
    var outputFormat: OutputFormat { format ?? (view == .report ? .table : .json) }

    func validate() throws {
        if let asOf, CivilDate(iso: asOf) == nil {
            throw ValidationError("--as-of must be a date YYYY-MM-DD, got '\(asOf)'")
        }
        try outputFormat.require(view == .report ? [.table, .json] : [.json])
        switch view {
        case .fund, .documents:
            if fund == nil { throw ValidationError("--view \(view.rawValue) needs --fund ID (a fund_id of the events)") }
        default:
            if fund != nil { throw ValidationError("--fund applies to --view fund and --view documents") }
        }
        if view == .crypto && holdings == nil { throw ValidationError("--view crypto needs --holdings FILE") }
        if holdings != nil && ![.crypto, .dashboard].contains(view) {
            throw ValidationError("--holdings applies to --view crypto and --view dashboard")
        }
        if prices != nil && holdings == nil { throw ValidationError("--prices needs --holdings FILE") }
        if holdings != nil && prices == nil && store.database == nil {
            throw ValidationError("--holdings needs prices: --prices PATHS (OHLCV CSV) or --db DB (stored bars)")
        }
        try validateDataSource()
    }

    func run() throws {
        let (events, metadata) = try loadEventsAndMetadata()
        if let asOfDate = asOf.flatMap({ CivilDate(iso: $0) }), let first = events.firstEvent, asOfDate < first.date {
            let location = first.line > 0 ? "\(events.file) line \(first.line)" : events.file
            throw UsageError("--as-of \(asOfDate) is before the first event (\(location): fund '\(first.fundID)' on \(first.date)): "
                + "nothing had happened yet, every figure would be zero; give a date on or after \(first.date)")
        }
        let indexSeries = try index.map { try IndexSeries(text: try readTextFile($0, role: "index"), file: $0) }
        let report = try FundReport(
            events: events, metadata: metadata, index: indexSeries, asOf: asOf.flatMap { CivilDate(iso: $0) },
            dayCount: dayCount)
        // Everything that can fail is computed before anything is written or saved.
        let output = try render(report)
        // --report and --save together or not at all (see OutputTransaction).
        let outputs = OutputTransaction()
        if let path = reportPath {
            let content = try FundReportContent(report: report, events: events, index: indexSeries)
            try outputs.stage(path, text: FundReportRenderer().render(content))
        }
        OutputTransaction.reachedStagedPoint()
        if save { try saveToStore(events, metadata: metadata) }
        try outputs.commit()
        print(output, terminator: "")
    }

    /// The text of `--view` in the chosen format.
    func render(_ report: FundReport) throws -> String {
        switch view {
        case .report:
            return outputFormat == .json ? try APIJSON.encode(FundReportResponse(report)) : report.table()
        case .funds:
            return try APIJSON.encode(FundContracts.funds(report))
        case .fund:
            let entry = try selectedFund(report)
            return try APIJSON.encode(FundContracts.fundDetail(entry.metrics, metadata: entry.metadata))
        case .documents:
            return try APIJSON.encode(FundContracts.documents(try selectedFund(report).metrics))
        case .crypto:
            return try APIJSON.encode(try cryptoHoldings(report))
        case .dashboard:
            let crypto = try holdings == nil ? CryptoHoldingsResponse(holdings: [], totalValue: 0) : cryptoHoldings(report)
            return try APIJSON.encode(FundContracts.dashboard(report, crypto: crypto))
        }
    }

    /// The report entry of `--fund`.
    func selectedFund(_ report: FundReport) throws -> FundReport.Entry {
        guard let id = fund, let entry = report.funds.first(where: { $0.metrics.id == id }) else {
            throw UsageError("unknown fund '\(fund ?? "")' in --fund; the events have \(report.funds.map(\.metrics.id).joined(separator: ", "))")
        }
        return entry
    }

    /// `--holdings` valued at the report's as-of date with the closes of `--prices` (or the store's bars).
    func cryptoHoldings(_ report: FundReport) throws -> CryptoHoldingsResponse {
        guard let path = holdings else { throw UsageError("--holdings FILE is needed for the crypto holdings") }
        guard let valuationDate = report.asOf else { throw UsageError("no as-of date to value the holdings at") }
        return try CryptoInputs.holdings(path: path, prices: prices, valuationDate: valuationDate, storedPrices: loadStoredPrices)
    }
}
