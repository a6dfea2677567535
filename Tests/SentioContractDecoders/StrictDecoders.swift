import Foundation

// Strict decoders written from the field lists of issue 12, independent of SentioAPI's types: every field
// non-optional (except the Document fields that exist only on capital calls), timestamps as `Date` through a
// decoding strategy that accepts exactly `YYYY-MM-DDTHH:MM:SSZ`.

public enum StrictSignalType: String, Decodable { case BUY, SELL, HOLD }

public struct StrictSignal: Decodable {
    public let id: UUID
    public let symbol: String
    public let timestamp: Date
    public let price: Double
    public let change: Double
    public let changePercent: Double
    public let signalType: StrictSignalType
    public let confidence: Double
    public let targetReturn: Double
    public let stopLoss: Double
    public let profitTarget: Double
    public let aiSignal: Double
    public let rsi: Double
    public let volumeRatio: Double
    public let recommendation: String
    public let reasoning: String
}

public struct StrictWarmingUp: Decodable {
    public let symbol: String
    public let barsRemaining: Int
}

public struct StrictSignalsResponse: Decodable {
    public let timestamp: Date
    public let signals: [StrictSignal]
    public let warmingUp: [StrictWarmingUp]
}

public struct StrictHistoricalBar: Decodable {
    public let timestamp: Date
    public let open: Double
    public let high: Double
    public let low: Double
    public let close: Double
    public let volume: Double
}

public struct StrictSymbolDetail: Decodable {
    public let symbol: String
    public let name: String
    public let price: Double
    public let signal: StrictSignal
    public let historicalData: [StrictHistoricalBar]
}

public struct StrictPosition: Decodable {
    public let id: UUID
    public let symbol: String
    public let entryPrice: Double
    public let currentPrice: Double
    public let shares: Int
    public let entryTime: Date
    public let pnl: Double
    public let pnlPercent: Double
}

public struct StrictTrade: Decodable {
    public let id: UUID
    public let symbol: String
    public let entryPrice: Double
    public let exitPrice: Double
    public let shares: Int
    public let entryTime: Date
    public let exitTime: Date
    public let pnl: Double
    public let pnlPercent: Double
    public let signalType: StrictSignalType
}

/// The fractional-sizing extra key.
public struct StrictQuantity: Decodable {
    public let quantity: Double
}

public struct StrictPortfolio: Decodable {
    public let initialCapital: Double
    public let currentValue: Double
    public let cashBalance: Double
    public let totalPnL: Double
    public let totalPnLPercent: Double
    public let dayPnL: Double
    public let dayPnLPercent: Double
    public let positions: [StrictPosition]
    public let recentTrades: [StrictTrade]
    /// The Sentio Lite spec's own `Portfolio` model decodes `trades` (every closed trade).
    public let trades: [StrictTrade]
}

public struct StrictTradeHistory: Decodable {
    public let winRate: Double
    public let totalTrades: Int
    public let trades: [StrictTrade]
}

public struct StrictNAVPoint: Decodable {
    public let id: UUID
    public let date: Date
    public let nav: Double
}

public struct StrictFund: Decodable {
    public let id: UUID
    public let name: String
    public let domicile: String
    public let vintage: Int
    public let manager: String
    public let commitment: Double
    public let paidIn: Double
    public let nav: Double
    public let irr: Double
    public let tvpi: Double
    public let dpi: Double
    public let lastReportDate: Date
    public let navHistory: [StrictNAVPoint]
}

public enum StrictDocumentType: String, Decodable { case CAPITAL_CALL, QUARTERLY_REPORT, ANNUAL_REPORT, KYC, COMPLIANCE, OTHER }
public enum StrictPaymentStatus: String, Decodable { case PENDING, PAID, LATE, OVERDUE }

public struct StrictDocument: Decodable {
    public let id: UUID
    public let type: StrictDocumentType
    public let title: String
    public let uploadDate: Date
    // Capital-call fields: null on other documents (their presence is checked on the raw bytes).
    public let dueDate: Date?
    public let callAmount: Double?
    public let paymentStatus: StrictPaymentStatus?
    public let url: String?
    public let parsedData: [String: String]
}

public struct StrictFundDetail: Decodable {
    public let id: UUID
    public let name: String
    public let domicile: String
    public let vintage: Int
    public let manager: String
    public let commitment: Double
    public let paidIn: Double
    public let nav: Double
    public let irr: Double
    public let tvpi: Double
    public let dpi: Double
    public let lastReportDate: Date
    public let navHistory: [StrictNAVPoint]
    public let documents: [StrictDocument]
}

public struct StrictPortfolioSummary: Decodable {
    public let totalCommitment: Double
    public let totalNav: Double
    public let portfolioTvpi: Double
    /// Sentio's additive field: `false` when `portfolioTvpi` is the `0.0` of an undefined multiple.
    public let portfolioTvpiDefined: Bool
    public let activeCapitalCalls: Int
}

public struct StrictCryptoHolding: Decodable {
    public let id: UUID
    public let symbol: String
    public let name: String
    public let amount: Double
    public let valueUsd: Double
}

public struct StrictCryptoHoldingsResponse: Decodable {
    public let holdings: [StrictCryptoHolding]
    public let totalValue: Double
}

public struct StrictDashboard: Decodable {
    public let portfolioSummary: StrictPortfolioSummary
    public let funds: [StrictFund]
    public let cryptoHoldings: [StrictCryptoHolding]
}

public struct StrictLiveMessage: Decodable {
    public enum Kind: String, Decodable { case signal_update }
    public struct Payload: Decodable {
        public let symbol: String
        public let price: Double
        public let signal: StrictSignal
    }
    public let type: Kind
    public let data: Payload
}

public enum Strict {
    /// `JSONDecoder` with dates as exactly `YYYY-MM-DDTHH:MM:SSZ` (UTC), nothing else.
    public static func decoder() -> JSONDecoder {
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

    public static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try decoder().decode(type, from: Data(text.utf8))
    }

    /// Exactly 20 characters `dddd-dd-ddTdd:dd:ddZ`, converted with the Gregorian calendar in UTC.
    public static func parseTimestamp(_ text: String) -> Date? {
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
