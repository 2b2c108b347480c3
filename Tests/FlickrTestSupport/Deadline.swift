import Foundation
import Synchronization

/// The error of an operation that did not finish within its deadline.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public var description: String
}

/// Runs `operation` and returns its result, or throws ``DeadlineExceeded`` after `seconds` —
/// even when the operation never returns (a wedged Lua runtime, a lost interrupt), so that a
/// test fails instead of hanging the run. The operation is left running when it overstays.
public func withDeadline<T: Sendable>(_ seconds: Double, _ what: String,
                                      _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let once = ResumeOnce<T>()
    return try await withCheckedThrowingContinuation { continuation in
        once.set(continuation)
        Task {
            do { once.resume(.success(try await operation())) } catch { once.resume(.failure(error)) }
        }
        Task {
            try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            once.resume(.failure(DeadlineExceeded(description: "\(what) did not finish within \(seconds) s")))
        }
    }
}

/// Resumes a continuation at most once.
final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)

    func set(_ c: CheckedContinuation<T, any Error>) { continuation.withLock { $0 = c } }

    func resume(_ result: Result<T, any Error>) {
        let c = continuation.withLock { c -> CheckedContinuation<T, any Error>? in
            defer { c = nil }
            return c
        }
        c?.resume(with: result)
    }
}

/// A one-shot signal from one thread (a Lua job saying "I have started") to an async test.
public final class Signal: Sendable {
    private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    /// Fires the signal (any thread; idempotent).
    public func fire() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.fired = true
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }

    public var isFired: Bool { state.withLock { $0.fired } }

    /// Waits until fired; throws ``DeadlineExceeded`` after `seconds`.
    public func wait(_ seconds: Double = 30, _ what: String = "the signal") async throws {
        try await withDeadline(seconds, what) { [self] in
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.fired { return true }
                    s.waiters.append(c)
                    return false
                }
                if now { c.resume() }
            }
        }
    }
}
