import SentioContractDecoders
import Foundation
import SentioAPI
import SentioApplication
import SentioBacktest
import SentioCore
import SentioFunds
import SentioStore
import SentioTestSupport
import Testing

/// A backtest of `request` on `series`, with every output built by the library.
private func report(_ request: BacktestRequest, _ series: [OHLCVSeries], source: BacktestDataSource = BacktestDataSource(paths: ["Data/market"])) throws -> BacktestRunReport {
    let market = try Market(series)
    let result = try Backtest(request.configuration(symbolCount: series.count)).run(try request.makeStrategy(), on: market)
    return try BacktestRunReport(
        result: result, request: request, source: source,
        benchmark: .standard(BenchmarkSeries.equalWeight(series, timeline: result.timestamps)))
}

/// Every number token of a JSON text, as written.
private func numberTokens(_ value: RawJSON) -> [String] {
    switch value {
    case .number(let text): return [text]
    case .array(let items): return items.flatMap(numberTokens)
    case .object(let fields): return fields.flatMap { numberTokens($0.1) }
    default: return []
    }
}

@Suite("Backtest summary, CSV forms and run records through the contract layer")
struct BacktestSummaryTests {
    static let sampleRequest = BacktestRequest(strategy: .sentio, sizing: .equalWeight, maxPositions: 4)

