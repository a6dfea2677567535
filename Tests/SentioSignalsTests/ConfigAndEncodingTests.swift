import Foundation
import SentioCore
import SentioTestSupport
import Testing
@testable import SentioSignals

@Suite("Config and text")
struct ConfigAndEncodingTests {
    @Test func configRoundTrip() throws {
        var config = SignalModelConfig()
        config.horizon = 3
        config.regressionWindow = 77
        config.minimumConfidence = 0.125
        config.overlapCorrection = false
        config.rsiOversold = 0
        let data = try JSONEncoder().encode(config)
        #expect(try JSONDecoder().decode(SignalModelConfig.self, from: data) == config)
    }

    @Test func partialConfigKeepsDefaults() throws {
        let config = try JSONDecoder().decode(SignalModelConfig.self, from: Data(#"{"horizon": 2}"#.utf8))
        var expected = SignalModelConfig()
        expected.horizon = 2
        #expect(config == expected)
        #expect(try JSONDecoder().decode(SignalModelConfig.self, from: Data("{}".utf8)) == SignalModelConfig())
    }

    @Test func unknownKeyAndWrongTypeAreErrors() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SignalModelConfig.self, from: Data(#"{"horizn": 2}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SignalModelConfig.self, from: Data(#"{"horizon": "five"}"#.utf8))
        }
    }

    @Test func validationNamesTheParameter() {
        var config = SignalModelConfig()
        config.mediumMomentumPeriod = config.shortMomentumPeriod
        #expect(throws: SignalConfigError.self) { try config.validate() }
        do { try config.validate() } catch { #expect(error.description.contains("'mediumMomentumPeriod'")) }
        config = SignalModelConfig()
        config.regressionWindow = 11
        do { try config.validate(); Issue.record("window 11 accepted") } catch { #expect(error.description.contains("'regressionWindow' is 11")) }
        config = SignalModelConfig()
        config.minimumConfidence = 1.5
        #expect(throws: SignalConfigError.self) { try config.validate() }
        config = SignalModelConfig()
        config.rsiOversold = 80
        #expect(throws: SignalConfigError.self) { try config.validate() }
        #expect(throws: SignalConfigError.self) { try SignalEngine(config: config) }
    }

    @Test func defaultsAndWarmUpLength() {
        let config = SignalModelConfig()
        #expect(config.featureLookback == 20)
        #expect(config.firstSignalIndex == 20 + 5 + 120 - 1)
    }

    @Test func textRounding() {
        #expect(SignalText.fixed(3.956, 2) == "3.96")
        #expect(SignalText.fixed(-1.115, 2) == "-1.12" || SignalText.fixed(-1.115, 2) == "-1.11")
        #expect(SignalText.fixed(-0.0001, 2) == "0.00")
        #expect(SignalText.fixed(34.25, 1) == "34.3")
        #expect(SignalText.fixed(5, 0) == "5")
    }

    @Test func textByConfidenceBand() {
        let config = SignalModelConfig()
        var signal = Signal(
            symbol: "TQQQ", timestamp: 1_760_956_200, barIndex: 500, price: 102.45, change: 2.34, changePercent: 2.34,
            signalType: .buy, confidence: 0.87, targetReturn: 3.96, stopLoss: -1.12, profitTarget: 106.51, aiSignal: 2.45,
            rsi: 34.2, volumeRatio: 1.8, forecastLogReturn: 0.0388, forecastStandardError: 0.0158, adjustedRSquared: 0.8,
            averageTrueRange: 0.76, reason: .positiveScore, barsUntilReady: 0)
        #expect(SignalText.recommendation(for: signal, config: config)
            == "Strong Buy Signal - High confidence based on proprietary AI indicators and momentum.")
        #expect(SignalText.reasoning(for: signal, config: config).hasPrefix(
            "Entry recommended at current levels with 3.96% profit target and 1.12% stop loss."))
        signal.confidence = 0.4
        #expect(SignalText.recommendation(for: signal, config: config).hasPrefix("Buy Signal - Moderate confidence"))
        signal.confidence = 0.3
        #expect(SignalText.recommendation(for: signal, config: config).contains("Low confidence"))
        signal.signalType = .sell
        signal.reason = .overbought
        signal.rsi = 74.04
        #expect(SignalText.reasoning(for: signal, config: config).contains("RSI 74.0 is at or above the overbought level 70.0"))
        for reason in SignalReason.allCases {
            signal.reason = reason
            #expect(!SignalText.recommendation(for: signal, config: config).isEmpty)
            #expect(SignalText.reasoning(for: signal, config: config).hasSuffix("."))
        }
    }
}
