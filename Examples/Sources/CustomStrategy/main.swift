// A strategy of your own, run by Sentio in a backtest and in a live session, with the same result to the bit.
//
//     swift run --package-path Examples CustomStrategy [DATA_DIR]     (default: the repository's Data/market)
//
// The strategy is a Donchian channel breakout: buy when a close rises above the highest high of the previous
// `entry` bars, sell when it falls below the lowest low of the previous `exit` bars. It is written against the
// streaming form of Sentio's one `Strategy` protocol (start, observe each bar, decide at the close), which is all
// a live session calls; a backtest streams the same bars through it. Being Codable, it is saved in the live
// session's snapshots with no more code. Registered by name, a live journal can rebuild it after a restart.
import Foundation
import Sentio

struct DonchianBreakout: Strategy, Codable {
    var entry: Int
    var exit: Int
    /// The last `max(entry, exit)` highs and lows of each symbol (a ring), and how many bars each has seen.
    private var highs: [[Double]] = [], lows: [[Double]] = []
    private var seen: [Int] = []
    /// Each symbol's wish at its latest bar: 1 breakout up, -1 breakdown, 0 neither.
    private var wish: [Int] = []

    init(entry: Int = 20, exit: Int = 10) {
        precondition(entry >= 1 && exit >= 1, "channel lengths must be positive")
        self.entry = entry
        self.exit = exit
    }

    var name: String { "donchian" }
    var settings: [(key: String, value: String)] { [("donchian.entry", String(entry)), ("donchian.exit", String(exit))] }

    mutating func start(symbols: [String]) throws {
        let window = max(entry, exit)
        highs = Array(repeating: Array(repeating: .nan, count: window), count: symbols.count)
        lows = highs
        seen = Array(repeating: 0, count: symbols.count)
        wish = Array(repeating: 0, count: symbols.count)
    }

    mutating func observe(symbol s: Int, bar: Bar) {
        let window = highs[s].count
        // The channels of the previous bars (this bar is not part of them).
        var highest = -Double.infinity, lowest = Double.infinity
        for k in 1...window where k <= seen[s] {
            let slot = (seen[s] - k) % window
            if k <= entry { highest = max(highest, highs[s][slot]) }
            if k <= exit { lowest = min(lowest, lows[s][slot]) }
        }
        wish[s] = seen[s] >= entry && bar.close > highest ? 1 : seen[s] >= exit && bar.close < lowest ? -1 : 0
        highs[s][seen[s] % window] = bar.high
        lows[s][seen[s] % window] = bar.low
        seen[s] += 1
    }

    mutating func decide(_ context: DecisionContext) -> Decision {
        switch wish[context.symbol] {
        case 1 where !context.isInvested: .buy()
        case -1 where context.isInvested: .sell
        default: .hold
        }
    }
}

/// Every number of a result, as bit patterns.
func fingerprint(_ r: BacktestResult) -> [String] {
    r.equity.map { String($0.bitPattern, radix: 16) } + r.cash.map { String($0.bitPattern, radix: 16) }
        + r.trades.map { "\($0.symbol) \($0.entryStep)-\($0.exitStep) \($0.shares.bitPattern) \($0.pnl.bitPattern)" }
}

let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let directory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : repository.appendingPathComponent("Data/market").path

do {
    // 1. Register the strategy: `StrategySpec(name: "donchian", ...)` now means it, in live journals too.
    try StrategyRegistry.shared.register(StrategyDescriptor(
        name: "donchian", summary: "Donchian channel breakout", settingKeys: ["donchian.entry", "donchian.exit"]
    ) { DonchianBreakout(entry: try $0.integer("donchian.entry"), exit: try $0.integer("donchian.exit")) })

    // 2. A backtest over two symbols of the sample data.
    let series = try ["TQQQ", "SQQQ"].map { try OHLCVReader.read(path: "\(directory)/\($0).csv") }
    let market = try Market(series)
    let configuration = BacktestRequest(strategy: .buyAndHold, commissionRate: 0.001).configuration(symbolCount: series.count)
    let strategy = DonchianBreakout(entry: 20, exit: 10)
    let backtest = try Backtest(configuration).run(strategy, on: market)

    // 3. The same strategy in a live session, fed the bars one at a time as a feed would deliver them.
    let session = try LiveSession(
        configuration: LiveConfiguration(strategy: StrategySpec(strategy), backtest: configuration), universe: market.symbols)
    for time in market.timeline {
        for s in series {
            if let i = s.timestamps.firstIndex(of: time) { _ = session.process(LiveBar(symbol: s.symbol, bar: s[bar: i])) }
        }
    }
    session.closePendingStep()
    let live = try session.result()

    let statistics = BacktestStatistics(backtest, moneyWeightedReturn: nil)
    print("donchian(20, 10) on \(market.symbols.joined(separator: ", ")): \(backtest.trades.count) trades, "
          + "final equity \(backtest.finalEquity), total return \(statistics.totalReturnPercent) %")
    guard fingerprint(live) == fingerprint(backtest), !backtest.trades.isEmpty else {
        print("the live session differs from the backtest")
        exit(1)
    }
    print("live session: the same \(live.equity.count) equity points and \(live.trades.count) trades, bit for bit")
} catch {
    print("error: \(error)")
    exit(2)
}
