import Foundation
import SentioCore
import SentioTestSupport
import Testing
@testable import SentioSignals

@Suite("Config, encoding and text")
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
        // The history embeds the same JSON, and it decodes back to the config used.
        let embedded = SignalEncoding.configJSON(config)
        #expect(try JSONDecoder().decode(SignalModelConfig.self, from: Data(embedded.utf8)) == config)
        #expect(embedded.contains("\"regressionWindow\": 77"))
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

    func latestSignals() throws -> [Signal] {
        try [googSeries(), randomSeries(symbol: "RND", bars: 30, seed: 3), randomSeries(symbol: "R2", bars: 400, seed: 4)]
            .map { try SignalModel.evaluate($0).last! }
    }

    /// Schema of the `GET /signals` document: every field present with its type and range.
    @Test func latestDocumentSchema() throws {
        let signals = try latestSignals()
        let text = SignalEncoding.latestDocument(signals, config: SignalModelConfig())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["timestamp", "signals"])
        #expect(object["timestamp"] as? String == iso8601(epochSeconds: signals.map(\.timestamp).max()!))
        let entries = try #require(object["signals"] as? [[String: Any]])
        #expect(entries.count == signals.count)
        let numberFields = ["price", "change", "changePercent", "confidence", "targetReturn", "stopLoss", "profitTarget", "aiSignal", "rsi", "volumeRatio"]
        let stringFields = ["id", "symbol", "timestamp", "signalType", "recommendation", "reasoning"]
        for (entry, signal) in zip(entries, signals) {
            #expect(Set(entry.keys) == Set(numberFields + stringFields))
            for key in stringFields { #expect(entry[key] is String, "\(key) is a string") }
            for key in numberFields {
                // (Foundation on Linux bridges JSON 0 and 1 to Bool too, so check the literal text for booleans.)
                #expect(entry[key] is NSNumber, "\(key) is a number in \(signal.symbol)")
                #expect(!text.contains("\"\(key)\": true") && !text.contains("\"\(key)\": false"))
            }
            #expect(["BUY", "SELL", "HOLD"].contains(entry["signalType"] as! String))
            let confidence = (entry["confidence"] as! NSNumber).doubleValue
            #expect((0...1).contains(confidence))
            #expect((entry["stopLoss"] as! NSNumber).doubleValue <= 0)
            #expect((0...100).contains((entry["rsi"] as! NSNumber).doubleValue))
            let id = entry["id"] as! String
            #expect(UUID(uuidString: id) != nil && id == id.lowercased() && Array(id)[14] == "5")
            #expect(entry["id"] as? String == signal.id)
            #expect(entry["timestamp"] as? String == iso8601(epochSeconds: signal.timestamp))
            #expect(!(entry["reasoning"] as! String).isEmpty)
        }
    }

    @Test func missingIndicatorIsNullNotAWrongType() throws {
        let signal = try SignalModel.evaluate(randomSeries(symbol: "S", bars: 3, seed: 1)).last!
        let text = SignalEncoding.latestDocument([signal], config: SignalModelConfig())
        #expect(text.contains("\"rsi\": null") && text.contains("\"volumeRatio\": null"))
        #expect(text.contains("\"signalType\": \"HOLD\"") && text.contains("\"confidence\": 0.0"))
    }

    @Test func displayRounding() {
        #expect(SignalEncoding.number(102.45, 2) == "102.45")
        #expect(SignalEncoding.number(2.345, 2) == "2.35")  // half away from zero on the scaled value
        #expect(SignalEncoding.number(-0.001, 2) == "0.0")
        #expect(SignalEncoding.number(1.8, 2) == "1.8")
        #expect(SignalEncoding.number(.nan, 2) == "null")
        #expect(SignalEncoding.number(0.1 + 0.2, -1) == "0.30000000000000004")
        #expect(SignalText.fixed(3.956, 2) == "3.96")
        #expect(SignalText.fixed(-1.115, 2) == "-1.12" || SignalText.fixed(-1.115, 2) == "-1.11")
        #expect(SignalText.fixed(-0.0001, 2) == "0.00")
        #expect(SignalText.fixed(34.25, 1) == "34.3")
        #expect(SignalText.fixed(5, 0) == "5")
    }

    @Test func deterministicBytes() throws {
        let config = SignalModelConfig()
        let series = [try googSeries(), randomSeries(symbol: "Q", bars: 260, seed: 8)]
        func render() throws -> (String, String, String) {
            let history = try series.map { try SignalModel.evaluate($0, config: config) }
            return (
                SignalEncoding.latestDocument(history.map { $0.last! }, config: config),
                SignalEncoding.historyDocument(history, config: config),
                SignalEncoding.historyCSV(history)
            )
        }
        let a = try render(), b = try render()
        #expect(a.0 == b.0 && a.1 == b.1 && a.2 == b.2)
    }

    @Test func historyDocumentRecordsConfigAndWarmUp() throws {
        var config = SignalModelConfig()
        config.regressionWindow = 40
        let signals = try SignalModel.evaluate(randomSeries(symbol: "H", bars: 120, seed: 2), config: config)
        let text = SignalEncoding.historyDocument([signals], config: config)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let embedded = try JSONSerialization.data(withJSONObject: object["config"]!)
        #expect(try JSONDecoder().decode(SignalModelConfig.self, from: embedded) == config)
        let entries = try #require(object["signals"] as? [[String: Any]])
        #expect(entries.count == 120)
        for (i, entry) in entries.enumerated() {
            #expect(entry["warmUp"] as? Bool == (i < config.firstSignalIndex))
            #expect(entry["status"] as? String == signals[i].reason.rawValue)
        }
        // Full precision: numbers read back exactly. (Read with JSONDecoder: Foundation's JSONSerialization on
        // Linux misrounds some decimals, e.g. 0.7870499855736526 reads 2 ulps off.)
        struct Entry: Decodable { var aiSignal: Double? }
        struct Document: Decodable { var signals: [Entry] }
        let decoded = try JSONDecoder().decode(Document.self, from: Data(text.utf8))
        #expect(decoded.signals[100].aiSignal == signals[100].aiSignal)
    }

    @Test func historyCSVShape() throws {
        let signals = try SignalModel.evaluate(randomSeries(symbol: "H", bars: 200, seed: 2))
        let lines = SignalEncoding.historyCSV([signals]).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first.map(String.init) == SignalEncoding.csvHeader.joined(separator: ","))
        #expect(lines.count == 202 && lines.last == "")
        for (line, signal) in zip(lines.dropFirst(), signals) {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            #expect(cells.count == SignalEncoding.csvHeader.count)
            #expect(cells[3] == (signal.isWarmUp ? "true" : "false"))
            #expect(Double(cells[9]) == signal.confidence)
        }
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
