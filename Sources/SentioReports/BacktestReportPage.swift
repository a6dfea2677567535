import SentioCore
import SentioBacktest

/// Everything the backtest report shows, in plain values. Built from a `BacktestResult` by
/// `BacktestReportContent(result:statistics:market:)`, or directly.
public struct BacktestReportContent: Sendable {
    /// One closed (or still open) trade as shown in the trade table and on its symbol's chart.
    public struct Trade: Sendable, Equatable {
        public var symbol: String
        public var entryTime: Int64
        public var entryPrice: Double
        /// `nil` for a position still open at the end.
        public var exitTime: Int64?
        public var exitPrice: Double?
        public var shares: Double
        public var pnl: Double
        public var pnlPercent: Double
        public var exitReason: String
        public var stopPrice: Double?
        public var targetPrice: Double?

        public init(symbol: String, entryTime: Int64, entryPrice: Double, exitTime: Int64?, exitPrice: Double?,
                    shares: Double, pnl: Double, pnlPercent: Double, exitReason: String,
                    stopPrice: Double? = nil, targetPrice: Double? = nil) {
            self.symbol = symbol; self.entryTime = entryTime; self.entryPrice = entryPrice
            self.exitTime = exitTime; self.exitPrice = exitPrice; self.shares = shares
            self.pnl = pnl; self.pnlPercent = pnlPercent; self.exitReason = exitReason
            self.stopPrice = stopPrice; self.targetPrice = targetPrice
        }
    }

    public var title: String
    public var subtitle: String
    public var headline: [Statistic]
    /// A sentence stating the statistics' conventions (periods per year, risk-free rate, ddof).
    public var conventions: String
    public var times: [Int64]
    public var equity: [Double]
    /// Simple return of each step (same length as `times`); drives drawdown and monthly returns.
    public var periodReturns: [Double]
    public var benchmarkName: String
    public var benchmark: [Double]?
    /// Money put in so far (initial capital plus deposits) at each step, drawn when there are deposits.
    public var invested: [Double]?
    /// Price history per symbol (closes), for the per-symbol charts.
    public var prices: [OHLCVSeries]
    public var trades: [Trade]
    /// Benchmark-relative figures (alpha, beta, ...), shown as a second row of cards; empty for none.
    public var benchmarkCards: [Statistic] = []
    /// Signs of a degenerate run, listed at the top.
    public var warnings: [String] = []
    /// The strategy's warm-up (no decision possible yet), shaded on the time charts.
    public var warmUp: ChartBand?
    /// Annualization factor of the rolling statistics.
    public var periodsPerYear: Double = 252

    public init(title: String, subtitle: String, headline: [Statistic], conventions: String, times: [Int64],
                equity: [Double], periodReturns: [Double], benchmarkName: String, benchmark: [Double]?,
                prices: [OHLCVSeries], trades: [Trade], invested: [Double]? = nil) {
        precondition(times.count == equity.count && times.count == periodReturns.count, "misaligned series")
        self.title = title; self.subtitle = subtitle; self.headline = headline; self.conventions = conventions
        self.times = times; self.equity = equity; self.periodReturns = periodReturns
        self.benchmarkName = benchmarkName; self.benchmark = benchmark; self.prices = prices; self.trades = trades
        self.invested = invested
    }
}

/// Renders the backtest report: headline statistics, equity against buy-and-hold, drawdown, monthly
/// returns, per-symbol price with trades, and the trade table.
public struct BacktestReportRenderer: Sendable {
    /// Points per series drawn at most (longer series are downsampled, and the report says so).
    public var maxPointsPerSeries: Int = 1000
    /// Trade table rows written at most.
    public var tradeRowLimit: Int = 1000
    /// Symbols that get a price chart at most (those with the most trades first).
    public var symbolChartLimit: Int = 12
    /// Returns per window of the rolling Sharpe ratio and volatility (quantstats' default, about six months of
    /// daily bars).
    public var rollingWindow: Int = RollingRisk.defaultWindow
    /// Drawdown periods listed (the deepest first).
    public var drawdownPeriodLimit: Int = 5
    /// Bins of the return histogram.
    public var histogramBins: Int = 50

    public init() {}

