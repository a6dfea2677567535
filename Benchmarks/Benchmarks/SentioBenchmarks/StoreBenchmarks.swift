import Benchmark
import Foundation
import Sentio

// SQLite store throughput in rows per second: importing one symbol's 1,000,000 minute bars into a fresh
// database (one transaction, as `sentio import` does), and loading 12 symbols x 250,000 stored bars back into
// `OHLCVSeries` columns. The bars (and, for the load, the database) are prepared in setup.

let storeLoadBarsPerSymbol = 250_000

/// A database holding 12 symbols x 250,000 minute bars.
let storeLoadDatabasePath: String = {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-bench-store-load-\(getpid()).sqlite").path
    let database = try! SentioDatabase(path: path)
    let series = try! MarketGenerator(config: MarketConfig(bars: storeLoadBarsPerSymbol, frequency: .minute, seed: 42)).generate()
    for s in series {
        try! database.importSeries(s, sourcePath: "generated/\(s.symbol).csv", fingerprint: ContentFingerprint.of(series: [s]))
    }
    try! database.checkpoint()
    try! database.close()
    return path
}()

func removeDatabase(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

func registerStoreBenchmarks() {
    bench(
        "Store import 1M minute bars (one symbol, fresh database)",
        configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(20), maxIterations: 5),
        prepare: { _ = minuteBars.count }
    ) { benchmark in
        // One import per sample, into a database created (untimed) for it.
        let fingerprint = ContentFingerprint.of(series: [minuteBars])
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("sentio-bench-store-import-\(getpid())-\(UUID().uuidString).sqlite").path
        removeDatabase(path)
        let database = try SentioDatabase(path: path)
        benchmark.startMeasurement()
        blackHole(try database.importSeries(minuteBars, sourcePath: "generated/TQQQ.csv", fingerprint: fingerprint).inserted)
        benchmark.stopMeasurement()
        try database.close()
        removeDatabase(path)
    }

    bench("Store load 12 x \(storeLoadBarsPerSymbol) bars into columns", prepare: { _ = storeLoadDatabasePath }) { benchmark in
        let database = try SentioDatabase(path: storeLoadDatabasePath, mode: .existingOnly)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try database.loadSeries().reduce(0) { $0 + $1.count })
        }
        benchmark.stopMeasurement()
        try database.close()
    }
}
