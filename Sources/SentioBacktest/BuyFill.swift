/// The one sizing rule of a buy fill: how many shares a budget buys at a reference price, after slippage,
/// commission and fee, never spending more than the cash. The simulator's fills (``Backtest``, the stepped
/// simulation of a live session) and a paper brokerage's DCA purchases (SentioLive's `PaperBrokerage`) both size
/// through ``BuyFill/size(budget:cash:price:costs:fractionalShares:)``.
public struct BuyFill: Sendable, Equatable {
    /// The fill price: the reference price × (1 + slippage).
    public var fillPrice: Double
    /// Shares bought (whole unless fractional shares are allowed).
    public var quantity: Double
    /// `quantity × fillPrice`.
    public var notional: Double
    /// `notional × commission rate + fee`.
    public var commission: Double

    /// A sized buy, or why nothing can be bought.
    public enum Sizing: Sendable, Equatable {
        case filled(BuyFill)
        case rejected(RejectionReason)
    }

    /// Sizes a buy of `min(budget, cash)` at reference price `price` (before slippage).
    ///
    /// Rule: `quantity = (min(budget, cash) − fee) ÷ (price × (1 + slippage) × (1 + commission))`, rounded down
    /// to whole shares unless `fractionalShares`; when rounding makes `notional + commission` exceed the cash by a
    /// few ulps, the quantity is stepped down one ulp at a time until it fits. Returns the rejection reason
    /// instead when nothing can be bought: `quantityOverflow` (an infinite quantity), `zeroSize` (the budget buys
    /// nothing although the cash could), `insufficientCash`.
    @inline(__always)
    public static func size(budget: Double, cash: Double, price: Double, costs: TradingCosts, fractionalShares: Bool)
        -> Sizing
    {
        let slippage = costs.slippageBasisPoints / 10_000, commissionRate = costs.commissionRate, fee = costs.feePerOrder
        let fillPrice = price * (1 + slippage)
        let unitCost = fillPrice * (1 + commissionRate)
        let budget = Swift.min(budget, cash)
        let raw = (budget - fee) / unitCost
        guard raw != .infinity else { return .rejected(.quantityOverflow) }
        var quantity = fractionalShares ? raw : raw.rounded(.down)
        if !(quantity > 0) {
            let affordable = fractionalShares ? cash > fee : (cash - fee) / unitCost >= 1
            return .rejected(affordable ? .zeroSize : .insufficientCash)
        }
        var notional = quantity * fillPrice
        var commission = notional * commissionRate + fee
        if notional + commission > cash {
            // Only reachable through rounding with fractional shares: shave the quantity to what cash pays. The
            // cost is four rounded operations away from `quantity · unitCost + fee`, so it can exceed the cash by a
            // few ulps: step the quantity down one ulp at a time until it fits (a handful of steps; 64 at most).
            quantity = (cash - fee) / unitCost
            var steps = 0
            repeat {
                quantity = quantity.nextDown
                notional = quantity * fillPrice
                commission = notional * commissionRate + fee
                steps += 1
            } while notional + commission > cash && quantity > 0 && steps < 64
            guard quantity > 0, notional + commission <= cash else { return .rejected(.insufficientCash) }
        }
        return .filled(BuyFill(fillPrice: fillPrice, quantity: quantity, notional: notional, commission: commission))
    }
}
