import SentioCore

/// Daily exchange rates: units of the asset's currency per unit of the investor's currency (for a GBP investor
/// buying USD assets, the GBPUSD close: USD per GBP).
public struct ExchangeRates: Sendable, Equatable {
    /// Strictly increasing dates.
    public var dates: [CivilDate]
    /// Finite rates > 0, one per date.
    public var rates: [Double]

    /// - Precondition: `dates` strictly increase and every rate is finite and > 0 (readers check this and say
    ///   where it fails).
    public init(dates: [CivilDate], rates: [Double]) {
        precondition(dates.count == rates.count && !dates.isEmpty, "one rate per date, at least one")
        precondition(zip(dates, dates.dropFirst()).allSatisfy { $0 < $1 }, "FX dates must increase")
        precondition(rates.allSatisfy { $0.isFinite && $0 > 0 }, "FX rates must be finite and > 0")
        self.dates = dates
        self.rates = rates
    }

    /// The rate of `date`, or of the last date before it, with the date it is from; `nil` before the first date.
    public func rate(on date: CivilDate) -> (rate: Double, date: CivilDate)? {
        var lo = 0, hi = dates.count  // first index with dates[i] > date
        while lo < hi {
            let mid = (lo + hi) / 2
            if dates[mid] <= date { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? nil : (rates[lo - 1], dates[lo - 1])
    }
}

/// Asset prices translated into the investor's currency, bar by bar, so that the one simulator (``Backtest``)
/// runs a DCA plan in the investor's currency without a second fill logic.
///
/// Rule: every price of a bar (open, high, low, close) is divided by the exchange rate of the bar's UTC date
/// (its FX close), or, when the FX series has no rate that day, by the last rate before it (listed in
/// ``previousRateBars``). A bar before the first FX date is an error: there is no rate to convert its
/// contribution. Volumes are unchanged. A contribution executed at a bar's open or close is therefore converted
/// at the execution day's FX close: `shares = amount ÷ (price in asset currency ÷ rate)`.
public struct InvestorCurrencyMarket: Sendable {
    /// The series with prices in the investor's currency.
    public var series: [OHLCVSeries]
    /// The original series (prices in the asset's currency).
    public var assetSeries: [OHLCVSeries]
    /// The exchange rates the prices were translated with.
    public var rates: ExchangeRates
    /// Per symbol and bar: the rate used.
    public var barRates: [[Double]]
    /// Bars converted with an earlier day's rate (no rate on the bar's date), in symbol then bar order.
    public var previousRateBars: [(symbol: String, barDate: CivilDate, rateDate: CivilDate)]

    /// - Throws: ``BacktestError`` naming the symbol, its first bar and the first FX date when a bar comes before
    ///   every rate.
    public init(assetSeries: [OHLCVSeries], rates: ExchangeRates, ratesName: String = "the FX series") throws(BacktestError) {
        self.assetSeries = assetSeries
        self.rates = rates
        var converted: [OHLCVSeries] = []
        var barRates: [[Double]] = []
        var previous: [(String, CivilDate, CivilDate)] = []
        for s in assetSeries {
            var r = [Double](repeating: 0, count: s.count)
            for i in 0..<s.count {
                let day = CivilDate(epochSeconds: s.timestamps[i])
                guard let found = rates.rate(on: day) else {
                    throw BacktestError(
                        "no exchange rate on or before \(day) (bar \(i + 1) of \(s.symbol)) in \(ratesName), which starts on "
                            + "\(rates.dates[0]): a contribution on that day could not be converted; give rates from \(day) or earlier")
                }
                r[i] = found.rate
                if found.date != day { previous.append((s.symbol, day, found.date)) }
            }
            func divided(_ x: [Double]) -> [Double] { zip(x, r).map { $0 / $1 } }
            converted.append(OHLCVSeries(
                symbol: s.symbol, timestamps: s.timestamps, open: divided(s.open), high: divided(s.high), low: divided(s.low),
                close: divided(s.close), volume: s.volume))
            barRates.append(r)
        }
        self.series = converted
        self.barRates = barRates
        self.previousRateBars = previous
    }

    /// The bar index of `symbol` at `timestamp`, if it has one.
    func bar(symbol: Int, at timestamp: Int64) -> Int? {
        let t = assetSeries[symbol].timestamps
        var lo = 0, hi = t.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if t[mid] < timestamp { lo = mid + 1 } else { hi = mid }
        }
        return lo < t.count && t[lo] == timestamp ? lo : nil
    }

    /// One filled DCA purchase, in both currencies.
    public struct Execution: Sendable, Equatable {
        public var symbol: String
        /// The execution bar's timestamp (UTC).
        public var timestamp: Int64
        public var quantity: Double
        /// The fill price in the asset's currency (after slippage).
        public var filledPrice: Double
        /// Investor-currency cash spent: `quantity × fill price in investor currency + commission and fee`.
        public var amount: Double
        /// The exchange rate used (the execution day's FX close, or the last before it).
        public var rate: Double
        /// The reference price (open for next-open fills, close for close fills) in the asset's currency.
        public var assetPrice: Double
        /// The same price in the investor's currency (`assetPrice ÷ rate`).
        public var investorPrice: Double
    }

    /// The filled buys of a run on ``series``, in fill order.
    public func executions(of result: BacktestResult) -> [Execution] {
        let atClose = result.configuration.fill == .close
        var out: [Execution] = []
        for o in result.orders where o.isFilled && o.side == .buy {
            let time = result.timestamps[o.resolvedStep]
            guard let i = bar(symbol: o.symbol, at: time) else { continue }
            let rate = barRates[o.symbol][i]
            let asset = atClose ? assetSeries[o.symbol].close[i] : assetSeries[o.symbol].open[i]
            let investor = atClose ? series[o.symbol].close[i] : series[o.symbol].open[i]
            out.append(Execution(
                symbol: series[o.symbol].symbol, timestamp: time, quantity: o.shares, filledPrice: o.fillPrice * rate,
                amount: o.shares * o.fillPrice + o.commission, rate: rate, assetPrice: asset, investorPrice: investor))
        }
        return out
    }
}

/// A run in the investor's currency seen in both currencies.
///
/// Rules: the investor-currency figures are the run's own (``BacktestStatistics``). The asset-currency view values
/// the same account at each step's exchange rate: equity `E′ₜ = Eₜ × rateₜ` and each deposit `D′ₜ = Dₜ × rateₜ`
/// (the rate of the step's UTC date, or the last before it), where `t` is the step at whose close the deposit
/// enters the account. Time-weighted return: `Π (E′ₜ − D′ₜ) / E′ₜ₋₁ − 1` over steps with `E′ₜ₋₁ > 0`;
/// money-weighted return: XIRR (Actual/365 Fixed) of `−D′ₜ` at each deposit's step and `+E′` at the last step.
/// FX effect: `(1 + TWR_investor) ÷ (1 + TWR_asset) − 1`, the part of the investor's time-weighted return that
/// comes from the exchange rate.
public struct CurrencyViews: Sendable, Equatable {
    public var investedInvestor: Double
    public var investedAsset: Double
    public var valueInvestor: Double
    public var valueAsset: Double
    public var timeWeightedReturnInvestorPercent: Double
    public var timeWeightedReturnAssetPercent: Double
    /// `nil` when the flows have no XIRR.
    public var moneyWeightedReturnInvestorPercent: Double?
    public var moneyWeightedReturnAssetPercent: Double?
    public var fxEffectPercent: Double

