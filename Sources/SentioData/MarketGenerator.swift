import Foundation
import SentioCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bar spacing of a synthetic market.
public enum BarFrequency: String, Sendable, CaseIterable {
    /// One bar per business day (Monday–Friday, no holidays), timestamped at midnight UTC of the trading date.
    case daily
    /// 390 one-minute bars per business day, 09:30 to 15:59 (bar start times). The exchange-local clock is
    /// written as if it were UTC (`2023-01-03T09:30:00Z`): the sample has no time zone.
    case minute

    var barsPerDay: Int { self == .daily ? 1 : 390 }
    /// Sub-steps of the underlying's path inside one bar, from which the bar's high and low are taken.
    var substepsPerBar: Int { self == .daily ? 26 : 3 }
}

/// A bull/bear pair of daily-reset leveraged funds on one underlying index.
public struct LeveragedPair: Sendable, Equatable {
    public var bull: String
    public var bear: String
    public var underlying: String
    /// Daily standard deviation of the underlying's log return in the calm regime.
    public var calmVolatility: Double
    /// Daily standard deviation of the underlying's log return in the volatile regime.
    public var volatileVolatility: Double
    /// Daily mean log return of the underlying (before the Itô correction).
    public var drift: Double
    public var bullStartPrice: Double
    public var bearStartPrice: Double
    /// Typical shares traded per day (calm regime).
    public var bullVolume: Double
    public var bearVolume: Double

    public init(
        bull: String, bear: String, underlying: String, calmVolatility: Double, volatileVolatility: Double,
        drift: Double, bullStartPrice: Double, bearStartPrice: Double, bullVolume: Double, bearVolume: Double
    ) {
        self.bull = bull
        self.bear = bear
        self.underlying = underlying
        self.calmVolatility = calmVolatility
        self.volatileVolatility = volatileVolatility
        self.drift = drift
        self.bullStartPrice = bullStartPrice
        self.bearStartPrice = bearStartPrice
        self.bullVolume = bullVolume
        self.bearVolume = bearVolume
    }

    /// The default universe: 12 leveraged ETFs in 6 pairs (volatilities and prices are plausible, not fitted).
    public static let defaultUniverse: [LeveragedPair] = [
        LeveragedPair(bull: "TQQQ", bear: "SQQQ", underlying: "Nasdaq-100", calmVolatility: 0.010,
            volatileVolatility: 0.021, drift: 0.0004, bullStartPrice: 17.50, bearStartPrice: 62.40,
            bullVolume: 180e6, bearVolume: 150e6),
        LeveragedPair(bull: "SOXL", bear: "SOXS", underlying: "PHLX Semiconductor", calmVolatility: 0.014,
            volatileVolatility: 0.026, drift: 0.0005, bullStartPrice: 9.80, bearStartPrice: 54.20,
            bullVolume: 120e6, bearVolume: 90e6),
        LeveragedPair(bull: "SPXL", bear: "SPXS", underlying: "S&P 500", calmVolatility: 0.008,
            volatileVolatility: 0.017, drift: 0.0003, bullStartPrice: 68.30, bearStartPrice: 21.90,
            bullVolume: 5e6, bearVolume: 14e6),
        LeveragedPair(bull: "TNA", bear: "TZA", underlying: "Russell 2000", calmVolatility: 0.011,
            volatileVolatility: 0.023, drift: 0.0002, bullStartPrice: 31.20, bearStartPrice: 36.70,
            bullVolume: 16e6, bearVolume: 20e6),
        LeveragedPair(bull: "FAS", bear: "FAZ", underlying: "Russell 1000 Financials", calmVolatility: 0.010,
            volatileVolatility: 0.024, drift: 0.0003, bullStartPrice: 72.10, bearStartPrice: 18.40,
            bullVolume: 1.2e6, bearVolume: 1.6e6),
        LeveragedPair(bull: "LABU", bear: "LABD", underlying: "S&P Biotechnology Select", calmVolatility: 0.014,
            volatileVolatility: 0.027, drift: 0.0001, bullStartPrice: 7.90, bearStartPrice: 23.60,
            bullVolume: 12e6, bearVolume: 9e6),
    ]
}

