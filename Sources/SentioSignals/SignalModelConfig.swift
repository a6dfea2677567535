import SentioCore
import SentioIndicators

/// Every parameter of the Sentio signal model, with its default.
///
/// The model is described in the catalog article `SignalModel.md`; each property's comment says where it enters.
/// Encoded as JSON with these property names (``SignalModelConfig/init(from:)`` accepts a partial object:
/// missing keys keep their defaults, unknown keys are an error so that a misspelt key is not silently ignored).
public struct SignalModelConfig: Sendable, Equatable, Codable {
    /// Forecast horizon `h` in bars: the target is `ln(Cₜ₊ₕ / Cₜ)`.
    public var horizon: Int = 5
    /// Regression window `W`: the number of (feature, target) pairs in each fit.
    public var regressionWindow: Int = 120
    /// Rolling-regression updates between exact re-computations of the window's moments (bounds rounding drift;
    /// see `RollingRegression`). Larger values make the rare re-seed bar (O(W·k²)) rarer; results differ from an
    /// exact fit only by rounding (~1e-13 relative).
    public var regressionReseedInterval: Int = 1000
    /// Short momentum lookback `s`: feature `ln(Cₜ / Cₜ₋ₛ)`.
    public var shortMomentumPeriod: Int = 5
    /// Medium momentum lookback `m`: feature `ln(Cₜ / Cₜ₋ₘ)` (must exceed `s`).
    public var mediumMomentumPeriod: Int = 20
    /// RSI period (Wilder, TA-Lib definition): feature `(RSIₜ − 50)/50` and the overbought/oversold rules.
    public var rsiPeriod: Int = 14
    /// Volume-ratio window `n`: feature `ln(clamp(vₜ / mean(vₜ₋ₙ₊₁…vₜ), 0.01, 100))`.
    public var volumeWindow: Int = 20
    /// ATR period (Wilder, TA-Lib definition): feature `ATRₜ / Cₜ` and the stop loss.
    public var atrPeriod: Int = 14
    /// BUY needs `aiSignal ≥ buyScoreThreshold`.
    public var buyScoreThreshold: Double = 1.0
    /// A score SELL needs `aiSignal ≤ −sellScoreThreshold`.
    public var sellScoreThreshold: Double = 1.0
    /// BUY needs the fit strength ``Signal/fitStrength`` `= (2Φ(|aiSignal|) − 1)·√max(0, R̄²) ≥ minimumConfidence`
    /// (in [0, 1]). The gate reads the fit strength, not the calibrated ``Signal/confidence``, so that which
    /// signals are made never depends on the calibrator that scores them.
    public var minimumConfidence: Double = 0.25
    /// RSI at or above this level blocks a BUY and triggers a SELL.
    public var rsiOverbought: Double = 70
    /// RSI at or below this level blocks a score SELL (set 0 to disable).
    public var rsiOversold: Double = 30
    /// Stop loss = `−stopLossATRMultiple × ATRₜ / Cₜ × 100` percent.
    public var stopLossATRMultiple: Double = 1.5
    /// Inflate the forecast's standard error by `√h` because consecutive targets overlap by `h − 1` bars
    /// (a simple stand-in for the Hansen–Hodrick correction). With it, the score is close to N(0, 1) on
    /// unpredictable data.
    public var overlapCorrection: Bool = true
    /// Calibrator bins per direction over the directional score (see ``ConfidenceCalibrator``). The default 1
    /// (the confidence does not depend on the score) was chosen by walk-forward evaluation (catalog article
    /// `Evaluation.md`): no score dependence survived out of sample.
    public var calibrationBins: Int = 1
    /// The calibrator's bins cover directional scores in `[−calibrationScoreRange, calibrationScoreRange]`
    /// (scores outside fall into the end bins).
    public var calibrationScoreRange: Double = 4
    /// Resolved BUY/SELL signals needed before the calibrator's direction and bin levels are used; before,
    /// `confidence` is the overall rate `(right + a/2)/(resolved + a)` of the signals resolved so far.
    public var calibrationMinimumSignals: Int = 0
    /// Pseudo-count `κ` of the direction-rate prior in each calibrator bin (greater than 0).
    public var calibrationPriorWeight: Double = 400
    /// Pseudo-count `a` of the prior 1/2 in the calibrator's overall rate `(right + a/2)/(resolved + a)` (greater
    /// than 0).
    public var calibrationOverallPriorWeight: Double = 1000
    /// Pseudo-count `c` of the overall rate in each direction's rate `(right_dir + c·r)/(resolved_dir + c)` (at
    /// least 0).
    public var calibrationDirectionPriorWeight: Double = 400
    /// Confidence at or above which the text says "Strong"/"High confidence".
    public var strongConfidence: Double = 0.6
    /// Confidence at or above which the text says "Moderate confidence" (below: "Low confidence").
    public var moderateConfidence: Double = 0.35

