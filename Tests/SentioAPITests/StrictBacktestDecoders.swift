import SentioContractDecoders
import Foundation
import Testing

// Strict decoders of Sentio's own shapes (issue 12: "Sentio's own shapes … are Codable types in the same layer"),
// written from the documented field lists of the backtest summary and the run records, independent of SentioAPI's
// types. Non-optional wherever the output promises a value; the statistics documented as "null when undefined"
// are optionals here, and their keys' presence is checked on the raw bytes (Shapes.backtestSummary).

enum StrictStrategy: String, Decodable { case sentio, rsi, dca, buyAndHold = "buy-and-hold" }

struct StrictOpenPosition: Decodable {
    let symbol: String
    let entryTime: Date
    let entryPrice: Double
    let currentPrice: Double
    let shares: Double
    let marketValue: Double
    let unrealizedPnL: Double
}

struct StrictBacktestConfig: Decodable {
    enum Fill: String, Decodable { case nextOpen = "next-open", close }
    enum Sizing: String, Decodable { case allIn = "all-in", equalWeight = "equal-weight", fraction }
    enum StopReference: String, Decodable { case decisionClose = "decision-close", entryPrice = "entry-price" }
    enum Period: String, Decodable { case week, month }
    let strategy: StrictStrategy
    let paths: [String]
    let database: String?
    let from: Date?
    let to: Date?
    let symbols: [String]
    let initialCapital: Double
    let commissionRate: Double
    let feePerOrder: Double
    let slippageBasisPoints: Double
    let fill: Fill
    let sizing: Sizing
    let maxPositions: Int?
    let fraction: Double?
    let fractionalShares: Bool
    let stopLossPercent: Double?
    let takeProfitPercent: Double?
    let stopReference: StopReference
    let rsiPeriod: Int?
    let rsiLower: Double?
    let rsiUpper: Double?
    let amount: Double?
    let every: Period?
    let currency: String?
    let fx: String?
    let signalModel: [String: StrictAnyScalar]?
}

/// A number, string or boolean (the signal model's configuration values).
enum StrictAnyScalar: Decodable {
    case number(Double), string(String), bool(Bool)
    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let x = try? c.decode(Double.self) { self = .number(x) }
        else { self = .string(try c.decode(String.self)) }
    }
}

struct StrictConventions: Decodable {
    let periodsPerYear: Double
    let periodsPerYearSource: String
    let riskFreeRate: Double
    let ddof: Int
    let returns: String
    let sharpeRatio: String
    let cagr: String
    let maxDrawdown: String
    let profitFactor: String
    let moneyWeightedReturn: String
    let fills: String
    let stops: String
    let openPositions: String
    let timestamps: String
}

/// `{"GBP": x, "USD": y}`: decoded as a map; the test checks both codes are present.
typealias StrictCurrencyPair = [String: Double]

struct StrictCurrency: Decodable {
    let investorCurrency: String
    let assetCurrency: String
    let fxFile: String
    let barsWithPreviousRate: Int
    let executions: Int
    let invested: StrictCurrencyPair
    let value: StrictCurrencyPair
    let timeWeightedReturnPercent: StrictCurrencyPair
    let moneyWeightedReturnPercent: [String: Double?]
    let fxEffectPercent: Double
}

struct StrictBacktestSummary: Decodable {
    let strategy: StrictStrategy
    let symbols: [String]
    let start: Date
    let end: Date
    let bars: Int
    let initialCapital: Double
    let totalContributions: Double
    let finalEquity: Double
    let finalCash: Double
    let totalReturnPercent: Double
    let timeWeightedReturnPercent: Double
    let moneyWeightedReturnPercent: Double?
    let cagrPercent: Double?
    let annualizedVolatilityPercent: Double?
    let sharpeRatio: Double?
    let sortinoRatio: Double?
    let calmarRatio: Double?
    let maxDrawdownPercent: Double
    let maxDrawdownDurationBars: Int
    let maxDrawdownDurationDays: Double
    let tradeCount: Int
    let openPositionCount: Int
    let winRatePercent: Double?
    let profitFactor: Double?
    let averageTradePercent: Double?
    let bestTradePercent: Double?
    let worstTradePercent: Double?
    let averageHoldingBars: Double?
    let averageHoldingDays: Double?
    let exposurePercent: Double
    let commissionsPaid: Double
    let sqn: Double?
    let orderCount: Int
    let rejectedOrderCount: Int
    let rejectionsByReason: [String: Int]
    let openPositions: [StrictOpenPosition]
    let currency: StrictCurrency?
    let benchmark: StrictBenchmark?
    let warnings: [StrictWarning]
    let config: StrictBacktestConfig
    let conventions: StrictConventions
}

