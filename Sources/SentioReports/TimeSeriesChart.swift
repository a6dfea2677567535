import Foundation
import SentioCore

/// How values on a chart's vertical axis are written.
public enum ValueFormat: Sendable, Equatable {
    /// Amounts: `250K`, `1.5M`.
    case amount
    /// Values already in percent: `-12.5%`.
    case percent
    /// Multiples: `1.25x`.
    case multiple
    /// Plain numbers with the decimals the tick step needs.
    case plain

    /// Labels for an axis's ticks. Amounts use one unit for the whole axis (chosen by its largest tick) so
    /// that `5K` never sits under `10K` written as `5,000`.
    func tickLabels(_ ticks: [Double], step: Double) -> [String] {
        let d = decimals(forStep: step)
        switch self {
        case .amount:
            let largest = ticks.map(abs).max() ?? 0
            let (divisor, suffix): (Double, String) = largest >= 1e9 ? (1e9, "B") : largest >= 1e6 ? (1e6, "M") : largest >= 1e4 ? (1e3, "K") : (1, "")
            let scaledDecimals = decimals(forStep: step / divisor)
            return ticks.map { $0 == 0 ? "0" : NumberText.fixed($0 / divisor, decimals: scaledDecimals) + suffix }
        case .percent: return ticks.map { NumberText.fixed($0, decimals: d) + "%" }
        case .multiple: return ticks.map { NumberText.fixed($0, decimals: max(1, d), grouping: false) + "x" }
        case .plain: return ticks.map { NumberText.fixed($0, decimals: d) }
        }
    }
}

/// One line on a time chart.
public struct ChartSeries: Sendable {
    public enum Style: Sendable { case line, dashed, area }
    public var name: String
    /// UTC epoch seconds, increasing, same length as `values`. Non-finite values leave a gap.
    public var times: [Int64]
    public var values: [Double]
    public var tone: Tone
    public var style: Style

    public init(name: String, times: [Int64], values: [Double], tone: Tone = .accent, style: Style = .line) {
        precondition(times.count == values.count, "series \(name): times and values differ in length")
        self.name = name
        self.times = times
        self.values = values
        self.tone = tone
        self.style = style
    }
}

/// A point marker (trade entry or exit) on a time chart.
public struct ChartMarker: Sendable, Equatable {
    public enum Kind: String, Sendable { case entry, exit }
    public var kind: Kind
    public var time: Int64
    public var value: Double
    public var tone: Tone
    /// Tooltip text (`<title>`), e.g. "Buy 120 @ 41.25".
    public var label: String
    /// The legend entry this marker belongs to (`Exit, loss`); markers with the same name share one entry, whose
    /// swatch has the first such marker's tone. `nil`: `Entry` or `Exit`.
    public var legend: String?

    public init(kind: Kind, time: Int64, value: Double, tone: Tone, label: String, legend: String? = nil) {
        self.kind = kind; self.time = time; self.value = value; self.tone = tone; self.label = label
        self.legend = legend
    }

    var legendName: String { legend ?? (kind == .entry ? "Entry" : "Exit") }
}

/// A shaded time span with a label, drawn under the series (a strategy's warm-up).
public struct ChartBand: Sendable, Equatable {
    public var start: Int64
    public var end: Int64
    public var label: String

    public init(start: Int64, end: Int64, label: String) {
        self.start = start; self.end = end; self.label = label
    }
}

/// A horizontal level drawn over a time span (a stop or a profit target while a position is open).
public struct ChartLevel: Sendable, Equatable {
    public enum Kind: String, Sendable { case stop, target }
    public var kind: Kind
    public var start: Int64
    public var end: Int64
    public var value: Double

    public init(kind: Kind, start: Int64, end: Int64, value: Double) {
        self.kind = kind; self.start = start; self.end = end; self.value = value
    }
}

