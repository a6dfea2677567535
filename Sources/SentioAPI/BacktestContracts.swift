import SentioBacktest
import SentioCore
import SentioData

/// Adapters from a backtest (`BacktestResult`, SentioBacktest) to ``Position``, ``Trade``, ``Portfolio`` and
/// ``TradeHistory``.
///
/// Sizing: `shares` is the engine's amount rounded toward zero; when the run allows fractional shares
/// (`configuration.fractionalShares`) every position and trade also carries the exact amount as the extra
/// key `quantity`. Money figures are the engine's at full precision.
public enum BacktestContracts {
    /// The contract form of an open position: `pnl = (currentPrice − entryPrice) × quantity`,
    /// `pnlPercent = 100 × (currentPrice − entryPrice) / entryPrice`.
    /// - Throws: ``APIContractError`` for a non-finite or out-of-range amount or price.
    public static func position(_ p: OpenPosition, fractional: Bool) throws(APIContractError) -> Position {
        let shares = try wholeShares(p.shares, subject: p.symbol)
        try finite(p.symbol, ("entryPrice", p.entryPrice), ("currentPrice", p.currentPrice))
        guard p.entryPrice > 0 else {
            throw APIContractError(subject: p.symbol, field: "entryPrice", message: "is \(p.entryPrice): pnlPercent needs a positive entry price")
        }
        let entryTime = APITimestamp(epochSeconds: p.entryTime)
        return Position(
            id: ContractID.make("position", p.symbol, entryTime.description), symbol: p.symbol,
            entryPrice: p.entryPrice, currentPrice: p.currentPrice, shares: shares, entryTime: entryTime,
            pnl: (p.currentPrice - p.entryPrice) * p.shares,
            pnlPercent: 100 * (p.currentPrice - p.entryPrice) / p.entryPrice,
            quantity: fractional ? p.shares : nil)
    }

    /// The contract form of a closed trade (the engine's `pnl` and `pnlPercent`, net of costs).
    /// - Throws: ``APIContractError`` for a non-finite figure or a `signalType` that is not BUY/SELL/HOLD.
    public static func trade(_ t: ClosedTrade, fractional: Bool) throws(APIContractError) -> Trade {
        let shares = try wholeShares(t.shares, subject: t.symbol)
        try finite(t.symbol, ("entryPrice", t.entryPrice), ("exitPrice", t.exitPrice), ("pnl", t.pnl),
            ("pnlPercent", t.pnlPercent))
        guard let type = APISignalType(rawValue: t.signalType) else {
            throw APIContractError(subject: t.symbol, field: "signalType", message: "unknown signal type \(t.signalType)")
        }
        let entry = APITimestamp(epochSeconds: t.entryTime), exit = APITimestamp(epochSeconds: t.exitTime)
        return Trade(
            id: ContractID.make("trade", t.symbol, entry.description, exit.description), symbol: t.symbol,
            entryPrice: t.entryPrice, exitPrice: t.exitPrice, shares: shares, entryTime: entry, exitTime: exit,
            pnl: t.pnl, pnlPercent: t.pnlPercent, signalType: type, quantity: fractional ? t.shares : nil)
    }

