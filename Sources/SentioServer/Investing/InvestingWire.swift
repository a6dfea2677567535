import Foundation
import SentioCore
import SentioLive
import SentioStore

/// The investing app's WebSocket messages on the wire (the Growfolio manual, §3 and §10): the envelope
/// `{"id", "type", "event", "timestamp", "data"}` and each event's payload. Decimals are strings with fixed
/// places — quantities 8, prices 4, money 2, rates 6 (as `backtest --events` writes `dca_executed`); timestamps are
/// UTC with microseconds and no zone suffix (`2024-01-01T12:00:00.000000`).
enum InvestingWire {
    /// The channels a client may subscribe to.
    static let channels = ["orders", "positions", "account", "dca", "transfers", "fx", "quotes", "baskets"]
    /// The channels every connection starts with.
    static let defaultChannels = ["orders", "positions", "account", "dca", "transfers"]

    /// A JSON value of a payload.
    enum Value {
        case string(String), int(Int64), bool(Bool), null, strings([String]), raw(String)

        var json: String {
            switch self {
            case .string(let s): JSONText.quoted(s)
            case .int(let n): String(n)
            case .bool(let b): b ? "true" : "false"
            case .null: "null"
            case .strings(let a): "[" + a.map(JSONText.quoted).joined(separator: ",") + "]"
            case .raw(let r): r
            }
        }
    }

    static func object(_ fields: [(String, Value)]) -> String {
        "{" + fields.map { JSONText.quoted($0.0) + ":" + $0.1.json }.joined(separator: ",") + "}"
    }

    /// `x` with `places` decimals (a string); `null` when not finite.
    static func decimal(_ x: Double, _ places: Int) -> Value {
        x.isFinite ? .string(fixed(x, places)) : .null
    }

