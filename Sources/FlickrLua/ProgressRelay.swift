import LuaKit
import Synchronization

/// Carries upload progress from the HTTP task to a Lua callback on the Lua thread.
///
/// The task appends events and posts one reentrant job at a time; the job (running while the
/// Lua thread waits for the upload) calls the callback for each pending event. The first error
/// of the callback is kept and raised when the upload returns.
final class ProgressRelay: Sendable {
    private struct Pending {
        var events: [(Int64, Int64?)] = []
        var scheduled = false
    }

    private let pending = Mutex(Pending())
    private let poster: LuaJobPoster
    private let callback: LuaRef
    private let failure = Mutex<LuaError?>(nil)

    init(poster: LuaJobPoster, callback: LuaRef) {
        self.poster = poster
        self.callback = callback
    }

    /// From the upload task (any thread).
    func report(sent: Int64, total: Int64?) {
        let post = pending.withLock { p -> Bool in
            p.events.append((sent, total))
            defer { p.scheduled = true }
            return !p.scheduled
        }
        if post { poster.post(reentrant: true) { [self] state in drain(state) } }
    }

    /// On the Lua thread: calls the callback for every pending event.
    func drain(_ state: LuaState) {
        let events = pending.withLock { p -> [(Int64, Int64?)] in
            defer {
                p.events.removeAll()
                p.scheduled = false
            }
            return p.events
        }
        for (sent, total) in events where failure.withLock({ $0 == nil }) {
            callback.push(onto: state)
            state.push(sent)
            if let total { state.push(total) } else { state.pushNil() }
            do {
                try state.pcall(arguments: 2, results: 0)
            } catch {
                failure.withLock { $0 = error }
            }
        }
    }

    /// After the upload: delivers what is left and throws the callback's error, if any.
    func finish(_ state: LuaState) throws {
        drain(state)
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