/// Options of the synthetic market.
public struct MarketConfig: Sendable, Equatable {
    /// Symbols to produce, from the universe; output follows this order.
    public var symbols: [String]
    /// Bars per symbol.
    public var bars: Int
    public var frequency: BarFrequency
    public var seed: UInt64
    /// First trading date (moved forward to a Monday when it falls on a weekend).
    public var start: CivilDate
    /// Daily leverage of the bull fund; the bear fund has `-leverage`.
    public var leverage: Double
    /// Prices are rounded to this many decimals (in memory too, so files read back identical to the series).
    public var priceDecimals: Int
    public var universe: [LeveragedPair]

    public init(
        symbols: [String]? = nil, bars: Int = 504, frequency: BarFrequency = .daily, seed: UInt64 = 42,
        start: CivilDate = CivilDate(year: 2023, month: 1, day: 2)!, leverage: Double = 3, priceDecimals: Int = 4,
        universe: [LeveragedPair] = LeveragedPair.defaultUniverse
    ) {
        self.symbols = symbols ?? universe.flatMap { [$0.bull, $0.bear] }
        self.bars = bars
        self.frequency = frequency
        self.seed = seed
        self.start = start
        self.leverage = leverage
        self.priceDecimals = priceDecimals
        self.universe = universe
    }

    /// The first `count` symbols of `universe` in pair order (TQQQ, SQQQ, SOXL, SOXS, ...).
    public static func firstSymbols(_ count: Int, of universe: [LeveragedPair] = LeveragedPair.defaultUniverse) -> [String] {
        Array(universe.flatMap { [$0.bull, $0.bear] }.prefix(count))
    }
}

/// An invalid ``MarketConfig``.
public enum MarketConfigError: UserInputError, Equatable {
    case unknownSymbol(String, known: [String])
    case duplicateSymbol(String)
    case noSymbols
    case invalidBars(Int)
    case invalidDecimals(Int)
    case invalidLeverage(Double)
    /// The bars would run past 9999-12-31, the last date Sentio reads (years 0001–9999).
    case pastLastSupportedDate(start: CivilDate, bars: Int, tradingDays: Int)

    /// Whether the error is about the dates (start and length) rather than the symbols or prices.
    public var isDateRangeError: Bool {
        if case .pastLastSupportedDate = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .unknownSymbol(let symbol, let known):
            return "unknown symbol '\(symbol)' (known: \(known.joined(separator: " ")))"
        case .duplicateSymbol(let symbol): return "symbol '\(symbol)' is listed twice"
        case .noSymbols: return "no symbols requested"
        case .invalidBars(let bars): return "bars must be at least 1, got \(bars)"
        case .invalidDecimals(let decimals): return "price decimals must be in 0...9, got \(decimals)"
        case .invalidLeverage(let leverage): return "leverage must be in (0, 4], got \(leverage)"
        case .pastLastSupportedDate(let start, let bars, let days):
            return "\(bars) bars from \(start) need \(days) business days and would run past 9999-12-31, "
                + "the last date Sentio reads (years 0001-9999); choose an earlier start or fewer bars"
        }
    }
}

/// Both funds of one pair with the underlying index they are built on.
public struct GeneratedPair: Sendable {
    public var pair: LeveragedPair
    /// The underlying's level at each bar's close (not rounded), aligned with the funds' bars.
    public var underlyingClose: [Double]
    public var bull: OHLCVSeries
    public var bear: OHLCVSeries
    /// Bar indices of the first bar after each 1-for-10 reverse split of the bull fund (prices are unadjusted).
    public var bullReverseSplits: [Int]
    /// As `bullReverseSplits`, for the bear fund.
    public var bearReverseSplits: [Int]
    /// Bar indices of the first bar after each 10-for-1 split of the bull fund (prices are unadjusted).
    public var bullSplits: [Int] = []
    /// As `bullSplits`, for the bear fund.
    public var bearSplits: [Int] = []
    /// Bar indices from which `underlyingClose` is in units 2⁻⁶⁰⁰ times smaller than before (the level is
    /// rescaled by that exact power of two when it passes 2⁶⁰⁰, so that it never overflows over thousands of
    /// years of bars; the funds only use its ratios, which the rescaling leaves bit for bit the same).
    public var underlyingRescales: [Int] = []
}

