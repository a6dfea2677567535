import Foundation
import SentioCore
import SentioData
import SentioIndicators
import SentioTestSupport
import Testing
@testable import SentioSignals

/// Each series' signals from one `SignalEngine` fed the symbols' bars in a seeded random interleaving.
func interleavedStreaming(_ series: [OHLCVSeries], config: SignalModelConfig, seed: UInt64) throws -> [[Signal]] {
    var engine = try SignalEngine(config: config)
    var streamed = [[Signal]](repeating: [], count: series.count)
    var cursor = [Int](repeating: 0, count: series.count)
    var rng = SplitMix64(seed: seed)
    while cursor.enumerated().contains(where: { $0.element < series[$0.offset].count }) {
        let s = Int.random(in: 0..<series.count, using: &rng)
        guard cursor[s] < series[s].count else { continue }
        streamed[s].append(try engine.update(symbol: series[s].symbol, bar: series[s][bar: cursor[s]]))
        cursor[s] += 1
    }
    return streamed
}

@Suite("Signal model properties")
struct SignalModelPropertyTests {
    /// Small windows so that short random series reach the forecasting regime quickly.
    static var smallConfig: SignalModelConfig {
        var config = SignalModelConfig()
        config.regressionWindow = 30
        config.horizon = 3
        return config
    }

    @Test func batchEqualsInterleavedStreaming() throws {
        let series = (0..<4).map { randomSeries(symbol: "R\($0)", bars: 300 + 37 * $0, seed: 100 + UInt64($0)) }
        for config in [SignalModelConfig(), Self.smallConfig] {
            let batch = try series.map { try SignalModel.evaluate($0, config: config) }
            let streamed = try interleavedStreaming(series, config: config, seed: 7)
            for s in series.indices {
                #expect(streamed[s] == batch[s], "symbol \(series[s].symbol)")
                #expect(batch[s].contains { !$0.isWarmUp })
            }
        }
    }

    /// No look-ahead: signals on a truncated history equal the prefix of the signals on the full history.
    func expectPrefixInvariance(_ series: OHLCVSeries, config: SignalModelConfig, cuts: [Int]) throws {
        let full = try SignalModel.evaluate(series, config: config)
        for cut in cuts where cut <= series.count {
            let truncated = try SignalModel.evaluate(series.prefix(cut), config: config)
            #expect(truncated == Array(full[0..<cut]), "\(series.symbol) cut at \(cut)")
        }
    }

    @Test func noLookAheadOnRealData() throws {
        let goog = try googSeries()
        try expectPrefixInvariance(goog, config: SignalModelConfig(), cuts: [1, 143, 144, 145, 500, 1001, goog.count - 1])
        try expectPrefixInvariance(goog, config: Self.smallConfig, cuts: [60, 61, 777])
    }

    @Test func noLookAheadOnRandomData() throws {
        for seed in UInt64(1)...3 {
            let series = randomSeries(symbol: "X", bars: 400, seed: seed)
            try expectPrefixInvariance(series, config: Self.smallConfig, cuts: [50, 51, 52, 199, 333])
        }
        for series in try generatedMarket(symbols: 2, bars: 300, seed: 9) {
            try expectPrefixInvariance(series, config: SignalModelConfig(), cuts: [144, 145, 250])
        }
    }

    @Test func noLookAheadOnSampleMarket() throws {
        guard let market = try sampleMarket() else { return }  // Data/market arrives with the data branch
        #expect(market.count == 12)
        for series in market {
            try expectPrefixInvariance(series, config: SignalModelConfig(), cuts: [150, series.count / 2, series.count - 1])
        }
    }

    @Test func futureBarsDoNotChangeThePast() throws {
        // A wild change to the last bar must leave every earlier signal untouched.
        var series = randomSeries(symbol: "Y", bars: 250, seed: 11)
        let before = try SignalModel.evaluate(series, config: Self.smallConfig)
        let last = series.count - 1
        series.close[last] *= 3
        series.high[last] = max(series.high[last], series.close[last])
        series.volume[last] *= 50
        let after = try SignalModel.evaluate(series, config: Self.smallConfig)
        #expect(Array(after[..<last]) == Array(before[..<last]))
        #expect(after[last] != before[last])
    }

