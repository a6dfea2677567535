import Foundation
import SentioCore

/// Everything the evaluation report shows, in plain values (the CLI fills it from SentioSignals'
/// `WalkForwardEvaluation`).
public struct EvaluationReportContent: Sendable, Equatable {
    /// One rule's figures (fractions in [0, 1]; `informationCoefficient` `nil` when the rule has no score).
    public struct Rule: Sendable, Equatable {
        public var name: String
        public var description: String
        public var buy: Int
        public var sell: Int
        public var hold: Int
        public var hitRate: Double
        public var meanConfidence: Double
        public var brierScore: Double
        public var expectedCalibrationError: Double
        public var informationCoefficient: Double?
        public init(
            name: String, description: String, buy: Int, sell: Int, hold: Int, hitRate: Double, meanConfidence: Double,
            brierScore: Double, expectedCalibrationError: Double, informationCoefficient: Double?
        ) {
            self.name = name; self.description = description; self.buy = buy; self.sell = sell; self.hold = hold
            self.hitRate = hitRate; self.meanConfidence = meanConfidence; self.brierScore = brierScore
            self.expectedCalibrationError = expectedCalibrationError; self.informationCoefficient = informationCoefficient
        }
    }

    /// One non-empty reliability bin of the model.
    public struct Bin: Sendable, Equatable {
        public var lower: Double
        public var upper: Double
        public var meanConfidence: Double
        public var observedFrequency: Double
        public var count: Int
        public init(lower: Double, upper: Double, meanConfidence: Double, observedFrequency: Double, count: Int) {
            self.lower = lower; self.upper = upper; self.meanConfidence = meanConfidence
            self.observedFrequency = observedFrequency; self.count = count
        }
    }

    public var title: String
    public var subtitle: String
    /// The model first, then the baselines.
    public var rules: [Rule]
    public var notes: [String]
    public var reliability: [Bin]
    /// Rolling information coefficient: times (UTC epoch seconds) and values.
    public var rollingTimes: [Int64]
    public var rollingValues: [Double]
    public var rollingWindow: Int

    public init(
        title: String, subtitle: String, rules: [Rule], notes: [String], reliability: [Bin], rollingTimes: [Int64],
        rollingValues: [Double], rollingWindow: Int
    ) {
        precondition(rollingTimes.count == rollingValues.count, "rolling times and values differ in length")
        self.title = title; self.subtitle = subtitle; self.rules = rules; self.notes = notes
        self.reliability = reliability; self.rollingTimes = rollingTimes; self.rollingValues = rollingValues
        self.rollingWindow = rollingWindow
    }
}

/// The HTML page of `sentio evaluate --report FILE`: the figures table, the reliability diagram of the model's
/// confidence (observed frequency against mean confidence per bin, the diagonal being perfect calibration, dot
/// area ∝ count) and the rolling information coefficient over time.
public enum EvaluationReportPage {
    /// The self-contained HTML document.
    public static func html(_ content: EvaluationReportContent) -> String {
        var page = HTMLPage(title: content.title, subtitle: content.subtitle)
        page.heading("Figures (out of sample)")
        func f(_ x: Double) -> String { NumberText.fixed(x, decimals: 3, grouping: false) }
        page.table(
            id: "rules",
            headers: ["rule", "BUY", "SELL", "HOLD", "hit rate", "mean confidence", "Brier", "ECE", "IC"].map { TableCell.text($0) },
            rows: content.rules.map { r in
                [
                    .text(r.name), TableCell("\(r.buy)"), TableCell("\(r.sell)"), TableCell("\(r.hold)"), TableCell(f(r.hitRate)),
                    TableCell(f(r.meanConfidence)), TableCell(f(r.brierScore)), TableCell(f(r.expectedCalibrationError)),
                    TableCell(r.informationCoefficient.map(f) ?? "–"),
                ]
            })
        for r in content.rules { page.note("\(r.name): \(r.description)") }
        for note in content.notes { page.note(note) }
        page.heading("Reliability diagram of the model's confidence")
        page.note("Each dot is a confidence bin: mean confidence (x) against how often its signals were right (y); dot area grows with the bin's count. On the diagonal the confidence means what it says.")
        page.note(diagramPlaceholder)  // replaced by the SVG below (HTMLPage writes escaped text only)
        page.table(
            id: "reliability",
            headers: ["bin", "mean confidence", "observed frequency", "count"].map { TableCell.text($0) },
            rows: content.reliability.map { b in
                [.text("[\(NumberText.fixed(b.lower, decimals: 1)), \(NumberText.fixed(b.upper, decimals: 1)))"),
                 TableCell(f(b.meanConfidence)), TableCell(f(b.observedFrequency)), TableCell("\(b.count)")]
            })
        page.heading("Information coefficient over time")
        if content.rollingTimes.isEmpty {
            page.note("Too few evaluated bars for a rolling information coefficient.")
        } else {
            page.note("Spearman correlation of aiSignal with the realized return over the last \(content.rollingWindow) evaluated bars (all symbols), at each point. Around 0: no skill.")
            page.chart(TimeSeriesChart(
                id: "rolling-ic", title: "Rolling information coefficient",
                series: [ChartSeries(name: "IC", times: content.rollingTimes, values: content.rollingValues)], valueFormat: .plain))
        }
        return page.document().replacingOccurrences(of: diagramPlaceholder, with: reliabilitySVG(content.reliability))
    }

