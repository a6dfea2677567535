import Foundation
import SentioBacktest
import SentioCore
import SentioFunds

extension BacktestStatistics {
    /// The statistics of `result` with the money-weighted return by SentioFunds' XIRR
    /// (`BacktestMoneyWeightedReturn.xirr(_:)`, in SentioFunds).
    public init(_ result: BacktestResult, periodsPerYear: Double? = nil) {
        self.init(result, periodsPerYear: periodsPerYear, moneyWeightedReturn: BacktestMoneyWeightedReturn.xirr(_:))
    }
}

/// A DCA run in the investor's currency, seen in both currencies, with its purchases.
public struct BacktestCurrencyReport: Sendable {
    /// The prices' currency of the investing app (US assets).
    public static let defaultAssetCurrency = "USD"

    public var investorCurrency: String
    public var assetCurrency: String
    /// The FX rates file, as given.
    public var fxFile: String
    public var views: CurrencyViews
    public var executions: [InvestorCurrencyMarket.Execution]
    /// Bars converted with an earlier day's rate.
    public var previousRateBars: Int
    /// `dca-PERIOD-AMOUNTCODE`, e.g. `dca-month-250GBP` (the amount without a trailing `.0`).
    public var scheduleID: String

    /// - Throws: `BacktestError` (SentioBacktest) when a step comes before the first rate.
    public init(
        translated: InvestorCurrencyMarket, result: BacktestResult, request: BacktestRequest, investorCurrency: String,
        fxFile: String, assetCurrency: String = defaultAssetCurrency
    ) throws(BacktestError) {
        let stepRates = try CurrencyViews.stepRates(result, rates: translated.rates)
        self.investorCurrency = investorCurrency
        self.assetCurrency = assetCurrency
        self.fxFile = fxFile
        views = CurrencyViews(result: result, stepRates: stepRates, moneyWeightedReturn: BacktestMoneyWeightedReturn.xirr(_:))
        executions = translated.executions(of: result)
        previousRateBars = translated.previousRateBars.count
        let dca = request.resolvedDCA
        let amount = dca.amount == dca.amount.rounded() && abs(dca.amount) < 1e15 ? String(Int64(dca.amount)) : "\(dca.amount)"
        scheduleID = "dca-\(dca.period.rawValue)-\(amount)\(investorCurrency)"
    }

    /// The `currency` object of the summary.
    public var summary: BacktestCurrencySummary {
        let v = views
        func pair(_ a: Double?, _ b: Double?) -> CurrencyPair {
            CurrencyPair(investorCurrency: investorCurrency, investor: a, assetCurrency: assetCurrency, asset: b)
        }
        return BacktestCurrencySummary(
            investorCurrency: investorCurrency, assetCurrency: assetCurrency, fxFile: fxFile,
            barsWithPreviousRate: previousRateBars, executions: executions.count,
            invested: pair(v.investedInvestor, v.investedAsset), value: pair(v.valueInvestor, v.valueAsset),
            timeWeightedReturnPercent: pair(v.timeWeightedReturnInvestorPercent, v.timeWeightedReturnAssetPercent),
            moneyWeightedReturnPercent: pair(v.moneyWeightedReturnInvestorPercent, v.moneyWeightedReturnAssetPercent),
            fxEffectPercent: v.fxEffectPercent)
    }

    /// One line per purchase: `{"event": "dca_executed", "symbol", "side": "buy", "filled_qty", "filled_price",
    /// "amount_<investor>", "fx_rate", "price_usd", "price_<investor>", "dca_schedule_id", "timestamp"}` (the
    /// app's event payload: snake_case, decimals as strings: quantity 8 decimals, prices 4, amount 2, rate 6;
    /// the timestamp ISO-8601 UTC).
    ///
    /// - Throws: ``APIContractError`` for a non-finite figure.
    public func eventsNDJSON() throws(APIContractError) -> String {
        let code = investorCurrency.lowercased(), asset = assetCurrency.lowercased()
        func decimal(_ x: Double, _ digits: Int, _ field: String) throws(APIContractError) -> String {
            guard x.isFinite else { throw APIContractError(subject: "dca_executed", field: field, message: "is \(x)") }
            return String(format: "%.\(digits)f", x)
        }
        var out = ""
        for e in executions {
            let fields: [(String, String)] = [
                ("event", "dca_executed"), ("symbol", e.symbol), ("side", "buy"),
                ("filled_qty", try decimal(e.quantity, 8, "filled_qty")),
                ("filled_price", try decimal(e.filledPrice, 4, "filled_price")),
                ("amount_\(code)", try decimal(e.amount, 2, "amount_\(code)")),
                ("fx_rate", try decimal(e.rate, 6, "fx_rate")),
                ("price_\(asset)", try decimal(e.assetPrice, 4, "price_\(asset)")),
                ("price_\(code)", try decimal(e.investorPrice, 4, "price_\(code)")),
                ("dca_schedule_id", scheduleID), ("timestamp", iso8601(epochSeconds: e.timestamp)),
            ]
            out += "{" + fields.map { JSONText.quoted($0.0) + ": " + JSONText.quoted($0.1) }.joined(separator: ", ") + "}\n"
        }
        return out
    }
}

