import Foundation
import Testing
@testable import SentioReports
import SentioCore
import SentioTestSupport

/// Writes a rendered page to `$SENTIO_REPORTS_PREVIEW_DIR` when set (for looking at it in a browser).
func preview(_ html: String, _ name: String) {
    if let dir = ProcessInfo.processInfo.environment["SENTIO_REPORTS_PREVIEW_DIR"] {
        try? html.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
    }
}

/// Checks shared by every report: well-formed, self-contained, no scripts.
func expectSelfContained(_ html: String) throws -> XMLNode {
    let root = try parseXML(html)
    #expect(root.all("script").isEmpty)
    #expect(root.all("link").isEmpty)
    #expect(root.all("img").isEmpty)
    #expect(root.all { $0.attributes["src"] != nil || $0.attributes["href"] != nil }.isEmpty)
    #expect(!html.contains("@import") && !html.contains("url("))
    #expect(html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").range(of: "http") == nil)
    return root
}

func chart(_ root: XMLNode, _ id: String) -> XMLNode? { root.all { $0.name == "svg" && $0.attributes["data-chart"] == id }.first }

func seriesPaths(_ svg: XMLNode) -> [String: XMLNode] {
    Dictionary(uniqueKeysWithValues: svg.all { $0.attributes["data-series"] != nil }.map { ($0.attributes["data-series"]!, $0) })
}

@Suite("Report pages from plain content")
struct ReportPageTests {
    static func walk(_ n: Int, seed: UInt64, start: Double) -> [Double] {
        var rng = SplitMix64(seed: seed)
        var v = start
        return (0..<n).map { _ in v *= 1 + 0.015 * rng.nextGaussian(); return v }
    }

    static func backtestContent(bars n: Int = 300) -> BacktestReportContent {
        let t0 = CivilDate(iso: "2023-01-02")!.epochSeconds
        let times = (0..<n).map { t0 + Int64($0) * 86_400 }
        var prices: [OHLCVSeries] = []
        for (k, symbol) in ["A&B", "<XYZ>"].enumerated() {
            var s = OHLCVSeries(symbol: symbol)
            for (t, c) in zip(times, walk(n, seed: UInt64(k + 1), start: 50)) {
                s.append(timestamp: t, open: c, high: c * 1.01, low: c * 0.99, close: c, volume: 1000)
            }
            prices.append(s)
        }
        let equity = walk(n, seed: 9, start: 100_000)
        var returns = [equity[0] / 100_000 - 1]
        for i in 1..<n { returns.append(equity[i] / equity[i - 1] - 1) }
        let trades = [
            BacktestReportContent.Trade(symbol: "A&B", entryTime: times[10], entryPrice: prices[0].close[10], exitTime: times[40],
                                        exitPrice: prices[0].close[40], shares: 100, pnl: 120.5, pnlPercent: 2.4, exitReason: "signal",
                                        stopPrice: prices[0].close[10] * 0.95, targetPrice: prices[0].close[10] * 1.1),
            BacktestReportContent.Trade(symbol: "A&B", entryTime: times[100], entryPrice: prices[0].close[100], exitTime: times[130],
                                        exitPrice: prices[0].close[130], shares: 80, pnl: -50, pnlPercent: -1.2, exitReason: "stop-loss",
                                        stopPrice: prices[0].close[100] * 0.95),
            BacktestReportContent.Trade(symbol: "<XYZ>", entryTime: times[200], entryPrice: prices[1].close[200], exitTime: nil,
                                        exitPrice: nil, shares: 10, pnl: 3, pnlPercent: 0.5, exitReason: "open"),
        ]
        let headline = [
            Statistic(key: "totalReturnPercent", label: "Total return", value: 100 * (equity.last! / 100_000 - 1), signed: true) { NumberText.percent($0) },
            Statistic(key: "sharpeRatio", label: "Sharpe", value: 0.8123456) { NumberText.fixed($0, decimals: 2) },
            Statistic(key: "profitFactor", label: "Profit factor", value: nil) { NumberText.fixed($0, decimals: 2) },
        ]
        let benchmark = equalWeightBuyAndHold(series: prices, timeline: times, initialCapital: 100_000)
        return BacktestReportContent(title: "Backtest <rsi> & co", subtitle: "two symbols", headline: headline,
                                     conventions: "252 periods per year", times: times, equity: equity, periodReturns: returns,
                                     benchmarkName: "Buy & hold (equal weight)", benchmark: benchmark, prices: prices, trades: trades)
    }

