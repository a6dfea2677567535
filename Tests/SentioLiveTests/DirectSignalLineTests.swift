import Foundation
import SentioAPI
import SentioCore
import SentioData
import SentioLive
import SentioSignals
import SentioStore
import SentioTestSupport
import Testing

/// The tree encoder's one-line form (`APIJSON.encode` of the wire contract without its layout), independent of
/// `LiveJournalCodec` (shared by `LiveJournalCodecTests`).
func treeLine(_ event: LiveEventContract) throws -> String {
    let pretty = try APIJSON.encode(event)
    var out: [UInt8] = []
    var atLineStart = false
    for byte in pretty.utf8 {
        if byte == 0x0A { atLineStart = true; continue }
        if atLineStart && byte == 0x20 { continue }
        atLineStart = false
        out.append(byte)
    }
    out.append(0x0A)
    return String(decoding: out, as: UTF8.self)
}

private func randomDouble(_ rng: inout SplitMix64) -> Double {
    switch rng.next() % 12 {
    case 0: return [Double.nan, .infinity, -.infinity][Int(rng.next() % 3)]
    case 1: return [0.0, -0.0, 1e-5, 1e16, 0.005, 2.675, 1e20, -1e300, Double.leastNonzeroMagnitude][Int(rng.next() % 9)]
    case 2: return Double(Int64(bitPattern: rng.next()) % 100_000) / 100
    default:
        var x = Double(bitPattern: rng.next())
        while !x.isFinite { x = Double(bitPattern: rng.next()) }
        return rng.next() % 2 == 0 ? x : Double(rng.next() % 1_000_000) / 1000 - 500
    }
}

/// A random engine signal: every reason (warm-up included), unicode and escaped characters in the symbol,
/// timestamps inside and outside the years 0001...9999, non-finite numbers in some fields.
private func randomSignal(_ rng: inout SplitMix64) -> Signal {
    let pieces = ["TQQQ", "A", "\"", "\\", "\n", "\u{1}", "é", "漢字", "🚀", ""]
    var symbol = ""
    for _ in 0..<Int(rng.next() % 4) { symbol += pieces[Int(rng.next() % UInt64(pieces.count))] }
    if rng.next() % 10 == 0 { symbol += String(repeating: "Z", count: 200) }
    let range = CivilDate.supportedEpochSeconds
    let timestamp = rng.next() % 10 == 0
        ? [range.upperBound + 1, range.lowerBound - 86_400 * 500, range.upperBound][Int(rng.next() % 3)]
        : range.lowerBound + Int64(rng.next() % UInt64(range.upperBound - range.lowerBound))
    func d() -> Double { rng.next() % 6 == 0 ? randomDouble(&rng) : Double(rng.next() % 1_000_000) / 1000 - 500 }
    return Signal(
        symbol: symbol, timestamp: timestamp, barIndex: Int(rng.next() % 10_000), price: d(), change: d(),
        changePercent: d(), signalType: SignalType.allCases[Int(rng.next() % 3)], confidence: d(), targetReturn: d(),
        stopLoss: d(), profitTarget: d(), aiSignal: d(), rsi: d(), volumeRatio: d(), forecastLogReturn: d(),
        forecastStandardError: d(), adjustedRSquared: d(), averageTrueRange: d(),
        reason: SignalReason.allCases[Int(rng.next() % UInt64(SignalReason.allCases.count))],
        barsUntilReady: Int(rng.next() % 50))
}

