import FlickrProtocol
import Foundation
import Synchronization

/// Settings that can change while the server runs (faults, latency, rate limit), the rate
/// limiter's window and the OAuth nonce memory.
final class SandboxControls: Sendable {
    private struct Settings {
        var faults: FaultSpec
        var imageFaults: FaultSpec
        var latencyMilliseconds: Int
        var rateLimit: Int?
        /// Times (seconds) of the calls accepted in the last second.
        var window: [Double] = []
        var windowStart = 0
        var budget: CallBudget?
        /// Per API key: times (seconds) of the calls admitted inside the budget's window.
        var budgetWindows: [String: BudgetWindow] = [:]
    }

    /// The admitted calls of one key, oldest first (a ring with a moving start).
    private struct BudgetWindow {
        var times: [Double] = []
        var start = 0
    }

    private let settings: Mutex<Settings>
    /// The OAuth nonces of the accepted clock window, each kept as a 64-bit digest of (consumer
    /// key, timestamp, nonce) with the time it may be forgotten, in arrival order: about 30 bytes
    /// a request, so that 100 calls a second hold about 1 MiB with the default skew. Two different
    /// requests share a digest with a chance of about n²/2⁶⁵ — a spurious `nonce_used`, never a
    /// replay let through.
    private let nonces = Mutex(NonceMemory())

    struct NonceMemory {
        var seen: Set<UInt64> = []
        var order: [(digest: UInt64, expires: Int)] = []
        var first = 0
    }
    /// Requests being answered now, the most answered at once since the last `takePeak`, and
    /// every request received.
    private let inFlight = Mutex<(now: Int, peak: Int, total: Int)>((0, 0, 0))
    /// Connections accepted since the server started.
    private let connections = Atomic<Int>(0)

    /// `--clock-skew`: the most seconds an `oauth_timestamp` may be off the server's clock.
    let clockSkew: Int

    init(configuration: SandboxConfiguration) {
        clockSkew = configuration.clockSkewSeconds
        settings = Mutex(Settings(faults: configuration.faults, imageFaults: configuration.imageFaults,
                                  latencyMilliseconds: max(0, configuration.latencyMilliseconds),
                                  rateLimit: configuration.rateLimit, budget: configuration.budget))
    }

    var budget: CallBudget? {
        get { settings.withLock { $0.budget } }
        set {
            settings.withLock {
                $0.budget = newValue
                $0.budgetWindows = [:]
            }
        }
    }

    /// Counts one call by `apiKey` against the budget. Nil when admitted; otherwise the seconds
    /// until the oldest call in the window leaves it (the `Retry-After` to send). Refused calls
    /// are not counted, so a client that waits as told gets through.
    func admitBudget(apiKey: String, now: Double = Date().timeIntervalSince1970) -> Double? {
        settings.withLock { s in
            guard let budget = s.budget else { return nil }
            var w = s.budgetWindows[apiKey] ?? BudgetWindow()
            while w.start < w.times.count, w.times[w.start] <= now - budget.seconds { w.start += 1 }
            if w.start > 1024, w.start * 2 > w.times.count {
                w.times.removeFirst(w.start)
                w.start = 0
            }
            defer { s.budgetWindows[apiKey] = w }
            guard w.times.count - w.start < budget.calls else {
                return max(0, w.times[w.start] + budget.seconds - now)
            }
            w.times.append(now)
            return nil
        }
    }

    var faults: FaultSpec {
        get { settings.withLock { $0.faults } }
        set { settings.withLock { $0.faults = newValue } }
    }

    var latencyMilliseconds: Int {
        get { settings.withLock { $0.latencyMilliseconds } }
        set { settings.withLock { $0.latencyMilliseconds = max(0, newValue) } }
    }

    var rateLimit: Int? {
        get { settings.withLock { $0.rateLimit } }
        set { settings.withLock { $0.rateLimit = newValue.map { max(0, $0) } } }
    }

    var imageFaults: FaultSpec {
        get { settings.withLock { $0.imageFaults } }
        set { settings.withLock { $0.imageFaults = newValue } }
    }

    /// The fault to inject for one API request (REST, upload, replace), if any.
    func drawFault() -> FaultKind? {
        let spec = faults
        guard spec.total > 0 else { return nil }
        return spec.pick(Double.random(in: 0..<1))
    }

    /// The fault to inject for one image download, if any.
    func drawImageFault() -> FaultKind? {
        let spec = imageFaults
        guard spec.total > 0 else { return nil }
        return spec.pick(Double.random(in: 0..<1))
    }

    /// Counts one call against the rate limit; false when the limit for the last second is spent
    /// (a sliding one-second window: at most N accepted calls in any second).
    func admit(now: Double = Date().timeIntervalSince1970) -> Bool {
        settings.withLock { s in
            guard let limit = s.rateLimit else { return true }
            var firstLive = s.windowStart
            while firstLive < s.window.count, s.window[firstLive] <= now - 1 { firstLive += 1 }
            if firstLive > 1024 {
                s.window.removeFirst(firstLive)
                firstLive = 0
            }
            s.windowStart = firstLive
            guard s.window.count - firstLive < limit else { return false }
            s.window.append(now)
            return true
        }
    }

    /// Notes that a request is being answered (paired with `requestEnded`).
    func requestStarted() {
        inFlight.withLock {
            $0.now += 1
            $0.total += 1
            $0.peak = max($0.peak, $0.now)
        }
    }

    /// Every request received since the server started.
    var requestCount: Int { inFlight.withLock { $0.total } }

    func requestEnded() { inFlight.withLock { $0.now -= 1 } }

    /// Notes a connection accepted.
    func connectionOpened() { connections.add(1, ordering: .relaxed) }

    /// Every connection accepted since the server started.
    var connectionCount: Int { connections.load(ordering: .relaxed) }

    /// The most requests answered at once since the last call, then starts counting afresh.
    func takePeak() -> Int {
        inFlight.withLock { gauge in
            defer { gauge.peak = gauge.now }
            return gauge.peak
        }
    }

    /// Records an OAuth nonce; false if the same consumer key, timestamp and nonce were seen.
    /// An entry is forgotten once its timestamp can no longer pass the clock check (from
    /// `timestamp + skew + 1` on), since a replay then fails on the clock. Entries leave from the
    /// front of the arrival queue, so one whose timestamp is older than its predecessors' stays
    /// a little longer than it needs — never less — and the memory still holds at most
    /// `2 × skew` seconds of arrivals (an accepted timestamp is at most `now + skew`).
    func useNonce(consumerKey: String, timestamp: Int, nonce: String, now: Int) -> Bool {
        var hasher = Hasher()
        hasher.combine(consumerKey)
        hasher.combine(timestamp)
        hasher.combine(nonce)
        let digest = UInt64(bitPattern: Int64(hasher.finalize()))
        return nonces.withLock { n in
            while n.first < n.order.count, n.order[n.first].expires < now {
                n.seen.remove(n.order[n.first].digest)
                n.first += 1
            }
            // Compact the queue once its dead front is as long as the live part.
            if n.first > 1024, n.first * 2 > n.order.count {
                n.order.removeFirst(n.first)
                n.first = 0
            }
            guard n.seen.insert(digest).inserted else { return false }
            n.order.append((digest, timestamp + clockSkew))
            return true
        }
    }

    /// How many nonces are remembered now.
    var rememberedNonces: Int { nonces.withLock { $0.seen.count } }
}
