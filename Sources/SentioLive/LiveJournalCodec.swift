import Foundation
import SentioBacktest
import SentioCore
import SentioSignals

/// The NDJSON lines of ``LiveEvent``s: what the journal stores for each order, fill and rejection, what
/// `sentio live` prints, and what SentioAPI's live contracts encode to (the same bytes: a seeded property test in
/// SentioLiveTests, `LiveJournalCodecTests`, compares them with the contract encoder `APIJSON` over random events).
///
/// The layout is the contract encoder's one-line form: keys in the contracts' documented order, `"key": value`,
/// `,` between members; numbers as `Double`'s shortest round-trip `description`, integers in decimal; an explicit
/// `null` for what does not apply; timestamps as `iso8601(epochSeconds:)` strings; strings escaped as `JSONText`
/// escapes them. The text is appended straight into a byte buffer (no tree, no intermediate strings): a session's
/// output is dominated by `signal_update` lines (~760 bytes, one per bar), and the tree encoding once took ~79 % of
/// a journaled replay's CPU time. When an event gains a field, the writer, the reader and SentioAPI's contract gain
/// it together; the property test fails until they do.
///
/// ``event(line:)`` reads a stored line back (orders, fills, rejections and equity marks; a `signal_update` line is
/// derived from the engine's signal and is not read back).
public enum LiveJournalCodec {
    /// The NDJSON line of `event` (ending with a newline).
    ///
    /// - Throws: `JSONEncodingError` for a non-finite number (naming the field as the contract encoder does) or,
    ///   for a signal update, a warming-up signal (``isPublishable(_:)``).
    public static func line(_ event: LiveEvent) throws(JSONEncodingError) -> String {
        var out: [UInt8] = []
        try appendLine(event, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the NDJSON line of `event` (ending with a newline) to `out`. On error `out` is left as it was.
    ///
    /// - Throws: as ``line(_:)``.
    public static func appendLine(_ event: LiveEvent, to out: inout [UInt8]) throws(JSONEncodingError) {
        // The numbers are checked first (in writing order: the first non-finite one is the error), so that writing
        // cannot fail.
        switch event {
        case let .signalUpdate(s, config):
            guard !s.isWarmUp else {
                throw JSONEncodingError(field: "data.signal", message: "a warming-up signal has no signal_update")
            }
            try finite(s.price, "data.price")
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
            appendSignalUpdate(s, config: config, to: &out)
        case .order(let e):
            if let a = e.amount { try finite(a, "amount") }
            let bound = 256 + 6 * e.symbol.utf8.count
            write(to: &out, bound: bound) { $0.order(e) }
        case .fill(let e):
            try finite(e.price, "price")
            try finite(e.shares, "shares")
            try finite(e.commission, "commission")
            try finite(e.cash, "cash")
            let bound = 384 + 6 * e.symbol.utf8.count
            write(to: &out, bound: bound) { $0.fill(e) }
        case .rejected(let e):
            let bound = 320 + 6 * (e.message.utf8.count + (e.symbol?.utf8.count ?? 0) + (e.field?.utf8.count ?? 0))
            write(to: &out, bound: bound) { $0.rejected(e) }
        case .equity(let e):
            try finite(e.equity, "equity")
            try finite(e.cash, "cash")
            try finite(e.contributions, "contributions")
            write(to: &out, bound: 256) { $0.equity(e) }
        }
    }

    /// A non-finite number is the contract encoder's error for `path`.
    @inline(__always)
    static func finite(_ x: Double, _ path: @autoclosure () -> String) throws(JSONEncodingError) {
        guard x.isFinite else {
            throw JSONEncodingError(
                field: path(), message: "non-finite number \(x): a contract number is never null, NaN or infinite")
        }
    }

    /// Whether a `signal_update` can carry `signal`: it is ready (not warming up) and its numbers are finite (the
    /// contract's rule; SentioAPI's `SignalContracts.signal(_:config:)` throws exactly otherwise). A session leaves
    /// other signals out of its events.
    public static func isPublishable(_ s: Signal) -> Bool {
        !s.isWarmUp && s.price.isFinite && s.change.isFinite && s.changePercent.isFinite && s.confidence.isFinite
            && s.targetReturn.isFinite && s.stopLoss.isFinite && s.profitTarget.isFinite && s.aiSignal.isFinite
            && s.rsi.isFinite && s.volumeRatio.isFinite
    }

    /// Appends the NDJSON line of the `signal_update` of engine signal `signal` and returns `true`; returns `false`
    /// and appends nothing when the line cannot carry the signal (``isPublishable(_:)``). The id is hashed and the
    /// reasoning written on the stack: no contract strings are built.
    @discardableResult
    public static func appendSignalUpdate(_ signal: Signal, config: SignalModelConfig, to out: inout [UInt8]) -> Bool {
        let s = signal
        guard isPublishable(s) else { return false }
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
                w.key("timestamp"); w.timestamp(s.timestamp)
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
        precondition(written <= bound + 1, "LiveJournalCodec wrote past its bound")
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

        /// UTC epoch seconds as `iso8601(epochSeconds:)` writes them, quoted.
        mutating func timestamp(_ t: Int64) {
            byte(UInt8(ascii: "\""))
            let days = floorDivide(t, 86_400)
            let secondsOfDay = t - days * 86_400
            let date = CivilDate(daysSinceEpoch: Int(days))
            // iso8601(epochSeconds:): YYYY-MM-DDTHH:MM:SSZ for years 1...9999.
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
                write(iso8601(epochSeconds: t))
            }
            byte(UInt8(ascii: "\""))
        }

        mutating func optionalTimestamp(_ t: Int64?) {
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

        mutating func order(_ e: LiveOrder) {
            raw("{\"type\": \"order\"")
            key("id"); int(e.id)
            key("symbol"); string(e.symbol)
            key("side"); string(e.side.rawValue)
            key("reason"); string(e.reason.rawValue)
            key("decidedAt"); timestamp(e.decidedAt)
            key("amount")
            if let a = e.amount { finite(a) } else { raw("null") }
            byte(UInt8(ascii: "}"))
        }

        mutating func fill(_ e: LiveFill) {
            raw("{\"type\": \"fill\"")
            key("orderId"); int(e.orderId)
            key("symbol"); string(e.symbol)
            key("side"); string(e.side.rawValue)
            key("reason"); string(e.reason.rawValue)
            key("timestamp"); timestamp(e.timestamp)
            key("price"); finite(e.price)
            key("shares"); finite(e.shares)
            key("commission"); finite(e.commission)
            key("cash"); finite(e.cash)
            byte(UInt8(ascii: "}"))
        }

        mutating func rejected(_ e: LiveRejection) {
            raw("{\"type\": \"rejected\"")
            key("reason"); string(e.reason.code)
            key("message"); string(e.message)
            key("symbol"); optionalString(e.symbol)
            key("timestamp"); optionalTimestamp(e.timestamp)
            key("orderId"); optionalInt(e.orderId)
            key("field"); optionalString(e.field)
            key("line"); optionalInt(e.line)
            byte(UInt8(ascii: "}"))
        }

        mutating func equity(_ e: LiveEquityMark) {
            raw("{\"type\": \"equity\"")
            key("timestamp"); timestamp(e.timestamp)
            key("equity"); finite(e.equity)
            key("cash"); finite(e.cash)
            key("contributions"); finite(e.contributions)
            key("openPositions"); int(e.openPositions)
            byte(UInt8(ascii: "}"))
        }
    }

    // MARK: - Reading

    /// The members a stored line may have (each kind uses some of them).
    private struct Members: Decodable {
        var type: String
        var id, orderId, openPositions, line: Int?
        var symbol, side, reason, message, field, decidedAt, timestamp: String?
        var amount, price, shares, commission, cash, equity, contributions: Double?
    }

    /// The event of NDJSON line `line` (with or without its newline), as ``appendLine(_:to:)`` wrote it: an order,
    /// fill, rejection or equity mark.
    ///
    /// - Throws: ``LiveEventLineError`` for a line that is not one (bad JSON, a missing member, an unknown code or
    ///   type, a `signal_update`).
    public static func event(line: String) throws(LiveEventLineError) -> LiveEvent {
        let m: Members
        do {
            m = try JSONDecoder().decode(Members.self, from: Data(line.utf8))
        } catch {
            throw LiveEventLineError(message: "not a live event line (\(error))")
        }
        func need<T>(_ value: T?, _ name: String) throws(LiveEventLineError) -> T {
            guard let value else { throw LiveEventLineError(message: "\(m.type) line without a valid '\(name)'") }
            return value
        }
        func time(_ text: String?, _ name: String) throws(LiveEventLineError) -> Int64 {
            try need(text.flatMap { epochSeconds(iso8601: $0) }, name)
        }
        switch m.type {
        case "order":
            return .order(LiveOrder(
                id: try need(m.id, "id"), symbol: try need(m.symbol, "symbol"),
                side: try need(m.side.flatMap(OrderSide.init(rawValue:)), "side"),
                reason: try need(m.reason.flatMap(LiveOrderReason.init(rawValue:)), "reason"),
                decidedAt: try time(m.decidedAt, "decidedAt"), amount: m.amount))
        case "fill":
            return .fill(LiveFill(
                orderId: try need(m.orderId, "orderId"), symbol: try need(m.symbol, "symbol"),
                side: try need(m.side.flatMap(OrderSide.init(rawValue:)), "side"),
                reason: try need(m.reason.flatMap(ExitReason.init(rawValue:)), "reason"),
                timestamp: try time(m.timestamp, "timestamp"), price: try need(m.price, "price"),
                shares: try need(m.shares, "shares"), commission: try need(m.commission, "commission"),
                cash: try need(m.cash, "cash")))
        case "rejected":
            var timestamp: Int64?
            if m.timestamp != nil { timestamp = try time(m.timestamp, "timestamp") }
            return .rejected(LiveRejection(
                reason: try need(m.reason.flatMap(LiveRejectionReason.init(code:)), "reason"),
                message: try need(m.message, "message"), symbol: m.symbol,
                timestamp: timestamp, orderId: m.orderId,
                field: m.field, line: m.line))
        case "equity":
            return .equity(LiveEquityMark(
                timestamp: try time(m.timestamp, "timestamp"), equity: try need(m.equity, "equity"),
                cash: try need(m.cash, "cash"), contributions: try need(m.contributions, "contributions"),
                openPositions: try need(m.openPositions, "openPositions")))
        default:
            throw LiveEventLineError(message: "'\(m.type)' lines are not read back")
        }
    }
}

/// A line ``LiveJournalCodec/event(line:)`` cannot read.
public struct LiveEventLineError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
