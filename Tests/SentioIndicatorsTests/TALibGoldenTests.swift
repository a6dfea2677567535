import Foundation
import SentioCore
import SentioIndicators
import SentioTestSupport
import Testing

/// Every function of the TA-Lib set against TA-Lib 0.8.1's C library (Python `TA-Lib` 0.8.2) on backtesting.py's GOOG,
/// EURUSD and BTCUSD and a synthetic series with jumps, flat stretches and volume spikes
/// (`Tests/Fixtures/indicators/generate_talib.py`): bit for bit, NaN positions included, except where the catalog
/// says otherwise (``smaSmoothed``).
@Suite("TA-Lib functions vs TA-Lib 0.8.1, bit for bit")
struct TALibGoldenTests {
    static let series: [(name: String, ohlcv: String)] = [
        ("goog", "evaluate/GOOG.csv"), ("eurusd", "evaluate/EURUSD.csv"), ("btcusd", "evaluate/BTCUSD.csv"),
        ("synthetic", "indicators/talib_synthetic_ohlcv.csv"),
    ]

    /// Stochastic lines smoothed by an SMA: Sentio's SMA keeps TA-Lib's running sum only while it is accurate to
    /// 1e-12 of the window's Σ|x| and re-sums the window exactly otherwise (the SMA's exactness rule). TA-Lib's sum
    /// drifts on windows of %K values near 0 (flat stretches: %K is 0) — it prints −7.7e-15 where the window's exact
    /// mean is 0 — and keeps that offset afterwards, so these columns agree to 1e-11 absolute (the oscillators run
    /// over 0…100) rather than bit for bit; every other column, and these wherever TA-Lib's sum had not drifted, bit
    /// for bit.
    static let smaSmoothed: Set<String> = ["stoch_slowk", "stoch_slowd", "stochf_fastd", "stochrsi_fastd"]

    static func bars(_ path: String) throws -> OHLCVSeries {
        let c = try loadNumericCSV(path)
        return OHLCVSeries(symbol: path, timestamps: c["timestamp"]!.map { Int64($0) }, open: c["open"]!, high: c["high"]!,
                           low: c["low"]!, close: c["close"]!, volume: c["volume"]!)
    }

    /// The fixture's columns: name → values (raw little-endian doubles, column after column).
    static func reference(_ name: String, rows: Int) throws -> [(String, [Double])] {
        let names = try fixtureText("indicators/talib_\(name).columns").split(separator: "\n").map(String.init)
        let data = try Data(contentsOf: URL(fileURLWithPath: fixturePath("indicators/talib_\(name).f64")))
        #expect(data.count == names.count * rows * 8, "\(name): fixture size")
        var columns: [(String, [Double])] = []
        data.withUnsafeBytes { raw in
            for (k, column) in names.enumerated() {
                var values = [Double](repeating: 0, count: rows)
                for i in 0..<rows {
                    values[i] = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: (k * rows + i) * 8, as: UInt64.self)))
                }
                columns.append((column, values))
            }
        }
        return columns
    }

    /// `macd_macdsignal@fastperiod=8` → (function MACD, parameters, output index).
    static func call(_ column: String) throws -> (TAFunction, Int) {
        let parts = column.split(separator: "@").map(String.init)
        var parameters: [String: Double] = [:]
        for assignment in parts.dropFirst() {
            let kv = assignment.split(separator: "=")
            parameters[String(kv[0])] = Double(String(kv[1]))!
        }
        let base = parts[0]
        // The longest function name that prefixes the column (LINEARREG_SLOPE before LINEARREG).
        let descriptor = TAFunction.all.filter { base == $0.name.lowercased() || base.hasPrefix($0.name.lowercased() + "_") }
            .max { $0.name.count < $1.name.count }!
        let function = try TAFunction(descriptor.name, parameters: parameters)
        let output = function.columnNames.firstIndex(of: base)!
        return (function, output)
    }

    @Test("every function, every series", arguments: ["goog", "eurusd", "btcusd", "synthetic"])
    func matchesTALib(name: String) throws {
        let series = Self.series.first { $0.name == name }!
        let bars = try Self.bars(series.ohlcv)
        let columns = try Self.reference(series.name, rows: bars.count)
        #expect(columns.count >= TAFunction.all.count, "every function has a fixture column")
        var covered = Set<String>()
        for (column, expected) in columns {
            let (function, output) = try Self.call(column)
            covered.insert(function.descriptor.name)
            let ours = try function.compute(bars)[output]
            let firstNumber = expected.firstIndex { !$0.isNaN } ?? expected.count
            #expect(ours.firstValidIndex == min(function.lookback, bars.count), "\(series.name) \(column): lookback")
            #expect(firstNumber == min(function.lookback, bars.count), "\(series.name) \(column): TA-Lib's first value at the lookback")
            var mismatches: [Int] = []
            for i in 0..<bars.count {
                let a = ours.values[i], b = expected[i]
                if a.isNaN && b.isNaN { continue }
                if Self.smaSmoothed.contains(String(column.split(separator: "@")[0])) && !column.contains("matype=1") {
                    if !(abs(a - b) <= 1e-11) { mismatches.append(i) }
                } else if a.bitPattern != b.bitPattern {
                    mismatches.append(i)
                }
            }
            if let first = mismatches.first {
                Issue.record("\(series.name) \(column): \(mismatches.count) of \(bars.count) values differ; first at \(first): \(ours.values[first]) vs TA-Lib \(expected[first])")
            }
        }
        #expect(covered == Set(TAFunction.all.map(\.name)), "fixture covers every function")
    }
}
