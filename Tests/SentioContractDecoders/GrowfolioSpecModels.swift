import Foundation

// Strict decoders of the Growfolio API and WebSocket manual (`../shared/app-specs/growfolio-api-websocket.md`) and
// issue 32's payload lists, independent of SentioServer's types: every message is the envelope `{"id": UUID,
// "type", "event", "timestamp": "YYYY-MM-DDTHH:MM:SS.ffffff" (UTC, no zone), "data"}` with exactly those keys;
// each payload has exactly its listed keys (``GrowfolioPayload/keys``), decimals as strings of digits.

/// A decimal written as a JSON string (`"170.12"`), parsed to `Decimal`.
public struct GDecimal: Decodable, Equatable, CustomStringConvertible {
    public let text: String
    public let value: Decimal

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard text.range(of: #"^-?[0-9]+(\.[0-9]+)?$"#, options: .regularExpression) != nil, let value = Decimal(string: text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a decimal string: \(text)")
        }
        self.text = text
        self.value = value
    }

    public var double: Double { Double(text)! }
    public var description: String { text }
}

/// `2024-01-01T12:00:00.000000`: UTC with microseconds, no zone suffix.
public struct GTimestamp: Decodable, Equatable {
    public let text: String
    public let epochSeconds: Double

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let t = GTimestamp.parse(text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not YYYY-MM-DDTHH:MM:SS.ffffff: \(text)")
        }
        self.text = text
        epochSeconds = t
    }

    public static func parse(_ text: String) -> Double? {
        guard text.range(of: #"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}$"#, options: .regularExpression) != nil,
              let whole = Strict.parseTimestamp(String(text.prefix(19)) + "Z")
        else { return nil }
        return whole.timeIntervalSince1970 + Double(text.suffix(6))! / 1_000_000
    }
}

/// A payload with its exact key set.
public protocol GrowfolioPayload: Decodable {
    static var keys: Set<String> { get }
}

public enum GMessageType: String, Decodable { case event, system, ack, error }

/// The envelope; `event` must be present (a name or `null`).
public struct GEnvelope<Data: GrowfolioPayload>: Decodable {
    public let id: UUID
    public let type: GMessageType
    public let event: String?
    public let timestamp: GTimestamp
    public let data: Data

    enum CodingKeys: String, CodingKey { case id, type, event, timestamp, data }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(UUID.self, forKey: .id)
        type = try c.decode(GMessageType.self, forKey: .type)
        guard c.contains(.event) else {
            throw DecodingError.keyNotFound(CodingKeys.event, .init(codingPath: [], debugDescription: "event must be present (a name or null)"))
        }
        event = try c.decodeIfPresent(String.self, forKey: .event)
        timestamp = try c.decode(GTimestamp.self, forKey: .timestamp)
        data = try c.decode(Data.self, forKey: .data)
    }
}

public struct GWelcome: GrowfolioPayload {
    public static let keys: Set<String> = ["connection_id", "subscriptions", "heartbeat_interval"]
    public let connection_id: UUID
    public let subscriptions: [String]
    public let heartbeat_interval: Int
}

public struct GHeartbeat: GrowfolioPayload {
    public static let keys: Set<String> = ["ping"]
    public let ping: Bool
}

public struct GAck: GrowfolioPayload {
    public static let keys: Set<String> = ["action", "channels"]
    public enum Action: String, Decodable { case subscribed, unsubscribed }
    public let action: Action
    public let channels: [String]
}

public struct GError: GrowfolioPayload {
    public static let keys: Set<String> = ["error"]
    public let error: String
}

public struct GTokenExpiring: GrowfolioPayload {
    public static let keys: Set<String> = ["expires_in_seconds", "expires_at"]
    public let expires_in_seconds: Int
    public let expires_at: GTimestamp
}

public struct GTokenRefreshed: GrowfolioPayload {
    public static let keys: Set<String> = ["expires_at"]
    public let expires_at: GTimestamp
}

public struct GServerShutdown: GrowfolioPayload {
    public static let keys: Set<String> = ["message"]
    public let message: String
}

public struct GQuote: GrowfolioPayload {
    public static let keys: Set<String> = ["symbol", "price_usd", "price_gbp", "bid", "ask", "change_percent", "fx_rate", "timestamp"]
    public let symbol: String
    public let price_usd: GDecimal
    public let price_gbp: GDecimal
    public let bid: GDecimal
    public let ask: GDecimal
    public let change_percent: GDecimal
    public let fx_rate: GDecimal
    public let timestamp: GTimestamp
}

