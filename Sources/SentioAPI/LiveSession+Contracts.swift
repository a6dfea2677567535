import SentioData
import SentioLive

extension LiveSession {
    /// `GET /portfolio` of the session (`BacktestContracts.portfolio` of
    /// `result()`).
    /// - Throws: ``APIContractError`` before the first completed step, or as the adapter does; as `result()`.
    public func portfolio(recentTrades: Int = 10, exchangeTimeZone: ExchangeTimeZone = .newYork) throws -> Portfolio {
        try BacktestContracts.portfolio(result(), recentTrades: recentTrades, exchangeTimeZone: exchangeTimeZone)
    }

    /// `GET /signals`: each symbol's latest signal, in universe order (symbols without a signal yet are left out).
    /// - Throws: ``APIContractError`` when no symbol has a signal yet, or a ready signal has a non-finite number.
    public func signals() throws -> SignalsResponse {
        try SignalContracts.response(latestSignals(), config: configuration.signalModel)
    }

    /// The trade history (`BacktestContracts.tradeHistory` of `result()`).
    /// - Throws: ``APIContractError`` when there is no closed trade; as `result()`.
    public func tradeHistory() throws -> TradeHistory {
        try BacktestContracts.tradeHistory(result())
    }
}