    /// Extra regressors: TA-Lib functions' outputs in ``IndicatorFeature``'s text form (`adx`,
    /// `macd_macdhist(fastperiod=8)`, `wma(timeperiod=50)/close`), after the built-in five; `nil` (the default):
    /// none. At most ``maximumIndicatorFeatures``.
    public var indicatorFeatures: [String]? = nil

    /// The defaults.
    public init() {}

    /// Number of regressors of the built-in model, including the intercept: intercept, short momentum, medium
    /// momentum, centred RSI, log volume ratio, ATR/price.
    public static let parameterCount = 6

    /// Most ``indicatorFeatures``.
    public static let maximumIndicatorFeatures = 16

    /// Number of regressors including the intercept: ``parameterCount`` plus the indicator features.
    public var regressionParameterCount: Int { Self.parameterCount + (indicatorFeatures?.count ?? 0) }

    /// The parsed ``indicatorFeatures`` (empty for `nil`).
    ///
    /// - Throws: `TAFunctionError` naming the first feature that does not parse.
    public func parsedIndicatorFeatures() throws(TAFunctionError) -> [IndicatorFeature] {
        var features: [IndicatorFeature] = []
        for text in indicatorFeatures ?? [] { features.append(try IndicatorFeature(parsing: text)) }
        return features
    }

    /// Bars before the first feature row is available: `max(m, s, rsiPeriod, atrPeriod, volumeWindow − 1)` and
    /// each indicator feature's lookback (TA-Lib's).
    public var featureLookback: Int {
        let builtIn = Swift.max(mediumMomentumPeriod, shortMomentumPeriod, rsiPeriod, atrPeriod, volumeWindow - 1)
        return ((try? parsedIndicatorFeatures()) ?? []).reduce(builtIn) { Swift.max($0, $1.function.lookback) }
    }

    /// Index of the first bar with a forecast: `featureLookback + horizon + regressionWindow − 1`
    /// (the window is full: `W` pairs whose targets are known). Earlier bars are warm-up.
    public var firstSignalIndex: Int { featureLookback + horizon + regressionWindow - 1 }

