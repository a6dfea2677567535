import SentioCore
import SentioIndicators

/// A crossover strategy on any TA-Lib function of SentioIndicators' set (`TAFunction`): buy when output `line`
/// crosses above the reference — another output of the same function (`MACD`'s `macdsignal`, `STOCH`'s `slowd`) or a
/// fixed level (`ADX` above 25, `CCI` above 100) — and sell when it crosses back below (long-only, one position per
/// symbol).
///
/// A cross at bar *i* compares bars *i − 1* and *i*: `line[i−1] ≤ ref[i−1]` and `line[i] > ref[i]` buys,
/// `line[i−1] ≥ ref[i−1]` and `line[i] < ref[i]` sells; no decision before the function's lookback + 1. The function
/// is computed per symbol in `prepare` with `TAFunction.compute(_:)`, which runs the same update step as the
/// function's `TAStream` (what a live strategy holds): the value at bar *i* depends on bars `0...i` only.
public struct TACrossStrategy: Strategy {
    /// What the line is compared with.
    public enum Reference: Sendable, Equatable {
        /// Another output of the function, by index (0-based, TA-Lib's order).
        case output(Int)
        /// A fixed level.
        case level(Double)
    }

    public let function: TAFunction
    public let line: Int
    public let reference: Reference
    private var values: [[IndicatorSeries]] = []

    /// - Precondition: `line` (and an output reference) index an output of `function`.
    public init(function: TAFunction, line: Int = 0, reference: Reference) {
        precondition(line >= 0 && line < function.outputCount, "line must index an output of \(function.label)")
        if case .output(let k) = reference {
            precondition(k >= 0 && k < function.outputCount && k != line, "reference must index another output")
        }
        self.function = function
        self.line = line
        self.reference = reference
    }

    public var name: String { "ta-cross" }

    /// Computes the function over every symbol.
    ///
    /// - Throws: `WindowOverflowError` when a value of a symbol's series cannot be represented.
    public mutating func prepare(market: Market) throws {
        let function = self.function, series = market.series
        values = try concurrentMap(series.count) { try function.compute(series[$0]) }
    }

    public mutating func decide(_ context: DecisionContext) -> Decision {
        guard context.bar >= 1 else { return .hold }
        let outputs = values[context.symbol]
        guard let now = outputs[line].value(at: context.bar), let before = outputs[line].value(at: context.bar - 1)
        else { return .hold }
        let refNow: Double, refBefore: Double
        switch reference {
        case .level(let level):
            (refNow, refBefore) = (level, level)
        case .output(let k):
            guard let a = outputs[k].value(at: context.bar), let b = outputs[k].value(at: context.bar - 1) else { return .hold }
            (refNow, refBefore) = (a, b)
        }
        if !context.isInvested && before <= refBefore && now > refNow { return .buy() }
        if context.isInvested && before >= refBefore && now < refNow { return .sell }
        return .hold
    }
}
