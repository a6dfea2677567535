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
            let bars = randomBars(count: length, seed: rng.next())
            var series = OHLCVSeries(symbol: "S\(k)")
            for i in 0..<length {
                series.append(
                    timestamp: Int64(i), open: bars.open[i], high: bars.high[i], low: bars.low[i], close: bars.close[i],
                    volume: bars.volume[i])
            }
            return series
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
