import SentioCore

/// A sign that a run is degenerate: its numbers are right, but probably not what was meant. Front ends print
/// each on standard error and list them in the summary's `warnings`.
public struct BacktestWarning: Sendable, Equatable {
    /// A stable identifier: `commissions-high`, `rejections-exceed-fills`, `benchmark-unavailable`.
    public var code: String
    /// One sentence with the figures.
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The share of the money put in (initial capital plus deposits) above which the commissions paid are
    /// reported: 0.10 (a fraction: 10 %).
    public static let commissionShareLimit = 0.10

    /// The warnings of a finished run.
    ///
    /// - `commissions-high`: commissions and fees paid exceed ``commissionShareLimit`` of initial capital plus
    ///   deposits;
    /// - `rejections-exceed-fills`: more orders were rejected than filled (the reasons are counted in the
    ///   summary's `rejectionsByReason`).
    /// - Parameters:
    ///   - result: the finished backtest.
    ///   - statistics: its statistics.
    public static func of(_ result: BacktestResult, statistics: BacktestStatistics) -> [BacktestWarning] {
        var out: [BacktestWarning] = []
        let invested = statistics.initialCapital + statistics.totalContributions
        if invested > 0, statistics.commissionsPaid > commissionShareLimit * invested {
            let share = statistics.commissionsPaid / invested * 100
            out.append(BacktestWarning(
                code: "commissions-high",
                message: "commissions and fees paid (\(rounded(statistics.commissionsPaid))) are \(rounded(share, 1)) % of the "
                    + "money put in (\(rounded(invested))), above the \(rounded(commissionShareLimit * 100, 0)) % warning level"))
        }
        let rejected = statistics.rejectedOrderCount
        let filled = statistics.orderCount - rejected
        if rejected > filled {
            out.append(BacktestWarning(
                code: "rejections-exceed-fills",
                message: "\(rejected) orders were rejected and \(filled) filled; see rejectionsByReason"))
        }
        return out
    }

    /// The default benchmark could not be compared (the reason is the `BenchmarkError`'s description).
    public static func benchmarkUnavailable(_ error: BenchmarkError) -> BacktestWarning {
        BacktestWarning(code: "benchmark-unavailable", message: "no benchmark statistics: \(error.description)")
    }

    private static func rounded(_ x: Double, _ digits: Int = 2) -> String {
        var s = String(Int64((abs(x) * pow10(digits)).rounded()))
        if digits > 0 {
            while s.count <= digits { s = "0" + s }
            s.insert(".", at: s.index(s.endIndex, offsetBy: -digits))
        }
        return (x < 0 ? "-" : "") + s
    }

    private static func pow10(_ n: Int) -> Double { (0..<n).reduce(1.0) { acc, _ in acc * 10 } }
}