    /// `GET /portfolio` at the end of `result` (see ``Portfolio`` for every formula, `dayPnL` included).
    ///
    /// - Parameters:
    ///   - result: the finished backtest.
    ///   - recentTrades: how many closed trades to list, newest exit first (default 10).
    ///   - exchangeTimeZone: whose calendar days delimit "today" for `dayPnL` (default `ExchangeTimeZone.newYork`, SentioData).
    /// - Throws: ``APIContractError`` for a run without steps, a zero base for a percent (nothing invested,
    ///   or a previous day's value of 0), or a non-finite figure.
    public static func portfolio(
        _ result: BacktestResult, recentTrades: Int = 10, exchangeTimeZone: ExchangeTimeZone = .newYork
    ) throws(APIContractError) -> Portfolio {
        let n = result.timestamps.count
        guard n > 0, result.equity.count == n, result.cash.count == n, result.contributions.count == n else {
            throw APIContractError(subject: "portfolio", field: "currentValue", message: "the backtest has no steps")
        }
        let initial = result.configuration.initialCapital
        let invested = initial + result.totalContributions
        let current = result.equity[n - 1]
        let totalPnL = current - invested
        guard invested > 0 else {
            throw APIContractError(subject: "portfolio", field: "totalPnLPercent",
                message: "nothing was invested (initial capital plus deposits is \(invested))")
        }
        // "Today" is the exchange-local date of the last step; the previous value is the last step before it.
        let today = exchangeTimeZone.localDate(result.timestamps[n - 1])
        var k = n - 1
        while k >= 0 && exchangeTimeZone.localDate(result.timestamps[k]) >= today { k -= 1 }
        let previous = k >= 0 ? result.equity[k] : initial
        var depositsToday = 0.0
        for i in (k + 1)..<n { depositsToday += result.contributions[i] }
        let dayPnL = current - previous - depositsToday
        guard previous > 0 else {
            throw APIContractError(subject: "portfolio", field: "dayPnLPercent",
                message: "the account was worth \(previous) at the previous day's close")
        }
        let fractional = result.configuration.fractionalShares
        var positions: [Position] = []
        for p in result.openPositions { positions.append(try position(p, fractional: fractional)) }
        let order = result.trades.indices.sorted {
            (result.trades[$0].exitTime, $0) > (result.trades[$1].exitTime, $1)
        }
        var recent: [Trade] = []
        for i in order.prefix(max(0, recentTrades)) { recent.append(try trade(result.trades[i], fractional: fractional)) }
        var all: [Trade] = []
        for t in result.trades { all.append(try trade(t, fractional: fractional)) }
        let portfolio = Portfolio(
            initialCapital: initial, currentValue: current, cashBalance: result.cash[n - 1], totalPnL: totalPnL,
            totalPnLPercent: 100 * totalPnL / invested, dayPnL: dayPnL, dayPnLPercent: 100 * dayPnL / previous,
            positions: positions, recentTrades: recent, trades: all)
        try finite("portfolio", ("initialCapital", portfolio.initialCapital), ("currentValue", portfolio.currentValue),
            ("cashBalance", portfolio.cashBalance), ("totalPnL", portfolio.totalPnL),
            ("totalPnLPercent", portfolio.totalPnLPercent), ("dayPnL", portfolio.dayPnL),
            ("dayPnLPercent", portfolio.dayPnLPercent))
        return portfolio
    }

    /// The trade history of `result`: every closed trade in the engine's (exit) order, the win rate in percent.
    /// - Throws: ``APIContractError`` when there is no closed trade (the win rate is undefined, not 0).
    public static func tradeHistory(_ result: BacktestResult) throws(APIContractError) -> TradeHistory {
        guard !result.trades.isEmpty else {
            throw APIContractError(subject: "trades", field: "winRate", message: "no closed trade: the win rate is undefined")
        }
        let fractional = result.configuration.fractionalShares
        var trades: [Trade] = []
        for t in result.trades { trades.append(try trade(t, fractional: fractional)) }
        let wins = result.trades.filter { $0.pnl > 0 }.count
        return TradeHistory(
            winRate: Double(wins) / Double(trades.count) * 100, totalTrades: trades.count, trades: trades)
    }

    static func wholeShares(_ amount: Double, subject: String) throws(APIContractError) -> Int {
        guard amount.isFinite, abs(amount) < 9.0e15 else {
            throw APIContractError(
                subject: subject, field: "shares",
                message: amount.isFinite
                    ? "\(amount) shares is beyond the whole-share counts the contract carries exactly (below 9e15)"
                    : "\(amount) is not a finite share count")
        }
        return Int(amount.rounded(.towardZero))
    }

    static func finite(_ subject: String, _ fields: (String, Double)...) throws(APIContractError) {
        for (field, x) in fields where !x.isFinite {
            throw APIContractError(subject: subject, field: field, message: "is \(x)")
        }
    }
}
