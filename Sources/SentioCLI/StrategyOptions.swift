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

    @Option(help: ArgumentHelp("dca: investing period (default: month).", valueName: "PERIOD"))
    var every: ContributionPeriod?

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
            rsiLower: rsiLower, rsiUpper: rsiUpper, dcaAmount: amount, dcaPeriod: every)
    }

    func validate() throws {
        if let c = capital, !(c > 0 && c.isFinite) { throw ValidationError("--capital must be a positive amount, got \(c)") }
        if !(commission >= 0 && commission < 1) { throw ValidationError("--commission must be a rate in [0, 1), got \(commission)") }
        if !(fee >= 0 && fee.isFinite) { throw ValidationError("--fee must be >= 0, got \(fee)") }
        if !(slippageBps >= 0 && slippageBps < 10_000) { throw ValidationError("--slippage-bps must be in [0, 10000), got \(slippageBps)") }
        if let n = maxPositions, n < 1 { throw ValidationError("--max-positions must be at least 1, got \(n)") }
        if let f = fraction, !(f > 0 && f <= 1) { throw ValidationError("--fraction must be in (0, 1], got \(f)") }
        if let s = stopLoss, !(s > 0 && s < 100) { throw ValidationError("--stop-loss must be a percent in (0, 100), got \(s)") }
        if let t = takeProfit, !(t > 0 && t.isFinite) { throw ValidationError("--take-profit must be a positive percent, got \(t)") }
        if maxPositions != nil && sizing != nil && sizing != .equalWeight {
            throw ValidationError("--max-positions applies to --sizing equal-weight only")
        }
        if fraction != nil && sizing != .fraction { throw ValidationError("--fraction needs --sizing fraction") }
        if sizing == .fraction && fraction == nil { throw ValidationError("--sizing fraction needs --fraction F") }
        if strategy != .rsi && (rsiLower != nil || rsiUpper != nil) {
            throw ValidationError("--rsi-lower and --rsi-upper apply to --strategy rsi only")
        }
        if strategy != .rsi && strategy != .sentio && rsiPeriod != nil {
            throw ValidationError("--rsi-period applies to --strategy rsi and sentio only")
        }
        let modelFlags = model.modelOnlyFlagsGiven
        if strategy != .sentio && !modelFlags.isEmpty {
            throw ValidationError("\(modelFlags.joined(separator: ", ")) \(modelFlags.count == 1 ? "applies" : "apply") to --strategy sentio only (signal model parameters)")
        }
        if let p = rsiPeriod, p < 1 { throw ValidationError("--rsi-period must be at least 1, got \(p)") }
        if let p = rsiPeriod, p > maximumIndicatorPeriod {
            throw ValidationError("--rsi-period must be at most \(maximumIndicatorPeriod) bars, got \(p)")
        }
        let rsi = basicRequest.resolvedRSI
        if !(0 <= rsi.lower && rsi.lower < rsi.upper && rsi.upper <= 100) {
            throw ValidationError("--rsi-lower must be below --rsi-upper, both in [0, 100]; got \(rsi.lower) and \(rsi.upper)")
        }
        if strategy != .dca && (amount != nil || every != nil) {
            throw ValidationError("--amount and --every apply to --strategy dca only")
        }
        if let a = amount, !(a > 0 && a.isFinite) { throw ValidationError("--amount must be a positive amount, got \(a)") }
        if strategy == .dca {
            if capital != nil { throw ValidationError("--capital conflicts with --strategy dca: DCA starts with no cash and deposits --amount each period") }
            if stopLoss != nil || takeProfit != nil { throw ValidationError("--stop-loss and --take-profit do not apply to --strategy dca (it never sells)") }
        }
    }
}

extension StrategyKind: ExpressibleByArgument {}
extension FillTiming: ExpressibleByArgument {}
extension SizingRule: ExpressibleByArgument {}
extension ContributionPeriod: ExpressibleByArgument {}
