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
/// function's `TAStream`, what the streaming form holds: the value at bar *i* depends on bars `0...i` only. In
/// streaming form a bar whose value overflows (where `prepare` throws) makes the symbol hold from then on.
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
    /// The function's lookback (`TAFunction.lookback` evaluates its rule on each call: computed once here).
    private let lookback: Int
    private var values: [[IndicatorSeries]] = []
    /// Streaming form: each symbol's state, its outputs at the latest bar and at the one before (NaN where the
    /// function has no value), and whether an overflow stopped it.
    private var streams: [TAStream] = []
    private var now: [SIMD4<Double>] = []
    private var before: [SIMD4<Double>] = []
    private var stopped: [Bool] = []

    /// - Precondition: `line` (and an output reference) index an output of `function`.
    public init(function: TAFunction, line: Int = 0, reference: Reference) {
        precondition(line >= 0 && line < function.outputCount, "line must index an output of \(function.label)")
        if case .output(let k) = reference {
            precondition(k >= 0 && k < function.outputCount && k != line, "reference must index another output")
        }
        self.function = function
        self.line = line
        self.reference = reference
        lookback = function.lookback
    }

    public var name: String { "ta-cross" }

    /// Computes the function over every symbol.
    ///
    /// - Throws: `WindowOverflowError` when a value of a symbol's series cannot be represented.
    public mutating func prepare(market: Market) throws -> StrategyPreparation {
        let function = self.function, series = market.series
        values = try concurrentMap(series.count) { try function.compute(series[$0]) }
        streams = []
        return .batch
    }

    public mutating func start(symbols: [String]) throws {
        values = []
        streams = Array(repeating: function.makeStream(), count: symbols.count)
        now = Array(repeating: SIMD4(repeating: .nan), count: symbols.count)
        before = now
        stopped = Array(repeating: false, count: symbols.count)
    }

    public mutating func observe(symbol s: Int, bar: Bar) {
        before[s] = now[s]
        guard !stopped[s] else { return }
        do {
            let valid = try streams[s].update(
                TABar(open: bar.open, high: bar.high, low: bar.low, close: bar.close, volume: bar.volume))
            now[s] = valid ? streams[s].values : SIMD4(repeating: .nan)
        } catch {
            stopped[s] = true
        }
    }

    public mutating func decide(_ context: DecisionContext) -> Decision {
        // Both bars at or after the lookback (before it the batch series has no value).
        guard context.bar >= 1 + lookback else { return .hold }
        let lineNow: Double, lineBefore: Double, refNow: Double, refBefore: Double
        if streams.isEmpty {
            let outputs = values[context.symbol]
            (lineNow, lineBefore) = (outputs[line].values[context.bar], outputs[line].values[context.bar - 1])
            if case .output(let k) = reference {
                (refNow, refBefore) = (outputs[k].values[context.bar], outputs[k].values[context.bar - 1])
            } else {
                (refNow, refBefore) = (.nan, .nan)
            }
        } else {
            let s = context.symbol
            if stopped[s] { return .hold }
            (lineNow, lineBefore) = (now[s][line], before[s][line])
            if case .output(let k) = reference {
                (refNow, refBefore) = (now[s][k], before[s][k])
            } else {
                (refNow, refBefore) = (.nan, .nan)
            }
        }
        let (a, b): (Double, Double)
        if case .level(let level) = reference { (a, b) = (level, level) } else { (a, b) = (refNow, refBefore) }
        if !context.isInvested && lineBefore <= b && lineNow > a { return .buy() }
        if context.isInvested && lineBefore >= b && lineNow < a { return .sell }
        return .hold
    }
}
