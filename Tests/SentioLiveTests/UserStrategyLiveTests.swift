import Foundation
import SentioBacktest
import SentioCore
import SentioData
import SentioLive
import SentioStore
import SentioTestSupport
import Testing

/// A user's strategy for live sessions: the close against its mean over the last `window` bars (buy above, sell
/// below). Codable: snapshots save it.
struct CloseAboveMean: Strategy, Codable {
    var window: Int
    var closes: [[Double]] = []
    var signal: [Int] = []  // 1 above, -1 below, 0 warming up

    var name: String { "close-above-mean" }
    var settings: [(key: String, value: String)] { [("close-above-mean.window", String(window))] }

    mutating func start(symbols: [String]) throws {
        closes = Array(repeating: [], count: symbols.count)
        signal = Array(repeating: 0, count: symbols.count)
    }

    mutating func observe(symbol s: Int, bar: Bar) {
        closes[s].append(bar.close)
        guard closes[s].count >= window else { return }
        let mean = closes[s].suffix(window).reduce(0, +) / Double(window)
        signal[s] = bar.close > mean ? 1 : -1
    }

    mutating func decide(_ context: DecisionContext) -> Decision {
        switch signal[context.symbol] {
        case 1 where !context.isInvested: .buy()
        case -1 where context.isInvested: .sell
        default: .hold
        }
    }
}

/// The same rule, not Codable: a journal of it holds no snapshot and is rebuilt from its inputs.
struct CloseAboveMeanUnsaved: Strategy {
    var inner: CloseAboveMean
    var name: String { "close-above-mean-unsaved" }
    var settings: [(key: String, value: String)] { [("close-above-mean-unsaved.window", String(inner.window))] }
    mutating func start(symbols: [String]) throws { try inner.start(symbols: symbols) }
    mutating func observe(symbol: Int, bar: Bar) { inner.observe(symbol: symbol, bar: bar) }
    mutating func decide(_ context: DecisionContext) -> Decision { inner.decide(context) }
}

/// Registers both strategies once in the process's registry (what a program using the library does at start).
let userStrategiesRegistered: Bool = {
    try! StrategyRegistry.shared.register(StrategyDescriptor(
        name: "close-above-mean", summary: "close above its mean", settingKeys: ["close-above-mean.window"]) {
        CloseAboveMean(window: try $0.integer("close-above-mean.window"))
    })
    try! StrategyRegistry.shared.register(StrategyDescriptor(
        name: "close-above-mean-unsaved", summary: "the same, unsaved", settingKeys: ["close-above-mean-unsaved.window"]) {
        CloseAboveMeanUnsaved(inner: CloseAboveMean(window: try $0.integer("close-above-mean-unsaved.window")))
    })
    return true
}()

@Suite("A user's strategy in a journaled live session: registered once, stored by name, restored or replayed")
struct UserStrategyLiveTests {
    /// Seeded: each session is reopened at random points (as after a kill) and fed the rest; the result is the
    /// backtest's, bit for bit, whether the strategy saves its state (snapshots) or not (replay of every input).
    @Test(arguments: 0..<4)
    func reopenedSessionsEqualTheBacktest(caseIndex: Int) throws {
        #expect(userStrategiesRegistered)
        var rng = SplitMix64(seed: 0x29_7000 &+ UInt64(caseIndex))
        let series = randomMarket(&rng, symbols: 1 + Int(rng.next() % 3), steps: 150 + Int(rng.next() % 100), gapProbability: 0.05)
        let universe = series.map(\.symbol)
        let window = 3 + Int(rng.next() % 10)
        let strategy: any Strategy = caseIndex % 2 == 0
            ? CloseAboveMean(window: window) : CloseAboveMeanUnsaved(inner: CloseAboveMean(window: window))
        let configuration = LiveConfiguration(
            strategy: StrategySpec(strategy), backtest: BacktestConfiguration(sizing: .equalWeight(maxPositions: universe.count)))
        let setup = LiveSessionSetup(configuration: configuration, universe: universe)
        var bars: [FeedBar] = []
        for t in Set(series.flatMap(\.timestamps)).sorted() {
            for s in series { if let i = s.timestamps.firstIndex(of: t) { bars.append(FeedBar(symbol: s.symbol, bar: s[bar: i])) } }
        }
        let path = try temporaryDirectory("live-user-strategy").appendingPathComponent("s.sqlite").path
        var next = 0
        while next < bars.count {
            let live = try JournaledLiveSession(database: try SentioDatabase(path: path), setup: setup, snapshotInterval: 1 + Int(rng.next() % 30))
            #expect(live.session.canSnapshot == (caseIndex % 2 == 0))
            let stop = min(bars.count, next + 1 + Int(rng.next() % 150))
            while next < stop {
                try live.ingest(bars[next])
                next += 1
            }
            _ = try live.commit()
        }
        let live = try JournaledLiveSession(database: try SentioDatabase(path: path), setup: setup)
        _ = live.session.closeStep()
        let expected = try Backtest(configuration.backtest).run(strategy, on: try Market(series))
        #expect(lines(try live.session.result()) == lines(expected), "case \(caseIndex)")
        #expect(expected.trades.count > 0)
    }

    @Test("a journal naming a strategy this process has not registered is a named error")
    func unregisteredStrategyIsAnError() throws {
        let configuration = LiveConfiguration(strategy: StrategySpec(name: "not-registered-here"))
        let error = #expect(throws: BacktestError.self) { try configuration.validate() }
        #expect(error?.message.hasPrefix("unknown strategy not-registered-here; registered: sentio, rsi, buy-and-hold, dca") == true)
    }
}
