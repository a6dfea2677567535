import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioBacktest

/// Places orders of the order model at given bars (symbol 0).
private func scripted(_ orders: [Int: Decision]) -> ScriptedStrategy { ScriptedStrategy(script: [0: orders]) }

private let noCosts = BacktestConfiguration(initialCapital: 10_000, costs: TradingCosts(), sizing: .allIn)

private func run(_ rows: [(Double, Double, Double, Double)], _ orders: [Int: Decision],
                 configuration: BacktestConfiguration = noCosts, dayStride: Int = 1) throws -> BacktestResult {
    try Backtest(configuration).run(scripted(orders), on: Market([dailySeries("A", rows, dayStride: dayStride)]))
}

private func buy(_ type: OrderType = .market, _ quantity: OrderQuantity = .shares(10), tif: TimeInForce = .gtc,
                 stopLoss: Double? = nil, takeProfit: Double? = nil) -> Decision {
    .order(OrderRequest(side: .buy, type: type, quantity: quantity, timeInForce: tif, stopLoss: stopLoss, takeProfit: takeProfit))
}

private func sell(_ type: OrderType = .market, _ quantity: OrderQuantity = .all, tif: TimeInForce = .gtc) -> Decision {
    .order(OrderRequest(side: .sell, type: type, quantity: quantity, timeInForce: tif))
}

@Suite("Order model: fill rules on OHLC bars, time in force, brackets and OCO")
struct OrderModelTests {
    @Test("market: next open; limit: at the open when gapped through, else at its price; never filled when not reached")
    func marketAndLimit() throws {
        // Bars: 0 decide; 1 opens at 101; 2 opens 97 below the limit 98 (gap): fills at 97; 3 low 95 ≤ 96: fills at 96.
        let rows: [(Double, Double, Double, Double)] = [(100.0, 100, 100, 100), (101, 103, 99, 102), (97, 99, 96, 98), (99, 100, 95, 97), (97, 98, 96, 97)]
        let r = try run(rows, [0: buy(), 1: buy(.limit(98)), 2: buy(.limit(96)), 3: buy(.limit(90))])
        let filled = r.orders.filter(\.isFilled)
        #expect(filled.map(\.fillPrice) == [101, 97, 96])
        #expect(filled.map(\.resolvedStep) == [1, 2, 3])
        let last = try #require(r.orders.last)
        #expect(last.status == .expired && last.cancellation == .endOfData && last.detail?.type == .limit(90))
        #expect(r.openPositions.first?.shares == 30)
        expectClose(r.finalCash, 10_000 - 10 * (101 + 97 + 96))
    }

    @Test("stop: a gap through the stop fills at the open, else at the stop; a sell stop mirrors it")
    func stops() throws {
        // Buy stop 105: bar 1 high 104 (no), bar 2 opens 106 (gap: 106). Sell stop 100: bar 3 low 99 (at 100).
        let rows: [(Double, Double, Double, Double)] = [(100.0, 100, 100, 100), (101, 104, 100, 103), (106, 108, 105, 107), (104, 105, 99, 101), (101, 101, 101, 101)]
        let r = try run(rows, [0: buy(.stop(105)), 2: sell(.stop(100))])
        let filled = r.orders.filter(\.isFilled)
        #expect(filled.map(\.fillPrice) == [106, 100])
        #expect(filled.map(\.resolvedStep) == [2, 3])
        #expect(r.trades.count == 1 && r.trades[0].pnl == 10 * (100 - 106))
    }

    @Test("bracket: a market entry's stop-loss is live on the entry bar; stop before take-profit inside one bar; OCO")
    func brackets() throws {
        // Entry at bar 1's open 100; its low 94 reaches the stop 95 on the entry bar.
        var r = try run([(100.0, 100, 100, 100), (100, 101, 94, 99), (99, 99, 99, 99)], [0: buy(stopLoss: 95, takeProfit: 110)])
        #expect(r.trades.count == 1 && r.trades[0].exitReason == .stopLoss && r.trades[0].exitPrice == 95 && r.trades[0].exitStep == 1)
        let target = try #require(r.orders.first { $0.reason == .takeProfit })
        #expect(target.status == .cancelled && target.cancellation == .oco && target.detail?.parentID == 1)
        // Bar 2 touches both 95 and 110: the stop wins.
        r = try run([(100.0, 100, 100, 100), (100, 102, 99, 101), (101, 111, 94, 105), (105, 105, 105, 105)],
                    [0: buy(stopLoss: 95, takeProfit: 110)])
        #expect(r.trades.map(\.exitReason) == [.stopLoss] && r.trades[0].exitStep == 2)
        // A gap through the stop fills at the open.
        r = try run([(100.0, 100, 100, 100), (100, 102, 99, 101), (90, 92, 88, 91)], [0: buy(stopLoss: 95, takeProfit: 110)])
        #expect(r.trades[0].exitPrice == 90)
        // A stop entry's bracket waits for the next bar (the bar's path after the trigger is unknown).
        r = try run([(100.0, 100, 100, 100), (101, 106, 94, 103), (103, 104, 102, 103), (103, 111, 102, 108)],
                    [0: buy(.stop(105), stopLoss: 95, takeProfit: 110)])
        #expect(r.trades.count == 1 && r.trades[0].entryPrice == 105 && r.trades[0].exitReason == .takeProfit)
        #expect(r.trades[0].exitStep == 3 && r.trades[0].exitPrice == 110)
    }