/// A figure in both currencies: a JSON object `{"GBP": x, "USD": y}` (investor's currency first).
public struct CurrencyPair: Sendable, Equatable {
    public var investorCurrency: String
    public var investor: Double?
    public var assetCurrency: String
    public var asset: Double?

    public init(investorCurrency: String, investor: Double?, assetCurrency: String, asset: Double?) {
        self.investorCurrency = investorCurrency
        self.investor = investor
        self.assetCurrency = assetCurrency
        self.asset = asset
    }
}

/// The investor-currency view of a DCA run (the `currency` object of ``BacktestSummary``).
///
/// `invested`, `value` and `timeWeightedReturnPercent` are numbers in both currencies; the money-weighted returns
/// (percent a year) are `null` in a currency whose flows have no XIRR. `fxEffectPercent` =
/// `(1 + TWR investor) / (1 + TWR asset) − 1`, in percent. `barsWithPreviousRate`: bars converted with an earlier
/// day's rate; `executions`: filled purchases.
public struct BacktestCurrencySummary: Sendable, Equatable, Codable {
    public var investorCurrency: String
    public var assetCurrency: String
    public var fxFile: String
    public var barsWithPreviousRate: Int
    public var executions: Int
    public var invested: CurrencyPair
    public var value: CurrencyPair
    public var timeWeightedReturnPercent: CurrencyPair
    public var moneyWeightedReturnPercent: CurrencyPair
    public var fxEffectPercent: Double

    public init(
        investorCurrency: String, assetCurrency: String, fxFile: String, barsWithPreviousRate: Int, executions: Int,
        invested: CurrencyPair, value: CurrencyPair, timeWeightedReturnPercent: CurrencyPair,
        moneyWeightedReturnPercent: CurrencyPair, fxEffectPercent: Double
    ) {
        self.investorCurrency = investorCurrency
        self.assetCurrency = assetCurrency
        self.fxFile = fxFile
        self.barsWithPreviousRate = barsWithPreviousRate
        self.executions = executions
        self.invested = invested
        self.value = value
        self.timeWeightedReturnPercent = timeWeightedReturnPercent
        self.moneyWeightedReturnPercent = moneyWeightedReturnPercent
        self.fxEffectPercent = fxEffectPercent
    }

    enum CodingKeys: String, CodingKey {
        case investorCurrency, assetCurrency, fxFile, barsWithPreviousRate, executions, invested, value,
            timeWeightedReturnPercent, moneyWeightedReturnPercent, fxEffectPercent
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(investorCurrency, forKey: .investorCurrency)
        try c.encode(assetCurrency, forKey: .assetCurrency)
        try c.encode(fxFile, forKey: .fxFile)
        try c.encode(barsWithPreviousRate, forKey: .barsWithPreviousRate)
        try c.encode(executions, forKey: .executions)
        for (key, pair) in [(CodingKeys.invested, invested), (.value, value),
                            (.timeWeightedReturnPercent, timeWeightedReturnPercent),
                            (.moneyWeightedReturnPercent, moneyWeightedReturnPercent)] {
            var nested = c.nestedContainer(keyedBy: APIJSONValue.Key.self, forKey: key)
            try nested.encodeIfPresent(pair.investor, forKey: APIJSONValue.Key(pair.investorCurrency))
            try nested.encodeIfPresent(pair.asset, forKey: APIJSONValue.Key(pair.assetCurrency))
        }
        try c.encode(fxEffectPercent, forKey: .fxEffectPercent)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        investorCurrency = try c.decode(String.self, forKey: .investorCurrency)
        assetCurrency = try c.decode(String.self, forKey: .assetCurrency)
        fxFile = try c.decode(String.self, forKey: .fxFile)
        barsWithPreviousRate = try c.decode(Int.self, forKey: .barsWithPreviousRate)
        executions = try c.decode(Int.self, forKey: .executions)
        let (i, a) = (investorCurrency, assetCurrency)
        func pair(_ key: CodingKeys) throws -> CurrencyPair {
            let nested = try c.nestedContainer(keyedBy: APIJSONValue.Key.self, forKey: key)
            return CurrencyPair(
                investorCurrency: i, investor: try nested.decodeIfPresent(Double.self, forKey: APIJSONValue.Key(i)),
                assetCurrency: a, asset: try nested.decodeIfPresent(Double.self, forKey: APIJSONValue.Key(a)))
        }
        invested = try pair(.invested)
        value = try pair(.value)
        timeWeightedReturnPercent = try pair(.timeWeightedReturnPercent)
        moneyWeightedReturnPercent = try pair(.moneyWeightedReturnPercent)
        fxEffectPercent = try c.decode(Double.self, forKey: .fxEffectPercent)
    }
}

