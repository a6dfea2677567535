import SentioAPI
import SentioBacktest
import SentioCore
import SentioLive
import SentioSignals
import SentioTestSupport
import Testing

/// The old path's bytes: the wire contract (SentioAPI's `LiveEventContract` of the typed event) through the tree
/// encoder, one line (computed independently of `APIJSON.encodeLine`).
private func treeLine(_ event: LiveEvent) throws -> String { try treeLine(try LiveEventContract(event)) }

/// Random doubles of every shape `description` has: integers (`100000.0`), exponents both ways (`1e-05`,
/// `1e+16`), subnormals, the extremes, negative zero, short decimals, random bit patterns.
private func randomDouble(_ rng: inout SplitMix64) -> Double {
    switch rng.next() % 12 {
    case 0: return Double(Int64(bitPattern: rng.next()) % 1_000_000)
    case 1: return Double(rng.next() % 1000) / 10
    case 2: return [0.0, -0.0, 1.0, -1.0, 0.1, 1e-5, 1e16, 1e15, 123456789012345680.0][Int(rng.next() % 9)]
    case 3: return [Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude,
                    Double.leastNormalMagnitude, -Double.leastNonzeroMagnitude, Double.ulpOfOne][Int(rng.next() % 6)]
    case 4: return Double(bitPattern: rng.next() % (1 << 52))  // subnormal
    case 5: return (Double(rng.next() % 2_000_001) - 1_000_000) * 1e-9
    case 6: return Double(rng.next() % 100_000_000) / 100
    default:
        var x = Double(bitPattern: rng.next())
        while !x.isFinite { x = Double(bitPattern: rng.next()) }
        return x
    }
}

private func randomString(_ rng: inout SplitMix64) -> String {
    let pieces = ["TQQQ", "a", " ", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "é", "Ω", "漢字",
                  "🚀", "e\u{301}", "\u{2028}", "/", "BUY: momentum ↑ 2.5%", "{}", "[1,2]", "null", "\u{FEFF}", ""]
    var s = ""
    for _ in 0..<Int(rng.next() % 8) { s += pieces[Int(rng.next() % UInt64(pieces.count))] }
    return s
}

private func randomTimestamp(_ rng: inout SplitMix64) -> Int64 {
    let range = CivilDate.supportedEpochSeconds
    let span = UInt64(range.upperBound - range.lowerBound + 1)
    switch rng.next() % 4 {
    case 0: return [range.lowerBound, range.upperBound, 0, -1, 86_399, 86_400][Int(rng.next() % 6)]
    default: return range.lowerBound + Int64(rng.next() % span)
    }
}

private func randomInt(_ rng: inout SplitMix64) -> Int {
    switch rng.next() % 4 {
    case 0: return [Int.min, Int.max, 0, -1, 9, 10][Int(rng.next() % 6)]
    case 1: return Int(bitPattern: UInt(rng.next()))
    default: return Int(rng.next() % 10_000)
    }
}

private func pick<T>(_ values: [T], _ rng: inout SplitMix64) -> T { values[Int(rng.next() % UInt64(values.count))] }

/// Every rejection reason: the backtest's order reasons, the bar codes, `malformed-line`.
private let rejectionReasons: [LiveRejectionReason] =
    [RejectionReason.insufficientCash, .zeroSize, .noBarForSymbol, .maxPositionsReached, .positionAlreadyOpen,
     .noOpenPosition, .invalidAmount, .quantityOverflow].map { .order($0) }
    + LiveBarRejection.Code.allCases.map { .bar($0) } + [.malformedLine]

/// A random order, fill, rejection or equity mark (signal updates: `DirectSignalLineTests`).
private func randomEvent(_ rng: inout SplitMix64) -> LiveEvent {
    func d() -> Double { randomDouble(&rng) }
    func str() -> String { randomString(&rng) }
    func maybe<T>(_ make: () -> T) -> T? { rng.next() % 3 == 0 ? nil : make() }
    let side = pick([OrderSide.buy, .sell], &rng)
    switch rng.next() % 4 {
    case 0:
        return .order(LiveOrder(
            id: randomInt(&rng), symbol: str(), side: side, reason: pick(LiveOrderReason.allCases, &rng),
            decidedAt: randomTimestamp(&rng), amount: maybe { d() }))
    case 1:
        return .fill(LiveFill(
            orderId: randomInt(&rng), symbol: str(), side: side, reason: pick([ExitReason.signal, .stopLoss, .takeProfit], &rng),
            timestamp: randomTimestamp(&rng), price: d(), shares: d(), commission: d(), cash: d()))
    case 2:
        return .rejected(LiveRejection(
            reason: pick(rejectionReasons, &rng), message: str(), symbol: maybe { str() },
            timestamp: maybe { randomTimestamp(&rng) }, orderId: maybe { randomInt(&rng) }, field: maybe { str() },
            line: maybe { randomInt(&rng) }))
    default:
        return .equity(LiveEquityMark(
            timestamp: randomTimestamp(&rng), equity: d(), cash: d(), contributions: d(), openPositions: randomInt(&rng)))
    }
}