/// The benchmark fields, plus the common bars and the annualization stated.
struct StrictBenchmark: Decodable {
    let symbol: String
    let totalReturnPercent: Double
    let cagrPercent: Double
    let alpha: Double
    let beta: Double
    let correlation: Double?
    let informationRatio: Double?
    let trackingErrorPercent: Double
    let commonBars: Int
    let start: Date
    let end: Date
    let periodsPerYear: Double
    let periodsPerYearSource: String
}

struct StrictWarning: Decodable {
    let code: String
    let message: String
}

/// A run record whose statistics are a backtest summary (runs saved by `sentio backtest --save`).
struct StrictRunRecord: Decodable {
    let id: Int64
    let created: Date
    let label: String?
    let strategy: String
    let symbols: [String]
    let start: Date?
    let end: Date?
    let initialCapital: Double?
    let finalEquity: Double?
    let inputFingerprint: String
    let tradeCount: Int
    let equityPointCount: Int
    let statistics: StrictBacktestSummary
}

struct StrictRunList: Decodable {
    let runs: [StrictRunRecord]
}

struct StrictRunTrade: Decodable {
    let symbol: String
    let entryTime: Date
    let entryPrice: Double
    let exitTime: Date?
    let exitPrice: Double?
    let shares: Double
    let pnl: Double?
    let pnlPercent: Double?
    let commission: Double
    let signalType: String?
    let exitReason: String?
}

struct StrictRunEquityPoint: Decodable {
    let timestamp: Date
    let equity: Double
    let cash: Double?
    let contribution: Double?
}

struct StrictRunDetail: Decodable {
    let id: Int64
    let created: Date
    let label: String?
    let strategy: String
    let symbols: [String]
    let inputFingerprint: String
    let tradeCount: Int
    let equityPointCount: Int
    let statistics: StrictBacktestSummary
    let config: StrictBacktestConfig
    let trades: [StrictRunTrade]
    let equity: [StrictRunEquityPoint]
}

/// ``Shape`` plus the JSON types Sentio's own shapes need (booleans, `null`, any object, integer maps).
indirect enum XShape: Sendable {
    case object([(String, XShape)])
    case array(XShape)
    case nullable(XShape)
    case number, integer, string, timestamp
    case oneOf([String])
    case bool
    case null
    /// Any JSON object.
    case anyObject
    /// An object whose values are integers.
    case integerMap

    func problems(_ value: RawJSON, at path: String = "$") -> [String] {
        switch (self, value) {
        case (.nullable, .null), (.null, .null), (.bool, .bool), (.anyObject, .object): return []
        case (.nullable(let inner), _): return inner.problems(value, at: path)
        case (.object(let fields), .object(let actual)):
            let expectedKeys = fields.map(\.0), actualKeys = actual.map(\.0)
            guard expectedKeys == actualKeys else { return ["\(path): keys \(actualKeys), expected \(expectedKeys)"] }
            return zip(fields, actual).flatMap { f, a in f.1.problems(a.1, at: "\(path).\(f.0)") }
        case (.array(let item), .array(let items)):
            return items.enumerated().flatMap { k, v in item.problems(v, at: "\(path)[\(k)]") }
        case (.integerMap, .object(let fields)):
            return fields.flatMap { k, v in Shape.integer.problems(v, at: "\(path).\(k)") }
        case (.number, _): return Shape.number.problems(value, at: path)
        case (.integer, _): return Shape.integer.problems(value, at: path)
        case (.string, _): return Shape.string.problems(value, at: path)
        case (.timestamp, _): return Shape.timestamp.problems(value, at: path)
        case (.oneOf(let options), _): return Shape.oneOf(options).problems(value, at: path)
        default: return ["\(path): \(value) does not match \(self)"]
        }
    }
}

func expectShape(_ shape: XShape, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let problems = shape.problems(try RawJSON.parse(text))
    #expect(problems.isEmpty, "\(problems.prefix(5))", sourceLocation: sourceLocation)
}

enum BacktestShapes {
    static let openPosition = XShape.object([
        ("symbol", .string), ("entryTime", .timestamp), ("entryPrice", .number), ("currentPrice", .number),
        ("shares", .number), ("marketValue", .number), ("unrealizedPnL", .number),
    ])

