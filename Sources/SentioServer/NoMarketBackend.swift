import Foundation
import SentioAPI
import SentioData

/// The backend of a server that serves only the apps' account services (no symbol, no market data): every market
/// endpoint answers 503 with ``reason``, and bars are refused the same way.
public final class NoMarketBackend: LiveBackend {
    /// Why there is no market data (the 503's message).
    public let reason: String

    public init(reason: String = "no market data is served: this server was started without symbols (give --replay DIR, --follow DIR or --symbols LIST)") {
        self.reason = reason
    }

    var unavailable: ServerError { ServerError(status: .serviceUnavailable, message: reason) }

    public var universe: [String] { [] }
    public func ingest(_ bars: [FeedBar]) throws -> IngestResult { throw unavailable }
    public func signals() throws -> SignalsResponse { throw unavailable }
    public func currentMessages() -> [LiveMessage] { [] }
    public func symbolDetail(_ symbol: String, timeframe: Timeframe) throws -> SymbolDetail? { throw unavailable }
    public func portfolio() throws -> Portfolio { throw unavailable }
    public func tradeHistory() throws -> TradeHistory { throw unavailable }
    public func finish() throws {}
}
