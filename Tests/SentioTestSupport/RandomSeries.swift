import Foundation
import SentioCore

/// The shape of a seeded random OHLCV walk (``randomSeries(symbol:count:start:step:seed:walk:)``).
///
/// Every bar, in this order of draws from the generator:
/// 1. `open = anchor · exp(σ_open · v · g)` (no draw when `openSigma` is `nil`: `open = anchor`), where `anchor` is
///    the previous close (or the start level for `.startLevel`), `v` the series' volatility and `g` a standard
///    normal deviate;
/// 2. `close = open · exp(σ_close · v · g)` (`.logNormal`) or `open · (1 + σ_close · v · g)` (`.linear`);
/// 3. `high = max(open, close) · (1 + |w · v · g|)`, then `low = min(open, close) · (1 − min(cap, |w · v · g|))`
///    (`.halfNormal`), or `high = max · highFactor`, `low = min · lowFactor` without draws (`.fixed`);
/// 4. the volume (`.constant`, `.uniformInteger` or `.logNormalOrZero`);
/// 5. with a `dropProbability`, every bar but the first is left out when a uniform draw falls below it.
///
/// The levels (`start`, `volatility`) are drawn once per series, start first, before the bars. The presets are the
/// walks the suites were written against (their tests assert on the exact series a seed gives).
public struct RandomWalk: Sendable {
    /// A per-series level: a constant, one that steps with the symbol's index in a market, or a uniform draw.
    public enum Level: Sendable {
        /// Always `value`.
        case fixed(Double)
        /// `base + step · k` for the `k`-th symbol of a market (0 for a single series).
        case perSymbol(base: Double, step: Double)
        /// `lower + width · U`, `U` uniform in [0, 1), drawn from the series' generator.
        case uniform(lower: Double, width: Double)

        func value(symbolIndex k: Int, _ rng: inout SplitMix64) -> Double {
            switch self {
            case .fixed(let value): value
            case .perSymbol(let base, let step): base + step * Double(k)
            case .uniform(let lower, let width): lower + width * Double.random(in: 0..<1, using: &rng)
            }
        }
    }

    /// What a bar's open is drawn from.
    public enum Anchor: Sendable {
        /// The previous bar's close (the start level for the first bar): a random walk.
        case previousClose
        /// The start level, for every bar: bars scattered around one price.
        case startLevel
    }

    /// How a bar's close is drawn from its open.
    public enum Close: Sendable {
        /// `open · exp(σ · v · g)`.
        case logNormal(Double)
        /// `open · (1 + σ · v · g)`.
        case linear(Double)
    }

    /// How the high and low are drawn around `max(open, close)` and `min(open, close)`.
    public enum Wicks: Sendable {
        /// `high = max · (1 + |w · v · g|)`, `low = min · (1 − min(lowCap, |w · v · g|))`: two draws.
        case halfNormal(Double, lowCap: Double = .infinity)
        /// `high = max · high`, `low = min · low`: no draw.
        case fixed(high: Double, low: Double)
    }

    /// How a bar's volume is drawn.
    public enum Volume: Sendable {
        /// Always `value`: no draw.
        case constant(Double)
        /// A uniform integer in `range`.
        case uniformInteger(ClosedRange<Int>)
        /// 0 with probability `zeroProbability` (one uniform draw), else `(median · exp(σ · g)).rounded()`.
        case logNormalOrZero(zeroProbability: Double, median: Double, sigma: Double)
    }

    public var start: Level
    public var volatility: Level = .fixed(1)
    public var anchor: Anchor = .previousClose
    /// `σ_open`; `nil`: the open is the anchor itself (no gap, no draw).
    public var openSigma: Double?
    public var close: Close
    public var wicks: Wicks
    public var volume: Volume
    /// Leave out each bar after the first with this probability (one draw per such bar, even when 0).
    public var dropProbability: Double?

    public init(
        start: Level, volatility: Level = .fixed(1), anchor: Anchor = .previousClose, openSigma: Double? = nil,
        close: Close, wicks: Wicks, volume: Volume, dropProbability: Double? = nil
    ) {
        self.start = start
        self.volatility = volatility
        self.anchor = anchor
        self.openSigma = openSigma
        self.close = close
        self.wicks = wicks
        self.volume = volume
        self.dropProbability = dropProbability
    }