    @Test("Backtest page: well-formed, self-contained, charts carry their series, markers, levels and tables")
    func backtestPage() throws {
        let content = Self.backtestContent()
        let html = BacktestReportRenderer().render(content)
        preview(html, "backtest-plain.html")
        let root = try expectSelfContained(html)
        #expect(root.all("title").first?.text == "Backtest <rsi> & co")

        // Headline: the shown numbers are the given statistics.
        let cards = root.all { $0.attributes["data-stat"] != nil }
        #expect(cards.count == 3)
        for stat in content.headline {
            let card = try #require(cards.first { $0.attributes["data-stat"] == stat.key })
            #expect(card.text == stat.text)
            #expect(card.attributes["data-value"] == (stat.value.map(NumberText.exact) ?? "null"))
        }
        #expect(cards.first { $0.attributes["data-stat"] == "profitFactor" }?.text == "—")

        // Equity vs benchmark.
        let equity = try #require(chart(root, "equity"))
        let paths = seriesPaths(equity)
        #expect(Set(paths.keys) == ["Strategy", "Buy & hold (equal weight)"])
        for (_, p) in paths {
            #expect(p.attributes["data-points"] == "300")
            #expect(vertexCount(ofPath: p.attributes["d"]!) == 300)
        }
        // Drawdown: area plus line; the deepest vertex is the deepest drawdown.
        let drawdown = try #require(chart(root, "drawdown"))
        #expect(seriesPaths(drawdown)["Strategy"]?.attributes["data-points"] == "300")
        #expect(drawdown.all { $0.attributes["class"]?.hasPrefix("area") == true }.count == 1)

        // Per symbol: price line, entries and exits, stop/target levels.
        let ab = try #require(chart(root, "price-A&B"))
        let markers = ab.all { $0.attributes["data-marker"] != nil }
        #expect(markers.filter { $0.attributes["data-marker"] == "entry" }.count == 2)
        #expect(markers.filter { $0.attributes["data-marker"] == "exit" }.count == 2)
        #expect(markers.contains { $0.attributes["data-time"] == "\(content.times[40])" && $0.attributes["data-value"] == NumberText.exact(content.trades[0].exitPrice!) })
        let levels = ab.all { $0.attributes["data-level"] != nil }
        #expect(levels.map { $0.attributes["data-level"]! }.sorted() == ["stop", "stop", "target"])
        let xyz = try #require(chart(root, "price-<XYZ>"))
        #expect(xyz.all { $0.attributes["data-marker"] != nil }.count == 1)  // still open: entry only

        // Trade table and monthly returns.
        let trades = try #require(root.all { $0.attributes["data-table"] == "trades" }.first)
        #expect(trades.attributes["data-rows"] == "3")
        #expect(trades.all("tr").count == 4)
        let monthly = try #require(root.all { $0.attributes["data-table"] == "monthly-returns" }.first)
        let expectedMonths = Self.monthEndReturns(times: content.times, equity: content.equity, initial: 100_000)
        let cells = monthly.all("td").compactMap { $0.attributes["data-value"].flatMap(Double.init) }
        // 13 values per full year row are month + year; compare the month cells in order.
        let monthCells = monthly.all("tr").dropFirst().flatMap { row in
            row.all("td").dropFirst().dropLast().compactMap { $0.attributes["data-value"].flatMap(Double.init) }
        }
        #expect(monthCells.count == expectedMonths.count)
        expectClose(monthCells, expectedMonths, relative: 1e-9, absolute: 1e-9)
        #expect(cells.count == expectedMonths.count + 1)  // plus the year total (all in 2023)
    }

    /// Independent monthly returns: equity at each month's last bar over the previous month's (initial capital first).
    static func monthEndReturns(times: [Int64], equity: [Double], initial: Double) -> [Double] {
        var out: [Double] = []
        var previous = initial
        for i in times.indices {
            let d = CivilDate(epochSeconds: times[i])
            let last = i == times.count - 1 || CivilDate(epochSeconds: times[i + 1]).month != d.month
            if last { out.append(100 * (equity[i] / previous - 1)); previous = equity[i] }
        }
        return out
    }

    @Test("Drawdown and equal-weight buy-and-hold on hand-checked numbers")
    func performanceSeries() throws {
        expectClose(drawdownPercent([100, 120, 90, 130, 117]), [0, 0, -25, 0, -10], relative: 1e-12, absolute: 1e-12)
        expectClose(wealthIndex(periodReturns: [0.1, -0.5, 1]), [1.1, 0.55, 1.1], relative: 1e-12, absolute: 1e-12)
        var a = OHLCVSeries(symbol: "A"), b = OHLCVSeries(symbol: "B")
        a.append(timestamp: 0, open: 10, high: 10, low: 10, close: 10, volume: 1)
        a.append(timestamp: 2, open: 20, high: 20, low: 20, close: 20, volume: 1)
        b.append(timestamp: 1, open: 4, high: 4, low: 4, close: 4, volume: 1)
        b.append(timestamp: 2, open: 2, high: 2, low: 2, close: 2, volume: 1)
        // t=0: A at 10 (500), B not started (500 cash); t=1: B starts; t=2: A doubles, B halves.
        expectClose(equalWeightBuyAndHold(series: [a, b], timeline: [0, 1, 2], initialCapital: 1000), [1000, 1000, 1250],
                    relative: 1e-12, absolute: 1e-12)
        let months = monthlyReturns(times: [0, 86_400, 40 * 86_400], periodReturns: [0.1, 0.1, -0.5])
        #expect(months.map(\.month) == [1, 2])
        expectClose(months.map(\.returnPercent), [21, -50], relative: 1e-12, absolute: 1e-12)
    }

