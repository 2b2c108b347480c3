import AsyncHTTPClient
import NIOCore

/// A transfer went `seconds` without a byte.
struct IdleTimeout: Error {
    let seconds: Double
}

extension HTTPTransport {
    /// Runs `transfer` (which calls `touch` whenever bytes arrive) in a child task, and cancels it
    /// when `limit` is reached; it then fails with `timeoutError()`. Cancelling the caller cancels
    /// the transfer. The timer is gone when this returns, whichever way.
    static func watched<T: Sendable>(by limit: TransferWatchdog.Limit, on loop: any EventLoop,
                                     timeoutError: @escaping @Sendable () -> any Error,
                                     _ transfer: @escaping @Sendable (_ touch: @escaping @Sendable () -> Void) async throws -> T)
        async throws -> T {
        let watchdog = TransferWatchdog(limit, on: loop)
        let worker = Task { try await transfer { watchdog.touch() } }
        watchdog.start { worker.cancel() }
        defer { watchdog.stop() }
        do {
            return try await withTaskCancellationHandler {
                try await worker.value
            } onCancel: {
                worker.cancel()
            }
        } catch {
            // A transfer cut off by the watchdog ends in whatever its cancellation threw.
            if watchdog.expired { throw timeoutError() }
            throw error
        }
    }

    /// Runs `transfer` and fails it with ``IdleTimeout`` once `seconds` pass without a touch.
    /// For bodies of any length: the limit is on silence, not on the whole.
    static func failingWhenIdle<T: Sendable>(for seconds: Double, on loop: any EventLoop,
                                             _ transfer: @escaping @Sendable (_ touch: @escaping @Sendable () -> Void) async throws -> T)
        async throws -> T {
        try await watched(by: .idle(.nanoseconds(Int64(seconds * 1_000_000_000))), on: loop,
                          timeoutError: { IdleTimeout(seconds: seconds) }, transfer)
    }
}
