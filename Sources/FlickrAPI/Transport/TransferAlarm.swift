import Synchronization

/// What a watched transfer's timer child waits on (``HTTPTransport/watched(by:on:timeoutError:_:)``):
/// ``ring()`` (the watchdog expired) makes ``wait()`` return true, ``silence()`` (the transfer
/// ended first) or the waiting task's cancellation makes it return false. Whichever comes first
/// counts; a ring or a silence before the wait is kept for it.
final class TransferAlarm: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Bool, Never>)
        case done(rang: Bool)
    }

    private let state = Mutex(State.idle)

    /// True once rung, false once silenced or cancelled.
    func wait() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let answer = state.withLock { s -> Bool? in
                    switch s {
                    case .idle:
                        s = .waiting(continuation)
                        return nil
                    case .waiting:
                        preconditionFailure("TransferAlarm: one waiter only")
                    case .done(let rang):
                        return rang
                    }
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            finish(rang: false)
        }
    }

    /// The limit was reached.
    func ring() { finish(rang: true) }

    /// The transfer ended (or the wait is no longer wanted).
    func silence() { finish(rang: false) }

    /// Settles the alarm once; resumes the waiter, if there is one, outside the lock.
    private func finish(rang: Bool) {
        let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            switch s {
            case .idle:
                s = .done(rang: rang)
                return nil
            case .waiting(let continuation):
                s = .done(rang: rang)
                return continuation
            case .done:
                return nil
            }
        }
        waiter?.resume(returning: rang)
    }
}
