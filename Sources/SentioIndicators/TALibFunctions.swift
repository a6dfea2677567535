import SentioCore

/// A parameter of a TA-Lib function, named and defaulted as TA-Lib (its Python wrapper) names and defaults it.
public struct TAParameter: Sendable, Equatable {
    /// What values the parameter takes.
    public enum Kind: Sendable, Equatable {
        /// A whole number of bars.
        case integer
        /// A real number.
        case real
        /// A moving-average type (`TA_MAType`): 0 SMA, 1 EMA, 2 WMA, 3 DEMA, 4 TEMA, 5 TRIMA, 6 KAMA.
        case movingAverageType
    }

    public let name: String
    public let kind: Kind
    public let defaultValue: Double
    public let minimum: Double
    public let maximum: Double

    init(_ name: String, _ kind: Kind, _ defaultValue: Double, _ minimum: Double, _ maximum: Double) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.minimum = minimum
        self.maximum = maximum
    }

    static func period(_ name: String, _ defaultValue: Int, minimum: Int = 2) -> TAParameter {
        TAParameter(name, .integer, Double(defaultValue), Double(minimum), 100_000)
    }

    static func deviations(_ name: String, _ defaultValue: Double) -> TAParameter {
        TAParameter(name, .real, defaultValue, -3e37, 3e37)
    }

    static func maType(_ name: String, _ defaultValue: TAMovingAverageType) -> TAParameter {
        TAParameter(name, .movingAverageType, Double(defaultValue.rawValue), 0, Double(TAMovingAverageType.allCases.count - 1))
    }

    /// The default as text: `14`, `2.0`, `0 (SMA)`.
    public var defaultDescription: String {
        switch kind {
        case .integer: String(Int(defaultValue))
        case .real: String(defaultValue)
        case .movingAverageType: "\(Int(defaultValue)) (\(TAMovingAverageType(rawValue: Int(defaultValue))!.name))"
        }
    }
}

/// Why a TA-Lib function request is invalid (a user input error: `sentio` exits 2 with this text).
public struct TAFunctionError: UserInputError, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One function of Sentio's TA-Lib set: name, inputs, parameters, outputs (TA-Lib's names) and how to build its
/// streaming state.
public struct TAFunctionDescriptor: Sendable {
    /// TA-Lib's name, upper case (`MACD`, `LINEARREG_SLOPE`).
    public let name: String
    /// TA-Lib's group: Overlap Studies, Momentum Indicators, Volatility Indicators, Volume Indicators, Statistic Functions.
    public let group: String
    /// One line: what the function computes.
    public let summary: String
    /// The bar fields it reads (TA-Lib's default inputs).
    public let inputs: [String]
    public let parameters: [TAParameter]
    /// TA-Lib's output names, lower case (`macd`, `macdsignal`, `macdhist`; `real` for single-output functions).
    public let outputs: [String]
    let lookbackRule: @Sendable ([Double]) -> Int
    let factory: @Sendable ([Double]) -> any TAFunctionState

    /// The lookback with the default parameters.
    public var defaultLookback: Int { lookbackRule(parameters.map(\.defaultValue)) }
}

/// A TA-Lib function with its parameters set: batch computation over bars, a streaming state, column names.
///
/// Every function follows TA-Lib's C code (TA-Lib 0.8.1 as wrapped by the Python `TA-Lib` 0.8.2): its definitions,
/// defaults, lookbacks (`outBegIdx`) and order of floating-point operations, with TA-Lib's default unstable period
/// 0 and default (non-Metastock) compatibility. The functions and what holds for each are listed in the
/// SentioIndicators catalog ("TA-Lib functions").
public struct TAFunction: Sendable {
    public let descriptor: TAFunctionDescriptor
    /// Parameter values in ``TAFunctionDescriptor/parameters`` order.
    public let values: [Double]

