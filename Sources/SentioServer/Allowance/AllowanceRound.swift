import Foundation
import Logging
import ServiceLifecycle

/// The server's weekly allowance: at start (catching up every week missed while it was down), then every minute,
/// `AllowanceService.payDueAllowances()`, off the event loops.
struct AllowanceRound: Service {
    let service: AllowanceService
    let logger: Logger
    /// Between rounds.
    var interval: Duration = .seconds(60)

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    do {
                        let paid = try await SentioHTTPServer.offload { try service.payDueAllowances() }
                        if paid > 0 { logger.info("weekly allowance: \(paid) payment(s)") }
                    } catch {
                        logger.error("weekly allowance: \(error)")
                    }
                    try await Task.sleep(for: interval)
                }
            }
        } catch is CancellationError {}
    }
}
