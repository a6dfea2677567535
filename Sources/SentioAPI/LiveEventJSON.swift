import SentioCore
import SentioSignals

/// A direct-to-bytes writer of ``LiveEvent`` NDJSON lines: exactly the bytes of ``APIJSON/encodeLine(_:)``.
///
/// **A measured exception to "one JSON encoding".** Every other JSON goes through ``APIJSON``'s ordered tree
/// encoder. A live session's output is dominated by `signal_update` events (~760 bytes, one per bar): in a release
/// build the tree encoding took ~79 % of a journaled replay's CPU time (perf), holding the replay near 90,000
/// bars per CPU-second. This writer appends the same text straight into a byte buffer — same key order (the
/// contracts' declaration order), same numbers (`Double`'s shortest round-trip `description`, integers in
/// decimal), explicit `null`s, the same string escaping (`JSONText`) and the same one-line layout (`"key": value`,
/// `,` between members) — and ``APIJSON/encodeLine(_:)`` routes `LiveEvent` and `LiveMessage` values here. A
/// seeded property test (SentioLiveTests, `LiveEventJSONTests`) compares its bytes with the tree encoder's over
/// thousands of random events (odd and extreme doubles, unicode and control characters in strings, every event
/// kind, non-finite numbers and their error). When a live contract gains a field, this writer must gain it too;
/// that test fails until it does.
///
/// ``appendSignalUpdate(_:config:to:)`` writes a `signal_update` straight from the engine's `Signal` (the bytes of
/// `SignalContracts.liveMessage` encoded here), without building the contract's strings: the id is hashed and the
/// reasoning written on the stack. A live session's output path uses it; a seeded test compares it with the
/// contract path over random signals.
public enum LiveEventJSON {
    /// The NDJSON line of `event` (ending with a newline), as ``APIJSON/encodeLine(_:)`` writes it.
    ///
    /// - Throws: ``APIEncodingError`` for a non-finite number, naming the field as the tree encoder does.
    public static func line(_ event: LiveEvent) throws(APIEncodingError) -> String {
        var out: [UInt8] = []
        try appendLine(event, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The NDJSON line of a `signal_update` message, as ``APIJSON/encodeLine(_:)`` writes it.
    ///
    /// - Throws: ``APIEncodingError`` for a non-finite number.
    public static func line(_ message: LiveMessage) throws(APIEncodingError) -> String {
        var out: [UInt8] = []
        try appendLine(.signalUpdate(message), to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the NDJSON line of `event` (ending with a newline) to `out`. On error `out` is left as it was.
    ///
    /// - Throws: ``APIEncodingError`` for a non-finite number.
    public static func appendLine(_ event: LiveEvent, to out: inout [UInt8]) throws(APIEncodingError) {
        // The numbers are checked first (in writing order: the first non-finite one is the error), so that writing
        // cannot fail.
        switch event {
        case .signalUpdate(let m):
            let s = m.data.signal
            try finite(m.data.price, "data.price")
            try finite(s.price, "data.signal.price")
            try finite(s.change, "data.signal.change")
            try finite(s.changePercent, "data.signal.changePercent")
            try finite(s.confidence, "data.signal.confidence")
            try finite(s.targetReturn, "data.signal.targetReturn")
            try finite(s.stopLoss, "data.signal.stopLoss")
            try finite(s.profitTarget, "data.signal.profitTarget")
            try finite(s.aiSignal, "data.signal.aiSignal")
            try finite(s.rsi, "data.signal.rsi")
            try finite(s.volumeRatio, "data.signal.volumeRatio")
            let bound = 768 + 6 * (m.type.utf8.count + m.data.symbol.utf8.count + s.id.utf8.count + s.symbol.utf8.count
                + s.signalType.rawValue.utf8.count + s.recommendation.utf8.count + s.reasoning.utf8.count)
            write(to: &out, bound: bound) { $0.message(m) }
        case .order(let e):
            if let a = e.amount { try finite(a, "amount") }
            let bound = 256 + 6 * (e.type.utf8.count + e.symbol.utf8.count + e.side.utf8.count + e.reason.utf8.count)
            write(to: &out, bound: bound) { $0.order(e) }
        case .fill(let e):
            try finite(e.price, "price")
            try finite(e.shares, "shares")
            try finite(e.commission, "commission")
            try finite(e.cash, "cash")
            let bound = 384 + 6 * (e.type.utf8.count + e.symbol.utf8.count + e.side.utf8.count + e.reason.utf8.count)
            write(to: &out, bound: bound) { $0.fill(e) }
        case .rejected(let e):
            let bound = 320 + 6 * (e.type.utf8.count + e.reason.utf8.count + e.message.utf8.count
                + (e.symbol?.utf8.count ?? 0) + (e.field?.utf8.count ?? 0))
            write(to: &out, bound: bound) { $0.rejected(e) }
        case .equity(let e):
            try finite(e.equity, "equity")
            try finite(e.cash, "cash")
            try finite(e.contributions, "contributions")
            let bound = 256 + 6 * e.type.utf8.count
            write(to: &out, bound: bound) { $0.equity(e) }
        }
    }

    /// A non-finite number is the tree encoder's error for `path`.
    @inline(__always)
    static func finite(_ x: Double, _ path: @autoclosure () -> String) throws(APIEncodingError) {
        guard x.isFinite else {
            throw APIEncodingError(
                field: path(), message: "non-finite number \(x): a contract number is never null, NaN or infinite")
        }
    }

    /// Appends the NDJSON line of the `signal_update` of engine signal `signal` — the bytes of
    /// `appendLine(.signalUpdate(SignalContracts.liveMessage(signal, config: config)))` — and returns `true`;
    /// returns `false` and appends nothing when the contract cannot carry the signal (a warming-up signal, a
    /// non-finite number: `SignalContracts.signal(_:config:)` throws), as a live session leaves such updates out.
    @discardableResult
    public static func appendSignalUpdate(_ signal: Signal, config: SignalModelConfig, to out: inout [UInt8]) -> Bool {
        let s = signal
        guard !s.isWarmUp, s.price.isFinite, s.change.isFinite, s.changePercent.isFinite, s.confidence.isFinite,
              s.targetReturn.isFinite, s.stopLoss.isFinite, s.profitTarget.isFinite, s.aiSignal.isFinite,
              s.rsi.isFinite, s.volumeRatio.isFinite
        else { return false }
        let recommendation = SignalText.recommendation(for: s, config: config)
        SignalText.withReasoning(for: s, config: config) { reasoning in
            let bound = 768 + 6 * (2 * s.symbol.utf8.count + recommendation.utf8.count + reasoning.count)
            write(to: &out, bound: bound) { (w: inout Writer) in
                w.raw("{\"type\": \"signal_update\",\"data\": {\"symbol\": ")
                w.string(s.symbol)
                w.key("price"); w.finite(s.price)
                w.key("signal")
                w.key("id", first: true)
                w.byte(UInt8(ascii: "\""))
                s.writeID(to: w.p)
                w.p += Signal.idLength
                w.byte(UInt8(ascii: "\""))
                w.key("symbol"); w.string(s.symbol)
                w.key("timestamp"); w.timestamp(APITimestamp(epochSeconds: s.timestamp))
                w.key("price"); w.finite(s.price)
                w.key("change"); w.finite(s.change)
                w.key("changePercent"); w.finite(s.changePercent)
                w.key("signalType"); w.string(s.signalType.rawValue)
                w.key("confidence"); w.finite(s.confidence)
                w.key("targetReturn"); w.finite(s.targetReturn)
                w.key("stopLoss"); w.finite(s.stopLoss)
                w.key("profitTarget"); w.finite(s.profitTarget)
                w.key("aiSignal"); w.finite(s.aiSignal)
                w.key("rsi"); w.finite(s.rsi)
                w.key("volumeRatio"); w.finite(s.volumeRatio)
                w.key("recommendation"); w.string(recommendation)
                w.key("reasoning"); w.string(reasoning)
                w.raw("}}}")
            }
        }
        return true
    }

    /// Grows `out` by `bound` bytes, lets `body` write at most that many at its end (then the newline), and trims
    /// what it did not write. One capacity check per event instead of one per byte.
    @inline(__always)
    static func write(to out: inout [UInt8], bound: Int, _ body: (inout Writer) -> Void) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: bound + 1))
        let written = out.withUnsafeMutableBufferPointer { buffer in
            var w = Writer(p: buffer.baseAddress! + start)
            body(&w)
            w.byte(0x0A)
            return w.p - (buffer.baseAddress! + start)
        }
        precondition(written <= bound + 1, "LiveEventJSON wrote past its bound")
        out.removeSubrange((start + written)...)
    }

    /// Writes at a raw pointer: the caller guarantees the room (``write(to:bound:_:)``).
    struct Writer: TextOutputStream {
        var p: UnsafeMutablePointer<UInt8>

        @inline(__always) mutating func byte(_ b: UInt8) {
            p.pointee = b
            p += 1
        }

        @inline(__always) mutating func raw(_ s: StaticString) {
            let n = s.utf8CodeUnitCount
            p.update(from: s.utf8Start, count: n)
            p += n
        }

        @inline(__always) mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) {
            if b.count > 0 { p.update(from: b.baseAddress!, count: b.count) }
            p += b.count
        }

        // Doubles are written through `TextOutputStreamable` (the same digits as `description`); the ASCII
        // hook keeps them off the heap.
        mutating func write(_ string: String) {
            var string = string
            string.withUTF8 { bytes($0) }
        }
        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes(buffer) }

