/// The English `recommendation` and `reasoning` of a signal, generated from its numbers.
///
/// Deterministic: the same signal and config always give the same text. The strength word comes from the
/// confidence band: `confidence ≥ strongConfidence` → "Strong …/High confidence", `≥ moderateConfidence` →
/// "Moderate confidence", otherwise "Low confidence". Percents are written with 2 decimals, RSI with 1.
/// The texts are generated on demand (not in the per-bar update), so the engine does no string work.
public enum SignalText {
    /// Confidence band used for the strength words.
    public enum Band: String, Sendable {
        case high, moderate, low
    }

    /// The band of `confidence` under `config`'s thresholds.
    public static func band(_ confidence: Double, config: SignalModelConfig) -> Band {
        if confidence >= config.strongConfidence { return .high }
        if confidence >= config.moderateConfidence { return .moderate }
        return .low
    }

    /// One sentence saying what to do, e.g.
    /// "Strong Buy Signal - High confidence based on proprietary AI indicators and momentum."
    public static func recommendation(for signal: Signal, config: SignalModelConfig) -> String {
        let band = band(signal.confidence, config: config)
        switch signal.reason {
        case .warmUp:
            return "Hold - Insufficient history: the model is still warming up."
        case .degenerateFit:
            return "Hold - No reliable forecast: the regression window is degenerate."
        case .positiveScore:
            switch band {
            case .high: return "Strong Buy Signal - High confidence based on proprietary AI indicators and momentum."
            case .moderate: return "Buy Signal - Moderate confidence based on proprietary AI indicators and momentum."
            case .low: return "Speculative Buy Signal - Low confidence based on proprietary AI indicators and momentum."
            }
        case .negativeScore:
            switch band {
            case .high: return "Strong Sell Signal - High confidence in a decline based on proprietary AI indicators and momentum."
            case .moderate: return "Sell Signal - Moderate confidence in a decline based on proprietary AI indicators and momentum."
            case .low: return "Sell Signal - Low confidence in a decline based on proprietary AI indicators and momentum."
            }
        case .overbought:
            return "Sell Signal - RSI is overbought; momentum is likely to fade."
        case .oversoldBlocksSell:
            return "Hold - Bearish forecast, but RSI is oversold; a rebound is possible."
        case .lowConfidence:
            return "Hold - Bullish forecast, but confidence is too low to act on."
        case .weakScore:
            switch band {
            case .high, .moderate: return "Hold - No clear edge: the forecast is too small relative to its uncertainty."
            case .low: return "Hold - No clear edge: low confidence in either direction."
            }
        }
    }

    /// One or two sentences with the numbers behind the recommendation, e.g.
    /// "Entry recommended at current levels with 3.96% profit target and 1.12% stop loss."
    public static func reasoning(for signal: Signal, config: SignalModelConfig) -> String {
        withReasoning(for: signal, config: config) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the UTF-8 bytes of ``reasoning(for:config:)`` (written into a buffer on the stack: no
    /// heap allocation unless a number is beyond ±9·10¹⁸ of its last decimal, see ``fixed(_:_:)``). The bytes are
    /// valid only inside `body`.
    public static func withReasoning<R>(
        for signal: Signal, config: SignalModelConfig, _ body: (UnsafeBufferPointer<UInt8>) throws -> R
    ) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: TextCursor.reasoningCapacity) { buffer in
            var t = TextCursor(buffer.baseAddress!, capacity: buffer.count)
            writeReasoning(for: signal, config: config, to: &t)
            return try body(UnsafeBufferPointer(start: buffer.baseAddress!, count: t.count))
        }
    }

