import SentioAPI
import SentioCore

extension BacktestSummary {
    /// The summary for a terminal: one labelled line per statistic (percents with `%`, ratios with 3 decimals,
    /// `n/a` for an undefined statistic), then a line of conventions. Ends with a newline.
    public func table() -> String {
        let f = TextTable.fixed
        let s = statistics
        var rows: [(String, String)] = []
        rows.append(("Strategy", "\(strategy) on \(symbols.count) symbol\(symbols.count == 1 ? "" : "s")"))
        rows.append(("Period", "\(start) .. \(end) (\(bars) bars)"))
        rows.append(("Initial capital", f(s.initialCapital, 2, "")))
        if s.totalContributions > 0 { rows.append(("Deposits", f(s.totalContributions, 2, ""))) }
        rows.append(("Final equity", f(s.finalEquity, 2, "")))
        rows.append(("Total return", f(s.totalReturnPercent, 2, " %")))
        if s.totalContributions > 0 {
            rows.append(("Time-weighted return", f(s.timeWeightedReturnPercent, 2, " %")))
            rows.append(("Money-weighted return", f(s.moneyWeightedReturnPercent, 2, " % a year (XIRR)")))
        }
        if let currency { rows += currency.tableRows() }
        rows.append(("CAGR", f(s.cagrPercent, 2, " %")))
        rows.append(("Annualized volatility", f(s.annualizedVolatilityPercent, 2, " %")))
        rows.append(("Sharpe ratio", f(s.sharpeRatio, 3, "")))
        rows.append(("Sortino ratio", f(s.sortinoRatio, 3, "")))
        rows.append(("Calmar ratio", f(s.calmarRatio, 3, "")))
        rows.append(("Max drawdown", "\(f(s.maxDrawdownPercent, 2, " %")) (\(s.maxDrawdownDurationBars) bars, \(f(s.maxDrawdownDurationDays, 0, "")) days)"))
        rows.append(("Trades", "\(s.tradeCount) closed, \(s.openPositionCount) open"))
        rows.append(("Win rate", f(s.winRatePercent, 2, " %")))
        rows.append(("Profit factor", f(s.profitFactor, 3, "")))
        rows.append(("Avg / best / worst trade", "\(f(s.averageTradePercent, 2, " %")) / \(f(s.bestTradePercent, 2, " %")) / \(f(s.worstTradePercent, 2, " %"))"))
        rows.append(("Avg holding period", s.averageHoldingBars == nil
            ? "n/a" : "\(f(s.averageHoldingBars, 1, "")) bars (\(TextTable.duration(days: s.averageHoldingDays)))"))
        rows.append(("Exposure", f(s.exposurePercent, 2, " %")))
        rows.append(("Commissions paid", f(s.commissionsPaid, 2, "")))
        rows.append(("SQN", f(s.sqn, 3, "")))
        let detail = rejectionsByReason.counts.map { "\($0.count) \($0.reason)" }.joined(separator: ", ")
        rows.append(("Orders", "\(s.orderCount) (\(s.rejectedOrderCount) rejected\(detail.isEmpty ? "" : ": " + detail))"))
        if let b = benchmark {
            rows.append(("Benchmark", "\(b.symbol), \(b.commonBars) common bars, \(b.start) .. \(b.end)"))
            rows.append(("Benchmark return / CAGR", "\(f(b.totalReturnPercent, 2, " %")) / \(f(b.cagrPercent, 2, " %"))"))
            rows.append(("Alpha (annualized)", f(b.alpha * 100, 2, " %")))
            rows.append(("Beta / correlation", "\(f(b.beta, 3, "")) / \(f(b.correlation, 3, ""))"))
            rows.append(("Information ratio", f(b.informationRatio, 3, " (per period)")))
            rows.append(("Tracking error", f(b.trackingErrorPercent, 2, " % a year")))
        }
        var out = TextTable.labelled(rows) + "\n"
        let ppy = conventions.periodsPerYear
        let periods = ppy == ppy.rounded() && abs(ppy) < 1e15 ? String(Int64(ppy)) : "\(ppy)"
        out += "\nConventions: \(config.fill.rawValue) fills, sizing \(config.sizing.rawValue), commission \(config.commissionRate), "
            + "\(periods) periods/year (\(conventions.periodsPerYearSource)), risk-free 0, ddof 1; "
            + "Sharpe = mean/std x sqrt(periods) (empyrical).\n"
        return out
    }
}

extension BacktestCurrencySummary {
    /// The currency lines of the backtest table.
    func tableRows() -> [(String, String)] {
        let f = TextTable.fixed
        let i = investorCurrency, a = assetCurrency
        func both(_ p: CurrencyPair, _ suffix: String = "") -> String {
            "\(i) \(f(p.investor, 2, suffix)) / \(a) \(f(p.asset, 2, suffix))"
        }
        return [
            ("Currency", "\(i) investor, \(a) prices (\(i)\(a) from \(fxFile); \(barsWithPreviousRate) bar(s) on an earlier day's rate)"),
            ("Invested", both(invested)),
            ("Value", both(value)),
            ("Time-weighted return", both(timeWeightedReturnPercent, " %")),
            ("Money-weighted return", both(moneyWeightedReturnPercent, " %") + " a year (XIRR)"),
            ("FX effect", f(fxEffectPercent, 2, " % ((1 + TWR \(i)) / (1 + TWR \(a)) - 1)")),
        ]
    }
}