/// A chart of values over time: line, dashed and area series, markers and levels, with a title, a legend,
/// a date axis and a value axis at nice numbers.
///
/// The SVG carries its structure for tests and tools: `data-chart` on the root, `data-series`,
/// `data-points` (points drawn) and `data-source-points` (points given) on each series path,
/// `data-marker`/`data-time`/`data-value` on markers, `data-level`/`data-value` on levels, `data-band` on shaded
/// spans; the markers group has `data-count` (markers drawn) and `data-hidden` (markers thinned out).
///
/// Markers are thinned like the lines: when the first series is downsampled, the plot is cut into the same
/// number of time columns as the downsampling's buckets, and each column keeps the first marker of each legend
/// entry and kind; the others are hidden and the caption says how many.
public struct TimeSeriesChart: Sendable {
    public var id: String
    public var title: String
    public var series: [ChartSeries]
    public var markers: [ChartMarker] = []
    public var levels: [ChartLevel] = []
    /// Shaded spans (warm-up), under everything else.
    public var bands: [ChartBand] = []
    public var valueFormat: ValueFormat
    public var width: Double = 1100
    public var height: Double = 340
    /// Points drawn per series at most; longer series are downsampled (`downsampleIndices`).
    public var maxPointsPerSeries: Int = 1000
    /// Forces 0 into the value range (drawdowns, cash flows).
    public var includesZero: Bool = false

    public init(id: String, title: String, series: [ChartSeries], valueFormat: ValueFormat) {
        self.id = id
        self.title = title
        self.series = series
        self.valueFormat = valueFormat
    }

    static let margin = (left: 70.0, right: 18.0, top: 44.0, bottom: 30.0)

    /// The chart as a `<figure>`: the SVG and, when a series was downsampled, a caption saying so.
    public func html() -> String {
        let rendered = svg()
        var w = MarkupWriter()
        w.open("figure", ["data-figure": id])
        w.raw(rendered.svg)
        for note in rendered.notes {
            w.element("figcaption", ["class": "note", "data-downsampled": "true"], text: note)
        }
        w.close("figure")
        return w.text
    }

