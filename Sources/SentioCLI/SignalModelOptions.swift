import ArgumentParser
import Foundation
import Sentio

/// The Sentio signal model's parameters as command-line options, shared by `signals`, `backtest`, `live` and
/// `serve`; each overrides the config file, which overrides the defaults (`SignalModelConfig`).
///
/// `--rsi-period` is also the RSI period of `--strategy rsi` (one option, one meaning: the Wilder RSI period).
struct SignalModelOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Model parameters from a JSON file (keys as in the history's \"config\"; missing keys keep their defaults). Flags below override it.", valueName: "FILE.json"))
    var config: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Forecast horizon h in bars: the target is the log return over the next h bars (default: 5).", valueName: "N"))
    var horizon: Int?

    @Option(name: .customLong("window"), parsing: .unconditional, help: ArgumentHelp("Regression window W: (feature, target) pairs per fit (default: 120).", valueName: "N"))
    var regressionWindow: Int?

    @Option(name: .customLong("reseed-interval"), parsing: .unconditional, help: ArgumentHelp("Regression updates between exact re-computations of the window moments (default: 1000).", valueName: "N"))
    var regressionReseedInterval: Int?

    @Option(name: .customLong("short-momentum"), parsing: .unconditional, help: ArgumentHelp("Short momentum lookback s in bars: feature ln(C[t]/C[t-s]) (default: 5).", valueName: "N"))
    var shortMomentumPeriod: Int?

    @Option(name: .customLong("medium-momentum"), parsing: .unconditional, help: ArgumentHelp("Medium momentum lookback m > s in bars: feature ln(C[t]/C[t-m]) (default: 20).", valueName: "N"))
    var mediumMomentumPeriod: Int?

    @Option(name: .customLong("rsi-period"), parsing: .unconditional, help: ArgumentHelp("Wilder RSI period in bars (default: 14).", valueName: "N"))
    var rsiPeriod: Int?

    @Option(name: .customLong("volume-window"), parsing: .unconditional, help: ArgumentHelp("Volume-ratio window in bars, current bar included (default: 20).", valueName: "N"))
    var volumeWindow: Int?

    @Option(name: .customLong("atr-period"), parsing: .unconditional, help: ArgumentHelp("Wilder ATR period in bars (default: 14).", valueName: "N"))
    var atrPeriod: Int?

    @Option(name: .customLong("buy-threshold"), parsing: .unconditional, help: ArgumentHelp("BUY needs aiSignal >= this score (a t-statistic-like score, not a percent; default: 1.0).", valueName: "Z"))
    var buyScoreThreshold: Double?

    @Option(name: .customLong("sell-threshold"), parsing: .unconditional, help: ArgumentHelp("SELL when aiSignal <= minus this score (a t-statistic-like score, not a percent; default: 1.0).", valueName: "Z"))
    var sellScoreThreshold: Double?

    @Option(name: .customLong("min-confidence"), parsing: .unconditional, help: ArgumentHelp("BUY needs confidence >= this (fraction, 0.25 = 25%; default: 0.25).", valueName: "P"))
    var minimumConfidence: Double?

    @Option(name: .customLong("rsi-overbought"), parsing: .unconditional, help: ArgumentHelp("RSI at or above this blocks BUY and triggers SELL (RSI points, 0 to 100; default: 70).", valueName: "RSI"))
    var rsiOverbought: Double?

    @Option(name: .customLong("rsi-oversold"), parsing: .unconditional, help: ArgumentHelp("RSI at or below this blocks a score SELL; 0 disables (RSI points, 0 to 100; default: 30).", valueName: "RSI"))
    var rsiOversold: Double?

    @Option(name: .customLong("stop-atr-multiple"), parsing: .unconditional, help: ArgumentHelp("Stop loss in percent = -K x ATR/price x 100 (K in multiples of the ATR; default: 1.5).", valueName: "K"))
    var stopLossATRMultiple: Double?

    @Option(name: .customLong("overlap-correction"), help: ArgumentHelp("Inflate the forecast's standard error by sqrt(h) for overlapping targets: true or false (default: true).", valueName: "BOOL"))
    var overlapCorrection: Bool?

    @Option(name: .customLong("strong-confidence"), parsing: .unconditional, help: ArgumentHelp("Confidence from which the text says Strong/High (fraction, 0.6 = 60%; default: 0.6).", valueName: "P"))
    var strongConfidence: Double?

    @Option(name: .customLong("moderate-confidence"), parsing: .unconditional, help: ArgumentHelp("Confidence from which the text says Moderate (fraction, 0.35 = 35%; default: 0.35).", valueName: "P"))
    var moderateConfidence: Double?

    @Option(name: .customLong("ta-feature"), help: ArgumentHelp("An extra regressor from a TA-Lib function (repeatable, up to 16): a column as sentio indicators names it, optional parameters in parentheses, optional /close to divide by the close: adx, macd_macdhist(fastperiod=8), wma(timeperiod=50)/close. Replaces the config file's indicatorFeatures.", valueName: "FEATURE"))
    var indicatorFeatures: [String] = []

    /// The model options given on the command line other than `--rsi-period` (which `--strategy rsi` shares), as
    /// their flag names; for "applies to --strategy sentio only" messages.
    var modelOnlyFlagsGiven: [String] {
        let given: [(String, Bool)] = [
            ("--config", config != nil), ("--horizon", horizon != nil), ("--window", regressionWindow != nil),
            ("--reseed-interval", regressionReseedInterval != nil), ("--short-momentum", shortMomentumPeriod != nil),
            ("--medium-momentum", mediumMomentumPeriod != nil), ("--volume-window", volumeWindow != nil),
            ("--atr-period", atrPeriod != nil), ("--buy-threshold", buyScoreThreshold != nil),
            ("--sell-threshold", sellScoreThreshold != nil), ("--min-confidence", minimumConfidence != nil),
            ("--rsi-overbought", rsiOverbought != nil), ("--rsi-oversold", rsiOversold != nil),
            ("--stop-atr-multiple", stopLossATRMultiple != nil), ("--overlap-correction", overlapCorrection != nil),
            ("--strong-confidence", strongConfidence != nil), ("--moderate-confidence", moderateConfidence != nil),
            ("--ta-feature", !indicatorFeatures.isEmpty),
        ]
        return given.filter(\.1).map(\.0)
    }

    /// Defaults, then the config file, then the flags; validated.
    func resolve() throws -> SignalModelConfig {
        var model = SignalModelConfig()
        if let config {
            model = try Self.load(config)
        }
        if let horizon { model.horizon = horizon }
        if let regressionWindow { model.regressionWindow = regressionWindow }
        if let regressionReseedInterval { model.regressionReseedInterval = regressionReseedInterval }
        if let shortMomentumPeriod { model.shortMomentumPeriod = shortMomentumPeriod }
        if let mediumMomentumPeriod { model.mediumMomentumPeriod = mediumMomentumPeriod }
        if let rsiPeriod { model.rsiPeriod = rsiPeriod }
        if let volumeWindow { model.volumeWindow = volumeWindow }
        if let atrPeriod { model.atrPeriod = atrPeriod }
        if let buyScoreThreshold { model.buyScoreThreshold = buyScoreThreshold }
        if let sellScoreThreshold { model.sellScoreThreshold = sellScoreThreshold }
        if let minimumConfidence { model.minimumConfidence = minimumConfidence }
        if let rsiOverbought { model.rsiOverbought = rsiOverbought }
        if let rsiOversold { model.rsiOversold = rsiOversold }
        if let stopLossATRMultiple { model.stopLossATRMultiple = stopLossATRMultiple }
        if let overlapCorrection { model.overlapCorrection = overlapCorrection }
        if let strongConfidence { model.strongConfidence = strongConfidence }
        if let moderateConfidence { model.moderateConfidence = moderateConfidence }
        if !indicatorFeatures.isEmpty { model.indicatorFeatures = indicatorFeatures }
        try model.validate()
        return model
    }

    /// Reads a (possibly partial) config file; errors name the file and the offending key.
    static func load(_ path: String) throws -> SignalModelConfig {
        let data = Data(try TextFile.read(path).utf8)
        do {
            return try JSONDecoder().decode(SignalModelConfig.self, from: data)
        } catch let error as DecodingError {
            throw UsageError("\(path): invalid model config: \(describe(error))")
        } catch {
            throw UsageError("\(path): invalid model config: \(error)")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "top level" : "key '" + keys.map(\.stringValue).joined(separator: ".") + "'"
        }
        switch error {
        case let .typeMismatch(type, context):
            return "\(path(context.codingPath)): expected \(type)"
        case let .valueNotFound(type, context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case let .keyNotFound(key, _):
            return "missing key '\(key.stringValue)'"
        case let .dataCorrupted(context):
            if let underlying = context.underlyingError { return "not valid JSON (\(underlying.localizedDescription))" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