    @Test("OCO: the first to fill cancels the other; a strategy's sell closing the position cancels a bracket")
    func oco() throws {
        let rows: [(Double, Double, Double, Double)] = [(100.0, 100, 100, 100), (100, 101, 99, 100), (100, 106, 99, 104), (104, 104, 104, 104)]
        let pair = Decision.oco(OrderRequest(side: .buy, type: .limit(90), quantity: .shares(1)),
                                OrderRequest(side: .buy, type: .stop(105), quantity: .shares(1)))
        var r = try run(rows, [0: pair])
        #expect(r.orders.map(\.status) == [.cancelled, .filled])
        #expect(r.orders[0].cancellation == .oco && r.orders[1].fillPrice == 105)
        r = try run(rows, [0: buy(stopLoss: 50, takeProfit: 200), 1: .sell])
        #expect(r.orders.filter { $0.parentID != nil }.allSatisfy { $0.cancellation == .positionClosed && $0.resolvedStep == 2 })
    }

    @Test("stop-limit: triggered inside a bar with the limit below the stop waits for the next bar")
    func stopLimit() throws {
        // Sell stop 95 limit 96: bar 2's low 94 triggers it, but a sell limit above the stop is not marketable at the
        // trigger (the price must come back up afterwards): it rests; bar 3's high 97 ≥ 96 fills it at 96.
        let rows: [(Double, Double, Double, Double)] = [(100.0, 100, 100, 100), (100, 101, 99, 100), (98, 99, 94, 95), (95, 97, 94, 96), (96, 96, 96, 96)]
        let r = try run(rows, [0: buy(), 1: sell(.stopLimit(stop: 95, limit: 96))])
        let exit = try #require(r.orders.last { $0.side == .sell })
        #expect(exit.resolvedStep == 3 && exit.fillPrice == 96)
        // Marketable at the trigger (limit 94 ≤ stop 95): fills on the trigger bar at the stop.
        let r2 = try run(rows, [0: buy(), 1: sell(.stopLimit(stop: 95, limit: 94))])
        let exit2 = try #require(r2.orders.last { $0.side == .sell })
        #expect(exit2.resolvedStep == 2 && exit2.fillPrice == 95)
    }

    @Test("trailing stop: the level follows the highest high of the bars before; gaps fill at the open")
    func trailing() throws {
        // Decision close 100: level 90. Bar 2 high 120 → level 108 from bar 3; bar 3 low 107 fires at 108.
        let rows: [(Double, Double, Double, Double)] = [(100.0, 100, 100, 100), (100, 101, 99, 100), (101, 120, 100, 115), (115, 116, 107, 110), (110, 110, 110, 110)]
        var r = try run(rows, [0: buy(), 1: sell(.trailingStopPercent(10))])
        #expect(r.trades.count == 1 && r.trades[0].exitPrice == 108 && r.trades[0].exitStep == 3)
        r = try run(rows, [0: buy(), 1: sell(.trailingStopAmount(5))])  // level 95, then 115: bar 3 opens at 115 ≤ 115
        #expect(r.trades[0].exitPrice == 115 && r.trades[0].exitStep == 3)
    }

