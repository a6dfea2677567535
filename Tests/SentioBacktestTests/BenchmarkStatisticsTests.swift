import Foundation
import SentioBacktest
import SentioCore
import SentioTestSupport
import Testing

@Suite("Benchmark statistics, rolling risk, drawdown periods")
struct BenchmarkStatisticsTests {
    /// backtesting.py's equity of the GOOG RSI run (the curve quantstats was given) on the GOOG dates.
    func googEquity() throws -> (times: [Int64], equity: [Double], goog: OHLCVSeries) {
        let (goog, _) = try loadGOOG()
        let equity = try loadNumericCSV("backtest/goog_rsi_equity.csv")["equity"]!
        #expect(equity.count == goog.count)
        return (goog.timestamps, equity, goog)
    }

    @Test("alpha, beta, correlation, information ratio, tracking error agree with quantstats 0.0.86 on GOOG")
    func againstQuantstats() throws {
        let (times, equity, goog) = try googEquity()
        let wealth = equity.map { $0 / equity[0] }
        let ref = try loadNumericCSV("backtest/goog_rsi_benchmark.csv")
        let weekly = Array(stride(from: 0, to: goog.count, by: 5))
        let benchmarks = [
            BenchmarkSeries(goog),
            BenchmarkSeries(name: "GOOG-weekly", timestamps: weekly.map { goog.timestamps[$0] }, values: weekly.map { goog.close[$0] }),
        ]
        for (row, benchmark) in benchmarks.enumerated() {
            let s = try BenchmarkStatistics(times: times, wealth: wealth, benchmark: benchmark)
            #expect(s.symbol == benchmark.name)
            #expect(Double(s.commonBars) == ref["commonBars"]![row])
            // Periods per year inferred from the common bars: daily 252, every 5th trading day weekly 52.
            #expect(s.periodsPerYear == ref["periodsPerYear"]![row])
            expectClose(s.beta, ref["beta"]![row], relative: 1e-9, "\(benchmark.name) beta")
            expectClose(s.alpha, ref["alpha"]![row], relative: 1e-9, "\(benchmark.name) alpha")
            expectClose(s.informationRatio!, ref["informationRatio"]![row], relative: 1e-9, "\(benchmark.name) IR")
            expectClose(s.correlation!, ref["correlationPandas"]![row], relative: 1e-9, "\(benchmark.name) correlation")
            // quantstats' r_squared (scipy linregress) is the squared correlation.
            expectClose(s.correlation! * s.correlation!, ref["rSquared"]![row], relative: 1e-9, "\(benchmark.name) r²")
            expectClose(s.trackingErrorPercent, ref["trackingErrorPercentNumpy"]![row], relative: 1e-9)
            expectClose(s.totalReturnPercent, ref["totalReturnPercentQuantstats"]![row], relative: 1e-9)
            expectClose(s.cagrPercent, ref["cagrPercentNumpy"]![row], relative: 1e-9)
        }
    }

    @Test("the simulator's own GOOG RSI run gives the same benchmark statistics as backtesting.py's equity")
    func simulatorRun() throws {
        let (goog, rsi) = try loadGOOG()
        let result = try Backtest(ReferenceTests.configuration)
            .run(RSIStrategy(rsi: fixtureRSIProvider(rsi)), on: Market([goog]))
        let s = try BenchmarkStatistics(result, benchmark: BenchmarkSeries(goog))
        let ref = try loadNumericCSV("backtest/goog_rsi_benchmark.csv")
        expectClose(s.beta, ref["beta"]![0], relative: 1e-9)
        expectClose(s.alpha, ref["alpha"]![0], relative: 1e-9)
        expectClose(s.informationRatio!, ref["informationRatio"]![0], relative: 1e-9)
    }

