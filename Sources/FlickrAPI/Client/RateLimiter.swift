import Foundation

/// A token bucket shared by all calls of one client: `burst` calls may go at once, then one per
/// `1/rate` seconds. Waiting is cancellable.
actor RateLimiter {
    private var policy: RatePolicy
    private var tokens: Double
    private var last: ContinuousClock.Instant
    private let clock = ContinuousClock()

    init(policy: RatePolicy) {
        self.policy = policy
        tokens = Double(policy.burst)
        last = clock.now
    }

    func update(_ policy: RatePolicy) {
        if policy != self.policy {
            self.policy = policy
            tokens = min(tokens, Double(policy.burst))
        }
    }

    /// Takes one token, waiting until one is available.
    func acquire() async throws {
        guard let rate = policy.callsPerSecond, rate > 0 else { return }
        refill(rate: rate)
        tokens -= 1
        if tokens >= 0 { return }
        // Reserve the token now (tokens may go negative), then sleep until it would exist.
        let wait = -tokens / rate
        do {
            try await Task.sleep(for: .milliseconds(Int64(wait * 1000)))
        } catch {
            tokens += 1  // a cancelled caller gives its reservation back
            throw error
        }
    }

    private func refill(rate: Double) {
        let now = clock.now
        let elapsed = last.duration(to: now)
        last = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(Double(policy.burst), tokens + seconds * rate)
    }
}
