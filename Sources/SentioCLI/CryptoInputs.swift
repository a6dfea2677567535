import Foundation
import Sentio
import SentioAPI

/// `--holdings FILE` with `--prices PATHS`: the one way `sentio fund` and `sentio serve` read crypto holdings.
enum CryptoInputs {
    /// The holdings of the CSV file at `path` (`symbol,name,amount`), valued at `valuationDate` with the closes of
    /// `prices` (OHLCV CSV files or directories, comma-separated) or, when `prices` is `nil`, of the series that
    /// `storedPrices` loads for the holdings' symbols.
    ///
    /// - Throws: a usage error (exit 2) for an empty `--prices`; the holdings file's and the readers' errors; a
    ///   ``CryptoContracts`` error naming a symbol without a close at or before `valuationDate`.
    static func holdings(
        path: String, prices: String?, valuationDate: CivilDate,
        storedPrices: ([String]) throws -> [OHLCVSeries]
    ) throws -> CryptoHoldingsResponse {
        let file = try HoldingsFile(text: try readTextFile(path, role: "holdings"), file: path)
        let series: [OHLCVSeries]
        if let prices {
            let paths = prices.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !paths.isEmpty else { throw UsageError("--prices needs at least one OHLCV CSV file or directory") }
            series = try OHLCVReader.readAll(paths: paths)
        } else {
            series = try storedPrices(file.holdings.map(\.symbol))
        }
        return try CryptoContracts.holdings(of: file, series: series, valuationDate: valuationDate)
    }
}