    @Test("rolling Sharpe and volatility (window 126) agree with quantstats 0.0.86 on GOOG")
    func rollingAgainstQuantstats() throws {
        let (_, equity, _) = try googEquity()
        let returns = (1..<equity.count).map { equity[$0] / equity[$0 - 1] - 1 }
        let risk = RollingRisk(returns: returns, window: 126, periodsPerYear: 252)
        let ref = try loadNumericCSV("backtest/goog_rsi_rolling.csv")
        let sharpe = ref["rollingSharpe126"]!, vol = ref["rollingVolatility126"]!
        #expect(sharpe.count == returns.count)
        var compared = 0
        for k in returns.indices {
            if k < 125 { #expect(risk.volatility[k] == nil && risk.sharpe[k] == nil); continue }
            // pandas' rolling std uses running sums (add the new return, subtract the old): on the windows of exact
            // zeros (no position held) it leaves a residue of 9.0e-9 where the two-pass value is exactly 0. Those
            // windows are checked to be 0 here; every other window to 1e-9 relative.
            if vol[k] < 1e-8 {
                #expect(risk.volatility[k]! == 0 && returns[(k - 125)...k].allSatisfy { $0 == 0 }, "flat window at \(k)")
                continue
            }
            expectClose(risk.volatility[k]!, vol[k], relative: 1e-9, "volatility at \(k)")
            if vol[k] > 1e-6 {
                expectClose(risk.sharpe[k] ?? .nan, sharpe[k], relative: 1e-9, "Sharpe at \(k)")
                compared += 1
            }
        }
        #expect(compared > 1400)  // 1,564 full windows, 155 of them flat
    }

    @Test("benchmark statistics against a naive loop on random series with gaps", arguments: [UInt64(11), 12, 13, 14])
    func naive(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let n = 300
        let times = (0..<n).map { Int64($0) * 86_400 }
        var wealth = [1.0], level = [100.0]
        for _ in 1..<n {
            let b = Double.random(in: -0.03...0.03, using: &rng)
            level.append(level.last! * (1 + b))
            wealth.append(wealth.last! * (1 + 0.5 * b + Double.random(in: -0.01...0.01, using: &rng)))
        }
        // The benchmark misses about a fifth of the strategy's bars and has bars the strategy lacks.
        var bt: [Int64] = [], bv: [Double] = []
        for k in 0..<n where Double.random(in: 0..<1, using: &rng) > 0.2 { bt.append(times[k]); bv.append(level[k]) }
        bt.append(times.last! + 86_400); bv.append(level.last! * 1.5)
        let s = try BenchmarkStatistics(times: times, wealth: wealth, benchmark: BenchmarkSeries(name: "X", timestamps: bt, values: bv), periodsPerYear: 252)
        let common = times.indices.filter { bt.contains(times[$0]) }
        let r = (1..<common.count).map { wealth[common[$0]] / wealth[common[$0 - 1]] - 1 }
        let b = (1..<common.count).map { level[common[$0]] / level[common[$0 - 1]] - 1 }
        let m = Double(r.count)
        let mr = r.reduce(0, +) / m, mb = b.reduce(0, +) / m
        let cov = zip(r, b).map { ($0 - mr) * ($1 - mb) }.reduce(0, +) / (m - 1)
        let vb = b.map { ($0 - mb) * ($0 - mb) }.reduce(0, +) / (m - 1)
        let vr = r.map { ($0 - mr) * ($0 - mr) }.reduce(0, +) / (m - 1)
        let d = zip(r, b).map { $0 - $1 }, md = d.reduce(0, +) / m
        let sd = (d.map { ($0 - md) * ($0 - md) }.reduce(0, +) / (m - 1)).squareRoot()
        #expect(s.commonBars == common.count)
        expectClose(s.beta, cov / vb, relative: 1e-9)
        expectClose(s.alpha, (mr - cov / vb * mb) * 252, relative: 1e-9)
        expectClose(s.correlation!, cov / (vr * vb).squareRoot(), relative: 1e-9)
        expectClose(s.informationRatio!, md / sd, relative: 1e-9)
        expectClose(s.trackingErrorPercent, sd * 252.0.squareRoot() * 100, relative: 1e-9)
        expectClose(s.totalReturnPercent, (level[common.last!] / level[common.first!] - 1) * 100, relative: 1e-9)
        // A benchmark that is the strategy itself: beta 1, alpha 0, no tracking error, no information ratio.
        let same = try BenchmarkStatistics(times: times, wealth: wealth, benchmark: BenchmarkSeries(name: "self", timestamps: times, values: wealth), periodsPerYear: 252)
        expectClose(same.beta, 1, relative: 1e-12)
        #expect(abs(same.alpha) < 1e-12 && same.trackingErrorPercent < 1e-9)
    }

    @Test("no common bars, too few, zero variance, a bad value: typed errors, never numbers")
    func errors() {
        let times: [Int64] = [0, 86_400, 172_800, 259_200]
        let wealth = [1.0, 1.1, 1.05, 1.2]
        #expect(throws: BenchmarkError.tooFewCommonBars(benchmark: "B", common: 0)) {
            try BenchmarkStatistics(times: times, wealth: wealth, benchmark: BenchmarkSeries(name: "B", timestamps: [1, 2, 3], values: [1, 2, 3]))
        }
        #expect(throws: BenchmarkError.tooFewCommonBars(benchmark: "B", common: 2)) {
            try BenchmarkStatistics(times: times, wealth: wealth, benchmark: BenchmarkSeries(name: "B", timestamps: [0, 86_400], values: [1, 2]))
        }
        #expect(throws: BenchmarkError.zeroBenchmarkVariance(benchmark: "B", returns: 3)) {
            try BenchmarkStatistics(times: times, wealth: wealth, benchmark: BenchmarkSeries(name: "B", timestamps: times, values: [5, 5, 5, 5]))
        }
        #expect(throws: BenchmarkError.invalidValue(benchmark: "B", time: 86_400, value: 0)) {
            try BenchmarkStatistics(times: times, wealth: wealth, benchmark: BenchmarkSeries(name: "B", timestamps: times, values: [5, 0, 5, 6]))
        }
        // A flat strategy: beta 0, correlation undefined (nil), not NaN.
        let flat = try? BenchmarkStatistics(times: times, wealth: [1, 1, 1, 1], benchmark: BenchmarkSeries(name: "B", timestamps: times, values: [1, 2, 1, 3]))
        #expect(flat?.beta == 0 && flat?.correlation == nil && flat?.informationRatio != nil)
    }

    @Test("equal-weight index: each symbol 1/N from its first close, last close kept, cash before")
    func equalWeight() {
        let a = OHLCVSeries(symbol: "A", timestamps: [0, 1, 2], open: [1, 1, 1], high: [1, 1, 1], low: [1, 1, 1], close: [10, 20, 30], volume: [1, 1, 1])
        let b = OHLCVSeries(symbol: "B", timestamps: [1, 3], open: [1, 1], high: [1, 1], low: [1, 1], close: [4, 2], volume: [1, 1])
        let index = BenchmarkSeries.equalWeight([a, b], timeline: [0, 1, 2, 3])
        expectClose(index.values, [0.5 * 1 + 0.5, 0.5 * 2 + 0.5, 0.5 * 3 + 0.5, 0.5 * 3 + 0.25], relative: 1e-15)
        #expect(index.name == BenchmarkSeries.equalWeightName)
    }

    @Test("drawdown periods: brute force on random walks; deepest equals the maximum drawdown", arguments: [UInt64(21), 22, 23])
    func drawdowns(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var w = [1.0]
        for _ in 0..<500 { w.append(w.last! * (1 + Double.random(in: -0.02...0.021, using: &rng))) }
        let periods = drawdownPeriods(w)
        #expect(!periods.isEmpty)
        #expect(zip(periods, periods.dropFirst()).allSatisfy { $0.depth <= $1.depth })
        let mdd = maximumDrawdown(equity: w, contributions: w.map { _ in 0 }, timestamps: w.indices.map { Int64($0) })
        expectClose(periods[0].depth, mdd.depth, relative: 1e-12)
        #expect(periods.map(\.lengthSteps).max() == mdd.durationSteps)
        for p in periods {
            let peak = w[p.startStep]
            #expect(w[0...p.startStep].max()! == peak)
            let end = p.recoveryStep ?? (w.count - 1)
            expectClose(p.depth, w[p.startStep...end].min()! / peak - 1, relative: 1e-12)
            #expect(w[p.troughStep] == w[p.startStep...end].min()!)
            if let r = p.recoveryStep {
                #expect(w[r] >= peak && w[(p.startStep + 1)..<r].allSatisfy { $0 < peak })
                #expect(p.lengthSteps == r - p.startStep)
            } else {
                #expect(w[(p.startStep + 1)...].allSatisfy { $0 < peak })
            }
        }
        // Periods do not overlap.
        let spans = periods.map { ($0.startStep, $0.recoveryStep ?? w.count - 1) }.sorted { $0.0 < $1.0 }
        #expect(zip(spans, spans.dropFirst()).allSatisfy { $0.1 <= $1.0 })
    }

    @Test("warnings: commissions above 10 % of capital, more rejections than fills; none for a clean run")
    func warnings() throws {
        let s = dailySeries("A", (0..<60).map { i in let p = 10.0 + Double(i % 7); return (p, p, p, p) })
        var script = [Int: [Int: Decision]]()
        for b in stride(from: 0, to: 58, by: 2) { script[0, default: [:]][b] = .buy(); script[0, default: [:]][b + 1] = .sell }
        let expensive = BacktestConfiguration(costs: TradingCosts(commissionRate: 0.02))
        let r = try Backtest(expensive).run(ScriptedStrategy(script: script), on: Market([s]))
        let st = BacktestStatistics(r, moneyWeightedReturn: referenceXIRR)
        let w = BacktestWarning.of(r, statistics: st)
        #expect(st.commissionsPaid > 0.1 * st.initialCapital)
        #expect(w.map(\.code) == ["commissions-high"])
        let cheap = try Backtest().run(ScriptedStrategy(script: script), on: Market([s]))
        #expect(BacktestWarning.of(cheap, statistics: BacktestStatistics(cheap, moneyWeightedReturn: referenceXIRR)).isEmpty)
        // Buying while holding: every second buy is rejected (position already open), sells of nothing too.
        var noisy = [Int: [Int: Decision]]()
        for b in 0..<58 { noisy[0, default: [:]][b] = b % 10 == 9 ? .sell : .buy() }
        let rr = try Backtest().run(ScriptedStrategy(script: noisy), on: Market([s]))
        let codes = BacktestWarning.of(rr, statistics: BacktestStatistics(rr, moneyWeightedReturn: referenceXIRR)).map(\.code)
        #expect(codes.contains("rejections-exceed-fills"))
    }
}
