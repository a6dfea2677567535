import Foundation
import SentioCore
import SentioTestSupport
import Testing
@testable import SentioSignals

/// The model against an independent implementation on real data: Tests/Fixtures/signals/generate_signals.py
/// (TA-Lib RSI/ATR, pandas volume ratio, statsmodels OLS per window with `get_prediction().se_mean`) on the
/// daily GOOG series of backtesting.py.
@Suite("Signal model vs statsmodels (GOOG)")
struct SignalModelGoldenTests {
    static let configs: [(String, SignalModelConfig)] = {
        var small = SignalModelConfig()
        small.horizon = 1
        small.regressionWindow = 60
        small.shortMomentumPeriod = 3
        small.mediumMomentumPeriod = 10
        small.rsiPeriod = 7
        small.volumeWindow = 10
        small.atrPeriod = 5
        small.overlapCorrection = false
        small.stopLossATRMultiple = 2
        var features = SignalModelConfig()
        features.indicatorFeatures = ["adx", "macd_macdhist(fastperiod=8)", "wma(timeperiod=30)/close"]
        return [("default", SignalModelConfig()), ("h1_w60", small), ("ta_features", features)]
    }()

    /// Config 2 adds three TA-Lib indicator features (TA-Lib's ADX, MACD histogram and WMA over the close in the
    /// reference), so the features' wiring into the regression is checked against statsmodels too.
    @Test(arguments: [0, 1, 2])
    func matchesReference(_ which: Int) throws {
        let (name, config) = Self.configs[which]
        let file = "signals/goog_signals_\(name).csv"
        let expected = try loadNumericCSV(file)
        let kinds = try fixtureText(file).split(whereSeparator: \.isNewline).dropFirst()
            .map { String($0.split(separator: ",").last!) }
        let signals = try SignalModel.evaluate(try googSeries(), config: config)
        let indices = expected["index"]!.map { Int($0) }
        #expect(indices.first == config.firstSignalIndex, "first forecast index")
        #expect(indices.last == signals.count - 1)
        // Every bar before the first reference row is warm-up.
        #expect(signals[..<config.firstSignalIndex].allSatisfy { $0.isWarmUp && $0.signalType == .hold && $0.confidence == 0 })

        let picked = indices.map { signals[$0] }
        #expect(picked.allSatisfy { !$0.isWarmUp && $0.reason != .degenerateFit })
        expectClose(picked.map(\.forecastLogReturn), expected["forecast"]!, relative: 1e-8, absolute: 1e-14, "forecast")
        expectClose(picked.map(\.forecastStandardError), expected["standard_error"]!, relative: 1e-8, "standard error")
        expectClose(picked.map(\.aiSignal), expected["ai_signal"]!, relative: 1e-8, absolute: 1e-12, "aiSignal")
        expectClose(picked.map(\.adjustedRSquared), expected["adjusted_r2"]!, relative: 1e-8, absolute: 1e-12, "adjusted R²")
        expectClose(picked.map(\.fitStrength), expected["fit_strength"]!, relative: 1e-8, absolute: 1e-12, "fit strength")
        // The calibrated confidence (Tests/Fixtures/signals/calibration.py, counts recomputed from scratch per bar).
        expectClose(picked.map(\.confidence), expected["confidence"]!, relative: 1e-12, absolute: 1e-14, "confidence")
        expectClose(picked.map(\.targetReturn), expected["target_return"]!, relative: 1e-8, absolute: 1e-12, "targetReturn")
        expectClose(picked.map(\.stopLoss), expected["stop_loss"]!, relative: 1e-12, "stopLoss")
        expectClose(picked.map(\.profitTarget), expected["profit_target"]!, relative: 1e-12, "profitTarget")
        expectClose(picked.map(\.rsi), expected["rsi"]!, relative: 1e-12, "rsi")
        expectClose(picked.map(\.volumeRatio), expected["volume_ratio"]!, relative: 1e-12, "volumeRatio")
        var mismatches = 0
        for (signal, kind) in zip(picked, kinds) where signal.signalType.rawValue != kind {
            // Only a score or fit strength within rounding of a threshold may flip.
            mismatches += 1
            Issue.record("bar \(signal.barIndex): \(signal.signalType.rawValue) vs reference \(kind) (score \(signal.aiSignal), fit strength \(signal.fitStrength))")
        }
        #expect(mismatches == 0)
        // The reference has all three kinds, so the rules are exercised.
        #expect(Set(kinds) == ["BUY", "SELL", "HOLD"])
    }
}
