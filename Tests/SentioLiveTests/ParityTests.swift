import SentioAPI
import SentioBacktest
import SentioCore
import SentioLive
import SentioSignals
import SentioTestSupport
import Testing

/// A random configuration among those the backtest supports.
func randomConfiguration(_ rng: inout SplitMix64, symbols: [String]) -> LiveConfiguration {
    func chance(_ p: Double) -> Bool { Double(rng.next() % 10_000) / 10_000 < p }
    func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(rng.next() % 1_000_001) / 1_000_000 }
    var model = SignalModelConfig()
    model.horizon = 1 + Int(rng.next() % 3)
    model.regressionWindow = 20 + Int(rng.next() % 20)
    model.shortMomentumPeriod = 2 + Int(rng.next() % 3)
    model.mediumMomentumPeriod = 6 + Int(rng.next() % 5)
    model.rsiPeriod = 3 + Int(rng.next() % 8)
    model.atrPeriod = 3 + Int(rng.next() % 8)
    model.volumeWindow = 3 + Int(rng.next() % 8)
    model.regressionReseedInterval = 7 + Int(rng.next() % 50)
    model.buyScoreThreshold = uniform(0.2, 1.2)
    model.sellScoreThreshold = uniform(0.2, 1.2)
    model.minimumConfidence = uniform(0, 0.3)
    let strategy: StrategySpec
    switch rng.next() % 4 {
    case 0: strategy = .sentio
    case 1: strategy = .rsi(period: 2 + Int(rng.next() % 12), lower: uniform(20, 45), upper: uniform(55, 80))
    case 2: strategy = .buyAndHold
    default:
        let subset = symbols.filter { _ in chance(0.6) }
        strategy = .dca(amount: uniform(100, 5000), every: chance(0.5) ? .week : .month,
                        symbols: chance(0.5) && !subset.isEmpty ? subset : nil)
    }
    let sizing: PositionSizing
    switch rng.next() % 3 {
    case 0: sizing = .allIn
    case 1: sizing = .equalWeight(maxPositions: 1 + Int(rng.next() % UInt64(symbols.count + 1)))
    default: sizing = .fractionOfEquity(uniform(0.05, 1))
    }
    var capital = uniform(1_000, 200_000)
    if strategy.name == "dca", chance(0.3) { capital = 0 }
    let backtest = BacktestConfiguration(
        initialCapital: capital, fill: chance(0.5) ? .nextOpen : .close,
        costs: TradingCosts(commissionRate: chance(0.5) ? uniform(0, 0.003) : 0, feePerOrder: chance(0.5) ? uniform(0, 3) : 0,
                            slippageBasisPoints: chance(0.5) ? uniform(0, 20) : 0),
        sizing: sizing, fractionalShares: chance(0.4),
        stopLossPercent: chance(0.4) ? uniform(0.5, 10) : nil, takeProfitPercent: chance(0.4) ? uniform(0.5, 15) : nil,
        stopReference: chance(0.5) ? .decisionClose : .entryPrice)
    return LiveConfiguration(strategy: strategy, backtest: backtest, signalModel: model)
}

/// Every number of a result as bit patterns, one line per item: equal lines ⇔ bit-identical results.
func lines(_ r: BacktestResult) -> [String] {
    func b(_ x: Double) -> String { String(x.bitPattern, radix: 16) }
    var out = ["strategy \(r.strategyName) symbols \(r.symbols) commissions \(b(r.commissionsPaid))"]
    for i in r.timestamps.indices {
        out.append("step \(i) t \(r.timestamps[i]) equity \(b(r.equity[i])) cash \(b(r.cash[i])) deposits \(b(r.contributions[i])) exposed \(r.exposed[i])")
    }
    for t in r.trades {
        out.append("trade \(t.symbol) \(t.symbolIndex) steps \(t.entryStep)-\(t.exitStep) bars \(t.entryBar)-\(t.exitBar) times \(t.entryTime)-\(t.exitTime) prices \(b(t.entryPrice)) \(b(t.exitPrice)) shares \(b(t.shares)) pnl \(b(t.pnl)) \(b(t.pnlPercent)) commission \(b(t.commission)) \(t.signalType) \(t.exitReason)")
    }
    for o in r.orders {
        out.append("order \(o.id) \(o.symbol) \(o.side) \(o.reason) \(o.decidedStep)->\(o.resolvedStep) \(o.rejection?.rawValue ?? "filled") \(b(o.fillPrice)) \(b(o.shares)) \(b(o.commission))")
    }
    for p in r.openPositions {
        out.append("open \(p.symbol) \(p.symbolIndex) \(p.entryStep) \(p.entryBar) \(p.entryTime) \(b(p.entryPrice)) \(b(p.shares)) \(b(p.currentPrice)) \(b(p.marketValue)) \(b(p.entryCommission)) \(b(p.unrealizedPnL)) \(p.stopPrice.map(b) ?? "-") \(p.targetPrice.map(b) ?? "-")")
    }
    return out
}

