import SentioBacktest
import SentioCore
import SentioSignals
@testable import SentioSweep
import Testing

/// The grid's requests built by SentioSweep alone (no command line), and run.
@Suite("Sweep requests")
struct SweepRequestBuilderTests {
    /// Combination count and order (last parameter fastest), one combination's resolved settings, and the run of
    /// the whole grid: a sweep needs no front end.
    @Test func buildsAndRunsAGridWithoutTheCommandLine() throws {
        let grid = try SweepGrid.parse("rsi-period=5,9;rsi-lower=20,30;stop-loss=2:4:2")
        let base = BacktestRequest(strategy: .rsi, commissionRate: 0.002, rsiUpper: 75)
        let builder = try SweepRequestBuilder(base: base, grid: grid)
        let jobs = try builder.jobs(shard: nil)
        #expect(jobs.count == 8)
        #expect(jobs.map(\.index) == Array(0..<8))
        #expect(jobs.map { $0.parameters.values.map(\.value) } == [
            ["5", "20", "2"], ["5", "20", "4"], ["5", "30", "2"], ["5", "30", "4"],
            ["9", "20", "2"], ["9", "20", "4"], ["9", "30", "2"], ["9", "30", "4"],
        ])
        // Combination 5: rsi-period 9, rsi-lower 20, stop-loss 4; everything else the base's.
        let five = jobs[5].request
        #expect(five == BacktestRequest(strategy: .rsi, commissionRate: 0.002, stopLossPercent: 4, rsiPeriod: 9, rsiLower: 20, rsiUpper: 75))
        #expect(five.resolvedRSI.period == 9 && five.resolvedRSI.lower == 20 && five.resolvedRSI.upper == 75)
        let configuration = five.configuration(symbolCount: 2)
        #expect(configuration.stopLossPercent == 4 && configuration.costs.commissionRate == 0.002 && configuration.initialCapital == 100_000)
        #expect(try builder.request(5) == five)

        let market = try randomMarket(symbols: 2, bars: 220, seed: 41)
        let sweep = Sweep(grid: grid, metric: .sharpe, shard: nil, strategy: "rsi", options: [], source: BacktestDataSource(), jobs: jobs)
        let output = try sweep.run(on: market, runner: SweepRunner(threads: 2))
        #expect(output.rows.count == 8 && output.combinations == 8)
        #expect(Set(output.rows.map(\.index)) == Set(0..<8))
        // Each row is the plain backtest of its request.
        let row = try #require(output.rows.first { $0.index == 5 })
        let result = try Backtest(configuration).run(try five.makeStrategy(), on: market)
        let universe = BenchmarkSeries.equalWeight(market.series, timeline: market.timeline)
        #expect(try reportedStatistics(result, five, benchmark: .standard(universe)) == row.statistics)
        #expect(row.statistics.benchmark?.symbol == BenchmarkSeries.equalWeightName)
        // A shard keeps its combinations only.
        #expect(try builder.jobs(shard: SweepShard(parsing: "2/3")).map(\.index) == [1, 4, 7])
    }

    /// The signal model's parameters go into the model; `rsi-period` is both the request's and the model's.
    @Test func modelParametersSetTheSignalModel() throws {
        var model = SignalModelConfig()
        model.regressionWindow = 60
        let base = BacktestRequest(strategy: .sentio, signalModel: model)
        let builder = try SweepRequestBuilder(base: base, grid: try SweepGrid.parse("horizon=3,5;rsi-period=10;overlap-correction=false"))
        let request = try builder.request(1)
        var expected = model
        expected.horizon = 5
        expected.rsiPeriod = 10
        expected.overlapCorrection = false
        #expect(request.signalModel == expected)
        #expect(request.rsiPeriod == 10)
    }

    /// Invalid combinations are named, with what is wrong; unknown names are grid errors.
    @Test func invalidCombinationsAreNamed() throws {
        func message(_ base: BacktestRequest, _ grid: String) throws -> String? {
            do {
                _ = try SweepRequestBuilder(base: base, grid: try SweepGrid.parse(grid)).jobs(shard: nil)
                return nil
            } catch {
                return "\(error)"
            }
        }
        let rsi = BacktestRequest(strategy: .rsi)
        #expect(try message(rsi, "rsi-lower=40,75;rsi-upper=70,80")
            == "combination 2 (rsi-lower=75, rsi-upper=70) is invalid: rsi-lower must be below rsi-upper, both in [0, 100]; got 75.0 and 70.0")
        #expect(try message(rsi, "stop-loss=5,150")
            == "combination 1 (stop-loss=150) is invalid: stop-loss must be a percent in (0, 100), got 150.0")
        #expect(try message(rsi, "rsi-period=7,x") == "combination 1 (rsi-period=x) is invalid: rsi-period: 'x' is not an integer")
        #expect(try message(rsi, "fill=close,later")?.hasPrefix("combination 1 (fill=later) is invalid: fill: 'later' is not one of next-open, close") == true)
        #expect(try message(rsi, "horizon=3") == "combination 0 (horizon=3) is invalid: horizon applies to strategy sentio only (signal model parameters)")
        #expect(try message(BacktestRequest(strategy: .sentio), "window=60,3")?.hasPrefix("combination 1 (window=3) is invalid: ") == true)
        #expect(try message(rsi, "sizing=fraction;fraction=0.5") == nil)
        #expect(try message(rsi, "fraction=0.5")?.hasSuffix("fraction needs sizing fraction") == true)
        #expect(try message(BacktestRequest(strategy: .dca), "stop-loss=5")?.contains("do not apply to strategy dca") == true)
        #expect(throws: SweepGridError.self) { try SweepRequestBuilder(base: rsi, grid: try SweepGrid.parse("rsi-perod=7")) }
        #expect(SweepRequestBuilder.settingNames.contains("rsi-period") && !SweepRequestBuilder.settingNames.contains("format"))
    }

    /// `ta-cross` rules and the rule's function's parameters (`adx.timeperiod`) are grid settings; each row is the
    /// plain backtest of its request.
    @Test func taCrossRulesAndFunctionParameters() throws {
        let grid = try SweepGrid.parse("ta-cross=adx>20,adx>25;adx.timeperiod=10,14")
        let builder = try SweepRequestBuilder(base: BacktestRequest(strategy: .taCross), grid: grid)
        let jobs = try builder.jobs(shard: nil)
        #expect(jobs.count == 4)
        let three = jobs[3].request
        #expect(three.strategySpec.description == "ta-cross ta-cross.rule=adx>25 ta-cross.parameters=timeperiod=14")
        #expect(jobs[0].request.strategySpec.description == "ta-cross ta-cross.rule=adx>20 ta-cross.parameters=timeperiod=10")

        let market = try randomMarket(symbols: 2, bars: 220, seed: 43)
        let sweep = Sweep(grid: grid, metric: .sharpe, shard: nil, strategy: "ta-cross", options: [], source: BacktestDataSource(), jobs: jobs)
        let output = try sweep.run(on: market, runner: SweepRunner(threads: 2))
        let row = try #require(output.rows.first { $0.index == 3 })
        let result = try Backtest(three.configuration(symbolCount: 2)).run(try three.makeStrategy(), on: market)
        let universe = BenchmarkSeries.equalWeight(market.series, timeline: market.timeline)
        #expect(try reportedStatistics(result, three, benchmark: .standard(universe)) == row.statistics)
        #expect(result.trades.count > 0, "the rule should trade on 220 bars")

        func message(_ grid: String) -> String? {
            do { _ = try SweepRequestBuilder(base: BacktestRequest(strategy: .taCross), grid: try SweepGrid.parse(grid)).jobs(shard: nil); return nil }
            catch { return "\(error)" }
        }
        #expect(message("ta-cross=adx>25;macd.fastperiod=8")
            == "combination 0 (ta-cross=adx>25, macd.fastperiod=8) is invalid: ta-cross: macd.fastperiod=8 sets MACD, not the rule's function ADX")
        #expect(message("ta-cross=adx>25;adx.timeperiod=1")?.hasSuffix("ta-cross: ADX.timeperiod must be from 2 to 100000, got 1.0") == true)
        #expect(message("adx.period=10")?.contains("is not a backtest option") == true)
    }
}
