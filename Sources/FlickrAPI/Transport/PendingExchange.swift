import AsyncHTTPClient
import Synchronization

/// A whole-body request on its way to the event loop (``HTTPTransport``'s `sendWhole`), and the
/// caller's cancellation, which may come before the request is started there or after.
/// Whichever comes second acts: a cancellation after the start cancels the request; a start
/// after a cancellation is told to cancel what it started.
final class PendingExchange: Sendable {
    private enum State {
        case waiting
        case started(HTTPClient.Task<HTTPClient.Response>)
        case cancelled
    }

    private let state = Mutex(State.waiting)

    /// Keeps `task`, started on the event loop. False if the caller was cancelled first: the
    /// starter cancels `task` then (outside this lock).
    func keep(_ task: HTTPClient.Task<HTTPClient.Response>) -> Bool {
        state.withLock { s in
            guard case .waiting = s else { return false }
            s = .started(task)
            return true
        }
    }

    /// The caller was cancelled: cancels the request if it started, else marks it for the start.
    func cancel() {
        let task = state.withLock { s -> HTTPClient.Task<HTTPClient.Response>? in
            defer { s = .cancelled }
            if case .started(let task) = s { return task }
            return nil
        }
        task?.cancel()
    }
}
