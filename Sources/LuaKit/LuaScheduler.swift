import CLuaShim

/// The coroutine scheduler: runs Lua calls as host-owned coroutines so that their async Swift
/// calls (``LuaReturn/await(_:)``) yield instead of blocking and many can be in flight at once.
///
/// State machine per task: *launched* (coroutine created, function pushed) → resumed → either
/// *finished* (LUA_OK: results handed to `finish`), *waiting* on a token (a host yield), or
/// *failed* (error recorded). The loop launches while fewer than `concurrency` tasks are live,
/// then sleeps until a token completes and resumes its coroutine with `(true, results…)` or
/// `(false, error)`. Failures are recorded with their task's index; what they do to the rest of
/// the run is ``LuaState/runConcurrently(count:concurrency:keepGoing:start:finish:failed:)``'s
/// policy.
struct LuaScheduler {
    private struct Slot {
        var index: Int
        var thread: OpaquePointer
        var anchorKey: Int64
    }

    let state: LuaState
    let host: LuaHost
    private let anchors: Int32
    private var nextAnchor: Int64 = 0
    private var waiting: [UInt64: Slot] = [:]
    /// Every failure so far, in the order they happened: (task index, error).
    private(set) var failures: [(index: Int, error: any Error)] = []

    init(state: LuaState) {
        self.state = state
        host = state.host
        state.newTable()
        anchors = state.top
    }

    /// Creates a coroutine for task `index` and runs it until it first waits or ends.
    mutating func launch(_ index: Int, start: (Int, LuaState) throws -> Int32,
                         finish: (Int, LuaState, Int32) throws -> Void) {
        guard let co = lua_newthread(state.pointer) else { return }
        nextAnchor += 1
        state.rawSet(index: nextAnchor, in: anchors)
        let slot = Slot(index: index, thread: co, anchorKey: nextAnchor)
        host.hostCoroutines.insert(co)
        let thread = LuaState(co)
        let nargs: Int32
        do {
            nargs = try start(index, thread)
        } catch {
            fail(slot, error)
            return
        }
        resume(slot, arguments: nargs, finish: finish)
    }

    /// Resumes a coroutine whose arguments (or resume values) are on its stack.
    private mutating func resume(_ slot: Slot, arguments: Int32, finish: (Int, LuaState, Int32) throws -> Void) {
        let co = slot.thread
        var results: Int32 = 0
        host.callDepth += 1
        let status = lua_resume(co, state.pointer, arguments, &results)
        host.callDepth -= 1
        let thread = LuaState(co)
        switch status {
        case LUA_OK:
            do {
                try finish(slot.index, thread, results)
                retire(slot)
            } catch {
                fail(slot, error)
            }
        case LUA_YIELD:
            if results == 2, thread.lightUserdata(at: -2) == LuaHost.yieldSentinel,
               let token = thread.integer(at: -1) {
                thread.pop(2)
                waiting[UInt64(bitPattern: token)] = slot
            } else {
                thread.pop(results)
                fail(slot, LuaError(kind: .runtime, message: "attempt to yield from a function run by the host scheduler "
                                    + "(use coroutine.wrap for coroutines of your own)"))
            }
        default:
            lua_xmove(co, state.pointer, 1)
            lk_traceback(state.pointer, co, 0)
            let traceback = state.type(at: -1) == .string ? state.string(at: -1) : nil
            state.pop()
            if state.type(at: -1) == .table, state.rawGet(field: "traceback", in: -1) == .nil {
                state.pop()
                state.push(traceback ?? "")
                state.rawSet(field: "traceback", in: -2)
            } else if state.type(at: -1) == .table {
                state.pop()
            }
            let error = host.makeError(status: status, on: state.pointer, traceback: traceback)
            fail(slot, error)
        }
    }