    public func render(_ content: BacktestReportContent) -> String {
        var page = HTMLPage(title: content.title, subtitle: content.subtitle)
        if !content.warnings.isEmpty { page.warnings(content.warnings) }
        page.cards(content.headline, group: "headline")
        if !content.benchmarkCards.isEmpty {
            page.heading("Against \(content.benchmarkName)", level: 3, id: "benchmark")
            page.cards(content.benchmarkCards, group: "benchmark")
            page.note("On the bars both series have. Beta = cov(r, b) / var(b); alpha = (mean(r) − beta·mean(b)) × periods a year "
                + "(quantstats' greeks); information ratio = mean(r − b) / std(r − b) per period, not annualized (as quantstats); "
                + "tracking error = std(r − b) × √periods; sample moments (ddof 1).")
        }
        page.note(content.conventions)
        let bands = content.warmUp.map { [$0] } ?? []

        // Equity against the benchmark.
        var equitySeries = [ChartSeries(name: "Strategy", times: content.times, values: content.equity, tone: .accent)]
        if let benchmark = content.benchmark {
            equitySeries.append(ChartSeries(name: content.benchmarkName, times: content.times, values: benchmark, tone: .neutral, style: .dashed))
        }
        if let invested = content.invested {
            equitySeries.append(ChartSeries(name: "Invested (capital + deposits)", times: content.times, values: invested, tone: .muted, style: .dashed))
        }
        page.heading("Equity", id: "equity")
        let equityTitle = content.benchmark == nil ? "Equity" : "Equity vs \(content.benchmarkName)"
        var equityChart = TimeSeriesChart(id: "equity", title: equityTitle, series: equitySeries, valueFormat: .amount)
        equityChart.maxPointsPerSeries = maxPointsPerSeries
        equityChart.bands = bands
        page.chart(equityChart)

        // Drawdown of the wealth index (deposits excluded).
        let underwater = drawdownPercent(wealthIndex(periodReturns: content.periodReturns))
        var ddSeries = [ChartSeries(name: "Strategy", times: content.times, values: underwater, tone: .negative, style: .area)]
        if let benchmark = content.benchmark {
            ddSeries.append(ChartSeries(name: content.benchmarkName, times: content.times, values: drawdownPercent(benchmark), tone: .neutral, style: .dashed))
        }
        var ddChart = TimeSeriesChart(id: "drawdown", title: "Drawdown (underwater)", series: ddSeries, valueFormat: .percent)
        ddChart.includesZero = true
        ddChart.maxPointsPerSeries = maxPointsPerSeries
        ddChart.bands = bands
        page.chart(ddChart)

        // Worst drawdown periods of the same wealth index.
        page.heading("Worst drawdowns", level: 3, id: "drawdown-periods")
        drawdownTable(&page, times: content.times, wealth: wealthIndex(periodReturns: content.periodReturns))

        // Rolling risk over a trailing window of returns (step 0 has none).
        let returns = Array(content.periodReturns.dropFirst())
        let returnTimes = Array(content.times.dropFirst())
        page.heading("Rolling risk (\(rollingWindow)-bar window)", id: "rolling")
        if returns.count >= rollingWindow {
            let risk = RollingRisk(returns: returns, window: rollingWindow, periodsPerYear: content.periodsPerYear)
            let sharpe = risk.sharpe.map { $0 ?? .nan }
            let volatility = risk.volatility.map { ($0 ?? .nan) * 100 }
            /// A rolling statistic's chart: from zero, 240 high, with the drawdown bands.
            func rollingChart(_ id: String, _ title: String, _ series: ChartSeries, _ format: ValueFormat) {
                var chart = TimeSeriesChart(id: id, title: title, series: [series], valueFormat: format)
                chart.includesZero = true
                chart.height = 240
                chart.maxPointsPerSeries = maxPointsPerSeries
                chart.bands = bands
                page.chart(chart)
            }
            rollingChart(
                "rolling-sharpe", "Rolling Sharpe ratio (\(rollingWindow) bars, annualized)",
                ChartSeries(name: "Sharpe", times: returnTimes, values: sharpe, tone: .accent), .plain)
            rollingChart(
                "rolling-volatility", "Rolling volatility (\(rollingWindow) bars, annualized)",
                ChartSeries(name: "Volatility", times: returnTimes, values: volatility, tone: .neutral), .percent)
            page.note("Each point uses the \(rollingWindow) returns up to it: Sharpe = mean / std × √\(NumberText.fixed(content.periodsPerYear, decimals: 0)), "
                + "volatility = std × √\(NumberText.fixed(content.periodsPerYear, decimals: 0)) (std with ddof 1, risk-free 0; quantstats' rolling_sharpe "
                + "and rolling_volatility). A window whose returns are all equal has no Sharpe ratio (gap).")
        } else {
            page.note("\(returns.count) returns: fewer than one \(rollingWindow)-bar window, so no rolling statistics.")
        }

        // Distribution of the returns.
        page.heading("Return distribution", level: 3, id: "histogram")
        let histogram = Histogram(returns.map { $0 * 100 }, bins: histogramBins)
        let zeros = returns.filter { $0 == 0 }.count
        page.figure(HistogramChart(
            id: "return-histogram", title: "Per-bar returns (\(NumberText.fixed(Double(returns.count), decimals: 0)) bars, \(histogramBins) bins)",
            histogram: histogram, valueFormat: .percent).html())
        page.note("Simple returns in percent, one per bar after the first; \(NumberText.fixed(Double(zeros), decimals: 0)) of them are exactly 0 "
            + "(no position held: warm-up, or flat between trades). Bins below 0 are red, the others green.")

        // Monthly returns.
        page.heading("Monthly returns", id: "monthly")
        monthlyTable(&page, monthlyReturns(times: content.times, periodReturns: content.periodReturns))

        // Per symbol: price, entries, exits, stop and target levels.
        page.heading("Trades by symbol", id: "symbols")
        let tradesBySymbol = Dictionary(grouping: content.trades, by: \.symbol)
        let lastTime = content.times.last ?? 0
        let charted = content.prices
            .sorted { (tradesBySymbol[$0.symbol]?.count ?? 0, $1.symbol) > (tradesBySymbol[$1.symbol]?.count ?? 0, $0.symbol) }
            .prefix(symbolChartLimit)
        if charted.count < content.prices.count {
            page.note("Price charts for the \(charted.count) symbols with the most trades of \(content.prices.count).")
        }
        for prices in charted {
            let trades = tradesBySymbol[prices.symbol] ?? []
            var chart = TimeSeriesChart(
                id: "price-\(prices.symbol)", title: "\(prices.symbol): close, entries and exits",
                series: [ChartSeries(name: prices.symbol, times: prices.timestamps, values: prices.close, tone: .neutral)],
                valueFormat: .plain)
            chart.height = 280
            chart.maxPointsPerSeries = maxPointsPerSeries
            chart.bands = bands
            for t in trades {
                chart.markers.append(ChartMarker(kind: .entry, time: t.entryTime, value: t.entryPrice, tone: .accent,
                    label: "Buy \(NumberText.fixed(t.shares, decimals: t.shares == t.shares.rounded() ? 0 : 4)) @ \(NumberText.fixed(t.entryPrice, decimals: 2)) on \(timeText(t.entryTime))",
                    legend: "Entry"))
                if let exitTime = t.exitTime, let exitPrice = t.exitPrice {
                    let style = Self.exitStyle(reason: t.exitReason, pnl: t.pnl)
                    chart.markers.append(ChartMarker(kind: .exit, time: exitTime, value: exitPrice, tone: style.tone,
                        label: "Sell @ \(NumberText.fixed(exitPrice, decimals: 2)) (\(t.exitReason)), P&L \(NumberText.fixed(t.pnl, decimals: 2))",
                        legend: style.legend))
                }
                let end = t.exitTime ?? lastTime
                if let stop = t.stopPrice { chart.levels.append(ChartLevel(kind: .stop, start: t.entryTime, end: end, value: stop)) }
                if let target = t.targetPrice { chart.levels.append(ChartLevel(kind: .target, start: t.entryTime, end: end, value: target)) }
            }
            page.chart(chart)
        }

        // Trade table.
        page.heading("Trade log", id: "trades")
        let headers: [TableCell] = [.text("Symbol"), .text("Entry"), TableCell("Entry price"), .text("Exit"), TableCell("Exit price"),
                                    TableCell("Shares"), TableCell("P&L"), TableCell("P&L %"), .text("Exit reason")]
        let rows: [[TableCell]] = content.trades.map { t in
            [.text(t.symbol), .text(timeText(t.entryTime)), TableCell(NumberText.fixed(t.entryPrice, decimals: 2)),
             .text(t.exitTime.map(timeText) ?? "open"), TableCell(t.exitPrice.map { NumberText.fixed($0, decimals: 2) } ?? "—"),
             TableCell(NumberText.fixed(t.shares, decimals: t.shares == t.shares.rounded() ? 0 : 4)),
             TableCell(NumberText.fixed(t.pnl, decimals: 2), .signedNumber(t.pnl)),
             TableCell(NumberText.percent(t.pnlPercent), .signedNumber(t.pnlPercent)), .text(t.exitReason)]
        }
        page.table(id: "trades", headers: headers, rows: rows, rowLimit: tradeRowLimit)
        return page.document()
    }