public struct GFXRate: GrowfolioPayload {
    public static let keys: Set<String> = ["pair", "rate", "timestamp"]
    public let pair: String
    public let rate: GDecimal
    public let timestamp: GTimestamp
}

public enum GSide: String, Decodable { case buy, sell }

/// The manual's order payload (§10).
public struct GOrder: GrowfolioPayload {
    public static let keys: Set<String> = [
        "order_id", "client_order_id", "symbol", "side", "filled_qty", "filled_price", "status", "event", "basket_id", "dca_schedule_id",
    ]
    public let order_id: String
    public let client_order_id: String?
    public let symbol: String
    public let side: GSide
    public let filled_qty: GDecimal
    public let filled_price: GDecimal?
    public let status: String
    public let event: String
    public let basket_id: String?
    public let dca_schedule_id: String?
}

public struct GPosition: GrowfolioPayload {
    public static let keys: Set<String> = ["symbol", "quantity", "cost_gbp", "price_usd", "market_value_usd"]
    public let symbol: String
    public let quantity: GDecimal
    public let cost_gbp: GDecimal
    public let price_usd: GDecimal?
    public let market_value_usd: GDecimal?
}

public struct GCashChanged: GrowfolioPayload {
    public static let keys: Set<String> = ["currency", "cash_gbp", "cash_usd", "fx_rate"]
    public let currency: String
    public let cash_gbp: GDecimal
    public let cash_usd: GDecimal?
    public let fx_rate: GDecimal?
}

/// `buying_power_changed`: the free cash (cash less the budgets of pending purchases), beside `cash_changed`'s fields.
public struct GBuyingPowerChanged: GrowfolioPayload {
    public static let keys: Set<String> = ["currency", "buying_power_gbp", "buying_power_usd", "fx_rate"]
    public let currency: String
    public let buying_power_gbp: GDecimal
    public let buying_power_usd: GDecimal?
    public let fx_rate: GDecimal?
}

/// `dca_executed`: the backtest's `--events` fields (amount in GBP) plus the order id.
public struct GDCAExecuted: GrowfolioPayload {
    public static let keys: Set<String> = [
        "dca_schedule_id", "order_id", "symbol", "side", "filled_qty", "filled_price", "amount_gbp", "fx_rate", "price_usd",
        "price_gbp", "timestamp",
    ]
    public let dca_schedule_id: String
    public let order_id: String
    public let symbol: String
    public let side: GSide
    public let filled_qty: GDecimal
    public let filled_price: GDecimal
    public let amount_gbp: GDecimal
    public let fx_rate: GDecimal
    public let price_usd: GDecimal
    public let price_gbp: GDecimal
    public let timestamp: GTimestamp
}

public struct GDCAFailed: GrowfolioPayload {
    public static let keys: Set<String> = ["dca_schedule_id", "symbol", "amount_gbp", "reason", "timestamp"]
    public let dca_schedule_id: String
    public let symbol: String
    public let amount_gbp: GDecimal
    public let reason: String
    public let timestamp: GTimestamp
}

public enum GDirection: String, Decodable { case INCOMING, OUTGOING }

/// The manual's transfer payload (§10); also the body of `POST /api/v1/transfers`.
public struct GTransfer: GrowfolioPayload {
    public static let keys: Set<String> = ["transfer_id", "direction", "amount", "currency", "status"]
    public let transfer_id: String
    public let direction: GDirection
    public let amount: GDecimal
    public let currency: String
    public let status: String
}

/// `transfer_failed`: the manual's transfer payload plus the `reason` (issue 32: "fails with transfer_failed and a
/// reason"; the manual tells clients to ignore unknown fields).
public struct GTransferFailed: GrowfolioPayload {
    public static let keys: Set<String> = ["transfer_id", "direction", "amount", "currency", "status", "reason"]
    public let transfer_id: String
    public let direction: GDirection
    public let amount: GDecimal
    public let currency: String
    public let status: String
    public let reason: String
}

// REST bodies.

