import SentioCore

/// SentioFunds' XIRR as the backtest's money-weighted-return function (SentioBacktest does not depend on
/// SentioFunds; front ends and the benchmarks pass this in: `BacktestStatistics(result, moneyWeightedReturn:
/// BacktestMoneyWeightedReturn.xirr(_:))`).
public enum BacktestMoneyWeightedReturn {
    /// The XIRR (Actual/365 Fixed, as pyxirr and Excel) of dated flows, as a rate per year (0.1 = 10 %); each
    /// flow's date is the UTC calendar date of its time. `nil` when SentioFunds finds no certified root (no sign
    /// change, a single date): the money-weighted return is then undefined (`null`), not 0.
    public static func xirr(_ flows: [(time: Int64, amount: Double)]) -> Double? {
        let dated = flows.map { CashFlow(date: CivilDate(epochSeconds: $0.time), amount: $0.amount) }
        return try? SentioFunds.xirr(flows: dated).rate
    }
}
