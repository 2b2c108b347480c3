import AsyncHTTPClient
import Synchronization

/// A transfer went `seconds` without a byte.
struct IdleTimeout: Error {
    let seconds: Double
}

/// When bytes last arrived, shared by a transfer and its watchdog.
private final class LastActivity: Sendable {
    private let instant: Mutex<ContinuousClock.Instant>
    init() { instant = Mutex(ContinuousClock.now) }
    func touch() { instant.withLock { $0 = ContinuousClock.now } }
    var value: ContinuousClock.Instant { instant.withLock { $0 } }
}

extension HTTPTransport {
    /// Runs `transfer`, which calls `touch` whenever bytes arrive, and fails it with
    /// ``IdleTimeout`` once `seconds` pass without a touch (the transfer is cancelled). For
    /// bodies of any length: the limit is on silence, not on the whole.
    static func failingWhenIdle<T: Sendable>(for seconds: Double,
                                             _ transfer: @escaping @Sendable (_ touch: @escaping @Sendable () -> Void) async throws -> T) async throws -> T {
        let limit = Duration.milliseconds(Int64(seconds * 1000))
        let last = LastActivity()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await transfer { last.touch() } }
            group.addTask {
                // Sleeps until the limit after the latest touch; a touch in between moves it on.
                while true {
                    let due = last.value + limit
                    if ContinuousClock.now >= due { throw IdleTimeout(seconds: seconds) }
                    try await Task.sleep(until: due, clock: .continuous)
                }
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw IdleTimeout(seconds: seconds) }
            return value
        }
    }
}
