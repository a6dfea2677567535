import ArgumentParser
import Foundation
import Sentio
import SentioAPI

// `sentio backtest --strategy dca --currency CODE --fx FILE`: the options and reading the FX file; the run in
// both currencies and its events are SentioAPI's `BacktestCurrencyReport`.

extension BacktestCommand {
    /// The prices' currency when --currency is given (the investing app buys US assets).
    var assetCurrencyCode: String { BacktestCurrencyReport.defaultAssetCurrency }

    func validateCurrencyOptions() throws {
        guard let currency else {
            if fx != nil { throw ValidationError("--fx needs --currency CODE (the investor's currency)") }
            if events != nil { throw ValidationError("--events needs --currency CODE and --fx FILE") }
            return
        }
        guard strategyOptions.strategy == .dca else { throw ValidationError("--currency applies to --strategy dca only") }
        guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw ValidationError("--currency must be a three-letter code in capitals such as GBP, got '\(currency)'")
        }
        guard currency != assetCurrencyCode else {
            throw ValidationError("--currency \(currency) is the prices' own currency: omit --currency")
        }
        guard let fx, !fx.isEmpty else { throw ValidationError("--currency needs --fx FILE (the \(currency)\(assetCurrencyCode) rates)") }
        if let events, events.isEmpty { throw ValidationError("--events needs a file name") }
    }

    /// The rates of an FX file (`date,rate` or OHLCV rows: the close), as `backtest --fx` and `serve --fx` read them.
    static func exchangeRates(file fx: String) throws -> ExchangeRates {
        let file = try FXRateFile(text: try readTextFile(fx, role: "FX"), file: fx)
        return ExchangeRates(dates: file.dates, rates: file.rates)
    }

    /// With --currency: the market with prices in the investor's currency; `nil` otherwise.
    func translatedMarket(_ market: Market) throws -> InvestorCurrencyMarket? {
        guard let currency, let fx else { return nil }
        let rates = try Self.exchangeRates(file: fx)
        let translated = try InvestorCurrencyMarket(assetSeries: market.series, rates: rates, ratesName: fx)
        if let first = translated.previousRateBars.first {
            let count = translated.previousRateBars.count
            printError("note: \(fx) has no \(currency)\(assetCurrencyCode) rate on \(count) bar date(s) (first: \(first.symbol) "
                + "\(first.barDate), converted with the rate of \(first.rateDate)); each such day used the last rate before it")
        }
        return translated
    }
}
