import SentioAPI
import SentioBacktest
import SentioStore

/// The records of a backtest run that a store saves (`sentio backtest --save`).
extension BacktestRunReport {
    /// The run as the store saves it: the summary's configuration object as `configJSON` and the whole summary
    /// as `statisticsJSON`, both exactly the bytes `APIJSON` produced (the store keeps them as given), so
    /// `sentio runs show` returns what `sentio backtest --format json` printed.
    public func storedRun(label: String?, inputFingerprint: String) throws(APIEncodingError) -> StoredRun {
        StoredRun(
            strategy: summary.config.strategy.rawValue, symbols: result.symbols,
            configJSON: try APIJSON.encode(summary.config), statisticsJSON: try summaryJSON(),
            inputFingerprint: inputFingerprint, label: label, startTimestamp: result.timestamps.first,
            endTimestamp: result.timestamps.last, initialCapital: result.configuration.initialCapital,
            finalEquity: result.finalEquity)
    }

    /// Closed trades, then the positions still open (no exit).
    public var storedTrades: [StoredTrade] {
        result.trades.map { t in
            StoredTrade(
                symbol: t.symbol, entryTimestamp: t.entryTime, entryPrice: t.entryPrice, exitTimestamp: t.exitTime,
                exitPrice: t.exitPrice, shares: t.shares, pnl: t.pnl, pnlPercent: t.pnlPercent, commission: t.commission,
                signalType: t.signalType, exitReason: t.exitReason.rawValue)
        } + result.openPositions.map { p in
            StoredTrade(
                symbol: p.symbol, entryTimestamp: p.entryTime, entryPrice: p.entryPrice, shares: p.shares,
                commission: p.entryCommission, signalType: "BUY")
        }
    }

    /// One point per timeline step; `contribution` only where a deposit was made.
    public var storedEquity: [StoredEquityPoint] {
        result.timestamps.indices.map { t in
            StoredEquityPoint(
                timestamp: result.timestamps[t], equity: result.equity[t], cash: result.cash[t],
                contribution: result.contributions[t] != 0 ? result.contributions[t] : nil)
        }
    }
}
