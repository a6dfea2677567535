import SentioContractDecoders
import Foundation
import SentioAPI
import SentioBacktest
import SentioCore
import SentioData
import SentioFunds
import SentioSignals
import SentioTestSupport
import Testing

@Suite("Contracts from real engine results decode with the strict decoders")
struct ContractTests {
    // MARK: Signals

    @Test("GET /signals: every symbol of Data/market; warming-up symbols under warmingUp; fields equal the engine's")
    func signalsResponse() throws {
        let market = try EngineFixtures.marketWithWarmUp()
        let config = SignalModelConfig()
        let response = try SignalContracts.response(series: market, config: config)
        let text = try APIJSON.encode(response)
        try expectShape(Shapes.signalsResponse, text)
        let decoded = try Strict.decode(StrictSignalsResponse.self, text)

        #expect(decoded.signals.count == 10)
        #expect(decoded.warmingUp.map(\.symbol) == ["LABD", "LABU"])
        for series in market {
            let last = try #require(SignalModel.evaluate(series, config: config).last)
            if last.isWarmUp {
                let entry = try #require(decoded.warmingUp.first { $0.symbol == series.symbol })
                #expect(entry.barsRemaining == last.barsUntilReady && entry.barsRemaining > 0)
                continue
            }
            let s = try #require(decoded.signals.first { $0.symbol == series.symbol })
            #expect(s.id.uuidString.lowercased() == last.id)
            #expect(s.timestamp.timeIntervalSince1970 == Double(last.timestamp))
            #expect(s.price.bitPattern == series.close.last!.bitPattern)
            for (a, b) in [(s.change, last.change), (s.changePercent, last.changePercent), (s.confidence, last.confidence),
                           (s.targetReturn, last.targetReturn), (s.stopLoss, last.stopLoss), (s.profitTarget, last.profitTarget),
                           (s.aiSignal, last.aiSignal), (s.rsi, last.rsi), (s.volumeRatio, last.volumeRatio)] {
                #expect(a.bitPattern == b.bitPattern)
            }
            #expect(s.signalType.rawValue == last.signalType.rawValue)
            #expect(s.recommendation == SignalText.recommendation(for: last, config: config))
            #expect(s.reasoning == SignalText.reasoning(for: last, config: config))
            #expect(s.stopLoss <= 0 && (0...1).contains(s.confidence))
        }
        let latest = market.compactMap { $0.timestamps.last }.max()!
        #expect(decoded.timestamp.timeIntervalSince1970 == Double(latest))
        try Golden.check("signals.json", text)
    }

    @Test("GET /symbols/TQQQ: name from the instrument table, price = signal price = last close")
    func symbolDetail() throws {
        let tqqq = try #require(EngineFixtures.market().first { $0.symbol == "TQQQ" })
        let detail = try SignalContracts.symbolDetail(series: tqqq, historyLimit: 30)
        let text = try APIJSON.encode(detail)
        try expectShape(Shapes.symbolDetail, text)
        let decoded = try Strict.decode(StrictSymbolDetail.self, text)
        #expect(decoded.name == "Nasdaq 3x Bull")
        #expect(decoded.price.bitPattern == tqqq.close.last!.bitPattern && decoded.signal.price == decoded.price)
        #expect(decoded.historicalData.count == 30)
        for (k, bar) in decoded.historicalData.enumerated() {
            let i = tqqq.count - 30 + k
            #expect(bar.timestamp.timeIntervalSince1970 == Double(tqqq.timestamps[i]))
            #expect(bar.open == tqqq.open[i] && bar.high == tqqq.high[i] && bar.low == tqqq.low[i])
            #expect(bar.close == tqqq.close[i] && bar.volume == tqqq.volume[i])
        }
        try Golden.check("symbol-detail.json", text)

        // A warming-up symbol has no detail (no Signal with nulls), and an unknown one no name.
        #expect(throws: APIContractError.self) { try SignalContracts.symbolDetail(series: tqqq.prefix(50)) }
        var other = tqqq
        other.symbol = "XYZ"
        #expect(throws: APIContractError.self) { try SignalContracts.symbolDetail(series: other) }
        let named = try SignalContracts.symbolDetail(series: other, names: InstrumentNames(overrides: ["XYZ": "Example"]), historyLimit: 1)
        #expect(named.name == "Example")
    }

