import ArgumentParser
import Foundation
import Sentio
import SentioApplication

// `sentio backtest` on stored bars (`--db FILE` without PATH) and the `--from`/`--to` range for both sources.
// Kept apart from BacktestCommand.swift so the store wiring stays in one place.

extension BacktestCommand {
    /// True when the bars come from the store: `--db` given and no PATH.
    var readsStore: Bool { paths.isEmpty && store.database != nil }

    /// `--from`/`--to` as epoch seconds (already checked by `validate()`; unbounded if they do not parse).
    var resolvedRange: BarRange { (try? range.resolve()) ?? BarRange() }

    /// PATH with `--db` is ambiguous unless `--save` (then PATH is the data and `--db` where the run goes).
    func validateDataSource() throws {
        if !paths.isEmpty && store.database != nil && !save {
            throw ValidationError(
                "give either PATH (CSV input) or --db FILE (stored bars), not both; "
                    + "with --save, PATH is the data and --db the store the run is saved to")
        }
    }

    /// The stored bars of `--symbols` (default all) within `--from`/`--to`; the store must exist.
    func loadStoredMarket() throws -> Market {
        let database = try store.open(mode: .readOnly)
        let wanted = try selection.list()
        return try Market(try loadStoredSeries(from: database, symbols: wanted, range: resolvedRange))
    }

    /// CSV series cut to `--from`/`--to`; a symbol left without bars is a usage error.
    func filteredByRange(_ series: [OHLCVSeries]) throws -> [OHLCVSeries] {
        let range = resolvedRange
        if range.isUnbounded { return series }
        let filtered = series.map(range.apply)
        try range.requireBars(in: filtered, source: try dataPaths().joined(separator: ", "))
        return filtered
    }

    /// `--benchmark`: an existing file is read as OHLCV CSV (symbol from its name); otherwise a symbol of the run's
    /// own data, else of the store (`--db`, else the default store), within `--from`/`--to`. `nil` without the
    /// option (the default benchmark is built from the universe).
    func loadBenchmark(universe: Market) throws -> BenchmarkSeries? {
        guard let benchmark else { return nil }
        let range = resolvedRange
        if FileManager.default.fileExists(atPath: benchmark) {
            // Read as the data is (--adjust, --date-format, --timezone); its actions, if any, are prices' (splits).
            let series = range.apply(to: try OHLCVReader.read(path: benchmark, options: try marketFile.analysisReadOptions()))
            if series.count == 0 { throw UsageError("--benchmark \(benchmark): no bars within --from/--to") }
            return BenchmarkSeries(series)
        }
        if let own = universe.series.first(where: { $0.symbol.caseInsensitiveCompare(benchmark) == .orderedSame }) {
            return BenchmarkSeries(own)
        }
        if store.database != nil || FileManager.default.fileExists(atPath: store.path) {
            let database = try store.open(mode: .readOnly)
            do {
                let stored = try loadStoredSeries(from: database, symbols: [benchmark], range: range)
                if let first = stored.first { return BenchmarkSeries(first) }
            } catch let error as UserInputError {
                throw UsageError("--benchmark \(benchmark): not a file, not a symbol of the data, and not found in the store \(database.path) (\(error.description))")
            }
        }
        throw UsageError("--benchmark \(benchmark): not a file, not a symbol of the data, and no store to look it up in (give --db FILE)")
    }
}