    /// Sleeps until a waiting task's work completes, then resumes it.
    mutating func step(finish: (Int, LuaState, Int32) throws -> Void) throws(LuaError) {
        let (token, outcome) = try host.waitForAny(of: Set(waiting.keys), on: state)
        guard let slot = waiting.removeValue(forKey: token) else { return }
        let deliver = host.deliveries.removeValue(forKey: token)
        let thread = LuaState(slot.thread)
        let base = thread.top
        guard thread.ensureStack(8) else {
            fail(slot, LuaError(kind: .memory, message: "stack overflow in a scheduled coroutine"))
            return
        }
        switch outcome {
        case .success(let value):
            thread.push(true)
            do {
                guard let deliver else { throw LuaError(kind: .runtime, message: "LuaKit: lost the result of an async call") }
                let n = try deliver(thread, value)
                resume(slot, arguments: 1 + n, finish: finish)
            } catch {
                thread.setTop(base)
                thread.push(false)
                host.pushError(error, on: thread)
                resume(slot, arguments: 2, finish: finish)
            }
        case .failure(let error):
            thread.push(false)
            host.pushError(error, on: thread)
            resume(slot, arguments: 2, finish: finish)
        }
    }

    var isWaiting: Bool { !waiting.isEmpty }

    private mutating func fail(_ slot: Slot, _ error: any Error) {
        failures.append((slot.index, error))
        retire(slot)
    }

    private func retire(_ slot: Slot) {
        host.hostCoroutines.remove(slot.thread)
        _ = lk_closethread(slot.thread, state.pointer)
        state.pushNil()
        state.rawSet(index: slot.anchorKey, in: anchors)
    }

    /// Abandons every waiting task and closes its coroutine.
    mutating func cancelAll() {
        for (token, slot) in waiting {
            host.abandon(token)
            retire(slot)
        }
        waiting.removeAll()
    }
}

extension LuaState {
    /// Runs `count` Lua calls concurrently as coroutines, at most `concurrency` at a time.
    ///
    /// For task `i`, `start(i, thread)` pushes a function and its arguments onto the fresh
    /// coroutine `thread` and returns the number of arguments; when the call returns,
    /// `finish(i, thread, n)` receives its `n` results on top of `thread`'s stack (move them
    /// with `lua_xmove`, or convert them). Inside the calls, Swift functions that return
    /// ``LuaReturn/await(_:)`` yield to this scheduler, so their work overlaps.
    ///
    /// A failed task (an error inside its call, or thrown by `start` or `finish`) is a
    /// ``LuaError`` for an error inside a call (raising it again in Lua raises the same value;
    /// ``LuaError/underlying`` holds the Swift error a Swift function raised). Without `failed`,
    /// the first failure stops the run: pending work is cancelled and the error is rethrown. With
    /// `failed`, every failure is handed to it (`failed(i, error)`) and nothing is cancelled:
    /// when `keepGoing` is false no task starts after the first failure, but the tasks already
    /// running finish; when true every task runs. An interrupt always stops the run at once and
    /// throws ``LuaError/interrupted``. The stack is unchanged on return.
    public func runConcurrently(count: Int, concurrency: Int, keepGoing: Bool = false,
                                start: (_ index: Int, _ thread: LuaState) throws -> Int32,
                                finish: (_ index: Int, _ thread: LuaState, _ results: Int32) throws -> Void,
                                failed: ((_ index: Int, _ error: any Error) throws -> Void)? = nil) throws {
        let base = top
        defer { setTop(base) }
        guard ensureStack(8) else { throw LuaError(kind: .memory, message: "stack overflow") }
        var scheduler = LuaScheduler(state: self)
        let limit = max(1, concurrency)
        var next = 0
        var reported = 0
        var stopped = false
        while true {
            // Hand each new failure over; an interrupt or a failure with no handler ends the run.
            while reported < scheduler.failures.count {
                let (index, error) = scheduler.failures[reported]
                reported += 1
                if let failed, (error as? LuaError)?.kind != .interrupted {
                    stopped = stopped || !keepGoing
                    do { try failed(index, error) } catch {
                        scheduler.cancelAll()
                        throw error
                    }
                } else {
                    scheduler.cancelAll()
                    throw error
                }
            }
            while !stopped, next < count, scheduler.liveCount < limit {
                scheduler.launch(next, start: start, finish: finish)
                next += 1
                if !scheduler.failures.isEmpty, reported < scheduler.failures.count { break }
            }
            if reported < scheduler.failures.count { continue }
            if !scheduler.isWaiting, stopped || next >= count { break }
            if !scheduler.isWaiting { continue }
            do {
                try scheduler.step(finish: finish)
            } catch {
                scheduler.cancelAll()
                throw error
            }
        }
    }
}

extension LuaScheduler {
    /// Tasks launched and not yet finished (only waiting ones survive a launch).
    var liveCount: Int { waiting.count }
}
