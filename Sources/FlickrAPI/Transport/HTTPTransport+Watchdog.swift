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
    ///
    /// Why child tasks (the transfer, and one waiting on the watchdog's ``TransferAlarm``) and
    /// not an unstructured `Task`: children inherit the caller's task executor, so a transfer
    /// started from Lua (an upload's answer, a download) is read on the Lua thread that waits
    /// for it (LuaThreadExecutor) instead of waking a pool thread and then the Lua thread again.
    /// Against a loopback server that answers at once, the unstructured task cost about a
    /// seventh of a Lua call (API calls have since left this path: `sendWhole`).
    static func watched<T: Sendable>(by limit: TransferWatchdog.Limit, on loop: any EventLoop,
                                     timeoutError: @escaping @Sendable () -> any Error,
                                     _ transfer: @escaping @Sendable (_ touch: @escaping @Sendable () -> Void) async throws -> T)
        async throws -> T {
        let watchdog = TransferWatchdog(limit, on: loop)
        let alarm = TransferAlarm()
        watchdog.start { alarm.ring() }
        defer {
            watchdog.stop()
            alarm.silence()
        }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await transfer { watchdog.touch() } }
            group.addTask {
                _ = await alarm.wait()  // rang, or no longer wanted: either way this child is done
                return nil
            }
            defer { group.cancelAll() }
            do {
                while let outcome = try await group.next() {
                    if let value = outcome { return value }
                    // The timer child ended: cut the transfer off if the alarm rang, else wait for it.
                    if watchdog.expired { group.cancelAll() }
                }
            } catch {
                // A transfer cut off by the watchdog ends in whatever its cancellation threw.
                if watchdog.expired { throw timeoutError() }
                throw error
            }
            // Both children ended without a value: only a cancelled or expired transfer does that.
            if watchdog.expired { throw timeoutError() }
            throw CancellationError()
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
