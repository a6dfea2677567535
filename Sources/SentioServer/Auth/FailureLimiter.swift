import Foundation
import NIOConcurrencyHelpers

/// Counts failures (wrong passwords, reset requests) per key — a client IP (`login-ip:ADDRESS`) or an account
/// (`login-account:EMAIL`, whether or not the account exists) — in a sliding window, and blocks a key that reached the
/// limit until its oldest failure in the window is older than the window.
///
/// Default: 5 failures in 15 minutes. The clock is the caller's (`now`), so tests step it instead of waiting.
/// Memory is bounded: when more than ``maximumKeys`` keys are tracked, the keys without a failure inside the
/// window are dropped; if that is not enough, the keys with the oldest latest failure go first.
public final class FailureLimiter: Sendable {
    public let limit: Int
    public let window: TimeInterval
    public let maximumKeys: Int
    private let failures = NIOLockedValueBox<[String: [Double]]>([:])

    public init(limit: Int = 5, window: TimeInterval = 15 * 60, maximumKeys: Int = 100_000) {
        precondition(limit >= 1 && window > 0 && maximumKeys >= 1)
        self.limit = limit
        self.window = window
        self.maximumKeys = maximumKeys
    }

    /// `nil` when none of `keys` is blocked at `now`, else the whole seconds (≥ 1) until all of them are free again
    /// (for `Retry-After`).
    public func retryAfter(_ keys: [String], now: Date) -> Int? {
        let t = now.timeIntervalSince1970
        return failures.withLockedValue { table in
            var wait: Double = 0
            for key in keys {
                let recent = (table[key] ?? []).filter { $0 > t - window }
                if recent.count >= limit {
                    // Free once all but limit-1 of the recent failures have left the window.
                    let sorted = recent.sorted()
                    wait = max(wait, sorted[recent.count - limit] + window - t)
                }
            }
            return wait > 0 ? max(1, Int(wait.rounded(.up))) : nil
        }
    }

    /// Records one failure for each of `keys` at `now`.
    public func record(_ keys: [String], now: Date) {
        let t = now.timeIntervalSince1970
        failures.withLockedValue { table in
            for key in keys {
                var list = (table[key] ?? []).filter { $0 > t - window }
                list.append(t)
                table[key] = list
            }
            if table.count > maximumKeys {
                table = table.filter { $0.value.contains { $0 > t - window } }
                if table.count > maximumKeys {
                    let keep = table.sorted { ($0.value.last ?? 0) > ($1.value.last ?? 0) }.prefix(maximumKeys)
                    table = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
                }
            }
        }
    }

    /// Forgets the failures of `key` (an account after a successful login).
    public func clear(_ key: String) {
        failures.withLockedValue { _ = $0.removeValue(forKey: key) }
    }

    /// Keys tracked now (bounded by ``maximumKeys``).
    public var trackedKeys: Int { failures.withLockedValue { $0.count } }
}
