import Foundation
import Testing
@testable import SentioReports
import SentioBacktest
import SentioCore
import SentioTestSupport

/// Buys a symbol every `every` bars (from bar `warmUp` on) with a 2 % stop and a 4 % target, sells `hold` bars later.
struct FrequentStrategy: Strategy {
    var every = 6, hold = 3, warmUp = 30
    var name: String { "frequent" }
    mutating func start(symbols: [String]) throws {}
    mutating func observe(symbol: Int, bar: Bar) {}
    mutating func decide(_ context: DecisionContext) -> Decision {
        guard context.bar >= warmUp else { return .hold }
        if !context.isInvested, context.bar % every == 0 { return .buy(stopLossPercent: 2, takeProfitPercent: 4) }
        if context.isInvested, context.bar % every == hold { return .sell }
        return .hold
    }
}

@Suite("Tearsheet panels: benchmark, drawdown periods, rolling risk, histogram, warm-up, markers")
struct TearsheetTests {
    static func run(bars: Int, strategy: FrequentStrategy = FrequentStrategy()) throws -> (Market, BacktestResult, BacktestStatistics) {
        let market = try BacktestReportAdapterTests.market(bars: bars)
        let config = BacktestConfiguration(costs: TradingCosts(commissionRate: 0.001), sizing: .equalWeight(maxPositions: 2))
        let result = try Backtest(config).run(strategy, on: market)
        return (market, result, BacktestStatistics(result, moneyWeightedReturn: nil))
    }

    @Test("benchmark cards, warnings, worst drawdowns, rolling Sharpe/volatility, histogram and warm-up band match the run")
    func panels() throws {
        let (market, result, statistics) = try Self.run(bars: 400)
        let benchmark = BenchmarkSeries(market.series[0])
        let relative = try BenchmarkStatistics(result, benchmark: benchmark)
        let warnings = [BacktestWarning(code: "x", message: "first warning"), BacktestWarning(code: "y", message: "second")]
        let content = BacktestReportContent(
            result: result, statistics: statistics, market: market, benchmark: benchmark, benchmarkStatistics: relative,
            warnings: warnings, warmUpBars: 30)
        var renderer = BacktestReportRenderer()
        renderer.rollingWindow = 60
        let html = renderer.render(content)
        preview(html, "tearsheet.html")
        let root = try expectSelfContained(html)

        // Benchmark cards carry the exact statistics.
        let cards: [String: Double?] = [
            "benchmark.alpha": relative.alpha * 100, "benchmark.beta": relative.beta, "benchmark.correlation": relative.correlation,
            "benchmark.informationRatio": relative.informationRatio, "benchmark.trackingErrorPercent": relative.trackingErrorPercent,
            "benchmark.totalReturnPercent": relative.totalReturnPercent,
        ]
        for (key, value) in cards {
            let card = try #require(root.all { $0.attributes["data-stat"] == key }.first, "no card \(key)")
            #expect(card.attributes["data-value"] == (value.map(NumberText.exact) ?? "null"), "\(key)")
        }
        // The benchmark line is the given series scaled to the capital: its last point is capital × last/first.
        let line = try #require(content.benchmark)
        expectClose(line.last!, 100_000 * market.series[0].close.last! / market.series[0].close[0], relative: 1e-12)
        #expect(content.benchmarkName == "AAA")

        let box = try #require(root.all { $0.attributes["data-warnings"] != nil }.first)
        #expect(box.attributes["data-warnings"] == "2" && box.all("li").map(\.deepText) == ["first warning", "second"])

        // Worst drawdowns: the library's periods, deepest first; the first row's depth is the maximum drawdown.
        let table = try #require(root.all { $0.attributes["data-table"] == "drawdown-periods" }.first)
        let periods = drawdownPeriods(wealthIndex(periodReturns: content.periodReturns))
        #expect(table.attributes["data-rows"] == "\(min(5, periods.count))")
        let firstRow = try #require(table.all("tbody").first?.all("tr").first)
        let cells = firstRow.all("td").map(\.deepText)
        #expect(cells[1] == timeText(result.timestamps[periods[0].startStep]))
        #expect(cells[2] == timeText(result.timestamps[periods[0].troughStep]))
        #expect(cells[4] == NumberText.percent(statistics.maxDrawdownPercent))
        #expect(cells[5] == "\(periods[0].lengthSteps)")

        // Rolling charts: one point per full 60-return window; titles state the window.
        let returns = result.equity.count - 1
        let sharpe = try #require(chart(root, "rolling-sharpe"))
        let volatility = try #require(chart(root, "rolling-volatility"))
        #expect(sharpe.all("title").first?.text.contains("60 bars") == true)
        #expect(seriesPaths(volatility)["Volatility"]?.attributes["data-points"] == "\(returns - 59)")
        let risk = RollingRisk(returns: Array(content.periodReturns.dropFirst()), window: 60, periodsPerYear: 252)
        #expect(seriesPaths(sharpe)["Sharpe"]?.attributes["data-source-points"] == "\(risk.sharpe.compactMap { $0 }.count)")

        // Histogram: every return counted once, 50 bins.
        let histogram = try #require(chart(root, "return-histogram"))
        #expect(histogram.attributes["data-bins"] == "50")
        let counts = histogram.all { $0.attributes["data-count"] != nil }.compactMap { Int($0.attributes["data-count"]!) }
        #expect(counts.reduce(0, +) == returns && counts.count == 50)

        // Warm-up: shaded from the first step to each symbol's bar 30 (the earliest), labelled, in the legend.
        let equity = try #require(chart(root, "equity"))
        let band = try #require(equity.all { $0.attributes["data-band"] != nil }.first)
        #expect(band.attributes["data-end"] == "\(market.series.map { $0.timestamps[30] }.min()!)")
        #expect(equity.all("text").contains { $0.text == "Warm-up (30 bars)" })
        #expect(!result.trades.isEmpty && result.trades.allSatisfy { $0.entryTime > Int64(band.attributes["data-end"]!)! })
        // The rolling Sharpe starts after the warm-up (first full window at bar 60): no band and no legend entry.
        #expect(sharpe.all { $0.attributes["data-band"] != nil }.isEmpty)
        #expect(!sharpe.all("text").contains { $0.text.hasPrefix("Warm-up") })
    }

