import SentioCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A rule whose BUY/SELL signals are scored: the Sentio model or one of the baselines.
public enum EvaluationRule: String, Sendable, CaseIterable, Codable {
    /// The Sentio model; confidence = its calibrated ``Signal/confidence``; score = `aiSignal`.
    case model = "sentio"
    /// BUY at every bar; confidence = walk-forward base rate; no score (constant), so no IC.
    case alwaysBuy = "always-buy"
    /// BUY when the model's RSI ≤ 30, SELL when ≥ 70; confidence = walk-forward base rate; score = `50 − RSI`.
    case rsi = "rsi-30-70"
    /// BUY when `ln(Cₜ / Cₜ₋ₕ) > 0`, SELL when `< 0`; confidence = walk-forward base rate; score = `ln(Cₜ / Cₜ₋ₕ)`.
    case momentum = "momentum-sign"

    /// One line saying what the rule is.
    public var summary: String {
        switch self {
        case .model: return "Sentio model; confidence = calibrated probability; score = aiSignal"
        case .alwaysBuy: return "BUY every bar; confidence = walk-forward base rate"
        case .rsi: return "BUY if RSI <= 30, SELL if RSI >= 70; confidence = walk-forward base rate; score = 50 - RSI"
        case .momentum: return "BUY if ln(C[t]/C[t-h]) > 0, SELL if < 0; confidence = walk-forward base rate; score = that log return"
        }
    }
}

/// How a scored BUY/SELL signal's stop loss and profit target played out over the next `h` bars.
public enum TargetOutcome: String, Sendable, Codable, CaseIterable {
    /// The profit target was touched (BUY: high ≥ profitTarget; SELL: low ≤ profitTarget) before the stop.
    case targetFirst
    /// The stop was touched first (BUY: low ≤ price·(1 + stopLoss/100); SELL: high ≥ price·(1 − stopLoss/100)),
    /// or both in the same bar (counted as the stop: the conservative reading).
    case stopFirst
    /// Neither within `h` bars.
    case neither
    /// The profit target is not on the signal's side (e.g. an overbought SELL with a bullish forecast).
    case noTarget
}

/// The scored figures of one rule on the evaluated bars.
public struct RuleEvaluation: Sendable, Equatable {
    public var rule: EvaluationRule
    /// Signals of each type over the evaluated bars.
    public var buyCount: Int
    public var sellCount: Int
    public var holdCount: Int
    /// BUY and SELL signals that were right.
    public var rightCount: Int
    public var hitRate: Double
    public var meanConfidence: Double
    public var brierScore: Double
    public var expectedCalibrationError: Double
    public var reliability: [ReliabilityBin]
    /// Spearman correlation of the rule's score with the realized `h`-bar log return over all evaluated bars;
    /// `nil` for a rule without a score (always-BUY) or a constant score.
    public var informationCoefficient: Double?
    /// How the stops and targets played out (the model only; empty for baselines).
    public var targetOutcomes: [TargetOutcome: Int]

    /// Scored signals (BUY + SELL).
    public var scoredCount: Int { buyCount + sellCount }
}

/// A point of the rolling information coefficient.
public struct RollingPoint: Sendable, Equatable {
    /// Time of the newest pair in the window (UTC epoch seconds).
    public var timestamp: Int64
    /// Spearman correlation of `aiSignal` with the realized return over the window's pairs.
    public var value: Double
}

/// Why an evaluation cannot give its figures.
public enum EvaluationError: UserInputError, Equatable {
    /// No BUY/SELL signal of the model was resolved in the data (series too short for the warm-up + horizon, or
    /// a model that never signals).
    case noResolvedSignals(detail: String)

    public var description: String {
        switch self {
        case let .noResolvedSignals(detail): return "nothing to evaluate: \(detail)"
        }
    }
}

