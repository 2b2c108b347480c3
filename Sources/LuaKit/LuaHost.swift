import CLuaShim
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The result of an async operation started for Lua, as it crosses back to the Lua thread.
typealias LuaAsyncOutcome = Result<any Sendable, any Error>

/// A unit of work for the Lua thread.
struct LuaJob: Sendable {
    /// Whether the job may also run inside a blocking wait of a running call.
    var reentrant: Bool
    /// For a job of ``LuaThreadExecutor`` (a step of async work, which touches no Lua): what
    /// runs it when the Lua thread is gone before it. Such a job is not one the interrupt
    /// targets (``LuaRuntime/interrupt()`` stops the next job posted from outside, not these).
    var fallback: (@Sendable () -> Void)? = nil
    var body: @Sendable (LuaState) -> Void

    init(reentrant: Bool, fallback: (@Sendable () -> Void)? = nil, body: @escaping @Sendable (LuaState) -> Void) {
        self.reentrant = reentrant
        self.fallback = fallback
        self.body = body
    }
}

/// The core of a ``LuaRuntime``: the state, its thread, the inbox other threads post to, and the
/// bookkeeping of async calls and raised Swift errors.
///
/// Threading: `inbox` is shared (under its mutex). Every other stored property marked
/// `nonisolated(unsafe)` is touched only on the Lua thread; the functions that touch them check
/// that in debug builds (``assertLuaThread()``).
///
/// The jobs are split by file: this one the thread and its inbox; `+AsyncCalls` async work
/// and the blocking wait; `+RaisedErrors` Swift errors raised into Lua; `+MakeError` Lua error
/// values turned into ``LuaError``.
final class LuaHost: @unchecked Sendable {
    /// What other threads hand to the Lua thread.
    struct Inbox {
        var jobs: [LuaJob] = []
        var completed: [UInt64: LuaAsyncOutcome] = [:]
        /// Tokens whose result nobody waits for any more (cancelled, interrupted).
        var abandoned: Set<UInt64> = []
        /// Registry references released by ``LuaRef`` deinit on any thread.
        var unrefs: [Int32] = []
        var stopping = false
    }

    let main: OpaquePointer
    let flags: OpaquePointer
    /// The state's allocator (small blocks from size classes; see CLuaShim's heap.c); nil in a
    /// foreign state.
    let heap: OpaquePointer?
    /// Whether the state belongs to another program — a Lua C module's host interpreter
    /// (``LuaModuleHost``): its thread is the Lua thread, there is no job loop, no LuaKit
    /// allocator or hook, and SIGINT is caught only while a call waits.
    let foreign: Bool
    let inbox = Mutex(Inbox())
    /// The task executor of async work started for Lua: this host's thread.
    let executor = LuaThreadExecutor()
    private let stackSize: Int
    private nonisolated(unsafe) var thread = pthread_t()
    private let threadReady = Mutex<pthread_t?>(nil)
    private let finished = Semaphore()
    /// Signalled once by the Lua thread when it has recorded itself in `threadReady`.
    private let running = Semaphore()

    // Lua-thread-only state.
    nonisolated(unsafe) var hostCoroutines: Set<OpaquePointer> = []
    nonisolated(unsafe) var deliveries: [UInt64: (LuaState, any Sendable) throws -> Int32] = [:]
    nonisolated(unsafe) var tasks: [UInt64: Task<Void, Never>] = [:]
    nonisolated(unsafe) var nextToken: UInt64 = 1
    nonisolated(unsafe) var callDepth = 0
    /// Blocking waits in progress (``waitForAny(of:on:)``; they nest through reentrant jobs).
    nonisolated(unsafe) var waitDepth = 0
    nonisolated(unsafe) var raisedErrors: [any Error] = []
    /// The thread running the innermost Swift function (or the main state between calls).
    /// An interrupt sets its hook on this thread as well as on the main one.
    nonisolated(unsafe) var current: OpaquePointer {
        didSet { lk_host_set_running(flags, current) }
    }
    nonisolated(unsafe) var closed = false

    /// Registry key of the table of values raised for Swift errors (parallel to `raisedErrors`).
    nonisolated(unsafe) static let raisedKey = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    /// The light userdata a host yield carries, so that the scheduler tells it from user yields.
    nonisolated(unsafe) static let yieldSentinel = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    /// How many raised Swift errors are remembered for rethrowing as themselves.
    static let raisedLimit = 64

