import Foundation
import SentioBacktest
import SentioCore
import SentioData
import SentioLive
import SentioStore
import SentioTestSupport
import Testing

/// A random daily USD series of `X` and random GBPUSD rates (some days missing), with a random DCA plan and costs.
private struct RandomCase {
    var series: OHLCVSeries
    var rates: ExchangeRates
    var configuration: BacktestConfiguration
    var amount: Double
    var period: ContributionPeriod

    init(_ rng: inout SplitMix64) {
        let n = Int.random(in: 5...90, using: &rng)
        var price = Double.random(in: 20...200, using: &rng)
        let start: Int64 = 1_704_067_200 + Int64.random(in: 0...400, using: &rng) * 86_400  // from 2024-01-01
        var timestamps: [Int64] = [], open: [Double] = [], high: [Double] = [], low: [Double] = [], close: [Double] = []
        var t = start
        for _ in 0..<n {
            t += Int64.random(in: 1...3, using: &rng) * 86_400
            let o = price * exp(rng.nextGaussian() * 0.01)
            let c = o * exp(rng.nextGaussian() * 0.02)
            timestamps.append(t)
            open.append(o)
            high.append(max(o, c) * 1.01)
            low.append(min(o, c) * 0.99)
            close.append(c)
            price = c
        }
        series = OHLCVSeries(symbol: "X", timestamps: timestamps, open: open, high: high, low: low, close: close,
                             volume: Array(repeating: 1_000, count: n))
        var dates: [CivilDate] = [], values: [Double] = []
        var rate = Double.random(in: 1.1...1.4, using: &rng)
        for i in 0..<n {
            rate *= exp(rng.nextGaussian() * 0.005)
            if i > 0 && Int.random(in: 0..<5, using: &rng) == 0 { continue }  // a day without a rate
            dates.append(CivilDate(epochSeconds: timestamps[i]))
            values.append(rate)
        }
        rates = ExchangeRates(dates: dates, rates: values)
        let costs = TradingCosts(
            commissionRate: [0, 0.001, 0.0025].randomElement(using: &rng)!, feePerOrder: [0, 1.5].randomElement(using: &rng)!,
            slippageBasisPoints: [0, 3, 10].randomElement(using: &rng)!)
        configuration = BacktestConfiguration(
            initialCapital: 0, fill: Bool.random(using: &rng) ? .nextOpen : .close, costs: costs, fractionalShares: true)
        amount = [50, 100, 333.33].randomElement(using: &rng)!
        period = Bool.random(using: &rng) ? .week : .month
    }

    /// `backtest --strategy dca --currency GBP --fx`: the run on the translated prices.
    func backtest() throws -> BacktestResult {
        let translated = try InvestorCurrencyMarket(assetSeries: [series], rates: rates)
        return try Backtest(configuration).run(DollarCostAveragingStrategy(amount: amount, every: period), on: try Market(translated.series))
    }

    /// The feed: X's bars and, on each rate's day, a GBPUSD bar at that day's X bar time (close = the rate).
    var feed: [FeedBar] {
        var out: [FeedBar] = []
        var k = 0
        for i in 0..<series.count {
            let day = CivilDate(epochSeconds: series.timestamps[i])
            if k < rates.dates.count, rates.dates[k] == day {
                let r = rates.rates[k]
                out.append(FeedBar(symbol: "GBPUSD", bar: Bar(timestamp: series.timestamps[i], open: r, high: r, low: r, close: r, volume: 0)))
                k += 1
            }
            out.append(FeedBar(symbol: "X", bar: series[bar: i]))
        }
        return out
    }

    func brokerageConfiguration(ratesUpFront: Bool) -> PaperBrokerage.Configuration {
        PaperBrokerage.Configuration(costs: configuration.costs, fill: configuration.fill, rates: ratesUpFront ? rates : nil)
    }
}

/// Opens a brokerage in a fresh store with one investor who deposited `deposit` GBP and a schedule from the first bar.
private func openAccount(_ c: RandomCase, ratesUpFront: Bool, deposit: Double, at path: String) throws -> PaperBrokerage {
    let b = try PaperBrokerage(database: try SentioDatabase(path: path), configuration: c.brokerageConfiguration(ratesUpFront: ratesUpFront))
    _ = try b.signIn(id: "user-1", email: "a@example.com", firstName: "A", lastName: "B", now: 0)
    _ = try b.transfer(userID: "user-1", id: "t1", direction: "INCOMING", amount: deposit, currency: "GBP", now: 0)
    _ = try b.createSchedule(userID: "user-1", id: "s1", symbol: "X", amountGBP: c.amount, every: c.period.rawValue, start: c.series.timestamps[0], now: 0)
    return b
}

