import Benchmark
import Sentio

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(2))

    Benchmark("RollingMoments.push (1M values, W=60)") { benchmark in
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
}