    @Test("time in force: day, ioc, opg, cls; invalid orders are rejected with a reason")
    func timeInForce() throws {
        let rows: [(Double, Double, Double, Double)] = [(100.0, 100, 100, 100), (101, 102, 99, 101), (101, 102, 99, 101), (101, 102, 99, 101)]
        var r = try run(rows, [0: buy(.limit(90), tif: .day)])
        #expect(r.orders[0].cancellation == .dayEnded && r.orders[0].resolvedStep == 2 && r.orders[0].status == .expired)
        r = try run(rows, [0: buy(.limit(100), tif: .ioc)])  // the open 101 is above: cancelled at once
        #expect(r.orders[0].cancellation == .immediateOrCancel && r.orders[0].resolvedStep == 1 && r.orders[0].status == .cancelled)
        r = try run(rows, [0: buy(.limit(100), tif: .opg)])
        #expect(r.orders[0].cancellation == .notFilledAtOpen && r.orders[0].resolvedStep == 1)
        r = try run(rows, [0: buy(.market, tif: .cls), 1: sell(.limit(105), tif: .cls)])
        #expect(r.orders[0].fillPrice == 101 && r.orders[0].resolvedStep == 1)
        #expect(r.orders[1].cancellation == .notFilledAtClose && r.orders[1].resolvedStep == 2)
        r = try run(rows, [0: buy(.stop(105), tif: .opg), 1: buy(.limit(-1)), 2: buy(.market, .shares(.nan)),
                           3: .order(OrderRequest(side: .sell, type: .market, quantity: .all, stopLoss: 110))])
        #expect(r.orders.map(\.rejection) == [.invalidTimeInForce, .invalidPrice, .invalidAmount, .shortNotAllowed])
        // Intraday bars: a day order lives through the bars of its day.
        var intraday = OHLCVSeries(symbol: "A")
        for (i, t) in [0, 3_600, 7_200, 86_400].enumerated() {
            let p = i == 3 ? 80.0 : 100
            intraday.append(timestamp: 1_699_920_000 + 36_000 + Int64(t), open: p, high: p, low: p, close: p, volume: 1)
        }
        r = try Backtest(noCosts).run(scripted([0: buy(.limit(90), tif: .day)]), on: Market([intraday]))
        #expect(r.orders[0].cancellation == .dayEnded && r.orders[0].resolvedStep == 3)
    }

    @Test("close fills: a market order fills at the decision close; limits wait for the next bar")
    func closeFills() throws {
        var c = noCosts
        c.fill = .close
        let rows: [(Double, Double, Double, Double)] = [(100.0, 100, 100, 100), (101, 102, 95, 99), (99, 99, 99, 99)]
        let r = try run(rows, [0: .oco(OrderRequest(side: .buy, quantity: .shares(1)),
                                       OrderRequest(side: .buy, type: .limit(96), quantity: .shares(1)))], configuration: c)
        #expect(r.orders.map(\.status) == [.filled, .cancelled] && r.orders[0].fillPrice == 100 && r.orders[0].resolvedStep == 0)
    }

    @Test("quantities: shares, notional, percent of equity, all; partial sells log partial trades")
    func quantities() throws {
        let rows: [(Double, Double, Double, Double)] = [(100.0, 100, 100, 100), (100, 100, 100, 100), (110, 110, 110, 110), (120, 120, 120, 120)]
        let r = try run(rows, [0: buy(.market, .percentOfEquity(50)), 1: sell(.market, .shares(20)), 2: sell(.market, .notional(1_210))])
        #expect(r.orders.filter(\.isFilled).map(\.shares) == [50, 20, 10])
        #expect(r.trades.map(\.pnl) == [20 * 10, 10 * 20])
        #expect(r.openPositions.first?.shares == 20)
    }
}

// MARK: - Properties

