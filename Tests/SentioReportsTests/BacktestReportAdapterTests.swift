import Foundation
import Testing
@testable import SentioReports
import SentioBacktest
import SentioCore
import SentioTestSupport

/// Buys every 25th bar with its own stop and target distances (different per symbol) and sells 12 bars later.
private struct PeriodicStrategy: Strategy {
    var name: String { "periodic" }
    mutating func start(symbols: [String]) throws {}
    mutating func observe(symbol: Int, bar: Bar) {}
    mutating func decide(_ context: DecisionContext) -> Decision {
        if !context.isInvested, context.bar % 25 == 3 {
            return .buy(stopLossPercent: 3 + Double(context.symbol), takeProfitPercent: 6 + Double(context.symbol))
        }
        if context.isInvested, context.bar % 25 == 15 { return .sell }
        return .hold
    }
}

@Suite("Backtest report from a SentioBacktest run")
struct BacktestReportAdapterTests {
    static func market(bars: Int = 400) throws -> Market {
        let t0 = CivilDate(iso: "2022-01-03")!.epochSeconds
        var series: [OHLCVSeries] = []
        for (k, symbol) in ["AAA", "B&B"].enumerated() {
            var rng = SplitMix64(seed: UInt64(100 + k))
            var s = OHLCVSeries(symbol: symbol)
            var close = 40.0 + 10 * Double(k)
            for i in 0..<bars {
                let open = close * (1 + 0.004 * rng.nextGaussian())
                close = open * (1 + 0.02 * rng.nextGaussian())
                let high = max(open, close) * (1 + 0.01 * abs(rng.nextGaussian()))
                let low = min(open, close) * (1 - 0.01 * abs(rng.nextGaussian()))
                s.append(timestamp: t0 + Int64(i) * 86_400, open: open, high: high, low: low, close: close, volume: 1e6)
            }
            series.append(s)
        }
        return try Market(series)
    }

    @Test("Shown numbers equal the statistics; series lengths, markers, levels and rows follow the run")
    func report() throws {
        let market = try Self.market()
        let config = BacktestConfiguration(costs: TradingCosts(commissionRate: 0.001), sizing: .equalWeight(maxPositions: 2))
        var recorder = LevelRecordingStrategy(PeriodicStrategy())
        let result = try Backtest(config).run(&recorder, on: market)
        // The wrapper changes nothing in the run.
        let plain = try Backtest(config).run(PeriodicStrategy(), on: market)
        #expect(plain.equity == result.equity && plain.trades == result.trades)

        let statistics = BacktestStatistics(result, moneyWeightedReturn: nil)
        let content = BacktestReportContent(result: result, statistics: statistics, market: market, buyLevels: recorder.buyLevels)
        let html = BacktestReportRenderer().render(content)
        preview(html, "backtest-adapter.html")
        let root = try expectSelfContained(html)

        // Headline figures: the card's exact value is the statistic.
        let expected: [String: Double?] = [
            "finalEquity": statistics.finalEquity, "totalReturnPercent": statistics.totalReturnPercent,
            "cagrPercent": statistics.cagrPercent, "sharpeRatio": statistics.sharpeRatio, "sortinoRatio": statistics.sortinoRatio,
            "maxDrawdownPercent": statistics.maxDrawdownPercent, "tradeCount": Double(statistics.tradeCount),
            "winRatePercent": statistics.winRatePercent, "profitFactor": statistics.profitFactor,
            "exposurePercent": statistics.exposurePercent, "commissionsPaid": statistics.commissionsPaid,
        ]
        for (key, value) in expected {
            let card = try #require(root.all { $0.attributes["data-stat"] == key }.first, "no card \(key)")
            #expect(card.attributes["data-value"] == (value.map(NumberText.exact) ?? "null"), "\(key)")
        }
        let sharpe = try #require(root.all { $0.attributes["data-stat"] == "sharpeRatio" }.first)
        #expect(sharpe.text == NumberText.fixed(statistics.sharpeRatio!, decimals: 2))

        // Equity and benchmark: one vertex per step; the underwater curve bottoms at maxDrawdownPercent.
        let equity = try #require(chart(root, "equity"))
        for (_, path) in seriesPaths(equity) {
            #expect(path.attributes["data-points"] == "\(result.equity.count)")
        }
        let deepest = drawdownPercent(wealthIndex(periodReturns: content.periodReturns)).min()!
        expectClose(deepest, statistics.maxDrawdownPercent, relative: 1e-9, absolute: 1e-9)
        // Benchmark: equal weight, each symbol's close relative to its first.
        let benchmark = try #require(content.benchmark)
        let lastStep = result.timestamps.count - 1
        expectClose(benchmark[lastStep], 50_000 * (market.series[0].close.last! / market.series[0].close[0]
                                                    + market.series[1].close.last! / market.series[1].close[0]), relative: 1e-12)

        // Per symbol: entries and exits, and each closed trade's levels from its decision bar's close.
        for (k, series) in market.series.enumerated() {
            let svg = try #require(chart(root, "price-\(series.symbol)"))
            let closed = result.trades.filter { $0.symbolIndex == k }
            let open = result.openPositions.filter { $0.symbolIndex == k }
            let markers = svg.all { $0.attributes["data-marker"] != nil }
            #expect(markers.filter { $0.attributes["data-marker"] == "entry" }.count == closed.count + open.count)
            #expect(markers.filter { $0.attributes["data-marker"] == "exit" }.count == closed.count)
            let stops = Set(svg.all { $0.attributes["data-level"] == "stop" }.compactMap { $0.attributes["data-value"] })
            let targets = Set(svg.all { $0.attributes["data-level"] == "target" }.compactMap { $0.attributes["data-value"] })
            #expect(!closed.isEmpty)
            for t in closed {
                let decisionClose = series.close[t.entryBar - 1]  // next-open fills: decided one bar before
                #expect(stops.contains(NumberText.exact(decisionClose * (1 - (3 + Double(k)) / 100))))
                #expect(targets.contains(NumberText.exact(decisionClose * (1 + (6 + Double(k)) / 100))))
            }
        }
        let trades = try #require(root.all { $0.attributes["data-table"] == "trades" }.first)
        #expect(trades.attributes["data-rows"] == "\(result.trades.count + result.openPositions.count)")
    }