    @Test("every shipped instrument of Data/market has a name")
    func instrumentNames() throws {
        let names = InstrumentNames()
        for series in try EngineFixtures.market() { #expect(!(try names.name(of: series.symbol)).isEmpty) }
        #expect(try names.name(of: "SQQQ") == "Nasdaq 3x Bear")
        #expect(InstrumentNames.shipped.count == 12 && Set(InstrumentNames.shipped.map(\.symbol)).count == 12)
    }

    @Test("live signal_update message")
    func liveMessage() throws {
        let tqqq = try #require(EngineFixtures.market().first { $0.symbol == "TQQQ" })
        let last = try #require(SignalModel.evaluate(tqqq).last)
        let text = try APIJSON.encode(try SignalContracts.liveMessage(last, config: SignalModelConfig()))
        try expectShape(Shapes.liveMessage, text)
        let decoded = try Strict.decode(StrictLiveMessage.self, text)
        #expect(decoded.data.symbol == "TQQQ" && decoded.data.price == last.price && decoded.data.signal.id.uuidString.lowercased() == last.id)
        try Golden.check("live-message.json", text)
    }

    // MARK: Backtest

    @Test("GET /portfolio and the trade history from a Sentio backtest on Data/market", arguments: [false, true])
    func portfolioAndTrades(fractional: Bool) throws {
        let result = try EngineFixtures.backtest(fractional: fractional)
        #expect(result.trades.count > 5, "the sample backtest must trade")
        let portfolio = try BacktestContracts.portfolio(result)
        let text = try APIJSON.encode(portfolio)
        try expectShape(Shapes.portfolio(fractional: fractional), text)
        let decoded = try Strict.decode(StrictPortfolio.self, text)
        #expect(decoded.initialCapital == 100_000)
        #expect(text.contains("\"initialCapital\": 100000.0,"))
        #expect(decoded.currentValue == result.finalEquity && decoded.cashBalance == result.finalCash)
        #expect(decoded.totalPnL == result.finalEquity - 100_000)
        let n = result.equity.count
        // Daily bars: "today" is the last bar's day, the previous close the bar before.
        #expect(decoded.dayPnL == result.equity[n - 1] - result.equity[n - 2])
        #expect(decoded.positions.count == result.openPositions.count)
        for (p, o) in zip(decoded.positions, result.openPositions) {
            #expect(p.symbol == o.symbol && p.entryPrice == o.entryPrice && p.currentPrice == o.currentPrice)
            #expect(p.shares == Int(o.shares.rounded(.towardZero)) && Double(p.shares) <= o.shares)
            #expect(p.pnl == (o.currentPrice - o.entryPrice) * o.shares)
        }
        #expect(decoded.recentTrades.count == min(10, result.trades.count))
        // `trades`: every closed trade, in the engine's order (the trade history's list).
        #expect(decoded.trades.count == result.trades.count)
        #expect(decoded.trades.map(\.id) == (try Strict.decode(StrictTradeHistory.self, try APIJSON.encode(try BacktestContracts.tradeHistory(result)))).trades.map(\.id))
        let exits = decoded.recentTrades.map(\.exitTime)
        #expect(exits == exits.sorted(by: >))
        if fractional {
            let quantities = try Strict.decode([String: [StrictQuantity]].self,
                "{\"p\": \(try APIJSON.encode(portfolio.positions)), \"t\": \(try APIJSON.encode(portfolio.recentTrades))}")
            for (q, o) in zip(quantities["p"]!, result.openPositions) { #expect(q.quantity.bitPattern == o.shares.bitPattern) }
            #expect(result.trades.contains { $0.shares != $0.shares.rounded(.towardZero) }, "fractional sizing must give fractions")
        }

        let history = try BacktestContracts.tradeHistory(result)
        let historyText = try APIJSON.encode(history)
        try expectShape(Shapes.tradeHistory(fractional: fractional), historyText)
        let decodedHistory = try Strict.decode(StrictTradeHistory.self, historyText)
        #expect(decodedHistory.totalTrades == result.trades.count)
        let wins = result.trades.filter { $0.pnl > 0 }.count
        #expect(decodedHistory.winRate == Double(wins) / Double(result.trades.count) * 100)
        for (t, c) in zip(decodedHistory.trades, result.trades) {
            #expect(t.symbol == c.symbol && t.pnl == c.pnl && t.pnlPercent == c.pnlPercent && t.entryPrice == c.entryPrice)
            #expect(t.entryTime.timeIntervalSince1970 == Double(c.entryTime) && t.exitTime.timeIntervalSince1970 == Double(c.exitTime))
        }
        #expect(Set(decodedHistory.trades.map(\.id)).count == decodedHistory.trades.count, "ids are unique")

        // The CSV: header = Trade fields (id first), one row per trade, the same ids and numbers as the JSON.
        let csv = try history.csv()
        let lines = csv.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = "id,symbol,entryPrice,exitPrice,shares,entryTime,exitTime,pnl,pnlPercent,signalType"
            + (fractional ? ",quantity" : "")
        #expect(lines.first == header && lines.last == "" && lines.count == history.trades.count + 2)
        for (line, t) in zip(lines.dropFirst(), history.trades) {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            #expect(cells.count == header.split(separator: ",").count)
            #expect(cells[0] == t.id && Double(cells[7])!.bitPattern == t.pnl.bitPattern && Int(cells[4]) == t.shares)
            #expect(cells[5] == t.entryTime.description && cells[9] == t.signalType.rawValue)
        }
        let suffix = fractional ? "-fractional" : ""
        try Golden.check("portfolio\(suffix).json", text)
        try Golden.check("trade-history\(suffix).json", historyText)
        try Golden.check("trade-log\(suffix).csv", csv)

        // Same run twice: same bytes (ids are content-derived, not random).
        #expect(try APIJSON.encode(BacktestContracts.portfolio(EngineFixtures.backtest(fractional: fractional))) == text)
    }

    // MARK: Funds

    @Test("funds, fund detail with documents, portfolio summary and dashboard from Data/funds")
    func funds() throws {
        let report = try EngineFixtures.fundReport()
        let funds = try FundContracts.funds(report)
        let listText = try APIJSON.encode(funds)
        try expectShape(.array(Shapes.fund), listText)
        let decodedFunds = try Strict.decode([StrictFund].self, listText)
        #expect(decodedFunds.count == report.funds.count)
        for (f, e) in zip(decodedFunds, report.funds) {
            let m = e.metrics
            #expect(f.name == e.metadata?.name && f.vintage == e.metadata?.vintage)
            #expect(f.commitment == Double(m.commitment.description) && f.nav == Double(m.nav.description))
            #expect(f.irr == m.irr?.rate && f.tvpi == m.tvpi && f.dpi == m.dpi)
            #expect(f.navHistory.count == m.navHistory.count)
            #expect(f.lastReportDate.timeIntervalSince1970 == Double(m.lastReportDate!.epochSeconds))
        }

        for entry in report.funds {
            let detail = try FundContracts.fundDetail(entry.metrics, metadata: entry.metadata,
                urls: [entry.metrics.capitalCalls[0].id: "https://example.com/calls/1.pdf"])
            let text = try APIJSON.encode(detail)
            try expectShape(Shapes.fundDetail, text)
            let decoded = try Strict.decode(StrictFundDetail.self, text)
            let calls = decoded.documents.filter { $0.type == .CAPITAL_CALL }
            let reports = decoded.documents.filter { $0.type != .CAPITAL_CALL }
            #expect(calls.count == entry.metrics.capitalCalls.count && reports.count == entry.metrics.navHistory.count)
            for (k, (doc, call)) in zip(calls, entry.metrics.capitalCalls).enumerated() {
                #expect(doc.title == "Capital Call #\(k + 1)" && doc.parsedData["callNumber"] == "\(k + 1)")
                #expect(doc.callAmount == Double(call.amount.description))
                #expect(doc.parsedData["percentage"]!.hasSuffix("%"))
                // Documents agree with the fund's figures: PAID/LATE exactly for the calls counted in paidIn.
                let paid = doc.paymentStatus == .PAID || doc.paymentStatus == .LATE
                #expect(paid == !call.status.isActive)
                // The override replaces the events' url of call 1; the other calls keep theirs (Data/funds gives one).
                #expect(doc.url == (k == 0 ? "https://example.com/calls/1.pdf" : call.url))
            }
            for (doc, point) in zip(reports, entry.metrics.navHistory) {
                // A report's url is its NAV row's (Data/funds links the year-end reports), else null.
                #expect(doc.callAmount == nil && doc.dueDate == nil && doc.paymentStatus == nil && doc.url == point.url)
            }
            let dates = decoded.documents.map(\.uploadDate)
            #expect(dates == dates.sorted())
            if entry.metrics.id == report.funds[0].metrics.id { try Golden.check("fund-detail.json", text) }
        }

        let summary = FundContracts.portfolioSummary(report.portfolio)
        let summaryText = try APIJSON.encode(summary)
        try expectShape(Shapes.portfolioSummary, summaryText)
        let decodedSummary = try Strict.decode(StrictPortfolioSummary.self, summaryText)
        #expect(decodedSummary.activeCapitalCalls == report.portfolio.activeCapitalCalls)
        #expect(decodedSummary.activeCapitalCalls == 4, "Data/funds has four unpaid calls")
        #expect(decodedSummary.portfolioTvpi == report.portfolio.portfolioTvpi)
        #expect(decodedSummary.portfolioTvpiDefined && report.portfolio.portfolioTvpi != nil)

        let crypto = try CryptoContracts.holdings(EngineFixtures.holdings, series: EngineFixtures.cryptoMarket(),
            valuationDate: CivilDate(year: 2024, month: 12, day: 31)!)
        let cryptoText = try APIJSON.encode(crypto)
        try expectShape(Shapes.cryptoHoldings, cryptoText)
        let decodedCrypto = try Strict.decode(StrictCryptoHoldingsResponse.self, cryptoText)
        #expect(decodedCrypto.holdings.map(\.valueUsd) == [1.25 * 93_429.20, 10.5 * 3_332.33], "closes of 2024-12-31")
        #expect(decodedCrypto.totalValue == 1.25 * 93_429.20 + 10.5 * 3_332.33)

        let dashboard = try FundContracts.dashboard(report, crypto: crypto)
        let dashboardText = try APIJSON.encode(dashboard)
        try expectShape(Shapes.dashboard, dashboardText)
        let decodedDashboard = try Strict.decode(StrictDashboard.self, dashboardText)
        #expect(decodedDashboard.funds.count == decodedFunds.count && decodedDashboard.cryptoHoldings.count == 2)

        try Golden.check("funds.json", listText)
        try Golden.check("portfolio-summary.json", summaryText)
        try Golden.check("crypto-holdings.json", cryptoText)
        try Golden.check("dashboard.json", dashboardText)
    }

    @Test("crypto valuation errors: no series, no bar by the valuation date, negative amount")
    func cryptoErrors() throws {
        let market = EngineFixtures.cryptoMarket()
        let early = CivilDate(year: 2024, month: 12, day: 1)!
        #expect(throws: APIContractError.self) {
            try CryptoContracts.holdings([CryptoHoldingInput(symbol: "SOLUSD", name: "Solana", amount: 1)], series: market, valuationDate: early)
        }
        #expect(throws: APIContractError.self) {
            try CryptoContracts.holdings(EngineFixtures.holdings, series: market, valuationDate: early)
        }
        #expect(throws: APIContractError.self) {
            try CryptoContracts.holdings([CryptoHoldingInput(symbol: "BTCUSD", name: "Bitcoin", amount: -1)], series: market,
                valuationDate: CivilDate(year: 2024, month: 12, day: 31)!)
        }
    }
}
