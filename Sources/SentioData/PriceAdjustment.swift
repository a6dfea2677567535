import Foundation
import SentioCore

/// How prices read from a file are adjusted for corporate actions (`--adjust`).
///
/// - ``total``: with an adjusted-close column (`Adj Close`), every bar's open, high, low and close are multiplied
///   by `g_i = (adj_i / close_i) / (adj_n / close_n)` (n the last bar), so the last bar keeps the file's prices and
///   close-to-close returns are those of the adjusted close: returns include reinvested dividends. Volumes are
///   multiplied by the product of the split ratios after the bar (the splits are the jumps of `adj/close` within
///   1 % of a split ratio, see ``splitRatios``), so volumes count shares of the last bar.
/// - ``splits``: prices before each split are divided by its ratio and volumes multiplied by it; the splits come
///   from `--actions` (``CorporateActions``), else from the jumps of an adjusted-close column. Dividends are not in
///   the prices; with `--actions` the backtest credits them in cash (per adjusted share).
/// - ``none``: prices as in the file. With `--actions`, the backtest applies the actions to the holding at each
///   ex-date (shares × ratio, dividends in cash).
/// - ``auto`` (the default): ``none`` with the actions when `--actions` is given; else ``total`` when the file has
///   an adjusted close; else ``none``, after checking that no bar-to-bar move looks like a split.
///
/// The split check (``auto`` without an adjusted close): bar i is refused when, for a ratio r among 2, 3, 3/2, 4, 5,
/// 10 and their inverses, the previous close over the close and the previous close over the open are both within
/// 10 % of r and one of them within 1 % (a split shows in the opening gap; the rest of the day moves on its own:
/// AAPL's 2-for-1 of 2000-06-21 opened 2.005x below the previous close and closed 1.82x below it). A move explained
/// by a split of `--actions` on that bar is not refused.
public enum PriceAdjustment: String, Sendable, Equatable, CaseIterable {
    case auto, none, splits, total

    /// The split ratios the check and the adjusted-close split finder know (new shares per old share).
    public static let splitRatios: [Double] = [2, 3, 1.5, 4, 5, 10, 1.0 / 2, 1.0 / 3, 2.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 10]

    /// How a ratio reads: `2-for-1`, `1-for-10 reverse`, `3-for-2`.
    public static func name(ofRatio r: Double) -> String {
        let pairs: [(Double, String)] = [
            (2, "2-for-1"), (3, "3-for-1"), (1.5, "3-for-2"), (4, "4-for-1"), (5, "5-for-1"), (10, "10-for-1"),
            (0.5, "1-for-2 reverse"), (1.0 / 3, "1-for-3 reverse"), (2.0 / 3, "2-for-3 reverse"), (0.25, "1-for-4 reverse"),
            (0.2, "1-for-5 reverse"), (0.1, "1-for-10 reverse"),
        ]
        return pairs.first { abs($0.0 / r - 1) < 1e-9 }?.1 ?? String(format: "%.6g-for-1", r)
    }

    /// The split ratio a bar-to-bar move looks like (the split check's rule, see ``PriceAdjustment``), or `nil`:
    /// r among ``splitRatios`` with the previous close over the close and the previous close over the open both
    /// within 10 % of r and one of them within 1 %.
    ///
    /// - Parameters:
    ///   - previousClose: the close of the symbol's previous bar.
    ///   - open: this bar's open.
    ///   - close: this bar's close.
    /// - Returns: the ratio (new shares per old share), `nil` for a move no split explains.
    @inlinable
    public static func suspectedSplitRatio(previousClose: Double, open: Double, close: Double) -> Double? {
        let closeRatio = previousClose / close, openRatio = previousClose / open
        // Fast reject: no split ratio is within 10 % of a move below 1.35x either way.
        if closeRatio < 1.35 && closeRatio > 1 / 1.35 && openRatio < 1.35 && openRatio > 1 / 1.35 { return nil }
        return matchingSplitRatio(closeRatio: closeRatio, openRatio: openRatio)
    }

    @usableFromInline
    static func matchingSplitRatio(closeRatio: Double, openRatio: Double) -> Double? {
        for r in splitRatios {
            let cm = abs(closeRatio / r - 1), om = abs(openRatio / r - 1)
            if (cm <= 0.01 && om <= 0.1) || (om <= 0.01 && cm <= 0.1) { return r }
        }
        return nil
    }

    /// The advice of a suspected split's message: the ways to proceed.
    public static let suspectedSplitAdvice = "Use a file with an adjusted close column (--adjust total), or list the split with --actions FILE "
        + "(symbol,date,split_ratio,cash_dividend), or pass --adjust none if the move is real"

    /// `YYYY-MM-DD` for a midnight, the full ISO-8601 time otherwise (how messages name a bar's date).
    public static func shortDate(_ t: Int64) -> String {
        let text = iso8601(epochSeconds: t)
        return text.hasSuffix("T00:00:00Z") ? String(text.prefix(10)) : text
    }

