import Foundation
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

    /// `ta-cross.rule` (``rule``) and `ta-cross.parameters` (every parameter of the function, `TAFunction.parametersText`).
    public var settings: [(key: String, value: String)] {
        [("ta-cross.rule", rule), ("ta-cross.parameters", function.parametersText)]
    }

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

extension TACrossStrategy {
    /// The rule `sentio backtest --strategy ta-cross` uses by default: MACD's line crossing its signal line.
    public static let defaultRule = "macd_macd>macd_macdsignal"

    /// The rule as text, `LINE>REFERENCE`: the line's column name (as `sentio indicators` names its columns:
    /// `macd_macd`, `adx`, `stoch_slowk`), then another column of the same function or a level (`macd_macd>macd_macdsignal`,
    /// `adx>25`, `cci>-100`).
    public var rule: String {
        let columns = function.columnNames
        switch reference {
        case .output(let k): return columns[line] + ">" + columns[k]
        case .level(let x): return columns[line] + ">" + (x.rounded() == x && abs(x) < 1e15 ? String(Int(x)) : String(x))
        }
    }

    /// The strategy of a rule `LINE>REFERENCE` (``rule``'s form, any case) on the function the line names, with
    /// `settings` for that function's parameters (TA-Lib's defaults otherwise).
    ///
    /// - Throws: `TAFunctionError` for a malformed rule, an unknown column, a reference of another function, the
    ///   line as its own reference, a setting of another function, an unknown parameter or a value out of range.
    public init(rule text: String, settings: [TAParameterSetting] = []) throws(TAFunctionError) {
        let descriptor = try Self.descriptor(ofRule: text)
        for s in settings where s.function != descriptor.name {
            throw TAFunctionError("\(s.text) sets \(s.function), not the rule's function \(descriptor.name)")
        }
        try self.init(rule: text, function: TAFunction(descriptor.name, settings: settings))
    }

    /// The strategy of a rule (``rule``'s form) with every parameter of its function as `parametersText`
    /// (`TAFunction.parametersText`'s form): what the registry builds from `ta-cross.rule` and `ta-cross.parameters`.
    ///
    /// - Throws: `TAFunctionError` for a malformed rule or parameters, an unknown column or parameter, a value out of
    ///   range.
    public init(rule text: String, parametersText: String) throws(TAFunctionError) {
        let descriptor = try Self.descriptor(ofRule: text)
        try self.init(rule: text, function: TAFunction(descriptor.name, parametersText: parametersText))
    }

    /// The function whose column the rule's line names.
    private static func descriptor(ofRule text: String) throws(TAFunctionError) -> TAFunctionDescriptor {
        let lineName = try split(text).0
        guard let descriptor = TAFunction.column(named: lineName)?.descriptor else { throw unknownColumn(lineName, in: text) }
        return descriptor
    }

    /// The strategy of a rule (``rule``'s form) on `function`.
    ///
    /// - Throws: `TAFunctionError` for a malformed rule or columns that are not `function`'s.
    public init(rule text: String, function: TAFunction) throws(TAFunctionError) {
        let (lineName, referenceName) = try Self.split(text)
        guard let (descriptor, line) = TAFunction.column(named: lineName) else { throw Self.unknownColumn(lineName, in: text) }
        guard descriptor.name == function.descriptor.name else {
            throw TAFunctionError("rule '\(text)': \(lineName) is not a column of \(function.descriptor.name)")
        }
        let reference: Reference
        if let level = Double(referenceName) {
            guard level.isFinite else { throw TAFunctionError("rule '\(text)': the level must be a finite number") }
            reference = .level(level)
        } else if let (other, k) = TAFunction.column(named: referenceName) {
            guard other.name == descriptor.name else {
                throw TAFunctionError(
                    "rule '\(text)': \(referenceName) is not a column of \(descriptor.name) (its columns: \(function.columnNames.joined(separator: ", ")))")
            }
            guard k != line else { throw TAFunctionError("rule '\(text)': the line cannot cross itself") }
            reference = .output(k)
        } else {
            throw Self.unknownColumn(referenceName, in: text)
        }
        self.init(function: function, line: line, reference: reference)
    }

    private static func split(_ text: String) throws(TAFunctionError) -> (String, String) {
        let parts = text.split(separator: ">", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw TAFunctionError(
                "rule '\(text)': expected LINE>REFERENCE, a column crossing another column of the same function or a level, e.g. \(defaultRule) or adx>25")
        }
        return (parts[0], parts[1])
    }

    private static func unknownColumn(_ name: String, in text: String) -> TAFunctionError {
        TAFunctionError(
            "rule '\(text)': '\(name)' is not a TA-Lib column or a number (columns are named as sentio indicators names them: macd_macd, macd_macdsignal, adx, stoch_slowk)")
    }
}