    @Test func warmUp() throws {
        let config = SignalModelConfig()
        let series = randomSeries(symbol: "W", bars: config.firstSignalIndex + 10, seed: 5)
        let signals = try SignalModel.evaluate(series, config: config)
        for (i, signal) in signals.enumerated() {
            if i < config.firstSignalIndex {
                #expect(signal.isWarmUp && signal.signalType == .hold && signal.confidence == 0 && signal.aiSignal == 0)
                #expect(signal.barsUntilReady == config.firstSignalIndex - i)
                #expect(signal.targetReturn == 0 && signal.profitTarget == signal.price)
                let reasoning = SignalText.reasoning(for: signal, config: config)
                #expect(reasoning.hasPrefix("Warming up: \(i + 1) of \(config.firstSignalIndex + 1) bars seen"))
            } else {
                #expect(!signal.isWarmUp && signal.barsUntilReady == 0)
                #expect(signal.forecastStandardError > 0)
            }
        }
        // Indicators appear at their own lookbacks, before the model is ready.
        #expect(signals[config.rsiPeriod - 1].rsi.isNaN && !signals[config.rsiPeriod].rsi.isNaN)
        #expect(signals[config.volumeWindow - 2].volumeRatio.isNaN && !signals[config.volumeWindow - 1].volumeRatio.isNaN)
        #expect(signals[config.atrPeriod - 1].stopLoss == 0 && signals[config.atrPeriod].stopLoss < 0)
        #expect(signals[0].change == 0 && signals[0].changePercent == 0)
        #expect(signals[1].change == series.close[1] - series.close[0])
    }

    @Test func invariantsOnGeneratedMarket() throws {
        let config = SignalModelConfig()
        for series in try generatedMarket(symbols: 12, bars: 400, seed: 3) {
            for s in try SignalModel.evaluate(series, config: config) {
                #expect((0...1).contains(s.confidence))
                #expect(s.stopLoss <= 0)
                #expect(abs(s.profitTarget - s.price * (1 + s.targetReturn / 100)) <= 1e-12 * s.price)
                if !s.isWarmUp {
                    #expect(s.aiSignal == s.forecastLogReturn / s.forecastStandardError)
                    let expected = SignalModelState.rule(score: s.aiSignal, fitStrength: s.fitStrength, rsi: s.rsi, config: config)
                    #expect(expected.0 == s.signalType && expected.1 == s.reason)
                }
            }
        }
    }

    @Test func constantVolumeGivesDegenerateFitNotNaN() throws {
        var series = randomSeries(symbol: "C", bars: 300, seed: 21)
        series.volume = [Double](repeating: 1000, count: series.count)  // log volume ratio ≡ 0: collinear with the intercept
        let signals = try SignalModel.evaluate(series, config: SignalModelConfig())
        let after = signals[SignalModelConfig().firstSignalIndex...]
        #expect(after.allSatisfy { $0.reason == .degenerateFit && $0.signalType == .hold && $0.confidence == 0 })
        #expect(SignalText.reasoning(for: after.first!, config: SignalModelConfig()).contains("constant or collinear"))
    }

    @Test func badBarsAreRejectedWithoutChangingState() throws {
        var state = SignalModelState(symbol: "B")
        _ = try state.update(Bar(timestamp: 100, open: 10, high: 11, low: 9, close: 10, volume: 5))
        #expect(throws: SignalInputError.nonIncreasingTimestamp(symbol: "B", barIndex: 1, previous: 100, timestamp: 100)) {
            try state.update(Bar(timestamp: 100, open: 10, high: 11, low: 9, close: 10, volume: 5))
        }
        #expect(throws: SignalInputError.invalidValue(symbol: "B", barIndex: 1, timestamp: 200, field: "close", value: -1)) {
            try state.update(Bar(timestamp: 200, open: 10, high: 11, low: 9, close: -1, volume: 5))
        }
        do {
            _ = try state.update(Bar(timestamp: 200, open: 10, high: 11, low: 9, close: 10, volume: .nan))
            Issue.record("NaN volume accepted")
        } catch {
            #expect(error.description.contains("field 'volume'") && error.description.contains("bar 1"))
        }
        #expect(state.barsSeen == 1)
        let next = try state.update(Bar(timestamp: 200, open: 10, high: 11, low: 9, close: 11, volume: 5))
        #expect(next.barIndex == 1 && next.change == 1)
    }

    @Test func ruleOrder() {
        let c = SignalModelConfig()
        #expect(SignalModelState.rule(score: 3, fitStrength: 0.9, rsi: 75, config: c) == (.sell, .overbought))
        #expect(SignalModelState.rule(score: 3, fitStrength: 0.9, rsi: 50, config: c) == (.buy, .positiveScore))
        #expect(SignalModelState.rule(score: 1, fitStrength: 0.25, rsi: 50, config: c) == (.buy, .positiveScore))
        #expect(SignalModelState.rule(score: 3, fitStrength: 0.2, rsi: 50, config: c) == (.hold, .lowConfidence))
        #expect(SignalModelState.rule(score: -1, fitStrength: 0.1, rsi: 50, config: c) == (.sell, .negativeScore))
        #expect(SignalModelState.rule(score: -2, fitStrength: 0.9, rsi: 30, config: c) == (.hold, .oversoldBlocksSell))
        #expect(SignalModelState.rule(score: 0.99, fitStrength: 0.9, rsi: 50, config: c) == (.hold, .weakScore))
        #expect(SignalModelState.rule(score: -0.99, fitStrength: 0.9, rsi: 50, config: c) == (.hold, .weakScore))
    }
}

