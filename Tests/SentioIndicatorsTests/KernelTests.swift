import SentioCore
import SentioIndicators
import SentioTestSupport
import Testing

/// The array kernels (batch SMA, volume ratio; several series at once) must equal the streaming and
/// single-series kernels bit for bit, on any input — including the spikes, zeros and overflows that make the
/// windowed sums re-sum exactly or throw.
@Suite("Kernels")
struct KernelTests {
    /// Values mixing ordinary magnitudes with spikes (1e20, 1e300, 1e-300), zeros and runs of equal values.
    func spikyValues(_ rng: inout SplitMix64, count: Int, nonNegative: Bool) -> [Double] {
        var values: [Double] = []
        var last = 1.0
        for _ in 0..<count {
            var v: Double
            switch Int.random(in: 0..<20, using: &rng) {
            case 0: v = 1e20
            case 1: v = Bool.random(using: &rng) ? 1e300 : 1e308
            case 2: v = 1e-300
            case 3, 4: v = 0
            case 5, 6: v = last
            case 7: v = Double(Int.random(in: 0...3, using: &rng))
            default: v = Double.random(in: 0...1_000, using: &rng)
            }
            if !nonNegative && Bool.random(using: &rng) { v = -v }
            values.append(v)
            last = v
        }
        return values
    }

    func outcome(_ body: () throws(WindowOverflowError) -> IndicatorSeries) -> Result<IndicatorSeries, WindowOverflowError> {
        do throws(WindowOverflowError) { return .success(try body()) } catch { return .failure(error) }
    }

    func streamed(_ count: Int, _ step: (Int) throws(WindowOverflowError) -> Double?, lookback: Int)
        -> Result<IndicatorSeries, WindowOverflowError>
    {
        var values: [Double] = []
        for i in 0..<count {
            do throws(WindowOverflowError) { values.append(try step(i) ?? .nan) } catch { return .failure(error) }
        }
        return .success(IndicatorSeries(values: values, firstValidIndex: lookback))
    }

    @Test func batchSMAAndVolumeRatioEqualStreamingOnSpikyInputs() {
        var rng = SplitMix64(seed: 2017)
        var failures = 0, recomputingRuns = 0
        for trial in 0..<400 {
            let count = Int.random(in: 0...300, using: &rng)
            let window = Int.random(in: 1...40, using: &rng)
            let values = spikyValues(&rng, count: count, nonNegative: true)
            var sma = SimpleMovingAverage(period: window)
            let smaBatch = outcome { () throws(WindowOverflowError) in try simpleMovingAverage(values, period: window) }
            let smaStream = streamed(count, { (i: Int) throws(WindowOverflowError) in try sma.update(values[i]) }, lookback: window - 1)
            #expect(smaBatch == smaStream, "SMA trial \(trial), window \(window)")
            var ratio = VolumeRatio(window: window)
            let ratioBatch = outcome { () throws(WindowOverflowError) in try volumeRatio(values, window: window) }
            let ratioStream = streamed(count, { (i: Int) throws(WindowOverflowError) in try ratio.update(values[i]) }, lookback: window - 1)
            #expect(ratioBatch == ratioStream, "volume ratio trial \(trial), window \(window)")
            if case .failure = ratioStream { failures += 1 }
            if values.contains(1e20) && count > window { recomputingRuns += 1 }
        }
        // Both the error path and the re-summing path were drawn.
        #expect(failures > 20 && recomputingRuns > 100, "\(failures) failures, \(recomputingRuns) re-summing runs")
    }

    /// Random-walk bar series of random lengths (some shorter than the warm-up).
    func randomSeries(_ rng: inout SplitMix64, count: Int) -> [OHLCVSeries] {
        (0..<count).map { k in
            let length = Int.random(in: 0..<6, using: &rng) == 0
                ? Int.random(in: 0...20, using: &rng) : Int.random(in: 20...400, using: &rng)
            return SentioTestSupport.randomSeries(
                symbol: "S\(k)", count: length, start: 0, step: 1, seed: rng.next(), walk: .volatile)
        }
    }

    @Test func manySeriesRSIAndEMAEqualTheSingleSeriesKernels() {
        var rng = SplitMix64(seed: 1212)
        for trial in 0..<60 {
            let series = randomSeries(&rng, count: Int.random(in: 1...13, using: &rng))
            let period = Int.random(in: 1...30, using: &rng)
            let closes = series.map(\.close)
            let rsi = relativeStrengthIndex(many: closes, period: period)
            let ema = exponentialMovingAverage(many: closes, period: period)
            #expect(rsi.count == closes.count && ema.count == closes.count)
            for k in closes.indices {
                let singleRSI = relativeStrengthIndex(closes[k], period: period)
                let singleEMA = exponentialMovingAverage(closes[k], period: period)
                #expect(rsi[k] == singleRSI && rsi[k].values.count == closes[k].count, "RSI trial \(trial) series \(k)")
                #expect(ema[k] == singleEMA && ema[k].values.count == closes[k].count, "EMA trial \(trial) series \(k)")
            }
        }
    }