/// Walk-forward evaluation of the signal model and the baselines (definitions in the catalog article
/// `Evaluation.md`).
///
/// Each series is fed bar by bar to the streaming model (so every confidence is out of sample: the calibrator
/// at bar `t` has seen only outcomes resolved by `t`). The evaluated bars are `firstSignalIndex … count − 1 − h`
/// of each series (past the warm-up, outcome known); all rules are scored on these bars, pooled over symbols.
public struct WalkForwardEvaluation: Sendable, Equatable {
    public var config: SignalModelConfig
    public var symbols: [String]
    /// Evaluated bars (all symbols).
    public var evaluatedBars: Int
    /// The model first, then the baselines that made at least one BUY/SELL signal.
    public var rules: [RuleEvaluation]
    /// Baselines that made no BUY/SELL signal on the evaluated bars (no figures exist for them).
    public var rulesWithoutSignals: [EvaluationRule]
    /// Rolling IC of the model over time (see ``rollingWindow``).
    public var rollingInformationCoefficient: [RollingPoint]
    /// Pairs per rolling-IC window.
    public var rollingWindow: Int

    /// The model's figures.
    public var model: RuleEvaluation { rules[0] }

    /// Evaluates `series` (one or more symbols).
    ///
    /// - Parameters:
    ///   - series: the bars, one series per symbol.
    ///   - config: the model's parameters.
    ///   - progress: called after each series with (series done, series in total).
    /// - Throws: ``SignalConfigError``, ``SignalInputError`` for a bad bar, ``EvaluationError`` when the model
    ///   has no resolved BUY/SELL signal.
    public static func run(
        _ series: [OHLCVSeries], config: SignalModelConfig = SignalModelConfig(),
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> WalkForwardEvaluation {
        try config.validate()
        let h = config.horizon
        struct Pair { var timestamp: Int64; var score: Double; var realized: Double }
        var scored: [EvaluationRule: (p: [Double], y: [Bool], buy: Int, sell: Int, hold: Int, scores: [Double], realized: [Double])] = [:]
        for rule in EvaluationRule.allCases { scored[rule] = ([], [], 0, 0, 0, [], []) }
        var pairs: [Pair] = []
        var targets: [TargetOutcome: Int] = [:]
        for outcome in TargetOutcome.allCases { targets[outcome] = 0 }
        var evaluated = 0
        for (done, s) in series.enumerated() {
            defer { progress?(done + 1, series.count) }
            let signals = try SignalModel.evaluate(s, config: config)
            let first = config.firstSignalIndex
            guard s.count - h > first else { continue }
            // Walk-forward base rates of the baselines: outcomes of their signals made at bars ≤ t − h.
            var baseline: [EvaluationRule: (right: Int, resolved: Int, made: [(Int, Bool)])] = [:]
            for rule in [EvaluationRule.alwaysBuy, .rsi, .momentum] { baseline[rule] = (0, 0, []) }
            for t in first..<(s.count - h) {
                evaluated += 1
                let signal = signals[t]
                let realized = log(s.close[t + h] / s.close[t])
                func record(_ rule: EvaluationRule, _ type: SignalType, confidence: Double, score: Double?) {
                    var entry = scored[rule]!
                    switch type {
                    case .buy: entry.buy += 1
                    case .sell: entry.sell += 1
                    case .hold: entry.hold += 1
                    }
                    if type != .hold {
                        entry.p.append(confidence)
                        entry.y.append(type == .buy ? realized > 0 : realized < 0)
                    }
                    if let score {
                        entry.scores.append(score)
                        entry.realized.append(realized)
                    }
                    scored[rule] = entry
                }
                let degenerate = signal.reason == .degenerateFit
                record(.model, signal.signalType, confidence: signal.confidence, score: degenerate ? nil : signal.aiSignal)
                if !degenerate { pairs.append(Pair(timestamp: s.timestamps[t], score: signal.aiSignal, realized: realized)) }
                if signal.signalType != .hold {
                    targets[targetOutcome(signal, series: s, at: t, horizon: h), default: 0] += 1
                }
                let momentum = log(s.close[t] / s.close[t - h])
                let decisions: [(EvaluationRule, SignalType, Double?)] = [
                    (.alwaysBuy, .buy, nil),
                    (.rsi, signal.rsi <= 30 ? .buy : signal.rsi >= 70 ? .sell : .hold, signal.rsi.isFinite ? 50 - signal.rsi : nil),
                    (.momentum, momentum > 0 ? .buy : momentum < 0 ? .sell : .hold, momentum),
                ]
                for (rule, type, score) in decisions {
                    var state = baseline[rule]!
                    // Resolve this rule's signals made at bars ≤ t − h (in order of bars).
                    while let oldest = state.made.first, oldest.0 <= t - h {
                        state.resolved += 1
                        if oldest.1 { state.right += 1 }
                        state.made.removeFirst()
                    }
                    let confidence = Double(state.right + 1) / Double(state.resolved + 2)
                    record(rule, type, confidence: confidence, score: score)
                    if type != .hold { state.made.append((t, type == .buy ? realized > 0 : realized < 0)) }
                    baseline[rule] = state
                }
            }
        }
        var rules: [RuleEvaluation] = []
        var without: [EvaluationRule] = []
        for rule in EvaluationRule.allCases {
            let e = scored[rule]!
            guard let hit = ForecastMetrics.hitRate(e.y),
                let brier = ForecastMetrics.brierScore(probabilities: e.p, outcomes: e.y),
                let ece = ForecastMetrics.expectedCalibrationError(probabilities: e.p, outcomes: e.y)
            else {
                if rule == .model {
                    let lengths = series.map { "\($0.symbol) \($0.count) bars" }.joined(separator: ", ")
                    throw EvaluationError.noResolvedSignals(
                        detail: "the model made no BUY/SELL signal whose \(h)-bar outcome is known (\(lengths); the model needs "
                            + "\(config.firstSignalIndex + 1) bars of warm-up, then \(h) more bars for an outcome)")
                }
                without.append(rule)
                continue
            }
            rules.append(RuleEvaluation(
                rule: rule, buyCount: e.buy, sellCount: e.sell, holdCount: e.hold, rightCount: e.y.count(where: { $0 }),
                hitRate: hit, meanConfidence: e.p.reduce(0, +) / Double(e.p.count), brierScore: brier,
                expectedCalibrationError: ece, reliability: ForecastMetrics.reliability(probabilities: e.p, outcomes: e.y),
                informationCoefficient: rule == .alwaysBuy ? nil : ForecastMetrics.spearman(e.scores, e.realized),
                targetOutcomes: rule == .model ? targets : [:]))
        }
        // Rolling IC over the model's pairs in time order (symbol order breaks ties).
        let ordered = pairs.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
        let window = ordered.count >= 500 ? 250 : Swift.max(2, ordered.count / 2)
        let step = Swift.max(1, window / 5)
        var rolling: [RollingPoint] = []
        if ordered.count >= 2 {
            var end = window
            while end <= ordered.count {
                let slice = ordered[(end - window)..<end]
                if let ic = ForecastMetrics.spearman(slice.map(\.score), slice.map(\.realized)) {
                    rolling.append(RollingPoint(timestamp: slice.last!.timestamp, value: ic))
                }
                end += step
            }
        }
        return WalkForwardEvaluation(
            config: config, symbols: series.map(\.symbol), evaluatedBars: evaluated, rules: rules,
            rulesWithoutSignals: without, rollingInformationCoefficient: rolling, rollingWindow: window)
    }

    /// The stop/target path of a scored signal over bars `t + 1 … t + h`.
    static func targetOutcome(_ signal: Signal, series: OHLCVSeries, at t: Int, horizon h: Int) -> TargetOutcome {
        let buy = signal.signalType == .buy
        let price = signal.price
        let target = signal.profitTarget
        guard buy ? target > price : target < price else { return .noTarget }
        let stop = buy ? price * (1 + signal.stopLoss / 100) : price * (1 - signal.stopLoss / 100)
        for i in (t + 1)...(t + h) {
            let stopHit = buy ? series.low[i] <= stop : series.high[i] >= stop
            if stopHit { return .stopFirst }
            if buy ? series.high[i] >= target : series.low[i] <= target { return .targetFirst }
        }
        return .neither
    }
}
