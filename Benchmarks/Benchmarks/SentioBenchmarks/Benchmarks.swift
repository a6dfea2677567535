import Benchmark
import Foundation
import Sentio

// Inputs are built once, outside the measured closures (setup hooks touch them so that their cost
// is never timed). Sizes follow the head-to-head workloads in the README's Performance section.

/// One million minute bars of TQQQ, in memory.
let minuteBars: OHLCVSeries = {
    let config = MarketConfig(symbols: ["TQQQ"], bars: 1_000_000, frequency: .minute, seed: 7)
    return try! MarketGenerator(config: config).generate()[0]
}()

/// The same bars as a CSV file in a temporary directory.
let minuteBarsCSV: String = {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-bench-TQQQ-1M.csv").path
    try! OHLCVWriter.write(minuteBars, to: path)
    return path
}()

/// Ten million closes (a random walk).
let tenMillionCloses: [Double] = {
    var state: UInt64 = 42
    var x = 100.0
    return (0..<10_000_000).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        x *= 1 + (Double(state >> 11) / Double(1 << 53) - 0.5) * 0.02
        return x
    }
}()

/// A rolling-OLS design of 1,000,000 rows, k = 3 regressors (lagged log returns of the minute bars).
let regressionDesign: (y: [Double], x: [[Double]]) = {
    let c = minuteBars.close
    let n = c.count
    var r = [Double](repeating: 0, count: n)
    for i in 1..<n { r[i] = log(c[i] / c[i - 1]) }
    func lag(_ k: Int) -> [Double] { (0..<n).map { $0 >= k ? r[$0 - k] : 0 } }
    return (r, [lag(1), lag(2), lag(5)])
}()

/// Registers a benchmark whose `prepare` step (building inputs) runs before, and outside, the measurement.
func bench(
    _ name: String,
    configuration: Benchmark.Configuration = Benchmark.defaultConfiguration,
    prepare: @escaping @Sendable () -> Void = {},
    _ body: @escaping @Sendable (Benchmark) throws -> Void
) {
    Benchmark(name, configuration: configuration, closure: body, setup: { prepare() })
}

/// Wall clock plus malloc count, with the count held at zero.
func zeroAllocationConfiguration() -> Benchmark.Configuration {
    Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal],
    thresholds: [.mallocCountTotal: BenchmarkThresholds(absolute: [BenchmarkResult.Percentile.p100: 0])]
    )
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        maxDuration: .seconds(3),
        maxIterations: 50
    )

    bench("CSV read 1M OHLCV rows", prepare: { _ = minuteBarsCSV }) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try OHLCVReader.read(path: minuteBarsCSV).count)
        }
    }

    bench("RSI(14) batch, 10M closes", prepare: { _ = tenMillionCloses.count }) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(relativeStrengthIndex(tenMillionCloses, period: 14).firstValidIndex)
        }
    }

    bench("EMA(20) batch, 10M closes", prepare: { _ = tenMillionCloses.count }) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(exponentialMovingAverage(tenMillionCloses, period: 20).firstValidIndex)
        }
    }

    bench("ATR(14) batch, 1M bars", prepare: { _ = minuteBars.count }) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try averageTrueRange(minuteBars, period: 14).firstValidIndex)
        }
    }

    bench("Volume ratio(20) batch, 10M values", prepare: { _ = tenMillionCloses.count }) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try volumeRatio(tenMillionCloses, window: 20).firstValidIndex)
        }
    }

    bench("Rolling OLS batch, 1M rows, W=60, k=3", prepare: { _ = regressionDesign.y.count }) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(rollingRegression(regressionDesign.y, regressors: regressionDesign.x, window: 60))
        }
    }

    // Allocation counts are the thresholds worth keeping: a streaming update must not allocate.
    bench(
        "RSI(14) streaming update, 1M closes (mallocs must be 0)",
        configuration: zeroAllocationConfiguration(),
        prepare: { _ = tenMillionCloses.count }
    ) { benchmark in
        var rsi = RelativeStrengthIndex(period: 14)
        benchmark.startMeasurement()
        tenMillionCloses.withUnsafeBufferPointer { closes in
            for i in 0..<1_000_000 { blackHole(rsi.update(closes[i])) }
        }
        benchmark.stopMeasurement()
    }

    bench("RollingMoments.push, 1M values, W=60") { benchmark in
        var moments = RollingMoments(window: 60)
        var x = 100.0
        for _ in benchmark.scaledIterations {
            for _ in 0..<1_000_000 {
                x += 0.01
                moments.push(x)
            }
            blackHole(moments.mean)
        }
    }

    registerKernelBenchmarks()
    registerSignalBenchmarks()
    registerStreamingBenchmarks()
    registerXIRRBenchmarks()
    registerStoreBenchmarks()
    registerBacktestBenchmarks()
}
