import CLuaShim

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Async work started for Lua: a Task per call, its outcome delivered to the Lua thread through
/// the inbox under a token, and the blocking wait that runs reentrant jobs meanwhile.
extension LuaHost {
    /// Starts `work` in a Task — on this host's thread when `onLuaThread` (``LuaThreadExecutor``:
    /// it runs while the Lua thread waits), else on the pool; its outcome arrives in the inbox
    /// under the returned token.
    func startTask(_ work: @escaping @Sendable () async -> LuaAsyncOutcome, onLuaThread: Bool = false) -> UInt64 {
        assertLuaThread()
        let token = nextToken
        nextToken += 1
        let task = Task.detached(executorPreference: onLuaThread ? executor : nil) { [weak self] in
            let outcome = await work()
            self?.complete(token, outcome)
        }
        tasks[token] = task
        return token
    }

    fileprivate func complete(_ token: UInt64, _ outcome: LuaAsyncOutcome) {
        inbox.withLock { box in
            if box.abandoned.remove(token) == nil { box.completed[token] = outcome }
        }
        lk_host_wake(flags)
    }

    /// Cancels the task of `token` and forgets its result.
    func abandon(_ token: UInt64) {
        assertLuaThread()
        tasks.removeValue(forKey: token)?.cancel()
        deliveries.removeValue(forKey: token)
        inbox.withLock { box in
            if box.completed.removeValue(forKey: token) == nil { box.abandoned.insert(token) }
        }
    }

    /// Blocks the Lua thread until one of `tokens` completes, running reentrant jobs meanwhile
    /// on `state` (the thread that waits). An interrupt abandons every token and throws
    /// ``LuaError/interrupted``. In a foreign state the outermost wait takes Ctrl-C from the
    /// interpreter's SIGINT handler while it lasts (CLuaShim's `lk_sigint_catch`): lua.c's own
    /// handler only sets a hook, which a thread blocked here would never reach; a lua.c interrupt
    /// already pending when the wait begins is taken by it.
    func waitForAny(of tokens: Set<UInt64>, on state: LuaState) throws(LuaError) -> (UInt64, LuaAsyncOutcome) {
        assertLuaThread()
        let caught = foreign && waitDepth == 0 ? lk_sigint_catch(flags, main) : 0
        if caught < 0 {
            // lua.c's interrupt came just before this wait (lk_sigint_catch took it).
            for t in tokens { abandon(t) }
            throw LuaError.interrupted
        }
        var interrupted = false
        waitDepth += 1
        defer {
            waitDepth -= 1
            if caught > 0 { lk_sigint_release(flags, interrupted ? 1 : 0) }
        }
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
                awaitEnd(ofAbandoned: tokens, within: 0.25)
                interrupted = true
                throw LuaError.interrupted
            }
            drainUnrefs()
            lk_host_sleep(flags)
        }
    }

    /// Waits, at most `seconds`, until the cancelled tasks of `tokens` have ended, so that what
    /// they still do on the way out (a trace line, a progress report) comes before the
    /// interrupted error, not after the prompt that follows it. The bound is short: a task that
    /// ignores its cancellation, or a concurrency pool too busy to run it, must not delay the
    /// interrupt a person is waiting for (RuntimeTests time it). Wake-ups taken here are harmless: the wait
    /// loop reads the inbox before it sleeps again. Tasks on this thread (``LuaThreadExecutor``)
    /// take their steps here meanwhile.
    private func awaitEnd(ofAbandoned tokens: Set<UInt64>, within seconds: Double) {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while true {
            // The cancelled tasks' steps run on this thread (``LuaThreadExecutor``): run them.
            let (jobs, pending) = inbox.withLock { box -> ([LuaJob], Bool) in
                let steps = box.jobs.filter { $0.fallback != nil }
                box.jobs.removeAll { $0.fallback != nil }
                return (steps, !box.abandoned.isDisjoint(with: tokens))
            }
            for job in jobs { runJob(job, on: main) }
            guard pending || !jobs.isEmpty else { return }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return }
            if !jobs.isEmpty { continue }  // they may have ended the tasks: look again first
            let (s, atto) = left.components
            _ = lk_host_sleep_for(flags, Double(s) + Double(atto) / 1e18)
        }
    }
}
