import Foundation
import SentioLive
import SentioStore

// The investing app's REST bodies (the Growfolio manual; snake_case, decimals as strings with fixed places:
// quantities 8, prices 4, money 2, rates 6).

/// A decimal given as a JSON string (the app's form) or a number.
struct LenientDecimal: Decodable, Sendable {
    var value: Double

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let text = try? c.decode(String.self) {
            guard let x = Double(text.trimmingCharacters(in: .whitespaces)), x.isFinite else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a decimal")
            }
            value = x
        } else {
            value = try c.decode(Double.self)
        }
    }
}

/// `POST /api/v1/auth/token`.
struct AuthTokenRequest: Decodable, Sendable {
    var identityToken: String
    var userFirstName: String?
    var userLastName: String?

    enum CodingKeys: String, CodingKey {
        case identityToken = "identity_token", userFirstName = "user_first_name", userLastName = "user_last_name"
    }
}

struct AuthTokenResponse: Encodable, Sendable {
    var userID: String
    var email: String?
    var name: String?
    var alpacaAccountStatus: String

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", email, name, alpacaAccountStatus = "alpaca_account_status"
    }
}

/// `GET /api/v1/account`.
struct InvestingAccountResponse: Encodable, Sendable {
    var accountID: String
    var status: String
    var currency: String
    var cashGBP: String
    var cashUSD: String?
    var buyingPowerGBP: String
    var buyingPowerUSD: String?
    var fxRate: String?

    enum CodingKeys: String, CodingKey {
        case accountID = "account_id", status, currency, cashGBP = "cash_gbp", cashUSD = "cash_usd"
        case buyingPowerGBP = "buying_power_gbp", buyingPowerUSD = "buying_power_usd", fxRate = "fx_rate"
    }
}

struct InvestingPosition: Encodable, Sendable {
    var symbol: String
    var quantity: String
    var costGBP: String
    var priceUSD: String?
    var marketValueUSD: String?
    var marketValueGBP: String?

    enum CodingKeys: String, CodingKey {
        case symbol, quantity, costGBP = "cost_gbp", priceUSD = "price_usd", marketValueUSD = "market_value_usd"
        case marketValueGBP = "market_value_gbp"
    }
}

struct InvestingPositionsResponse: Encodable, Sendable { var positions: [InvestingPosition] }

/// An order as `GET /api/v1/orders` lists it: the manual's order payload plus the DCA figures.
struct InvestingOrder: Encodable, Sendable {
    var orderID: String
    var clientOrderID: String?
    var symbol: String
    var side: String
    var status: String
    var reason: String?
    var filledQty: String
    var filledPrice: String?
    var amountGBP: String
    var fxRate: String?
    var commissionGBP: String
    var dcaScheduleID: String?
    var placedAt: String
    var resolvedAt: String?

    enum CodingKeys: String, CodingKey {
        case orderID = "order_id", clientOrderID = "client_order_id", symbol, side, status, reason, filledQty = "filled_qty"
        case filledPrice = "filled_price", amountGBP = "amount_gbp", fxRate = "fx_rate", commissionGBP = "commission_gbp"
        case dcaScheduleID = "dca_schedule_id", placedAt = "placed_at", resolvedAt = "resolved_at"
    }

    init(_ o: StoredPaperOrder) {
        let filled = o.status == "filled"
        orderID = o.id
        clientOrderID = nil
        symbol = o.symbol
        side = o.side
        status = o.status
        reason = o.reason
        filledQty = String(format: "%.8f", filled ? o.quantity : 0)
        filledPrice = filled ? String(format: "%.4f", o.fillPriceUSD) : nil
        // A purchase: its cost once filled, its budget before; a sale: its net proceeds once filled, 0 before.
        let amount = o.side == "sell"
            ? (filled ? o.quantity * o.fillPriceGBP - o.commissionGBP : 0)
            : (filled ? o.quantity * o.fillPriceGBP + o.commissionGBP : o.amountGBP)
        amountGBP = String(format: "%.2f", amount)
        fxRate = filled ? String(format: "%.6f", o.fxRate) : nil
        commissionGBP = String(format: "%.2f", o.commissionGBP)
        dcaScheduleID = o.scheduleID
        placedAt = InvestingWire.timestamp(o.placedAt)
        resolvedAt = o.resolvedAt.map { InvestingWire.timestamp($0) }
    }
}

struct InvestingOrdersResponse: Encodable, Sendable { var orders: [InvestingOrder] }

/// `POST /api/v1/transfers`: `direction` `INCOMING` (a deposit) or `OUTGOING` (a withdrawal, settled at the next bar).
struct TransferRequest: Decodable, Sendable {
    var direction: String
    var amount: LenientDecimal
    var currency: String
}

struct TransferResponse: Encodable, Sendable {
    var transferID: String
    var direction: String
    var amount: String
    var currency: String
    var status: String

    enum CodingKeys: String, CodingKey { case transferID = "transfer_id", direction, amount, currency, status }

    init(_ t: StoredPaperTransfer) {
        transferID = t.id
        direction = t.direction
        amount = String(format: "%.2f", t.amount)
        currency = t.currency
        status = t.status
    }
}

/// `POST /api/v1/dca/schedules`.
struct ScheduleRequest: Decodable, Sendable {
    var symbol: String
    var amountGBP: LenientDecimal
    var every: String
    /// `YYYY-MM-DD` or an ISO-8601 UTC time; absent: the next bar.
    var start: String?

    enum CodingKeys: String, CodingKey { case symbol, amountGBP = "amount_gbp", every, start }
}

struct ScheduleResponse: Encodable, Sendable {
    var id: String
    var symbol: String
    var amountGBP: String
    var every: String
    var start: String
    var active: Bool

    enum CodingKeys: String, CodingKey { case id, symbol, amountGBP = "amount_gbp", every, start, active }

    init(_ s: StoredDCASchedule) {
        id = s.id
        symbol = s.symbol
        amountGBP = String(format: "%.2f", s.amountGBP)
        every = s.every
        start = InvestingWire.timestamp(s.start)
        active = s.active
    }
}

struct SchedulesResponse: Encodable, Sendable { var schedules: [ScheduleResponse] }

/// A message from a WebSocket client (unknown fields ignored).
struct InvestingClientMessage: Decodable, Sendable {
    var type: String
    var channels: [String]?
    var symbols: [String]?
    var token: String?
}