    @Test("summary of a sentio run on Data/market: strict decode, key order, values are the statistics', golden")
    func sampleSummary() throws {
        let run = try report(Self.sampleRequest, EngineFixtures.market())
        let s = run.statistics, result = run.result
        #expect(result.trades.count > 5, "the sample backtest must trade")
        let text = try run.summaryJSON()
        try expectShape(BacktestShapes.backtestSummary(), text)
        let d = try Strict.decode(StrictBacktestSummary.self, text)
        #expect(d.strategy == .sentio && d.symbols == result.symbols && d.bars == result.timestamps.count)
        #expect(d.start.timeIntervalSince1970 == Double(result.timestamps.first!))
        #expect(d.end.timeIntervalSince1970 == Double(result.timestamps.last!))
        let pairs: [(Double?, Double?)] = [
            (d.initialCapital, 100_000), (d.finalEquity, result.finalEquity), (d.finalCash, result.finalCash),
            (d.totalReturnPercent, s.totalReturnPercent), (d.timeWeightedReturnPercent, s.timeWeightedReturnPercent),
            (d.moneyWeightedReturnPercent, s.moneyWeightedReturnPercent), (d.cagrPercent, s.cagrPercent),
            (d.sharpeRatio, s.sharpeRatio), (d.sortinoRatio, s.sortinoRatio), (d.calmarRatio, s.calmarRatio),
            (d.maxDrawdownPercent, s.maxDrawdownPercent), (d.winRatePercent, s.winRatePercent), (d.sqn, s.sqn),
            (d.profitFactor, s.profitFactor), (d.commissionsPaid, s.commissionsPaid), (d.exposurePercent, s.exposurePercent),
        ]
        for (a, b) in pairs { #expect(a?.bitPattern == b?.bitPattern) }
        // Percent conventions, checked against the raw result: total return in percent of the invested capital,
        // win rate in percent of the closed trades.
        expectClose(d.totalReturnPercent, (result.finalEquity / 100_000 - 1) * 100, relative: 1e-12)
        let wins = result.trades.filter { $0.pnl > 0 }.count
        expectClose(try #require(d.winRatePercent), 100 * Double(wins) / Double(result.trades.count), relative: 1e-15)
        // The money-weighted return (percent a year) is a root of the investor's flows (Actual/365).
        let rate = try #require(d.moneyWeightedReturnPercent) / 100
        let flows = moneyWeightedCashFlows(result), t0 = flows[0].time
        let npv = flows.reduce(0.0) { $0 + $1.amount / pow(1 + rate, Double($1.time - t0) / 86_400 / 365) }
        #expect(abs(npv) < 1e-6 * 100_000)
        #expect(d.openPositions.count == result.openPositions.count && d.openPositionCount == result.openPositions.count)
        #expect(d.config.maxPositions == 4 && d.config.sizing == .equalWeight && d.config.commissionRate == 0.001)
        #expect(d.config.rsiPeriod == nil && d.config.signalModel != nil && d.config.paths == ["Data/market"])
        #expect(d.conventions.periodsPerYear == 252 && d.conventions.ddof == 1)
        #expect(text.contains("\"initialCapital\": 100000.0,"))
        try Golden.check("backtest-summary.json", text)
        try Golden.check("backtest-summary.txt", run.summary.table())

        // Round trips: the library's Decodable and the ordered JSON value give the same bytes back.
        #expect(try APIJSON.encode(try JSONDecoder().decode(BacktestSummary.self, from: Data(text.utf8))) == text)
        #expect(try APIJSON.encode(try APIJSONValue.parse(text)) == text)
    }

    @Test("trade log CSV: the Trade contract's columns (id first) then commission and exitReason; equity curve CSV")
    func csvForms() throws {
        for request in [Self.sampleRequest,
                        BacktestRequest(strategy: .sentio, slippageBasisPoints: 5, sizing: .fraction, fraction: 0.25, fractionalShares: true)] {
            let run = try report(request, EngineFixtures.market())
            let result = run.result
            let csv = try run.tradeLogCSV()
            let lines = csv.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.last == "" && lines.count == result.trades.count + 2)
            // The first columns are exactly the trade history's CSV (the Trade contract), row for row.
            let contract = try BacktestContracts.tradeHistory(result).csv().split(separator: "\n").map(String.init)
            let extra = 2  // commission, exitReason
            for (row, expected) in zip(lines.dropLast(), contract) {
                let cells = row.split(separator: ",", omittingEmptySubsequences: false)
                #expect(cells.dropLast(extra).joined(separator: ",") == expected)
            }
            for (row, t) in zip(lines.dropFirst().dropLast(), result.trades) {
                let cells = row.split(separator: ",").map(String.init)
                #expect(UUID(uuidString: cells[0]) != nil && cells[1] == t.symbol)
                #expect(Double(cells[cells.count - 2])!.bitPattern == t.commission.bitPattern)
                #expect(cells.last == t.exitReason.rawValue)
                expectClose(Double(cells[7])!, Double(t.shares) * (t.exitPrice - t.entryPrice) - t.commission, relative: 1e-9, absolute: 1e-9)
            }
            let equity = try run.equityCurveCSV().split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
            #expect(equity[0] == ["timestamp", "equity", "cash", "positionsValue", "contribution", "drawdownPercent"])
            #expect(equity.count == result.timestamps.count + 1)
            for row in equity.dropFirst() {
                expectClose(Double(row[1])!, Double(row[2])! + Double(row[3])!, relative: 1e-12, absolute: 1e-6)
                #expect(Double(row[5])! <= 0)
            }
            let deepest = equity.dropFirst().map { Double($0[5])! }.min()!
            expectClose(deepest, run.summary.maxDrawdownPercent, relative: 1e-12)
            if !request.fractionalShares { try Golden.check("backtest-trades.csv", csv) }
        }
    }

    @Test("a saved run keeps the summary's bytes; runs list/show/compare decode strictly")
    func savedRuns() throws {
        let market = try EngineFixtures.market()
        let first = try report(Self.sampleRequest, market)
        let second = try report(BacktestRequest(strategy: .rsi, rsiLower: 25), Array(market.prefix(3)))
        let store = try SentioDatabase(path: try temporaryDirectory("api-runs").appendingPathComponent("s.sqlite").path)
        var ids: [Int64] = []
        for (k, run) in [first, second].enumerated() {
            let stored = try run.storedRun(label: k == 0 ? "sample" : nil, inputFingerprint: ContentFingerprint.of(series: market))
            ids.append(try store.saveRun(stored, trades: run.storedTrades, equity: run.storedEquity))
        }
        let back = try store.run(id: ids[0])
        #expect(back.run.statisticsJSON == (try first.summaryJSON()))  // the store keeps what APIJSON produced
        #expect(back.run.configJSON == (try APIJSON.encode(first.summary.config)))

        let detail = try RunDetail(back)
        let text = try APIJSON.encode(detail)
        let decoded = try Strict.decode(StrictRunDetail.self, text)
        #expect(decoded.id == ids[0] && decoded.label == "sample" && decoded.strategy == "sentio")
        #expect(decoded.trades.count == first.result.trades.count + first.result.openPositions.count)
        #expect(decoded.equity.count == first.result.timestamps.count && decoded.equityPointCount == decoded.equity.count)
        #expect(decoded.statistics.finalEquity.bitPattern == first.result.finalEquity.bitPattern)
        #expect(try APIJSON.encode(detail.record.statistics) == (try first.summaryJSON()))
        #expect(try APIJSON.encode(try JSONDecoder().decode(RunDetail.self, from: Data(text.utf8)).record.created) == (try APIJSON.encode(detail.record.created)))

        let list = try RunList(try store.runs())
        let listText = try APIJSON.encode(list)
        let runs = try Strict.decode(StrictRunList.self, listText).runs
        #expect(runs.map(\.id) == ids && runs[1].label == nil && runs[1].statistics.strategy == .rsi)
        #expect(listText.contains("\"label\": null"))

        let comparison = try RunComparison([back.run, try store.run(id: ids[1]).run])
        let compared = try APIJSONValue.parse(try APIJSON.encode(comparison))
        let statistics = try #require(compared["statistics"])
        #expect(statistics.fields.prefix(6).map(\.key) == RunRecord.headline.map(\.key))
        #expect(statistics["config"] == nil)
        #expect(statistics["sharpeRatio"] == .array([first.summary.sharpeRatio.map(APIJSONValue.number) ?? .null,
                                                     second.summary.sharpeRatio.map(APIJSONValue.number) ?? .null]))
        let differences = try #require(compared["configDifferences"]).fields.map(\.key)
        #expect(differences.contains("strategy") && differences.contains("rsiLower") && !differences.contains("commissionRate"))
        #expect(comparison.table().contains("config (differences)"))
        #expect(list.table(storePath: "s.sqlite").contains("sentio"))
        #expect(detail.table().contains("trades (\(decoded.trades.count))"))
    }

    @Test("property: seeded random markets and options; the summary decodes strictly, every number finite, bytes round-trip",
          arguments: [UInt64(0x12_0001), 0x12_0002, 0x12_0003])
    func randomMarkets(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        for case_ in 0..<25 {
            let symbols = Int.random(in: 1...3, using: &rng)
            let bars = Int.random(in: 2...220, using: &rng)
            let intraday = Bool.random(using: &rng)
            var series: [OHLCVSeries] = []
            for k in 0..<symbols {
                var s = OHLCVSeries(symbol: "S\(k)")
                var price = Double.random(in: 1...500, using: &rng)
                let volatility = [0.0, 0.01, 0.05, 0.3][Int.random(in: 0..<4, using: &rng)]
                for i in 0..<bars {
                    let open = price * exp(volatility * 0.3 * rng.nextGaussian())
                    var close = open * exp(volatility * rng.nextGaussian())
                    if Double.random(in: 0..<1, using: &rng) < 0.02 { close = open * 0.2 }  // a crash
                    let high = max(open, close) * (1 + volatility * abs(rng.nextGaussian()) * 0.1)
                    let low = min(open, close) * (1 - min(0.9, volatility * abs(rng.nextGaussian()) * 0.1))
                    let time = intraday ? 1_700_000_000 + Int64(i) * 300 : Int64(19_000 + i) * 86_400
                    s.append(timestamp: time, open: open, high: high, low: low, close: close, volume: 100)
                    price = close
                }
                series.append(s)
            }
            let strategy = StrategyKind.allCases[Int.random(in: 0..<4, using: &rng)]
            var request = BacktestRequest(
                strategy: strategy, commissionRate: [0, 0.001, 0.01][Int.random(in: 0..<3, using: &rng)],
                feePerOrder: Bool.random(using: &rng) ? 0 : 1, slippageBasisPoints: Double(Int.random(in: 0...20, using: &rng)),
                fill: Bool.random(using: &rng) ? .nextOpen : .close, fractionalShares: Bool.random(using: &rng))
            if strategy == .rsi { request.rsiPeriod = Int.random(in: 2...20, using: &rng) }
            if strategy == .dca { request.dcaPeriod = Bool.random(using: &rng) ? .week : .month }
            if strategy != .dca, Bool.random(using: &rng) { request.stopLossPercent = 5; request.takeProfitPercent = 10 }
            if strategy != .dca, Bool.random(using: &rng) { request.sizing = .fraction; request.fraction = 0.5 }
            let run = try report(request, series)
            let text = try run.summaryJSON()
            // The default benchmark is null exactly when a warning says why (here: markets of flat symbols, whose
            // equal-weight index does not vary, or too few bars).
            try expectShape(BacktestShapes.backtestSummary(benchmark: run.benchmark != nil), text)
            #expect((run.benchmark == nil) == run.warnings.contains { $0.code == "benchmark-unavailable" }, "case \(case_)")
            let decoded = try Strict.decode(StrictBacktestSummary.self, text)
            #expect(decoded.bars == run.result.timestamps.count, "case \(case_)")
            let tokens = numberTokens(try RawJSON.parse(text))
            #expect(tokens.count > 20)
            for token in tokens { #expect(Double(token)?.isFinite == true, "case \(case_): \(token)") }
            #expect(try APIJSON.encode(try APIJSONValue.parse(text)) == text, "case \(case_)")
            #expect(try APIJSON.encode(try JSONDecoder().decode(BacktestSummary.self, from: Data(text.utf8))) == text, "case \(case_)")
            #expect(!run.summary.table().contains("nan"), "case \(case_)")
            _ = try run.tradeLogCSV()
            _ = try run.equityCurveCSV()
        }
    }

    @Test("benchmark object: the library's statistics; a given benchmark that cannot be aligned throws; the default one is null with a warning")
    func benchmarkAndWarnings() throws {
        let series = try EngineFixtures.market()
        let run = try report(BacktestRequest(strategy: .rsi), series)
        let d = try Strict.decode(StrictBacktestSummary.self, try run.summaryJSON())
        let b = try #require(run.benchmark)
        let strict = try #require(d.benchmark)
        #expect(strict.symbol == "equal-weight buy-and-hold" && strict.commonBars == run.result.timestamps.count)
        #expect(strict.alpha.bitPattern == b.alpha.bitPattern && strict.beta.bitPattern == b.beta.bitPattern)
        #expect(strict.informationRatio?.bitPattern == b.informationRatio?.bitPattern)
        #expect(strict.trackingErrorPercent.bitPattern == b.trackingErrorPercent.bitPattern)
        #expect(run.summary.table().contains("Alpha (annualized)"))

        let result = run.result
        let request = BacktestRequest(strategy: .rsi)
        let elsewhere = BenchmarkSeries(name: "LATER", timestamps: [4_000_000_000, 4_000_086_400], values: [1, 2])
        #expect(throws: BenchmarkError.tooFewCommonBars(benchmark: "LATER", common: 0)) {
            try BacktestRunReport(result: result, request: request, source: BacktestDataSource(), benchmark: .given(elsewhere))
        }
        let fallback = try BacktestRunReport(result: result, request: request, source: BacktestDataSource(), benchmark: .standard(elsewhere))
        let text = try fallback.summaryJSON()
        try expectShape(BacktestShapes.backtestSummary(benchmark: false), text)
        let decoded = try Strict.decode(StrictBacktestSummary.self, text)
        #expect(decoded.benchmark == nil && decoded.warnings.map(\.code).contains("benchmark-unavailable"))
        #expect(decoded.warnings.first { $0.code == "benchmark-unavailable" }?.message.contains("0 bar(s) in common") == true)
    }

    @Test("holding periods read in the bars' unit: minutes for minute bars, hours, days")
    func holdingUnits() {
        #expect(TextTable.duration(days: 3.2 / 1440) == "3.2 minutes")
        #expect(TextTable.duration(days: 5.0 / 24) == "5.0 hours")
        #expect(TextTable.duration(days: 163.1) == "163.1 days")
        #expect(TextTable.duration(days: nil) == "n/a")
    }

    @Test("a DCA run in an investor currency: the currency object in both currencies, events NDJSON")
    func investorCurrency() throws {
        var rng = SplitMix64(seed: 0x12_00CC)
        var usd = OHLCVSeries(symbol: "SPXL")
        var price = 100.0
        var dates: [CivilDate] = [], rates: [Double] = []
        for i in 0..<120 {
            let day = 19_359 + i
            let close = price * exp(0.02 * rng.nextGaussian())
            usd.append(timestamp: Int64(day) * 86_400, open: price, high: max(price, close) * 1.01, low: min(price, close) * 0.99, close: close, volume: 1)
            price = close
            if i % 7 != 3 { dates.append(CivilDate(daysSinceEpoch: day)); rates.append(1.25 + 0.05 * sin(Double(i) / 10)) }
        }
        let request = BacktestRequest(strategy: .dca, dcaAmount: 250, dcaPeriod: .week, investorCurrency: "GBP")
        let translated = try InvestorCurrencyMarket(assetSeries: [usd], rates: ExchangeRates(dates: dates, rates: rates), ratesName: "fx.csv")
        let result = try Backtest(request.configuration(symbolCount: 1)).run(try request.makeStrategy(), on: try Market(translated.series))
        #expect(result.configuration.fractionalShares)
        let currency = try BacktestCurrencyReport(translated: translated, result: result, request: request, investorCurrency: "GBP", fxFile: "fx.csv")
        #expect(currency.scheduleID == "dca-week-250GBP")
        let run = try BacktestRunReport(result: result, request: request, source: BacktestDataSource(paths: ["SPXL.csv"]), fxFile: "fx.csv", currency: currency)
        let text = try run.summaryJSON()
        try expectShape(BacktestShapes.backtestSummary(investorCurrency: "GBP", benchmark: false), text)
        let decoded = try Strict.decode(StrictBacktestSummary.self, text)
        let c = try #require(decoded.currency)
        #expect(c.invested["GBP"] == result.totalContributions && c.value["GBP"] == result.finalEquity)
        #expect(c.executions == currency.executions.count && c.executions > 10)
        #expect(decoded.config.currency == "GBP" && decoded.config.fx == "fx.csv" && decoded.config.amount == 250 && decoded.config.every == .week)
        #expect(try APIJSON.encode(try JSONDecoder().decode(BacktestSummary.self, from: Data(text.utf8))) == text)
        let events = try currency.eventsNDJSON().split(separator: "\n")
        #expect(events.count == currency.executions.count)
        for line in events {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            #expect(object["event"] == "dca_executed" && object["dca_schedule_id"] == "dca-week-250GBP" && object["amount_gbp"] != nil)
        }
        #expect(run.summary.table().contains("FX effect"))
    }

    @Test("a statistic that is not finite is an error naming it, never null")
    func nonFinite() throws {
        let run = try report(BacktestRequest(strategy: .buyAndHold), Array(try EngineFixtures.market().prefix(1)))
        var statistics = run.statistics
        statistics.sharpeRatio = .infinity
        do {
            _ = try BacktestSummary(result: run.result, statistics: statistics, config: run.summary.config)
            Issue.record("an infinite Sharpe ratio was accepted")
        } catch {
            #expect(error.field == "sharpeRatio")
        }
        var summary = run.summary
        summary.finalEquity = .nan
        #expect(throws: APIEncodingError.self) { try APIJSON.encode(summary) }
    }

    @Test("the money-weighted return passed to SentioBacktest is SentioFunds' XIRR")
    func moneyWeightedReturn() throws {
        let flows: [(time: Int64, amount: Double)] = [(0, -1_000), (365 * 86_400, 1_100)]
        expectClose(try #require(BacktestMoneyWeightedReturn.xirr(flows)), 0.1, relative: 1e-12)
        #expect(BacktestMoneyWeightedReturn.xirr([(0, -1_000), (86_400, -5)]) == nil)  // no sign change: undefined
    }
}

