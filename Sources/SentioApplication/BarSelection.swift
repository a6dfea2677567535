import SentioCore
import SentioStore

// Selecting bars the same way from CSV input and from the store: an inclusive time range and a symbol list
// matched without regard to case (symbols of CSV input come from file names).

/// An inclusive range of bar times (UTC epoch seconds); `nil` bounds are open.
public struct BarRange: Equatable, Sendable {
    public var lower: Int64?
    public var upper: Int64?

    public init(lower: Int64? = nil, upper: Int64? = nil) {
        self.lower = lower
        self.upper = upper
    }

    public var isUnbounded: Bool { lower == nil && upper == nil }

    /// The bars of `series` inside the range (timestamps are increasing, so this is one contiguous slice).
    public func apply(to series: OHLCVSeries) -> OHLCVSeries {
        if isUnbounded { return series }
        let t = series.timestamps
        let start = lower.map { bound in t.partitioningIndex { $0 >= bound } } ?? 0
        let end = upper.map { bound in t.partitioningIndex { $0 > bound } } ?? t.count
        return series.slice(start..<max(start, end))
    }

    /// "between 2023-01-03T00:00:00Z and 2023-06-30T23:59:59Z", for messages.
    public var description: String {
        switch (lower, upper) {
        case let (l?, u?): return "between \(iso8601(epochSeconds: l)) and \(iso8601(epochSeconds: u))"
        case let (l?, nil): return "from \(iso8601(epochSeconds: l))"
        case let (nil, u?): return "up to \(iso8601(epochSeconds: u))"
        case (nil, nil): return "at all"
        }
    }

    /// Throws a ``BarSelectionError`` naming the symbols that have no bar in the range (`source` names the input).
    public func requireBars(in series: [OHLCVSeries], source: String) throws(BarSelectionError) {
        let empty = series.filter(\.isEmpty).map(\.symbol)
        guard empty.isEmpty else {
            let which = empty.count == 1 ? "symbol \(empty[0]) has" : "symbols \(empty.joined(separator: ", ")) have"
            throw BarSelectionError("\(which) no bars \(description) in \(source); choose another range or --symbols")
        }
    }
}

extension Array where Element == Int64 {
    /// The first index whose element satisfies `belongs` (which must be false then true along the array).
    func partitioningIndex(where belongs: (Int64) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// A symbol list or time range that selects nothing usable (exit code 2 in the CLI).
public struct BarSelectionError: UserInputError, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The one symbol-selection rule.
public enum SymbolSelection {
    /// The elements of `available` named by `wanted` (matched without regard to case), in `wanted`'s order; all
    /// of `available` when `wanted` is `nil`.
    ///
    /// - Parameters:
    ///   - wanted: the symbols asked for; `nil` selects all of `available`.
    ///   - available: the elements to select from.
    ///   - symbol: the symbol of an element.
    ///   - source: what holds the data, for the message ("the data", "the store s.sqlite").
    ///   - option: the option that named the symbols, for the message.
    /// - Throws: ``BarSelectionError`` for a symbol not in `available`, naming what `source` has.
    public static func select<Element>(
        _ wanted: [String]?, from available: [Element], symbol: (Element) -> String, source: String = "the data",
        option: String = "--symbols"
    ) throws(BarSelectionError) -> [Element] {
        guard let wanted else { return available }
        var selected: [Element] = []
        for name in wanted {
            guard let match = available.first(where: { symbol($0).uppercased() == name.uppercased() }) else {
                let names = available.map(symbol).joined(separator: ", ")
                throw BarSelectionError("unknown symbol \(name) in \(option); \(source) has \(names)")
            }
            selected.append(match)
        }
        return selected
    }
}

extension SentioDatabase {
    /// The stored series of `symbols` (default: every stored symbol with bars, sorted) within `range`.
    ///
    /// Symbols are matched without regard to case, as with CSV input. An empty store, an unknown symbol and a
    /// symbol without bars in the range are ``BarSelectionError``s that name the store.
    /// - Throws: ``BarSelectionError``; `StoreError` from loading.
    public func selectSeries(symbols wanted: [String]?, range: BarRange, option: String = "--symbols") throws -> [OHLCVSeries] {
        let stored = try instruments().filter { $0.barCount > 0 }.map(\.symbol)
        guard !stored.isEmpty else {
            throw BarSelectionError("the store \(path) holds no bars (import CSV files with `sentio import PATH --db \(path)`)")
        }
        let symbols = try SymbolSelection.select(wanted, from: stored, symbol: { $0 }, source: "the store \(path)", option: option)
        let series = try loadSeries(symbols: symbols, from: range.lower, to: range.upper)
        try range.requireBars(in: series, source: "the store \(path)")
        return series
    }
}
