import SentioCore

/// Streaming signals for any number of symbols: one ``SignalModelState`` per symbol, created on first sight.
///
/// The hot path is ``update(symbolIndex:bar:)`` (no hashing, no allocation after warm-up); ``update(symbol:bar:)``
/// looks the symbol up first. Each symbol's stream is independent: interleaving symbols in any order gives, per
/// symbol, exactly the signals of ``SignalModel/evaluate(_:config:)`` on that symbol's series.
public struct SignalEngine: Sendable {
    public let config: SignalModelConfig
    /// Per-symbol states, in registration order.
    public private(set) var states: [SignalModelState] = []
    private var indexBySymbol: [String: Int] = [:]

    /// - Throws: ``SignalConfigError`` if `config` is out of range.
    public init(config: SignalModelConfig = SignalModelConfig()) throws(SignalConfigError) {
        try config.validate()
        self.config = config
    }

    /// Symbols in registration order.
    public var symbols: [String] { states.map(\.symbol) }

    /// The index of `symbol`, registering it (with a fresh state) when new.
    @discardableResult
    public mutating func register(symbol: String) -> Int {
        if let index = indexBySymbol[symbol] { return index }
        states.append(SignalModelState(symbol: symbol, config: config))
        indexBySymbol[symbol] = states.count - 1
        return states.count - 1
    }

    /// The index of `symbol`, or `nil` if it has never been seen.
    public func index(of symbol: String) -> Int? { indexBySymbol[symbol] }

    /// Feeds the next bar of the symbol at `symbolIndex` (from ``register(symbol:)``) and returns its signal.
    ///
    /// - Throws: ``SignalInputError`` (the state is unchanged).
    public mutating func update(symbolIndex: Int, bar: Bar) throws(SignalInputError) -> Signal {
        try states[symbolIndex].update(bar)
    }

    /// Feeds the next bar of `symbol` (registered on first sight) and returns its signal.
    public mutating func update(symbol: String, bar: Bar) throws(SignalInputError) -> Signal {
        let index = register(symbol: symbol)
        return try states[index].update(bar)
    }
}

/// Batch evaluation of the signal model over whole series.
public enum SignalModel {
    /// The signal at every bar of `series`, by feeding its bars in order to one ``SignalModelState`` (so the
    /// result is bit-identical to streaming). Bars before ``SignalModelConfig/firstSignalIndex`` are warm-up
    /// (HOLD, confidence 0, ``Signal/isWarmUp``).
    ///
    /// - Throws: ``SignalConfigError`` for an invalid config, ``SignalInputError`` for a bad bar.
    public static func evaluate(_ series: OHLCVSeries, config: SignalModelConfig = SignalModelConfig()) throws -> [Signal] {
        try config.validate()
        var state = SignalModelState(symbol: series.symbol, config: config)
        var signals: [Signal] = []
        signals.reserveCapacity(series.count)
        for i in 0..<series.count {
            signals.append(try state.update(series[bar: i]))
        }
        return signals
    }

    /// The latest signal of each series (series with no bars are skipped).
    public static func latest(_ series: [OHLCVSeries], config: SignalModelConfig = SignalModelConfig()) throws -> [Signal] {
        try series.compactMap { try evaluate($0, config: config).last }
    }
}

/// Columnar per-bar model output for one symbol, for backtests and research: what a strategy needs at each bar.
///
/// `signalType[i]`, `confidence[i]`, `stopLossPercent[i]` (negative), `targetReturnPercent[i]`, `profitTarget[i]`
/// and `isWarmUp[i]` describe the signal computed from bars `0…i` (close of bar `i` included): act on it at the
/// next bar's open at the earliest.
public struct SignalHistory: Sendable, Equatable {
    public var symbol: String
    public var timestamps: [Int64]
    public var signalType: [SignalType]
    public var confidence: [Double]
    public var stopLossPercent: [Double]
    public var targetReturnPercent: [Double]
    public var profitTarget: [Double]
    public var aiSignal: [Double]
    public var isWarmUp: [Bool]

    /// The columns of `signals` (one symbol's signals in bar order).
    public init(symbol: String, signals: [Signal]) {
        self.symbol = symbol
        timestamps = signals.map(\.timestamp)
        signalType = signals.map(\.signalType)
        confidence = signals.map(\.confidence)
        stopLossPercent = signals.map(\.stopLoss)
        targetReturnPercent = signals.map(\.targetReturn)
        profitTarget = signals.map(\.profitTarget)
        aiSignal = signals.map(\.aiSignal)
        isWarmUp = signals.map(\.isWarmUp)
    }

    /// Evaluates the model over `series` (``SignalModel/evaluate(_:config:)``) and keeps the columns.
    public init(_ series: OHLCVSeries, config: SignalModelConfig = SignalModelConfig()) throws {
        self.init(symbol: series.symbol, signals: try SignalModel.evaluate(series, config: config))
    }

    public var count: Int { timestamps.count }
}