/// Feeds `bars` in random batches.
private func feed(_ b: PaperBrokerage, _ bars: [FeedBar], _ rng: inout SplitMix64) throws -> [PaperEvent] {
    var events: [PaperEvent] = []
    var i = 0
    while i < bars.count {
        let n = Int.random(in: 1...6, using: &rng)
        events += try b.ingest(Array(bars[i..<min(bars.count, i + n)]))
        i += n
    }
    return events
}

@Suite("Paper brokerage: DCA in GBP with the backtest's rules")
struct PaperBrokerageTests {
    @Test("a user's filled DCA orders equal the backtest's buys, bit for bit, and the cash is the deposit less them (60 seeded cases; rates from the feed or up front)")
    func parityWithBacktest() throws {
        var rng = SplitMix64(seed: 0x32_0001)
        let directory = try temporaryDirectory("paper-brokerage")
        for k in 0..<60 {
            let c = RandomCase(&rng)
            let result = try c.backtest()
            let ratesUpFront = k % 2 == 0
            let b = try openAccount(c, ratesUpFront: ratesUpFront, deposit: 1_000_000, at: directory.appendingPathComponent("\(k).sqlite").path)
            _ = try feed(b, ratesUpFront ? c.feed.filter { $0.symbol != "GBPUSD" } : c.feed, &rng)
            let buys = result.orders.filter(\.isFilled)
            let filled = b.orders("user-1").filter { $0.status == "filled" }
            try #require(filled.count == buys.count, "case \(k): \(filled.count) fills, the backtest \(buys.count)")
            var spent = 0.0
            for (o, x) in zip(filled, buys) {
                #expect(o.resolvedAt == result.timestamps[x.resolvedStep])
                #expect(o.quantity == x.shares)
                #expect(o.fillPriceGBP == x.fillPrice)
                #expect(o.commissionGBP == x.commission)
                spent += o.quantity * o.fillPriceGBP + o.commissionGBP
            }
            // Nothing rejected: the deposit covers every purchase; the last one may still wait for its bar.
            #expect(b.orders("user-1").allSatisfy { $0.status == "filled" || $0.status == "new" })
            expectClose(b.cashGBP("user-1"), 1_000_000 - spent, relative: 1e-12)
            let position = try #require(b.positions("user-1").first)
            expectClose(position.quantity, buys.reduce(0) { $0 + $1.shares }, relative: 1e-12)
        }
    }

    @Test("without enough cash a due schedule fails with the reason and places no order; cash never goes negative (seeded)")
    func insufficientCash() throws {
        var rng = SplitMix64(seed: 0x32_0002)
        let directory = try temporaryDirectory("paper-brokerage-cash")
        for k in 0..<20 {
            let c = RandomCase(&rng)
            let deposit = c.amount * Double(Int.random(in: 0...3, using: &rng)) + 0.01
            let b = try openAccount(c, ratesUpFront: true, deposit: deposit, at: directory.appendingPathComponent("\(k).sqlite").path)
            var cashSeen: [Double] = []
            for bar in c.feed where bar.symbol == "X" {
                let events = try b.ingest([bar])
                cashSeen.append(b.cashGBP("user-1"))
                for case .dcaFailed(_, _, _, _, let reason) in events.map(\.kind) {
                    #expect(reason.hasPrefix("insufficient cash"))
                }
            }
            #expect(cashSeen.allSatisfy { $0 >= 0 })
            let placed = b.orders("user-1").count
            // Each order reserves its amount: at most floor(deposit / amount) orders.
            #expect(placed <= Int(deposit / c.amount))
        }
    }

    @Test("a restart (the process gone, the store kept) then the whole feed again gives the same account as one uninterrupted run (seeded)")
    func restartReplaysToSameAccount() throws {
        var rng = SplitMix64(seed: 0x32_0003)
        let directory = try temporaryDirectory("paper-brokerage-restart")
        for k in 0..<25 {
            let c = RandomCase(&rng)
            let bars = c.feed
            let whole = try openAccount(c, ratesUpFront: false, deposit: 50_000, at: directory.appendingPathComponent("w\(k).sqlite").path)
            _ = try feed(whole, bars, &rng)
            let path = directory.appendingPathComponent("r\(k).sqlite").path
            let first = try openAccount(c, ratesUpFront: false, deposit: 50_000, at: path)
            let cut = Int.random(in: 0...bars.count, using: &rng)
            _ = try feed(first, Array(bars[..<cut]), &rng)
            let restarted = try PaperBrokerage(database: try SentioDatabase(path: path), configuration: c.brokerageConfiguration(ratesUpFront: false))
            #expect(restarted.orders("user-1") == first.orders("user-1"))
            let replayEvents = try feed(restarted, bars, &rng)
            // The bars before the cut are duplicates: no order is placed twice.
            let before = Set(first.orders("user-1").map(\.id))
            #expect(replayEvents.allSatisfy { if case .orderCreated(let o) = $0.kind { !before.contains(o.id) } else { true } })
            #expect(restarted.orders("user-1") == whole.orders("user-1"))
            #expect(restarted.cashGBP("user-1") == whole.cashGBP("user-1"))
            #expect(restarted.positions("user-1") == whole.positions("user-1"))
            #expect(restarted.schedules("user-1") == whole.schedules("user-1"))
        }
    }