    /// `x` with `places` decimals, exactly as `String(format: "%.<places>f", x)` writes it (C's `printf`: the
    /// binary value correctly rounded), without Foundation's formatter: `vsnprintf` into a stack buffer, a
    /// fraction of the cost per number (the quotes' fan-out formats seven per message).
    static func fixed(_ x: Double, _ places: Int) -> String {
        precondition((0...17).contains(places), "places in 0...17")
        // The longest "%.17f" of a Double: 309 integer digits, sign, point and 17 decimals.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 336) { buffer in
            let n = withVaList([Int32(places), x]) { vsnprintf(buffer.baseAddress!, buffer.count, "%.*f", $0) }
            precondition(n > 0 && Int(n) < buffer.count, "formatted \(x)")
            return String(cString: buffer.baseAddress!)
        }
    }

    static func decimal(_ x: Double?, _ places: Int) -> Value { x.map { decimal($0, places) } ?? .null }

    /// `2024-01-01T12:00:00.000000`: UTC, microseconds, no zone suffix.
    static func timestamp(_ epochSeconds: Double) -> String {
        let micros = Int64((epochSeconds * 1_000_000).rounded(.down))
        let seconds = floorDivide(micros, 1_000_000)
        let fraction = micros - seconds * 1_000_000
        let date = CivilDate(epochSeconds: seconds)
        let time = seconds - date.epochSeconds
        var out = ""
        out.reserveCapacity(26)
        func pad(_ n: Int, _ width: Int) {
            let digits = String(n)
            if digits.count < width { out += String(repeating: "0", count: width - digits.count) }
            out += digits
        }
        pad(date.year, 4); out += "-"; pad(date.month, 2); out += "-"; pad(date.day, 2); out += "T"
        pad(Int(time / 3600), 2); out += ":"; pad(Int(time / 60 % 60), 2); out += ":"; pad(Int(time % 60), 2); out += "."
        pad(Int(fraction), 6)
        return out
    }

    static func timestamp(_ epochSeconds: Int64) -> String { timestamp(Double(epochSeconds)) }

    /// The envelope of one message.
    static func envelope(type: String, event: String?, data: String, now: Double = Date().timeIntervalSince1970) -> String {
        object([
            ("id", .string(UUID().uuidString.lowercased())), ("type", .string(type)), ("event", event.map { .string($0) } ?? .null),
            ("timestamp", .string(timestamp(now))), ("data", .raw(data)),
        ])
    }

    static func error(_ message: String) -> String { envelope(type: "error", event: nil, data: object([("error", .string(message))])) }

    /// The order payload of the manual (§10).
    static func order(_ o: StoredPaperOrder, event: String) -> String {
        let filled = o.status == "filled"
        return object([
            ("order_id", .string(o.id)), ("client_order_id", .null), ("symbol", .string(o.symbol)), ("side", .string(o.side)),
            ("filled_qty", decimal(filled ? o.quantity : 0, 8)), ("filled_price", filled ? decimal(o.fillPriceUSD, 4) : .null),
            ("status", .string(o.status)), ("event", .string(event)), ("basket_id", .null),
            ("dca_schedule_id", o.scheduleID.map { .string($0) } ?? .null),
        ])
    }

    /// One brokerage event as (channel, symbol for quotes, event name, payload).
    static func message(_ e: PaperEvent, spreadBasisPoints: Double) -> (channel: String, symbol: String?, event: String, data: String) {
        switch e.kind {
        case .quote(let symbol, let time, let close, let previous, let rate):
            let half = spreadBasisPoints / 10_000
            let change = previous.map { ($0 > 0 ? (close / $0 - 1) * 100 : 0) } ?? 0
            return ("quotes", symbol, "quote_updated", object([
                ("symbol", .string(symbol)), ("price_usd", decimal(close, 4)), ("price_gbp", decimal(rate.map { close / $0 }, 4)),
                ("bid", decimal(close * (1 - half), 4)), ("ask", decimal(close * (1 + half), 4)),
                ("change_percent", decimal(change, 2)), ("fx_rate", decimal(rate, 6)), ("timestamp", .string(timestamp(time))),
            ]))
        case .fxRate(let rate, let time):
            return ("fx", nil, "fx_rate_updated", object([
                ("pair", .string("GBPUSD")), ("rate", decimal(rate, 6)), ("timestamp", .string(timestamp(time))),
            ]))
        case .orderCreated(let o): return ("orders", nil, "order_created", order(o, event: "new"))
        case .orderFilled(let o): return ("orders", nil, "order_fill", order(o, event: "fill"))
        case .orderRejected(let o): return ("orders", nil, "order_status", order(o, event: "rejected"))
        case .orderCancelled(let o): return ("orders", nil, "order_cancelled", order(o, event: "canceled"))
        case .position(let p, let created):
            return ("positions", nil, p.quantity > 0 ? (created ? "position_created" : "position_updated") : "position_closed",
                    position(p, rate: nil))
        case .cashChanged(let cash, let rate):
            return ("account", nil, "cash_changed", object([
                ("currency", .string("GBP")), ("cash_gbp", decimal(cash, 2)), ("cash_usd", decimal(rate.map { cash * $0 }, 2)),
                ("fx_rate", decimal(rate, 6)),
            ]))
        case .buyingPowerChanged(let power, let rate):
            return ("account", nil, "buying_power_changed", object([
                ("currency", .string("GBP")), ("buying_power_gbp", decimal(power, 2)),
                ("buying_power_usd", decimal(rate.map { power * $0 }, 2)), ("fx_rate", decimal(rate, 6)),
            ]))
        case .dcaExecuted(let o):
            return ("dca", nil, "dca_executed", object([
                ("dca_schedule_id", .string(o.scheduleID ?? "")), ("order_id", .string(o.id)), ("symbol", .string(o.symbol)),
                ("side", .string(o.side)), ("filled_qty", decimal(o.quantity, 8)), ("filled_price", decimal(o.fillPriceUSD, 4)),
                ("amount_gbp", decimal(o.quantity * o.fillPriceGBP + o.commissionGBP, 2)), ("fx_rate", decimal(o.fxRate, 6)),
                ("price_usd", decimal(o.priceUSD, 4)), ("price_gbp", decimal(o.priceUSD / o.fxRate, 4)),
                ("timestamp", .string(timestamp(o.resolvedAt ?? o.placedAt))),
            ]))
        case .dcaFailed(let scheduleID, let symbol, let amount, let time, let reason):
            return ("dca", nil, "dca_failed", object([
                ("dca_schedule_id", .string(scheduleID)), ("symbol", .string(symbol)), ("amount_gbp", decimal(amount, 2)),
                ("reason", .string(reason)), ("timestamp", .string(timestamp(time))),
            ]))
        case .transferComplete(let t): return ("transfers", nil, "transfer_complete", transfer(t))
        case .transferFailed(let t): return ("transfers", nil, "transfer_failed", transfer(t))
        }
    }

    /// The manual's transfer payload; a failed one adds its `reason`.
    static func transfer(_ t: StoredPaperTransfer) -> String {
        var fields: [(String, Value)] = [
            ("transfer_id", .string(t.id)), ("direction", .string(t.direction)), ("amount", decimal(t.amount, 2)),
            ("currency", .string(t.currency)), ("status", .string(t.status)),
        ]
        if t.status == "FAILED" { fields.append(("reason", .string(t.reason ?? "failed"))) }
        return object(fields)
    }

    static func position(_ p: PaperPosition, rate: Double?) -> String {
        object([
            ("symbol", .string(p.symbol)), ("quantity", decimal(p.quantity, 8)), ("cost_gbp", decimal(p.costGBP, 2)),
            ("price_usd", decimal(p.lastPriceUSD, 4)),
            ("market_value_usd", decimal(p.lastPriceUSD.map { $0 * p.quantity }, 2)),
        ])
    }
}
