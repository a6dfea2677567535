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

private struct Box: Codable { var x: Double }

@Suite("The contract encoder: numbers, timestamps, non-finite values, key order, ids")
struct EncoderTests {
    @Test("UUIDv5: RFC 4122/9562 example (DNS namespace, www.example.com)")
    func uuidVector() {
        let dns: [UInt8] = [0x6B, 0xA7, 0xB8, 0x10, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0x00, 0xC0, 0x4F, 0xD4, 0x30, 0xC8]
        #expect(ContractID.version5(namespace: dns, name: "www.example.com") == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
        // Contract ids: deterministic, distinct for distinct content, version 5.
        #expect(ContractID.make("fund", "NVP-III") == ContractID.make("fund", "NVP-III"))
        #expect(ContractID.make("fund", "NVP-III") != ContractID.make("fund", "AEG-VII"))
        #expect(Array(ContractID.make("trade", "A"))[14] == "5")
    }

    static let specials: [Double] = [
        0, -0.0, 1, -1, 0.1, 0.2, 0.30000000000000004, 1e300, -1e300, 1e-300, Double(bitPattern: 1), -Double(bitPattern: 1),
        Double.leastNormalMagnitude, Double.leastNormalMagnitude.nextDown, Double.greatestFiniteMagnitude,
        -Double.greatestFiniteMagnitude, 100_000, 1e15, 1e16, 1e17, 123456789.123456789, 1e-5, 1e-7, 2.5e-308,
        9007199254740992.0.nextUp, 0.000001, 1e21, 1e22,
    ]

    @Test("numbers round-trip: encode → JSONDecoder gives the same bits (specials, subnormals, 20,000 seeded random bit patterns)")
    func numbersRoundTrip() throws {
        var g = SplitMix64(seed: 0x5EED_0A91)
        var values = Self.specials
        while values.count < 20_000 + Self.specials.count {
            let x = Double(bitPattern: g.next())
            if x.isFinite { values.append(x) }
        }
        // Subnormals specifically (random bit patterns rarely hit them).
        for _ in 0..<2_000 { values.append(Double(bitPattern: g.next() & 0x800F_FFFF_FFFF_FFFF)) }
        let decoder = JSONDecoder()
        for x in values {
            let text = try APIJSON.encode(Box(x: x))
            let back = try decoder.decode(Box.self, from: Data(text.utf8)).x
            #expect(back.bitPattern == x.bitPattern, "\(x) was written as \(text)")
            // And the shortest form: the text's number is Swift's shortest round-trip representation.
            #expect(text == "{\n  \"x\": \(x.description)\n}\n")
        }
    }