    /// Minute bars around 100 with 0.1 % moves and 0.05 % wicks, volumes 100...10,000 (the store's tests).
    public static let minutes = RandomWalk(
        start: .fixed(100), close: .linear(0.001), wicks: .halfNormal(0.0005), volume: .uniformInteger(100...10_000))

    /// Bars around 100 with 2 % moves and 1 % wicks, volumes 0...5,000,000 (the indicator property tests).
    public static let volatile = RandomWalk(
        start: .fixed(100), close: .linear(0.02), wicks: .halfNormal(0.01), volume: .uniformInteger(0...5_000_000))

    /// Daily bars from a random level in 50...100 with a random volatility v in 0.5 %...3.5 %: opening gaps of
    /// 0.3 v, moves of v, wicks of 0.5 v (the low's at most 50 %), volumes around 10⁵ and 2 % of them zero (the
    /// signal tests).
    public static let dailyWithRandomVolatility = RandomWalk(
        start: .uniform(lower: 50, width: 50), volatility: .uniform(lower: 0.005, width: 0.03), openSigma: 0.3,
        close: .logNormal(1), wicks: .halfNormal(0.5, lowCap: 0.5),
        volume: .logNormalOrZero(zeroProbability: 0.02, median: 1e5, sigma: 0.5))

    /// Daily bars of a market, symbol k from 50 + 10k: 0.5 % opening gaps, 2 % moves, 1 % wicks, volume 1, each bar
    /// after the first left out with `dropProbability` (the backtest tests).
    public static func gappedDaily(dropProbability: Double) -> RandomWalk {
        RandomWalk(
            start: .perSymbol(base: 50, step: 10), openSigma: 0.005, close: .logNormal(0.02), wicks: .halfNormal(0.01),
            volume: .constant(1), dropProbability: dropProbability)
    }

    /// Daily bars of a market scattered around symbol k's level 50 + 10k (every open drawn from that level, not from
    /// the previous close): 0.4 % gaps, 2.5 % moves, 1 % wicks without draws, volume 1000 (the sweep tests).
    public static let scatteredDaily = RandomWalk(
        start: .perSymbol(base: 50, step: 10), anchor: .startLevel, openSigma: 0.004, close: .logNormal(0.025),
        wicks: .fixed(high: 1.01, low: 0.99), volume: .constant(1000))
}

/// A seeded random OHLCV series of `count` bars at `start + i · step` (fewer with a `dropProbability`).
///
/// - Parameters:
///   - walk: the distribution of the bars (see ``RandomWalk``); the store tests' minute walk by default.
/// - Returns: the same series for the same arguments, on every platform (``SplitMix64``).
public func randomSeries(
    symbol: String, count: Int, start: Int64 = 1_700_000_000, step: Int64 = 60, seed: UInt64,
    walk: RandomWalk = .minutes
) -> OHLCVSeries {
    var rng = SplitMix64(seed: seed)
    return randomSeries(symbol: symbol, symbolIndex: 0, count: count, start: start, step: step, walk: walk, &rng)
}

/// `symbols` seeded random series named `S0`, `S1`, ..., drawn one after the other from one generator (so symbol k's
/// bars depend on the symbols before it).
public func randomMarketSeries(
    symbols: Int, bars: Int, start: Int64, step: Int64 = 86_400, seed: UInt64, walk: RandomWalk
) -> [OHLCVSeries] {
    var rng = SplitMix64(seed: seed)
    return (0..<symbols).map { k in
        randomSeries(symbol: "S\(k)", symbolIndex: k, count: bars, start: start, step: step, walk: walk, &rng)
    }
}

