import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioData

@Suite("MarketGenerator")
struct MarketGeneratorTests {
    func market(
        symbols: [String]? = nil, bars: Int = 300, frequency: BarFrequency = .daily, seed: UInt64 = 42
    ) throws -> MarketGenerator {
        try MarketGenerator(config: MarketConfig(symbols: symbols, bars: bars, frequency: frequency, seed: seed))
    }

    @Test func defaultUniverseIsTwelveEtfsInSixPairs() throws {
        let series = try market(bars: 10).generate()
        #expect(series.map(\.symbol) == ["TQQQ", "SQQQ", "SOXL", "SOXS", "SPXL", "SPXS", "TNA", "TZA", "FAS", "FAZ", "LABU", "LABD"])
        #expect(series.allSatisfy { $0.count == 10 })
        #expect(MarketConfig.firstSymbols(3) == ["TQQQ", "SQQQ", "SOXL"])
    }

    @Test func sameSeedSameBytesDifferentSeedDifferentData() throws {
        let first = try temporaryDirectory(), second = try temporaryDirectory(), third = try temporaryDirectory()
        let paths = try market(bars: 200).write(to: first.path)
        _ = try market(bars: 200).write(to: second.path)
        _ = try market(bars: 200, seed: 43).write(to: third.path)
        for path in paths {
            let name = (path as NSString).lastPathComponent
            let a = try Data(contentsOf: URL(fileURLWithPath: path))
            let b = try Data(contentsOf: second.appendingPathComponent(name))
            let c = try Data(contentsOf: third.appendingPathComponent(name))
            #expect(a == b, "\(name) differs between two runs with the same seed")
            #expect(a != c, "\(name) is the same for seeds 42 and 43")
        }
    }

    @Test func aSymbolDoesNotDependOnWhichOthersAreRequested() throws {
        let all = try market(bars: 100).generate()
        let subset = try market(symbols: ["LABD", "SQQQ"], bars: 100).generate()
        #expect(subset[0] == all[11])
        #expect(subset[1] == all[1])
    }

    func expectValidBars(_ series: OHLCVSeries, sourceLocation: SourceLocation = #_sourceLocation) {
        for i in 0..<series.count {
            let o = series.open[i], h = series.high[i], l = series.low[i], c = series.close[i], v = series.volume[i]
            let ok = l > 0 && l <= min(o, c) && max(o, c) <= h && v >= 1 && v == v.rounded()
                && (i == 0 || series.timestamps[i] > series.timestamps[i - 1])
            if !ok {
                Issue.record("\(series.symbol) bar \(i): o \(o) h \(h) l \(l) c \(c) v \(v)", sourceLocation: sourceLocation)
                return
            }
        }
    }

    @Test(arguments: [BarFrequency.daily, .minute])
    func ohlcInvariantsPositivePricesIntegerVolumes(frequency: BarFrequency) throws {
        for seed: UInt64 in [1, 2, 3] {
            for series in try market(bars: frequency == .daily ? 2_000 : 5_000, frequency: frequency, seed: seed).generate() {
                expectValidBars(series)
            }
        }
    }

    @Test func dailyBarsSkipWeekendsAtMidnightUtc() throws {
        let series = try MarketGenerator(config: MarketConfig(symbols: ["TQQQ"], bars: 10, start: CivilDate(year: 2023, month: 1, day: 7)!)).generate()[0]
        let dates = series.timestamps.map { CivilDate(epochSeconds: $0) }
        #expect(dates.first?.description == "2023-01-09")  // Saturday start moves to Monday
        #expect(dates.allSatisfy { $0.weekday < 5 })
        #expect(series.timestamps.allSatisfy { $0 % 86_400 == 0 })
        #expect(dates[5].description == "2023-01-16")
    }

    @Test func minuteBarsCoverTheSession() throws {
        let series = try market(symbols: ["SPXL"], bars: 391, frequency: .minute).generate()[0]
        #expect(iso8601(epochSeconds: series.timestamps[0]) == "2023-01-02T09:30:00Z")
        #expect(iso8601(epochSeconds: series.timestamps[389]) == "2023-01-02T15:59:00Z")
        #expect(iso8601(epochSeconds: series.timestamps[390]) == "2023-01-03T09:30:00Z")
    }

