import Foundation
import SentioAPI
import SentioBacktest
import SentioCore
import SentioData
import SentioLive
import SentioStore
import SentioTestSupport
import Testing

/// The feed of `series`: timestamps in order, the bars of one timestamp shuffled.
private func feed(_ series: [OHLCVSeries], _ rng: inout SplitMix64) -> [FeedBar] {
    var byTime: [Int64: [FeedBar]] = [:]
    for s in series {
        for i in 0..<s.count { byTime[s.timestamps[i], default: []].append(FeedBar(symbol: s.symbol, bar: s[bar: i])) }
    }
    var out: [FeedBar] = []
    for t in byTime.keys.sorted() {
        var bars = byTime[t]!
        bars.shuffle(using: &rng)
        out += bars
    }
    return out
}

@Suite("Compact snapshots and history rebuilt from the journal")
struct CompactSnapshotTests {
    /// The compact snapshot's size does not grow with the session (the full one does), for every strategy.
    @Test func compactSnapshotsDoNotGrowWithTheSession() throws {
        var rng = SplitMix64(seed: 91)
        let series = randomMarket(&rng, symbols: 4, steps: 2_000, gapProbability: 0.02)
        let universe = series.map(\.symbol)
        for strategy: StrategySpec in [.sentio, .rsi(period: 14, lower: 30, upper: 70), .buyAndHold] {
            let session = try LiveSession(configuration: LiveConfiguration(strategy: strategy), universe: universe)
            var sizes: [Int: (compact: Int, full: Int)] = [:]
            let bars = feed(series, &rng)
            let marks = [bars.count / 4, bars.count - 1]  // ~500 and ~2,000 steps
            for (k, bar) in bars.enumerated() {
                _ = session.process(LiveBar(symbol: bar.symbol, bar: bar.bar))
                session.discardEvents()
                if marks.contains(k) {
                    sizes[k] = (try session.compactSnapshot().encoded().count, try session.snapshot().encoded().count)
                }
            }
            let early = sizes[marks[0]]!, late = sizes[marks[1]]!
            #expect(Double(late.compact) < 1.2 * Double(early.compact), "\(strategy): \(early) → \(late)")
            // The full snapshot holds the history: at least 8 bytes (one equity value) more per step in between.
            let stepsBetween = (marks[1] - marks[0]) / universe.count
            #expect(late.full - early.full > 8 * stepsBetween, "\(strategy): the full snapshot holds the history: \(early) → \(late)")
        }
    }

    /// A session restored from a compact snapshot has no history until asked; its provider's session must
    /// reproduce the snapshot, or loading fails with a reason.
    @Test func historyIsLoadedOnlyFromAMatchingReplay() throws {
        var rng = SplitMix64(seed: 5)
        let series = randomMarket(&rng, symbols: 3, steps: 300, gapProbability: 0.05)
        let universe = series.map(\.symbol)
        let configuration = LiveConfiguration(strategy: .rsi(period: 5, lower: 40, upper: 60))
        let bars = feed(series, &rng).map { FeedAction.bar(LiveBar(symbol: $0.symbol, bar: $0.bar)) }
        let session = try replayed(bars.prefix(500), configuration, universe)
        let restored = try LiveSession(snapshot: try LiveSnapshot(encoded: try session.compactSnapshot().encoded()))
        #expect(!restored.hasFullHistory)
        #expect(throws: LiveHistoryError.self) { try restored.result() }
        restored.historyProvider = { try replayed(bars.prefix(499), configuration, universe) }
        #expect(throws: LiveHistoryError.self) { try restored.result() }
        #expect(!restored.hasFullHistory)
        restored.historyProvider = { try replayed(bars.prefix(500), configuration, universe) }
        for action in bars.dropFirst(500) {
            if case .bar(let bar) = action { _ = restored.process(bar); _ = session.process(bar) }
        }
        _ = restored.closeStep()
        _ = session.closeStep()
        #expect(lines(try restored.result()) == lines(try session.result()))
        #expect(restored.hasFullHistory)
        #expect(try restored.snapshot().encoded() == (try session.snapshot().encoded()))
        #expect(lines(try session.result()) == lines(try backtest(configuration, series)))
    }

    /// Seeded: a journaled session committed in random groups with a small snapshot interval, reopened at random
    /// points (as after a kill: no final snapshot) and fed the rest, re-sending an earlier part of the feed
    /// each time: it ends in the backtest's result and the uninterrupted session's full snapshot, its history
    /// rebuilt from the journal.
    @Test(arguments: 0..<6)
    func reopenedJournaledSessionsEqualTheBacktest(caseIndex: Int) throws {
        var rng = SplitMix64(seed: 0xC0_4AC7 &+ UInt64(caseIndex))
        let series = randomMarket(&rng, symbols: 1 + Int(rng.next() % 4), steps: 120 + Int(rng.next() % 200), gapProbability: 0.05)
        let universe = series.map(\.symbol)
        let configuration = randomConfiguration(&rng, symbols: universe)
        let setup = LiveSessionSetup(configuration: configuration, universe: universe)
        let bars = feed(series, &rng)
        let path = try temporaryDirectory("live-compact").appendingPathComponent("s.sqlite").path
        var next = 0
        var reopened = 0
        while next < bars.count {
            let live = try JournaledLiveSession(
                database: try SentioDatabase(path: path), setup: setup, snapshotInterval: 1 + Int(rng.next() % 40))
            if next > 0 {
                reopened += 1
                // Re-send from an earlier point: duplicates, no events.
                let from = max(0, next - Int(rng.next() % 30))
                for bar in bars[from..<next] { try live.ingest(bar) }
                #expect(try live.commit().isEmpty)
            }
            let stop = rng.next() % 3 == 0 ? bars.count : min(bars.count, next + 1 + Int(rng.next() % 400))
            while next < stop {
                try live.ingest(bars[next])
                next += 1
                if rng.next() % 25 == 0 { _ = try live.commit() }
            }
            _ = try live.commit()
        }
        let live = try JournaledLiveSession(database: try SentioDatabase(path: path), setup: setup)
        _ = live.session.closeStep()
        let expected = try backtest(configuration, series)
        #expect(lines(try live.session.result()) == lines(expected), "case \(caseIndex), \(reopened) reopenings")
        let uninterrupted = try replayed(bars.map { FeedAction.bar(LiveBar(symbol: $0.symbol, bar: $0.bar)) }, configuration, universe)
        uninterrupted.closePendingStep()
        #expect(try live.session.snapshot().encoded() == (try uninterrupted.snapshot().encoded()))
    }
}
