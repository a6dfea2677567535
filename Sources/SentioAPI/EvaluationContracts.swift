import SentioCore
import SentioSignals

/// `sentio evaluate --format json`: the walk-forward evaluation of the signal model and its baselines
/// (definitions: SentioSignals' catalog article `Evaluation.md`).
public struct EvaluationResponse: Sendable, Equatable, Codable {
    /// ``SignalHistoryResponse/modelName``.
    public var model: String
    /// Every model parameter used.
    public var config: SignalModelConfig
    public var symbols: [String]
    /// Bars evaluated (past the warm-up with a known outcome), all symbols.
    public var evaluatedBars: Int
    /// The forecast horizon `h`: a signal is judged on the close `h` bars later.
    public var horizonBars: Int
    /// The model (`"sentio"`) first, then the baselines that made at least one BUY/SELL signal.
    public var rules: [EvaluationRuleFigures]
    /// Baselines without any BUY/SELL signal on these bars (they have no figures).
    public var rulesWithoutSignals: [String]
    /// Pairs (aiSignal, realized return) per window of the rolling information coefficient.
    public var rollingWindow: Int
    public var rollingInformationCoefficient: [EvaluationRollingPoint]

    public init(
        model: String, config: SignalModelConfig, symbols: [String], evaluatedBars: Int, horizonBars: Int,
        rules: [EvaluationRuleFigures], rulesWithoutSignals: [String], rollingWindow: Int,
        rollingInformationCoefficient: [EvaluationRollingPoint]
    ) {
        self.model = model
        self.config = config
        self.symbols = symbols
        self.evaluatedBars = evaluatedBars
        self.horizonBars = horizonBars
        self.rules = rules
        self.rulesWithoutSignals = rulesWithoutSignals
        self.rollingWindow = rollingWindow
        self.rollingInformationCoefficient = rollingInformationCoefficient
    }

    /// The contract of an evaluation.
    public init(_ e: WalkForwardEvaluation) {
        self.init(
            model: SignalHistoryResponse.modelName, config: e.config, symbols: e.symbols, evaluatedBars: e.evaluatedBars,
            horizonBars: e.config.horizon, rules: e.rules.map { EvaluationRuleFigures($0) },
            rulesWithoutSignals: e.rulesWithoutSignals.map(\.rawValue), rollingWindow: e.rollingWindow,
            rollingInformationCoefficient: e.rollingInformationCoefficient.map {
                EvaluationRollingPoint(timestamp: APITimestamp(epochSeconds: $0.timestamp), value: $0.value)
            })
    }
}

/// The figures of one rule. Fractions in [0, 1]; `informationCoefficient` is `null` for a rule without a score
/// (always-BUY) or with a constant one; `targets` is `null` for the baselines (they have no stop or target).
public struct EvaluationRuleFigures: Sendable, Equatable, Codable {
    public var rule: String
    public var description: String
    public var buy: Int
    public var sell: Int
    public var hold: Int
    /// BUY + SELL signals, and how many were right.
    public var scored: Int
    public var right: Int
    public var hitRate: Double
    public var meanConfidence: Double
    public var brierScore: Double
    public var expectedCalibrationError: Double
    public var informationCoefficient: Double?
    public var reliability: [EvaluationReliabilityBin]
    public var targets: EvaluationTargetOutcomes?

    public init(_ r: RuleEvaluation) {
        rule = r.rule.rawValue
        description = r.rule.summary
        buy = r.buyCount
        sell = r.sellCount
        hold = r.holdCount
        scored = r.scoredCount
        right = r.rightCount
        hitRate = r.hitRate
        meanConfidence = r.meanConfidence
        brierScore = r.brierScore
        expectedCalibrationError = r.expectedCalibrationError
        informationCoefficient = r.informationCoefficient
        reliability = r.reliability.map {
            EvaluationReliabilityBin(
                bin: $0.bin, lower: $0.lower, upper: $0.upper, meanConfidence: $0.meanConfidence,
                observedFrequency: $0.observedFrequency, count: $0.count)
        }
        targets = r.rule == .model ? EvaluationTargetOutcomes(
            targetFirst: r.targetOutcomes[.targetFirst] ?? 0, stopFirst: r.targetOutcomes[.stopFirst] ?? 0,
            neither: r.targetOutcomes[.neither] ?? 0, noTarget: r.targetOutcomes[.noTarget] ?? 0) : nil
    }
}

/// One non-empty bin of the reliability table (`[lower, upper)`, the last bin includes 1).
public struct EvaluationReliabilityBin: Sendable, Equatable, Codable {
    public var bin: Int
    public var lower: Double
    public var upper: Double
    public var meanConfidence: Double
    public var observedFrequency: Double
    public var count: Int
}

/// How the model's scored signals' stops and profit targets played out over the next `h` bars (counts).
public struct EvaluationTargetOutcomes: Sendable, Equatable, Codable {
    public var targetFirst: Int
    public var stopFirst: Int
    public var neither: Int
    public var noTarget: Int
}

/// A point of the rolling information coefficient (time of the window's newest pair).
public struct EvaluationRollingPoint: Sendable, Equatable, Codable {
    public var timestamp: APITimestamp
    public var value: Double
}