    init(stackSize: Int, openLibraries: Bool, ignoreEnvironment: Bool = false) throws(LuaError) {
        LuaFunctionBox.installTrampoline
        guard let L = luaL_newstate() else { throw LuaError(kind: .memory, message: "cannot create a Lua state") }
        guard let h = lk_heap_new() else {
            lua_close(L)
            throw LuaError(kind: .memory, message: "cannot create the Lua heap")
        }
        // Lua tables and strings are mostly small blocks: size classes recycle them cheaply.
        lua_setallocf(L, lk_heap_alloc, UnsafeMutableRawPointer(h))
        heap = h
        main = L
        current = L
        foreign = false
        self.stackSize = stackSize
        // The extra space comes first: coroutines copy it from the main thread.
        guard let f = lk_host_attach(L, nil) else {
            lua_close(L)
            lk_heap_free(h)
            throw LuaError(kind: .memory, message: "cannot create the Lua host")
        }
        if ignoreEnvironment {
            // registry.LUA_NOENV = true, as lua.c sets it for -E (a raw set: no metamethod runs).
            _ = "LUA_NOENV".withCString { lua_pushstring(L, $0) }
            lua_pushboolean(L, 1)
            lua_rawset(L, lk_registryindex())
        }
        if openLibraries, lk_popenlibs(L) != LUA_OK {
            let message = lk_tostring(L, -1).map { String(cString: $0) } ?? "?"
            lua_close(L)
            lk_heap_free(h)
            lk_host_free(f)
            throw LuaError(kind: .runtime, message: "cannot open the standard libraries: \(message)")
        }
        flags = f
        _ = lk_gc_generational(L)  // as lua.c does: cheaper for hosts that build many tables
        executor.host = self
    }

    /// Attaches to a state another program created and runs (``LuaModuleHost/attach(_:)``), on
    /// that program's thread, which becomes the Lua thread. The state keeps the host (its anchor
    /// releases it at `lua_close`).
    init(attachingTo L: OpaquePointer) throws(LuaError) {
        LuaFunctionBox.installTrampoline
        // The main thread: `L` may be a coroutine (a require inside one).
        lua_rawgeti(L, lk_registryindex(), Int64(LUA_RIDX_MAINTHREAD))
        let mainThread = lua_tothread(L, -1)
        lk_pop(L, 1)
        guard let f = lk_host_attach_foreign(L, luaKitReleaseForeignHost) else {
            throw LuaError(kind: .memory, message: "cannot attach LuaKit to the Lua state")
        }
        main = mainThread ?? L
        current = main
        flags = f
        heap = nil
        foreign = true
        stackSize = 0
        threadReady.withLock { $0 = pthread_self() }
        executor.host = self
        lk_host_set_owner(f, Unmanaged.passRetained(self).toOpaque())
    }

    /// The state of a foreign host closed (its anchor's `__gc`, inside `lua_close`): nothing
    /// may touch it any more; async work still running is cancelled.
    fileprivate func detach() {
        closed = true
        // No job runs here any more: the steps of async work still waiting go to the pool.
        let left = inbox.withLock { box -> [LuaJob] in
            box.stopping = true
            defer { box.jobs.removeAll() }
            return box.jobs
        }
        for job in left { job.fallback?() }
        for task in tasks.values { task.cancel() }
        tasks.removeAll()
        deliveries.removeAll()
        raisedErrors.removeAll()
        hostCoroutines.removeAll()
    }

