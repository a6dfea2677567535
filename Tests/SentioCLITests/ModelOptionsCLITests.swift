import Foundation
import Sentio
import SentioAPI
import SentioTestSupport
import Testing

/// The signal model's parameters are options of `sentio backtest` and `sentio live` (as of `sentio signals`): the
/// flags and a `--config` file give the same model, the model is recorded, and live runs the backtest's model.
@Suite("signal model options on backtest and live")
struct ModelOptionsCLITests {
    static let flags = ["--horizon", "3", "--window", "40", "--buy-threshold", "0.5", "--rsi-period", "9"]
    static var model: SignalModelConfig {
        var model = SignalModelConfig()
        model.horizon = 3
        model.regressionWindow = 40
        model.buyScoreThreshold = 0.5
        model.rsiPeriod = 9
        return model
    }

    /// Flags and an equivalent config file give the same summary; it records the model, and it is the library's
    /// backtest with that model (trade count and final equity), not the default model's.
    @Test func backtestRunsTheGivenModel() async throws {
        let dir = try temporaryDirectory("model-options")
        let data = dir.appendingPathComponent("data").path
        let generated = try await runSentio(["generate", "--symbols", "3", "--bars", "400", "--seed", "11", "--out", data])
        #expect(generated.status == 0, "\(generated.stderr)")
        let viaFlags = try await runSentio(["backtest", data, "--format", "json"] + Self.flags)
        #expect(viaFlags.status == 0, "\(viaFlags.stderr)")
        let file = dir.appendingPathComponent("model.json")
        try #"{"horizon": 3, "regressionWindow": 40, "buyScoreThreshold": 0.5, "rsiPeriod": 9}"#.write(to: file, atomically: true, encoding: .utf8)
        let viaFile = try await runSentio(["backtest", data, "--format", "json", "--config", file.path])
        #expect(viaFile.status == 0, "\(viaFile.stderr)")
        #expect(viaFlags.stdout == viaFile.stdout)
        // A flag overrides the file.
        let overridden = try await runSentio(["backtest", data, "--format", "json", "--config", file.path, "--horizon", "4"])
        let overriddenModel = try #require(try BacktestCLITests.json(overridden.stdout)["config"] as? [String: Any])["signalModel"] as? [String: Any]
        #expect(overriddenModel?["horizon"] as? Int == 4 && overriddenModel?["regressionWindow"] as? Int == 40)

        let summary = try BacktestCLITests.json(viaFlags.stdout)
        let recorded = try #require((summary["config"] as? [String: Any])?["signalModel"] as? [String: Any])
        #expect(recorded["horizon"] as? Int == 3 && recorded["regressionWindow"] as? Int == 40)
        #expect(recorded["buyScoreThreshold"] as? Double == 0.5 && recorded["rsiPeriod"] as? Int == 9)

        let market = try Market(try OHLCVReader.readDirectory(data))
        let configuration = BacktestRequest().configuration(symbolCount: market.series.count)
        let given = try Backtest(configuration).run(try SignalStrategy.sentio(config: Self.model), on: market)
        let defaults = try Backtest(configuration).run(try SignalStrategy.sentio(config: SignalModelConfig()), on: market)
        #expect(given.trades.count != defaults.trades.count || given.finalEquity != defaults.finalEquity,
                "the test model must trade differently from the default one")
        #expect(summary["tradeCount"] as? Int == given.trades.count)
        #expect(summary["finalEquity"] as? Double == given.finalEquity)
    }

    /// An out-of-range model parameter is an error naming it (exit 2), before any output.
    @Test func invalidModelParameterIsAnError() async throws {
        let run = try await runSentio(["backtest", "--window", "3"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("regressionWindow") && run.stderr.contains("at least 12"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// `sentio live` with model flags ends where the backtest with that model ends; continuing the session with
    /// another model is an error that names the parameter.
    @Test func liveRunsTheGivenModelAndRemembersIt() async throws {
        let generated = try await runSentio(["generate", "--symbols", "2", "--bars", "300", "--freq", "minute", "--seed", "5", "--format", "ndjson"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let series = try MarketGenerator(config: MarketConfig(
            symbols: MarketConfig.firstSymbols(2), bars: 300, frequency: .minute, seed: 5,
            start: CivilDate(iso: "2023-01-02")!)).generate()
        let db = try temporaryDirectory("model-options-live").appendingPathComponent("s.sqlite").path
        let symbols = series.map(\.symbol).joined(separator: ",")
        let live = try await runLive(["live", "--db", db, "--symbols", symbols, "--step-timeout", "0"] + Self.flags, input: generated.stdout)
        #expect(live.status == 0, "\(live.stderr)")
        let result = try Backtest(BacktestRequest().configuration(symbolCount: 2)).run(
            try SignalStrategy.sentio(config: Self.model), on: try Market(series))
        let portfolio = try await runSentio(["live", "show", "portfolio", "--db", db])
        #expect(portfolio.stdout == (try APIJSON.encode(BacktestContracts.portfolio(result, recentTrades: 10, exchangeTimeZone: .newYork))))

        let other = try await runLive(["live", "--db", db, "--symbols", symbols, "--step-timeout", "0", "--horizon", "4"], input: "")
        #expect(other.status == 2)
        #expect(other.stderr.contains("horizon") && other.stderr.contains("--reset"), "\(other.stderr)")
    }
}
