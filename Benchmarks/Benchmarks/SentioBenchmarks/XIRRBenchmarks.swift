import Benchmark
import Foundation
import Sentio

// XIRR throughput: series per second, one at a time through `xirr(flows:)` and as a batch through
// `xirr(batch:threads:)` on one and on two threads. Inputs (private-equity-like series of 24 monthly flows:
// 2-6 calls, then distributions worth 0.6-2.5x the calls) are generated once, outside the measurement.

let xirrSeriesCount = 100_000

/// The series as `CashFlow` arrays (single-series API) and as one batch.
let xirrSeries: [[CashFlow]] = {
    var random = Xoshiro256StarStar(seed: 7)
    func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(random.next() >> 11) / Double(1 << 53) }
    return (0..<xirrSeriesCount).map { _ in
        let startMonth = Int(random.next() % 240)
        let start = CivilDate(year: 2000 + startMonth / 12, month: startMonth % 12 + 1, day: 1)!
        let calls = 2 + Int(random.next() % 5)
        var amounts = (0..<calls).map { _ in -uniform(1_000, 10_000) }
        let paid = -amounts.reduce(0, +)
        var raw = (calls..<24).map { _ in uniform(0, 1) * (uniform(0, 1) > 0.2 ? 1 : 0) }
        raw[raw.count - 1] = max(raw[raw.count - 1], 0.5)
        let total = raw.reduce(0, +), multiple = uniform(0.6, 2.5)
        amounts += raw.map { $0 / total * paid * multiple }
        return amounts.enumerated().map { CashFlow(date: start.addingMonths($0.offset), amount: $0.element) }
    }
}()

let xirrBatch: CashFlowBatch = {
    var batch = CashFlowBatch()
    batch.reserveCapacity(series: xirrSeries.count, flows: xirrSeries.count * 24)
    for series in xirrSeries { batch.append(series) }
    return batch
}()

func registerXIRRBenchmarks() {
    bench("XIRR single series x 10k (24 monthly flows), xirr(flows:)", prepare: { _ = xirrSeries.count }) { benchmark in
        for _ in benchmark.scaledIterations {
            for series in xirrSeries.prefix(10_000) { blackHole(try? xirr(flows: series).rate) }
        }
    }
    for threads in [1, 2] {
        bench("XIRR batch, 100k series x 24 flows, \(threads) thread\(threads == 1 ? "" : "s")",
              prepare: { _ = xirrBatch.count }) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(xirr(batch: xirrBatch, threads: threads).count)
            }
        }
    }
}
