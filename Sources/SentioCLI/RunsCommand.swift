import ArgumentParser
import Foundation
import Sentio
import SentioAPI
import SentioApplication

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sentio runs`: list, show and compare backtest runs saved in a store.
struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List, show and compare backtest runs saved in a Sentio store.",
        discussion: """
            Runs are saved by `sentio backtest --save --db FILE`; signals by `sentio signals --save` (read them back \
            with `sentio runs show --signals`). Statistics come from each run's saved statistics \
            (the summary `sentio backtest --format json` printed, kept byte for byte); a statistic a run lacks shows as '-'.
            """,
        subcommands: [List.self, Show.self, Compare.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List saved runs, oldest first, with their headline statistics.")
        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("Output format: table or json (the RunList contract).", valueName: "FORMAT"))
        var format: OutputFormat = .table

        func validate() throws { try format.require([.table, .json]) }

        func run() throws {
            let database = try store.open(mode: .readOnly)
            let list = try RunList(try database.runs())
            print(format == .json ? try APIJSON.encode(list) : list.table(storePath: database.path) + "\n", terminator: "")
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one run in full: configuration, statistics, trades and an equity summary (json: the whole curve); with --signals, the saved signals.")
        @Argument(help: "Run id (see `sentio runs list`); leave out with --signals.")
        var id: Int64?
        @Flag(help: "Show the signals saved by `sentio signals --save` instead of a run (all models; --symbols to select).")
        var signals = false
        @OptionGroup var selection: SymbolSelectionOptions
        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("Output format: table or json (the RunDetail contract; with --signals the RunSignalList contract).", valueName: "FORMAT"))
        var format: OutputFormat = .table

        func validate() throws {
            try format.require([.table, .json])
            if signals && id != nil { throw ValidationError("give a run id or --signals, not both") }
            if !signals && id == nil { throw ValidationError("give a run id (see `sentio runs list`) or --signals") }
            if !signals && selection.symbols != nil { throw ValidationError("--symbols applies to --signals only") }
        }

        func run() throws {
            let database = try store.open(mode: .readOnly)
            if signals {
                let list = try RunSignalList(try database.loadSignals(symbols: try selection.list()))
                print(format == .json ? try APIJSON.encode(list) : list.table(storePath: database.path) + "\n", terminator: "")
                return
            }
            let detail = try RunDetail(try database.run(id: id!))
            print(format == .json ? try APIJSON.encode(detail) : detail.table() + "\n", terminator: "")
        }
    }

    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare runs side by side: the headline statistics and the configuration values that differ (json: every statistic).")
        @Argument(help: "Two or more run ids.")
        var ids: [Int64]
        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("Output format: table or json (the RunComparison contract).", valueName: "FORMAT"))
        var format: OutputFormat = .table

        func validate() throws {
            try format.require([.table, .json])
            if ids.count < 2 { throw ValidationError("compare needs at least two run ids, got \(ids.count)") }
        }

        func run() throws {
            let database = try store.open(mode: .readOnly)
            let comparison = try RunComparison(try ids.map { try database.run(id: $0).run })
            print(format == .json ? try APIJSON.encode(comparison) : comparison.table() + "\n", terminator: "")
        }
    }
}

/// `--db FILE`, shared by every command that uses the store (`import`, `runs`, and the `--save` flags).
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("db"),
        help: ArgumentHelp(
            "SQLite store file (default: $SENTIO_DB if set, else ./sentio.sqlite in the working directory).",
            valueName: "FILE"))
    var database: String?

    /// The path to use: `--db`, else the documented default.
    var path: String { database ?? SentioDatabase.defaultPath() }

    /// Opens the store; `.readOnly` for commands that only read (a store whose file or folder is not writable is
    /// then opened read-only, creating no `-wal`/`-shm` files). An empty `--db ''` is a usage error (exit 2).
    func open(mode: SentioDatabase.OpenMode) throws -> SentioDatabase {
        if database?.isEmpty == true { throw UsageError("--db needs a file path; got an empty string") }
        return try SentioDatabase(path: path, mode: mode)
    }
}
