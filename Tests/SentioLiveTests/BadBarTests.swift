import SentioAPI
import SentioBacktest
import SentioCore
import SentioLive
import SentioSignals
import SentioTestSupport
import Foundation
import Testing

@Suite struct BadBarTests {
    /// Sessions in random states (a random prefix of a random market fed, maybe a step pending); then a
    /// conflicting, late, invalid or unknown-symbol bar: rejected with the right reason (and field), one
    /// `rejected` event, and the encoded snapshot is unchanged.
    @Test(arguments: 0..<24)
    func badBarsAreRejectedAndChangeNothing(caseIndex: Int) throws {
        var rng = SplitMix64(seed: 0xBAD_BA25 &+ UInt64(caseIndex) &* 0xD1B5_4A32_D192_ED03)
        let symbolCount = 2 + Int(rng.next() % 3)
        let series = randomMarket(&rng, symbols: symbolCount, steps: 30 + Int(rng.next() % 30), gapProbability: 0.1)
        let universe = series.map(\.symbol)
        let session = try LiveSession(configuration: randomConfiguration(&rng, symbols: universe), universe: universe)
        var all: [LiveBar] = []
        for s in series { for i in 0..<s.count { all.append(LiveBar(symbol: s.symbol, bar: s[bar: i])) } }
        all.sort { ($0.bar.timestamp, $0.symbol) < ($1.bar.timestamp, $1.symbol) }
        let fed = 5 + Int(rng.next() % UInt64(all.count - 5))
        for bar in all.prefix(fed) { _ = session.ingest(bar) }
        let accepted = Array(all.prefix(fed))

        for _ in 0..<12 {
            let before = try session.snapshot().encoded()
            var bar = accepted[Int(rng.next() % UInt64(accepted.count))]
            let expectedCode: String
            var expectedField: String?
            switch rng.next() % 4 {
            case 0:
                // Conflicting: the latest accepted bar of a symbol, one value changed.
                let symbol = bar.symbol
                bar = accepted.last { $0.symbol == symbol }!
                switch rng.next() % 3 {
                case 0: bar.bar.volume += 1
                case 1: bar.bar.close = bar.bar.close.nextUp; bar.bar.high = max(bar.bar.high, bar.bar.close)
                default: bar.bar.low = bar.bar.low.nextDown
                }
                expectedCode = "conflicting-bar"
            case 1:
                // Late: a timestamp before the current step that is not the symbol's latest bar.
                let current = session.pendingStepTime ?? session.lastCompletedStepTime!
                bar.bar.timestamp = current - 1 - Int64(rng.next() % 1_000)
                expectedCode = "late-bar"
            case 2:
                let fields = ["open", "high", "low", "close", "volume"]
                let field = fields[Int(rng.next() % 5)]
                let bad: [Double] = field == "volume" ? [-1, .nan, .infinity] : [0, -3, .nan, .infinity, -.infinity]
                let value = bad[Int(rng.next() % UInt64(bad.count))]
                switch field {
                case "open": bar.bar.open = value
                case "high": bar.bar.high = value
                case "low": bar.bar.low = value
                case "close": bar.bar.close = value
                default: bar.bar.volume = value
                }
                bar.bar.timestamp += 86_400 * 1_000  // in the future: only the values are wrong
                expectedCode = "invalid-bar"
                expectedField = field
            default:
                bar.symbol = "NOT-IN-UNIVERSE"
                expectedCode = "unknown-symbol"
            }
            let events = session.ingest(bar)
            #expect(events.count == 1)
            guard case .rejected(let r)? = events.first else {
                Issue.record("expected one rejected event, got \(events.map(\.type))")
                continue
            }
            #expect(r.reason.code == expectedCode)
            if let expectedField { #expect(r.field == expectedField) }
            #expect(r.symbol == bar.symbol)
            #expect(try session.snapshot().encoded() == before, "a rejected bar changes nothing")
        }
    }

    /// The reader's structural rules name the field.
    @Test func structuralRulesNameTheField() {
        let ok = LiveBar(symbol: "A", timestamp: 0, open: 10, high: 12, low: 9, close: 11, volume: 5)
        #expect(ok.validationProblem == nil)
        var b = ok; b.bar.high = 8.5
        #expect(b.validationProblem?.field == "high")  // below low
        b = ok; b.bar.high = 10.5
        #expect(b.validationProblem?.field == "high")  // below the close
        b = ok; b.bar.low = 10.5
        #expect(b.validationProblem?.field == "low")  // above the open
        b = ok; b.bar.volume = -0.5
        #expect(b.validationProblem?.field == "volume")
    }
}

@Suite struct StepAndFillTimingTests {
    func bar(_ symbol: String, _ day: Int64, _ price: Double) -> LiveBar {
        LiveBar(symbol: symbol, timestamp: 1_704_067_200 + day * 86_400, open: price, high: price + 1, low: price - 1, close: price, volume: 100)
    }

    /// Buy-and-hold with next-open fills: orders at the first step's completion, fills when the next step of
    /// the symbol completes (at its open); a missing symbol's step completes when a later bar arrives or on
    /// `closeStep()`.
    @Test func ordersFillWhenTheNextStepCompletes() throws {
        let configuration = LiveConfiguration(
            strategy: .buyAndHold, backtest: BacktestConfiguration(sizing: .equalWeight(maxPositions: 2)))
        let session = try LiveSession(configuration: configuration, universe: ["A", "B"])
        #expect(session.ingest(bar("A", 0, 10)).isEmpty)
        #expect(session.pendingStepTime != nil)
        let first = session.ingest(bar("B", 0, 20))
        #expect(first.map(\.type) == ["order", "order", "equity"])
        #expect(session.ingest(bar("B", 1, 21)).isEmpty)
        let second = session.ingest(bar("A", 1, 11))
        #expect(second.map(\.type) == ["fill", "fill", "equity"])
        if case .fill(let f) = second[0] {
            #expect(f.symbol == "A" && f.price == 11 && f.shares == (50_000 / 11).rounded(.down))
        }
        // B misses day 2: the step completes when A's day-3 bar arrives.
        #expect(session.ingest(bar("A", 2, 12)).isEmpty)
        let third = session.ingest(bar("A", 3, 13))
        #expect(third.map(\.type) == ["equity"])
        #expect(session.completedSteps == 3 && session.pendingStepTime == bar("A", 3, 13).bar.timestamp)
        #expect(session.closeStep().map(\.type) == ["equity"])
        #expect(session.closeStep().isEmpty)
        #expect(session.completedSteps == 4)
        #expect(try session.result().exposed == [false, true, true, true])
    }

    @Test func configurationRoundTripsThroughCodable() throws {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<50 {
            let c = randomConfiguration(&rng, symbols: ["A", "B", "C"])
            let bytes = try JSONEncoder().encode(c)
            let back = try JSONDecoder().decode(LiveConfiguration.self, from: bytes)
            #expect(back == c)
            #expect(back.differences(from: c).isEmpty)
        }
    }
}