/// A deterministic synthetic market of bull/bear leveraged ETF pairs.
///
/// Model, per pair:
/// - The underlying index follows a geometric random walk whose daily volatility switches between a calm and a
///   volatile regime by a two-state Markov chain evaluated once per day (P(calm→volatile) = 0.02,
///   P(volatile→calm) = 0.08, so about 20% of days are volatile). 10% of the daily variance is an overnight gap
///   at the open; the rest is spread over sub-steps inside each bar, whose extremes give the bar's high and low.
/// - Daily-reset leverage: with `B` the fund's previous close and `U₀` the underlying's previous close, the fund's
///   value at underlying level `U` is `B · (1 + L · (U/U₀ − 1))`, `L = +leverage` (bull) or `−leverage` (bear);
///   so each fund's close-to-close return is exactly `L` times the underlying's (up to price rounding). The
///   map is monotonic in `U`, so the bar's high and low come from the underlying's extremes and
///   `low ≤ min(open, close) ≤ max(open, close) ≤ high` holds, also after rounding (rounding is monotonic).
///   The underlying's intraday move is bounded to ±25% of its previous close so fund prices stay positive;
///   rounded prices are at least one unit of the last decimal. Leveraged funds decay under volatility, so, as
///   real ones do, a fund that closes below $1 does a 1-for-10 reverse split before the next open (prices are
///   not split-adjusted; ``GeneratedPair`` lists the split bars). The committed two-year sample has none. A fund
///   that closes above $1,000,000 does a 10-for-1 split, so prices stay within what their decimals hold exactly
///   however many bars are asked (up to the year 9999).
/// - Volume (integer shares): the fund's typical volume × 1.8 in the volatile regime × a log-normal factor ×
///   (1 + k·|bar return|); minute bars follow a U-shaped intraday profile.
///
/// Randomness comes from ``Xoshiro256StarStar`` with one sub-stream per pair and per fund, so a symbol's bars
/// depend only on the seed, the start date, the frequency and its pair — not on which other symbols are asked.
public struct MarketGenerator: Sendable {
    public let config: MarketConfig

    /// A fund whose close falls below this price does a reverse split before the next open.
    public static let reverseSplitBelow = 1.0
    /// Shares merged per new share in a reverse split (prices are multiplied by this).
    public static let reverseSplitRatio = 10.0
    /// A fund whose close rises above this price does a 10-for-1 split before the next open (far above any price
    /// of the samples; without it a bull fund compounding over hundreds of thousands of bars reaches prices its
    /// decimals cannot hold, and then infinity).
    public static let splitAbove = 1_000_000.0
    /// New shares per share in a split (prices are divided by this).
    public static let splitRatio = 10.0

    /// - Throws: ``MarketConfigError`` for unknown or duplicate symbols, `bars < 1`, bad decimals/leverage, or bars
    ///   that would run past 9999-12-31.
    public init(config: MarketConfig) throws(MarketConfigError) {
        guard !config.symbols.isEmpty else { throw .noSymbols }
        let known = config.universe.flatMap { [$0.bull, $0.bear] }
        var seen = Set<String>()
        for symbol in config.symbols {
            guard known.contains(symbol) else { throw .unknownSymbol(symbol, known: known) }
            guard seen.insert(symbol).inserted else { throw .duplicateSymbol(symbol) }
        }
        guard config.bars >= 1 else { throw .invalidBars(config.bars) }
        guard (0...9).contains(config.priceDecimals) else { throw .invalidDecimals(config.priceDecimals) }
        guard config.leverage > 0, config.leverage <= 4 else { throw .invalidLeverage(config.leverage) }
        guard CivilDate.supportedYears.contains(config.start.year) else {
            throw .pastLastSupportedDate(start: config.start, bars: config.bars, tradingDays: 1)
        }
        let perDay = config.frequency.barsPerDay
        let days = config.bars / perDay + (config.bars % perDay == 0 ? 0 : 1)
        guard let last = Self.businessDay(after: Self.businessDay(onOrAfter: config.start), count: days - 1),
            last.year <= CivilDate.supportedYears.upperBound
        else { throw .pastLastSupportedDate(start: config.start, bars: config.bars, tradingDays: days) }
        self.config = config
    }