    /// The colour and legend entry of an exit marker: stop-loss exits amber, other exits green with a gain
    /// (P&L ≥ 0) and red with a loss.
    public static func exitStyle(reason: String, pnl: Double) -> (tone: Tone, legend: String) {
        if reason == "stop-loss" { return (.warning, "Stop-loss exit") }
        return pnl >= 0 ? (.positive, "Exit, gain") : (.negative, "Exit, loss")
    }

    private func drawdownTable(_ page: inout HTMLPage, times: [Int64], wealth: [Double]) {
        let periods = Array(drawdownPeriods(wealth).prefix(drawdownPeriodLimit))
        if periods.isEmpty {
            page.note("No drawdown: the wealth index never fell below a previous high.")
            return
        }
        let headers: [TableCell] = [TableCell("#"), .text("Start (peak)"), .text("Trough"), .text("Recovery"), TableCell("Depth"),
                                    TableCell("Length (bars)"), TableCell("Length (days)")]
        let rows: [[TableCell]] = periods.enumerated().map { k, p in
            let end = p.recoveryStep ?? (times.count - 1)
            let days = Double(times[end] - times[p.startStep]) / 86_400
            return [TableCell("\(k + 1)"), .text(timeText(times[p.startStep])), .text(timeText(times[p.troughStep])),
                    .text(p.recoveryStep.map { timeText(times[$0]) } ?? "not recovered"),
                    TableCell(NumberText.percent(p.depth * 100), .signedNumber(p.depth)),
                    TableCell(NumberText.fixed(Double(p.lengthSteps), decimals: 0)),
                    TableCell(NumberText.fixed(days, decimals: 0))]
        }
        page.table(id: "drawdown-periods", headers: headers, rows: rows)
        page.note("The \(periods.count) deepest falls of the wealth index (deposits excluded) from a high to the first bar back at that "
            + "high; length runs from the high to the recovery, or to the last bar when not recovered.")
    }