    /// The split ratio `jump` is within `tolerance` of, or `nil`.
    public static func nearestSplitRatio(_ jump: Double, tolerance: Double) -> Double? {
        guard jump.isFinite, jump > 0 else { return nil }
        return splitRatios.first { abs(jump / $0 - 1) <= tolerance }
    }
}

/// The adjustment applied to a series, as outputs state it.
public struct AppliedAdjustment: Sendable, Equatable, CustomStringConvertible {
    public enum Mode: String, Sendable, Equatable { case none, splits, total }
    /// What was applied to the prices.
    public var mode: Mode
    /// What was asked for.
    public var requested: PriceAdjustment
    /// The adjusted-close column's name, when the file has one.
    public var adjustedCloseColumn: String?
    /// Splits applied to the prices (``Mode/splits``, ``Mode/total``).
    public var splits: Int
    /// The corporate actions file whose actions apply to holdings (``Mode/none`` and ``Mode/splits``), when given.
    public var actionsFile: String?

    public init(mode: Mode, requested: PriceAdjustment, adjustedCloseColumn: String? = nil, splits: Int = 0,
                actionsFile: String? = nil) {
        self.mode = mode
        self.requested = requested
        self.adjustedCloseColumn = adjustedCloseColumn
        self.splits = splits
        self.actionsFile = actionsFile
    }

    /// A file read as it is: no adjusted close, no actions, nothing applied.
    public static let plain = AppliedAdjustment(mode: .none, requested: .auto)

    /// Nothing to state: prices as in a file without an adjusted close, no actions (outputs leave the statement
    /// out, so they are unchanged for such files).
    public var isPlain: Bool { mode == .none && adjustedCloseColumn == nil && actionsFile == nil }

    /// One sentence: what the prices are.
    public var description: String {
        switch mode {
        case .total:
            return "total (prices scaled by '\(adjustedCloseColumn ?? "adjusted close")'/close: returns include reinvested "
                + "dividends; \(splits) split(s) found, volumes in shares of the last bar)"
        case .splits:
            let source = actionsFile.map { "from \($0)" } ?? "found in '\(adjustedCloseColumn ?? "adjusted close")'"
            let dividends = actionsFile == nil
                ? "dividends not included" : "dividends of \(actionsFile!) credited in cash"
            return "splits (\(splits) split(s) \(source); \(dividends))"
        case .none:
            if let actionsFile {
                return "none (prices as in the file; splits and dividends of \(actionsFile) applied to holdings)"
            }
            if let column = adjustedCloseColumn {
                return "none (prices as in the file; its '\(column)' column is not used)"
            }
            return "none (prices as in the file)"
        }
    }
}

/// Applies a ``PriceAdjustment`` to a series read from a file.
enum PriceAdjuster {
    /// Adjusts `series` in place and returns what was applied.
    ///
    /// - Parameters:
    ///   - adjustedClose: the adjusted close of each bar, empty when the file has none.
    ///   - lineOf: the file line of bar `i` (for errors; called only on the error path).
    static func apply(
        to series: inout OHLCVSeries, adjustedClose: [Double], adjustedCloseName: String?, requested: PriceAdjustment,
        actions: CorporateActions?, file: String, lineOf: (Int) -> Int
    ) throws(CSVError) -> AppliedAdjustment {
        let hasAdjusted = !adjustedClose.isEmpty
        let own = actions?.actions(for: series.symbol).filter { $0.date <= (series.timestamps.last ?? .min) } ?? []
        let actionsFile = actions?.file
        switch requested {
        case .none:
            return AppliedAdjustment(mode: .none, requested: requested, adjustedCloseColumn: adjustedCloseName,
                                     actionsFile: actionsFile)
        case .total:
            guard hasAdjusted else {
                throw .adjustment(file: file, line: 1, message: "--adjust total needs an adjusted close column "
                    + "(Adj Close, adj_close, adjclose); this file has none: use --adjust splits with --actions FILE, or --adjust none")
            }
            if actions != nil {
                throw .adjustment(file: file, line: nil, message: "--adjust total already includes splits and dividends "
                    + "(adjusted close); --actions would count them twice: use --adjust none or splits with --actions")
            }
            let splits = try applyTotal(&series, adjustedClose: adjustedClose, file: file, lineOf: lineOf)
            return AppliedAdjustment(mode: .total, requested: requested, adjustedCloseColumn: adjustedCloseName, splits: splits)
        case .splits:
            if actions != nil {
                let splits = applySplits(&series, splits: own.filter { $0.splitRatio != 1 }.map { ($0.date, $0.splitRatio) })
                return AppliedAdjustment(mode: .splits, requested: requested, adjustedCloseColumn: adjustedCloseName,
                                         splits: splits, actionsFile: actionsFile)
            }
            guard hasAdjusted else {
                throw .adjustment(file: file, line: nil, message: "--adjust splits needs the splits: give --actions FILE "
                    + "(symbol,date,split_ratio,cash_dividend) or use a file with an adjusted close column")
            }
            let found = splitsInAdjustedClose(series, adjustedClose: adjustedClose)
            let splits = applySplits(&series, splits: found.map { (series.timestamps[$0.bar], $0.ratio) })
            return AppliedAdjustment(mode: .splits, requested: requested, adjustedCloseColumn: adjustedCloseName, splits: splits)
        case .auto:
            if actions != nil {
                try checkSplits(series, explained: own, file: file, lineOf: lineOf)
                return AppliedAdjustment(mode: .none, requested: requested, adjustedCloseColumn: adjustedCloseName,
                                         actionsFile: actionsFile)
            }
            if hasAdjusted {
                let splits = try applyTotal(&series, adjustedClose: adjustedClose, file: file, lineOf: lineOf)
                return AppliedAdjustment(mode: .total, requested: requested, adjustedCloseColumn: adjustedCloseName, splits: splits)
            }
            try checkSplits(series, explained: [], file: file, lineOf: lineOf)
            return .plain
        }
    }