    /// The business day `count` business days after the business day `first`; `nil` past the year 9999.
    static func businessDay(after first: CivilDate, count: Int) -> CivilDate? {
        let weekday = first.weekday  // 0...4
        let (weeks, extra) = (weekday + count).quotientAndRemainder(dividingBy: 5)
        let (offset, overflow) = weeks.multipliedReportingOverflow(by: 7)
        guard !overflow, offset < 4_000_000 else { return nil }
        return CivilDate(daysSinceEpoch: first.daysSinceEpoch + offset + extra - weekday)
    }

    /// The last trading date of the generated bars.
    public var lastTradingDate: CivilDate {
        let perDay = config.frequency.barsPerDay
        let days = config.bars / perDay + (config.bars % perDay == 0 ? 0 : 1)
        return Self.businessDay(after: firstTradingDate, count: days - 1)!
    }

    /// The first trading date: `config.start`, or the following Monday when it is a weekend day.
    public var firstTradingDate: CivilDate { Self.businessDay(onOrAfter: config.start) }

    static func businessDay(onOrAfter date: CivilDate) -> CivilDate {
        var day = date
        while day.weekday >= 5 { day = CivilDate(daysSinceEpoch: day.daysSinceEpoch + 1) }
        return day
    }

    /// Indices into `config.universe` of the pairs that hold a requested symbol, in universe order.
    var requestedPairIndices: [Int] {
        config.universe.indices.filter {
            config.symbols.contains(config.universe[$0].bull) || config.symbols.contains(config.universe[$0].bear)
        }
    }

    /// All requested series, in `config.symbols` order.
    public func generate() -> [OHLCVSeries] {
        var bySymbol: [String: OHLCVSeries] = [:]
        for index in requestedPairIndices {
            let generated = generatePair(index)
            bySymbol[generated.bull.symbol] = generated.bull
            bySymbol[generated.bear.symbol] = generated.bear
        }
        return config.symbols.map { bySymbol[$0]! }
    }

    /// Where ``write(to:)`` puts the splits of the unadjusted prices (`symbol,date,split_ratio,cash_dividend`,
    /// ``CorporateActions``), relative to the output directory, when there are any.
    public static let actionsFile = "actions/actions.csv"

