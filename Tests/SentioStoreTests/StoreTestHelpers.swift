import Foundation
import SentioCore
import SentioTestSupport
@testable import SentioStore

/// A fresh database path in its own temporary directory.
func temporaryDatabasePath(_ label: String = "store") throws -> String {
    try temporaryDirectory("sentio-\(label)").appendingPathComponent("test.sqlite").path
}

/// Bit-exact column comparison (the store must give back exactly what it was given).
func sameBits(_ a: OHLCVSeries, _ b: OHLCVSeries) -> Bool {
    func bits(_ x: [Double]) -> [UInt64] { x.map(\.bitPattern) }
    return a.symbol == b.symbol && a.timestamps == b.timestamps && bits(a.open) == bits(b.open)
        && bits(a.high) == bits(b.high) && bits(a.low) == bits(b.low) && bits(a.close) == bits(b.close)
        && bits(a.volume) == bits(b.volume)
}
