import Foundation
import SentioCore
import SentioData
import SentioTestSupport

/// The daily GOOG series shipped with backtesting.py (real market data), as committed for the indicator goldens.
func googSeries() throws -> OHLCVSeries {
    try OHLCVReader.read(path: fixturePath("indicators/goog_ohlcv.csv"), options: ReadOptions(symbol: "GOOG"))
}

/// A seeded daily random walk with a random level and volatility, random wicks and volumes (occasionally zero):
/// SentioTestSupport's walk `.dailyWithRandomVolatility`, one bar a day from 2020-09-13 12:26:40 UTC.
func randomSeries(symbol: String, bars: Int, seed: UInt64) -> OHLCVSeries {
    SentioTestSupport.randomSeries(symbol: symbol, count: bars, start: 1_600_000_000, step: 86_400, seed: seed, walk: .dailyWithRandomVolatility)
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