    /// Writes `SYMBOL.csv` for each requested symbol into `directory` (created if missing), all files or none (one `OutputTransaction`);
    /// when the funds split, also their splits in ``actionsFile`` (read the files with `--actions DIR/actions/actions.csv`);
    /// pairs are generated one at a time so memory stays bounded. Returns the paths written, in symbol order.
    ///
    /// Columns `timestamp,open,high,low,close,volume`; prices with `config.priceDecimals` decimals; timestamps
    /// `YYYY-MM-DD` (daily) or `YYYY-MM-DDTHH:MM:SSZ` (minute).
    public func write(to directory: String) throws -> [String] {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw WriteError(path: directory, reason: "cannot create directory")
        }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        let options = OHLCVWriter.Options(priceDecimals: config.priceDecimals, datesWhenMidnight: config.frequency == .daily)
        var written: [String: String] = [:]
        var actions: [(symbol: String, time: Int64, ratio: Double)] = []
        // All files or none: each is staged to a temporary file, then all are renamed (OutputTransaction).
        let outputs = OutputTransaction()
        for index in requestedPairIndices {
            let generated = generatePair(index)
            let splits = [
                (generated.bull, generated.bullReverseSplits, generated.bullSplits),
                (generated.bear, generated.bearReverseSplits, generated.bearSplits),
            ]
            for (series, reverse, forward) in splits where config.symbols.contains(series.symbol) {
                let path = base + series.symbol + ".csv"
                try outputs.stage(path) { OHLCVWriter.encode(series, options: options, into: &$0) }
                written[series.symbol] = path
                for bar in reverse { actions.append((series.symbol, series.timestamps[bar], 1 / Self.reverseSplitRatio)) }
                for bar in forward { actions.append((series.symbol, series.timestamps[bar], Self.splitRatio)) }
            }
        }
        // The splits of the unadjusted prices, for `--actions` (a folder of its own: not read as a symbol's bars).
        let actionsPath = base + Self.actionsFile
        if actions.isEmpty {
            try? FileManager.default.removeItem(atPath: actionsPath)
        } else {
            do {
                try FileManager.default.createDirectory(atPath: base + "actions", withIntermediateDirectories: true)
            } catch {
                throw WriteError(path: base + "actions", reason: "cannot create directory")
            }
            actions.sort { ($0.symbol, $0.time) < ($1.symbol, $1.time) }
            var text = "symbol,date,split_ratio,cash_dividend\n"
            for a in actions {
                let date = config.frequency == .daily ? String(iso8601(epochSeconds: a.time).prefix(10)) : iso8601(epochSeconds: a.time)
                text += "\(a.symbol),\(date),\(a.ratio == Self.splitRatio ? "10:1" : "1:10"),0\n"
            }
            try outputs.stage(actionsPath, text: text)
        }
        OutputTransaction.reachedStagedPoint()
        try outputs.commit()
        return config.symbols.map { written[$0]! }
    }

    /// Simulates pair `index` of `config.universe` (both funds, whatever `config.symbols` holds).
    public func generatePair(_ index: Int) -> GeneratedPair {
        let pair = config.universe[index]
        let frequency = config.frequency
        let barsPerDay = frequency.barsPerDay
        let substeps = frequency.substepsPerBar
        let total = config.bars
        let leverage = config.leverage
        let scale = DecimalParser.exactPowersOfTen[config.priceDecimals]
        @inline(__always) func rounded(_ price: Double) -> Double { max((price * scale).rounded(), 1) / scale }

        var market = Xoshiro256StarStar(seed: config.seed, stream: UInt64(3 * index))
        var bullNoise = Xoshiro256StarStar(seed: config.seed, stream: UInt64(3 * index + 1))
        var bearNoise = Xoshiro256StarStar(seed: config.seed, stream: UInt64(3 * index + 2))

        var bull = OHLCVSeries(symbol: pair.bull)
        var bear = OHLCVSeries(symbol: pair.bear)
        bull.reserveCapacity(total)
        bear.reserveCapacity(total)
        var underlyingClose: [Double] = []
        underlyingClose.reserveCapacity(total)
        var bullSplits: [Int] = [], bearSplits: [Int] = []
        var bullForwardSplits: [Int] = [], bearForwardSplits: [Int] = [], rescales: [Int] = []

        var level = 100.0
        var bullBase = rounded(pair.bullStartPrice)
        var bearBase = rounded(pair.bearStartPrice)
        var isVolatile = false
        var day = firstTradingDate
        var produced = 0
        let stepsPerDay = Double(barsPerDay * substeps)

        while produced < total {
            if isVolatile {
                if market.nextUnitInterval() <= 0.08 { isVolatile = false }
            } else if market.nextUnitInterval() <= 0.02 {
                isVolatile = true
            }
            if level > 0x1p600 {
                // Exact (a power of two): every ratio of levels the funds use is unchanged, bit for bit.
                level *= 0x1p-600
                rescales.append(produced)
            }
            let dailySigma = isVolatile ? pair.volatileVolatility : pair.calmVolatility
            let gapSigma = dailySigma * 0.1.squareRoot()
            let stepSigma = dailySigma * (0.9 / stepsPerDay).squareRoot()
            let stepDrift = pair.drift / stepsPerDay - 0.5 * stepSigma * stepSigma
            let regimeVolume = isVolatile ? 1.8 : 1.0
            let dayBase = level
            let lowerBound = dayBase * 0.75, upperBound = dayBase * 1.25
            let midnight = day.epochSeconds

            @inline(__always) func bullPrice(_ u: Double) -> Double { bullBase * (1 + leverage * (u / dayBase - 1)) }
            @inline(__always) func bearPrice(_ u: Double) -> Double { bearBase * (1 - leverage * (u / dayBase - 1)) }

            var lastBullClose = bullBase, lastBearClose = bearBase
            for minute in 0..<barsPerDay where produced < total {
                if minute == 0 {
                    level *= exp(gapSigma * market.nextGaussian() - 0.5 * gapSigma * gapSigma)
                    level = min(max(level, lowerBound), upperBound)
                }
                let openLevel = level
                var highLevel = level, lowLevel = level
                for _ in 0..<substeps {
                    level *= exp(stepDrift + stepSigma * market.nextGaussian())
                    level = min(max(level, lowerBound), upperBound)
                    highLevel = max(highLevel, level)
                    lowLevel = min(lowLevel, level)
                }
                let timestamp = frequency == .daily ? midnight : midnight + 34_200 + Int64(60 * minute)
                let move = abs(level / (frequency == .daily ? dayBase : openLevel) - 1)
                let profile: Double
                let noiseSigma: Double
                let moveWeight: Double
                if frequency == .daily {
                    profile = 1
                    noiseSigma = 0.3
                    moveWeight = 8
                } else {
                    let x = (Double(minute) + 0.5) / Double(barsPerDay) * 2 - 1
                    profile = (0.6 + 2.4 * x * x) / (1.4 * Double(barsPerDay))
                    noiseSigma = 0.5
                    moveWeight = 200
                }
                let activity = profile * regimeVolume * (1 + moveWeight * move)
                let bullVolume = max(1, (pair.bullVolume * activity
                    * exp(noiseSigma * bullNoise.nextGaussian() - 0.5 * noiseSigma * noiseSigma)).rounded())
                let bearVolume = max(1, (pair.bearVolume * activity
                    * exp(noiseSigma * bearNoise.nextGaussian() - 0.5 * noiseSigma * noiseSigma)).rounded())

                lastBullClose = rounded(bullPrice(level))
                lastBearClose = rounded(bearPrice(level))
                bull.append(
                    timestamp: timestamp, open: rounded(bullPrice(openLevel)), high: rounded(bullPrice(highLevel)),
                    low: rounded(bullPrice(lowLevel)), close: lastBullClose, volume: bullVolume)
                bear.append(
                    timestamp: timestamp, open: rounded(bearPrice(openLevel)), high: rounded(bearPrice(lowLevel)),
                    low: rounded(bearPrice(highLevel)), close: lastBearClose, volume: bearVolume)
                underlyingClose.append(level)
                produced += 1
            }
            // The next day's leverage resets on the published (rounded) closes; a fund that closed below
            // `reverseSplitBelow` does a 1-for-`reverseSplitRatio` reverse split before the next open.
            // A fund above `splitAbove` does a `splitRatio`-for-1 split.
            func reset(_ close: Double, reverse: inout [Int], forward: inout [Int]) -> Double {
                if close < Self.reverseSplitBelow {
                    reverse.append(produced)
                    return rounded(close * Self.reverseSplitRatio)
                }
                if close > Self.splitAbove {
                    forward.append(produced)
                    return rounded(close / Self.splitRatio)
                }
                return close
            }
            bullBase = reset(lastBullClose, reverse: &bullSplits, forward: &bullForwardSplits)
            bearBase = reset(lastBearClose, reverse: &bearSplits, forward: &bearForwardSplits)
            day = Self.businessDay(onOrAfter: CivilDate(daysSinceEpoch: day.daysSinceEpoch + 1))
        }
        return GeneratedPair(
            pair: pair, underlyingClose: underlyingClose, bull: bull, bear: bear,
            bullReverseSplits: bullSplits.filter { $0 < total }, bearReverseSplits: bearSplits.filter { $0 < total },
            bullSplits: bullForwardSplits.filter { $0 < total }, bearSplits: bearForwardSplits.filter { $0 < total },
            underlyingRescales: rescales)
    }
}
