import ArgumentParser
import Foundation
import Sentio

/// The asset prices' currency when --currency is given (the investing app buys US assets).
let assetCurrencyCode = "USD"

extension BacktestCommand {
    func validateCurrencyOptions() throws {
        guard let currency else {
            if fx != nil { throw ValidationError("--fx needs --currency CODE (the investor's currency)") }
            if events != nil { throw ValidationError("--events needs --currency CODE and --fx FILE") }
            return
        }
        guard strategy == .dca else { throw ValidationError("--currency applies to --strategy dca only") }
        guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw ValidationError("--currency must be a three-letter code in capitals such as GBP, got '\(currency)'")
        }
        guard currency != assetCurrencyCode else {
            throw ValidationError("--currency \(currency) is the prices' own currency: omit --currency")
        }
        guard let fx, !fx.isEmpty else { throw ValidationError("--currency needs --fx FILE (the \(currency)\(assetCurrencyCode) rates)") }
        if let events, events.isEmpty { throw ValidationError("--events needs a file name") }
    }

    /// With --currency: the market with prices in the investor's currency; `nil` otherwise.
    func translatedMarket(_ market: Market) throws -> InvestorCurrencyMarket? {
        guard let currency, let fx else { return nil }
        let file = try FXRateFile(text: try readTextFile(fx, role: "FX"), file: fx)
        let rates = ExchangeRates(dates: file.dates, rates: file.rates)
        let translated = try InvestorCurrencyMarket(assetSeries: market.series, rates: rates, ratesName: fx)
        if let first = translated.previousRateBars.first {
            let count = translated.previousRateBars.count
            printError("note: \(fx) has no \(currency)\(assetCurrencyCode) rate on \(count) bar date(s) (first: \(first.symbol) "
                + "\(first.barDate), converted with the rate of \(first.rateDate)); each such day used the last rate before it")
        }
        return translated
    }

    func currencyReport(_ translated: InvestorCurrencyMarket, result: BacktestResult) throws -> CurrencyReport {
        let stepRates = try CurrencyViews.stepRates(result, rates: translated.rates)
        return CurrencyReport(
            investor: currency!, fxFile: fx!, views: CurrencyViews(result: result, stepRates: stepRates),
            executions: translated.executions(of: result), previousRateBars: translated.previousRateBars.count,
            scheduleID: "dca-\((every ?? .month).rawValue)-\(BacktestReport.number(amount ?? 1_000))\(currency!)")
    }
}

/// A DCA run in the investor's currency, in both currencies, and its execution events.
struct CurrencyReport {
    var investor: String
    var fxFile: String
    var views: CurrencyViews
    var executions: [InvestorCurrencyMarket.Execution]
    var previousRateBars: Int
    var scheduleID: String

    func json() -> BacktestJSON {
        func pair(_ a: Double?, _ b: Double?) -> BacktestJSON { .object([(investor, .value(a)), (assetCurrencyCode, .value(b))]) }
        let v = views
        return .object([
            ("investorCurrency", .string(investor)),
            ("assetCurrency", .string(assetCurrencyCode)),
            ("fxFile", .string(fxFile)),
            ("barsWithPreviousRate", .integer(previousRateBars)),
            ("executions", .integer(executions.count)),
            ("invested", pair(v.investedInvestor, v.investedAsset)),
            ("value", pair(v.valueInvestor, v.valueAsset)),
            ("timeWeightedReturnPercent", pair(v.timeWeightedReturnInvestorPercent, v.timeWeightedReturnAssetPercent)),
            ("moneyWeightedReturnPercent", pair(v.moneyWeightedReturnInvestorPercent, v.moneyWeightedReturnAssetPercent)),
            ("fxEffectPercent", .value(v.fxEffectPercent)),
        ])
    }

    func tableRows() -> [(String, String)] {
        func f(_ x: Double?, _ suffix: String = "") -> String {
            guard let x, x.isFinite else { return "n/a" }
            return String(format: "%.2f", x) + suffix
        }
        let v = views, a = assetCurrencyCode
        return [
            ("Currency", "\(investor) investor, \(a) prices (\(investor)\(a) from \(fxFile); \(previousRateBars) bar(s) on an earlier day's rate)"),
            ("Invested", "\(investor) \(f(v.investedInvestor)) / \(a) \(f(v.investedAsset))"),
            ("Value", "\(investor) \(f(v.valueInvestor)) / \(a) \(f(v.valueAsset))"),
            ("Time-weighted return", "\(investor) \(f(v.timeWeightedReturnInvestorPercent, " %")) / \(a) \(f(v.timeWeightedReturnAssetPercent, " %"))"),
            ("Money-weighted return", "\(investor) \(f(v.moneyWeightedReturnInvestorPercent, " %")) / \(a) \(f(v.moneyWeightedReturnAssetPercent, " %")) a year (XIRR)"),
            ("FX effect", f(v.fxEffectPercent, " % ((1 + TWR \(investor)) / (1 + TWR \(a)) - 1)")),
        ]
    }

    /// Fixed-point text with `digits` decimals, for the events' decimal strings.
    static func decimal(_ x: Double, _ digits: Int) -> String {
        precondition(x.isFinite, "non-finite value in a DCA event")
        return String(format: "%.\(digits)f", x)
    }

    /// One line per execution: `{"event": "dca_executed", "symbol", "side": "buy", "filled_qty", "filled_price",
    /// "amount_<investor>", "fx_rate", "price_usd", "price_<investor>", "dca_schedule_id", "timestamp"}`; decimals as
    /// strings (quantity 8 decimals, prices 4, amount 2, rate 6), the timestamp ISO-8601 UTC.
    func eventsNDJSON() -> String {
        let code = investor.lowercased(), asset = assetCurrencyCode.lowercased()
        var out = ""
        for e in executions {
            let fields: [(String, String)] = [
                ("event", "dca_executed"), ("symbol", e.symbol), ("side", "buy"),
                ("filled_qty", Self.decimal(e.quantity, 8)), ("filled_price", Self.decimal(e.filledPrice, 4)),
                ("amount_\(code)", Self.decimal(e.amount, 2)), ("fx_rate", Self.decimal(e.rate, 6)),
                ("price_\(asset)", Self.decimal(e.assetPrice, 4)), ("price_\(code)", Self.decimal(e.investorPrice, 4)),
                ("dca_schedule_id", scheduleID), ("timestamp", iso8601(epochSeconds: e.timestamp)),
            ]
            out += "{" + fields.map { JSONText.quoted($0.0) + ": " + JSONText.quoted($0.1) }.joined(separator: ", ") + "}\n"
        }
        return out
    }
}
