import Benchmark
import Sentio

// Streaming updates of the indicators and the rolling regression: values per second, and a malloc count held
// at zero (a streaming update must never allocate; the states preallocate their buffers at init).

/// Updates per measured block.
let streamingUpdates = 1_000_000

func registerStreamingBenchmarks() {
    bench(
        "EMA(20) streaming update, 1M closes (mallocs must be 0)",
        configuration: zeroAllocationConfiguration(),
        prepare: { _ = tenMillionCloses.count }
    ) { benchmark in
        var ema = ExponentialMovingAverage(period: 20)
        benchmark.startMeasurement()
        tenMillionCloses.withUnsafeBufferPointer { closes in
            for i in 0..<streamingUpdates { blackHole(ema.update(closes[i])) }
        }
        benchmark.stopMeasurement()
    }

    bench(
        "ATR(14) streaming update, 1M bars (mallocs must be 0)",
        configuration: zeroAllocationConfiguration(),
        prepare: { _ = minuteBars.count }
    ) { benchmark in
        var atr = AverageTrueRange(period: 14)
        minuteBars.high.withUnsafeBufferPointer { high in
            minuteBars.low.withUnsafeBufferPointer { low in
                minuteBars.close.withUnsafeBufferPointer { close in
                    benchmark.startMeasurement()
                    for i in 0..<streamingUpdates { blackHole(atr.update(high: high[i], low: low[i], close: close[i])) }
                    benchmark.stopMeasurement()
                }
            }
        }
    }

    bench(
        "Volume ratio(20) streaming update, 1M volumes (mallocs must be 0)",
        configuration: zeroAllocationConfiguration(),
        prepare: { _ = minuteBars.count }
    ) { benchmark in
        var ratio = VolumeRatio(window: 20)
        minuteBars.volume.withUnsafeBufferPointer { volume in
            benchmark.startMeasurement()
            for i in 0..<streamingUpdates { blackHole(ratio.update(volume[i])) }
            benchmark.stopMeasurement()
        }
    }

    bench(
        "Rolling OLS streaming update, W=60, k=3, 100k rows (mallocs must be 0)",
        configuration: zeroAllocationConfiguration(),
        prepare: { _ = regressionDesign.y.count }
    ) { benchmark in
        let rows = 100_000
        var state = RollingRegression(window: 60, regressorCount: 3)
        // Rows laid out contiguously beforehand so that the measured loop only updates.
        var flat = [Double](repeating: 0, count: rows * 3)
        for t in 0..<rows { for j in 0..<3 { flat[t * 3 + j] = regressionDesign.x[j][t] } }
        regressionDesign.y.withUnsafeBufferPointer { y in
            flat.withUnsafeBufferPointer { x in
                benchmark.startMeasurement()
                for t in 0..<rows {
                    blackHole(state.update(y: y[t], regressors: UnsafeBufferPointer(rebasing: x[(t * 3)..<(t * 3 + 3)])))
                }
                benchmark.stopMeasurement()
            }
        }
    }
}