    /// The SVG element and the downsampling notes.
    public func svg() -> (svg: String, notes: [String]) {
        let m = Self.margin
        let plotLeft = m.left, plotRight = width - m.right
        let plotTop = m.top, plotBottom = height - m.bottom
        var notes: [String] = []

        // Ranges over everything drawn.
        var t0 = Int64.max, t1 = Int64.min
        var lo = Double.infinity, hi = -Double.infinity
        for s in series {
            for (t, v) in zip(s.times, s.values) where v.isFinite {
                t0 = min(t0, t); t1 = max(t1, t); lo = min(lo, v); hi = max(hi, v)
            }
        }
        for mk in markers where mk.value.isFinite {
            t0 = min(t0, mk.time); t1 = max(t1, mk.time); lo = min(lo, mk.value); hi = max(hi, mk.value)
        }
        for l in levels where l.value.isFinite { lo = min(lo, l.value); hi = max(hi, l.value) }
        let empty = t0 > t1
        if empty { t0 = 0; t1 = 1; lo = 0; hi = 1 }
        if t1 == t0 { t1 = t0 + 86_400 }
        if includesZero { lo = min(lo, 0); hi = max(hi, 0) }
        let (ticks, step) = niceTicks(low: lo, high: hi, count: 6)
        let yLow = ticks.first!, yHigh = ticks.last!

        func x(_ t: Int64) -> Double { plotLeft + Double(t - t0) / Double(t1 - t0) * (plotRight - plotLeft) }
        func y(_ v: Double) -> Double { plotBottom - (v - yLow) / (yHigh - yLow) * (plotBottom - plotTop) }
        func c(_ v: Double) -> String { NumberText.fixed(v, decimals: 1, grouping: false) }

        var w = MarkupWriter()
        w.open("svg", [
            "xmlns": "http://www.w3.org/2000/svg", "viewBox": "0 0 \(c(width)) \(c(height))",
            "role": "img", "aria-label": title, "data-chart": id,
        ])
        w.element("title", text: title)
        w.element("text", ["class": "title", "x": c(plotLeft), "y": "20"], text: title)

        // Legend, right-aligned on the title row, laid out from the right.
        var legendEntries = series.map { (name: $0.name, tone: $0.tone) }
        // Marker entries in a fixed order (entries, gains, losses, stops), others after in order of appearance.
        let order = ["Entry", "Exit", "Exit, gain", "Exit, loss", "Stop-loss exit"]
        var markerEntries: [(name: String, tone: Tone)] = []
        for mk in markers where !markerEntries.contains(where: { $0.name == mk.legendName }) {
            markerEntries.append((mk.legendName, mk.tone))
        }
        legendEntries += markerEntries.enumerated().sorted {
            (order.firstIndex(of: $0.element.name) ?? order.count + $0.offset, $0.offset)
                < (order.firstIndex(of: $1.element.name) ?? order.count + $1.offset, $1.offset)
        }.map(\.element)
        if levels.contains(where: { $0.kind == .stop }) { legendEntries.append(("Stop level", .warning)) }
        if levels.contains(where: { $0.kind == .target }) { legendEntries.append(("Target level", .positive)) }
        // A band only when some of it falls inside the plotted time range.
        if let band = bands.first(where: { $0.end > t0 && $0.start < t1 }) { legendEntries.append((band.label, .muted)) }
        var legendX = plotRight
        w.open("g", ["class": "legend"])
        for entry in legendEntries.reversed() {
            let textWidth = Double(entry.name.count) * 6.4
            legendX -= textWidth
            w.element("text", ["x": c(legendX), "y": "20"], text: entry.name)
            legendX -= 16
            w.open("rect", ["class": "swatch \(entry.tone.rawValue)", "x": c(legendX), "y": "11", "width": "11", "height": "11", "rx": "2"], selfClosing: true)
            legendX -= 14
        }
        w.close("g")

        // Value axis: grid lines and labels.
        w.open("g", ["class": "y-axis", "data-ticks": "\(ticks.count)"])
        for (v, label) in zip(ticks, valueFormat.tickLabels(ticks, step: step)) {
            let yy = c(y(v))
            w.open("line", ["class": "grid", "x1": c(plotLeft), "x2": c(plotRight), "y1": yy, "y2": yy], selfClosing: true)
            w.element("text", ["x": c(plotLeft - 8), "y": c(y(v) + 4), "text-anchor": "end", "data-value": NumberText.exact(v)],
                      text: label)
        }
        w.close("g")
        if yLow < 0, yHigh > 0 {
            let yy = c(y(0))
            w.open("line", ["class": "zero", "x1": c(plotLeft), "x2": c(plotRight), "y1": yy, "y2": yy], selfClosing: true)
        }

        // Date axis.
        let maxDateTicks = max(2, Int((plotRight - plotLeft) / 95))
        let dates = empty ? [] : dateTicks(start: t0, end: t1, maxCount: maxDateTicks)
        w.open("g", ["class": "x-axis", "data-ticks": "\(dates.count)"])
        w.open("line", ["class": "axis", "x1": c(plotLeft), "x2": c(plotRight), "y1": c(plotBottom), "y2": c(plotBottom)], selfClosing: true)
        for d in dates {
            let xx = c(x(d.time))
            w.open("line", ["class": "axis", "x1": xx, "x2": xx, "y1": c(plotBottom), "y2": c(plotBottom + 4)], selfClosing: true)
            w.element("text", ["x": xx, "y": c(plotBottom + 17), "text-anchor": "middle", "data-time": "\(d.time)"], text: d.label)
        }
        w.close("g")

        // Shaded spans under everything.
        for band in bands {
            let x0 = x(max(band.start, t0)), x1 = x(min(band.end, t1))
            guard x1 > x0 else { continue }
            w.open("rect", ["class": "band", "data-band": band.label, "data-start": "\(band.start)", "data-end": "\(band.end)",
                            "x": c(x0), "y": c(plotTop), "width": c(x1 - x0), "height": c(plotBottom - plotTop)], selfClosing: true)
            w.element("text", ["class": "band-label", "x": c(x0 + 4), "y": c(plotBottom - 6)], text: band.label)
        }

        // Levels under the series.
        if !levels.isEmpty {
            w.open("g", ["class": "levels", "data-count": "\(levels.count)"])
            for l in levels {
                let tone: Tone = l.kind == .stop ? .warning : .positive
                w.open("line", [
                    "class": "level \(tone.rawValue)", "data-level": l.kind.rawValue, "data-value": NumberText.exact(l.value),
                    "x1": c(x(l.start)), "x2": c(x(l.end)), "y1": c(y(l.value)), "y2": c(y(l.value)),
                ], selfClosing: true)
            }
            w.close("g")
        }

        // Series.
        var firstSeriesDownsampled = false
        for (seriesIndex, s) in series.enumerated() {
            let kept = downsampleIndices(s.values, limit: maxPointsPerSeries)
            if seriesIndex == 0 && kept.count < s.values.count { firstSeriesDownsampled = true }
            let finiteCount = s.values.lazy.filter(\.isFinite).count
            var d = ""
            var drawn = 0
            var penDown = false
            var firstX = 0.0, lastX = 0.0
            for i in kept {
                let v = s.values[i]
                guard v.isFinite else { penDown = false; continue }
                let px = x(s.times[i]), py = y(v)
                d += (penDown ? "L" : "M") + c(px) + "," + c(py)
                if drawn == 0 { firstX = px }
                lastX = px
                penDown = true
                drawn += 1
            }
            if kept.count < s.values.count {
                notes.append("\(s.name): \(NumberText.fixed(Double(finiteCount), decimals: 0)) points drawn as "
                    + "\(NumberText.fixed(Double(drawn), decimals: 0)) (minimum and maximum per pixel column; extremes kept).")
            }
            if s.style == .area, drawn > 0 {
                let base = c(y(min(max(0, yLow), yHigh)))
                let area = d.replacingOccurrences(of: "M", with: "L").dropFirst()
                w.open("path", ["class": "area \(s.tone.rawValue)", "aria-hidden": "true",
                                "d": "M" + c(firstX) + "," + base + "L" + area + "L" + c(lastX) + "," + base + "Z"], selfClosing: true)
            }
            w.open("path", [
                "class": "series \(s.tone.rawValue)" + (s.style == .dashed ? " dashed" : ""),
                "data-series": s.name, "data-points": "\(drawn)", "data-source-points": "\(finiteCount)",
                "d": d.isEmpty ? "M0,0" : d,
            ], selfClosing: true)
        }

        // Markers on top, thinned per time column like the lines.
        var shownMarkers = markers.filter { $0.value.isFinite }
        var hidden = 0
        if firstSeriesDownsampled {
            let columns = max(1, (maxPointsPerSeries - 2) / 2)
            var seen = Set<String>()
            let all = shownMarkers
            shownMarkers = []
            for mk in all {
                let column = min(columns - 1, Int(Double(mk.time - t0) / Double(t1 - t0) * Double(columns)))
                if seen.insert("\(column)|\(mk.kind.rawValue)|\(mk.legendName)").inserted { shownMarkers.append(mk) } else { hidden += 1 }
            }
            if hidden > 0 {
                notes.append("Trade markers: \(NumberText.fixed(Double(shownMarkers.count), decimals: 0)) of "
                    + "\(NumberText.fixed(Double(all.count), decimals: 0)) drawn, \(NumberText.fixed(Double(hidden), decimals: 0)) hidden "
                    + "(one per kind and colour per time column, the columns of the lines' downsampling).")
            }
        }
        if !markers.isEmpty {
            w.open("g", ["class": "markers", "data-count": "\(shownMarkers.count)", "data-hidden": "\(hidden)"])
            for mk in shownMarkers {
                let px = x(mk.time), py = y(mk.value)
                // Entries: a triangle pointing up from below the price; exits: pointing down from above.
                let shape = mk.kind == .entry
                    ? "M\(c(px)),\(c(py + 2))l-5,9h10z" : "M\(c(px)),\(c(py - 2))l-5,-9h10z"
                w.open("path", ["class": "marker \(mk.tone.rawValue)", "data-marker": mk.kind.rawValue,
                                "data-time": "\(mk.time)", "data-value": NumberText.exact(mk.value), "d": shape])
                w.element("title", text: mk.label)
                w.close("path")
            }
            w.close("g")
        }
        if empty {
            w.element("text", ["x": c((plotLeft + plotRight) / 2), "y": c((plotTop + plotBottom) / 2), "text-anchor": "middle"], text: "no data")
        }
        w.close("svg")
        return (w.text, notes)
    }
}