/// The backtest of `series` with the batch form of `configuration`'s strategy.
func backtest(_ configuration: LiveConfiguration, _ series: [OHLCVSeries]) throws -> BacktestResult {
    let market = try Market(series)
    let bt = Backtest(configuration.backtest)
    // The batch form of the built-in strategy the spec names.
    let strategy = try StrategyRegistry.shared.make(configuration.strategy, signalModel: configuration.signalModel)
    return try bt.run(strategy, on: market)
}

/// What a test fed a session: a bar (`ingest`/`process`), or a grace-timeout close (`closeStep`).
enum FeedAction {
    case bar(LiveBar)
    case close
}

/// A new session fed `actions`.
func replayed(_ actions: some Sequence<FeedAction>, _ configuration: LiveConfiguration, _ universe: [String]) throws -> LiveSession {
    let session = try LiveSession(configuration: configuration, universe: universe)
    for action in actions {
        switch action {
        case .bar(let bar): _ = session.process(bar)
        case .close: session.closePendingStep()
        }
        session.discardEvents()
    }
    return session
}

/// Snapshots `session`, encodes, decodes and restores it; checks the restored session re-encodes to the same bytes.
/// With `compact`, the snapshot leaves the history out, and the restored session's history provider replays
/// `actions` (what `session` was fed) into a new session, as a journal replays its inputs.
func restart(_ session: LiveSession, compact: Bool = false, actions: [FeedAction] = []) throws -> LiveSession {
    if compact {
        let bytes = try session.compactSnapshot().encoded()
        let restored = try LiveSession(snapshot: try LiveSnapshot(encoded: bytes))
        #expect(try restored.compactSnapshot().encoded() == bytes, "a restored session re-encodes to the same compact snapshot")
        #expect(restored.hasFullHistory == (session.completedSteps == 0))
        let configuration = session.configuration, universe = session.universe
        restored.historyProvider = { try replayed(actions, configuration, universe) }
        return restored
    }
    let bytes = try session.snapshot().encoded()
    let restored = try LiveSession(snapshot: try LiveSnapshot(encoded: bytes))
    #expect(try restored.snapshot().encoded() == bytes, "a restored session re-encodes to the same snapshot")
    return restored
}

