/// An action as the portfolio applies it to a holding: at the first bar at or after `time`, shares are multiplied
/// by `shareMultiplier` (per-share prices divided by it) and `cashPerShare` × shares is credited.
public struct HoldingAdjustment: Sendable, Equatable {
    public var time: Int64
    public var shareMultiplier: Double
    public var cashPerShare: Double

    public init(time: Int64, shareMultiplier: Double, cashPerShare: Double) {
        self.time = time
        self.shareMultiplier = shareMultiplier
        self.cashPerShare = cashPerShare
    }
}
