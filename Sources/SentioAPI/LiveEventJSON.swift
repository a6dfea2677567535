import SentioCore

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
public enum LiveEventJSON {
    /// The NDJSON line of `event` (ending with a newline), as ``APIJSON/encodeLine(_:)`` writes it.
    ///
    /// - Throws: ``APIEncodingError`` for a non-finite number, naming the field as the tree encoder does.
    public static func line(_ event: LiveEvent) throws(APIEncodingError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        try appendLine(event, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The NDJSON line of a `signal_update` message, as ``APIJSON/encodeLine(_:)`` writes it.
    ///
    /// - Throws: ``APIEncodingError`` for a non-finite number.
    public static func line(_ message: LiveMessage) throws(APIEncodingError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        var w = Writer(out: out)
        try w.message(message)
        w.byte(0x0A)
        return String(decoding: w.out, as: UTF8.self)
    }

    /// Appends the NDJSON line of `event` (ending with a newline) to `out`. On error `out` is left as it was.
    ///
    /// - Throws: ``APIEncodingError`` for a non-finite number.
    public static func appendLine(_ event: LiveEvent, to out: inout [UInt8]) throws(APIEncodingError) {
        let start = out.count
        var w = Writer(out: out)
        out = []
        do {
            switch event {
            case .signalUpdate(let m): try w.message(m)
            case .order(let e): try w.order(e)
            case .fill(let e): try w.fill(e)
            case .rejected(let e): w.rejected(e)
            case .equity(let e): try w.equity(e)
            }
        } catch {
            w.out.removeSubrange(start...)
            out = w.out
            throw error
        }
        w.byte(0x0A)
        out = w.out
    }

    struct Writer: TextOutputStream {
        var out: [UInt8]

        @inline(__always) mutating func byte(_ b: UInt8) { out.append(b) }

        @inline(__always) mutating func raw(_ s: StaticString) {
            s.withUTF8Buffer { out.append(contentsOf: $0) }
        }

        // Doubles are written through `TextOutputStreamable` (the same digits as `description`); the ASCII
        // hook keeps them off the heap.
        mutating func write(_ string: String) { out.append(contentsOf: string.utf8) }
        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { out.append(contentsOf: buffer) }

        /// `,"key": ` (or `{"key": ` for the first key, `first` = true).
        @inline(__always) mutating func key(_ k: StaticString, first: Bool = false) {
            byte(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            byte(UInt8(ascii: "\""))
            raw(k)
            raw("\": ")
        }

        mutating func string(_ s: String) {
            byte(UInt8(ascii: "\""))
            var s = s
            s.withUTF8 { bytes in
                var runStart = 0
                for i in 0..<bytes.count {
                    let b = bytes[i]
                    if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") { continue }
                    if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
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
                if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
            }
            byte(UInt8(ascii: "\""))
        }

        mutating func optionalString(_ s: String?) {
            if let s { string(s) } else { raw("null") }
        }

        mutating func int(_ x: Int) {
            if x < 0 { byte(UInt8(ascii: "-")) }
            var m = x.magnitude
            var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: enough for 20 digits
            var n = 0
            withUnsafeMutableBytes(of: &digits) { buffer in
                repeat {
                    buffer[23 - n] = UInt8(ascii: "0") + UInt8(m % 10)
                    m /= 10
                    n += 1
                } while m > 0
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(24 - n)...]))
            }
        }

        mutating func optionalInt(_ x: Int?) {
            if let x { int(x) } else { raw("null") }
        }

        /// A finite double as `description` writes it; a non-finite one is the tree encoder's error for `path`.
        mutating func double(_ x: Double, _ path: @autoclosure () -> String) throws(APIEncodingError) {
            guard x.isFinite else {
                throw APIEncodingError(
                    field: path(), message: "non-finite number \(x): a contract number is never null, NaN or infinite")
            }
            x.write(to: &self)
        }

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
                out.append(contentsOf: t.description.utf8)
            }
            byte(UInt8(ascii: "\""))
        }

        mutating func optionalTimestamp(_ t: APITimestamp?) {
            if let t { timestamp(t) } else { raw("null") }
        }

        @inline(__always) mutating func fixed(_ x: Int, _ width: Int) {
            var d = 1
            for _ in 1..<width { d *= 10 }
            var x = x
            while d > 0 {
                byte(UInt8(ascii: "0") + UInt8(x / d))
                x %= d
                d /= 10
            }
        }

        mutating func message(_ m: LiveMessage) throws(APIEncodingError) {
            key("type", first: true); string(m.type)
            key("data"); key("symbol", first: true); string(m.data.symbol)
            key("price"); try double(m.data.price, "data.price")
            key("signal")
            let s = m.data.signal
            key("id", first: true); string(s.id)
            key("symbol"); string(s.symbol)
            key("timestamp"); timestamp(s.timestamp)
            key("price"); try double(s.price, "data.signal.price")
            key("change"); try double(s.change, "data.signal.change")
            key("changePercent"); try double(s.changePercent, "data.signal.changePercent")
            key("signalType"); string(s.signalType.rawValue)
            key("confidence"); try double(s.confidence, "data.signal.confidence")
            key("targetReturn"); try double(s.targetReturn, "data.signal.targetReturn")
            key("stopLoss"); try double(s.stopLoss, "data.signal.stopLoss")
            key("profitTarget"); try double(s.profitTarget, "data.signal.profitTarget")
            key("aiSignal"); try double(s.aiSignal, "data.signal.aiSignal")
            key("rsi"); try double(s.rsi, "data.signal.rsi")
            key("volumeRatio"); try double(s.volumeRatio, "data.signal.volumeRatio")
            key("recommendation"); string(s.recommendation)
            key("reasoning"); string(s.reasoning)
            raw("}}}")
        }

        mutating func order(_ e: LiveOrderEvent) throws(APIEncodingError) {
            key("type", first: true); string(e.type)
            key("id"); int(e.id)
            key("symbol"); string(e.symbol)
            key("side"); string(e.side)
            key("reason"); string(e.reason)
            key("decidedAt"); timestamp(e.decidedAt)
            key("amount")
            if let a = e.amount { try double(a, "amount") } else { raw("null") }
            byte(UInt8(ascii: "}"))
        }

        mutating func fill(_ e: LiveFillEvent) throws(APIEncodingError) {
            key("type", first: true); string(e.type)
            key("orderId"); int(e.orderId)
            key("symbol"); string(e.symbol)
            key("side"); string(e.side)
            key("reason"); string(e.reason)
            key("timestamp"); timestamp(e.timestamp)
            key("price"); try double(e.price, "price")
            key("shares"); try double(e.shares, "shares")
            key("commission"); try double(e.commission, "commission")
            key("cash"); try double(e.cash, "cash")
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

        mutating func equity(_ e: LiveEquityEvent) throws(APIEncodingError) {
            key("type", first: true); string(e.type)
            key("timestamp"); timestamp(e.timestamp)
            key("equity"); try double(e.equity, "equity")
            key("cash"); try double(e.cash, "cash")
            key("contributions"); try double(e.contributions, "contributions")
            key("openPositions"); int(e.openPositions)
            byte(UInt8(ascii: "}"))
        }
    }
}
