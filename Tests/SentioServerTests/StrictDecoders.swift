import Foundation

// Strict decoders written from the field lists of issue 12, independent of SentioAPI's types: every field
// non-optional (except the Document fields that exist only on capital calls), timestamps as `Date` through a
// decoding strategy that accepts exactly `YYYY-MM-DDTHH:MM:SSZ`.

enum StrictSignalType: String, Decodable { case BUY, SELL, HOLD }

struct StrictSignal: Decodable {
    let id: UUID
    let symbol: String
    let timestamp: Date
    let price: Double
    let change: Double
    let changePercent: Double
    let signalType: StrictSignalType
    let confidence: Double
    let targetReturn: Double
    let stopLoss: Double
    let profitTarget: Double
    let aiSignal: Double
    let rsi: Double
    let volumeRatio: Double
    let recommendation: String
    let reasoning: String
}

struct StrictWarmingUp: Decodable {
    let symbol: String
    let barsRemaining: Int
}

struct StrictSignalsResponse: Decodable {
    let timestamp: Date
    let signals: [StrictSignal]
    let warmingUp: [StrictWarmingUp]
}

struct StrictHistoricalBar: Decodable {
    let timestamp: Date
    let open: Double
    let high: Double
    let low: Double
    let close: Double
    let volume: Double
}

struct StrictSymbolDetail: Decodable {
    let symbol: String
    let name: String
    let price: Double
    let signal: StrictSignal
    let historicalData: [StrictHistoricalBar]
}

struct StrictPosition: Decodable {
    let id: UUID
    let symbol: String
    let entryPrice: Double
    let currentPrice: Double
    let shares: Int
    let entryTime: Date
    let pnl: Double
    let pnlPercent: Double
}

struct StrictTrade: Decodable {
    let id: UUID
    let symbol: String
    let entryPrice: Double
    let exitPrice: Double
    let shares: Int
    let entryTime: Date
    let exitTime: Date
    let pnl: Double
    let pnlPercent: Double
    let signalType: StrictSignalType
}

/// The fractional-sizing extra key.
struct StrictQuantity: Decodable {
    let quantity: Double
}

struct StrictPortfolio: Decodable {
    let initialCapital: Double
    let currentValue: Double
    let cashBalance: Double
    let totalPnL: Double
    let totalPnLPercent: Double
    let dayPnL: Double
    let dayPnLPercent: Double
    let positions: [StrictPosition]
    let recentTrades: [StrictTrade]
}

struct StrictTradeHistory: Decodable {
    let winRate: Double
    let totalTrades: Int
    let trades: [StrictTrade]
}

struct StrictNAVPoint: Decodable {
    let id: UUID
    let date: Date
    let nav: Double
}

struct StrictFund: Decodable {
    let id: UUID
    let name: String
    let domicile: String
    let vintage: Int
    let manager: String
    let commitment: Double
    let paidIn: Double
    let nav: Double
    let irr: Double
    let tvpi: Double
    let dpi: Double
    let lastReportDate: Date
    let navHistory: [StrictNAVPoint]
}

enum StrictDocumentType: String, Decodable { case CAPITAL_CALL, QUARTERLY_REPORT, ANNUAL_REPORT, KYC, COMPLIANCE, OTHER }
enum StrictPaymentStatus: String, Decodable { case PENDING, PAID, LATE, OVERDUE }

struct StrictDocument: Decodable {
    let id: UUID
    let type: StrictDocumentType
    let title: String
    let uploadDate: Date
    // Capital-call fields: null on other documents (their presence is checked on the raw bytes).
    let dueDate: Date?
    let callAmount: Double?
    let paymentStatus: StrictPaymentStatus?
    let url: String?
    let parsedData: [String: String]
}

struct StrictFundDetail: Decodable {
    let id: UUID
    let name: String
    let domicile: String
    let vintage: Int
    let manager: String
    let commitment: Double
    let paidIn: Double
    let nav: Double
    let irr: Double
    let tvpi: Double
    let dpi: Double
    let lastReportDate: Date
    let navHistory: [StrictNAVPoint]
    let documents: [StrictDocument]
}

struct StrictPortfolioSummary: Decodable {
    let totalCommitment: Double
    let totalNav: Double
    let portfolioTvpi: Double
    let activeCapitalCalls: Int
}

struct StrictCryptoHolding: Decodable {
    let id: UUID
    let symbol: String
    let name: String
    let amount: Double
    let valueUsd: Double
}

struct StrictCryptoHoldingsResponse: Decodable {
    let holdings: [StrictCryptoHolding]
    let totalValue: Double
}

struct StrictDashboard: Decodable {
    let portfolioSummary: StrictPortfolioSummary
    let funds: [StrictFund]
    let cryptoHoldings: [StrictCryptoHolding]
}

struct StrictLiveMessage: Decodable {
    enum Kind: String, Decodable { case signal_update }
    struct Payload: Decodable {
        let symbol: String
        let price: Double
        let signal: StrictSignal
    }
    let type: Kind
    let data: Payload
}

enum Strict {
    /// `JSONDecoder` with dates as exactly `YYYY-MM-DDTHH:MM:SSZ` (UTC), nothing else.
    static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = parseTimestamp(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                    debugDescription: "not YYYY-MM-DDTHH:MM:SSZ: \(text)"))
            }
            return date
        }
        return d
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try decoder().decode(type, from: Data(text.utf8))
    }

    /// Exactly 20 characters `dddd-dd-ddTdd:dd:ddZ`, converted with the Gregorian calendar in UTC.
    static func parseTimestamp(_ text: String) -> Date? {
        let chars = Array(text)
        guard chars.count == 20 else { return nil }
        let pattern = Array("dddd-dd-ddTdd:dd:ddZ")
        for (c, p) in zip(chars, pattern) {
            if p == "d" { guard c.isASCII, c.isNumber else { return nil } } else { guard c == p else { return nil } }
        }
        func int(_ a: Int, _ b: Int) -> Int { Int(String(chars[a..<b]))! }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let parts = DateComponents(year: int(0, 4), month: int(5, 7), day: int(8, 10), hour: int(11, 13),
            minute: int(14, 16), second: int(17, 19))
        guard let date = calendar.date(from: parts) else { return nil }
        // Reject rollovers (2024-02-30 → March).
        let back = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        guard back.year == parts.year, back.month == parts.month, back.day == parts.day, back.hour == parts.hour,
            back.minute == parts.minute, back.second == parts.second
        else { return nil }
        return date
    }
}
