import ArgumentParser
import Sentio

/// The strategy, capital, cost, sizing and fill options of `sentio backtest` and `sentio live`: one definition,
/// one validation, one ``request`` (whose defaults `BacktestRequest` resolves, for both commands).
///
/// The investor-currency options (`--currency`, `--fx`, `--events`) belong to `sentio backtest` only.
struct StrategyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Strategy to run (sentio: the signal model).", valueName: "NAME"))
    var strategy: StrategyKind = .sentio

    @Option(parsing: .unconditional, help: ArgumentHelp("Initial capital in currency (default: 100000; not with dca, which starts at 0 and deposits).", valueName: "AMOUNT"))
    var capital: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Commission charged at entry and at exit (fraction of notional, 0.001 = 0.1%).", valueName: "RATE"))
    var commission: Double = BacktestRequest.Defaults.commissionRate

    @Option(parsing: .unconditional, help: ArgumentHelp("Fixed fee per filled order, in currency.", valueName: "AMOUNT"))
    var fee: Double = 0

    @Option(name: .customLong("slippage-bps"), parsing: .unconditional, help: ArgumentHelp("Slippage against the trader, in basis points of the price (1 bps = 0.01%).", valueName: "BPS"))
    var slippageBps: Double = 0

    @Option(help: ArgumentHelp("When orders fill: next-open (decided at the close, filled at the next open) or close (same bar's close; look-ahead-prone).", valueName: "MODE"))
    var fill: FillTiming = .nextOpen

    @Option(help: ArgumentHelp("Sizing rule (default: all-in for one symbol, equal-weight for several).", valueName: "RULE"))
    var sizing: SizingRule?

    @Option(name: .customLong("max-positions"), parsing: .unconditional, help: ArgumentHelp("Equal-weight: most positions held at once, each gets equity/N (default: number of symbols).", valueName: "N"))
    var maxPositions: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Fraction sizing: share of equity per new position (fraction in (0, 1], 0.25 = 25%).", valueName: "F"))
    var fraction: Double?

    @Flag(help: "Allow fractional shares (default: whole shares).")
    var fractional = false

    @Option(name: .customLong("stop-loss"), parsing: .unconditional, help: ArgumentHelp("Stop-loss below the decision close (percent, 5 = 5%; default: none; sentio uses the signal's).", valueName: "PCT"))
    var stopLoss: Double?

    @Option(name: .customLong("take-profit"), parsing: .unconditional, help: ArgumentHelp("Take-profit above the decision close (percent, 10 = 10%; default: none; sentio uses the signal's).", valueName: "PCT"))
    var takeProfit: Double?

    @Option(name: .customLong("rsi-lower"), parsing: .unconditional, help: ArgumentHelp("rsi: buy when RSI (0 to 100, period --rsi-period) is below this (default: 30).", valueName: "X"))
    var rsiLower: Double?

    @Option(name: .customLong("rsi-upper"), parsing: .unconditional, help: ArgumentHelp("rsi: sell when RSI (0 to 100) is above this (default: 70).", valueName: "X"))
    var rsiUpper: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("dca: amount deposited and invested each period, split equally over the symbols, in currency (default: 1000).", valueName: "A"))
    var amount: Double?

    @Option(help: ArgumentHelp("dca: investing period, week or month (default: month); rebalance: rebalancing period, week, month or quarter (default: month).", valueName: "PERIOD"))
    var every: RebalancePeriod?

    @Option(help: ArgumentHelp("rebalance: the target weights, fractions of equity summing to at most 1 (the rest stays in cash), e.g. TQQQ=0.6,SQQQ=0.4; unlisted symbols are sold.", valueName: "SYMBOL=W,..."))
    var weights: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("rebalance: trade back to the weights whenever one drifts more than this band (weight units, 0.05 = 5 points) instead of every period.", valueName: "BAND"))
    var drift: Double?

    @Option(name: .customLong("ta-cross"), help: ArgumentHelp("ta-cross: LINE>REFERENCE, a TA-Lib column crossing another column of its function or a level, named as sentio indicators names columns: macd_macd>macd_macdsignal (the default), stoch_slowk>stoch_slowd, adx>25, cci>100. Buys on the cross above, sells on the cross back below.", valueName: "RULE"))
    var taCross: String?

    @Option(name: .customLong("ta-set"), help: ArgumentHelp("ta-cross: a parameter of the rule's function (repeatable; TA-Lib's names and defaults, as sentio indicators --set): macd.fastperiod=8, adx.timeperiod=20.", valueName: "FUNCTION.PARAMETER=VALUE"))
    var taSettings: [String] = []

    @OptionGroup(title: "Signal model parameters (strategy sentio)")
    var model: SignalModelOptions

    /// `--rsi-period`: the rsi strategy's period, or the signal model's RSI feature period.
    var rsiPeriod: Int? { model.rsiPeriod }

    /// The options as the library's request (no investor currency; defaults resolved by `BacktestRequest`).
    ///
    /// - Throws: `UsageError` for an unreadable or invalid `--config` file or model parameter.
    var request: BacktestRequest {
        get throws {
            var request = basicRequest
            if strategy == .sentio { request.signalModel = try model.resolve() }
            return request
        }
    }

    /// The request without the signal model (which needs reading `--config`).
    private var basicRequest: BacktestRequest {
        BacktestRequest(
            strategy: strategy, initialCapital: capital, commissionRate: commission, feePerOrder: fee,
            slippageBasisPoints: slippageBps, fill: fill, sizing: sizing, maxPositions: maxPositions, fraction: fraction,
            fractionalShares: fractional, stopLossPercent: stopLoss, takeProfitPercent: takeProfit, rsiPeriod: rsiPeriod,
            rsiLower: rsiLower, rsiUpper: rsiUpper, dcaAmount: amount,
            dcaPeriod: strategy == .rebalance ? nil : every.map { ContributionPeriod(rawValue: $0.rawValue) ?? .month },
            taCrossRule: taCross, taSettings: taSettings,
            rebalanceWeights: weights, rebalanceEvery: strategy == .rebalance ? every : nil, rebalanceDrift: drift)
    }

    func validate() throws {
        if strategy == .dca && every == .quarter { throw ValidationError("--every quarter applies to --strategy rebalance only (dca: week or month)") }
        let modelSettings = model.modelOnlyFlagsGiven.map { String($0.dropFirst(2)) }
        if let problem = basicRequest.settingsProblem(optionPrefix: "--", modelSettings: modelSettings) {
            throw ValidationError(problem)
        }
    }
}

extension StrategyKind: ExpressibleByArgument {}
extension FillTiming: ExpressibleByArgument {}
extension SizingRule: ExpressibleByArgument {}
extension ContributionPeriod: ExpressibleByArgument {}
extension RebalancePeriod: ExpressibleByArgument {}