    static let diagramPlaceholder = "sentio-reliability-diagram-placeholder"

    /// The reliability diagram as inline SVG (unit square, diagonal, one dot per bin).
    static func reliabilitySVG(_ bins: [EvaluationReportContent.Bin]) -> String {
        let size = 320.0, pad = 40.0
        func x(_ p: Double) -> String { NumberText.fixed(pad + p * size, decimals: 1, grouping: false) }
        func y(_ p: Double) -> String { NumberText.fixed(pad + (1 - p) * size, decimals: 1, grouping: false) }
        let total = Double(Swift.max(1, bins.reduce(0) { $0 + $1.count }))
        var s = "<svg class=\"reliability\" viewBox=\"0 0 \(Int(size + 2 * pad)) \(Int(size + 2 * pad))\" width=\"\(Int(size + 2 * pad))\" height=\"\(Int(size + 2 * pad))\" role=\"img\" aria-label=\"reliability diagram\">"
        s += "<rect x=\"\(x(0))\" y=\"\(y(1))\" width=\"\(Int(size))\" height=\"\(Int(size))\" fill=\"none\" stroke=\"#999\"/>"
        s += "<line x1=\"\(x(0))\" y1=\"\(y(0))\" x2=\"\(x(1))\" y2=\"\(y(1))\" stroke=\"#999\" stroke-dasharray=\"4 4\"/>"
        for tick in stride(from: 0.0, through: 1.0, by: 0.2) {
            let label = NumberText.fixed(tick, decimals: 1)
            s += "<text x=\"\(x(tick))\" y=\"\(NumberText.fixed(pad + size + 16, decimals: 1, grouping: false))\" font-size=\"11\" text-anchor=\"middle\">\(label)</text>"
            s += "<text x=\"\(NumberText.fixed(pad - 6, decimals: 1, grouping: false))\" y=\"\(y(tick))\" font-size=\"11\" text-anchor=\"end\" dominant-baseline=\"middle\">\(label)</text>"
        }
        s += "<text x=\"\(x(0.5))\" y=\"\(Int(size + 2 * pad - 4))\" font-size=\"12\" text-anchor=\"middle\">mean confidence</text>"
        s += "<text x=\"12\" y=\"\(y(0.5))\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 12 \(y(0.5)))\">observed frequency</text>"
        for b in bins {
            let r = NumberText.fixed(3 + 14 * (Double(b.count) / total).squareRoot(), decimals: 1, grouping: false)
            s += "<circle cx=\"\(x(b.meanConfidence))\" cy=\"\(y(b.observedFrequency))\" r=\"\(r)\" fill=\"#3b6ea8\" fill-opacity=\"0.7\"><title>"
                + escapeMarkup("confidence \(NumberText.fixed(b.meanConfidence, decimals: 3)), right \(NumberText.fixed(b.observedFrequency, decimals: 3)), \(b.count) signals")
                + "</title></circle>"
        }
        return s + "</svg>"
    }
}
