import Foundation
import SentioCore
import SentioData
import SentioTestSupport

/// The daily GOOG series shipped with backtesting.py (real market data), as committed for the indicator goldens.
func googSeries() throws -> OHLCVSeries {
    try OHLCVReader.read(path: fixturePath("indicators/goog_ohlcv.csv"), options: ReadOptions(symbol: "GOOG"))
}

/// A seeded random-walk OHLCV series with random volumes (occasionally zero) and random wicks.
func randomSeries(symbol: String, bars: Int, seed: UInt64) -> OHLCVSeries {
    var rng = SplitMix64(seed: seed)
    var series = OHLCVSeries(symbol: symbol)
    var close = 50 + 50 * Double.random(in: 0..<1, using: &rng)
    let volatility = 0.005 + 0.03 * Double.random(in: 0..<1, using: &rng)
    for i in 0..<bars {
        let open = close * exp(volatility * 0.3 * rng.nextGaussian())
        close = open * exp(volatility * rng.nextGaussian())
        let high = max(open, close) * (1 + abs(volatility * 0.5 * rng.nextGaussian()))
        let low = min(open, close) * (1 - min(0.5, abs(volatility * 0.5 * rng.nextGaussian())))
        let volume = Double.random(in: 0..<1, using: &rng) < 0.02 ? 0 : (1e5 * exp(0.5 * rng.nextGaussian())).rounded()
        series.append(timestamp: 1_600_000_000 + Int64(i) * 86_400, open: open, high: high, low: low, close: close, volume: volume)
    }
    return series
}

/// The synthetic leveraged-ETF market of SentioData (the generator behind Data/market).
func generatedMarket(symbols: Int, bars: Int, seed: UInt64) throws -> [OHLCVSeries] {
    try MarketGenerator(config: MarketConfig(symbols: MarketConfig.firstSymbols(symbols), bars: bars, seed: seed)).generate()
}

/// The committed sample market `Data/market`, or `nil` when this checkout does not have it yet.
func sampleMarket() throws -> [OHLCVSeries]? {
    let directory = repositoryRoot.appendingPathComponent("Data/market").path
    guard FileManager.default.fileExists(atPath: directory) else { return nil }
    return try OHLCVReader.readDirectory(directory)
}