/// The CSV forms of a backtest. Numbers as ``APIJSON`` writes them (shortest round-trip form: `100000.0`,
/// `0.001`), timestamps ISO-8601 UTC with `Z`, text quoted only when it holds `,`, `"` or a line break
/// (RFC 4180), lines ending with `\n`. A non-finite number is an error naming row and column, never empty.
public enum BacktestCSV {
    /// The trade log: one row per closed trade, in exit order.
    ///
    /// Columns: the ``Trade`` contract's fields in its order, `id` first
    /// (`id,symbol,entryPrice,exitPrice,shares,entryTime,exitTime,pnl,pnlPercent,signalType`), then `quantity`
    /// with fractional sizing (the exact amount; `shares` is rounded toward zero), then two backtest columns:
    /// `commission` (commissions and fees at entry and exit, in currency) and `exitReason`
    /// (`signal`, `stop-loss`, `take-profit`). `pnl` is net of `commission`; `pnlPercent` is a percent.
    ///
    /// - Throws: ``APIContractError`` or ``APIEncodingError`` naming the trade and field.
    public static func tradeLog(_ result: BacktestResult) throws -> String {
        let fractional = result.configuration.fractionalShares
        var out = "id,symbol,entryPrice,exitPrice,shares,entryTime,exitTime,pnl,pnlPercent,signalType"
        out += fractional ? ",quantity,commission,exitReason\n" : ",commission,exitReason\n"
        for (i, closed) in result.trades.enumerated() {
            let t = try BacktestContracts.trade(closed, fractional: fractional)
            func number(_ x: Double, _ field: String) throws(APIEncodingError) -> String {
                guard let text = APIJSON.number(x) else {
                    throw APIEncodingError(field: "trades[\(i)].\(field)", message: "non-finite number \(x)")
                }
                return text
            }
            var cells = [
                TradeHistory.csvText(t.id), TradeHistory.csvText(t.symbol), try number(t.entryPrice, "entryPrice"),
                try number(t.exitPrice, "exitPrice"), String(t.shares), t.entryTime.description, t.exitTime.description,
                try number(t.pnl, "pnl"), try number(t.pnlPercent, "pnlPercent"), t.signalType.rawValue,
            ]
            if fractional { cells.append(try number(closed.shares, "quantity")) }
            cells += [try number(closed.commission, "commission"), closed.exitReason.rawValue]
            out += cells.joined(separator: ",") + "\n"
        }
        return out
    }

    /// The equity curve: one row per timeline step, columns
    /// `timestamp,equity,cash,positionsValue,contribution,drawdownPercent`.
    ///
    /// `positionsValue = equity − cash`; `contribution` is the deposit made at the step's close (0 elsewhere);
    /// `drawdownPercent` (≤ 0, a percent) is the fall of the time-weighted wealth index
    /// `Wₜ = Wₜ₋₁ (Eₜ − Dₜ) / Eₜ₋₁` from its running peak, so its minimum is the summary's `maxDrawdownPercent`.
    ///
    /// - Throws: ``APIEncodingError`` naming the row and column of a non-finite number.
    public static func equityCurve(_ result: BacktestResult) throws(APIEncodingError) -> String {
        var out = "timestamp,equity,cash,positionsValue,contribution,drawdownPercent\n"
        var wealth = 1.0, peak = 1.0
        let columns = ["equity", "cash", "positionsValue", "contribution", "drawdownPercent"]
        for t in result.timestamps.indices {
            if t > 0 && result.equity[t - 1] > 0 { wealth *= (result.equity[t] - result.contributions[t]) / result.equity[t - 1] }
            peak = max(peak, wealth)
            let drawdown = (wealth / peak - 1) * 100
            let fields = [result.equity[t], result.cash[t], result.equity[t] - result.cash[t], result.contributions[t], drawdown]
            out += iso8601(epochSeconds: result.timestamps[t])
            for (k, x) in fields.enumerated() {
                guard let text = APIJSON.number(x) else {
                    throw APIEncodingError(field: "equity[\(t)].\(columns[k])", message: "non-finite number \(x)")
                }
                out += "," + text
            }
            out += "\n"
        }
        return out
    }
}