    /// The function called `name` (any case, TA-Lib's spelling) with `parameters` (TA-Lib's parameter names, lower
    /// case) over its defaults.
    ///
    /// - Throws: ``TAFunctionError`` for an unknown function or parameter, or a value out of TA-Lib's range (not a
    ///   whole number for a period, a moving-average type Sentio does not have: MAMA 7, T3 8).
    public init(_ name: String, parameters: [String: Double] = [:]) throws(TAFunctionError) {
        guard let descriptor = TAFunction.descriptor(named: name) else {
            throw TAFunctionError("unknown TA-Lib function '\(name)' (sentio indicators --list shows the \(TAFunction.all.count) functions)")
        }
        var values = descriptor.parameters.map(\.defaultValue)
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
            guard let index = descriptor.parameters.firstIndex(where: { $0.name == key.lowercased() }) else {
                let known = descriptor.parameters.isEmpty ? "it has no parameters" : "its parameters: " + descriptor.parameters.map(\.name).joined(separator: ", ")
                throw TAFunctionError("\(descriptor.name) has no parameter '\(key)' (\(known))")
            }
            let p = descriptor.parameters[index]
            guard value.isFinite, value >= p.minimum, value <= p.maximum else {
                throw TAFunctionError("\(descriptor.name).\(p.name) must be from \(Self.format(p.minimum, p.kind)) to \(Self.format(p.maximum, p.kind)), got \(value)")
            }
            if p.kind != .real && value.rounded() != value {
                throw TAFunctionError("\(descriptor.name).\(p.name) must be a whole number, got \(value)")
            }
            values[index] = value
        }
        self.descriptor = descriptor
        self.values = values
    }

    private static func format(_ v: Double, _ kind: TAParameter.Kind) -> String {
        kind == .real ? String(v) : String(Int(v))
    }

    /// Bars consumed before the first value (TA-Lib's `TA_XXX_Lookback`): the first valid index of every output.
    public var lookback: Int { descriptor.lookbackRule(values) }

    /// The number of outputs.
    public var outputCount: Int { descriptor.outputs.count }

    /// Column names: the function's name in lower case, or `name_output` for functions with several outputs
    /// (`macd_macdsignal`, `bbands_upperband`).
    public var columnNames: [String] {
        let base = descriptor.name.lowercased()
        return descriptor.outputs.count == 1 ? [base] : descriptor.outputs.map { base + "_" + $0 }
    }

    /// `MACD(fastperiod=12, slowperiod=26, signalperiod=9)`.
    public var label: String {
        let ps = zip(descriptor.parameters, values).map { "\($0.name)=\(Self.format($1, $0.kind))" }
        return descriptor.name + "(" + ps.joined(separator: ", ") + ")"
    }

    /// A fresh streaming state.
    public func makeStream() -> TAStream { TAStream(self) }

    /// The function over every bar (batch): the streaming state run over the series, one `IndicatorSeries` per
    /// output, NaN before ``lookback``.
    ///
    /// - Throws: `WindowOverflowError` naming the first bar whose value cannot be represented.
    public func compute(_ bars: OHLCVSeries) throws(WindowOverflowError) -> [IndicatorSeries] {
        let n = bars.count, k = outputCount
        guard n > 0 else { return (0..<k).map { _ in IndicatorSeries(values: [], firstValidIndex: lookback) } }
        var stream = makeStream()
        var failure: WindowOverflowError?
        func run(_ columns: [UnsafeMutablePointer<Double>]) {
            columns.withUnsafeBufferPointer { out in
                bars.open.withUnsafeBufferPointer { o in
                    bars.high.withUnsafeBufferPointer { h in
                        bars.low.withUnsafeBufferPointer { l in
                            bars.close.withUnsafeBufferPointer { c in
                                bars.volume.withUnsafeBufferPointer { v in
                                    do throws(WindowOverflowError) {
                                        try stream.run(open: o, high: h, low: l, close: c, volume: v, into: out,
                                                       resolvingFiniteness: false)
                                    } catch {
                                        failure = error
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Each output is allocated uninitialized (`makeDoubleArray`: huge pages for large outputs, as NumPy) and
        // written by the run, every bar once: no fill before and no copy after (the cheap functions are memory-bound).
        // The arrays nest, the run inside the innermost initializer, so they complete innermost (last output) first.
        // A failed run leaves elements unwritten in arrays that are dropped (Double needs no deinitialization).
        var outputs: [[Double]] = []
        func allocate(_ columns: [UnsafeMutablePointer<Double>]) {
            guard columns.count < k else { return run(columns) }
            outputs.append(makeDoubleArray(count: n) { buffer in allocate(columns + [buffer.baseAddress!]) })
        }
        allocate([])
        if let failure { throw failure }
        return outputs.reversed().map { IndicatorSeries(values: $0, firstValidIndex: lookback) }
    }

    /// Every function of Sentio's TA-Lib set, in TA-Lib's groups.
    public static var all: [TAFunctionDescriptor] { taFunctionTable }

    /// The descriptor named `name` (case-insensitive), or nil.
    public static func descriptor(named name: String) -> TAFunctionDescriptor? {
        let upper = name.uppercased()
        return taFunctionTable.first { $0.name == upper }
    }
}

/// The streaming form of a ``TAFunction``: `update` once per bar, O(1) or O(window) work and no allocation per bar;
/// running it over a series gives the batch values bit for bit (the batch function is this loop).
///
/// A value that cannot be represented — an output that is not finite although every input so far was (a running
/// sum of squares of 1e200, say) — is a `WindowOverflowError` naming the bar, never a printed infinity or NaN. A NaN
/// or infinite input propagates as in TA-Lib.
public struct TAStream: Sendable {
    public let function: TAFunction
    var state: any TAFunctionState
    /// Shared by the copies of this stream value: a stream whose owner is not uniquely referenced was copied, and takes
    /// an independent copy of its state (``TAFunctionState/independentCopy()``) before it updates it.
    var owner = TAStreamOwner()
    /// The outputs of the last `update` that returned `true`, in the first ``TAFunction/outputCount`` lanes.
    public private(set) var values = SIMD4<Double>(repeating: .nan)
    /// Bars seen.
    public private(set) var barCount = 0
    var inputsFinite = true

    init(_ function: TAFunction) {
        self.function = function
        state = function.descriptor.factory(function.values)
    }

    /// Feeds the next bar; returns `true` when the function has a value at this bar (then read ``values``).
    ///
    /// - Throws: `WindowOverflowError` (see the type's documentation).
    @discardableResult
    public mutating func update(_ bar: TABar) throws(WindowOverflowError) -> Bool {
        let index = barCount
        barCount += 1
        if inputsFinite {
            inputsFinite = bar.open.isFinite && bar.high.isFinite && bar.low.isFinite && bar.close.isFinite && bar.volume.isFinite
        }
        if !isKnownUniquelyReferenced(&owner) { makeIndependent() }
        var out = SIMD4<Double>(repeating: .nan)
        let valid = try state.update(bar, &out)
        guard valid else { return false }
        if inputsFinite {
            for k in 0..<function.outputCount where !out[k].isFinite {
                throw WindowOverflowError(
                    statistic: function.label, barIndex: index, windowStart: Swift.max(0, index - function.lookback),
                    quantity: "\(function.descriptor.outputs[k]) computed over")
            }
        }
        values = out
        return true
    }

    /// Gives this stream value a state of its own (after a copy of the stream value).
    @inline(never)
    mutating func makeIndependent() {
        owner = TAStreamOwner()
        state = state.independentCopy()
    }

    /// The value of output `k` from the last valid update.
    public func value(_ k: Int) -> Double { values[k] }

    /// ``update(_:)`` over whole columns, output `k` of bar `i` into `outputs[k][i]` (NaN where there is no value);
    /// the state is opened once for the whole run. Without `resolvingFiniteness` the stream must not be updated after
    /// the run (its record of whether every input was finite then only covers the bars up to the first non-finite
    /// output; ``TAFunction/compute(_:)`` drops the stream).
    mutating func run(
        open o: UnsafeBufferPointer<Double>, high h: UnsafeBufferPointer<Double>, low l: UnsafeBufferPointer<Double>,
        close c: UnsafeBufferPointer<Double>, volume v: UnsafeBufferPointer<Double>,
        into outputs: UnsafeBufferPointer<UnsafeMutablePointer<Double>>, resolvingFiniteness: Bool = true
    ) throws(WindowOverflowError) {
        var columns = TAColumnRun(
            open: o, high: h, low: l, close: c, volume: v, outputs: outputs, finite: inputsFinite,
            resolvesFiniteness: resolvingFiniteness, last: values)
        if !isKnownUniquelyReferenced(&owner) { makeIndependent() }
        var local = state
        let overflow: TAColumnRun.Overflow?
        do throws(WindowOverflowError) {
            overflow = try local.update(columns: &columns)
            state = local
        } catch {
            state = local  // the windows advanced with `local` (they are shared): keep the state whole
            throw error
        }
        inputsFinite = columns.finite
        values = columns.last
        if let overflow {
            let index = barCount + overflow.bar
            throw WindowOverflowError(
                statistic: function.label, barIndex: index, windowStart: Swift.max(0, index - function.lookback),
                quantity: "\(function.descriptor.outputs[overflow.output]) computed over")
        }
        barCount += c.count
    }
}

/// The identity of one ``TAStream`` value's state (see ``TAStream/owner``).
final class TAStreamOwner: Sendable {}

// MARK: - The table

private func p(_ v: [Double], _ i: Int) -> Int { Int(v[i]) }
private func ma(_ v: [Double], _ i: Int) -> TAMovingAverageType { TAMovingAverageType(rawValue: Int(v[i]))! }

private let overlap = "Overlap Studies", momentum = "Momentum Indicators", volatility = "Volatility Indicators"
private let volume = "Volume Indicators", statistics = "Statistic Functions"

private func single(
    _ name: String, _ group: String, _ summary: String, inputs: [String] = ["close"], _ parameters: [TAParameter],
    lookback: @escaping @Sendable ([Double]) -> Int, _ factory: @escaping @Sendable ([Double]) -> any TAFunctionState
) -> TAFunctionDescriptor {
    TAFunctionDescriptor(name: name, group: group, summary: summary, inputs: inputs, parameters: parameters,
                         outputs: ["real"], lookbackRule: lookback, factory: factory)
}

private func movingAverage(_ name: String, _ type: TAMovingAverageType, _ summary: String, _ defaultPeriod: Int = 30, minimum: Int = 1) -> TAFunctionDescriptor {
    single(name, overlap, summary, [.period("timeperiod", defaultPeriod, minimum: minimum)],
           lookback: { type.lookback(p($0, 0)) }) { TAMovingAverageState(average: TAMovingAverage(type: type, period: p($0, 0))) }
}

let taFunctionTable: [TAFunctionDescriptor] = [
    // Overlap studies
    movingAverage("WMA", .wma, "Weighted moving average (weights 1…n)"),
    movingAverage("DEMA", .dema, "Double exponential moving average 2·EMA − EMA(EMA)", minimum: 2),
    movingAverage("TEMA", .tema, "Triple exponential moving average 3·EMA − 3·EMA² + EMA³", minimum: 2),
    movingAverage("TRIMA", .trima, "Triangular moving average"),
    movingAverage("KAMA", .kama, "Kaufman adaptive moving average"),
    TAFunctionDescriptor(
        name: "BBANDS", group: overlap, summary: "Bollinger Bands: MA ± nbdev·(population standard deviation)", inputs: ["close"],
        parameters: [.period("timeperiod", 20), .deviations("nbdevup", 2), .deviations("nbdevdn", 2), .maType("matype", .sma)],
        outputs: ["upperband", "middleband", "lowerband"], lookbackRule: { ma($0, 3).lookback(p($0, 0)) },
        factory: { TABBANDSState(period: p($0, 0), up: $0[1], down: $0[2], type: ma($0, 3)) }),
    single("SAR", overlap, "Parabolic SAR (Wilder)", inputs: ["high", "low"],
           [TAParameter("acceleration", .real, 0.02, 0, 3e37), TAParameter("maximum", .real, 0.2, 0, 3e37)],
           lookback: { _ in 1 }) { TASARState(acceleration: $0[0], maximum: $0[1]) },
    single("MIDPOINT", overlap, "(highest + lowest)/2 of the close over the period", [.period("timeperiod", 14)],
           lookback: { p($0, 0) - 1 }) { TAExtremeState(kind: .midpoint, period: p($0, 0)) },
    single("MIDPRICE", overlap, "(highest high + lowest low)/2 over the period", inputs: ["high", "low"], [.period("timeperiod", 14)],
           lookback: { p($0, 0) - 1 }) { TAExtremeState(kind: .midprice, period: p($0, 0)) },
    // Momentum indicators
    TAFunctionDescriptor(
        name: "MACD", group: momentum, summary: "Moving average convergence/divergence (EMAs)", inputs: ["close"],
        parameters: [.period("fastperiod", 12), .period("slowperiod", 26), .period("signalperiod", 9, minimum: 1)],
        outputs: ["macd", "macdsignal", "macdhist"],
        lookbackRule: { max(p($0, 0), p($0, 1)) - 1 + p($0, 2) - 1 },
        factory: { TAMACDState(fast: p($0, 0), fastType: .ema, slow: p($0, 1), slowType: .ema, signal: p($0, 2), signalType: .ema, emaSignal: true) }),
    TAFunctionDescriptor(
        name: "MACDEXT", group: momentum, summary: "MACD with a moving-average type for each line", inputs: ["close"],
        parameters: [.period("fastperiod", 12), .maType("fastmatype", .sma), .period("slowperiod", 26), .maType("slowmatype", .sma),
                     .period("signalperiod", 9, minimum: 1), .maType("signalmatype", .sma)],
        outputs: ["macd", "macdsignal", "macdhist"],
        lookbackRule: { max(ma($0, 1).lookback(p($0, 0)), ma($0, 3).lookback(p($0, 2))) + ma($0, 5).lookback(p($0, 4)) },
        factory: { TAMACDState(fast: p($0, 0), fastType: ma($0, 1), slow: p($0, 2), slowType: ma($0, 3), signal: p($0, 4), signalType: ma($0, 5)) }),
    single("PPO", momentum, "Percentage price oscillator ((fast − slow)/slow·100)",
           [.period("fastperiod", 12), .period("slowperiod", 26), .maType("matype", .ema)],
           lookback: { ma($0, 2).lookback(max(p($0, 0), p($0, 1))) }) { TAOscillatorState(fast: p($0, 0), slow: p($0, 1), type: ma($0, 2), percentage: true) },
    single("APO", momentum, "Absolute price oscillator (fast MA − slow MA)",
           [.period("fastperiod", 12), .period("slowperiod", 26), .maType("matype", .ema)],
           lookback: { ma($0, 2).lookback(max(p($0, 0), p($0, 1))) }) { TAOscillatorState(fast: p($0, 0), slow: p($0, 1), type: ma($0, 2), percentage: false) },
    single("MOM", momentum, "Momentum x − x[t−n]", [.period("timeperiod", 10, minimum: 1)],
           lookback: { p($0, 0) }) { TAChangeState(kind: .mom, period: p($0, 0)) },
    single("ROC", momentum, "Rate of change (x/x[t−n] − 1)·100", [.period("timeperiod", 10, minimum: 1)],
           lookback: { p($0, 0) }) { TAChangeState(kind: .roc, period: p($0, 0)) },
    single("ROCP", momentum, "Rate of change as a fraction (x − x[t−n])/x[t−n]", [.period("timeperiod", 10, minimum: 1)],
           lookback: { p($0, 0) }) { TAChangeState(kind: .rocp, period: p($0, 0)) },
    single("CMO", momentum, "Chande momentum oscillator 100·(G − L)/(G + L), Wilder averages", [.period("timeperiod", 14)],
           lookback: { p($0, 0) }) { TACMOState(period: p($0, 0)) },
    TAFunctionDescriptor(
        name: "STOCH", group: momentum, summary: "Slow stochastic: %K = MA(fast %K), %D = MA(%K)", inputs: ["high", "low", "close"],
        parameters: [.period("fastk_period", 5, minimum: 1), .period("slowk_period", 3, minimum: 1), .maType("slowk_matype", .sma),
                     .period("slowd_period", 3, minimum: 1), .maType("slowd_matype", .sma)],
        outputs: ["slowk", "slowd"],
        lookbackRule: { p($0, 0) - 1 + ma($0, 2).lookback(p($0, 1)) + ma($0, 4).lookback(p($0, 3)) },
        factory: { TASTOCHState(k: TAFastK(period: p($0, 0)), slowK: TAMovingAverage(type: ma($0, 2), period: p($0, 1)),
                                d: TAMovingAverage(type: ma($0, 4), period: p($0, 3))) }),
    TAFunctionDescriptor(
        name: "STOCHF", group: momentum, summary: "Fast stochastic: %K and %D = MA(%K)", inputs: ["high", "low", "close"],
        parameters: [.period("fastk_period", 5, minimum: 1), .period("fastd_period", 3, minimum: 1), .maType("fastd_matype", .sma)],
        outputs: ["fastk", "fastd"],
        lookbackRule: { p($0, 0) - 1 + ma($0, 2).lookback(p($0, 1)) },
        factory: { TASTOCHState(k: TAFastK(period: p($0, 0)), slowK: nil, d: TAMovingAverage(type: ma($0, 2), period: p($0, 1))) }),
    TAFunctionDescriptor(
        name: "STOCHRSI", group: momentum, summary: "Stochastic of the RSI (STOCHF over RSI)", inputs: ["close"],
        parameters: [.period("timeperiod", 14), .period("fastk_period", 5, minimum: 1), .period("fastd_period", 3, minimum: 1),
                     .maType("fastd_matype", .sma)],
        outputs: ["fastk", "fastd"],
        lookbackRule: { p($0, 0) + p($0, 1) - 1 + ma($0, 3).lookback(p($0, 2)) },
        factory: { TASTOCHRSIState(rsi: TARSI(period: p($0, 0)), stochastic: TASTOCHState(
            k: TAFastK(period: p($0, 1)), slowK: nil, d: TAMovingAverage(type: ma($0, 3), period: p($0, 2)))) }),
    single("WILLR", momentum, "Williams' %R", inputs: ["high", "low", "close"], [.period("timeperiod", 14)],
           lookback: { p($0, 0) - 1 }) { TAWILLRState(period: p($0, 0)) },
    single("CCI", momentum, "Commodity channel index (tp − mean)/(0.015·mean deviation)", inputs: ["high", "low", "close"],
           [.period("timeperiod", 14)], lookback: { p($0, 0) - 1 }) { TACCIState(period: p($0, 0)) },
    single("ADX", momentum, "Average directional movement index (Wilder)", inputs: ["high", "low", "close"], [.period("timeperiod", 14)],
           lookback: { 2 * p($0, 0) - 1 }) { TADirectionalState(kind: .adx, period: p($0, 0)) },
    single("ADXR", momentum, "ADX rating (ADX + ADX n−1 bars ago)/2", inputs: ["high", "low", "close"], [.period("timeperiod", 14)],
           lookback: { 3 * p($0, 0) - 2 }) { TADirectionalState(kind: .adxr, period: p($0, 0)) },
    single("PLUS_DI", momentum, "Plus directional indicator 100·(+DM/TR)", inputs: ["high", "low", "close"], [.period("timeperiod", 14)],
           lookback: { p($0, 0) }) { TADirectionalState(kind: .plusDI, period: p($0, 0)) },
    single("MINUS_DI", momentum, "Minus directional indicator 100·(−DM/TR)", inputs: ["high", "low", "close"], [.period("timeperiod", 14)],
           lookback: { p($0, 0) }) { TADirectionalState(kind: .minusDI, period: p($0, 0)) },
    single("DX", momentum, "Directional movement index 100·|−DI − +DI|/(−DI + +DI)", inputs: ["high", "low", "close"],
           [.period("timeperiod", 14)], lookback: { p($0, 0) }) { TADirectionalState(kind: .dx, period: p($0, 0)) },
    TAFunctionDescriptor(
        name: "AROON", group: momentum, summary: "Aroon down and up: 100/n·(n − bars since the lowest low / highest high)",
        inputs: ["high", "low"], parameters: [.period("timeperiod", 14)], outputs: ["aroondown", "aroonup"],
        lookbackRule: { p($0, 0) }, factory: { TAAROONState(period: p($0, 0), oscillator: false) }),
    single("AROONOSC", momentum, "Aroon oscillator (up − down)", inputs: ["high", "low"], [.period("timeperiod", 14)],
           lookback: { p($0, 0) }) { TAAROONState(period: p($0, 0), oscillator: true) },
    single("MFI", momentum, "Money flow index", inputs: ["high", "low", "close", "volume"], [.period("timeperiod", 14)],
           lookback: { p($0, 0) }) { TAMFIState(period: p($0, 0)) },
    single("BOP", momentum, "Balance of power (c − o)/(h − l)", inputs: ["open", "high", "low", "close"], [],
           lookback: { _ in 0 }) { _ in TABOPState() },
    single("ULTOSC", momentum, "Ultimate oscillator (Williams)", inputs: ["high", "low", "close"],
           [.period("timeperiod1", 7, minimum: 1), .period("timeperiod2", 14, minimum: 1), .period("timeperiod3", 28, minimum: 1)],
           lookback: { max(p($0, 0), p($0, 1), p($0, 2)) }) { TAULTOSCState(p($0, 0), p($0, 1), p($0, 2)) },
    single("TRIX", momentum, "One-bar rate of change of a triple EMA", [.period("timeperiod", 30)],
           lookback: { 3 * (p($0, 0) - 1) + 1 }) { TATRIXState(period: p($0, 0)) },
    // Volatility
    single("TRANGE", volatility, "True range max(h − l, |h − c₋₁|, |l − c₋₁|)", inputs: ["high", "low", "close"], [],
           lookback: { _ in 1 }) { _ in TARangeState(atr: nil) },
    single("NATR", volatility, "Normalized ATR: ATR/close·100", inputs: ["high", "low", "close"], [.period("timeperiod", 14)],
           lookback: { p($0, 0) }) { TARangeState(atr: TAATR(period: p($0, 0))) },
    // Volume
    single("OBV", volume, "On-balance volume", inputs: ["close", "volume"], [], lookback: { _ in 0 }) { _ in TAVolumeState(kind: .obv) },
    single("AD", volume, "Chaikin accumulation/distribution line", inputs: ["high", "low", "close", "volume"], [],
           lookback: { _ in 0 }) { _ in TAVolumeState(kind: .ad) },
    single("ADOSC", volume, "Chaikin A/D oscillator (fast − slow EMA of AD, seeded with the first AD)",
           inputs: ["high", "low", "close", "volume"], [.period("fastperiod", 3), .period("slowperiod", 10)],
           lookback: { max(p($0, 0), p($0, 1)) - 1 }) { TAVolumeState(kind: .adosc, fast: p($0, 0), slow: p($0, 1)) },
    // Statistics
    single("STDDEV", statistics, "Population standard deviation · nbdev", [.period("timeperiod", 5), .deviations("nbdev", 1)],
           lookback: { p($0, 0) - 1 }) { TASTDDEVState(variance: TAVARState(period: p($0, 0)), deviations: $0[1]) },
    single("VAR", statistics, "Population variance (nbdev is accepted and unused, as in TA-Lib)",
           [.period("timeperiod", 5, minimum: 1), .deviations("nbdev", 1)],
           lookback: { p($0, 0) - 1 }) { TAVARState(period: p($0, 0)) },
    single("MIN", statistics, "Lowest value over the period", [.period("timeperiod", 30)],
           lookback: { p($0, 0) - 1 }) { TAExtremeState(kind: .min, period: p($0, 0)) },
    single("MAX", statistics, "Highest value over the period", [.period("timeperiod", 30)],
           lookback: { p($0, 0) - 1 }) { TAExtremeState(kind: .max, period: p($0, 0)) },
    single("SUM", statistics, "Sum over the period", [.period("timeperiod", 30)],
           lookback: { p($0, 0) - 1 }) { TASUMState(period: p($0, 0)) },
    single("LINEARREG", statistics, "Least-squares line's value at the last bar", [.period("timeperiod", 14)],
           lookback: { p($0, 0) - 1 }) { TALinearRegressionState(period: p($0, 0), slopeOnly: false) },
    single("LINEARREG_SLOPE", statistics, "Least-squares line's slope per bar", [.period("timeperiod", 14)],
           lookback: { p($0, 0) - 1 }) { TALinearRegressionState(period: p($0, 0), slopeOnly: true) },
    single("CORREL", statistics, "Pearson correlation of high and low over the period", inputs: ["high", "low"],
           [.period("timeperiod", 30, minimum: 1)], lookback: { p($0, 0) - 1 }) { TACORRELState(period: p($0, 0)) },
    single("BETA", statistics, "Beta of high's on low's one-bar returns over the period", inputs: ["high", "low"],
           [.period("timeperiod", 5, minimum: 1)], lookback: { p($0, 0) }) { TABETAState(period: p($0, 0)) },
]