public struct GAuthTokenResponse: GrowfolioPayload {
    public static let keys: Set<String> = ["user_id", "email", "name", "alpaca_account_status"]
    public let user_id: String
    public let email: String?
    public let name: String?
    public let alpaca_account_status: String
}

public struct GAccount: GrowfolioPayload {
    public static let keys: Set<String> = ["account_id", "status", "currency", "cash_gbp", "cash_usd", "buying_power_gbp", "buying_power_usd", "fx_rate"]
    public let account_id: String
    public let status: String
    public let currency: String
    public let cash_gbp: GDecimal
    public let cash_usd: GDecimal?
    public let buying_power_gbp: GDecimal
    public let buying_power_usd: GDecimal?
    public let fx_rate: GDecimal?
}

public struct GSchedule: GrowfolioPayload {
    public static let keys: Set<String> = ["id", "symbol", "amount_gbp", "every", "start", "active"]
    public enum Every: String, Decodable { case week, month }
    public let id: String
    public let symbol: String
    public let amount_gbp: GDecimal
    public let every: Every
    public let start: GTimestamp
    public let active: Bool
}

public struct GSchedules: GrowfolioPayload {
    public static let keys: Set<String> = ["schedules"]
    public let schedules: [GSchedule]
}

public struct GRestOrder: GrowfolioPayload {
    public static let keys: Set<String> = [
        "order_id", "client_order_id", "symbol", "side", "status", "reason", "filled_qty", "filled_price", "amount_gbp", "fx_rate",
        "commission_gbp", "dca_schedule_id", "placed_at", "resolved_at",
    ]
    public let order_id: String
    public let client_order_id: String?
    public let symbol: String
    public let side: GSide
    public let status: String
    public let reason: String?
    public let filled_qty: GDecimal
    public let filled_price: GDecimal?
    public let amount_gbp: GDecimal
    public let fx_rate: GDecimal?
    public let commission_gbp: GDecimal
    public let dca_schedule_id: String?
    public let placed_at: GTimestamp
    public let resolved_at: GTimestamp?
}

public struct GOrders: GrowfolioPayload {
    public static let keys: Set<String> = ["orders"]
    public let orders: [GRestOrder]
}

public struct GRestPosition: GrowfolioPayload {
    public static let keys: Set<String> = ["symbol", "quantity", "cost_gbp", "price_usd", "market_value_usd", "market_value_gbp"]
    public let symbol: String
    public let quantity: GDecimal
    public let cost_gbp: GDecimal
    public let price_usd: GDecimal?
    public let market_value_usd: GDecimal?
    public let market_value_gbp: GDecimal?
}

public struct GPositions: GrowfolioPayload {
    public static let keys: Set<String> = ["positions"]
    public let positions: [GRestPosition]
}

public enum Growfolio {
    public struct KeyMismatch: Error, CustomStringConvertible {
        public let description: String
    }

    /// Decodes a whole message strictly: the envelope's and the payload's key sets exact, every field typed.
    public static func message<D: GrowfolioPayload>(_ type: D.Type, _ text: String) throws -> GEnvelope<D> {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        try exactKeys(object, ["id", "type", "event", "timestamp", "data"], "envelope", text)
        try exactKeys(object?["data"] as? [String: Any], D.keys, "data", text)
        return try JSONDecoder().decode(GEnvelope<D>.self, from: Data(text.utf8))
    }

    /// Decodes a REST body strictly (exact top-level keys; lists of payloads checked element by element).
    public static func body<D: GrowfolioPayload>(_ type: D.Type, _ text: String) throws -> D {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        try exactKeys(object, D.keys, "body", text)
        return try JSONDecoder().decode(D.self, from: Data(text.utf8))
    }

    /// The `type` and `event` of a message, for routing a test's reads.
    public static func kind(_ text: String) -> (type: String, event: String?)? {
        guard let o = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], let t = o["type"] as? String else { return nil }
        return (t, o["event"] as? String)
    }

    static func exactKeys(_ object: [String: Any]?, _ keys: Set<String>, _ what: String, _ text: String) throws {
        guard let object else { throw KeyMismatch(description: "\(what) is not an object: \(text)") }
        let got = Set(object.keys)
        guard got == keys else {
            throw KeyMismatch(description: "\(what) keys: extra \(got.subtracting(keys).sorted()), missing \(keys.subtracting(got).sorted()) in \(text)")
        }
    }
}