@Suite struct ParityTests {
    /// Random markets, strategies and options; bars of each timestamp in random order, with random duplicates
    /// re-sent, random grace-timeout closes of incomplete steps, and random restarts (snapshot → bytes →
    /// session; half of them from compact snapshots, whose history is rebuilt by a replay when needed): the
    /// session's result, and its events, equal the backtest's bit for bit.
    @Test(arguments: 0..<40)
    func sessionEqualsBacktest(caseIndex: Int) throws {
        var rng = SplitMix64(seed: 0x5E_1170 &+ UInt64(caseIndex) &* 0x9E37_79B9_7F4A_7C15)
        let symbolCount = 1 + Int(rng.next() % 5)
        let steps = 40 + Int(rng.next() % 160)
        let series = randomMarket(&rng, symbols: symbolCount, steps: steps, gapProbability: [0, 0.05, 0.2][Int(rng.next() % 3)])
        let universe = series.map(\.symbol)
        let configuration = randomConfiguration(&rng, symbols: universe)
        let expected = try backtest(configuration, series)

        // The feed: timestamps in order, the bars of one timestamp shuffled.
        var byTime: [Int64: [LiveBar]] = [:]
        for s in series {
            for i in 0..<s.count { byTime[s.timestamps[i], default: []].append(LiveBar(symbol: s.symbol, bar: s[bar: i])) }
        }
        var session = try LiveSession(configuration: configuration, universe: universe)
        var events: [LiveEvent] = []
        var sent: [LiveBar] = []
        var actions: [FeedAction] = []
        func restarted() throws -> LiveSession {
            try restart(session, compact: rng.next() % 2 == 0, actions: actions)
        }
        for t in byTime.keys.sorted() {
            var bars = byTime[t]!
            bars.shuffle(using: &rng)
            for bar in bars {
                if rng.next() % 40 == 0 { session = try restarted() }
                events += session.ingest(bar)
                sent.append(bar)
                actions.append(.bar(bar))
                if rng.next() % 6 == 0 {
                    // Re-send a bar of this step or of the past: a duplicate, or (older than the symbol's last) late.
                    let old = rng.next() % 2 == 0 ? bar : sent[Int(rng.next() % UInt64(sent.count))]
                    let compare = rng.next() % 4 == 0
                    let before = compare ? try session.snapshot().encoded() : []
                    let outcome = session.process(old)
                    actions.append(.bar(old))
                    let resent = session.takeEvents()
                    if old == bar {
                        #expect(outcome == .duplicate)
                        #expect(resent.isEmpty)
                    } else {
                        switch outcome {
                        case .duplicate: #expect(resent.isEmpty)
                        case .rejected(.late): #expect(resent.map(\.type) == ["rejected"])
                        default: Issue.record("a re-sent bar gave \(outcome)")
                        }
                    }
                    if compare { #expect(try session.snapshot().encoded() == before, "a re-sent bar changes nothing") }
                }
            }
            if rng.next() % 4 == 0 {
                events += session.closeStep()
                actions.append(.close)
            }
        }
        events += session.closeStep()
        actions.append(.close)
        if rng.next() % 2 == 0 { session = try restarted() }
        let live = try session.result()
        #expect(lines(live) == lines(expected), "case \(caseIndex): \(configuration.settings.map { "\($0.key)=\($0.value)" })")

        // Events: one equity mark per step with the curve's values; one fill per filled order; one rejection per
        // order rejected during the run (the backtest's end-of-data rejections are still pending live).
        let equity = events.compactMap { if case .equity(let e) = $0 { e } else { nil } }
        #expect(equity.map(\.equity.bitPattern) == expected.equity.map(\.bitPattern))
        #expect(equity.map(\.cash.bitPattern) == expected.cash.map(\.bitPattern))
        #expect(equity.map(\.timestamp) == expected.timestamps)
        let fills = events.compactMap { if case .fill(let f) = $0 { f } else { nil } }
        let filled = expected.orders.filter(\.isFilled)
        #expect(fills.map(\.orderId).sorted() == filled.map(\.id))
        let orderRejections = events.compactMap { if case .rejected(let r) = $0, let id = r.orderId { id } else { nil } }
        let rejectedDuringRun = expected.orders.filter { !$0.isFilled }.map(\.id)
        let pendingAtEnd = Set(rejectedDuringRun).subtracting(orderRejections)
        #expect(pendingAtEnd.count <= universe.count)
        let placed = events.compactMap { if case .order(let o) = $0 { o.id } else { nil } }
        #expect(placed.sorted() == expected.orders.map(\.id), "one order event per order")
        for e in events { _ = try APIJSON.encode(try LiveEventContract(e)) }

        // The apps' views: the same contracts as the backtest's and the signal model's on the same data (or the
        // same refusal, e.g. nothing invested).
        #expect((try? session.portfolio()) == (try? BacktestContracts.portfolio(expected)))
        #expect((try? session.tradeHistory()) == (try? BacktestContracts.tradeHistory(expected)))
        let latest = try SignalModel.latest(series, config: configuration.signalModel)
        #expect((try? session.signals()) == (try? SignalContracts.response(latest, config: configuration.signalModel)))
    }
}
