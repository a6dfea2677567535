import SentioCore

/// When ``RebalanceStrategy`` trades back to its weights.
public enum RebalanceSchedule: Sendable, Equatable {
    /// At each symbol's first bar of every ISO week, calendar month or calendar quarter (UTC).
    case every(RebalancePeriod)
    /// Whenever a symbol's weight drifts more than `band` (weight units: 0.05 = 5 points) from its target.
    case drift(band: Double)
}

/// A calendar period of ``RebalanceSchedule/every(_:)``.
public enum RebalancePeriod: String, Sendable, CaseIterable, Codable {
    case week, month, quarter

    /// A number that changes exactly when a new period starts (UTC; weeks start on Monday).
    public func periodKey(epochSeconds: Int64) -> Int {
        switch self {
        case .week: ContributionPeriod.week.periodKey(epochSeconds: epochSeconds)
        case .month: ContributionPeriod.month.periodKey(epochSeconds: epochSeconds)
        case .quarter: Int(floorDivide(Int64(ContributionPeriod.month.periodKey(epochSeconds: epochSeconds)), 3))
        }
    }
}

/// Holds fixed weights (`TQQQ=0.6,SQQQ=0.4`) and trades back to them on a calendar schedule or when they drift:
/// its decisions are ``Decision/targetWeight(_:tolerance:)`` (the simulator sizes and fills them at the next open,
/// sells before buys, with the configuration's costs). The first bar of each symbol always trades to its weight.
/// Symbols not listed are held at weight 0 (sold if held). Weights are in [0, 1] and sum to at most 1 (the rest
/// stays in cash).
public struct RebalanceStrategy: Strategy, Codable, Sendable {
    /// Target weight by symbol name.
    public var weights: [String: Double]
    public var schedule: RebalanceSchedule
    private var targets: [Double] = []
    private var lastPeriod: [Int] = []

    /// - Throws: `BacktestError` for a weight outside [0, 1], weights summing above 1, no weight, or a drift band
    ///   outside (0, 1).
    public init(weights: [String: Double], schedule: RebalanceSchedule) throws {
        guard !weights.isEmpty else { throw BacktestError("rebalance needs at least one weight") }
        for (symbol, w) in weights.sorted(by: { $0.key < $1.key }) where !(w >= 0 && w <= 1) {
            throw BacktestError("rebalance weight of \(symbol) must be in [0, 1], got \(w)")
        }
        let total = weights.values.reduce(0, +)
        guard total <= 1 + 1e-12 else { throw BacktestError("rebalance weights sum to \(total), more than 1") }
        if case .drift(let band) = schedule, !(band > 0 && band < 1) {
            throw BacktestError("rebalance drift band must be in (0, 1), got \(band)")
        }
        self.weights = weights
        self.schedule = schedule
    }

    public var name: String { "rebalance" }

    /// `rebalance.weights` (`A=0.6,B=0.4`, sorted by symbol, shortest round-trip doubles) and `rebalance.every`
    /// (`week`, `month`, `quarter`, or `drift:BAND`).
    public var settings: [(key: String, value: String)] {
        let every: String
        switch schedule {
        case .every(let p): every = p.rawValue
        case .drift(let band): every = "drift:\(band)"
        }
        return [("rebalance.weights", Self.format(weights)), ("rebalance.every", every)]
    }

    /// `A=0.6,B=0.4`, sorted by symbol.
    public static func format(_ weights: [String: Double]) -> String {
        weights.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }

    /// Reads `A=0.6,B=0.4`.
    /// - Throws: `BacktestError` naming the item that is not `SYMBOL=WEIGHT` or a symbol given twice.
    public static func parseWeights(_ text: String) throws -> [String: Double] {
        var out: [String: Double] = [:]
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, let w = Double(parts[1]) else {
                throw BacktestError("rebalance weights: \"\(item)\" is not SYMBOL=WEIGHT (e.g. TQQQ=0.6,SQQQ=0.4)")
            }
            guard out[String(parts[0])] == nil else { throw BacktestError("rebalance weights: \(parts[0]) is given twice") }
            out[String(parts[0])] = w
        }
        return out
    }

    /// Reads `week`, `month`, `quarter` or `drift:BAND`.
    public static func parseSchedule(_ text: String) throws -> RebalanceSchedule {
        if let p = RebalancePeriod(rawValue: text) { return .every(p) }
        if text.hasPrefix("drift:"), let band = Double(text.dropFirst(6)) { return .drift(band: band) }
        throw BacktestError("rebalance schedule must be week, month, quarter or drift:BAND, got \(text)")
    }

    /// - Throws: `BacktestError` for a weighted symbol that is not among `symbols`.
    public mutating func start(symbols: [String]) throws {
        for w in weights.keys.sorted() where !symbols.contains(w) {
            throw BacktestError("unknown symbol \(w) for rebalance; available: \(symbols.joined(separator: ", "))")
        }
        targets = symbols.map { weights[$0] ?? 0 }
        lastPeriod = Array(repeating: Int.min, count: symbols.count)
    }

    public mutating func observe(symbol: Int, bar: Bar) {}

    public mutating func decide(_ context: DecisionContext) -> Decision {
        let s = context.symbol
        let first = lastPeriod[s] == Int.min
        switch schedule {
        case .every(let period):
            let key = period.periodKey(epochSeconds: context.timestamp)
            guard key != lastPeriod[s] else { return .hold }
            lastPeriod[s] = key
            return .targetWeight(targets[s])
        case .drift(let band):
            lastPeriod[s] = 0
            return .targetWeight(targets[s], tolerance: first ? 0 : band)
        }
    }
}

extension RebalanceSchedule: Codable {
    private enum CodingKeys: String, CodingKey { case every, band }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let band = try c.decodeIfPresent(Double.self, forKey: .band) {
            self = .drift(band: band)
        } else {
            self = .every(try c.decode(RebalancePeriod.self, forKey: .every))
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .every(let p): try c.encode(p, forKey: .every)
        case .drift(let band): try c.encode(band, forKey: .band)
        }
    }
}
