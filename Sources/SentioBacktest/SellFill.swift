/// The one rule of a sell fill: the proceeds of selling a quantity at a reference price, after slippage, and the
/// commission and fee on them. The simulator's exits (``Backtest``'s closing of a position) and a paper brokerage's
/// market sales (SentioLive's `PaperBrokerage`, `DELETE /api/v1/positions/{symbol}`) both fill through
/// ``SellFill/fill(quantity:price:slippage:commissionRate:fee:)``; ``BuyFill`` is the buy side.
public struct SellFill: Sendable, Equatable {
    /// The fill price: the reference price × (1 − slippage).
    public var fillPrice: Double
    /// Shares sold.
    public var quantity: Double
    /// `quantity × fillPrice`.
    public var proceeds: Double
    /// `proceeds × commission rate + fee`.
    public var commission: Double

    /// The cash the sale adds: `proceeds − commission` (negative when the fee exceeds the proceeds).
    public var net: Double { proceeds - commission }

    /// Fills a sale of `quantity` at reference price `price` (before slippage). `slippage` and `commissionRate` are
    /// fractions (`TradingCosts.slippageBasisPoints / 10,000`, `TradingCosts.commissionRate`), `fee` per order.
    @inline(__always)
    public static func fill(quantity: Double, price: Double, slippage: Double, commissionRate: Double, fee: Double) -> SellFill {
        let fillPrice = price * (1 - slippage)
        let proceeds = quantity * fillPrice
        let commission = proceeds * commissionRate + fee
        return SellFill(fillPrice: fillPrice, quantity: quantity, proceeds: proceeds, commission: commission)
    }

    /// ``fill(quantity:price:slippage:commissionRate:fee:)`` with `costs`.
    @inline(__always)
    public static func fill(quantity: Double, price: Double, costs: TradingCosts) -> SellFill {
        fill(quantity: quantity, price: price, slippage: costs.slippageBasisPoints / 10_000, commissionRate: costs.commissionRate,
             fee: costs.feePerOrder)
    }
}