    /// Daily-reset leverage: close[t] = round(close[t−1] · (1 ± 3 · (U[t]/U[t−1] − 1))), so the difference from
    /// the unrounded product is at most half a unit of the 4th decimal.
    @Test func bullAndBearDailyReturnsAreThreeTimesTheUnderlyings() throws {
        let generator = try market(bars: 3_000, seed: 11)
        for pairIndex in generator.config.universe.indices {
            let generated = generator.generatePair(pairIndex)
            let u = generated.underlyingClose
            var worst = 0.0
            for t in 1..<u.count {
                let underlyingReturn = u[t] / u[t - 1] - 1
                let bullBase = generated.bull.close[t - 1] * (generated.bullReverseSplits.contains(t) ? 10 : 1)
                let bearBase = generated.bear.close[t - 1] * (generated.bearReverseSplits.contains(t) ? 10 : 1)
                worst = max(worst, abs(generated.bull.close[t] - bullBase * (1 + 3 * underlyingReturn)))
                worst = max(worst, abs(generated.bear.close[t] - bearBase * (1 - 3 * underlyingReturn)))
            }
            #expect(worst <= 0.5e-4 * (1 + 1e-9), "\(generated.pair.bull)/\(generated.pair.bear): \(worst)")
            // And not trivially: the underlying actually moves.
            let moves = (1..<u.count).map { abs(u[$0] / u[$0 - 1] - 1) }
            #expect(moves.reduce(0, +) / Double(moves.count) > 0.003)
        }
    }