/// The live engine's in-place update (`update(_:into:)`, one `Signal` reused for every bar) gives exactly the
/// signals and errors of `update(_:)`, including bars whose quantities overflow (the signal is then unchanged).
@Suite("In-place signal updates")
struct InPlaceSignalUpdateTests {
    @Test func inPlaceUpdateEqualsReturningUpdate() throws {
        var rng = SplitMix64(seed: 2024)
        var errors = 0
        for trial in 0..<24 {
            var series = randomSeries(symbol: "P\(trial)", bars: 420, seed: 500 + UInt64(trial))
            // Volume spikes up to 1e308 (two in one window overflow its sum: errors).
            for _ in 0..<6 {
                let i = Int.random(in: 0..<series.count, using: &rng)
                series.volume[i] = [1e6, 1e150, 1e300, 1e308][Int.random(in: 0..<4, using: &rng)]
            }
            if trial % 3 == 1 {  // two 1e308 volumes in one window: the volume ratio's sum overflows
                let i = Int.random(in: 150..<400, using: &rng)
                series.volume[i] = 1e308
                series.volume[i + 1] = 1e308
            }
            let config = trial.isMultiple(of: 2) ? SignalModelConfig() : SignalModelPropertyTests.smallConfig
            var returning = SignalModelState(symbol: series.symbol, config: config)
            var inPlace = SignalModelState(symbol: series.symbol, config: config)
            var reused: Signal?
            for i in 0..<series.count {
                let bar = series[bar: i]
                let expected = Result { () throws(SignalInputError) -> Signal in try returning.update(bar) }
                guard var signal = reused else {
                    let first = Result { () throws(SignalInputError) -> Signal in try inPlace.update(bar) }
                    #expect(first == expected)
                    reused = try? first.get()
                    continue
                }
                let before = signal
                let outcome = Result { () throws(SignalInputError) in try inPlace.update(bar, into: &signal) }
                switch (expected, outcome) {
                case let (.success(value), .success):
                    #expect(signal == value, "\(series.symbol) bar \(i)")
                case let (.failure(a), .failure(b)):
                    #expect(a == b)
                    #expect(signal == before, "a failed update leaves the signal unchanged")
                    errors += 1
                default:
                    Issue.record("\(series.symbol) bar \(i): \(expected) vs \(outcome)")
                }
                reused = signal
            }
            #expect(returning.barsSeen == inPlace.barsSeen)
        }
        #expect(errors > 0, "the overflow path was exercised")
    }
}

/// The signal model with TA-Lib indicator features (`SignalModelConfig.indicatorFeatures`).
@Suite("Signal model with indicator features")
struct IndicatorFeatureTests {
    static var config: SignalModelConfig {
        var config = SignalModelConfig()
        config.regressionWindow = 30
        config.horizon = 3
        config.indicatorFeatures = ["cci(timeperiod=10)", "stoch_slowd", "obv", "bbands_upperband(timeperiod=12,nbdevup=2.5)/close"]
        return config
    }