    private func monthlyTable(_ page: inout HTMLPage, _ months: [MonthlyReturn]) {
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let headers = [TableCell.text("Year")] + names.map { TableCell($0) } + [TableCell("Year")]
        var rows: [[TableCell]] = []
        for (year, entries) in Dictionary(grouping: months, by: \.year).sorted(by: { $0.key < $1.key }) {
            var row = [TableCell.text("\(year)")]
            var growth = 1.0
            for m in 1...12 {
                if let r = entries.first(where: { $0.month == m }) {
                    growth *= 1 + r.returnPercent / 100
                    row.append(TableCell(NumberText.fixed(r.returnPercent, decimals: 1), .signedNumber(r.returnPercent)))
                } else {
                    row.append(TableCell(""))
                }
            }
            let yearPercent = 100 * (growth - 1)
            row.append(TableCell(NumberText.fixed(yearPercent, decimals: 1), .signedNumber(yearPercent)))
            rows.append(row)
        }
        page.table(id: "monthly-returns", headers: headers, rows: rows, cssClass: "heat")
        page.note("Returns in percent, compounded within each calendar month (UTC); the last column compounds the months shown.")
    }
}

/// `2024-03-05` for a time at midnight UTC (daily bars), the full ISO-8601 instant otherwise.
func timeText(_ t: Int64) -> String {
    t % 86_400 == 0 ? CivilDate(epochSeconds: t).description : iso8601(epochSeconds: t)
}
