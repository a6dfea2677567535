import ArgumentParser
import Foundation
import Sentio
import SentioAPI

/// `sentio evaluate`: walk-forward evaluation of the signal model's signals and confidence against baselines.
/// The figures, table and JSON shapes are SentioSignals' (`WalkForwardEvaluation`, `EvaluationText`) and
/// SentioAPI's (`EvaluationResponse`); the HTML page is SentioReports' `EvaluationReportPage`.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Walk-forward evaluation of the signal model: hit rate, calibration and skill against baselines.",
        discussion: """
            Runs the model bar by bar over each series (every confidence is out of sample: the calibrator at bar t has only seen signals made at or before bar t - h), then scores the BUY/SELL signals of the bars past the warm-up whose h-bar outcome is known, pooled over symbols. A BUY (SELL) at bar t is right when ln(C[t+h]/C[t]) is positive (negative); HOLD is not scored.
            Figures per rule: counts of BUY/SELL/HOLD, hit rate, mean confidence, Brier score, expected calibration error (ECE, 10 equal-width confidence bins weighted by count), the reliability table, and the information coefficient (Spearman correlation of the rule's score with the realized h-bar return). Rules: the model (sentio), always-buy, rsi-30-70 (the model's RSI), momentum-sign (sign of ln(C[t]/C[t-h])); a baseline's confidence is its own walk-forward base rate (right + 1)/(resolved + 2). Fractions are in [0, 1] (0.5 = 50%).
            The definitions are in the SentioSignals documentation (Evaluation). Too little data for any resolved model signal is an error (exit 2).
            """
    )

    @Argument(help: ArgumentHelp("OHLCV CSV files or directories of SYMBOL.csv files (the symbol is the file name).", valueName: "DATA"))
    var paths: [String]

    @Option(help: ArgumentHelp("Output format: table or json.", valueName: "table|json"))
    var format: OutputFormat = .table

    @Option(name: .customLong("report"), help: ArgumentHelp("Also write a self-contained HTML report (figures, reliability diagram, rolling information coefficient) to PATH (default: none).", valueName: "PATH"))
    var reportPath: String?

    @Option(help: ArgumentHelp("Write to this file (atomically) instead of standard output.", valueName: "PATH"))
    var output: String?

    @OptionGroup(title: "Model parameters")
    var model: SignalModelOptions

    @OptionGroup(title: "Market files") var marketFile: MarketFileOptions

    func validate() throws {
        try format.require([.table, .json])
        if paths.isEmpty { throw ValidationError("give at least one DATA file or directory") }
        if let reportPath, reportPath == output { throw ValidationError("--report and --output must be different files") }
    }

    func run() throws {
        let progress = TerminalProgress("evaluate", phases: ["reading", "model and scoring", "writing"])
        defer { progress.finish() }
        progress.begin("reading")
        let config = try model.resolve()
        let results = try OHLCVReader.readAllWithReports(paths: paths, options: try marketFile.analysisReadOptions())
        MarketFileOptions.printNotesAndStatement(results)
        var seen: Set<String> = []
        for result in results where !seen.insert(result.series.symbol).inserted {
            throw UsageError("symbol \(result.series.symbol) appears in more than one input file; give each symbol once")
        }
        let evaluation: WalkForwardEvaluation
        do {
            progress.begin("model and scoring", unit: "symbols")
            evaluation = try WalkForwardEvaluation.run(results.map(\.series), config: config, progress: progress.update)
        } catch let error as SignalInputError {
            throw UsageError("\(paths.joined(separator: ", ")): \(error.description)")
        }
        progress.begin("writing")
        let source = paths.joined(separator: " ")
        let text = format == .json
            ? try APIJSON.encode(EvaluationResponse(evaluation))
            : EvaluationText.table(evaluation, source: source)
        let outputs = OutputTransaction()
        if let output { try outputs.stage(output, text: text) }
        if let reportPath { try outputs.stage(reportPath, text: EvaluationReportPage.html(Self.reportContent(evaluation, source: source))) }
        OutputTransaction.reachedStagedPoint()
        try outputs.commit()
        progress.finish()  // before anything is printed on standard output
        if output == nil { try StandardOutput.write(text) }
    }

    static func reportContent(_ e: WalkForwardEvaluation, source: String) -> EvaluationReportContent {
        EvaluationReportContent(
            title: "Sentio signal evaluation: \(source)",
            subtitle: "\(e.symbols.joined(separator: ", ")): \(e.evaluatedBars) evaluated bars, horizon \(e.config.horizon) bars, walk-forward (out of sample)",
            rules: e.rules.map {
                .init(
                    name: $0.rule.rawValue, description: $0.rule.summary, buy: $0.buyCount, sell: $0.sellCount, hold: $0.holdCount,
                    hitRate: $0.hitRate, meanConfidence: $0.meanConfidence, brierScore: $0.brierScore,
                    expectedCalibrationError: $0.expectedCalibrationError, informationCoefficient: $0.informationCoefficient)
            },
            notes: e.rulesWithoutSignals.map { "\($0.rawValue): no BUY/SELL signal on these bars (no figures)." },
            reliability: e.model.reliability.map {
                .init(lower: $0.lower, upper: $0.upper, meanConfidence: $0.meanConfidence, observedFrequency: $0.observedFrequency, count: $0.count)
            },
            rollingTimes: e.rollingInformationCoefficient.map(\.timestamp),
            rollingValues: e.rollingInformationCoefficient.map(\.value), rollingWindow: e.rollingWindow)
    }
}