/// A seeded strategy that places random orders of every type, time in force and quantity, brackets and OCO pairs,
/// and sometimes cancels: a pure function of (seed, symbol, bar, last close).
struct RandomOrderStrategy: Strategy, Codable {
    var seed: UInt64
    var lastClose: [Double] = []
    /// A hash of each symbol's name (FNV-1a): decisions do not depend on the order the universe lists symbols in.
    var keys: [UInt64] = []
    var name: String { "random-orders" }
    var settings: [(key: String, value: String)] { [("random-orders.seed", String(seed))] }
    mutating func start(symbols: [String]) throws {
        lastClose = Array(repeating: .nan, count: symbols.count)
        keys = symbols.map { $0.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 } }
    }
    mutating func observe(symbol: Int, bar: Bar) { lastClose[symbol] = bar.close }

    static func request(_ g: inout SplitMix64, close c: Double, side: OrderSide? = nil) -> OrderRequest {
        let side = side ?? (Bool.random(using: &g) ? .buy : .sell)
        let up = side == .buy ? -1.0 : 1.0  // a limit's favourable direction
        let d = Double.random(in: 0.002...0.06, using: &g)
        let types: [OrderType] = [
            .market, .limit(c * (1 + up * d)), .stop(c * (1 - up * d)),
            .stopLimit(stop: c * (1 - up * d), limit: c * (1 - up * d * Double.random(in: -1...2, using: &g))),
            .trailingStopPercent(d * 100), .trailingStopAmount(c * d),
        ]
        let type = types[Int.random(in: 0..<types.count, using: &g)]
        let tifs: [TimeInForce] = [.day, .gtc, .gtc, .ioc, .opg, .cls]
        var tif = tifs[Int.random(in: 0..<tifs.count, using: &g)]
        if [.ioc, .opg, .cls].contains(tif) && !(type == .market || type.name == "limit") && Bool.random(using: &g) { tif = .gtc }
        let quantities: [OrderQuantity] = [
            .shares(Double(Int.random(in: 1...40, using: &g))), .notional(Double.random(in: 100...5_000, using: &g)),
            .percentOfEquity(Double.random(in: 1...40, using: &g)), .all,
        ]
        var r = OrderRequest(side: side, type: type, quantity: quantities[Int.random(in: 0..<4, using: &g)], timeInForce: tif)
        if Bool.random(using: &g) {  // a bracket: the stop-loss on the losing side, the take-profit on the other
            r.stopLoss = c * (1 + up * Double.random(in: 0.01...0.08, using: &g))
            r.takeProfit = Bool.random(using: &g) ? c * (1 - up * Double.random(in: 0.01...0.08, using: &g)) : nil
        }
        return r
    }

    mutating func decide(_ context: DecisionContext) -> Decision {
        var g = SplitMix64(seed: seed ^ keys[context.symbol] ^ UInt64(context.bar))
        let c = lastClose[context.symbol]
        switch Double.random(in: 0..<1, using: &g) {
        case ..<0.25: return .order(Self.request(&g, close: c))
        case ..<0.3: return .oco(Self.request(&g, close: c, side: .sell), Self.request(&g, close: c, side: .sell))
        case ..<0.32: return .cancelOrders
        case ..<0.35: return .buy()
        case ..<0.37: return .sell
        default: return .hold
        }
    }
}

@Suite("Order model properties (seeded random orders on random markets)")
struct OrderModelPropertyTests {
    static func configuration(_ seed: UInt64) -> BacktestConfiguration {
        var g = SplitMix64(seed: seed ^ 0x33)
        return BacktestConfiguration(
            initialCapital: Double.random(in: 5_000...100_000, using: &g), fill: Bool.random(using: &g) ? .nextOpen : .close,
            costs: TradingCosts(commissionRate: Double.random(in: 0...0.005, using: &g), feePerOrder: Double.random(in: 0...2, using: &g),
                                slippageBasisPoints: seed % 3 == 0 ? 0 : Double.random(in: 0...15, using: &g)),
            sizing: .fractionOfEquity(0.3), fractionalShares: Bool.random(using: &g))
    }

    static func canonical(_ r: BacktestResult) -> [String] {
        UniverseOrderPropertyTests.canonical(r) + r.orders.map {
            "status \($0.id) \($0.status) \(String(describing: $0.cancellation)) \(String(describing: $0.detail))"
        }
    }

