import ArgumentParser
import Foundation
import Sentio
import SentioAPI
import SentioApplication
import SentioSweep

/// `sentio sweep merge FILE...`: shard outputs joined into the unsharded sweep.
struct SweepMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the JSON outputs of `sentio sweep --shard K/N` (all N of them) into the whole sweep.",
        discussion: """
            The result is byte for byte what the unsharded `sentio sweep` prints in the same format. Refused: a file \
            that is not a shard output, shards of different grids, metrics, options or data, a shard given twice \
            or missing.
            Exit codes: 0 success; 2 bad input or options; 1 internal error.
            """
    )

    @Argument(help: ArgumentHelp("The shard outputs (written with --format json).", valueName: "FILE"))
    var files: [String]

    @Option(help: ArgumentHelp("Output format: table, json or csv.", valueName: "FORMAT"))
    var format: OutputFormat = .table

    @Option(help: ArgumentHelp("Write the output to FILE instead of standard output.", valueName: "FILE"))
    var output: String?

    @Option(name: .customLong("report"), help: ArgumentHelp("Also write an HTML report (heatmap of the metric) to PATH.", valueName: "PATH.html"))
    var reportPath: String?

    @Option(help: ArgumentHelp("With --report: the two grid parameters of the heatmap, X,Y (default: the first two of the grid).", valueName: "X,Y"))
    var heatmap: String?

    @Flag(help: "Save the merged sweep in the store given by --db.")
    var save = false

    @Option(help: ArgumentHelp("With --save: a label to recognise the sweep by.", valueName: "TEXT"))
    var label: String?

    @OptionGroup var store: StoreOptions

    func validate() throws {
        try format.require([.table, .json, .csv])
        if files.isEmpty { throw ValidationError("give the shard files to merge") }
        if !save && label != nil { throw ValidationError("--label applies to --save only") }
        if heatmap != nil && reportPath == nil { throw ValidationError("--heatmap applies to --report only") }
    }

    func run() throws {
        var shards: [(file: String, output: SweepOutput)] = []
        for file in files { shards.append((file, try SweepOutput.read(json: try TextFile.read(file), file: file))) }
        let merged = try SweepMerge.merge(shards)
        try SweepOutputWriter(format: format, output: output, reportPath: reportPath, heatmap: heatmap, save: save ? store : nil, label: label)
            .write(merged)
    }
}

/// `sentio sweep list`: the saved sweeps.
struct SweepListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the sweeps saved with `sentio sweep --save` (id, date, strategy, grid size, metric, label).")

    @OptionGroup var store: StoreOptions

    func run() throws {
        let database = try store.open(mode: .readOnly)
        var rows = [["id", "created", "strategy", "combinations", "rows", "metric", "symbols", "label"]]
        for s in try database.sweeps() {
            rows.append([
                String(s.id ?? 0), APITimestamp(epochSeconds: s.createdAt).description, s.strategy, String(s.combinations),
                String(s.rowCount), s.metric, String(s.symbols.count), s.label ?? "",
            ])
        }
        print(TextTable.render(rows, rightAligned: [0, 3, 4, 6]))
    }
}

/// `sentio sweep show ID`: a saved sweep in any format.
struct SweepShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print a saved sweep (its JSON is kept as printed; table and csv are rendered from it).")

    @Argument(help: ArgumentHelp("The sweep's id (see `sentio sweep list`).", valueName: "ID"))
    var id: Int64

    @Option(help: ArgumentHelp("Output format: table, json or csv.", valueName: "FORMAT"))
    var format: OutputFormat = .table

    @OptionGroup var store: StoreOptions

    func validate() throws { try format.require([.table, .json, .csv]) }

    func run() throws {
        let database = try store.open(mode: .readOnly)
        let saved = try database.sweep(id: id)
        if format == .json { print(saved.outputJSON, terminator: ""); return }
        let result = try SweepOutput.read(json: saved.outputJSON, file: "sweep \(id)")
        print(format == .csv ? result.csv() : result.table(), terminator: "")
    }
}
