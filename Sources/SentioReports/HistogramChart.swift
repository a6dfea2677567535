import Foundation
import SentioCore

/// Counts of values in equal-width bins.
public struct Histogram: Sendable, Equatable {
    /// Bin edges, `bins + 1` of them, increasing; bin `k` holds `edges[k] ≤ v < edges[k+1]`, the last bin also
    /// its upper edge.
    public var edges: [Double]
    public var counts: [Int]
    /// Non-finite values left out.
    public var skipped: Int

    /// Bins `values` into `bins` equal-width bins from the smallest to the largest finite value (one bin of width
    /// 1 around the value when all are equal; none when there is no finite value).
    public init(_ values: [Double], bins: Int) {
        precondition(bins >= 1, "a histogram needs at least one bin")
        let finite = values.filter(\.isFinite)
        skipped = values.count - finite.count
        guard let lo = finite.min(), let hi = finite.max() else {
            edges = []
            counts = []
            return
        }
        let (low, high) = lo < hi ? (lo, hi) : (lo - 0.5, lo + 0.5)
        let width = (high - low) / Double(bins)
        edges = (0...bins).map { $0 == bins ? high : low + Double($0) * width }
        var counts = [Int](repeating: 0, count: bins)
        for v in finite { counts[min(bins - 1, max(0, Int((v - low) / width)))] += 1 }
        self.counts = counts
    }
}

/// A histogram as an SVG bar chart (`data-chart` on the root, `data-bins`, and per bar `data-count`,
/// `data-lower`, `data-upper`), with a title, value labels on the horizontal axis in `valueFormat` and count
/// ticks on the vertical axis. Bars whose bin lies below 0 use `negativeTone`, the others `positiveTone`.
public struct HistogramChart: Sendable {
    public var id: String
    public var title: String
    public var histogram: Histogram
    public var valueFormat: ValueFormat
    public var width: Double = 1100
    public var height: Double = 260
    public var positiveTone: Tone = .positive
    public var negativeTone: Tone = .negative

    public init(id: String, title: String, histogram: Histogram, valueFormat: ValueFormat) {
        self.id = id
        self.title = title
        self.histogram = histogram
        self.valueFormat = valueFormat
    }

    public func html() -> String {
        let m = TimeSeriesChart.margin
        let left = m.left, right = width - m.right, top = m.top, bottom = height - m.bottom
        func c(_ v: Double) -> String { NumberText.fixed(v, decimals: 1, grouping: false) }
        var w = MarkupWriter()
        w.open("figure", ["data-figure": id])
        w.open("svg", ["xmlns": "http://www.w3.org/2000/svg", "viewBox": "0 0 \(c(width)) \(c(height))", "role": "img",
                       "aria-label": title, "data-chart": id, "data-bins": "\(histogram.counts.count)"])
        w.element("title", text: title)
        w.element("text", ["class": "title", "x": c(left), "y": "20"], text: title)
        let edges = histogram.edges
        let maxCount = histogram.counts.max() ?? 0
        let (ticks, step) = niceTicks(low: 0, high: Double(max(maxCount, 1)), count: 5)
        let yHigh = ticks.last ?? 1
        func y(_ v: Double) -> Double { bottom - v / yHigh * (bottom - top) }
        w.open("g", ["class": "y-axis", "data-ticks": "\(ticks.count)"])
        for (v, label) in zip(ticks, ValueFormat.plain.tickLabels(ticks, step: step)) {
            w.open("line", ["class": "grid", "x1": c(left), "x2": c(right), "y1": c(y(v)), "y2": c(y(v))], selfClosing: true)
            w.element("text", ["x": c(left - 8), "y": c(y(v) + 4), "text-anchor": "end"], text: label)
        }
        w.close("g")
        if let lo = edges.first, let hi = edges.last, hi > lo {
            func x(_ v: Double) -> Double { left + (v - lo) / (hi - lo) * (right - left) }
            w.open("g", ["class": "bars"])
            for (k, count) in histogram.counts.enumerated() {
                let x0 = x(edges[k]), x1 = x(edges[k + 1])
                let tone = edges[k + 1] <= 0 ? negativeTone : positiveTone
                w.open("rect", ["class": "bar \(tone.rawValue)", "data-count": "\(count)",
                                "data-lower": NumberText.exact(edges[k]), "data-upper": NumberText.exact(edges[k + 1]),
                                "x": c(x0 + 0.5), "y": c(y(Double(count))), "width": c(max(0.5, x1 - x0 - 1)),
                                "height": c(bottom - y(Double(count)))])
                w.element("title", text: "\(NumberText.fixed(edges[k], decimals: 2)) to \(NumberText.fixed(edges[k + 1], decimals: 2)): \(count)")
                w.close("rect")
            }
            w.close("g")
            let (xTicks, xStep) = niceTicks(low: lo, high: hi, count: 8)
            w.open("g", ["class": "x-axis", "data-ticks": "\(xTicks.count)"])
            w.open("line", ["class": "axis", "x1": c(left), "x2": c(right), "y1": c(bottom), "y2": c(bottom)], selfClosing: true)
            for (v, label) in zip(xTicks, valueFormat.tickLabels(xTicks, step: xStep)) where v >= lo && v <= hi {
                w.element("text", ["x": c(x(v)), "y": c(bottom + 17), "text-anchor": "middle"], text: label)
            }
            w.close("g")
            if lo < 0 && hi > 0 {
                w.open("line", ["class": "zero", "x1": c(x(0)), "x2": c(x(0)), "y1": c(top), "y2": c(bottom)], selfClosing: true)
            }
        } else {
            w.element("text", ["x": c((left + right) / 2), "y": c((top + bottom) / 2), "text-anchor": "middle"], text: "no data")
        }
        w.close("svg")
        w.close("figure")
        return w.text
    }
}