        /// `,"key": ` (or `{"key": ` for the first key, `first` = true).
        @inline(__always) mutating func key(_ k: StaticString, first: Bool = false) {
            byte(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            byte(UInt8(ascii: "\""))
            raw(k)
            raw("\": ")
        }

        mutating func string(_ s: String) {
            var s = s
            s.withUTF8 { string($0) }
        }

        /// A JSON string of UTF-8 `bytes` with the tree encoder's escapes (`JSONText`).
        mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) {
            byte(UInt8(ascii: "\""))
            var runStart = 0
            for i in 0..<bytes.count {
                let b = bytes[i]
                if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") { continue }
                if runStart < i { self.bytes(UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                runStart = i + 1
                switch b {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case 0x0A: raw("\\n")
                case 0x0D: raw("\\r")
                case 0x09: raw("\\t")
                default:
                    let hex: StaticString = "0123456789abcdef"
                    raw("\\u00")
                    byte(hex.utf8Start[Int(b >> 4)])
                    byte(hex.utf8Start[Int(b & 0xF)])
                }
            }
            if runStart < bytes.count { self.bytes(UnsafeBufferPointer(rebasing: bytes[runStart...])) }
            byte(UInt8(ascii: "\""))
        }

        mutating func optionalString(_ s: String?) {
            if let s { string(s) } else { raw("null") }
        }

        mutating func int(_ x: Int) {
            if x < 0 { byte(UInt8(ascii: "-")) }
            var m = x.magnitude
            var digits = 1
            var t = m
            while t >= 10 {
                t /= 10
                digits += 1
            }
            var i = digits - 1
            repeat {
                p[i] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
                i -= 1
            } while m > 0
            p += digits
        }

        mutating func optionalInt(_ x: Int?) {
            if let x { int(x) } else { raw("null") }
        }

        /// A double the caller checked to be finite, as `description` writes it.
        @inline(__always) mutating func finite(_ x: Double) { x.write(to: &self) }

        mutating func timestamp(_ t: APITimestamp) {
            byte(UInt8(ascii: "\""))
            let days = floorDivide(t.epochSeconds, 86_400)
            let secondsOfDay = t.epochSeconds - days * 86_400
            let date = CivilDate(daysSinceEpoch: Int(days))
            // APITimestamp.description: iso8601(epochSeconds:), YYYY-MM-DDTHH:MM:SSZ for years 1...9999.
            if (1...9999).contains(date.year) {
                fixed(date.year, 4)
                byte(UInt8(ascii: "-"))
                fixed(date.month, 2)
                byte(UInt8(ascii: "-"))
                fixed(date.day, 2)
                byte(UInt8(ascii: "T"))
                let s = Int(secondsOfDay)
                fixed(s / 3600, 2)
                byte(UInt8(ascii: ":"))
                fixed(s / 60 % 60, 2)
                byte(UInt8(ascii: ":"))
                fixed(s % 60, 2)
                byte(UInt8(ascii: "Z"))
            } else {
                write(t.description)
            }
            byte(UInt8(ascii: "\""))
        }

        mutating func optionalTimestamp(_ t: APITimestamp?) {
            if let t { timestamp(t) } else { raw("null") }
        }

        @inline(__always) mutating func fixed(_ x: Int, _ width: Int) {
            var x = x
            for i in stride(from: width - 1, through: 0, by: -1) {
                p[i] = UInt8(ascii: "0") + UInt8(x % 10)
                x /= 10
            }
            p += width
        }

        mutating func message(_ m: LiveMessage) {
            key("type", first: true); string(m.type)
            key("data"); key("symbol", first: true); string(m.data.symbol)
            key("price"); finite(m.data.price)
            key("signal")
            let s = m.data.signal
            key("id", first: true); string(s.id)
            key("symbol"); string(s.symbol)
            key("timestamp"); timestamp(s.timestamp)
            key("price"); finite(s.price)
            key("change"); finite(s.change)
            key("changePercent"); finite(s.changePercent)
            key("signalType"); string(s.signalType.rawValue)
            key("confidence"); finite(s.confidence)
            key("targetReturn"); finite(s.targetReturn)
            key("stopLoss"); finite(s.stopLoss)
            key("profitTarget"); finite(s.profitTarget)
            key("aiSignal"); finite(s.aiSignal)
            key("rsi"); finite(s.rsi)
            key("volumeRatio"); finite(s.volumeRatio)
            key("recommendation"); string(s.recommendation)
            key("reasoning"); string(s.reasoning)
            raw("}}}")
        }

        mutating func order(_ e: LiveOrderEvent) {
            key("type", first: true); string(e.type)
            key("id"); int(e.id)
            key("symbol"); string(e.symbol)
            key("side"); string(e.side)
            key("reason"); string(e.reason)
            key("decidedAt"); timestamp(e.decidedAt)
            key("amount")
            if let a = e.amount { finite(a) } else { raw("null") }
            byte(UInt8(ascii: "}"))
        }

        mutating func fill(_ e: LiveFillEvent) {
            key("type", first: true); string(e.type)
            key("orderId"); int(e.orderId)
            key("symbol"); string(e.symbol)
            key("side"); string(e.side)
            key("reason"); string(e.reason)
            key("timestamp"); timestamp(e.timestamp)
            key("price"); finite(e.price)
            key("shares"); finite(e.shares)
            key("commission"); finite(e.commission)
            key("cash"); finite(e.cash)
            byte(UInt8(ascii: "}"))
        }

        mutating func rejected(_ e: LiveRejectedEvent) {
            key("type", first: true); string(e.type)
            key("reason"); string(e.reason)
            key("message"); string(e.message)
            key("symbol"); optionalString(e.symbol)
            key("timestamp"); optionalTimestamp(e.timestamp)
            key("orderId"); optionalInt(e.orderId)
            key("field"); optionalString(e.field)
            key("line"); optionalInt(e.line)
            byte(UInt8(ascii: "}"))
        }

        mutating func equity(_ e: LiveEquityEvent) {
            key("type", first: true); string(e.type)
            key("timestamp"); timestamp(e.timestamp)
            key("equity"); finite(e.equity)
            key("cash"); finite(e.cash)
            key("contributions"); finite(e.contributions)
            key("openPositions"); int(e.openPositions)
            byte(UInt8(ascii: "}"))
        }
    }
}