    @Test func reverseSplitsKeepLongRunsAwayFromZero() throws {
        let generator = try market(bars: 5_000, seed: 11)
        var splits = 0
        for pairIndex in generator.config.universe.indices {
            let generated = generator.generatePair(pairIndex)
            splits += generated.bullReverseSplits.count + generated.bearReverseSplits.count
            for series in [generated.bull, generated.bear] { #expect(series.close.min()! >= 0.1, "\(series.symbol)") }
            for t in generated.bearReverseSplits { #expect(generated.bear.close[t - 1] < 1 && generated.bear.open[t] > 1) }
        }
        #expect(splits > 0)  // 20 years of 3x funds: some must have decayed below $1
    }

    /// An underlying drifting +20 % a day: the bull fund passes $1,000,000 within weeks and the level 2⁶⁰⁰ within
    /// about 2,000 bars. Splits keep every price positive, finite and exact in 4 decimals (before, a 2,000,000-bar
    /// default run wrote prices like 9.23e15 and then `inf`); the daily-reset relation holds across splits and
    /// rescalings.
    @Test(arguments: [BarFrequency.daily, .minute])
    func splitsAndRescalingKeepExplosiveRunsRepresentable(frequency: BarFrequency) throws {
        let rocket = LeveragedPair(
            bull: "UP", bear: "DOWN", underlying: "Rocket", calmVolatility: 0.01, volatileVolatility: 0.02, drift: 0.2,
            bullStartPrice: 10, bearStartPrice: 10, bullVolume: 1e6, bearVolume: 1e6)
        let days = 2_600
        let config = MarketConfig(bars: days * frequency.barsPerDay, frequency: frequency, seed: 5, universe: [rocket])
        let generated = try MarketGenerator(config: config).generatePair(0)
        #expect(generated.bullSplits.count > 10 && generated.bearReverseSplits.count > 10)
        #expect(!generated.underlyingRescales.isEmpty)
        for series in [generated.bull, generated.bear] {
            var outOfRange: [Double] = [], notFourDecimals: [Double] = []
            for column in [series.open, series.high, series.low, series.close] {
                for price in column {
                    if !(price.isFinite && price > 0 && price <= MarketGenerator.splitAbove * 1.75 * (1 + 1e-9)) { outOfRange.append(price) }
                    // The double nearest to k / 10⁴ for an integer k that a double holds exactly.
                    let k = (price * 10_000).rounded()
                    if !(k / 10_000 == price && k < 0x1p53) { notFourDecimals.append(price) }
                }
            }
            #expect(outOfRange.isEmpty, "\(series.symbol): \(outOfRange.prefix(5))")
            #expect(notFourDecimals.isEmpty, "\(series.symbol): \(notFourDecimals.prefix(5))")
        }
        guard frequency == .daily else { return }
        let u = generated.underlyingClose
        var worst = 0.0
        for t in 1..<u.count where !generated.underlyingRescales.contains(t) {
            let r = u[t] / u[t - 1] - 1
            var base = generated.bull.close[t - 1]
            if generated.bullSplits.contains(t) { base = (base / 10 * 10_000).rounded() / 10_000 }
            if generated.bullReverseSplits.contains(t) { base = (base * 10 * 10_000).rounded() / 10_000 }
            // Half a unit of the 4th decimal (the close's rounding), as without splits, plus a few ulps of the
            // price for the rounding's own arithmetic (prices reach 10⁶ here).
            let expected = base * (1 + 3 * r)
            worst = max(worst, abs(generated.bull.close[t] - expected) - 0.5e-4 - 4 * expected.ulp)
        }
        #expect(worst <= 0, "bull close against 3x the underlying's return: \(worst) beyond the rounding")
    }

    /// Minute bars: the leverage resets daily, so the last bar of each day relates to the previous day's last bar.
    @Test func minuteBarsResetLeverageDaily() throws {
        let generator = try market(symbols: ["TQQQ"], bars: 390 * 5, frequency: .minute)
        let generated = generator.generatePair(0)
        for day in 1..<5 {
            let previous = day * 390 - 1, last = day * 390 + 389
            let underlyingReturn = generated.underlyingClose[last] / generated.underlyingClose[previous] - 1
            let expected = generated.bull.close[previous] * (1 + 3 * underlyingReturn)
            #expect(abs(generated.bull.close[last] - expected) <= 0.5e-4 * (1 + 1e-9))
        }
    }

    @Test func volatilityRegimesShowInReturnsAndVolume() throws {
        // Over many days, |returns| are clustered: the autocorrelation of absolute returns is clearly positive.
        let series = try market(symbols: ["SOXL"], bars: 5_000, seed: 3).generate()[0]
        let r = (1..<series.count).map { abs(series.close[$0] / series.close[$0 - 1] - 1) }
        let mean = r.reduce(0, +) / Double(r.count)
        var num = 0.0, den = 0.0
        for t in 1..<r.count { num += (r[t] - mean) * (r[t - 1] - mean) }
        for x in r { den += (x - mean) * (x - mean) }
        #expect(num / den > 0.05)
    }

    @Test func writtenFilesReadBackIdenticalToTheSeries() throws {
        for frequency in [BarFrequency.daily, .minute] {
            let directory = try temporaryDirectory()
            let generator = try market(bars: 800, frequency: frequency)
            let paths = try generator.write(to: directory.path)
            let back = try OHLCVReader.readAll(paths: paths)
            #expect(back == generator.generate())
            let fromDirectory = try OHLCVReader.readDirectory(directory.path)
            #expect(fromDirectory.map(\.symbol) == ["FAS", "FAZ", "LABD", "LABU", "SOXL", "SOXS", "SPXL", "SPXS", "SQQQ", "TNA", "TQQQ", "TZA"])
        }
    }

    @Test func invalidConfigurationsThrow() {
        #expect(throws: MarketConfigError.unknownSymbol("SPY", known: MarketConfig.firstSymbols(12))) {
            try MarketGenerator(config: MarketConfig(symbols: ["SPY"]))
        }
        #expect(throws: MarketConfigError.duplicateSymbol("TNA")) { try MarketGenerator(config: MarketConfig(symbols: ["TNA", "TNA"])) }
        #expect(throws: MarketConfigError.invalidBars(0)) { try MarketGenerator(config: MarketConfig(bars: 0)) }
        #expect(throws: MarketConfigError.noSymbols) { try MarketGenerator(config: MarketConfig(symbols: [])) }
    }

    @Test func xoshiroIsDeterministicAndUniform() {
        var a = Xoshiro256StarStar(seed: 1), b = Xoshiro256StarStar(seed: 1), c = Xoshiro256StarStar(seed: 2)
        let first = (0..<100).map { _ in a.next() }
        #expect(first == (0..<100).map { _ in b.next() })
        #expect(first != (0..<100).map { _ in c.next() })
        var sum = 0.0, sumSquares = 0.0
        let n = 200_000
        for _ in 0..<n {
            let z = a.nextGaussian()
            sum += z
            sumSquares += z * z
        }
        #expect(abs(sum / Double(n)) < 0.01)
        #expect(abs(sumSquares / Double(n) - 1) < 0.02)
    }
}

@Suite("Committed sample market")
struct SampleMarketTests {
    /// `Data/market` must be exactly what its documented command produces, and must pass the strict reader.
    @Test func dataMarketIsReproducibleAndValid() throws {
        let directory = repositoryRoot.appendingPathComponent("Data/market").path
        let committed = try OHLCVReader.readDirectory(directory)
        #expect(committed.count == 12)
        #expect(committed.allSatisfy { $0.count == 504 })

        let generator = try MarketGenerator(config: MarketConfig(bars: 504, seed: 42, start: CivilDate(year: 2023, month: 1, day: 2)!))
        let fresh = try temporaryDirectory()
        for path in try generator.write(to: fresh.path) {
            let name = (path as NSString).lastPathComponent
            let expected = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(name))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == expected, "\(name) differs from its regeneration")
        }
    }
}