    @Test("no fill outside its bar's range; every order reaches one final status; cash ≥ 0; equity = cash + positions",
          arguments: Array(UInt64(1)...UInt64(16)))
    func invariants(seed: UInt64) throws {
        let market = try randomMarket(symbols: 3, bars: 250, seed: 3_300 + seed)
        let config = Self.configuration(seed)
        var strategy = RecordingStrategy(base: RandomOrderStrategy(seed: seed))
        let r = try Backtest(config).run(&strategy, on: market)
        let slip = config.costs.slippageBasisPoints / 10_000
        #expect(r.orders.filter { $0.isFilled && $0.detail != nil }.count > 20, "the random strategy must trade")
        #expect(r.orders.contains { $0.status == .cancelled } && r.orders.contains { $0.status == .expired })
        for o in r.orders where o.isFilled {
            let series = market.series[o.symbol]
            let bar = try #require(series.timestamps.firstIndex(of: r.timestamps[o.resolvedStep]), "order \(o.id) has a bar")
            let reference = o.side == .buy ? o.fillPrice / (1 + slip) : o.fillPrice / (1 - slip)
            let tolerance = 1e-9 * series.high[bar]
            #expect(reference >= series.low[bar] - tolerance && reference <= series.high[bar] + tolerance,
                    "order \(o.id) at \(reference) outside [\(series.low[bar]), \(series.high[bar])]")
            if case .limit(let p)? = o.detail?.type {
                #expect(o.side == .buy ? reference <= p * (1 + 1e-12) : reference >= p * (1 - 1e-12), "limit \(o.id)")
            }
        }
        // Every id placed (every non-hold decision but a cancel, two for OCO, brackets' children) ends exactly once.
        let ids = r.orders.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids.sorted() == Array(1...(ids.max() ?? 0)), "no id without a final record")
        var placed = 0
        for d in strategy.log.map(\.decision) {
            switch d {
            case .hold, .cancelOrders: break
            case .oco: placed += 2
            default: placed += 1
            }
        }
        #expect(r.orders.filter { $0.detail?.parentID == nil }.count == placed)
        for o in r.orders {
            switch o.status {
            case .filled: #expect(o.shares > 0 && o.fillPrice > 0 && o.rejection == nil && o.cancellation == nil)
            case .rejected: #expect(o.rejection != nil && o.shares == 0)
            case .cancelled, .expired: #expect(o.cancellation != nil && o.rejection == nil && o.shares == 0)
            }
        }
        #expect(r.cash.allSatisfy { $0 >= -1e-9 })
        // Holdings rebuilt from the fills, marked at the closes, give the equity curve.
        var shares = [Double](repeating: 0, count: 3), mark = [Double](repeating: .nan, count: 3), cursor = [0, 0, 0]
        var byStep = [Int: [OrderRecord]]()
        for o in r.orders where o.isFilled { byStep[o.resolvedStep, default: []].append(o) }
        for (t, time) in r.timestamps.enumerated() {
            for o in byStep[t] ?? [] { shares[o.symbol] += o.side == .buy ? o.shares : -o.shares }
            for s in 0..<3 where cursor[s] < market.series[s].count && market.series[s].timestamps[cursor[s]] == time {
                mark[s] = market.series[s].close[cursor[s]]
                cursor[s] += 1
            }
            #expect(shares.allSatisfy { $0 > -1e-9 }, "long only")
            var expected = r.cash[t]
            for s in 0..<3 where shares[s] > 1e-12 { expected += shares[s] * mark[s] }
            expectClose(r.equity[t], expected, relative: 1e-9, "step \(t)")
        }
    }

    /// The market through a live engine with the symbols in a random order, bars arriving in random orders, and a
    /// restart from a JSON snapshot (as a live session stores it) every 0 to 40 steps.
    static func steppedWithRestarts(_ market: Market, config: BacktestConfiguration, spec: StrategySpec,
                                    registry: StrategyRegistry, seed: UInt64) throws -> SteppedSimulation {
        var rng = SplitMix64(seed: seed ^ 0x3333)
        let symbols = market.symbols.shuffled(using: &rng)
        var simulation = try SteppedSimulation(configuration: config, strategy: spec, symbols: symbols, registry: registry)
        var step = 0
        var restarts = 0
        while step < market.timeline.count {
            let last = Swift.min(market.timeline.count - 1, step + Int(rng.next() % 40))
            try stepped(simulation, market, through: last, from: step, &rng)
            step = last + 1
            // As a live session stores it (SentioLive's LiveSnapshot: JSON, non-finite doubles as strings).
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            let decoder = JSONDecoder()
            decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            let state = try decoder.decode(SteppedSimulationState.self, from: try encoder.encode(simulation.state()))
            simulation = try SteppedSimulation(configuration: config, strategy: spec, symbols: symbols, registry: registry, state: state)
            restarts += 1
        }
        #expect(restarts > 2)
        return simulation
    }

    @Test("live = backtest: random arrival orders and restarts from a JSON snapshot, bit for bit", arguments: Array(UInt64(1)...UInt64(8)))
    func liveEqualsBacktest(seed: UInt64) throws {
        let registry = StrategyRegistry()
        try registry.register(StrategyDescriptor(name: "random-orders", summary: "random orders", settingKeys: ["random-orders.seed"]) {
            RandomOrderStrategy(seed: UInt64(try $0.integer("random-orders.seed")))
        })
        let market = try randomMarket(symbols: 4, bars: 160, seed: 3_400 + seed, dropProbability: 0.15)
        let config = Self.configuration(seed)
        let reference = Self.canonical(try Backtest(config).run(RandomOrderStrategy(seed: seed), on: market))
        let simulation = try Self.steppedWithRestarts(
            market, config: config, spec: StrategySpec(RandomOrderStrategy(seed: seed)), registry: registry, seed: seed)
        let live = Self.canonical(simulation.result())
        let firstDifference = live.indices.first { $0 >= reference.count || live[$0] != reference[$0] }
        #expect(live.count == reference.count && firstDifference == nil,
                "first difference: \(firstDifference.map { "\(live[$0]) vs \(reference[$0])" } ?? "none")")
    }
}

extension OrderRecord {
    var parentID: Int? { detail?.parentID }
}

// MARK: - Short selling

private func shortConfiguration(margin: Double = 1, borrowRate: Double = 0, maintenance: Double = 0) -> BacktestConfiguration {
    BacktestConfiguration(initialCapital: 10_000, costs: TradingCosts(), sizing: .allIn, allowShort: true,
                          borrowRate: borrowRate, margin: margin, maintenanceMargin: maintenance)
}

