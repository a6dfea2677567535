import SentioCore
import SentioData
import SentioSignals

/// Adapters from the signal engine (SentioSignals) to the signal contracts.
///
/// Every field of ``APISignal`` is the engine `Signal`'s field of the same name at full precision
/// (`recommendation` and `reasoning` are SentioSignals' `SignalText` sentences, `id` is `Signal.id`). A warming-up
/// signal is never turned into an ``APISignal``: ``response(_:config:)`` lists it under `warmingUp`, the
/// other adapters throw.
public enum SignalContracts {
    /// The contract form of one engine signal.
    ///
    /// - Throws: ``APIContractError`` for a warming-up signal (field `signal`), or a signal with a
    ///   non-finite number (naming the field: e.g. `volumeRatio` over an all-zero-volume window).
    public static func signal(_ s: Signal, config: SignalModelConfig) throws(APIContractError) -> APISignal {
        if s.isWarmUp {
            throw APIContractError(subject: s.symbol, field: "signal",
                message: "still warming up: \(s.barsUntilReady) more bar\(s.barsUntilReady == 1 ? "" : "s") before the first signal")
        }
        let numbers: [(String, Double)] = [
            ("price", s.price), ("change", s.change), ("changePercent", s.changePercent), ("confidence", s.confidence),
            ("targetReturn", s.targetReturn), ("stopLoss", s.stopLoss), ("profitTarget", s.profitTarget),
            ("aiSignal", s.aiSignal), ("rsi", s.rsi), ("volumeRatio", s.volumeRatio),
        ]
        for (field, x) in numbers where !x.isFinite {
            throw APIContractError(subject: s.symbol, field: field,
                message: "is \(x) at \(iso8601(epochSeconds: s.timestamp)): the model has no value for it at this bar")
        }
        return APISignal(
            id: s.id, symbol: s.symbol, timestamp: APITimestamp(epochSeconds: s.timestamp), price: s.price,
            change: s.change, changePercent: s.changePercent, signalType: s.signalType, confidence: s.confidence,
            targetReturn: s.targetReturn, stopLoss: s.stopLoss, profitTarget: s.profitTarget, aiSignal: s.aiSignal,
            rsi: s.rsi, volumeRatio: s.volumeRatio,
            recommendation: SignalText.recommendation(for: s, config: config),
            reasoning: SignalText.reasoning(for: s, config: config))
    }

    /// `GET /signals` from each symbol's latest signal (in the given order): warming-up symbols go to
    /// `warmingUp` with their `barsUntilReady`, the others to `signals`. `timestamp` is the latest bar time.
    ///
    /// - Throws: ``APIContractError`` when `latest` is empty (no timestamp to report) or a ready signal has
    ///   a non-finite number.
    public static func response(_ latest: [Signal], config: SignalModelConfig) throws(APIContractError) -> SignalsResponse {
        guard let time = latest.map(\.timestamp).max() else {
            throw APIContractError(subject: "signals", field: "timestamp", message: "no symbol has any bar")
        }
        var signals: [APISignal] = [], warming: [WarmingUpSymbol] = []
        for s in latest {
            if s.isWarmUp {
                warming.append(WarmingUpSymbol(symbol: s.symbol, barsRemaining: s.barsUntilReady))
            } else {
                signals.append(try signal(s, config: config))
            }
        }
        return SignalsResponse(timestamp: APITimestamp(epochSeconds: time), signals: signals, warmingUp: warming)
    }

    /// `GET /signals` for market series: runs the model over each series (SentioSignals' `SignalModel.latest(_:config:)`)
    /// and adapts the latest signals. Series without bars are skipped.
    public static func response(series: [OHLCVSeries], config: SignalModelConfig = SignalModelConfig()) throws -> SignalsResponse {
        try response(SignalModel.latest(series, config: config), config: config)
    }

    /// The history of every bar's signal of each series (``SignalHistoryResponse``): runs the model over each series
    /// (`SignalModel.evaluate(_:config:)`) and adapts every bar that is past its warm-up.
    ///
    /// - Throws: ``APIContractError`` when no series has a bar, or a ready signal has a non-finite number (naming
    ///   the symbol, field and bar); `SignalInputError` from the model.
    public static func history(series: [OHLCVSeries], config: SignalModelConfig = SignalModelConfig()) throws -> SignalHistoryResponse {
        try history(series.map { try SignalModel.evaluate($0, config: config) }, config: config)
    }

