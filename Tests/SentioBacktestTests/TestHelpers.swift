import Foundation
import SentioBacktest
import SentioCore
import SentioTestSupport

/// A strategy that replays decisions given per (symbol index, bar index).
struct ScriptedStrategy: Strategy {
    var script: [Int: [Int: Decision]]
    var name: String { "scripted" }
    mutating func start(symbols: [String]) throws {}
    mutating func observe(symbol: Int, bar: Bar) {}
    mutating func decide(_ context: DecisionContext) -> Decision {
        script[context.symbol]?[context.bar] ?? .hold
    }
}

/// Records every decision a wrapped strategy takes, for look-ahead tests.
struct RecordingStrategy<Base: Strategy>: Strategy {
    var base: Base
    var log: [(step: Int, symbol: Int, bar: Int, decision: Decision)] = []
    var name: String { base.name }
    mutating func prepare(market: Market) throws -> StrategyPreparation { try base.prepare(market: market) }
    mutating func start(symbols: [String]) throws { try base.start(symbols: symbols) }
    mutating func observe(symbol: Int, bar: Bar) { base.observe(symbol: symbol, bar: bar) }
    mutating func decide(_ context: DecisionContext) -> Decision {
        let d = base.decide(context)
        log.append((context.step, context.symbol, context.bar, d))
        return d
    }
}

/// A daily series from rows of (open, high, low, close), starting 2024-01-01 (one bar per day).
func dailySeries(_ symbol: String, _ rows: [(Double, Double, Double, Double)], startDay: Int = 19_723, dayStride: Int = 1) -> OHLCVSeries {
    var s = OHLCVSeries(symbol: symbol)
    for (i, r) in rows.enumerated() {
        s.append(timestamp: Int64(startDay + i * dayStride) * 86_400, open: r.0, high: r.1, low: r.2, close: r.3, volume: 1000)
    }
    return s
}

/// Flat bars at `price` (open = high = low = close).
func flat(_ price: Double, count: Int) -> [(Double, Double, Double, Double)] {
    Array(repeating: (price, price, price, price), count: count)
}

/// The GOOG daily series written by generate_backtest.py, and TA-Lib's RSI(14) of its close.
func loadGOOG() throws -> (series: OHLCVSeries, talibRSI: [Double]) {
    let columns = try loadNumericCSV("backtest/goog_daily.csv")
    let ts = columns["timestamp"]!.map { Int64($0) }
    let series = OHLCVSeries(
        symbol: "GOOG", timestamps: ts, open: columns["open"]!, high: columns["high"]!, low: columns["low"]!,
        close: columns["close"]!, volume: columns["volume"]!)
    return (series, columns["talibRsi14"]!)
}

/// An RSI provider that returns TA-Lib's values from the fixture (first valid index 14 for period 14).
func fixtureRSIProvider(_ values: [Double]) -> IndicatorProvider {
    { close, period in
        precondition(close.count == values.count && period == 14)
        return IndicatorSeries(values: values, firstValidIndex: 14)
    }
}


/// A random-walk market of `symbols` symbols with some missing bars, seeded: SentioTestSupport's walk
/// `.gappedDaily`, one bar a day from 2022-01-08.
func randomMarket(symbols: Int, bars: Int, seed: UInt64, dropProbability: Double = 0.1) throws -> Market {
    try Market(randomMarketSeries(
        symbols: symbols, bars: bars, start: 19_000 * 86_400, seed: seed, walk: .gappedDaily(dropProbability: dropProbability)))
}

/// An XIRR written for the tests, independent of SentioFunds (which SentioBacktest no longer depends on):
/// bisection on the NPV (Actual/365 Fixed over UTC calendar days) between −99.99 % and +10⁶ % a year.
/// `nil` without a sign change of the NPV over that bracket.
func referenceXIRR(_ flows: [(time: Int64, amount: Double)]) -> Double? {
    guard let t0 = flows.map(\.time).min() else { return nil }
    func npv(_ rate: Double) -> Double {
        flows.reduce(0.0) { sum, flow in
            let years = Double(floorDivide(flow.time, 86_400) - floorDivide(t0, 86_400)) / 365
            return sum + flow.amount / pow(1 + rate, years)
        }
    }
    var lo = -0.9999, hi = 10_000.0
    var fLo = npv(lo)
    guard fLo.sign != npv(hi).sign else { return nil }
    for _ in 0..<300 {
        let mid = (lo + hi) / 2
        let fMid = npv(mid)
        if fMid.sign == fLo.sign { lo = mid; fLo = fMid } else { hi = mid }
    }
    return (lo + hi) / 2
}
