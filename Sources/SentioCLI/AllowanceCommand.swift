import ArgumentParser
import Foundation
import Sentio
import SentioApplication
import SentioServer

/// `sentio allowance`: the allowance ledger's report (the default subcommand) and the export of the app's store.
struct AllowanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "allowance",
        abstract: "Allowance ledger: balances, monthly earned/spent/net, spending by category and savings goals per child; export of the allowance app's store.",
        subcommands: [AllowanceReportCommand.self, AllowanceExportCommand.self],
        defaultSubcommand: AllowanceReportCommand.self)
}

/// `sentio allowance [report]`: the report of ledger, children and goals CSV files.
struct AllowanceReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Allowance ledger: balances, monthly earned/spent/net, spending by category and savings goals per child (the default subcommand: `sentio allowance LEDGER --children FILE`).",
        discussion: """
            LEDGER is a CSV `id,child_id,date,type,amount[,description,category,created_by]`: type credit or debit, amount > 0 with at most 2 decimal places, date YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC); allowance payments are credits with category Allowance.
            --children is a CSV `child_id,first_name,last_name,weekly_allowance,allowance_day` (monday…sunday); --goals a CSV `id,child_id,name,target_amount,created`.
            Each child's rows apply in time order; a debit larger than the balance is rejected (insufficient funds): an error naming the line, or with --lenient skipped and reported (balances never go negative).
            Goal: current = balance capped at the target; weekly saving rate = (credits − debits) over the last 8 complete weeks before the as-of date ÷ 8 (the whole weeks available when the history is shorter, at least 1); estimated completion = as-of + ceil((target − current) ÷ rate) × 7 days, null when the rate ≤ 0; status achieved, onTrack or stalled.
            The full rules are in the SentioSavings documentation.
            `sentio allowance export --db STORE --out DIR` writes the allowance app's data of a store (children.csv, ledger.csv, goals.csv) in these formats.
            """)

    @Argument(help: ArgumentHelp("Ledger CSV: id,child_id,date,type,amount[,description,category,created_by].", valueName: "LEDGER"))
    var ledger: String

    @Option(help: ArgumentHelp("Children CSV: child_id,first_name,last_name,weekly_allowance,allowance_day.", valueName: "FILE"))
    var children: String

    @Option(help: ArgumentHelp("Savings goals CSV: id,child_id,name,target_amount,created (default: no goals).", valueName: "FILE"))
    var goals: String?

    @Option(name: .customLong("as-of"), help: ArgumentHelp("As-of date YYYY-MM-DD: rows dated on or before it count (default: the date of the ledger's last accepted row).", valueName: "DATE"))
    var asOf: String?

    @Option(help: ArgumentHelp("Output format: table or json.", valueName: "table|json"))
    var format: OutputFormat = .table

    @Flag(name: .customLong("lenient"), help: "Skip bad ledger rows (malformed, unknown child, repeated id, insufficient funds) instead of failing on the first one; a summary goes to standard error, every skipped row to --rejects.")
    var lenient = false

    @Option(help: ArgumentHelp("With --lenient: write every skipped ledger row to this CSV file (file,line,reason), atomically.", valueName: "FILE"))
    var rejects: String?

    func validate() throws {
        try format.require([.table, .json])
        if let asOf, CivilDate(iso: asOf) == nil {
            throw ValidationError("--as-of must be a date YYYY-MM-DD, got '\(asOf)'")
        }
        if rejects != nil && !lenient { throw ValidationError("--rejects needs --lenient (strict reading stops at the first bad row)") }
        if let rejects, rejects.isEmpty { throw ValidationError("--rejects needs a file name") }
    }

    func run() throws {
        let childList = try AllowanceChild.children(text: try readTextFile(children, role: "children"), file: children)
        let book = try AllowanceLedger(
            text: try readTextFile(ledger, role: "ledger"), file: ledger, children: childList, lenient: lenient)
        let goalList = try goals.map { try SavingsGoal.goals(text: try readTextFile($0, role: "goals"), file: $0, children: childList) } ?? []
        let report = try AllowanceReport(
            children: childList, ledger: book, goals: goalList, goalsFile: goals ?? "goals", asOf: asOf.flatMap { CivilDate(iso: $0) })
        if lenient {
            if !book.skipped.isEmpty {
                printError("warning: \(ledger): skipped \(book.skipped.count) row(s) (--lenient)")
                for row in book.skipped.prefix(LenientOptions.summaryLimit) { printError("  \(row.description)") }
                if book.skipped.count > LenientOptions.summaryLimit {
                    let rest = book.skipped.count - LenientOptions.summaryLimit
                    printError(rejects.map { "  ... and \(rest) more (all listed in \($0))" } ?? "  ... and \(rest) more (--rejects FILE lists them all)")
                }
            }
            if let rejects { try AtomicFile.write(path: rejects, bytes: Array(Self.rejectsCSV(file: ledger, book.skipped).utf8)) }
        }
        print(format == .json ? report.json() : report.table(), terminator: "")
    }

    /// The `--rejects` CSV (`RejectsFile.csv`), one row per skipped ledger row in line order.
    static func rejectsCSV(file: String, _ skipped: [SavingsInputError]) -> String {
        RejectsFile.csv(skipped.map { (file, $0.line, $0.reason) })
    }
}

/// `sentio allowance export`: the allowance app's store as the CSV files `sentio allowance` reads.
struct AllowanceExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the allowance app's children, ledger and goals of a store (`sentio serve --db`) as CSV files.",
        discussion: """
            Writes DIR/children.csv, DIR/ledger.csv and DIR/goals.csv (each atomically), in the formats `sentio allowance` \
            reads: `sentio allowance DIR/ledger.csv --children DIR/children.csv --goals DIR/goals.csv` then reports the \
            balances the server shows.
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Directory to write the CSV files to (created if missing).", valueName: "DIR"))
    var out: String

    @Option(help: ArgumentHelp("Only this family (its id; default: every family).", valueName: "ID"))
    var family: String?

    func run() throws {
        let database = try store.open(mode: .readOnly)
        let files = try AllowanceService.exportCSV(database: database, familyID: family?.lowercased())
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for (name, text) in [("children.csv", files.children), ("ledger.csv", files.ledger), ("goals.csv", files.goals)] {
            try AtomicFile.write(path: (out as NSString).appendingPathComponent(name), bytes: Array(text.utf8))
        }
    }
}