    /// - Parameter stepRates: the exchange rate of each step of `result` (see ``stepRates(_:rates:)``).
    public init(result: BacktestResult, stepRates: [Double]) {
        precondition(stepRates.count == result.timestamps.count, "one rate per step")
        let equity = result.equity, deposits = result.contributions
        let assetEquity = zip(equity, stepRates).map { $0 * $1 }
        let assetDeposits = zip(deposits, stepRates).map { $0 * $1 }
        func twr(_ e: [Double], _ d: [Double]) -> Double {
            periodReturns(equity: e, contributions: d).reduce(1.0) { $0 * (1 + $1) } - 1
        }
        func mwr(_ e: [Double], _ d: [Double]) -> Double? {
            guard let last = result.timestamps.last else { return nil }
            var flows: [(time: Int64, amount: Double)] = []
            for (i, x) in d.enumerated() where x != 0 { flows.append((result.timestamps[i], -x)) }
            flows.append((last, e.last ?? 0))
            return xirrOfCashFlows(flows).map { $0 * 100 }
        }
        investedInvestor = result.configuration.initialCapital + deposits.reduce(0, +)
        investedAsset = result.configuration.initialCapital * (stepRates.first ?? 1) + assetDeposits.reduce(0, +)
        valueInvestor = result.finalEquity
        valueAsset = assetEquity.last ?? 0
        let investorTWR = twr(equity, deposits), assetTWR = twr(assetEquity, assetDeposits)
        timeWeightedReturnInvestorPercent = investorTWR * 100
        timeWeightedReturnAssetPercent = assetTWR * 100
        moneyWeightedReturnInvestorPercent = mwr(equity, deposits)
        moneyWeightedReturnAssetPercent = mwr(assetEquity, assetDeposits)
        fxEffectPercent = ((1 + investorTWR) / (1 + assetTWR) - 1) * 100
    }

    /// The exchange rate of each step of `result` (its UTC date's rate, or the last before it).
    /// - Throws: ``BacktestError`` when a step comes before the first rate.
    public static func stepRates(_ result: BacktestResult, rates: ExchangeRates) throws(BacktestError) -> [Double] {
        var out: [Double] = []
        out.reserveCapacity(result.timestamps.count)
        for t in result.timestamps {
            let day = CivilDate(epochSeconds: t)
            guard let r = rates.rate(on: day) else { throw BacktestError("no exchange rate on or before \(day)") }
            out.append(r.rate)
        }
        return out
    }
}
