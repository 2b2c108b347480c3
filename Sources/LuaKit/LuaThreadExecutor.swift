/// The Lua thread as the task executor of short async work started for Lua
/// (``LuaAsync/runsOnLuaThread``, ``LuaHost/startTask(_:onLuaThread:)``).
///
/// Why: the Lua thread waits for that work anyway (``LuaHost/waitForAny(of:on:)`` runs reentrant
/// jobs while it waits), and an answer's tables are built on it. Run on the concurrency pool, a
/// call's steps went Lua → pool → … → pool → Lua to build the tables → pool → Lua to deliver;
/// run here, the steps that were the pool's are the Lua thread's, and only the HTTP client's own
/// hand-offs (its event loop, its cancellation actor, its head deadline) remain: 5,000 calls from
/// a `flickr -e` loop against a loopback sink took 11.2 context switches a call instead of 14,
/// and 5.7 once the body's watch stayed on the caller's executor and stopped using a timer per
/// call (FlickrAPI's `HTTPTransport.watched`, `TransferSweeper`); API calls have since left the
/// HTTP client's async interface for its delegate one, started on the event loop in one
/// hand-over (`HTTPTransport.sendWhole`), which halved the voluntary switches again.
///
/// Each job the work enqueues becomes a reentrant ``LuaJob``; when the Lua thread is gone (its
/// runtime stopped, a foreign state closed) the job runs on the global concurrent executor
/// instead, so that no task is ever left without a thread.
final class LuaThreadExecutor: TaskExecutor, @unchecked Sendable {
    /// Set once, before the first job (``LuaHost`` sets it at the end of its init); read from
    /// any thread (a weak load is thread-safe).
    weak var host: LuaHost?

    init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let luaJob = LuaJob(reentrant: true, fallback: { Self.runOnPool(unowned) }) { _ in
            unowned.runSynchronously(on: executor)
        }
        if host?.post(luaJob) == true { return }
        Self.runOnPool(unowned)
    }

    /// Hands a job the Lua thread will not run to the global concurrent executor.
    static func runOnPool(_ job: UnownedJob) {
        globalConcurrentExecutor.enqueue(ExecutorJob(job))
    }
}