private func short(_ quantity: OrderQuantity = .all, _ type: OrderType = .market, stopLoss: Double? = nil,
                   takeProfit: Double? = nil) -> Decision {
    .order(OrderRequest(side: .sell, type: type, quantity: quantity, stopLoss: stopLoss, takeProfit: takeProfit))
}

@Suite("Short selling: proceeds, borrow fee, margin, liquidation, exposure")
struct ShortSellingTests {
    @Test("a short: proceeds in cash, equity = cash − shares × close, a cover closes a SELL trade of negative shares")
    func shortTrade() throws {
        let rows: [(Double, Double, Double, Double)] = [(100, 100, 100, 100), (100, 100, 100, 100), (90, 90, 90, 90), (80, 80, 80, 80)]
        let r = try run(rows, [0: short(.shares(10)), 1: buy(.market, .all)], configuration: shortConfiguration())
        #expect(r.cash[1] == 11_000 && r.equity[1] == 10_000)
        #expect(r.trades.count == 1 && r.trades[0].shares == -10 && r.trades[0].signalType == "SELL")
        #expect(r.trades[0].pnl == 100 && r.trades[0].pnlPercent == 10 && r.trades[0].exitPrice == 90)
        #expect(r.finalEquity == 10_100 && r.openPositions.isEmpty)
        // Long-only (the default): the same sell is rejected.
        let longOnly = try run(rows, [0: short(.shares(10))])
        #expect(longOnly.orders[0].rejection == .noOpenPosition)
    }

    @Test("borrow fee: annual rate × short value at the previous close × elapsed time / 365 days")
    func borrowFee() throws {
        // Short 10 at 100 on day 1; held over days 1→2 and 2→3 at closes 100 and 100; rate 36.5 % a year: 1 a day.
        let rows: [(Double, Double, Double, Double)] = flat(100, count: 4)
        let r = try run(rows, [0: short(.shares(10))], configuration: shortConfiguration(borrowRate: 0.365))
        expectClose(r.borrowFeesPaid, 2, relative: 1e-12)
        expectClose(r.finalEquity, 10_000 - 2, relative: 1e-12)
        let stats = BacktestStatistics(r, moneyWeightedReturn: nil)
        #expect(stats.shortSelling?.borrowFeesPaid == r.borrowFeesPaid)
        expectClose(stats.shortSelling?.maxGrossExposurePercent ?? 0, 1_000 / 9_998 * 100, relative: 1e-12)
        expectClose(stats.shortSelling?.averageNetExposurePercent ?? 0,
                    (0 - 10.0 - 1_000 / 9_999 * 100 - 1_000 / 9_998 * 100) / 4, relative: 1e-12)
    }

    @Test("margin: an all-in short sells equity / margin; a short beyond it is rejected; longs cannot spend the collateral")
    func margin() throws {
        let rows: [(Double, Double, Double, Double)] = flat(100, count: 3)
        var r = try run(rows, [0: short()], configuration: shortConfiguration())
        #expect(r.orders[0].shares == 100)
        r = try run(rows, [0: short()], configuration: shortConfiguration(margin: 0.5))
        #expect(r.orders[0].shares == 200)
        r = try run(rows, [0: short(.shares(101))], configuration: shortConfiguration())
        #expect(r.orders[0].rejection == .insufficientMargin)
        // Short 50 (5,000 of the 10,000 equity as margin): a long can use the other 5,000 only.
        let two = try Market([dailySeries("A", rows), dailySeries("B", rows)])
        let script = ScriptedStrategy(script: [0: [0: short(.shares(50))], 1: [1: buy(.market, .all)]])
        r = try Backtest(shortConfiguration()).run(script, on: two)
        #expect(r.orders.map(\.shares) == [50, 50])
    }

    @Test("liquidation: equity at or below the maintenance margin closes everything at the close; short brackets")
    func liquidation() throws {
        let rows: [(Double, Double, Double, Double)] = [(100, 100, 100, 100), (100, 100, 100, 100), (150, 210, 150, 210), (210, 210, 210, 210)]
        var r = try run(rows, [0: short()], configuration: shortConfiguration())
        #expect(r.trades.count == 1 && r.trades[0].exitReason == .liquidation && r.trades[0].exitStep == 2)
        #expect(r.trades[0].exitPrice == 210 && r.finalEquity == -1_000 && r.openPositions.isEmpty)
        r = try run(rows, [0: short()], configuration: shortConfiguration(maintenance: 0.3))  // 10,000 − 5,000 ≤ 0.3 × 15,000
        #expect(r.trades.first?.exitReason == .liquidation && r.trades.first?.exitStep == 2)
        // A short bracket: the stop-loss above fills at the open it gaps to.
        r = try run(rows, [0: short(.shares(10), stopLoss: 120, takeProfit: 80)], configuration: shortConfiguration())
        #expect(r.trades.count == 1 && r.trades[0].exitReason == .stopLoss && r.trades[0].exitPrice == 150)
        #expect(r.orders.contains { $0.cancellation == .oco })
    }
}

