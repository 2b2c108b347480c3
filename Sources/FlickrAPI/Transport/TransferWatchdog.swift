import NIOCore
import Synchronization

/// Cancels a transfer once it has run past its limit: a fixed deadline, or a silence (no byte
/// for so long). Checked by its loop's ``TransferSweeper``, a tick at a time.
///
/// Why a shared sweep and not a timer of its own: every REST answer's body is watched, and a
/// timer per call meant scheduling it on an event loop and cancelling it there — two wake-ups of
/// another thread for each call (2.6 of a Lua call's 9.6 context switches against a loopback
/// sink, and a tenth of its CPU time). Why NIO and not a race against `Task.sleep`: a cancelled
/// `Task.sleep` keeps its timer queued in the concurrency runtime until its instant passes —
/// thousands of small blocks alive long after their requests at hundreds of calls a second (the
/// soak saw 1–3 MiB of RSS come and go this way). Time is the loop's clock (`EventLoop.now`):
/// real time on a real loop, moved by hand on a test loop, so the idle logic is tested without
/// depending on how busy the machine is. A limit is noticed up to one tick
/// (``TransferSweeper/tick``) after it passes.
final class TransferWatchdog: Sendable {
    /// When the transfer has run too long.
    enum Limit: Sendable, Equatable {
        /// Fails at this instant, however much has arrived.
        case deadline(NIODeadline)
        /// Fails once this long passes without a ``TransferWatchdog/touch()``.
        case idle(TimeAmount)
    }

    /// What a check at some instant decides: the transfer may have touched since it started.
    enum Verdict: Equatable {
        case expire
        case rearm(at: NIODeadline)
    }

    private struct State {
        var lastActivity: NIODeadline
        var expire: (@Sendable () -> Void)?
        var expired = false
        var stopped = false
    }

    private let limit: Limit
    let loop: any EventLoop
    private let state: Mutex<State>

    init(_ limit: Limit, on loop: any EventLoop) {
        self.limit = limit
        self.loop = loop
        self.state = Mutex(State(lastActivity: loop.now))
    }

    /// The instant the limit is reached, given the latest activity.
    static func due(of limit: Limit, lastActivity: NIODeadline) -> NIODeadline {
        switch limit {
        case .deadline(let end): end
        case .idle(let silence): lastActivity + silence
        }
    }

    /// The decision at `now`: expire, or wait on until the due instant (an idle limit moves on
    /// with every touch). Pure, so it is tested apart.
    static func verdict(for limit: Limit, lastActivity: NIODeadline, now: NIODeadline) -> Verdict {
        let due = due(of: limit, lastActivity: lastActivity)
        return now >= due ? .expire : .rearm(at: due)
    }

    /// Bytes arrived: an idle limit starts again from now (the loop's clock, which a test loop
    /// moves by hand).
    func touch() {
        let now = loop.now
        state.withLock { $0.lastActivity = now }
    }

    /// Whether the limit was reached (and `expire` called).
    var expired: Bool { state.withLock { $0.expired } }

    /// Starts watching; `expire` runs once, on the loop, if the limit is reached before
    /// ``stop()``.
    func start(_ expire: @escaping @Sendable () -> Void) {
        let watching = state.withLock { s -> Bool in
            guard !s.stopped else { return false }
            s.expire = expire
            return true
        }
        if watching { TransferSweeper.watch(self) }
    }

    /// Stops watching: the limit no longer matters. Idempotent.
    func stop() {
        state.withLock { s in
            s.stopped = true
            s.expire = nil
        }
        TransferSweeper.forget(self)
    }

    /// The sweep's check at `now` (on the loop): expires the transfer when its limit has passed.
    /// True once it is done with (expired or stopped), so the sweep can drop it.
    func check(now: NIODeadline) -> Bool {
        let (done, expire) = state.withLock { s -> (Bool, (@Sendable () -> Void)?) in
            guard !s.stopped, !s.expired else { return (true, nil) }
            guard Self.verdict(for: limit, lastActivity: s.lastActivity, now: now) == .expire else { return (false, nil) }
            s.expired = true
            defer { s.expire = nil }
            return (true, s.expire)
        }
        expire?()
        return done
    }
}