    static let backtestConfig = XShape.object([
        ("strategy", .oneOf(["sentio", "rsi", "buy-and-hold", "dca"])), ("paths", .array(.string)),
        ("database", .nullable(.string)), ("from", .nullable(.timestamp)), ("to", .nullable(.timestamp)),
        ("symbols", .array(.string)), ("initialCapital", .number), ("commissionRate", .number),
        ("feePerOrder", .number), ("slippageBasisPoints", .number), ("fill", .oneOf(["next-open", "close"])),
        ("sizing", .oneOf(["all-in", "equal-weight", "fraction"])), ("maxPositions", .nullable(.integer)),
        ("fraction", .nullable(.number)), ("fractionalShares", .bool), ("stopLossPercent", .nullable(.number)),
        ("takeProfitPercent", .nullable(.number)), ("stopReference", .oneOf(["decision-close", "entry-price"])),
        ("rsiPeriod", .nullable(.integer)), ("rsiLower", .nullable(.number)), ("rsiUpper", .nullable(.number)),
        ("amount", .nullable(.number)), ("every", .nullable(.oneOf(["week", "month"]))),
        ("currency", .nullable(.string)), ("fx", .nullable(.string)), ("signalModel", .nullable(.anyObject)),
    ])

    static let conventions = XShape.object([
        ("periodsPerYear", .number), ("periodsPerYearSource", .string), ("riskFreeRate", .number), ("ddof", .integer),
        ("returns", .string), ("sharpeRatio", .string), ("cagr", .string), ("maxDrawdown", .string),
        ("profitFactor", .string), ("moneyWeightedReturn", .string), ("fills", .string), ("stops", .string),
        ("openPositions", .string), ("timestamps", .string),
    ])

    static func currencyPair(_ investor: String, nullable: Bool = false) -> XShape {
        .object([(investor, nullable ? .nullable(.number) : .number), ("USD", nullable ? .nullable(.number) : .number)])
    }

    static func currency(_ investor: String) -> XShape {
        .object([
            ("investorCurrency", .string), ("assetCurrency", .oneOf(["USD"])), ("fxFile", .string),
            ("barsWithPreviousRate", .integer), ("executions", .integer), ("invested", currencyPair(investor)),
            ("value", currencyPair(investor)), ("timeWeightedReturnPercent", currencyPair(investor)),
            ("moneyWeightedReturnPercent", currencyPair(investor, nullable: true)), ("fxEffectPercent", .number),
        ])
    }

    static let benchmark = XShape.object([
        ("symbol", .string), ("totalReturnPercent", .number), ("cagrPercent", .number), ("alpha", .number),
        ("beta", .number), ("correlation", .nullable(.number)), ("informationRatio", .nullable(.number)),
        ("trackingErrorPercent", .number), ("commonBars", .integer), ("start", .timestamp), ("end", .timestamp),
        ("periodsPerYear", .number), ("periodsPerYearSource", .string),
    ])

    /// The summary; `investorCurrency` non-nil for a run in an investor currency (`currency` an object);
    /// `benchmark` false when the summary has none (`null`).
    static func backtestSummary(investorCurrency: String? = nil, benchmark hasBenchmark: Bool = true) -> XShape {
        let n = XShape.nullable(.number)
        return .object([
            ("strategy", .oneOf(["sentio", "rsi", "buy-and-hold", "dca"])), ("symbols", .array(.string)),
            ("start", .timestamp), ("end", .timestamp), ("bars", .integer), ("initialCapital", .number),
            ("totalContributions", .number), ("finalEquity", .number), ("finalCash", .number),
            ("totalReturnPercent", .number), ("timeWeightedReturnPercent", .number), ("moneyWeightedReturnPercent", n),
            ("cagrPercent", n), ("annualizedVolatilityPercent", n), ("sharpeRatio", n), ("sortinoRatio", n),
            ("calmarRatio", n), ("maxDrawdownPercent", .number), ("maxDrawdownDurationBars", .integer),
            ("maxDrawdownDurationDays", .number), ("tradeCount", .integer), ("openPositionCount", .integer),
            ("winRatePercent", n), ("profitFactor", n), ("averageTradePercent", n), ("bestTradePercent", n),
            ("worstTradePercent", n), ("averageHoldingBars", n), ("averageHoldingDays", n), ("exposurePercent", .number),
            ("commissionsPaid", .number), ("sqn", n), ("orderCount", .integer), ("rejectedOrderCount", .integer),
            ("rejectionsByReason", .integerMap), ("openPositions", .array(openPosition)),
            ("currency", investorCurrency.map(currency) ?? .null), ("benchmark", hasBenchmark ? benchmark : .null),
            ("warnings", .array(.object([("code", .string), ("message", .string)]))),
            ("config", backtestConfig), ("conventions", conventions),
        ])
    }
}