    @Test("markers thinned by the lines' columns, hidden count stated; exit colours and legend match", arguments: [UInt64(5), 6])
    func markers(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let strategy = FrequentStrategy(every: 4 + Int(rng.next() % 3), hold: 2, warmUp: 10)
        let (market, result, statistics) = try Self.run(bars: 3000, strategy: strategy)
        let content = BacktestReportContent(result: result, statistics: statistics, market: market)
        var renderer = BacktestReportRenderer()
        renderer.maxPointsPerSeries = 202  // 100 columns
        let root = try expectSelfContained(renderer.render(content))
        for (k, series) in market.series.enumerated() {
            let svg = try #require(chart(root, "price-\(series.symbol)"))
            let group = try #require(svg.all { $0.attributes["class"] == "markers" }.first)
            let drawn = svg.all { $0.attributes["data-marker"] != nil }
            let trades = content.trades.filter { $0.symbol == series.symbol }
            let total = trades.count + trades.filter { $0.exitTime != nil }.count
            #expect(Int(group.attributes["data-count"]!)! == drawn.count)
            #expect(drawn.count + Int(group.attributes["data-hidden"]!)! == total)
            #expect(Int(group.attributes["data-hidden"]!)! > 0)
            // At most one marker per column, kind and colour: 100 columns × (1 entry + 3 exit colours).
            #expect(drawn.count <= 400)
            let caption = root.all { $0.name == "figure" && $0.attributes["data-figure"] == "price-\(series.symbol)" }.first?
                .all("figcaption").map(\.deepText).joined() ?? ""
            #expect(caption.contains("\(NumberText.fixed(Double(total - drawn.count), decimals: 0)) hidden"))
            // Colours: stop-loss exits amber, other exits green with a gain, red with a loss.
            var legendNeeded: Set<String> = ["Entry"]
            for t in result.trades where t.symbolIndex == k {
                legendNeeded.insert(BacktestReportRenderer.exitStyle(reason: t.exitReason.rawValue, pnl: t.pnl).legend)
            }
            let legend = Set(svg.all { $0.attributes["class"] == "legend" }.first!.all("text").map(\.text))
            #expect(legendNeeded.isSubset(of: legend))
            #expect(legend.contains("Stop-loss exit") == result.trades.contains { $0.symbolIndex == k && $0.exitReason == .stopLoss })
            for m in drawn where m.attributes["data-marker"] == "exit" {
                #expect(["marker positive", "marker negative", "marker warning"].contains(m.attributes["class"]!))
            }
        }
        #expect(BacktestReportRenderer.exitStyle(reason: "stop-loss", pnl: 5).tone == .warning)
        #expect(BacktestReportRenderer.exitStyle(reason: "signal", pnl: -1).tone == .negative)
        #expect(BacktestReportRenderer.exitStyle(reason: "take-profit", pnl: 1).tone == .positive)
    }

    @Test("histogram: counts add up, edges cover min and max, a constant series gets one finite bin")
    func histogram() {
        var rng = SplitMix64(seed: 77)
        let values = (0..<1000).map { _ in rng.nextGaussian() } + [.nan]
        let h = Histogram(values, bins: 20)
        #expect(h.counts.reduce(0, +) == 1000 && h.skipped == 1)
        #expect(h.edges.first == values.filter(\.isFinite).min() && h.edges.last == values.filter(\.isFinite).max())
        for (k, count) in h.counts.enumerated() {
            let inside = values.filter { $0.isFinite && $0 >= h.edges[k] && (k == 19 ? $0 <= h.edges[k + 1] : $0 < h.edges[k + 1]) }.count
            #expect(count == inside)
        }
        #expect(Histogram([2, 2, 2], bins: 5).counts.reduce(0, +) == 3)
        #expect(Histogram([], bins: 5).counts.isEmpty)
    }
}
