import ArgumentParser
import Foundation
import Sentio

struct FundCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fund",
        abstract: "Fund multiples (DPI, RVPI, TVPI, PIC), IRR, capital calls and PME from a fund events file.",
        discussion: """
            FILE is a CSV with a header `fund_id,date,type,amount[,due_date,status]`; type is commitment, \
            call, distribution or nav; amounts are positive decimals (the type gives the direction); status \
            (calls only) is PENDING, PAID, LATE or OVERDUE (none = PAID). Only PAID calls count as paid-in.
            --meta gives fund names (CSV `id,name,manager,domicile,vintage` or JSON with those keys); \
            --index a CSV `date,close` for the PME measures (level on or before each flow date).
            Rates are decimal fractions in JSON (0.15 = 15%), percentages in the table.
            Store: `sentio fund FILE [--meta M] --save [--db DB]` also saves the events (and the metadata) in the \
            store (DB, else the default store), replacing the stored events of each fund in FILE; \
            `sentio fund --db DB` (no FILE) reports on every fund stored there, with the stored metadata, ordered by \
            first event date. FILE with --db needs --save; --meta needs FILE.
            """)

    @Argument(help: "Fund events CSV: fund_id,date,type,amount[,due_date,status]. Default: none; then --db DB reads the stored events.")
    var file: String?

    @Option(help: "Fund metadata, CSV (id,name,manager,domicile,vintage) or JSON. Default: none (names null).")
    var meta: String?

    @Option(help: "Public index CSV (date,close) for KS-PME, Direct Alpha, LN-PME and PME+. Default: none (no PME).")
    var index: String?

    @Option(name: .customLong("as-of"), help: "As-of date YYYY-MM-DD: only events on or before it count. Default: each fund's last event.")
    var asOf: String?

    @Option(name: .customLong("day-count"), help: "Day count for the IRRs: act365f, act360, actact, 30-360, 30-360-bond.")
    var dayCount: DayCountOption = .act365f

    @Option(help: "Output format: table or json.")
    var format: TableOrJSON = .table

    @Option(name: .customLong("report"), help: ArgumentHelp(
        "Also write a self-contained HTML report (portfolio summary; per fund NAV, J-curve, multiples, PME, capital calls) to PATH (default: none).",
        valueName: "PATH.html"))
    var reportPath: String?

    enum TableOrJSON: String, ExpressibleByArgument, CaseIterable { case table, json }

    @Flag(help: "Also save FILE's events and --meta metadata in the store (--db DB, else the default store).")
    var save = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if let asOf, CivilDate(iso: asOf) == nil {
            throw ValidationError("--as-of must be a date YYYY-MM-DD, got '\(asOf)'")
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
            dayCount: dayCount.dayCount)
        // --report and --save together or not at all (see OutputTransaction).
        let outputs = OutputTransaction()
        if let path = reportPath {
            let content = try FundReportContent(report: report, events: events, index: indexSeries)
            try outputs.stage(path, text: FundReportRenderer().render(content))
        }
        OutputTransaction.reachedStagedPoint()
        if save { try saveToStore(events, metadata: metadata) }
        try outputs.commit()
        switch format {
        case .table: print(report.table(), terminator: "")
        case .json: print(report.json(), terminator: "")
        }
    }
}
