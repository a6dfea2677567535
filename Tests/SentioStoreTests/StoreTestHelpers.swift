import Foundation
import SentioCore
import SentioTestSupport
@testable import SentioStore

/// A fresh database path in its own temporary directory.
func temporaryDatabasePath(_ label: String = "store") throws -> String {
    try temporaryDirectory("sentio-\(label)").appendingPathComponent("test.sqlite").path
}

/// A random-walk minute series with consistent OHLC, seeded.
func randomSeries(symbol: String, count: Int, start: Int64 = 1_700_000_000, step: Int64 = 60, seed: UInt64) -> OHLCVSeries {
    var rng = SplitMix64(seed: seed)
    var series = OHLCVSeries(symbol: symbol)
    series.reserveCapacity(count)
    var price = 100.0
    for i in 0..<count {
        let open = price
        price *= 1 + 0.001 * rng.nextGaussian()
        let close = price
        let high = max(open, close) * (1 + 0.0005 * abs(rng.nextGaussian()))
        let low = min(open, close) * (1 - 0.0005 * abs(rng.nextGaussian()))
        let volume = Double(Int.random(in: 100...10_000, using: &rng))
        series.append(timestamp: start + Int64(i) * step, open: open, high: high, low: low, close: close, volume: volume)
    }
    return series
}

/// Bit-exact column comparison (the store must give back exactly what it was given).
func sameBits(_ a: OHLCVSeries, _ b: OHLCVSeries) -> Bool {
    func bits(_ x: [Double]) -> [UInt64] { x.map(\.bitPattern) }
    return a.symbol == b.symbol && a.timestamps == b.timestamps && bits(a.open) == bits(b.open)
        && bits(a.high) == bits(b.high) && bits(a.low) == bits(b.low) && bits(a.close) == bits(b.close)
        && bits(a.volume) == bits(b.volume)
}