func randomSeries(
    symbol: String, symbolIndex: Int, count: Int, start: Int64, step: Int64, walk: RandomWalk,
    _ rng: inout SplitMix64
) -> OHLCVSeries {
    var series = OHLCVSeries(symbol: symbol)
    series.reserveCapacity(count)
    let level = walk.start.value(symbolIndex: symbolIndex, &rng)
    let v = walk.volatility.value(symbolIndex: symbolIndex, &rng)
    var price = level
    for i in 0..<count {
        let anchor = walk.anchor == .previousClose ? price : level
        let open = walk.openSigma.map { anchor * exp(v * $0 * rng.nextGaussian()) } ?? anchor
        let close: Double
        switch walk.close {
        case .logNormal(let sigma): close = open * exp(v * sigma * rng.nextGaussian())
        case .linear(let sigma): close = open * (1 + v * sigma * rng.nextGaussian())
        }
        let high: Double, low: Double
        switch walk.wicks {
        case .halfNormal(let width, let lowCap):
            high = max(open, close) * (1 + abs(v * width * rng.nextGaussian()))
            low = min(open, close) * (1 - min(lowCap, abs(v * width * rng.nextGaussian())))
        case .fixed(let highFactor, let lowFactor):
            high = max(open, close) * highFactor
            low = min(open, close) * lowFactor
        }
        let volume: Double
        switch walk.volume {
        case .constant(let value): volume = value
        case .uniformInteger(let range): volume = Double(Int.random(in: range, using: &rng))
        case .logNormalOrZero(let zeroProbability, let median, let sigma):
            volume = Double.random(in: 0..<1, using: &rng) < zeroProbability ? 0 : (median * exp(sigma * rng.nextGaussian())).rounded()
        }
        price = close
        if let p = walk.dropProbability, i > 0, Double.random(in: 0..<1, using: &rng) < p { continue }
        series.append(timestamp: start + Int64(i) * step, open: open, high: high, low: low, close: close, volume: volume)
    }
    return series
}

/// A random market drawn with integer draws (`rng.next() % n`): `symbols` series over `steps` daily timestamps
/// from 2024-01-01, each symbol missing some of them (never all), a geometric random walk with valid OHLCV bars (the
/// live engine's parity tests).
public func randomMarket(_ rng: inout SplitMix64, symbols: Int, steps: Int, gapProbability: Double) -> [OHLCVSeries] {
    let start: Int64 = 1_704_067_200  // 2024-01-01
    var out: [OHLCVSeries] = []
    for k in 0..<symbols {
        var s = OHLCVSeries(symbol: "S\(k)")
        var price = 20 + Double(rng.next() % 200)
        let volatility = 0.005 + Double(rng.next() % 30) / 1000
        for t in 0..<steps {
            let open = price * (1 + 0.3 * volatility * rng.nextGaussian())
            price *= (1 + volatility * rng.nextGaussian())
            price = max(price, 0.5)
            let o = max(open, 0.5)
            let high = max(o, price) * (1 + Double(rng.next() % 1000) / 1000 * volatility)
            let low = min(o, price) * (1 - Double(rng.next() % 1000) / 1000 * volatility)
            let volume = rng.next() % 10 == 0 ? 0 : Double(rng.next() % 100_000)
            let missing = Double(rng.next() % 10_000) / 10_000 < gapProbability
            if missing && !(t == steps - 1 && s.isEmpty) { continue }
            s.append(timestamp: start + Int64(t) * 86_400, open: o, high: high, low: low, close: price, volume: volume)
        }
        out.append(s)
    }
    return out
}

/// `count` independent random bars (open and close uniform in 0.01...1,000, not a walk) named `R`, at timestamps
/// with random gaps of 1...200,000 seconds from a random start (the CSV reader's property tests).
public func randomIndependentSeries(_ rng: inout SplitMix64, count: Int) -> OHLCVSeries {
    var series = OHLCVSeries(symbol: "R")
    var t = Int64.random(in: 0...2_000_000_000, using: &rng)
    for _ in 0..<count {
        let open = Double.random(in: 0.01...1_000, using: &rng), close = Double.random(in: 0.01...1_000, using: &rng)
        series.append(
            timestamp: t, open: open, high: max(open, close) + Double.random(in: 0...5, using: &rng),
            low: min(open, close) * Double.random(in: 0.9...1, using: &rng), close: close,
            volume: Double(Int.random(in: 0...1_000_000_000, using: &rng)))
        t += Int64.random(in: 1...200_000, using: &rng)
    }
    return series
}
