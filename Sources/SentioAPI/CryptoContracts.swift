import SentioCore
import SentioFunds

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
///
/// **Valuation rule.** A holding is valued at the close of the last bar of its symbol's series whose timestamp
/// is before the end of the valuation date (UTC midnight of the next day): the latest close *at or before* the
/// valuation date, never a later one. `valueUsd = amount × close`; `totalValue = Σ valueUsd` in holdings order.
/// Symbols match the series' symbols ignoring case. A holding whose symbol has no series, or whose series has
/// no bar at or before the valuation date, is an ``APIContractError`` naming the symbol — never a value of 0.
public enum CryptoContracts {
    /// Values each holding (see ``CryptoContracts`` for the rule). Holdings keep their order.
    ///
    /// - Throws: ``APIContractError`` for a holding without a series, without a bar on or before the
    ///   valuation date, with a negative or non-finite amount, or a non-finite close.
    public static func holdings(
        _ inputs: [CryptoHoldingInput], series: [OHLCVSeries], valuationDate: CivilDate
    ) throws(APIContractError) -> CryptoHoldingsResponse {
        try value(inputs.map { ($0, nil) }, series: series, valuationDate: valuationDate)
    }

    /// Values the holdings of a holdings file (SentioFunds `HoldingsFile`); errors name the file and line of
    /// the holding (`holdings.csv line 3 (SOLUSD)`).
    public static func holdings(
        of file: HoldingsFile, series: [OHLCVSeries], valuationDate: CivilDate
    ) throws(APIContractError) -> CryptoHoldingsResponse {
        try value(file.holdings.map { h in
            (CryptoHoldingInput(symbol: h.symbol, name: h.name, amount: h.amount.double),
             h.line > 0 ? "\(file.file) line \(h.line)" : file.file)
        }, series: series, valuationDate: valuationDate)
    }

    private static func value(
        _ inputs: [(input: CryptoHoldingInput, location: String?)], series: [OHLCVSeries], valuationDate: CivilDate
    ) throws(APIContractError) -> CryptoHoldingsResponse {
        var bySymbol: [String: OHLCVSeries] = [:]
        for s in series where bySymbol[s.symbol.uppercased()] == nil { bySymbol[s.symbol.uppercased()] = s }
        let end = valuationDate.epochSeconds + 86_400
        var holdings: [CryptoHolding] = []
        var total = 0.0
        for (h, location) in inputs {
            let subject = location.map { "\($0) (\(h.symbol))" } ?? h.symbol
            guard h.amount.isFinite, h.amount >= 0 else {
                throw APIContractError(subject: subject, field: "amount", message: "is \(h.amount): an amount held is finite and not negative")
            }
            guard let s = bySymbol[h.symbol.uppercased()] else {
                let known = series.map(\.symbol).sorted().joined(separator: ", ")
                throw APIContractError(subject: subject, field: "valueUsd",
                    message: "no market series for \(h.symbol) (the prices have \(known.isEmpty ? "none" : known))")
            }
            // Last bar with timestamp < end (timestamps strictly increase).
            var lo = 0, hi = s.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if s.timestamps[mid] < end { lo = mid + 1 } else { hi = mid }
            }
            guard lo > 0 else {
                let first = s.count > 0 ? " (its first bar is \(iso8601(epochSeconds: s.timestamps[0])))" : ""
                throw APIContractError(subject: subject, field: "valueUsd",
                    message: "no price of \(h.symbol) at or before the valuation date \(valuationDate)\(first)")
            }
            let close = s.close[lo - 1]
            guard close.isFinite, close >= 0 else {
                throw APIContractError(subject: subject, field: "valueUsd", message: "close is \(close) at \(iso8601(epochSeconds: s.timestamps[lo - 1]))")
            }
            let value = h.amount * close
            total += value
            holdings.append(CryptoHolding(
                id: ContractID.make("crypto", h.symbol), symbol: h.symbol, name: h.name, amount: h.amount, valueUsd: value))
        }
        return CryptoHoldingsResponse(holdings: holdings, totalValue: total)
    }
}