    /// The sentence of ``reasoning(for:config:)``, written with `t`.
    static func writeReasoning(for signal: Signal, config: SignalModelConfig, to t: inout TextCursor) {
        /// "T% over the next N bars" (the forecast every directional sentence states).
        func forecast(_ t: inout TextCursor) {
            t.fixed(signal.targetReturn, 2)
            t.append("% over the next ")
            if config.horizon == 1 {
                t.append("1 bar")
            } else {
                t.append(config.horizon)
                t.append(" bars")
            }
        }
        switch signal.reason {
        case .warmUp:
            t.append("Warming up: ")
            t.append(signal.barIndex + 1)
            t.append(" of ")
            t.append(config.firstSignalIndex + 1)
            t.append(" bars seen; the model needs ")
            t.append(signal.barsUntilReady)
            t.append(" more bar")
            if signal.barsUntilReady != 1 { t.append("s") }
            t.append(" to fill its ")
            t.append(config.regressionWindow)
            t.append("-bar regression window with ")
            t.append(config.horizon)
            t.append("-bar forward returns.")
        case .degenerateFit:
            t.append("The features in the last ")
            t.append(config.regressionWindow)
            t.append(" bars are constant or collinear, so the regression cannot be solved; no position is recommended until they vary.")
        case .positiveScore:
            t.append("Entry recommended at current levels with ")
            t.fixed(signal.targetReturn, 2)
            t.append("% profit target and ")
            t.fixed(abs(signal.stopLoss), 2)
            t.append("% stop loss. The model forecasts ")
            forecast(&t)
            t.append(" (score ")
            t.fixed(signal.aiSignal, 2)
            t.append(", confidence ")
            t.fixed(signal.confidence, 2)
            t.append(", RSI ")
            t.fixed(signal.rsi, 1)
            t.append(").")
        case .negativeScore:
            t.append("Exit or avoid long positions: the model forecasts ")
            forecast(&t)
            t.append(" (score ")
            t.fixed(signal.aiSignal, 2)
            t.append(" at or below -")
            t.fixed(config.sellScoreThreshold, 2)
            t.append(", confidence ")
            t.fixed(signal.confidence, 2)
            t.append(").")
        case .overbought:
            t.append("Exit or avoid long positions: RSI ")
            t.fixed(signal.rsi, 1)
            t.append(" is at or above the overbought level ")
            t.fixed(config.rsiOverbought, 1)
            t.append("; the model forecasts ")
            forecast(&t)
            t.append(" (score ")
            t.fixed(signal.aiSignal, 2)
            t.append(").")
        case .oversoldBlocksSell:
            t.append("The model forecasts ")
            forecast(&t)
            t.append(" (score ")
            t.fixed(signal.aiSignal, 2)
            t.append("), but RSI ")
            t.fixed(signal.rsi, 1)
            t.append(" is at or below the oversold level ")
            t.fixed(config.rsiOversold, 1)
            t.append(", so no sell is issued.")
        case .lowConfidence:
            t.append("The model forecasts ")
            forecast(&t)
            t.append(" (score ")
            t.fixed(signal.aiSignal, 2)
            t.append("), but confidence ")
            t.fixed(signal.confidence, 2)
            t.append(" is below the ")
            t.fixed(config.minimumConfidence, 2)
            t.append(" minimum for entry.")
        case .weakScore:
            t.append("The model forecasts ")
            forecast(&t)
            t.append("; score ")
            t.fixed(signal.aiSignal, 2)
            t.append(" is inside the -")
            t.fixed(config.sellScoreThreshold, 2)
            t.append(" to ")
            t.fixed(config.buyScoreThreshold, 2)
            t.append(" hold band.")
        }
    }

    /// `value` rounded half away from zero to `decimals` places, written without exponent; "-0.00" is written
    /// "0.00"; NaN is written "n/a". Locale-independent. (Beyond ±9·10¹⁸ units of the last decimal: `description`.)
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            var t = TextCursor(buffer.baseAddress!, capacity: buffer.count)
            t.fixed(value, decimals)
            return String(decoding: UnsafeBufferPointer(start: buffer.baseAddress!, count: t.count), as: UTF8.self)
        }
    }
}

/// ASCII text written into a caller's fixed-size buffer (the sentences of ``SignalText``). Writing past the
/// capacity is a precondition failure (the sentences are far shorter than ``reasoningCapacity``).
struct TextCursor {
    /// Room for any reasoning sentence: under 300 bytes of words and at most 11 numbers of at most 24 bytes each.
    static let reasoningCapacity = 1024

    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private(set) var count = 0

    init(_ base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    @inline(__always) mutating func byte(_ b: UInt8) {
        precondition(count < capacity, "text buffer overflow")
        base[count] = b
        count += 1
    }

    mutating func append(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        precondition(count + n <= capacity, "text buffer overflow")
        (base + count).update(from: s.utf8Start, count: n)
        count += n
    }

    mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { u in
            precondition(count + u.count <= capacity, "text buffer overflow")
            if u.count > 0 { (base + count).update(from: u.baseAddress!, count: u.count) }
            count += u.count
        }
    }

    /// `x` in decimal (as `String(x)`).
    mutating func append(_ x: Int) {
        if x < 0 { byte(UInt8(ascii: "-")) }
        append(unsigned: UInt64(x.magnitude), width: 0)
    }

    /// `x` in decimal, left-padded with zeros to `width` digits.
    mutating func append(unsigned x: UInt64, width: Int) {
        var digits = 1
        var p: UInt64 = 10
        while digits < 20 && x >= p {
            digits += 1
            p = digits < 20 ? p &* 10 : p
        }
        let n = Swift.max(digits, width)
        precondition(count + n <= capacity, "text buffer overflow")
        var x = x
        var i = count + n - 1
        for _ in 0..<n {
            base[i] = UInt8(ascii: "0") + UInt8(x % 10)
            x /= 10
            i -= 1
        }
        count += n
    }

    /// ``SignalText/fixed(_:_:)`` of `value`.
    mutating func fixed(_ value: Double, _ decimals: Int) {
        guard value.isFinite else { return append("n/a") }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9.0e18 else { return append(value.description) }
        let units = UInt64(scaled)
        let divisor = UInt64(scale)
        if !(units == 0 || value > 0) { byte(UInt8(ascii: "-")) }
        append(unsigned: units / divisor, width: 0)
        if decimals > 0 {
            byte(UInt8(ascii: "."))
            append(unsigned: units % divisor, width: decimals)
        }
    }
}
