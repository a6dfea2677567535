import Foundation
import SentioBacktest
import SentioCore
import SentioData
import SentioLive
import SentioTestSupport
import Testing

/// A live session on unadjusted bars with corporate actions (`sentio live --actions`), and the split check bar by bar
/// (`--adjust auto`): the same step function as the backtest, so the same bars and actions give the same bits; the
/// same split rule as the CSV reader, so live refuses the bar the reader refuses.
@Suite("Live sessions with corporate actions")
struct CorporateActionLiveTests {
    /// The bars of `series` (all on the same timestamps) in timeline order.
    static func feed(_ series: [OHLCVSeries]) -> [LiveBar] {
        var bars: [LiveBar] = []
        for i in 0..<series[0].count {
            for s in series { bars.append(LiveBar(symbol: s.symbol, bar: s[bar: i])) }
        }
        return bars
    }

    static func expectSameBits(_ a: BacktestResult, _ b: BacktestResult, _ label: String) {
        #expect(a.equity.map(\.bitPattern) == b.equity.map(\.bitPattern), "\(label): equity")
        #expect(a.cash.map(\.bitPattern) == b.cash.map(\.bitPattern), "\(label): cash")
        #expect(a.orders.count == b.orders.count, "\(label): orders")
        for (x, y) in zip(a.orders, b.orders) {
            #expect(x.fillPrice.bitPattern == y.fillPrice.bitPattern && x.shares.bitPattern == y.shares.bitPattern
                        && x.rejection == y.rejection, "\(label): order \(x.id)")
        }
        #expect(a.openPositions.map(\.shares.bitPattern) == b.openPositions.map(\.shares.bitPattern), "\(label): positions")
    }

    /// Seeded: random markets with random splits and dividends (`CorporateActionCase`), buy-and-hold and DCA, with
    /// the split check on: every bar is accepted (each split is explained by its action) and the session's result
    /// equals `Backtest.run` with the same actions bit for bit, also across a snapshot taken and restored at a random
    /// bar (the state keeps how far each symbol's actions were applied).
    @Test func liveWithActionsIsTheBacktestBitForBit() throws {
        var rng = SplitMix64(seed: 0x28_4000)
        for trial in 0..<30 {
            let c = CorporateActionCase.random(&rng)
            let dca = trial % 2 == 1
            let configuration = BacktestConfiguration(
                initialCapital: dca ? 0 : 100_000, costs: TradingCosts(commissionRate: 0.001, feePerOrder: 1),
                sizing: .equalWeight(maxPositions: c.raw.count), fractionalShares: trial % 3 != 0)
            var backtest = Backtest(configuration)
            backtest.corporateActions = c.rawActions
            let market = try Market(c.raw)
            let expected = dca
                ? try backtest.run(DollarCostAveragingStrategy(amount: 1_000, every: .month), on: market)
                : try backtest.run(BuyAndHoldStrategy(), on: market)
            let live = LiveConfiguration(
                strategy: dca ? .dca(amount: 1_000, every: .month, symbols: nil) : .buyAndHold, backtest: configuration,
                corporateActions: c.rawActions)
            var session = try LiveSession(configuration: live, universe: market.symbols)
            let bars = Self.feed(c.raw)
            let cut = Int.random(in: 0..<bars.count, using: &rng)
            for (k, bar) in bars.enumerated() {
                if k == cut { session = try LiveSession(snapshot: try LiveSnapshot(encoded: try session.snapshot().encoded())) }
                switch session.process(bar) {
                case .accepted: break
                case let other: Issue.record("trial \(trial): bar \(k): \(other)")
                }
            }
            session.closePendingStep()
            Self.expectSameBits(try session.result(), expected, "trial \(trial)")
        }
    }

    /// Seeded: the same markets without the actions. Live (split check on) rejects, for each symbol, exactly the first
    /// bar the CSV reader's split check refuses (`--adjust auto` on the symbol's file), with the same ratio, and
    /// accepts everything before it; with the check off (`--adjust none`) every bar is accepted and the result is the
    /// backtest's on the raw prices.
    @Test func splitCheckBarByBarIsTheReadersRule() throws {
        var rng = SplitMix64(seed: 0x28_4100)
        var rejectedCases = 0
        for trial in 0..<40 {
            let c = CorporateActionCase.random(&rng)
            let universe = c.raw.map(\.symbol)
            // The reader's verdict on each symbol's file.
            var refused: [String: (date: Int64, ratio: String)] = [:]
            for s in c.raw {
                var text = "timestamp,open,high,low,close,volume\n"
                for i in 0..<s.count {
                    text += "\(iso8601(epochSeconds: s.timestamps[i])),\(s.open[i]),\(s.high[i]),\(s.low[i]),\(s.close[i]),\(s.volume[i])\n"
                }
                do {
                    _ = try OHLCVReader.parse(text: text, file: "\(s.symbol).csv", symbol: s.symbol, options: ReadOptions(adjust: .auto))
                } catch {
                    guard case let .suspectedSplit(_, _, _, _, _, date, ratio, _, _) = error else {
                        Issue.record("trial \(trial): \(error)")
                        continue
                    }
                    refused[s.symbol] = (try TimestampParser.parse(date).get(), ratio)
                }
            }
            let session = try LiveSession(configuration: LiveConfiguration(strategy: .buyAndHold), universe: universe)
            var firstRejection: [String: (date: Int64, ratio: String)] = [:]
            for bar in Self.feed(c.raw) {
                if case .rejected(let reason) = session.process(bar) {
                    guard case let .suspectedSplit(_, ratio) = reason else {
                        Issue.record("trial \(trial): \(reason)")
                        continue
                    }
                    if firstRejection[bar.symbol] == nil {
                        firstRejection[bar.symbol] = (bar.bar.timestamp, PriceAdjustment.name(ofRatio: ratio))
                    }
                }
            }
            #expect(firstRejection.mapValues { "\($0.date) \($0.ratio)" } == refused.mapValues { "\($0.date) \($0.ratio)" },
                    "trial \(trial)")
            if !refused.isEmpty { rejectedCases += 1 }

            let unchecked = try LiveSession(
                configuration: LiveConfiguration(strategy: .buyAndHold, splitCheck: false), universe: universe)
            for bar in Self.feed(c.raw) {
                if case .rejected(let reason) = unchecked.process(bar) { Issue.record("trial \(trial) unchecked: \(reason)") }
            }
            unchecked.closePendingStep()
            let expected = try Backtest(BacktestConfiguration()).run(BuyAndHoldStrategy(), on: try Market(c.raw))
            Self.expectSameBits(try unchecked.result(), expected, "trial \(trial) unchecked")
        }
        #expect(rejectedCases > 10, "the cases exercise the check")
    }

    /// The rejection event names the symbol, both dates, the ratio and how to proceed.
    @Test func suspectedSplitEventSaysHowToProceed() throws {
        let session = try LiveSession(configuration: LiveConfiguration(strategy: .buyAndHold), universe: ["AAPL"])
        let day: Int64 = 86_400, start: Int64 = 11_128 * 86_400  // 2000-06-20
        _ = session.ingest(LiveBar(symbol: "AAPL", timestamp: start, open: 100, high: 101, low: 99, close: 100, volume: 10))
        let events = session.ingest(LiveBar(symbol: "AAPL", timestamp: start + day, open: 50, high: 51, low: 49, close: 50.5, volume: 20))
        guard case .rejected(let event)? = events.first else {
            Issue.record("expected a rejection, got \(events)")
            return
        }
        #expect(event.reason.code == "suspected-split")
        #expect(event.message.contains("AAPL bar at 2000-06-21"), "\(event.message)")
        #expect(event.message.contains("from 2000-06-20") && event.message.contains("2-for-1"), "\(event.message)")
        #expect(event.message.contains("--actions") && event.message.contains("--adjust none") && event.message.contains("--reset"))
        // With the split in the session's actions the bar is accepted, and the holding doubles.
        let explained = try LiveSession(
            configuration: LiveConfiguration(
                strategy: .buyAndHold, corporateActions: ["AAPL": [HoldingAdjustment(time: start + day, shareMultiplier: 2, cashPerShare: 0)]]),
            universe: ["AAPL"])
        _ = explained.ingest(LiveBar(symbol: "AAPL", timestamp: start, open: 100, high: 101, low: 99, close: 100, volume: 10))
        #expect(explained.process(LiveBar(symbol: "AAPL", timestamp: start + day, open: 50, high: 51, low: 49, close: 50.5, volume: 20)) == .accepted(completedSteps: 1))
    }

    /// The stored configuration: a session without actions and with the check on stores exactly what it stored
    /// before these settings existed (no new key); with them, they read back to the same values, and a change is
    /// listed as a difference.
    @Test func configurationStoresTheSettingsOnlyWhenUsed() throws {
        let plain = LiveConfiguration(strategy: .buyAndHold)
        let text = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        #expect(!text.contains("splitCheck") && !text.contains("corporateActions"), "\(text)")
        let actions = [
            "AAPL": [HoldingAdjustment(time: 961_545_600, shareMultiplier: 2, cashPerShare: 0),
                     HoldingAdjustment(time: 1_344_470_400 + 3_600, shareMultiplier: 1, cashPerShare: 2.64)],
            "MSFT": [HoldingAdjustment(time: 1_045_008_000, shareMultiplier: 1.0 / 3, cashPerShare: 0.1 + 0.2)],
        ]
        let used = LiveConfiguration(strategy: .buyAndHold, corporateActions: actions, splitCheck: false)
        let decoded = try JSONDecoder().decode(LiveConfiguration.self, from: try JSONEncoder().encode(used))
        #expect(decoded == used)
        #expect(decoded.corporateActions["MSFT"]![0].shareMultiplier.bitPattern == (1.0 / 3).bitPattern)
        let differences = used.differences(from: plain)
        #expect(differences.contains("splitCheck: stored on, given off"), "\(differences)")
        #expect(differences.contains { $0.hasPrefix("corporateActions: stored (none), given AAPL 2000-06-21 split=2.0 dividend=0.0; ") })
    }
}