    @Test("a pending sale and a pending withdrawal survive a restart: settled at the next bars as without it, the account equal to the last bit; cash never negative (seeded)")
    func salesAndWithdrawalsAcrossRestart() throws {
        var rng = SplitMix64(seed: 0x32_0004)
        let directory = try temporaryDirectory("paper-brokerage-sales")
        for k in 0..<25 {
            let c = RandomCase(&rng)
            let bars = c.feed
            let path = directory.appendingPathComponent("r\(k).sqlite").path
            let whole = try openAccount(c, ratesUpFront: true, deposit: 5_000, at: directory.appendingPathComponent("w\(k).sqlite").path)
            let first = try openAccount(c, ratesUpFront: true, deposit: 5_000, at: path)
            let cut = Int.random(in: 1...bars.count, using: &rng)
            // The same batches for both (a withdrawal settles after a batch's timestamp).
            var batches = rng
            _ = try feed(whole, Array(bars[..<cut]), &batches)
            _ = try feed(first, Array(bars[..<cut]), &rng)
            rng = batches
            let percentage = [25.0, 50, 100].randomElement(using: &rng)!
            let withdrawal = (whole.withdrawableGBP("user-1") * Double.random(in: 0.1...1.2, using: &rng) * 100).rounded(.down) / 100
            for b in [whole, first] {
                if !b.positions("user-1").isEmpty {
                    _ = try b.closePosition(userID: "user-1", id: "sell", symbol: "X", quantity: nil, percentage: percentage, now: 1)
                }
                if withdrawal > 0 {
                    if withdrawal <= b.withdrawableGBP("user-1") {
                        let (t, events) = try b.transfer(userID: "user-1", id: "w", direction: "OUTGOING", amount: withdrawal, currency: "GBP", now: 1)
                        #expect(t.status == "PENDING" && events.isEmpty)
                    } else {
                        #expect(throws: PaperBrokerageError.self) {
                            try b.transfer(userID: "user-1", id: "w", direction: "OUTGOING", amount: withdrawal, currency: "GBP", now: 1)
                        }
                    }
                }
            }
            let restarted = try PaperBrokerage(database: try SentioDatabase(path: path), configuration: c.brokerageConfiguration(ratesUpFront: true))
            #expect(restarted.orders("user-1") == whole.orders("user-1") && restarted.transfers("user-1") == whole.transfers("user-1"))
            var cashSeen: [Double] = []
            var same = rng
            var i = cut
            while i < bars.count {
                let n = Int.random(in: 1...6, using: &same)
                let batch = Array(bars[i..<min(bars.count, i + n)])
                #expect(try whole.ingest(batch) == restarted.ingest(batch), "case \(k)")
                cashSeen.append(restarted.cashGBP("user-1"))
                i += n
            }
            rng = same
            #expect(restarted.orders("user-1") == whole.orders("user-1"), "case \(k)")
            #expect(restarted.transfers("user-1") == whole.transfers("user-1"), "case \(k)")
            #expect(restarted.cashGBP("user-1") == whole.cashGBP("user-1"), "case \(k)")
            #expect(restarted.positions("user-1") == whole.positions("user-1"), "case \(k)")
            #expect(cashSeen.allSatisfy { $0 >= 0 })
            // Reopened once more, the store gives the same account again.
            let reopened = try PaperBrokerage(database: try SentioDatabase(path: path), configuration: c.brokerageConfiguration(ratesUpFront: true))
            #expect(reopened.cashGBP("user-1") == whole.cashGBP("user-1") && reopened.positions("user-1") == whole.positions("user-1"))
            if cut < bars.count, let sale = whole.orders("user-1").first(where: { $0.side == "sell" }) {
                #expect(sale.status == "filled" || sale.status == "rejected", "case \(k): \(sale)")
            }
            if let w = whole.transfers("user-1").first(where: { $0.direction == "OUTGOING" }), cut < bars.count {
                #expect(w.status == "COMPLETE" || (w.status == "FAILED" && w.reason?.hasPrefix("insufficient cash") == true), "case \(k): \(w)")
            }
        }
    }
}