    /// The bars where `adj/close` jumps by a split ratio (within 1 %), with the exact ratio.
    static func splitsInAdjustedClose(_ series: OHLCVSeries, adjustedClose: [Double]) -> [(bar: Int, ratio: Double)] {
        var found: [(Int, Double)] = []
        let c = series.close
        for i in 1..<max(1, c.count) {
            // f_i / f_{i-1} with f = adj / close: a split of ratio r multiplies f by r at its ex-date.
            let jump = (adjustedClose[i] / c[i]) / (adjustedClose[i - 1] / c[i - 1])
            if let r = PriceAdjustment.nearestSplitRatio(jump, tolerance: 0.01) { found.append((i, r)) }
        }
        return found
    }

    /// ``PriceAdjustment/total``; returns the number of splits found in the adjusted close.
    static func applyTotal(
        _ series: inout OHLCVSeries, adjustedClose: [Double], file: String, lineOf: (Int) -> Int
    ) throws(CSVError) -> Int {
        let n = series.count
        let last = adjustedClose[n - 1] / series.close[n - 1]
        let splits = splitsInAdjustedClose(series, adjustedClose: adjustedClose)
        // Volume factor of bar i: the product of the split ratios of the bars after i.
        var volumeFactor = [Double](repeating: 1, count: n)
        var running = 1.0
        var next = splits.count - 1
        for i in stride(from: n - 1, through: 0, by: -1) {
            volumeFactor[i] = running
            if next >= 0, splits[next].bar == i { running *= splits[next].ratio; next -= 1 }
        }
        for i in 0..<n {
            let g = (adjustedClose[i] / series.close[i]) / last
            guard g.isFinite, g > 0 else {
                throw .adjustment(file: file, line: lineOf(i), message: "adjusted close over close is not a positive finite factor")
            }
            series.open[i] *= g
            series.high[i] *= g
            series.low[i] *= g
            series.close[i] *= g
            series.volume[i] *= volumeFactor[i]
        }
        return splits.count
    }

    /// Divides the prices of the bars before each split (time, ratio) by its ratio and multiplies their volumes;
    /// returns the number of splits that fall inside the series.
    static func applySplits(_ series: inout OHLCVSeries, splits: [(time: Int64, ratio: Double)]) -> Int {
        let n = series.count
        guard n > 0, !splits.isEmpty else { return 0 }
        var factor = [Double](repeating: 1, count: n)
        var applied = 0
        for split in splits where split.time > series.timestamps[0] {
            applied += 1
            for i in 0..<n where series.timestamps[i] < split.time { factor[i] *= split.ratio }
        }
        for i in 0..<n where factor[i] != 1 {
            series.open[i] /= factor[i]
            series.high[i] /= factor[i]
            series.low[i] /= factor[i]
            series.close[i] /= factor[i]
            series.volume[i] *= factor[i]
        }
        return applied
    }

    /// The split check: throws `suspectedSplit` for the first bar whose move looks like a split (see
    /// ``PriceAdjustment``) and that no split of `explained` falls on.
    static func checkSplits(
        _ series: OHLCVSeries, explained: [CorporateAction], file: String, lineOf: (Int) -> Int
    ) throws(CSVError) {
        let c = series.close, o = series.open, t = series.timestamps
        let n = c.count
        guard n >= 2 else { return }
        for i in 1..<n {
            guard let r = PriceAdjustment.suspectedSplitRatio(previousClose: c[i - 1], open: o[i], close: c[i]) else { continue }
            if explained.contains(where: { $0.splitRatio != 1 && $0.date > t[i - 1] && $0.date <= t[i] }) { continue }
            throw .suspectedSplit(
                file: file, line: lineOf(i), symbol: series.symbol, previousLine: lineOf(i - 1),
                previousDate: PriceAdjustment.shortDate(t[i - 1]), date: PriceAdjustment.shortDate(t[i]), ratio: PriceAdjustment.name(ofRatio: r),
                closeRatio: c[i - 1] / c[i], openRatio: c[i - 1] / o[i])
        }
    }
}
