import Foundation
import Synchronization

/// A token bucket shared by all calls of one client: `burst` calls may go at once, then one per
/// `1/rate` seconds. Waiting is cancellable.
///
/// Its state sits behind a lock, so ``update(_:)`` is synchronous: a call that asks for a token
/// after it returns is paced by the new policy (``FlickrClient/updateContext(_:)`` relies on it).
final class RateLimiter: Sendable {
    private struct Bucket {
        var policy: RatePolicy
        var tokens: Double
        var last: ContinuousClock.Instant
    }

    private let bucket: Mutex<Bucket>
    private let clock = ContinuousClock()

    init(policy: RatePolicy) {
        bucket = Mutex(Bucket(policy: policy, tokens: Double(policy.burst), last: clock.now))
    }

    /// The policy in force.
    var policy: RatePolicy { bucket.withLock { $0.policy } }

    func update(_ policy: RatePolicy) {
        bucket.withLock { b in
            if policy != b.policy {
                b.policy = policy
                b.tokens = min(b.tokens, Double(policy.burst))
            }
        }
    }

    /// Takes one token, waiting until one is available.
    func acquire() async throws {
        // Reserve the token now (tokens may go negative), then sleep until it would exist.
        let wait = bucket.withLock { b -> Double? in
            guard let rate = b.policy.callsPerSecond, rate > 0 else { return nil }
            let now = clock.now
            let elapsed = b.last.duration(to: now)
            b.last = now
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            b.tokens = min(Double(b.policy.burst), b.tokens + seconds * rate) - 1
            return b.tokens >= 0 ? nil : -b.tokens / rate
        }
        guard let wait else { return }
        do {
            try await Task.sleep(for: .milliseconds(Int64(wait * 1000)))
        } catch {
            bucket.withLock { b in b.tokens = min(b.tokens + 1, Double(b.policy.burst)) }  // a cancelled caller gives its reservation back
            throw error
        }
    }
}