    @Test("the text form: parsed, canonical, refused with the reason")
    func textForm() throws {
        let f = try IndicatorFeature(parsing: "MACD_MACDHIST( fastperiod = 8 )")
        #expect(f.function.descriptor.name == "MACD" && f.output == 2 && !f.perClose && f.function.values == [8, 26, 9])
        #expect(f.description == "macd_macdhist(fastperiod=8,slowperiod=26,signalperiod=9)")
        #expect(try IndicatorFeature(parsing: f.description) == f)
        let w = try IndicatorFeature(parsing: "wma/close")
        #expect(w.perClose && w.description == "wma(timeperiod=30)/close")
        #expect(try IndicatorFeature(parsing: "adx").description == "adx(timeperiod=14)")
        for bad in ["rsi2", "adx(timeperiod=1)", "adx(period=3)", "adx(timeperiod=14", "macd", "adx/open", ""] {
            #expect(throws: TAFunctionError.self, "\(bad)") { try IndicatorFeature(parsing: bad) }
        }
        var config = SignalModelConfig()
        config.indicatorFeatures = ["adx", "nope"]
        #expect(throws: SignalConfigError.self) { try config.validate() }
        config.indicatorFeatures = Array(repeating: "adx", count: SignalModelConfig.maximumIndicatorFeatures + 1)
        #expect(throws: SignalConfigError.self) { try config.validate() }
        config.indicatorFeatures = ["adx", "cci"]
        config.regressionWindow = 15  // twice the 8 regression parameters is 16
        #expect(throws: SignalConfigError.self) { try config.validate() }
        config.regressionWindow = 16
        try config.validate()
        #expect(config.regressionParameterCount == 8)
        #expect(config.featureLookback == 27)  // ADX(14)'s lookback, above the built-in 20
    }

    @Test("JSON: absent without features (a default config's bytes are unchanged), round-trips with them")
    func json() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        #expect(!String(decoding: try encoder.encode(SignalModelConfig()), as: UTF8.self).contains("indicatorFeatures"))
        let config = Self.config
        let decoded = try JSONDecoder().decode(SignalModelConfig.self, from: try encoder.encode(config))
        #expect(decoded == config)
        let partial = try JSONDecoder().decode(SignalModelConfig.self, from: Data(#"{"indicatorFeatures": ["adx"]}"#.utf8))
        #expect(partial.indicatorFeatures == ["adx"] && partial.horizon == SignalModelConfig().horizon)
        // A state without features encodes as before (no key); one with features does not encode (not snapshotted).
        #expect(!String(decoding: try encoder.encode(SignalModelState(symbol: "A")), as: UTF8.self).contains("indicators"))
        #expect(throws: EncodingError.self) { try encoder.encode(SignalModelState(symbol: "A", config: config)) }
    }

    @Test("streaming over interleaved symbols = batch; no look-ahead; the features change the forecasts")
    func streamingEqualsBatchAndNoLookAhead() throws {
        let series = (0..<3).map { randomSeries(symbol: "F\($0)", bars: 260 + 41 * $0, seed: 300 + UInt64($0)) }
        let config = Self.config
        let batch = try series.map { try SignalModel.evaluate($0, config: config) }
        let streamed = try interleavedStreaming(series, config: config, seed: 0x7A_FEA7)
        for s in series.indices {
            #expect(streamed[s] == batch[s], "symbol \(series[s].symbol)")
            #expect(batch[s].contains { !$0.isWarmUp })
            #expect(batch[s].firstIndex { !$0.isWarmUp } == config.firstSignalIndex)
            for cut in [config.firstSignalIndex, 200, series[s].count - 7] {
                #expect(try SignalModel.evaluate(series[s].prefix(cut), config: config) == Array(batch[s][0..<cut]))
            }
        }
        var plain = config
        plain.indicatorFeatures = nil
        let without = try SignalModel.evaluate(series[0], config: plain)
        #expect(zip(without, batch[0]).contains { $0.forecastLogReturn != $1.forecastLogReturn })
    }

    @Test("a feature whose value overflows is an error naming the bar; later bars go on")
    func overflowNamesTheBar() throws {
        var config = SignalModelConfig()
        config.regressionWindow = 30
        config.horizon = 2
        config.indicatorFeatures = ["var(timeperiod=5)"]
        var series = randomSeries(symbol: "VAR", bars: 200, seed: 77)
        // A close of 1e200: the built-in features stay finite (log returns, ATR/close), VAR's sum of squares does not.
        series.close[120] = 1e200
        series.high[120] = 1e200
        var state = SignalModelState(symbol: "VAR", config: config)
        var failed: [Int] = []
        for t in 0..<series.count {
            do { _ = try state.update(series[bar: t]) } catch {
                guard case .unrepresentable(_, let bar, _, _) = error else { throw error }
                failed.append(bar)
            }
        }
        #expect(failed.first == 120, "\(failed)")
        #expect(state.barsSeen == series.count)
    }
}
