import Foundation
import SentioCore

/// A heatmap of a sweep's metric over two grid parameters.
///
/// `cells[y][x]` is the metric at `xValues[x]`, `yValues[y]` (with more than two grid parameters, the best value
/// over the others, as the caller says in `note`), `nil` when undefined for every combination there.
public struct SweepHeatmap: Sendable, Equatable {
    public var metric: String
    public var xName: String
    public var yName: String
    public var xValues: [String]
    public var yValues: [String]
    public var cells: [[Double?]]
    public var note: String?

    public init(metric: String, xName: String, yName: String, xValues: [String], yValues: [String], cells: [[Double?]], note: String?) {
        self.metric = metric
        self.xName = xName
        self.yName = yName
        self.xValues = xValues
        self.yValues = yValues
        self.cells = cells
        self.note = note
    }
}

/// What the sweep report shows: a heading, the heatmap, the ranked rows, and the walk-forward windows and stitched
/// out-of-sample equity when there was a walk-forward.
public struct SweepReportContent: Sendable {
    public var title: String
    public var subtitle: String
    public var heatmap: SweepHeatmap?
    /// The ranked rows (header first), as text.
    public var rows: [[String]]
    public var walkForwardWindows: [[String]]?
    public var walkForwardEquity: (times: [Int64], values: [Double])?

    public init(
        title: String, subtitle: String, heatmap: SweepHeatmap?, rows: [[String]], walkForwardWindows: [[String]]? = nil,
        walkForwardEquity: (times: [Int64], values: [Double])? = nil
    ) {
        self.title = title
        self.subtitle = subtitle
        self.heatmap = heatmap
        self.rows = rows
        self.walkForwardWindows = walkForwardWindows
        self.walkForwardEquity = walkForwardEquity
    }
}

/// The self-contained HTML page of a sweep (same stylesheet as the backtest report; well-formed XML).
///
/// Structure for tests and tools: the heatmap is `<table data-heatmap="METRIC" data-x="X" data-y="Y">`, one `<td>`
/// per cell with `data-x`, `data-y` (the parameter values) and `data-value` (the metric, shortest round-trip form, or
/// `null`); its background goes from the negative tone (lowest) to the positive tone (highest). The ranked rows are
/// `<table data-table="rows">`, the windows `<table data-table="walk-forward">`, and the stitched equity a
/// `TimeSeriesChart` with id `walk-forward-equity`.
public enum SweepReportPage {
    /// The document.
    public static func render(_ content: SweepReportContent) -> String {
        var body = MarkupWriter()
        body.element("h1", text: content.title)
        body.element("p", ["class": "lead"], text: content.subtitle)
        if let h = content.heatmap {
            body.element("h2", text: "\(h.metric) by \(h.xName) and \(h.yName)")
            if let note = h.note { body.element("p", ["class": "note"], text: note) }
            heatmap(h, into: &body)
        }
        if let windows = content.walkForwardWindows {
            body.element("h2", text: "Walk-forward")
            if let equity = content.walkForwardEquity, !equity.times.isEmpty {
                var chart = TimeSeriesChart(
                    id: "walk-forward-equity", title: "Out-of-sample equity, stitched",
                    series: [ChartSeries(name: "Out of sample", times: equity.times, values: equity.values, tone: .accent)],
                    valueFormat: .amount)
                chart.includesZero = false
                body.raw(chart.html())
            }
            table("walk-forward", windows, into: &body)
        }
        body.element("h2", text: "Combinations, ranked")
        table("rows", content.rows, into: &body)

        return HTMLPage.document(
            title: content.title,
            styleSheet: reportStyleSheet + ".heatmap td{text-align:center;min-width:4em}.heatmap th{text-align:center}",
            body: body.text)
    }

    static func heatmap(_ h: SweepHeatmap, into body: inout MarkupWriter) {
        let defined = h.cells.flatMap { $0 }.compactMap { $0 }.filter(\.isFinite)
        let lo = defined.min() ?? 0, hi = defined.max() ?? 0
        body.open("div", ["class": "scroll"])
        body.open("table", ["class": "heatmap", "data-heatmap": h.metric, "data-x": h.xName, "data-y": h.yName])
        body.open("thead")
        body.open("tr")
        body.element("th", text: "\(h.yName) \\ \(h.xName)")
        for x in h.xValues { body.element("th", text: x) }
        body.close("tr")
        body.close("thead")
        body.open("tbody")
        for (j, y) in h.yValues.enumerated() {
            body.open("tr")
            body.element("th", text: y)
            for (i, x) in h.xValues.enumerated() {
                let value = h.cells[j][i]
                var style: String?
                if let v = value, v.isFinite {
                    // Share of the way from the lowest to the highest value: negative tone below the middle, positive above.
                    let t = hi > lo ? (v - lo) / (hi - lo) : 0.5
                    let tone = t >= 0.5 ? "var(--positive)" : "var(--negative)"
                    let strength = Int((abs(t - 0.5) * 2 * 70).rounded()) + 10
                    style = "background:color-mix(in srgb, \(tone) \(strength)%, transparent)"
                }
                body.element(
                    "td", ["data-x": x, "data-y": y, "data-value": value.map(NumberText.exact) ?? "null", "style": style],
                    text: value.map { NumberText.fixed($0, decimals: 3, grouping: false) } ?? "n/a")
            }
            body.close("tr")
        }
        body.close("tbody")
        body.close("table")
        body.close("div")
    }

    static func table(_ id: String, _ rows: [[String]], into body: inout MarkupWriter) {
        guard let header = rows.first else { return }
        body.open("div", ["class": "scroll"])
        body.open("table", ["data-table": id, "data-rows": "\(rows.count - 1)"])
        body.open("thead")
        body.open("tr")
        for h in header { body.element("th", text: h) }
        body.close("tr")
        body.close("thead")
        body.open("tbody")
        for row in rows.dropFirst() {
            body.open("tr")
            for cell in row { body.element("td", text: cell) }
            body.close("tr")
        }
        body.close("tbody")
        body.close("table")
        body.close("div")
    }
}
