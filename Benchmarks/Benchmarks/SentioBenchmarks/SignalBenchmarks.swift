import Benchmark
import Sentio

// The signal model's streaming latency (the same workload as `sentio bench signals`), with malloc counts from
// the MallocInterposer: every update after warm-up must allocate nothing.

/// Bars per symbol fed before measuring: the model's warm-up plus one regression window.
let signalWarmUpBars = SignalModelConfig().firstSignalIndex + 1 + SignalModelConfig().regressionWindow
/// Ticks measured per benchmark iteration.
let signalTicksPerIteration = 1_000

/// 12 symbols of minute bars, as `Bar` values, long enough for the warm-up and one measured block.
let signalFeeds: [[Bar]] = {
    let bars = signalWarmUpBars + signalTicksPerIteration
    let series = try! MarketGenerator(config: MarketConfig(bars: bars, frequency: .minute, seed: 42)).generate()
    return series.map { s in (0..<s.count).map { s[bar: $0] } }
}()

/// One symbol, 100,000 daily bars, for batch evaluation.
let signalHistorySeries: OHLCVSeries = {
    try! MarketGenerator(config: MarketConfig(symbols: ["TQQQ"], bars: 100_000, seed: 42)).generate()[0]
}()

func registerSignalBenchmarks() {
    bench(
        "Signal engine, 12 symbols x \(signalTicksPerIteration) ticks after warm-up (mallocs must be 0)",
        configuration: zeroAllocationConfiguration(),
        prepare: { _ = signalFeeds.count }
    ) { benchmark in
        var engine = try SignalEngine()
        let indices = (0..<signalFeeds.count).map { engine.register(symbol: "S\($0)") }
        for i in 0..<signalWarmUpBars {
            for s in indices { blackHole(try engine.update(symbolIndex: s, bar: signalFeeds[s][i]).aiSignal) }
        }
        try signalFeeds.withUnsafeBufferPointer { feeds in
            benchmark.startMeasurement()
            for i in signalWarmUpBars..<(signalWarmUpBars + signalTicksPerIteration) {
                for s in indices { blackHole(try engine.update(symbolIndex: s, bar: feeds[s][i]).aiSignal) }
            }
            benchmark.stopMeasurement()
        }
    }

    bench("Signal model batch evaluate, 100k bars", prepare: { _ = signalHistorySeries.count }) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try SignalModel.evaluate(signalHistorySeries).count)
        }
    }
}
