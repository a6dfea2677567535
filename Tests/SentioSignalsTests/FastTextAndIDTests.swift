import SentioCore
import SentioTestSupport
import Testing
@testable import SentioSignals

/// The implementations before the allocation-free rewrite (String interpolation, heap arrays), kept verbatim as
/// the oracle: the ids and texts are contracts, so the new code must give exactly their bytes.
private enum Reference {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
        // Padding: 0x80, zeros to 56 mod 64, then the bit length as a big-endian 64-bit integer.
        var data = Array(message)
        let bitLength = UInt64(data.count) &* 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }

        var w = [UInt32](repeating: 0, count: 80)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            for i in 0..<16 {
                let j = chunk + 4 * i
                w[i] = UInt32(data[j]) << 24 | UInt32(data[j + 1]) << 16 | UInt32(data[j + 2]) << 8 | UInt32(data[j + 3])
            }
            for i in 16..<80 { w[i] = rotateLeft(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
            var (a, b, c, d, e) = h
            for i in 0..<80 {
                let f: UInt32, k: UInt32
                switch i {
                case 0..<20: f = (b & c) | (~b & d); k = 0x5A82_7999
                case 20..<40: f = b ^ c ^ d; k = 0x6ED9_EBA1
                case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1B_BCDC
                default: f = b ^ c ^ d; k = 0xCA62_C1D6
                }
                let temp = rotateLeft(a, 5) &+ f &+ e &+ k &+ w[i]
                e = d
                d = c
                c = rotateLeft(b, 30)
                b = a
                a = temp
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
        }
        var out: [UInt8] = []
        out.reserveCapacity(20)
        for word in [h.0, h.1, h.2, h.3, h.4] {
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return out
    }

    static func rotateLeft(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }

    static func uuid5(namespace: [UInt8], name: String) -> String {
        var hash = digest(namespace + Array(name.utf8))
        hash.removeLast(4)
        hash[6] = (hash[6] & 0x0F) | 0x50
        hash[8] = (hash[8] & 0x3F) | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for (i, byte) in hash.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func signalID(_ s: Signal) -> String {
        uuid5(namespace: NameBasedUUID.urlNamespace, name: "sentio:signal:\(s.symbol):\(iso8601(epochSeconds: s.timestamp))")
    }

    static func reasoning(for signal: Signal, config: SignalModelConfig) -> String {
        let target = fixedText(signal.targetReturn, 2)
        let stop = fixedText(abs(signal.stopLoss), 2)
        let score = fixedText(signal.aiSignal, 2)
        let confidence = fixedText(signal.confidence, 2)
        let rsi = fixedText(signal.rsi, 1)
        let bars = config.horizon == 1 ? "1 bar" : "\(config.horizon) bars"
        switch signal.reason {
        case .warmUp:
            let needed = config.firstSignalIndex + 1
            return "Warming up: \(signal.barIndex + 1) of \(needed) bars seen; the model needs \(signal.barsUntilReady) more "
                + "bar\(signal.barsUntilReady == 1 ? "" : "s") to fill its \(config.regressionWindow)-bar regression window "
                + "with \(config.horizon)-bar forward returns."
        case .degenerateFit:
            return "The features in the last \(config.regressionWindow) bars are constant or collinear, so the regression "
                + "cannot be solved; no position is recommended until they vary."
        case .positiveScore:
            return "Entry recommended at current levels with \(target)% profit target and \(stop)% stop loss. "
                + "The model forecasts \(target)% over the next \(bars) (score \(score), confidence \(confidence), RSI \(rsi))."
        case .negativeScore:
            return "Exit or avoid long positions: the model forecasts \(target)% over the next \(bars) "
                + "(score \(score) at or below -\(fixedText(config.sellScoreThreshold, 2)), confidence \(confidence))."
        case .overbought:
            return "Exit or avoid long positions: RSI \(rsi) is at or above the overbought level "
                + "\(fixedText(config.rsiOverbought, 1)); the model forecasts \(target)% over the next \(bars) (score \(score))."
        case .oversoldBlocksSell:
            return "The model forecasts \(target)% over the next \(bars) (score \(score)), but RSI \(rsi) is at or below "
                + "the oversold level \(fixedText(config.rsiOversold, 1)), so no sell is issued."
        case .lowConfidence:
            return "The model forecasts \(target)% over the next \(bars) (score \(score)), but confidence \(confidence) "
                + "is below the \(fixedText(config.minimumConfidence, 2)) minimum for entry."
        case .weakScore:
            return "The model forecasts \(target)% over the next \(bars); score \(score) is inside the "
                + "-\(fixedText(config.sellScoreThreshold, 2)) to \(fixedText(config.buyScoreThreshold, 2)) hold band."
        }
    }

    static func fixedText(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "n/a" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9.0e18 else { return value.description }
        let units = UInt64(scaled)
        let divisor = UInt64(scale)
        var text = units == 0 || value > 0 ? "" : "-"
        text += String(units / divisor)
        if decimals > 0 {
            let fraction = String(units % divisor)
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return text
    }
}

/// Doubles of every shape the texts meet: NaN and infinities, ±0, rounding ties, huge values (the `description`
/// fallback beyond 9·10¹⁸ units), tiny ones, random bit patterns.
private func randomDouble(_ rng: inout SplitMix64) -> Double {
    switch rng.next() % 10 {
    case 0: return [Double.nan, .infinity, -.infinity, 0.0, -0.0, 0.005, -0.005, 0.015, 2.675, 1.0049999999999999][Int(rng.next() % 10)]
    case 1: return [9.0e16, 9.0e17, 8.99e18, 9.0e18, 1e19, -1e19, 1e300, -Double.greatestFiniteMagnitude][Int(rng.next() % 8)]
    case 2: return Double(Int64(bitPattern: rng.next()) % 10_000) / 1000
    case 3: return (Double(rng.next() % 2_000_001) - 1_000_000) * 1e-7
    case 4: return Double(rng.next() % 100_000) / 100 - 500
    default:
        return Double(bitPattern: rng.next())
    }
}

private func randomSymbol(_ rng: inout SplitMix64) -> String {
    let pieces = ["TQQQ", "A", "BRK.B", "^GSPC", "EURUSD=X", "é", "漢字", "🚀", "-", "\"", ""]
    var s = ""
    for _ in 0..<Int(rng.next() % 5) { s += pieces[Int(rng.next() % UInt64(pieces.count))] }
    switch rng.next() % 12 {
    case 0: s += String(repeating: "X", count: 150 + Int(rng.next() % 120))  // around the stack buffer's limit
    case 1: s += String(repeating: "é", count: 80 + Int(rng.next() % 40))
    default: break
    }
    return s
}

private func randomTimestamp(_ rng: inout SplitMix64) -> Int64 {
    let range = CivilDate.supportedEpochSeconds
    switch rng.next() % 8 {
    case 0: return [range.lowerBound, range.upperBound, range.lowerBound - 1, range.upperBound + 1, 0, -1, 86_399,
                    range.upperBound + 86_400 * 400, range.lowerBound - 86_400 * 800][Int(rng.next() % 9)]
    default: return range.lowerBound + Int64(rng.next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
}

func randomSignal(_ rng: inout SplitMix64) -> Signal {
    func d() -> Double { randomDouble(&rng) }
    return Signal(
        symbol: randomSymbol(&rng), timestamp: randomTimestamp(&rng), barIndex: Int(rng.next() % 100_000) - 10,
        price: d(), change: d(), changePercent: d(), signalType: SignalType.allCases[Int(rng.next() % 3)],
        confidence: d(), targetReturn: d(), stopLoss: d(), profitTarget: d(), aiSignal: d(), rsi: d(),
        volumeRatio: d(), forecastLogReturn: d(), forecastStandardError: d(), adjustedRSquared: d(),
        averageTrueRange: d(), reason: SignalReason.allCases[Int(rng.next() % UInt64(SignalReason.allCases.count))],
        barsUntilReady: Int(rng.next() % 4) == 0 ? 1 : Int(rng.next() % 300), fitStrength: d())
}

func randomTextConfig(_ rng: inout SplitMix64) -> SignalModelConfig {
    var config = SignalModelConfig()
    config.horizon = [1, 2, 5, 20][Int(rng.next() % 4)]
    config.regressionWindow = [60, 120, 250][Int(rng.next() % 3)]
    config.buyScoreThreshold = Double(rng.next() % 300) / 100
    config.sellScoreThreshold = Double(rng.next() % 300) / 100
    config.minimumConfidence = Double(rng.next() % 101) / 100
    config.rsiOverbought = 50 + Double(rng.next() % 501) / 10
    config.rsiOversold = Double(rng.next() % 500) / 10
    return config
}

@Suite("Allocation-free ids and texts give the reference bytes")
struct FastTextAndIDTests {
    /// Seeded: 3,000 messages of every length from 0 to 300 bytes (all padding cases: tails of 0...63 bytes,
    /// one and two padding blocks) hash to the reference digest.
    @Test func sha1MatchesTheReferenceAtEveryLength() {
        var rng = SplitMix64(seed: 0x5_4A1)
        for k in 0..<3_000 {
            let n = k < 301 ? k : Int(rng.next() % 301)
            let message = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            #expect(SHA1.digest(message) == Reference.digest(message), "length \(n)")
            // A non-contiguous collection goes through the same code.
            #expect(SHA1.digest(message.lazy.map { $0 }) == Reference.digest(message), "length \(n), lazy")
        }
    }

    /// Seeded: 5,000 signals (unicode and long symbols past the stack buffer, timestamps outside 0001...9999):
    /// `Signal.id` is the reference UUIDv5 of `sentio:signal:SYMBOL:ISO-TIMESTAMP`, and `writeID` its bytes.
    @Test func signalIDsMatchTheReference() {
        var rng = SplitMix64(seed: 0x1D_5EED)
        var fallbacks = 0
        for k in 0..<5_000 {
            let s = randomSignal(&rng)
            let expected = Reference.signalID(s)
            #expect(s.id == expected, "case \(k): \(s.symbol) at \(s.timestamp)")
            var bytes = [UInt8](repeating: 0, count: Signal.idLength + 1)
            bytes.withUnsafeMutableBufferPointer { s.writeID(to: $0.baseAddress!) }
            #expect(bytes.last == 0, "case \(k): writeID wrote past 36 bytes")
            #expect(String(decoding: bytes.dropLast(), as: UTF8.self) == expected, "case \(k)")
            if s.symbol.utf8.count > 190 || !CivilDate.supportedEpochSeconds.contains(s.timestamp) { fallbacks += 1 }
        }
        #expect(fallbacks > 200)
    }

    /// Seeded: 10,000 signals of every reason under random configurations: the reasoning sentence is the
    /// reference's, byte for byte (rounding ties, negative zero, NaN as n/a, huge numbers in `description`).
    @Test func reasoningMatchesTheReference() {
        var rng = SplitMix64(seed: 0x7E47)
        for k in 0..<10_000 {
            let s = randomSignal(&rng)
            let config = randomTextConfig(&rng)
            let expected = Reference.reasoning(for: s, config: config)
            #expect(SignalText.reasoning(for: s, config: config) == expected, "case \(k): \(s.reason)")
            SignalText.withReasoning(for: s, config: config) { bytes in
                #expect(String(decoding: bytes, as: UTF8.self) == expected, "case \(k)")
            }
        }
    }

    @Test func fixedMatchesTheReference() {
        var rng = SplitMix64(seed: 0xF1_0ED)
        for k in 0..<20_000 {
            let x = randomDouble(&rng)
            let decimals = Int(rng.next() % 4)
            #expect(SignalText.fixed(x, decimals) == Reference.fixedText(x, decimals), "case \(k): \(x) to \(decimals)")
        }
        // Concrete cases with independent expectations.
        #expect(SignalText.fixed(-0.004, 2) == "0.00")
        #expect(SignalText.fixed(0.125, 2) == "0.13")
        #expect(SignalText.fixed(7.0, 2) == "7.00")
        #expect(SignalText.fixed(-12.34, 1) == "-12.3")
        #expect(SignalText.fixed(.nan, 2) == "n/a")
        #expect(SignalText.fixed(1e20, 2) == "1e+20")
    }
}