@Suite("Short selling properties (seeded random orders on random markets)")
struct ShortSellingPropertyTests {
    static func configuration(_ seed: UInt64) -> BacktestConfiguration {
        var c = OrderModelPropertyTests.configuration(seed)
        var g = SplitMix64(seed: seed ^ 0x5555)
        c.allowShort = true
        c.borrowRate = Double.random(in: 0...0.1, using: &g)
        c.margin = [1, 0.5, 0.25][Int(seed % 3)]
        c.maintenanceMargin = seed % 2 == 0 ? 0 : c.margin / 2
        return c
    }

    @Test("equity = cash + Σ shares × close; cash = capital ± fills − borrow fees; below maintenance only when flat; fills in range",
          arguments: Array(UInt64(1)...UInt64(16)))
    func invariants(seed: UInt64) throws {
        let market = try randomMarket(symbols: 3, bars: 250, seed: 5_500 + seed)
        let config = Self.configuration(seed)
        let r = try Backtest(config).run(RandomOrderStrategy(seed: seed), on: market)
        let slip = config.costs.slippageBasisPoints / 10_000
        #expect(r.trades.contains { $0.shares < 0 }, "the random strategy must short")
        var shares = [Double](repeating: 0, count: 3), mark = [Double](repeating: .nan, count: 3), cursor = [0, 0, 0]
        var byStep = [Int: [OrderRecord]]()
        var cash = config.initialCapital
        for o in r.orders where o.isFilled {
            byStep[o.resolvedStep, default: []].append(o)
            let notional = o.shares * o.fillPrice
            cash += o.side == .buy ? -notional - o.commission : notional - o.commission
            let series = market.series[o.symbol]
            let bar = try #require(series.timestamps.firstIndex(of: r.timestamps[o.resolvedStep]))
            let reference = o.side == .buy ? o.fillPrice / (1 + slip) : o.fillPrice / (1 - slip)
            #expect(reference >= series.low[bar] * (1 - 1e-9) && reference <= series.high[bar] * (1 + 1e-9), "order \(o.id)")
        }
        expectClose(cash - r.borrowFeesPaid, r.finalCash, relative: 1e-9, absolute: 1e-6, "cash from the order log")
        #expect(Set(r.orders.map(\.id)).count == r.orders.count)
        for (t, time) in r.timestamps.enumerated() {
            for o in byStep[t] ?? [] { shares[o.symbol] += o.side == .buy ? o.shares : -o.shares }
            for s in 0..<3 where cursor[s] < market.series[s].count && market.series[s].timestamps[cursor[s]] == time {
                mark[s] = market.series[s].close[cursor[s]]
                cursor[s] += 1
            }
            var expected = r.cash[t], gross = 0.0, shortValue = 0.0
            for s in 0..<3 where abs(shares[s]) > 1e-9 {
                expected += shares[s] * mark[s]
                gross += abs(shares[s]) * mark[s]
                if shares[s] < 0 { shortValue -= shares[s] * mark[s] }
            }
            expectClose(r.equity[t], expected, relative: 1e-9, absolute: 1e-6, "step \(t)")
            expectClose(r.shortValue[t], shortValue, relative: 1e-9, absolute: 1e-6, "short value at step \(t)")
            if gross > 1e-6 {
                #expect(r.equity[t] > config.maintenanceMargin * gross, "step \(t): a position open below the maintenance margin")
            }
        }
    }