    /// ``SignalHistoryResponse`` from every bar's engine signal, per symbol (each the whole series' signals in
    /// time order, warm-up included, as `SignalModel.evaluate(_:config:)` returns them: the outcome of bar `i` is
    /// read from the price of bar `i + h`).
    /// - Throws: as ``history(series:config:)``.
    public static func history(_ signalsBySymbol: [[Signal]], config: SignalModelConfig) throws(APIContractError) -> SignalHistoryResponse {
        guard let time = signalsBySymbol.compactMap({ $0.last?.timestamp }).max() else {
            throw APIContractError(subject: "signals", field: "timestamp", message: "no symbol has any bar")
        }
        var signals: [APISignalHistoryRow] = [], warming: [WarmingUpSymbol] = []
        let h = config.horizon
        for perSymbol in signalsBySymbol {
            for (i, s) in perSymbol.enumerated() where !s.isWarmUp {
                // The outcome: the close h bars later (each signal carries its bar's close as price).
                var realized: Double?
                var right: Bool?
                if i + h < perSymbol.count {
                    let ratio = perSymbol[i + h].price / s.price
                    realized = 100 * (ratio - 1)
                    switch s.signalType {
                    case .buy: right = ratio > 1
                    case .sell: right = ratio < 1
                    case .hold: right = nil
                    }
                }
                signals.append(APISignalHistoryRow(
                    signal: try signal(s, config: config), horizonBars: h, realizedReturn: realized, right: right))
            }
            if let last = perSymbol.last, last.isWarmUp {
                warming.append(WarmingUpSymbol(symbol: last.symbol, barsRemaining: last.barsUntilReady))
            }
        }
        return SignalHistoryResponse(config: config, timestamp: APITimestamp(epochSeconds: time), signals: signals, warmingUp: warming)
    }

    /// `GET /symbols/{symbol}`: the latest signal of `series`, its name, and its bars (the last
    /// `historyLimit` of them, all when `nil`) as `historicalData`.
    ///
    /// - Throws: ``APIContractError`` for a series without bars, a symbol still warming up, a symbol with no
    ///   name, a non-finite price or volume; `SignalConfigError`/`SignalInputError` from the model.
    public static func symbolDetail(
        series: OHLCVSeries, config: SignalModelConfig = SignalModelConfig(), names: InstrumentNames = InstrumentNames(),
        historyLimit: Int? = nil
    ) throws -> SymbolDetail {
        guard let last = try SignalModel.evaluate(series, config: config).last else {
            throw APIContractError(subject: series.symbol, field: "historicalData", message: "the series has no bars")
        }
        let contract = try signal(last, config: config)
        let name = try names.name(of: series.symbol)
        let start = historyLimit.map { max(0, series.count - max(0, $0)) } ?? 0
        var bars: [HistoricalBar] = []
        bars.reserveCapacity(series.count - start)
        for i in start..<series.count {
            let b = series[bar: i]
            for (field, x) in [("open", b.open), ("high", b.high), ("low", b.low), ("close", b.close), ("volume", b.volume)]
            where !x.isFinite {
                throw APIContractError(subject: series.symbol, field: "historicalData.\(field)",
                    message: "is \(x) at \(iso8601(epochSeconds: b.timestamp))")
            }
            bars.append(HistoricalBar(
                timestamp: APITimestamp(epochSeconds: b.timestamp), open: b.open, high: b.high, low: b.low,
                close: b.close, volume: b.volume))
        }
        return SymbolDetail(symbol: series.symbol, name: name, price: last.price, signal: contract, historicalData: bars)
    }

    /// The live `signal_update` message of one engine signal.
    /// - Throws: as ``signal(_:config:)``.
    public static func liveMessage(_ s: Signal, config: SignalModelConfig) throws(APIContractError) -> LiveMessage {
        LiveMessage(signalUpdate: try signal(s, config: config))
    }
}
