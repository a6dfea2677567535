import SentioCore

/// One line of a crypto holdings input: the coin's market symbol (the name of its OHLCV series, e.g.
/// `BTCUSD`), its display name, and the amount held in coin units.
public struct CryptoHoldingInput: Sendable, Hashable {
    public var symbol: String
    public var name: String
    public var amount: Double

    public init(symbol: String, name: String, amount: Double) {
        self.symbol = symbol
        self.name = name
        self.amount = amount
    }
}

/// Adapters from crypto holdings and market series to ``CryptoHolding`` and ``CryptoHoldingsResponse``.
public enum CryptoContracts {
    /// Values each holding at the close of the last bar of its series dated on or before the end of
    /// `valuationDate` (UTC): `valueUsd = amount × close`; `totalValue = Σ valueUsd`. Holdings keep their order.
    ///
    /// - Throws: ``APIContractError`` for a holding without a series, without a bar on or before the
    ///   valuation date, with a negative or non-finite amount, or a non-finite close.
    public static func holdings(
        _ inputs: [CryptoHoldingInput], series: [OHLCVSeries], valuationDate: CivilDate
    ) throws(APIContractError) -> CryptoHoldingsResponse {
        var bySymbol: [String: OHLCVSeries] = [:]
        for s in series where bySymbol[s.symbol] == nil { bySymbol[s.symbol] = s }
        let end = valuationDate.epochSeconds + 86_400
        var holdings: [CryptoHolding] = []
        var total = 0.0
        for h in inputs {
            guard h.amount.isFinite, h.amount >= 0 else {
                throw APIContractError(subject: h.symbol, field: "amount", message: "is \(h.amount): an amount held is finite and not negative")
            }
            guard let s = bySymbol[h.symbol] else {
                throw APIContractError(subject: h.symbol, field: "valueUsd", message: "no market series for \(h.symbol)")
            }
            // Last bar with timestamp < end (timestamps strictly increase).
            var lo = 0, hi = s.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if s.timestamps[mid] < end { lo = mid + 1 } else { hi = mid }
            }
            guard lo > 0 else {
                throw APIContractError(subject: h.symbol, field: "valueUsd",
                    message: "no bar of \(h.symbol) on or before the valuation date \(valuationDate)")
            }
            let close = s.close[lo - 1]
            guard close.isFinite else {
                throw APIContractError(subject: h.symbol, field: "valueUsd", message: "close is \(close) at \(iso8601(epochSeconds: s.timestamps[lo - 1]))")
            }
            let value = h.amount * close
            total += value
            holdings.append(CryptoHolding(
                id: ContractID.make("crypto", h.symbol), symbol: h.symbol, name: h.name, amount: h.amount, valueUsd: value))
        }
        return CryptoHoldingsResponse(holdings: holdings, totalValue: total)
    }
}