@Suite("APIJSONValue: ordered JSON read back and written again")
struct APIJSONValueTests {
    @Test("escapes, unicode, numbers and nesting; errors name the offset")
    func parsing() throws {
        let v = try APIJSONValue.parse(#" {"b": [1, -0, 2.5, 1e3, true, null], "a": "x\"\\\/\n\u00e9\ud83d\ude00", "c": {}} "#)
        #expect(v.fields.map(\.key) == ["b", "a", "c"])
        #expect(v["b"] == .array([.integer(1), .integer(0), .number(2.5), .number(1000), .bool(true), .null]))
        #expect(v["a"] == .string("x\"\\/\né😀"))
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\x\"", "nul", "1 2", "\"\u{1}\"", "\"\\ud800\""] {
            #expect(throws: APIJSONParseError.self, "\(bad)") { try APIJSONValue.parse(bad) }
        }
    }

    @Test("property: random values survive encode → parse → encode unchanged", arguments: [UInt64(0x12_00AA), 0x12_00AB])
    func roundTrip(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        func random(_ depth: Int) -> APIJSONValue {
            switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &rng) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &rng))
            case 2: return .integer(Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &rng))
            case 3:
                let x = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng))
                return .number(x.isFinite ? x : rng.nextGaussian())
            case 4: return .string(String((0..<Int.random(in: 0...8, using: &rng)).map { _ in "a\"\\\n\té😀,{}".randomElement(using: &rng)! }))
            case 5: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in random(depth + 1) })
            default: return .object((0..<Int.random(in: 0...4, using: &rng)).map { k in .init("k\(k)", random(depth + 1)) })
            }
        }
        for _ in 0..<400 {
            let value = random(0)
            let text = try APIJSON.encode(value)
            let back = try APIJSONValue.parse(text)
            #expect(try APIJSON.encode(back) == text)
            #expect(back == value, "\(text)")
        }
    }
}