    @Test("live = backtest with shorts: random arrival orders and restarts", arguments: Array(UInt64(1)...UInt64(6)))
    func liveEqualsBacktest(seed: UInt64) throws {
        let registry = StrategyRegistry()
        try registry.register(StrategyDescriptor(name: "random-orders", summary: "random orders", settingKeys: ["random-orders.seed"]) {
            RandomOrderStrategy(seed: UInt64(try $0.integer("random-orders.seed")))
        })
        let market = try randomMarket(symbols: 4, bars: 160, seed: 5_600 + seed, dropProbability: 0.15)
        let config = Self.configuration(seed)
        let backtest = try Backtest(config).run(RandomOrderStrategy(seed: seed), on: market)
        let reference = OrderModelPropertyTests.canonical(backtest) + ["fees \(backtest.borrowFeesPaid.bitPattern)"]
            + backtest.shortValue.map { "\($0.bitPattern)" }
        let live = try OrderModelPropertyTests.steppedWithRestarts(
            market, config: config, spec: StrategySpec(RandomOrderStrategy(seed: seed)), registry: registry, seed: seed)
        let result = live.result()
        let canonical = OrderModelPropertyTests.canonical(result) + ["fees \(result.borrowFeesPaid.bitPattern)"]
            + result.shortValue.map { "\($0.bitPattern)" }
        let firstDifference = canonical.indices.first { $0 >= reference.count || canonical[$0] != reference[$0] }
        #expect(canonical.count == reference.count && firstDifference == nil,
                "first difference: \(firstDifference.map { "\(canonical[$0]) vs \(reference[$0])" } ?? "none")")
    }
}

// MARK: - Target weights and rebalancing

@Suite("Target weights and the rebalance strategy")
struct RebalanceTests {
    @Test("targetWeight trades to the weight at the next open; within the tolerance band nothing is placed")
    func targetWeight() throws {
        let rows: [(Double, Double, Double, Double)] = [(100, 100, 100, 100), (100, 100, 100, 100), (125, 125, 125, 125), (125, 125, 125, 125)]
        // 50 % of 10,000 at 100: 50 shares. At 125 the weight is 6,250 / 11,250 = 55.6 %: 5.6 points off.
        var r = try run(rows, [0: .targetWeight(0.5), 2: .targetWeight(0.5, tolerance: 0.06)])
        #expect(r.orders.count == 1 && r.orders[0].shares == 50 && r.orders[0].detail?.quantity == .targetPercent(50))
        r = try run(rows, [0: .targetWeight(0.5), 2: .targetWeight(0.5, tolerance: 0.05)])
        // Sell back to 50 % of 11,250 at 125: 45 shares kept, 5 sold.
        #expect(r.orders.map(\.side) == [.buy, .sell] && r.orders[1].shares == 5 && r.openPositions[0].shares == 45)
        r = try run(rows, [0: .targetWeight(0.5), 1: .targetWeight(0)])
        #expect(r.openPositions.isEmpty && r.trades.count == 1)
    }

    @Test("rebalance: fixed weights every month, or on drift; settings round-trip through the registry")
    func rebalance() throws {
        let market = try randomMarket(symbols: 3, bars: 400, seed: 4_401, dropProbability: 0)
        let weights = ["S0": 0.5, "S1": 0.3]
        let monthly = try RebalanceStrategy(weights: weights, schedule: .every(.month))
        let config = BacktestConfiguration(costs: TradingCosts(commissionRate: 0.001), sizing: .allIn, fractionalShares: true)
        let r = try Backtest(config).run(monthly, on: market)
        // One rebalancing order per symbol with a weight and a month at most (S2 has weight 0 and is never held).
        let months = Set(r.timestamps.map { RebalancePeriod.month.periodKey(epochSeconds: $0) }).count
        #expect(r.orders.count <= 2 * months && r.orders.count >= months)
        // A target order whose difference vanished between the decision close and the fill is rejected zero-size.
        #expect(r.orders.allSatisfy { $0.symbol != 2 && ($0.isFilled || $0.rejection == .zeroSize) },
                "\(r.orders.filter { !$0.isFilled }.map { "\($0.symbol) \($0.side) \(String(describing: $0.rejection))" })")
        #expect(r.orders.filter(\.isFilled).count >= months)
        // After each rebalance the weights are back near their targets (the fill is at the open, marked at the close).
        let drift = try Backtest(config).run(try RebalanceStrategy(weights: weights, schedule: .drift(band: 0.02)), on: market)
        #expect(drift.orders.count > 2)
        let spec = StrategySpec(monthly)
        #expect(spec.description == "rebalance rebalance.weights=S0=0.5,S1=0.3 rebalance.every=month")
        #expect(StrategySpec(try StrategyRegistry.shared.make(spec)) == spec)
        #expect(throws: BacktestError.self) { try RebalanceStrategy(weights: ["A": 0.7, "B": 0.4], schedule: .every(.week)) }
        #expect(throws: BacktestError.self) { try RebalanceStrategy.parseWeights("A=0.5,B") }
        #expect(throws: BacktestError.self) { try RebalanceStrategy.parseSchedule("year") }
        #expect(RebalancePeriod.quarter.periodKey(epochSeconds: 1_711_843_200) != RebalancePeriod.quarter.periodKey(epochSeconds: 1_711_929_600))
    }
}
