import SentioCore
import SentioSignals

extension SignalStrategy {
    /// The Sentio signal model (SentioSignals) as a strategy: at each bar's close the model's signal for
    /// that bar (computed from bars `0...i` by a streaming `SignalModelState`) decides. BUY opens a position
    /// sized by the sizing rule, with the signal's `stopLoss` (a negative percent) and `targetReturn` as stop
    /// and profit target relative to the decision close (so the target is the signal's `profitTarget`);
    /// SELL closes; HOLD, and warm-up bars, do nothing. The streaming form (a live session) updates the same
    /// `SignalModelState`s one bar at a time.
    ///
    /// - Throws: `SignalConfigError` for an invalid model configuration.
    public static func sentio(config: SignalModelConfig = SignalModelConfig()) throws -> SignalStrategy {
        try config.validate()
        return SignalStrategy(name: "sentio", model: config) { series in
            var state = SignalModelState(symbol: series.symbol, config: config)
            var decisions = [SignalDecision]()
            decisions.reserveCapacity(series.count)
            for i in 0..<series.count { decisions.append(SignalDecision(try state.update(series[bar: i]))) }
            return decisions
        }
    }
}

extension SignalDecision {
    /// The decision of one signal of the model: its type, its `stopLoss` and its `targetReturn`.
    public init(_ signal: Signal) {
        let action: Action
        switch signal.signalType {
        case .buy: action = .buy
        case .sell: action = .sell
        case .hold: action = .hold
        }
        self.init(action: action, stopLossPercent: signal.stopLoss, targetReturnPercent: signal.targetReturn)
    }
}