    @Test("Configured stop and target percentages give the levels when the strategy does not")
    func configuredLevels() throws {
        let market = try Self.market(bars: 200)
        let config = BacktestConfiguration(sizing: .equalWeight(maxPositions: 2), stopLossPercent: 5, takeProfitPercent: 10)
        let result = try Backtest(config).run(RSIStrategy(), on: market)
        let content = BacktestReportContent(result: result, statistics: BacktestStatistics(result, moneyWeightedReturn: nil), market: market)
        #expect(!result.trades.isEmpty)
        for (trade, shown) in zip(result.trades, content.trades) {
            let decisionClose = market.series[trade.symbolIndex].close[trade.entryBar - 1]
            #expect(shown.stopPrice == decisionClose * 0.95)
            #expect(shown.targetPrice == decisionClose * 1.1)
        }
    }

    @Test("DCA: no buy-and-hold benchmark without initial capital; the invested line is capital plus deposits")
    func dollarCostAveraging() throws {
        let market = try Self.market(bars: 120)
        let config = BacktestConfiguration(initialCapital: 0, sizing: .equalWeight(maxPositions: 2), fractionalShares: true)
        let result = try Backtest(config).run(DollarCostAveragingStrategy(amount: 500, every: .month), on: market)
        let content = BacktestReportContent(result: result, statistics: BacktestStatistics(result, moneyWeightedReturn: nil), market: market)
        #expect(content.benchmark == nil)
        let invested = try #require(content.invested)
        #expect(invested.last == result.totalContributions)
        #expect(zip(invested, invested.dropFirst()).allSatisfy { $0 <= $1 })
        let root = try expectSelfContained(BacktestReportRenderer().render(content))
        let equity = try #require(chart(root, "equity"))
        #expect(Set(seriesPaths(equity).keys) == ["Strategy", "Invested (capital + deposits)"])
        #expect(equity.all("title").first?.text == "Equity")
    }
}