    /// EMA at both ends of the double range. Near the smallest doubles it takes TA-Lib's plain steps (scaling every
    /// step by 2⁻¹⁶, as before, flushed 1.7e-320 to 0); near the largest it scales (no overflow); constants stay
    /// constant (to the seed mean's rounding; exactly where the seed sum is exact, as for the smallest doubles); the
    /// several-series kernel equals the single-series one on mixes of all three ranges.
    @Test func emaAtBothEndsOfTheRange() {
        for c in [0x1p-1074, 0x1.bp-1063, 2.2250738585072014e-308, 1e-300, 1.5, 1e300, 1.7e308, -1.7e308] {
            let e = exponentialMovingAverage([Double](repeating: c, count: 40), period: 10)
            #expect(e.validValues.allSatisfy { $0 != 0 && abs($0 - c) <= 1e-15 * abs(c) }, "constant \(c): \(Array(e.validValues.prefix(3)))")
            if abs(c) < 1e-300 { #expect(e.validValues.allSatisfy { $0 == c }, "constant \(c): its seed sum is exact") }
        }
        var rng = SplitMix64(seed: 0xE3A)
        for trial in 0..<40 {
            let period = Int.random(in: 1...20, using: &rng)
            let magnitude = [0x1p-1074, 0x1p-1060, 0x1p-1030, 1.0, 0x1p1000, 0x1p1023].randomElement(using: &rng)!
            let x = (0..<Int.random(in: 1...120, using: &rng)).map { _ in Double.random(in: 1...1.9, using: &rng) * magnitude }
            let e = exponentialMovingAverage(x, period: period)
            if magnitude < 0x1p1000 {
                // TA-Lib's arithmetic, unscaled: seed mean, then (x − e)·k + e.
                var reference = [Double](repeating: .nan, count: x.count)
                if x.count >= period {
                    var average = x[0..<period].reduce(0, +) / Double(period)
                    reference[period - 1] = average
                    let k = 2.0 / Double(period + 1)
                    for i in period..<x.count {
                        average = ((x[i] - average) * k) + average
                        reference[i] = average
                    }
                }
                #expect(zip(e.values, reference).allSatisfy { ($0.isNaN && $1.isNaN) || $0.bitPattern == $1.bitPattern },
                    "trial \(trial): magnitude \(magnitude)")
            } else {
                // Between the smallest and the largest input (to rounding), and never infinite.
                #expect(e.validValues.allSatisfy { $0.isFinite && $0 >= magnitude * (1 - 1e-15) && $0 <= 1.9 * magnitude * (1 + 1e-15) },
                    "trial \(trial): \(magnitude)")
            }
        }
        for trial in 0..<30 {
            let series = (0..<Int.random(in: 1...13, using: &rng)).map { _ in
                let magnitude = [0x1p-1074, 0x1p-1050, 1.0, 1e300, 0x1p1023].randomElement(using: &rng)!
                return (0..<Int.random(in: 0...200, using: &rng)).map { _ in Double.random(in: 1...1.9, using: &rng) * magnitude }
            }
            let period = Int.random(in: 1...20, using: &rng)
            let many = exponentialMovingAverage(many: series, period: period)
            for k in series.indices {
                #expect(many[k] == exponentialMovingAverage(series[k], period: period), "trial \(trial) series \(k)")
            }
        }
        // Alternating ±1.9·2¹⁰²³: x − e overflows in the plain step, so the lanes redo those series with the
        // streaming step; the result stays finite and equals the single-series one.
        let alternating = (0..<300).map { i in (i % 2 == 0 ? 1.9 : -1.9) * 0x1p1023 }
        let tiny = 0x1.8p-1063  // about 1.5e-320, a subnormal written exactly
        let mixed = [(0..<300).map { Double($0) }, alternating, (0..<300).map { _ in tiny }, alternating, [1, 2, 3]]
        let many = exponentialMovingAverage(many: mixed, period: 5)
        for k in mixed.indices { #expect(many[k] == exponentialMovingAverage(mixed[k], period: 5), "mixed series \(k)") }
        #expect(many[1].validValues.allSatisfy(\.isFinite) && many[2].validValues.allSatisfy { $0 == tiny })
    }

    @Test func manySeriesATREqualsTheSingleSeriesKernelIncludingOverflows() {
        var rng = SplitMix64(seed: 1414)
        var errors = 0
        for trial in 0..<60 {
            var series = randomSeries(&rng, count: Int.random(in: 1...13, using: &rng))
            // Some series get bars near the largest double: a non-finite step (taken by the overflow-free
            // step) or a true range that overflows (an error).
            for k in series.indices where series[k].count > 30 && Int.random(in: 0..<4, using: &rng) == 0 {
                let i = Int.random(in: 16..<series[k].count, using: &rng)
                let huge = Bool.random(using: &rng) ? 1.7e308 : 9e307
                series[k].high[i] = huge
                series[k].close[i] = huge
                if Int.random(in: 0..<3, using: &rng) == 0 { series[k].low[i] = -huge }  // high − low overflows
            }
            let period = Int.random(in: 1...20, using: &rng)
            let many: Result<[IndicatorSeries], WindowOverflowError>
            do throws(WindowOverflowError) { many = .success(try averageTrueRange(many: series, period: period)) } catch {
                many = .failure(error)
            }
            let singles = series.map { s in outcome { () throws(WindowOverflowError) in try averageTrueRange(s, period: period) } }
            let firstFailure = singles.lazy.compactMap { if case .failure(let e) = $0 { e } else { nil } }.first
            switch many {
            case .success(let results):
                #expect(firstFailure == nil, "trial \(trial)")
                for k in series.indices {
                    #expect(singles[k] == .success(results[k]), "ATR trial \(trial) series \(k)")
                    #expect(results[k].values.count == series[k].count)
                }
            case .failure(let error):
                errors += 1
                #expect(firstFailure == error, "trial \(trial)")
            }
        }
        #expect(errors > 0)
    }
}
