import Foundation
import SentioCore

/// A random market with corporate actions, in two equivalent forms: raw (unadjusted) prices with the actions applied
/// to holdings, and back-adjusted prices with the dividends per adjusted share (see the property tests of
/// SentioBacktestTests' `CorporateActionPropertyTests`, and the live = backtest tests that use it).
public struct CorporateActionCase: Sendable {
    /// Unadjusted prices (the splits in them).
    public var raw: [OHLCVSeries]
    /// The same prices back-adjusted for the splits.
    public var adjusted: [OHLCVSeries]
    /// The actions on `raw`: shares × ratio at each split, the dividend per raw share.
    public var rawActions: [String: [HoldingAdjustment]]
    /// The actions on `adjusted`: the dividends per adjusted share.
    public var adjustedActions: [String: [HoldingAdjustment]]
}

extension CorporateActionCase {
    /// A random market of 1–3 symbols (daily bars, all on the same days) with 0–6 random splits (ratios 2, 3, 3/2,
    /// 4, 5, 10 and their inverses) and 0–6 random dividends each.
    public static func random(_ rng: inout SplitMix64) -> CorporateActionCase {
        let ratios: [Double] = [2, 3, 1.5, 4, 5, 10, 1.0 / 2, 1.0 / 3, 2.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 10]
        let symbolCount = Int.random(in: 1...3, using: &rng)
        let bars = Int.random(in: 40...260, using: &rng)
        let start: Int64 = 19_000 * 86_400
        var c = CorporateActionCase(raw: [], adjusted: [], rawActions: [:], adjustedActions: [:])
        for k in 0..<symbolCount {
            let symbol = "S\(k)"
            // Adjusted prices: a random walk; raw = adjusted × the product of the later splits' ratios.
            var adjusted = OHLCVSeries(symbol: symbol)
            var price = Double.random(in: 5...500, using: &rng)
            for i in 0..<bars {
                let open = price * exp(0.01 * rng.nextGaussian())
                let close = open * exp(0.02 * rng.nextGaussian())
                let high = max(open, close) * (1 + Double.random(in: 0...0.01, using: &rng))
                let low = min(open, close) * (1 - Double.random(in: 0...0.01, using: &rng))
                adjusted.append(timestamp: start + Int64(i) * 86_400, open: open, high: high, low: low, close: close, volume: 1_000)
                price = close
            }
            let splitCount = Int.random(in: 0...6, using: &rng)
            var splitBars = Set<Int>()
            for _ in 0..<splitCount { splitBars.insert(Int.random(in: 1..<bars, using: &rng)) }
            var ratioAt: [Int: Double] = [:]
            for b in splitBars { ratioAt[b] = ratios.randomElement(using: &rng)! }
            var dividendAt: [Int: Double] = [:]  // per raw share of that bar
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                dividendAt[Int.random(in: 1..<bars, using: &rng)] = Double.random(in: 0.001...0.03, using: &rng)
            }
            // Factor of bar i: product of the ratios of the splits at bars > i.
            var factor = [Double](repeating: 1, count: bars)
            var running = 1.0
            for i in stride(from: bars - 1, through: 0, by: -1) {
                factor[i] = running
                if let r = ratioAt[i] { running *= r }
            }
            var raw = OHLCVSeries(symbol: symbol)
            for i in 0..<bars {
                let f = factor[i]
                raw.append(timestamp: adjusted.timestamps[i], open: adjusted.open[i] * f, high: adjusted.high[i] * f,
                           low: adjusted.low[i] * f, close: adjusted.close[i] * f, volume: 1_000 / f)
            }
            var rawActions: [HoldingAdjustment] = [], adjustedActions: [HoldingAdjustment] = []
            for i in 1..<bars where ratioAt[i] != nil || dividendAt[i] != nil {
                let t = adjusted.timestamps[i]
                // The dividend in money per raw share of bar i: the adjusted dividend times the raw/adjusted factor.
                let perRaw = (dividendAt[i] ?? 0) * raw.close[i - 1] / 10
                rawActions.append(HoldingAdjustment(time: t, shareMultiplier: ratioAt[i] ?? 1, cashPerShare: perRaw))
                if dividendAt[i] != nil {
                    adjustedActions.append(HoldingAdjustment(time: t, shareMultiplier: 1, cashPerShare: perRaw / factor[i]))
                }
            }
            c.raw.append(raw)
            c.adjusted.append(adjusted)
            c.rawActions[symbol] = rawActions
            c.adjustedActions[symbol] = adjustedActions
        }
        return c
    }
}
