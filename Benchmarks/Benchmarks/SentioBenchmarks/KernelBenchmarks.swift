import Benchmark
import Foundation
import Sentio

// The array kernels of issue 17 beside their physical floor: windowed statistics against a plain copy of the
// same array (the memory pass they cannot beat), several series at once against the same indicator looped
// over the series one by one.

/// The 12-symbol minute market, 1,000,000 bars each (built once, outside the measurements).
let twelveSymbolBars: [OHLCVSeries] = {
    let config = MarketConfig(symbols: MarketConfig.firstSymbols(12), bars: 1_000_000, frequency: .minute, seed: 7)
    return try! MarketGenerator(config: config).generate()
}()

func registerKernelBenchmarks() {
    bench("Floor: copy of 10M doubles", prepare: { _ = tenMillionCloses.count }) { benchmark in
        for _ in benchmark.scaledIterations {
            let copy = makeDoubleArray(count: tenMillionCloses.count) { out in
                tenMillionCloses.withUnsafeBufferPointer { input in
                    out.baseAddress!.update(from: input.baseAddress!, count: input.count)
                }
            }
            blackHole(copy.count)
        }
    }

    bench("SMA(20) batch, 10M closes", prepare: { _ = tenMillionCloses.count }) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try simpleMovingAverage(tenMillionCloses, period: 20).firstValidIndex)
        }
    }

    bench("Rolling std(20) batch, 10M closes", prepare: { _ = tenMillionCloses.count }) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try rollingStandardDeviation(tenMillionCloses, window: 20).firstValidIndex)
        }
    }

    bench("RSI(14), 12 series x 1M, one at a time", prepare: { _ = twelveSymbolBars.count }) { benchmark in
        for _ in benchmark.scaledIterations {
            for series in twelveSymbolBars { blackHole(relativeStrengthIndex(series.close, period: 14).firstValidIndex) }
        }
    }

    bench("RSI(14), 12 series x 1M, all at once", prepare: { _ = twelveSymbolBars.count }) { benchmark in
        let closes = twelveSymbolBars.map(\.close)
        for _ in benchmark.scaledIterations { blackHole(relativeStrengthIndex(many: closes, period: 14).count) }
    }

    bench("EMA(20), 12 series x 1M, all at once", prepare: { _ = twelveSymbolBars.count }) { benchmark in
        let closes = twelveSymbolBars.map(\.close)
        for _ in benchmark.scaledIterations { blackHole(exponentialMovingAverage(many: closes, period: 20).count) }
    }

    bench("ATR(14), 12 series x 1M, all at once", prepare: { _ = twelveSymbolBars.count }) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try averageTrueRange(many: twelveSymbolBars, period: 14).count) }
    }
}