    @Test("a non-finite number is an error naming the field, never null (seeded: every Signal number field, NaN and ±inf)")
    func nonFinite() throws {
        let base = try SignalContracts.response(series: EngineFixtures.market(), config: SignalModelConfig())
        let fields: [(String, WritableKeyPath<APISignal, Double>)] = [
            ("price", \.price), ("change", \.change), ("changePercent", \.changePercent), ("confidence", \.confidence),
            ("targetReturn", \.targetReturn), ("stopLoss", \.stopLoss), ("profitTarget", \.profitTarget),
            ("aiSignal", \.aiSignal), ("rsi", \.rsi), ("volumeRatio", \.volumeRatio),
        ]
        let bad: [Double] = [.nan, .infinity, -.infinity, -.nan, .signalingNaN]
        var g = SplitMix64(seed: 1212)
        for _ in 0..<500 {
            var response = base
            let k = Int(g.next() % UInt64(response.signals.count))
            let (name, path) = fields[Int(g.next() % UInt64(fields.count))]
            response.signals[k][keyPath: path] = bad[Int(g.next() % UInt64(bad.count))]
            do {
                _ = try APIJSON.encode(response)
                Issue.record("a non-finite \(name) was encoded")
            } catch {
                #expect(error.field == "signals[\(k)].\(name)", "\(error)")
            }
        }
        // Nested deeper: a portfolio position and the trade CSV.
        var portfolio = try BacktestContracts.portfolio(EngineFixtures.backtest(fractional: false))
        try #require(!portfolio.positions.isEmpty)
        portfolio.positions[0].pnl = .nan
        #expect(throws: APIEncodingError(field: "positions[0].pnl",
            message: "non-finite number nan: a contract number is never null, NaN or infinite")) { try APIJSON.encode(portfolio) }
        var history = try BacktestContracts.tradeHistory(EngineFixtures.backtest(fractional: false))
        history.trades[2].pnlPercent = .infinity
        #expect(throws: APIEncodingError.self) { try history.csv() }
        do { _ = try history.csv() } catch { #expect(error.field == "trades[2].pnlPercent") }
    }

    @Test("engine signals that cannot be contracts are errors: warm-up, NaN volume ratio")
    func signalAdapterErrors() throws {
        let tqqq = try #require(EngineFixtures.market().first { $0.symbol == "TQQQ" })
        let signals = try SignalModel.evaluate(tqqq)
        #expect(throws: APIContractError.self) { try SignalContracts.signal(signals[0], config: SignalModelConfig()) }
        var nanVolume = signals.last!
        nanVolume.volumeRatio = .nan
        do {
            _ = try SignalContracts.signal(nanVolume, config: SignalModelConfig())
            Issue.record("NaN volumeRatio accepted")
        } catch { #expect(error.field == "volumeRatio" && error.subject == "TQQQ") }
        #expect(throws: APIContractError.self) { try SignalContracts.response([], config: SignalModelConfig()) }
    }

    @Test("timestamps: ISO-8601 UTC with Z, dates at midnight; the strict parser accepts exactly that form")
    func timestamps() throws {
        #expect(APITimestamp(CivilDate(year: 2024, month: 12, day: 31)!).description == "2024-12-31T00:00:00Z")
        #expect(try APIJSON.encode(APITimestamp(epochSeconds: 1_735_603_200)) == "\"2024-12-31T00:00:00Z\"\n")
        var g = SplitMix64(seed: 77)
        for _ in 0..<5_000 {
            // From 1583 on: Foundation's Gregorian calendar (the oracle) is Julian before the 1582 reform, while
            // Sentio's dates are proleptic Gregorian throughout.
            let low = CivilDate(year: 1583, month: 1, day: 1)!.epochSeconds
            let t = Int64(g.next() % UInt64(CivilDate.supportedEpochSeconds.upperBound - low)) + low
            let text = APITimestamp(epochSeconds: t).description
            #expect(APITimestamp(iso: text)?.epochSeconds == t)
            let date = try #require(Strict.parseTimestamp(text))
            #expect(Int64(date.timeIntervalSince1970) == t)
        }
        for bad in ["2024-12-31", "2024-12-31T00:00:00", "2024-12-31T00:00:00+00:00", "2024-12-31T24:00:00Z",
                    "2024-02-30T00:00:00Z", "2024-12-31 00:00:00Z", "2024-12-31T00:00:00.000Z"] {
            #expect(APITimestamp(iso: bad) == nil, "\(bad)")
        }
    }

    @Test("optional fields encode as explicit null; key order is declaration order")
    func nullsAndOrder() throws {
        let doc = Document(id: ContractID.make("document", "X", "report", "1"), type: .quarterlyReport, title: "t",
            uploadDate: APITimestamp(epochSeconds: 0), dueDate: nil, callAmount: nil, paymentStatus: nil, url: nil,
            parsedData: OrderedStrings([("z", "1"), ("a", "2")]))
        let text = try APIJSON.encode(doc)
        try expectShape(Shapes.document, text)
        #expect(text.contains("\"url\": null") && text.contains("\"callAmount\": null"))
        guard case .object(let fields) = try RawJSON.parse(text), case .object(let parsed)? = fields.last?.1 else {
            Issue.record("not an object"); return
        }
        #expect(parsed.map(\.0) == ["z", "a"], "parsedData keeps its order")
        // Unsupported Foundation types are refused, not written in some default form.
        struct WithDate: Encodable { var d = Date(timeIntervalSince1970: 0) }
        #expect(throws: APIEncodingError.self) { try APIJSON.encode(WithDate()) }
    }

    @Test("payment status rule: paid = counted in paidIn; PAID/LATE from the payment date, PENDING/OVERDUE from the as-of date")
    func paymentStatus() throws {
        let call = CivilDate(year: 2024, month: 3, day: 1)!, due = CivilDate(year: 2024, month: 3, day: 15)!
        let before = CivilDate(year: 2024, month: 3, day: 10)!, after = CivilDate(year: 2024, month: 4, day: 1)!
        func status(_ s: CapitalCallStatus, _ dueDate: CivilDate?, paid: CivilDate? = nil, _ asOf: CivilDate) -> PaymentStatus {
            FundContracts.paymentStatus(isPaid: !s.isActive, callDate: call, dueDate: dueDate, paymentDate: paid, asOf: asOf)
        }
        #expect(status(.paid, due, after) == .paid)
        #expect(status(.paid, nil, after) == .paid)
        #expect(status(.paid, due, paid: due, after) == .paid)
        #expect(status(.paid, due, paid: after, after) == .late)
        #expect(status(.paid, due, paid: after, before) == .pending, "paid only after the as-of date")
        #expect(status(.pending, due, before) == .pending)
        #expect(status(.pending, due, due) == .pending)
        #expect(status(.pending, due, after) == .overdue)
        #expect(status(.late, due, before) == .pending, "unpaid in SentioFunds, not yet due")
        #expect(status(.late, due, after) == .overdue)
        #expect(status(.overdue, due, before) == .pending)
        #expect(status(.overdue, due, after) == .overdue)
        #expect(status(.pending, nil, after) == .pending)
        // Seeded property: the status agrees with paidIn (PAID/LATE iff paid by asOf) and with the due date.
        var g = SplitMix64(seed: 31)
        for _ in 0..<5_000 {
            let callDate = CivilDate(daysSinceEpoch: 18_000 + Int(g.next() % 1_000))
            let dueDate: CivilDate? = g.next() % 4 == 0 ? nil : callDate.addingDays(Int(g.next() % 60))
            let paymentDate: CivilDate? = g.next() % 2 == 0 ? nil : callDate.addingDays(Int(g.next() % 90))
            let asOf = callDate.addingDays(Int(g.next() % 120))
            let isPaid = g.next() % 2 == 0
            let s = FundContracts.paymentStatus(isPaid: isPaid, callDate: callDate, dueDate: dueDate, paymentDate: paymentDate, asOf: asOf)
            let paidBy = isPaid && (paymentDate ?? callDate) <= asOf
            #expect((s == .paid || s == .late) == paidBy)
            if s == .late { #expect(dueDate != nil && (paymentDate ?? callDate) > dueDate!) }
            if s == .overdue { #expect(dueDate != nil && asOf > dueDate!) }
            if s == .pending, let dueDate { #expect(asOf <= dueDate) }
        }
    }

    @Test("capital call parsedData percentage: share of commitment, 2 decimals, trailing zeros dropped")
    func callPercentage() throws {
        let d = CivilDate(year: 2020, month: 1, day: 1)!
        func event(_ type: FundEventType, _ amount: String, _ day: Int) -> FundEvent {
            FundEvent(fundID: "F", date: d.addingDays(day), type: type, amount: MoneyAmount(text: amount)!, line: 0)
        }
        let m = FundMetrics(id: "F", events: [event(.commitment, "1000000", 0), event(.call, "50000", 1),
            event(.call, "68682.84", 2), event(.nav, "120000", 3), event(.nav, "130000", 340)])
        let docs = FundContracts.documents(m)
        #expect(docs.map(\.parsedData["percentage"]) == ["5%", "6.87%", nil, nil])
        #expect(docs.map(\.type) == [.capitalCall, .capitalCall, .quarterlyReport, .annualReport])
        #expect(docs.map(\.title) == ["Capital Call #1", "Capital Call #2", "Q1 2020 Quarterly Report", "Annual Report 2020"])
    }

    @Test("America/New_York without tzdata equals Foundation's zone (8,000 seeded instants 1990–2037)")
    func newYorkOffsets() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        var g = SplitMix64(seed: 2007)
        let start = CivilDate(year: 1990, month: 1, day: 1)!.epochSeconds, end = CivilDate(year: 2037, month: 12, day: 31)!.epochSeconds
        var instants: [Int64] = []
        for _ in 0..<6_000 { instants.append(start + Int64(g.next() % UInt64(end - start))) }
        // Around every transition: ±1 s and ±1 h.
        for year in 1990...2037 {
            for month in [3, 4, 10, 11] {
                for day in 1...31 where CivilDate(year: year, month: month, day: day) != nil {
                    let midnight = CivilDate(year: year, month: month, day: day)!.epochSeconds
                    if CivilDate(year: year, month: month, day: day)!.weekday == 6 {
                        for delta: Int64 in [6 * 3600 - 1, 6 * 3600, 7 * 3600 - 1, 7 * 3600] { instants.append(midnight + delta) }
                    }
                }
            }
        }
        for t in instants {
            let expected = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(t)))
            #expect(ExchangeTimeZone.newYork.secondsFromGMT(at: t) == Int64(expected), "\(iso8601(epochSeconds: t))")
        }
    }

    @Test("dayPnL with intraday bars: the exchange-local day's change (oracle: Foundation's New York calendar)")
    func dayPnLIntraday() throws {
        // Hourly bars from 13:00 to 21:00 UTC over 6 days, two symbols; buy and hold.
        var g = SplitMix64(seed: 44)
        var series: [OHLCVSeries] = []
        for symbol in ["A", "B"] {
            var s = OHLCVSeries(symbol: symbol)
            var price = 50.0
            for day in 0..<6 {
                for hour in 13...21 {
                    let t = CivilDate(year: 2024, month: 11, day: 1)!.epochSeconds + Int64(day * 86_400 + hour * 3600)
                    let close = price * exp(0.01 * g.nextGaussian())
                    s.append(timestamp: t, open: price, high: max(price, close) * 1.001, low: min(price, close) * 0.999,
                        close: close, volume: 1_000)
                    price = close
                }
            }
            series.append(s)
        }
        let result = try Backtest(BacktestConfiguration(sizing: .equalWeight(maxPositions: 2)))
            .run(BuyAndHoldStrategy(), on: Market(series))
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        func day(_ t: Int64) -> DateComponents {
            calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(t)))
        }
        let n = result.timestamps.count
        let today = day(result.timestamps[n - 1])
        let previousIndex = try #require(result.timestamps.indices.last { day(result.timestamps[$0]) != today })
        let expected = result.equity[n - 1] - result.equity[previousIndex]
        let portfolio = try BacktestContracts.portfolio(result)
        #expect(portfolio.dayPnL == expected)
        #expect(portfolio.dayPnLPercent == 100 * expected / result.equity[previousIndex])
        // 20:00 and 21:00 UTC are 15:00/16:00 in New York but already the next day in a UTC+5 zone.
        let shifted = try BacktestContracts.portfolio(result, exchangeTimeZone: .fixed(identifier: "UTC+5", secondsFromGMT: 5 * 3600))
        #expect(shifted.dayPnL != portfolio.dayPnL)
        #expect(throws: APIContractError.self) { try BacktestContracts.tradeHistory(result) }
    }
}

extension CivilDate {
    func addingDays(_ n: Int) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + n) }
}
