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
    var body: @Sendable (LuaState) -> Void
}

/// The core of a ``LuaRuntime``: the state, its thread, the inbox other threads post to, and the
/// bookkeeping of async calls and raised Swift errors.
///
/// Threading: `inbox` is shared (under its mutex). Every other stored property marked
/// `nonisolated(unsafe)` is touched only on the Lua thread.
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
    let inbox = Mutex(Inbox())
    private let stackSize: Int
    private nonisolated(unsafe) var thread = pthread_t()
    private let threadReady = Mutex<pthread_t?>(nil)
    private let finished = Semaphore()

    // Lua-thread-only state.
    nonisolated(unsafe) var hostCoroutines: Set<OpaquePointer> = []
    nonisolated(unsafe) var deliveries: [UInt64: (LuaState, any Sendable) throws -> Int32] = [:]
    nonisolated(unsafe) var tasks: [UInt64: Task<Void, Never>] = [:]
    nonisolated(unsafe) var nextToken: UInt64 = 1
    nonisolated(unsafe) var callDepth = 0
    nonisolated(unsafe) var raisedErrors: [any Error] = []
    /// The thread running the innermost Swift function (or the main state between calls).
    nonisolated(unsafe) var current: OpaquePointer
    nonisolated(unsafe) var closed = false

    /// Registry key of the table of values raised for Swift errors (parallel to `raisedErrors`).
    nonisolated(unsafe) static let raisedKey = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    /// The light userdata a host yield carries, so that the scheduler tells it from user yields.
    nonisolated(unsafe) static let yieldSentinel = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    /// How many raised Swift errors are remembered for rethrowing as themselves.
    static let raisedLimit = 64

    init(stackSize: Int, hookInterval: Int32, openLibraries: Bool, ignoreEnvironment: Bool = false) throws(LuaError) {
        LuaFunctionBox.installTrampoline
        guard let L = luaL_newstate() else { throw LuaError(kind: .memory, message: "cannot create a Lua state") }
        main = L
        current = L
        self.stackSize = stackSize
        // The hook and the extra space come first: coroutines copy both from the main thread.
        guard let f = lk_host_attach(L, nil, hookInterval) else {
            lua_close(L)
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
            lk_host_free(f)
            throw LuaError(kind: .runtime, message: "cannot open the standard libraries: \(message)")
        }
        flags = f
        _ = lk_gc_generational(L)  // as lua.c does: cheaper for hosts that build many tables
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
            let host = Unmanaged<LuaHost>.fromOpaque(raw!).takeRetainedValue()
            host.run()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<LuaHost>.fromOpaque(context).release()
            closed = true
            lua_close(main)
            throw LuaError(kind: .memory, message: "cannot start the Lua thread (error \(rc))")
        }
        pthread_detach(thread)
        while threadReady.withLock({ $0 }) == nil { sched_yield() }
    }

    /// The host of a state's thread (any coroutine of it).
    static func of(_ L: OpaquePointer) -> LuaHost {
        Unmanaged<LuaHost>.fromOpaque(lk_host_owner(L)!).takeUnretainedValue()
    }

    var isLuaThread: Bool {
        guard let t = threadReady.withLock({ $0 }) else { return false }
        return pthread_equal(t, pthread_self()) != 0
    }

    // MARK: - The thread

    private func run() {
        threadReady.withLock { $0 = pthread_self() }
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
                lk_host_job_finished(flags)
            }
            if stopping && jobs.isEmpty { break }
            if jobs.isEmpty && unrefs.isEmpty { lk_host_sleep(flags) }
        }
        closed = true
        for task in tasks.values { task.cancel() }
        tasks.removeAll()
        deliveries.removeAll()
        raisedErrors.removeAll()
        lua_close(main)
        finished.signal()
    }

    private func runJob(_ job: LuaJob, on L: OpaquePointer) {
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
        // Only the Lua thread (which retains the host while it runs) can release the last reference.
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

    // MARK: - Async operations

    /// Starts `work` in a Task; its outcome arrives in the inbox under the returned token.
    func startTask(_ work: @escaping @Sendable () async -> LuaAsyncOutcome) -> UInt64 {
        let token = nextToken
        nextToken += 1
        let task = Task.detached { [weak self] in
            let outcome = await work()
            self?.complete(token, outcome)
        }
        tasks[token] = task
        return token
    }

    private func complete(_ token: UInt64, _ outcome: LuaAsyncOutcome) {
        inbox.withLock { box in
            if box.abandoned.remove(token) == nil { box.completed[token] = outcome }
        }
        lk_host_wake(flags)
    }

    /// Cancels the task of `token` and forgets its result.
    func abandon(_ token: UInt64) {
        tasks.removeValue(forKey: token)?.cancel()
        deliveries.removeValue(forKey: token)
        inbox.withLock { box in
            if box.completed.removeValue(forKey: token) == nil { box.abandoned.insert(token) }
        }
    }

    /// Blocks the Lua thread until one of `tokens` completes, running reentrant jobs meanwhile
    /// on `state` (the thread that waits). An interrupt abandons every token and throws
    /// ``LuaError/interrupted``.
    func waitForAny(of tokens: Set<UInt64>, on state: LuaState) throws(LuaError) -> (UInt64, LuaAsyncOutcome) {
        while true {
            let (jobs, done) = inbox.withLock { box -> ([LuaJob], (UInt64, LuaAsyncOutcome)?) in
                var jobs: [LuaJob] = []
                if box.jobs.contains(where: \.reentrant) {
                    jobs = box.jobs.filter(\.reentrant)
                    box.jobs.removeAll(where: \.reentrant)
                }
                for t in tokens {
                    if let outcome = box.completed.removeValue(forKey: t) { return (jobs, (t, outcome)) }
                }
                return (jobs, nil)
            }
            for job in jobs { runJob(job, on: state.pointer) }
            if let (token, outcome) = done {
                tasks.removeValue(forKey: token)
                return (token, outcome)
            }
            if lk_host_take_interrupt(flags) != 0 {
                for t in tokens { abandon(t) }
                throw LuaError.interrupted
            }
            drainUnrefs()
            lk_host_sleep(flags)
        }
    }

    // MARK: - Swift errors raised into Lua

    /// Pushes the Lua value for a Swift error and remembers the pair, so that the error comes
    /// back as itself if the value reaches the host again.
    func pushError(_ error: any Error, on state: LuaState) {
        let L = state.pointer
        _ = lua_checkstack(L, 4)
        if let e = error as? LuaError, let ref = e.reference, ref.host === self {
            ref.push(onto: state)
            if let underlying = e.underlying { remember(underlying, valueAt: -1, on: L) }
            return
        }
        if let e = error as? LuaError, let underlying = e.underlying {
            pushError(underlying, on: state)
            return
        }
        if let e = error as? LuaError, e.kind == .interrupted {
            // An interrupt taken while blocked in a Swift function travels on as the sentinel.
            lk_push_interrupt(L)
            return
        }
        if let representable = error as? LuaErrorRepresentable {
            let top = lua_gettop(L)
            representable.pushLuaErrorValue(onto: state)
            if lua_gettop(L) != top + 1 {
                lua_settop(L, top)
                state.push(String(describing: error))
            }
        } else if let e = error as? LuaError {
            state.push(e.message)
        } else {
            state.push(String(describing: error))
        }
        remember(error, valueAt: -1, on: L)
    }

    private func remember(_ error: any Error, valueAt idx: Int32, on L: OpaquePointer) {
        let value = lua_absindex(L, idx)
        if lua_rawgetp(L, lk_registryindex(), Self.raisedKey) != LUA_TTABLE {
            lk_pop(L, 1)
            lua_createtable(L, Int32(Self.raisedLimit), 0)
            lua_pushvalue(L, -1)
            lua_rawsetp(L, lk_registryindex(), Self.raisedKey)
        }
        if raisedErrors.count >= Self.raisedLimit {
            // Drop the oldest: shift the table down by one.
            for i in 1..<Int64(raisedErrors.count) {
                lua_rawgeti(L, -1, i + 1)
                lua_rawseti(L, -2, i)
            }
            lua_pushnil(L)
            lua_rawseti(L, -2, Int64(raisedErrors.count))
            raisedErrors.removeFirst()
        }
        lua_pushvalue(L, value)
        lua_rawseti(L, -2, Int64(raisedErrors.count + 1))
        raisedErrors.append(error)
        lk_pop(L, 1)
    }

    /// The Swift error whose raised value is raw-equal to the value at `idx`.
    func raisedError(matching idx: Int32, on L: OpaquePointer) -> (any Error)? {
        guard !raisedErrors.isEmpty else { return nil }
        let value = lua_absindex(L, idx)
        guard lua_rawgetp(L, lk_registryindex(), Self.raisedKey) == LUA_TTABLE else {
            lk_pop(L, 1)
            return nil
        }
        defer { lk_pop(L, 1) }
        for i in stride(from: raisedErrors.count, through: 1, by: -1) {
            lua_rawgeti(L, -1, Int64(i))
            let equal = lua_rawequal(L, -1, value) != 0
            lk_pop(L, 1)
            if equal { return raisedErrors[i - 1] }
        }
        return nil
    }

    func forgetRaisedErrors() {
        guard !raisedErrors.isEmpty else { return }
        raisedErrors.removeAll()
        lua_pushnil(main)
        lua_rawsetp(main, lk_registryindex(), Self.raisedKey)
    }

    /// Builds the ``LuaError`` for the error value on top of `L` (status from pcall / resume /
    /// load) and pops it. `traceback` is the traceback when known.
    func makeError(status: Int32, on L: OpaquePointer, traceback: String?) -> LuaError {
        let state = LuaState(L)
        let kind: LuaError.Kind
        switch status {
        case LUA_ERRSYNTAX: kind = .syntax
        case LUA_ERRMEM: kind = .memory
        case LUA_ERRERR: kind = .messageHandler
        case LUA_ERRFILE: kind = .file
        default: kind = .runtime
        }
        let underlying = raisedError(matching: -1, on: L)
        let message = state.errorMessage(at: -1)
        var value: LuaValue?
        switch lua_type(L, -1) {
        case LUA_TSTRING, LUA_TNUMBER, LUA_TBOOLEAN: value = try? state.value(at: -1)
        case LUA_TTABLE: value = try? state.value(at: -1, options: LuaConversionOptions(maxDepth: 16))
        default: value = nil
        }
        // Only the hook's sentinel is an interrupt: error("interrupted!") in Lua code is not.
        let interrupted = lk_is_interrupt(L, -1) != 0
        let ref = LuaRef(popping: state)
        return LuaError(kind: interrupted ? .interrupted : kind, message: interrupted ? LuaError.interrupted.message : message,
                        traceback: traceback, value: value,
                        underlying: underlying, isIncompleteInput: kind == .syntax && message.hasSuffix("<eof>"),
                        reference: ref)
    }
}