    /// Checks every parameter's range.
    ///
    /// - Throws: ``SignalConfigError`` naming the parameter and its allowed range.
    public func validate() throws(SignalConfigError) {
        func require(_ ok: Bool, _ key: String, _ rule: String, _ value: String) throws(SignalConfigError) {
            if !ok { throw SignalConfigError.outOfRange(parameter: key, value: value, rule: rule) }
        }
        let most = maximumIndicatorPeriod
        for (key, value) in [
            ("horizon", horizon), ("regressionWindow", regressionWindow), ("shortMomentumPeriod", shortMomentumPeriod),
            ("mediumMomentumPeriod", mediumMomentumPeriod), ("rsiPeriod", rsiPeriod), ("volumeWindow", volumeWindow),
            ("atrPeriod", atrPeriod),
        ] {
            try require(value <= most, key, "at most \(most) bars", "\(value)")
        }
        try require(horizon >= 1, "horizon", "at least 1", "\(horizon)")
        var features: [IndicatorFeature] = []
        for text in indicatorFeatures ?? [] {
            do throws(TAFunctionError) { features.append(try IndicatorFeature(parsing: text)) } catch {
                throw SignalConfigError.outOfRange(
                    parameter: "indicatorFeatures", value: "'\(text)'",
                    rule: "COLUMN[(PARAMETER=VALUE,...)][/close] with a TA-Lib column and valid parameters (\(error.description))")
            }
        }
        try require(
            features.count <= Self.maximumIndicatorFeatures, "indicatorFeatures",
            "at most \(Self.maximumIndicatorFeatures) features", "\(features.count) features")
        for feature in features {
            try require(
                feature.function.lookback <= most, "indicatorFeatures", "features with a lookback of at most \(most) bars",
                "\(feature) (lookback \(feature.function.lookback))")
        }
        let parameters = regressionParameterCount
        try require(
            regressionWindow >= 2 * parameters, "regressionWindow",
            "at least \(2 * parameters) (twice the \(parameters) regression parameters)", "\(regressionWindow)")
        try require(regressionReseedInterval >= 1, "regressionReseedInterval", "at least 1", "\(regressionReseedInterval)")
        try require(shortMomentumPeriod >= 1, "shortMomentumPeriod", "at least 1", "\(shortMomentumPeriod)")
        try require(
            mediumMomentumPeriod > shortMomentumPeriod, "mediumMomentumPeriod",
            "greater than shortMomentumPeriod (\(shortMomentumPeriod))", "\(mediumMomentumPeriod)")
        try require(rsiPeriod >= 1, "rsiPeriod", "at least 1", "\(rsiPeriod)")
        try require(volumeWindow >= 2, "volumeWindow", "at least 2", "\(volumeWindow)")
        try require(atrPeriod >= 1, "atrPeriod", "at least 1", "\(atrPeriod)")
        try require(buyScoreThreshold.isFinite && buyScoreThreshold >= 0, "buyScoreThreshold", "finite and at least 0", "\(buyScoreThreshold)")
        try require(sellScoreThreshold.isFinite && sellScoreThreshold >= 0, "sellScoreThreshold", "finite and at least 0", "\(sellScoreThreshold)")
        try require((0...1).contains(minimumConfidence), "minimumConfidence", "in [0, 1]", "\(minimumConfidence)")
        try require((0...100).contains(rsiOverbought), "rsiOverbought", "in [0, 100]", "\(rsiOverbought)")
        try require(
            (0...100).contains(rsiOversold) && rsiOversold < rsiOverbought, "rsiOversold",
            "in [0, 100] and below rsiOverbought (\(rsiOverbought))", "\(rsiOversold)")
        try require(stopLossATRMultiple.isFinite && stopLossATRMultiple > 0, "stopLossATRMultiple", "finite and greater than 0", "\(stopLossATRMultiple)")
        try require((1...1000).contains(calibrationBins), "calibrationBins", "in 1...1000", "\(calibrationBins)")
        try require(
            calibrationScoreRange.isFinite && calibrationScoreRange > 0, "calibrationScoreRange", "finite and greater than 0",
            "\(calibrationScoreRange)")
        try require(calibrationMinimumSignals >= 0, "calibrationMinimumSignals", "at least 0", "\(calibrationMinimumSignals)")
        try require(
            calibrationPriorWeight.isFinite && calibrationPriorWeight > 0, "calibrationPriorWeight", "finite and greater than 0",
            "\(calibrationPriorWeight)")
        try require(
            calibrationOverallPriorWeight.isFinite && calibrationOverallPriorWeight > 0, "calibrationOverallPriorWeight",
            "finite and greater than 0", "\(calibrationOverallPriorWeight)")
        try require(
            calibrationDirectionPriorWeight.isFinite && calibrationDirectionPriorWeight >= 0, "calibrationDirectionPriorWeight",
            "finite and at least 0", "\(calibrationDirectionPriorWeight)")
        try require((0...1).contains(strongConfidence), "strongConfidence", "in [0, 1]", "\(strongConfidence)")
        try require(
            (0...1).contains(moderateConfidence) && moderateConfidence <= strongConfidence, "moderateConfidence",
            "in [0, 1] and at most strongConfidence (\(strongConfidence))", "\(moderateConfidence)")
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case horizon, regressionWindow, regressionReseedInterval, shortMomentumPeriod, mediumMomentumPeriod, rsiPeriod, volumeWindow, atrPeriod
        case buyScoreThreshold, sellScoreThreshold, minimumConfidence, rsiOverbought, rsiOversold
        case stopLossATRMultiple, overlapCorrection, strongConfidence, moderateConfidence
        case calibrationBins, calibrationScoreRange, calibrationMinimumSignals, calibrationPriorWeight
        case calibrationOverallPriorWeight, calibrationDirectionPriorWeight
        case indicatorFeatures
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Encodes every parameter in `CodingKeys` order (the order the synthesized conformance wrote, which the
    /// contracts' ordered JSON keeps), and
    /// `indicatorFeatures` only when there are some: a model without them keeps the bytes it had before they
    /// existed (saved runs, journals, goldens).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(horizon, forKey: .horizon)
        try c.encode(regressionWindow, forKey: .regressionWindow)
        try c.encode(regressionReseedInterval, forKey: .regressionReseedInterval)
        try c.encode(shortMomentumPeriod, forKey: .shortMomentumPeriod)
        try c.encode(mediumMomentumPeriod, forKey: .mediumMomentumPeriod)
        try c.encode(rsiPeriod, forKey: .rsiPeriod)
        try c.encode(volumeWindow, forKey: .volumeWindow)
        try c.encode(atrPeriod, forKey: .atrPeriod)
        try c.encode(buyScoreThreshold, forKey: .buyScoreThreshold)
        try c.encode(sellScoreThreshold, forKey: .sellScoreThreshold)
        try c.encode(minimumConfidence, forKey: .minimumConfidence)
        try c.encode(rsiOverbought, forKey: .rsiOverbought)
        try c.encode(rsiOversold, forKey: .rsiOversold)
        try c.encode(stopLossATRMultiple, forKey: .stopLossATRMultiple)
        try c.encode(overlapCorrection, forKey: .overlapCorrection)
        try c.encode(strongConfidence, forKey: .strongConfidence)
        try c.encode(moderateConfidence, forKey: .moderateConfidence)
        try c.encode(calibrationBins, forKey: .calibrationBins)
        try c.encode(calibrationScoreRange, forKey: .calibrationScoreRange)
        try c.encode(calibrationMinimumSignals, forKey: .calibrationMinimumSignals)
        try c.encode(calibrationPriorWeight, forKey: .calibrationPriorWeight)
        try c.encode(calibrationOverallPriorWeight, forKey: .calibrationOverallPriorWeight)
        try c.encode(calibrationDirectionPriorWeight, forKey: .calibrationDirectionPriorWeight)
        if let indicatorFeatures { try c.encode(indicatorFeatures, forKey: .indicatorFeatures) }
    }

    /// Decodes a possibly partial object; missing keys keep their defaults.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for an unknown key, the usual decoding errors for wrong types.
    public init(from decoder: any Decoder) throws {
        let names = Set(CodingKeys.allCases.map(\.stringValue))
        let all = try decoder.container(keyedBy: AnyKey.self)
        for key in all.allKeys where !names.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: all,
                debugDescription: "unknown parameter '\(key.stringValue)'; known: \(CodingKeys.allCases.map(\.stringValue).joined(separator: ", "))")
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var config = SignalModelConfig()
        func read<T: Decodable>(_ key: CodingKeys, _ value: inout T) throws {
            if let v = try c.decodeIfPresent(T.self, forKey: key) { value = v }
        }
        try read(.horizon, &config.horizon)
        try read(.regressionWindow, &config.regressionWindow)
        try read(.regressionReseedInterval, &config.regressionReseedInterval)
        try read(.shortMomentumPeriod, &config.shortMomentumPeriod)
        try read(.mediumMomentumPeriod, &config.mediumMomentumPeriod)
        try read(.rsiPeriod, &config.rsiPeriod)
        try read(.volumeWindow, &config.volumeWindow)
        try read(.atrPeriod, &config.atrPeriod)
        try read(.buyScoreThreshold, &config.buyScoreThreshold)
        try read(.sellScoreThreshold, &config.sellScoreThreshold)
        try read(.minimumConfidence, &config.minimumConfidence)
        try read(.rsiOverbought, &config.rsiOverbought)
        try read(.rsiOversold, &config.rsiOversold)
        try read(.stopLossATRMultiple, &config.stopLossATRMultiple)
        try read(.overlapCorrection, &config.overlapCorrection)
        try read(.strongConfidence, &config.strongConfidence)
        try read(.moderateConfidence, &config.moderateConfidence)
        try read(.calibrationBins, &config.calibrationBins)
        try read(.calibrationScoreRange, &config.calibrationScoreRange)
        try read(.calibrationMinimumSignals, &config.calibrationMinimumSignals)
        try read(.calibrationPriorWeight, &config.calibrationPriorWeight)
        try read(.calibrationOverallPriorWeight, &config.calibrationOverallPriorWeight)
        try read(.calibrationDirectionPriorWeight, &config.calibrationDirectionPriorWeight)
        config.indicatorFeatures = try c.decodeIfPresent([String].self, forKey: .indicatorFeatures)
        self = config
    }
}

/// A model parameter outside its allowed range.
public enum SignalConfigError: UserInputError, Equatable {
    case outOfRange(parameter: String, value: String, rule: String)

    public var description: String {
        switch self {
        case let .outOfRange(parameter, value, rule):
            return "signal model parameter '\(parameter)' is \(value); it must be \(rule)"
        }
    }
}
