/// The English `recommendation` and `reasoning` of a signal, generated from its numbers.
///
/// Deterministic: the same signal and config always give the same text. The strength word comes from the
/// confidence band: `confidence ≥ strongConfidence` → "Strong …/High confidence", `≥ moderateConfidence` →
/// "Moderate confidence", otherwise "Low confidence". Percents are written with 2 decimals, RSI with 1.
/// The texts are generated on demand (not in the per-bar update), so the engine does no string work.
public enum SignalText {
    /// Confidence band used for the strength words.
    public enum Band: String, Sendable {
        case high, moderate, low
    }

    /// The band of `confidence` under `config`'s thresholds.
    public static func band(_ confidence: Double, config: SignalModelConfig) -> Band {
        if confidence >= config.strongConfidence { return .high }
        if confidence >= config.moderateConfidence { return .moderate }
        return .low
    }

    /// One sentence saying what to do, e.g.
    /// "Strong Buy Signal - High confidence based on proprietary AI indicators and momentum."
    public static func recommendation(for signal: Signal, config: SignalModelConfig) -> String {
        let band = band(signal.confidence, config: config)
        switch signal.reason {
        case .warmUp:
            return "Hold - Insufficient history: the model is still warming up."
        case .degenerateFit:
            return "Hold - No reliable forecast: the regression window is degenerate."
        case .positiveScore:
            switch band {
            case .high: return "Strong Buy Signal - High confidence based on proprietary AI indicators and momentum."
            case .moderate: return "Buy Signal - Moderate confidence based on proprietary AI indicators and momentum."
            case .low: return "Speculative Buy Signal - Low confidence based on proprietary AI indicators and momentum."
            }
        case .negativeScore:
            switch band {
            case .high: return "Strong Sell Signal - High confidence in a decline based on proprietary AI indicators and momentum."
            case .moderate: return "Sell Signal - Moderate confidence in a decline based on proprietary AI indicators and momentum."
            case .low: return "Sell Signal - Low confidence in a decline based on proprietary AI indicators and momentum."
            }
        case .overbought:
            return "Sell Signal - RSI is overbought; momentum is likely to fade."
        case .oversoldBlocksSell:
            return "Hold - Bearish forecast, but RSI is oversold; a rebound is possible."
        case .lowConfidence:
            return "Hold - Bullish forecast, but confidence is too low to act on."
        case .weakScore:
            switch band {
            case .high, .moderate: return "Hold - No clear edge: the forecast is too small relative to its uncertainty."
            case .low: return "Hold - No clear edge: low confidence in either direction."
            }
        }
    }

    /// One or two sentences with the numbers behind the recommendation, e.g.
    /// "Entry recommended at current levels with 3.96% profit target and 1.12% stop loss."
    public static func reasoning(for signal: Signal, config: SignalModelConfig) -> String {
        let target = fixed(signal.targetReturn, 2)
        let stop = fixed(abs(signal.stopLoss), 2)
        let score = fixed(signal.aiSignal, 2)
        let confidence = fixed(signal.confidence, 2)
        let rsi = fixed(signal.rsi, 1)
        let bars = config.horizon == 1 ? "1 bar" : "\(config.horizon) bars"
        switch signal.reason {
        case .warmUp:
            let needed = config.firstSignalIndex + 1
            return "Warming up: \(signal.barIndex + 1) of \(needed) bars seen; the model needs \(signal.barsUntilReady) more "
                + "bar\(signal.barsUntilReady == 1 ? "" : "s") to fill its \(config.regressionWindow)-bar regression window "
                + "with \(config.horizon)-bar forward returns."
        case .degenerateFit:
            return "The features in the last \(config.regressionWindow) bars are constant or collinear, so the regression "
                + "cannot be solved; no position is recommended until they vary."
        case .positiveScore:
            return "Entry recommended at current levels with \(target)% profit target and \(stop)% stop loss. "
                + "The model forecasts \(target)% over the next \(bars) (score \(score), confidence \(confidence), RSI \(rsi))."
        case .negativeScore:
            return "Exit or avoid long positions: the model forecasts \(target)% over the next \(bars) "
                + "(score \(score) at or below -\(fixed(config.sellScoreThreshold, 2)), confidence \(confidence))."
        case .overbought:
            return "Exit or avoid long positions: RSI \(rsi) is at or above the overbought level "
                + "\(fixed(config.rsiOverbought, 1)); the model forecasts \(target)% over the next \(bars) (score \(score))."
        case .oversoldBlocksSell:
            return "The model forecasts \(target)% over the next \(bars) (score \(score)), but RSI \(rsi) is at or below "
                + "the oversold level \(fixed(config.rsiOversold, 1)), so no sell is issued."
        case .lowConfidence:
            return "The model forecasts \(target)% over the next \(bars) (score \(score)), but confidence \(confidence) "
                + "is below the \(fixed(config.minimumConfidence, 2)) minimum for entry."
        case .weakScore:
            return "The model forecasts \(target)% over the next \(bars); score \(score) is inside the "
                + "-\(fixed(config.sellScoreThreshold, 2)) to \(fixed(config.buyScoreThreshold, 2)) hold band."
        }
    }

    /// `value` rounded half away from zero to `decimals` places, written without exponent; "-0.00" is written
    /// "0.00"; NaN is written "n/a". Locale-independent.
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "n/a" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9.0e18 else { return value.description }
        let units = UInt64(scaled)
        let divisor = UInt64(scale)
        var text = units == 0 || value > 0 ? "" : "-"
        text += String(units / divisor)
        if decimals > 0 {
            let fraction = String(units % divisor)
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return text
    }
}
