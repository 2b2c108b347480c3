import NIOCore
import Synchronization

/// A timer that cancels a transfer once it has run past its limit: a fixed deadline, or a
/// silence (no byte for so long).
///
/// Why an NIO scheduled task and not a race against `Task.sleep`: a cancelled `Task.sleep` returns
/// at once, but its timer stays queued in the concurrency runtime until its instant passes. With a
/// 10 s deadline and hundreds of calls a second that is thousands of small blocks alive long after
/// their requests ended, scattered over pages that then cannot be given back (the soak saw 1–3 MiB
/// of RSS come and go this way). A cancelled NIO scheduled task leaves its loop's queue at once.
/// Time is the loop's clock (`EventLoop.now`): real time on a real loop, moved by hand on a test
/// loop, so the idle logic is tested without depending on how busy the machine is.
final class TransferWatchdog: Sendable {
    /// When the transfer has run too long.
    enum Limit: Sendable, Equatable {
        /// Fails at this instant, however much has arrived.
        case deadline(NIODeadline)
        /// Fails once this long passes without a ``TransferWatchdog/touch()``.
        case idle(TimeAmount)
    }

    /// What the timer does when it goes off: the transfer may have touched since it was set.
    enum Verdict: Equatable {
        case expire
        case rearm(at: NIODeadline)
    }

    private struct State {
        var lastActivity: NIODeadline
        var timer: Scheduled<Void>?
        var expired = false
        var stopped = false
    }

    private let limit: Limit
    private let loop: any EventLoop
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

    /// The decision when the timer fires at `now`: expire, or set it again for the new due
    /// instant (an idle limit moves on with every touch). Pure, so it is tested apart.
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

    /// The timer now queued on the loop, if any (tests watch its future to see it leave).
    var pendingTimer: Scheduled<Void>? { state.withLock { $0.timer } }

    /// Sets the timer; `expire` runs once, on the loop, if the limit is reached before ``stop()``.
    func start(_ expire: @escaping @Sendable () -> Void) {
        state.withLock { arm(&$0, at: Self.due(of: limit, lastActivity: $0.lastActivity), expire) }
    }

    /// Cancels the timer, which leaves the loop's queue now. Idempotent.
    func stop() {
        state.withLock { s in
            s.stopped = true
            s.timer?.cancel()
            s.timer = nil
        }
    }

    /// Schedules the timer at `due` unless stopped. Called with the lock held: `scheduleTask` only
    /// takes the loop's queue lock, never waits for the loop, so this cannot deadlock with `fire`.
    private func arm(_ s: inout State, at due: NIODeadline, _ expire: @escaping @Sendable () -> Void) {
        guard !s.stopped else { return }
        s.timer = loop.scheduleTask(deadline: due) { [self] in fire(expire) }
    }

    /// The timer went off (on the loop): expire, or wait on for an idle limit that was touched.
    private func fire(_ expire: @escaping @Sendable () -> Void) {
        let expiring = state.withLock { s -> Bool in
            guard !s.stopped, !s.expired else { return false }
            switch Self.verdict(for: limit, lastActivity: s.lastActivity, now: loop.now) {
            case .expire:
                s.expired = true
                s.timer = nil
                return true
            case .rearm(let due):
                arm(&s, at: due, expire)
                return false
            }
        }
        if expiring { expire() }
    }
}