    /// Stores the unretained owner pointer and starts the Lua thread.
    func start() throws(LuaError) {
        // The extra space holds the lk_host pointer; the owner inside it points back at self.
        lk_host_set_owner(flags, Unmanaged.passUnretained(self).toOpaque())
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, &attributes, { raw in
            // The thread inherits its creator's signal mask — a pool thread's blocks nearly
            // every signal — and so would every program Lua starts (os.execute, io.popen): a
            // child would shrug off SIGTERM and a shell's `wait` would hang. Lua's thread takes
            // the mask a shell gives a program: none blocked.
            var none = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, nil)
            let host = Unmanaged<LuaHost>.fromOpaque(raw!).takeRetainedValue()
            host.run()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<LuaHost>.fromOpaque(context).release()
            closed = true
            lua_close(main)
            lk_heap_free(heap)
            throw LuaError(kind: .memory, message: "cannot start the Lua thread (error \(rc))")
        }
        pthread_detach(thread)
        running.wait()  // the thread has recorded itself (isLuaThread answers from now on)
    }

    /// The host of a state's thread (any coroutine of it).
    static func of(_ L: OpaquePointer) -> LuaHost {
        Unmanaged<LuaHost>.fromOpaque(lk_host_owner(L)!).takeUnretainedValue()
    }

    /// Debug builds stop here when Lua-thread-only state is touched from another thread.
    @inline(__always)
    func assertLuaThread(_ function: StaticString = #function) {
        assert(closed || isLuaThread, "LuaHost.\(function) called off the Lua thread")
    }

    var isLuaThread: Bool {
        guard let t = threadReady.withLock({ $0 }) else { return false }
        return pthread_equal(t, pthread_self()) != 0
    }

    // MARK: - The thread

    private func run() {
        lk_host_bind_thread(flags)
        threadReady.withLock { $0 = pthread_self() }
        running.signal()
        while true {
            let (jobs, unrefs, stopping) = inbox.withLock { box -> ([LuaJob], [Int32], Bool) in
                defer {
                    box.jobs.removeAll()
                    box.unrefs.removeAll()
                }
                return (box.jobs, box.unrefs, box.stopping)
            }
            releaseRefs(unrefs)
            for job in jobs {
                runJob(job, on: main)
                // An interrupt meant for this job that came too late to stop it now expires.
                if job.fallback == nil { lk_host_job_finished(flags) }
            }
            if stopping && jobs.isEmpty { break }
            if jobs.isEmpty && unrefs.isEmpty { lk_host_sleep(flags) }
        }
        closed = true
        lk_host_unbind_thread(flags)
        for task in tasks.values { task.cancel() }
        tasks.removeAll()
        deliveries.removeAll()
        raisedErrors.removeAll()
        lua_close(main)
        lk_heap_free(heap)
        finished.signal()
    }

    func runJob(_ job: LuaJob, on L: OpaquePointer) {
        assertLuaThread()
        let top = lua_gettop(L)
        let saved = current
        current = L
        job.body(LuaState(L))
        current = saved
        lua_settop(L, top)
    }

    @discardableResult
    func post(_ job: LuaJob) -> Bool {
        let accepted = inbox.withLock { box -> Bool in
            guard !box.stopping else { return false }
            box.jobs.append(job)
            return true
        }
        if accepted { lk_host_wake(flags) }
        return accepted
    }

    func stop() {
        let first = inbox.withLock { box -> Bool in
            defer { box.stopping = true }
            return !box.stopping
        }
        if first { lk_host_wake(flags) }
    }

    /// Blocks until the thread closed the state.
    func waitUntilFinished() {
        finished.wait()
        finished.signal()  // a latch: let any other waiter through too
    }

    /// ``waitUntilFinished()`` for at most `seconds`; false when the thread has not finished.
    func waitUntilFinished(timeout seconds: Double) -> Bool {
        guard finished.wait(timeout: seconds) else { return false }
        finished.signal()
        return true
    }

    deinit {
        // Only the Lua thread (which retains the host while it runs) can release the last
        // reference; a foreign state's anchor releases it when the state closes.
        lk_host_free(flags)
    }

    // MARK: - References

    func enqueueUnref(_ ref: Int32) {
        inbox.withLock { $0.unrefs.append(ref) }
    }

    func releaseRefs(_ refs: [Int32]) {
        guard !closed else { return }
        for r in refs { luaL_unref(main, lk_registryindex(), r) }
    }

    /// Releases references dropped on other threads; called at safe points on the Lua thread.
    func drainUnrefs() {
        let refs = inbox.withLock { box -> [Int32] in
            defer { box.unrefs.removeAll() }
            return box.unrefs
        }
        if !refs.isEmpty { releaseRefs(refs) }
    }
}

/// The anchor of a foreign state was collected (`lua_close`): its retained host goes.
private func luaKitReleaseForeignHost(_ owner: UnsafeMutableRawPointer?) {
    guard let owner else { return }
    Unmanaged<LuaHost>.fromOpaque(owner).takeRetainedValue().detach()
}