/// Replaces one double of `event` with a non-finite value (when it has one).
private func poisoned(_ event: LiveEvent, _ rng: inout SplitMix64) -> LiveEvent {
    let bad = [Double.nan, .infinity, -.infinity][Int(rng.next() % 3)]
    switch event {
    case .order(var e): e.amount = bad; return .order(e)
    case .fill(var e):
        if rng.next() % 2 == 0 { e.cash = bad } else { e.price = bad }
        return .fill(e)
    case .equity(var e): e.contributions = bad; return .equity(e)
    case .rejected, .signalUpdate: return event
    }
}

@Suite("LiveJournalCodec writes the wire contracts' bytes and reads them back")
struct LiveJournalCodecTests {
    /// Seeded: 5,000 random typed events: the codec's line is the old path's (the wire contract through the tree
    /// encoder, and `APIJSON.encodeLine` of the contract), and reads back to the same event.
    @Test func randomEventsEncodeToTheSameBytesAndReadBack() throws {
        var rng = SplitMix64(seed: 0x5EED_1317)
        var buffer: [UInt8] = []
        var kinds = Set<String>()
        for k in 0..<5_000 {
            let event = randomEvent(&rng)
            kinds.insert(event.type)
            let expected = try treeLine(event)
            let direct = try LiveJournalCodec.line(event)
            #expect(direct == expected, "case \(k)")
            #expect(try APIJSON.encodeLine(try LiveEventContract(event)) == expected, "case \(k): encodeLine of the contract")
            #expect(try LiveJournalCodec.event(line: direct) == event, "case \(k): read back")
            // Appending keeps what the buffer held.
            let before = buffer.count
            try LiveJournalCodec.appendLine(event, to: &buffer)
            #expect(String(decoding: buffer[before...], as: UTF8.self) == expected)
            if buffer.count > 100_000 { buffer.removeAll(keepingCapacity: true) }
        }
        #expect(kinds == ["order", "fill", "rejected", "equity"])
    }

    @Test func nonFiniteNumbersAreTheTreeEncodersError() throws {
        var rng = SplitMix64(seed: 77)
        var checked = 0
        for k in 0..<2_000 {
            let event = poisoned(randomEvent(&rng), &rng)
            var treeError: APIEncodingError?
            do { _ = try treeLine(event) } catch let error as APIEncodingError { treeError = error }
            var directError: APIEncodingError?
            var buffer: [UInt8] = [1, 2, 3]
            do { try LiveJournalCodec.appendLine(event, to: &buffer) } catch { directError = error }
            #expect(directError == treeError, "case \(k)")
            if treeError != nil {
                checked += 1
                #expect(buffer == [1, 2, 3], "case \(k): a failed append leaves the buffer as it was")
            }
        }
        #expect(checked > 1_000)
    }

    @Test func linesThatAreNotEventsAreRefused() {
        for line in ["", "{}", "[1]", #"{"type": "order"}"#, #"{"type": "signal_update","data": {}}"#,
                     #"{"type": "rejected","reason": "no-such-code","message": "m","symbol": null,"timestamp": null,"orderId": null,"field": null,"line": null}"#] {
            #expect(throws: LiveEventLineError.self, "\(line)") { try LiveJournalCodec.event(line: line) }
        }
    }

    @Test func sessionEventsEncodeToTheSameBytes() throws {
        var rng = SplitMix64(seed: 4242)
        for round in 0..<4 {
            let market = randomMarket(&rng, symbols: 3, steps: 260, gapProbability: 0.1)
            let universe = market.map(\.symbol)
            let session = try LiveSession(configuration: randomConfiguration(&rng, symbols: universe), universe: universe)
            var kinds = Set<String>()
            for step in 0..<260 {
                for s in market {
                    guard let i = s.timestamps.firstIndex(of: 1_704_067_200 + Int64(step) * 86_400) else { continue }
                    for event in session.ingest(LiveBar(symbol: s.symbol, bar: s[bar: i])) {
                        kinds.insert(event.type)
                        let line = try LiveJournalCodec.line(event)
                        #expect(line == (try treeLine(event)), "round \(round) step \(step)")
                        if case .signalUpdate = event { continue }
                        #expect(try LiveJournalCodec.event(line: line) == event, "round \(round) step \(step): read back")
                    }
                }
            }
            #expect(kinds.contains("equity"))
        }
    }
}