    static func fundContent() -> FundReportContent {
        func d(_ s: String) -> CivilDate { CivilDate(iso: s)! }
        let fund = FundReportContent.Fund(
            id: "F<1>", name: "Fonds \"Ærø\" & Partners", details: "Manager: M&M; vintage 2015",
            headline: [Statistic(key: "irr", label: "IRR", value: 0.1234, signed: true) { NumberText.percent(100 * $0) },
                       Statistic(key: "tvpi", label: "TVPI", value: 1.5) { NumberText.fixed($0, decimals: 2) + "x" }],
            pme: [Statistic(key: "ksPME", label: "KS-PME", value: 1.1) { NumberText.fixed($0, decimals: 2) }],
            pmeNotes: ["Index: index.csv"],
            nav: .init(dates: [d("2015-03-31"), d("2015-06-30"), d("2015-09-30")], values: [90, 180, 260]),
            cumulativeCalls: .init(dates: [d("2015-01-15"), d("2015-05-01")], values: [100, 200]),
            cumulativeDistributions: .init(dates: [d("2015-08-01")], values: [50]),
            tvpi: .init(dates: [d("2015-03-31"), d("2015-06-30"), d("2015-09-30")], values: [0.9, 0.9, 1.55]),
            dpi: .init(dates: [d("2015-03-31"), d("2015-06-30"), d("2015-09-30")], values: [0, 0, 0.25]),
            ksPME: .init(dates: [d("2015-03-31"), d("2015-06-30"), d("2015-09-30")], values: [0.95, 0.97, 1.1]),
            calls: [.init(id: "c1", callDate: d("2015-01-15"), dueDate: d("2015-01-30"), amount: 100, status: "PAID"),
                    .init(id: "c2", callDate: d("2015-05-01"), dueDate: nil, amount: 100, status: "LATE")])
        return FundReportContent(title: "Funds", subtitle: "as of 2015-09-30",
                                 portfolio: [Statistic(key: "totalNav", label: "Total NAV", value: 260) { NumberText.fixed($0, decimals: 0) }],
                                 funds: [fund], notes: ["Day count: act/365F"])
    }

    @Test("Fund page: summary, NAV, J-curve, multiples with KS-PME, PME cards and calls with status")
    func fundPage() throws {
        let content = Self.fundContent()
        let html = FundReportRenderer().render(content)
        preview(html, "fund-plain.html")
        let root = try expectSelfContained(html)
        #expect(root.all { $0.attributes["data-stats"] == "portfolio" }.count == 1)
        #expect(root.all("h2").contains { $0.text == "Fonds \"Ærø\" & Partners (F<1>)" })
        let nav = try #require(chart(root, "nav-F<1>"))
        #expect(seriesPaths(nav)["NAV"]?.attributes["data-points"] == "3")
        let jCurve = try #require(chart(root, "jcurve-F<1>"))
        let j = seriesPaths(jCurve)
        // All three on the union of the 2 call dates and the 1 distribution date, carried forward.
        #expect(j["Paid-in"]?.attributes["data-points"] == "3")
        #expect(j["Distributions"]?.attributes["data-points"] == "3")
        #expect(j["Net cash flow"]?.attributes["data-points"] == "3")
        let flows = FundReportRenderer().cumulativeFlows(calls: content.funds[0].cumulativeCalls, distributions: content.funds[0].cumulativeDistributions)
        #expect(flows.calls.values == [100, 200, 200])
        #expect(flows.distributions.values == [0, 0, 50])
        #expect(flows.net.values == [-100, -200, -150])
        let multiples = try #require(chart(root, "multiples-F<1>"))
        #expect(Set(seriesPaths(multiples).keys) == ["TVPI", "DPI", "KS-PME"])
        let calls = try #require(root.all { $0.attributes["data-table"] == "calls-F<1>" }.first)
        #expect(calls.all("span").map { $0.attributes["class"]! } == ["badge paid", "badge late"])
        let irr = try #require(root.all { $0.attributes["data-stat"] == "irr" }.first)
        #expect(irr.text == "12.34%" && irr.attributes["class"] == "pos")
    }
}