/// The feed of `series`: timestamps in order, the bars of one timestamp shuffled.
private func shuffledFeed(_ series: [OHLCVSeries], _ rng: inout SplitMix64) -> [FeedBar] {
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

@Suite("signal_update lines written straight from engine signals")
struct DirectSignalLineTests {
    /// Seeded: 6,000 random signals: `appendSignalUpdate` writes the tree encoder's line of
    /// `SignalContracts.liveMessage` exactly when the contract can carry the signal, and nothing otherwise.
    @Test func directLinesEqualTheContractsLines() throws {
        var rng = SplitMix64(seed: 0xD1_2EC7)
        var written = 0, refused = 0
        for k in 0..<6_000 {
            let signal = randomSignal(&rng)
            var config = SignalModelConfig()
            config.horizon = 1 + Int(rng.next() % 6)
            var buffer: [UInt8] = [7, 8]
            let ok = LiveJournalCodec.appendSignalUpdate(signal, config: config, to: &buffer)
            if let message = try? SignalContracts.liveMessage(signal, config: config) {
                #expect(ok, "case \(k)")
                #expect(String(decoding: buffer.dropFirst(2), as: UTF8.self) == (try treeLine(.signalUpdate(message))), "case \(k)")
                #expect(buffer.prefix(2) == [7, 8])
                written += 1
            } else {
                #expect(!ok, "case \(k)")
                #expect(buffer == [7, 8], "case \(k): nothing appended")
                refused += 1
            }
        }
        #expect(written > 1_000 && refused > 1_000)
    }

    /// Seeded: journaled sessions fed the same random feeds (duplicates, conflicting bars, malformed lines,
    /// step closes by the grace delay, random commit points): the lines `commit(appendingLinesTo:)` writes are
    /// the tree encoder's lines of the events `commit()` returns, in order; pipelined commits
    /// (`commitInBackground`) hand out the same lines, and their journal holds the same inputs and events.
    @Test(arguments: 0..<4)
    func committedLinesEqualTheCommittedEvents(caseIndex: Int) throws {
        var rng = SplitMix64(seed: 0x11E5 &+ UInt64(caseIndex))
        let series = randomMarket(&rng, symbols: 1 + Int(rng.next() % 4), steps: 150 + Int(rng.next() % 150), gapProbability: 0.05)
        let universe = series.map(\.symbol)
        let setup = LiveSessionSetup(configuration: randomConfiguration(&rng, symbols: universe), universe: universe)
        let directory = try temporaryDirectory("live-direct-lines")
        let a = try JournaledLiveSession(database: try SentioDatabase(path: directory.appendingPathComponent("a.sqlite").path), setup: setup)
        let b = try JournaledLiveSession(database: try SentioDatabase(path: directory.appendingPathComponent("b.sqlite").path), setup: setup)
        let c = try JournaledLiveSession(database: try SentioDatabase(path: directory.appendingPathComponent("c.sqlite").path), setup: setup)
        var pipelinedLines: [UInt8] = []
        let bars = shuffledFeed(series, &rng)
        var kinds = Set<String>()
        var lines: [UInt8] = []
        var expected = ""
        func commit() throws {
            try a.commit(appendingLinesTo: &lines)
            try c.commitInBackground(appendingCommittedLinesTo: &pipelinedLines)
            for event in try b.commit() {
                kinds.insert(event.type)
                expected += try treeLine(try LiveEventContract(event))
            }
        }
        for (k, bar) in bars.enumerated() {
            var fed = bar
            switch rng.next() % 40 {
            case 0 where k > 0:
                fed = bars[k - 1 - Int(rng.next() % UInt64(min(k, 5)))]  // a re-sent bar (duplicate)
            case 1 where k > 0:
                var changed = bars[k - 1]
                changed.bar.volume += 1  // a conflicting bar
                fed = changed
            case 2:
                try a.reject(line: k, message: "line \(k) is not a bar")
                try b.reject(line: k, message: "line \(k) is not a bar")
                try c.reject(line: k, message: "line \(k) is not a bar")
            case 3:
                try a.closeStepIfPending()
                try b.closeStepIfPending()
                try c.closeStepIfPending()
            default: break
            }
            try a.ingest(fed, line: k + 1)
            try b.ingest(fed, line: k + 1)
            try c.ingest(fed, line: k + 1)
            if rng.next() % 30 == 0 { try commit() }
        }
        try commit()
        try c.waitForBackgroundCommits(appendingLinesTo: &pipelinedLines)
        #expect(String(decoding: lines, as: UTF8.self) == expected, "case \(caseIndex)")
        #expect(pipelinedLines == lines, "case \(caseIndex): pipelined")
        #expect(!c.hasUncommitted)
        #expect(c.journal.lastInputSeq == a.journal.lastInputSeq && c.journal.lastEventSeq == a.journal.lastEventSeq)
        var journaled: [[String]] = []
        for live in [a, c] {
            var inputs: [String] = []
            try live.journal.forEachInput(after: 0) { seq, input in inputs.append("\(seq) \(input)") }
            journaled.append(inputs)
        }
        #expect(journaled[0] == journaled[1], "case \(caseIndex): the same journaled inputs")
        #expect(kinds.contains("signal_update") && kinds.contains("equity") && kinds.contains("rejected"))
    }
}
