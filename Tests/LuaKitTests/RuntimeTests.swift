import Foundation
import LuaKit
import Synchronization
import Testing
import FlickrTestSupport

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct RuntimeTests {
    @Test func functionsAreReleasedWhenCollected() async throws {
        let lua = try LuaRuntime()
        defer { #expect(lua.close(timeout: 10), "the Lua thread is wedged") }
        let live = LiveCount()
        try await lua.perform { L in
            for i in 0..<100 {
                let held = Tracker(live)
                L.push(function: "f\(i)") { _ in
                    withExtendedLifetime(held) {}
                    return 0
                }
                L.setGlobal("f\(i)")
            }
        }
        #expect(live.count == 100)
        try await lua.perform { L in
            try L.run("for i = 0, 49 do _G['f' .. i] = nil end; collectgarbage(); collectgarbage()")
        }
        #expect(live.count == 50)
        lua.close()
        #expect(live.count == 0)
    }

    @Test func performAndWaitFromAPlainThread() throws {
        let lua = try LuaRuntime()
        defer { #expect(lua.close(timeout: 10), "the Lua thread is wedged") }
        let result = Mutex<[LuaValue]>([])
        let thread = Thread {
            let r = try? lua.performAndWait { L in try L.run("return _VERSION, 6 * 7") }
            result.withLock { $0 = r ?? [] }
        }
        thread.start()
        while !thread.isFinished { usleep(1000) }
        #expect(result.withLock { $0 } == ["Lua 5.4", 42])
        #expect(!lua.isLuaThread)
    }

    @Test func asyncCallsBlockOutsideTheScheduler() async throws {
        let r = try await withLua { L in
            L.push(function: "sleepy") { call in
                let ms = try call.integer(1)
                return .await(LuaAsync({ try await Task.sleep(for: .milliseconds(ms)); return ms * 2 }) { state, v in
                    state.push(v)
                    return 1
                })
            }
            L.setGlobal("sleepy")
            // Top level, inside a comparator (not yieldable), inside a user coroutine.
            return try L.run("""
                local a = sleepy(10)
                local t = {3, 1, 2}
                table.sort(t, function(x, y) sleepy(1) return x < y end)
                local co = coroutine.wrap(function() return sleepy(5) end)
                return a, table.concat(t), co()
                """)
        }
        #expect(r == [20, "123", 10])
    }

    /// The Lua thread's wait spins for a short while (200 µs, CLuaShim's `LK_SPIN_NS`) before it
    /// sleeps: answers that come at once, during the spin, at its end and after it, from other
    /// threads, must each be taken once — none lost (the loop would hang), none taken twice (a
    /// wait would return early with another call's answer).
    @Test func answersAroundTheSpinAreTakenOnce() async throws {
        let r = try await withLua { L in
            L.push(function: "later") { call in
                let us = try call.integer(1)
                return .await(LuaAsync({ () async throws -> Int64 in
                    if us > 0 { try await Task.sleep(for: .microseconds(us)) }
                    return us
                }) { state, v in
                    state.push(v)
                    return 1
                })
            }
            L.setGlobal("later")
            return try L.run("""
                local sum, expected = 0, 0
                for i = 1, 3000 do
                  local us = (i * 37) % 600
                  if i % 5 == 0 then us = 0 end
                  sum = sum + later(us)
                  expected = expected + us
                end
                return sum, expected
                """)
        }
        #expect(r.count == 2 && r[0] == r[1], "\(r)")
    }

    /// The scheduler keeps up to `concurrency` calls in flight: counted, not timed (a timing
    /// depends on how busy the machine is; FlickrLuaTests times flickr.map against the sandbox).
    @Test func schedulerOverlapsAsyncCalls() async throws {
        let gauge = InFlight()
        let values = try await withLua { L -> [LuaValue] in
            L.push(function: "sleepy") { call in
                let ms = try call.integer(1)
                gauge.enter()  // issued (on the Lua thread) …
                return .await(LuaAsync({ () async throws -> Int64 in
                    try await Task.sleep(for: .milliseconds(ms))
                    return ms
                }) { state, v in
                    gauge.leave()  // … and delivered: what lies between is in flight
                    state.push(v)
                    return 1
                })
            }
            L.setGlobal("sleepy")
            try L.load("local i = ...; return sleepy(100) + i, select('#', sleepy(1))", name: "=task")
            let task = LuaRef(popping: L)
            var results = [LuaValue](repeating: .nil, count: 20)
            try L.runConcurrently(count: 20, concurrency: 10, start: { i, thread in
                task.push(onto: thread)
                thread.push(Int64(i))
                return 1
            }, finish: { i, thread, n in
                results[i] = try thread.value(at: -n)
            })
            return results
        }
        #expect(values == (0..<20).map { LuaValue.integer(100 + Int64($0)) })
        // Ten 100 ms calls were in flight together (a blocking bridge would show 1).
        #expect(gauge.peak == 10, "peak in flight: \(gauge.peak)")
        #expect(gauge.current == 0)
    }

    @Test func schedulerRethrowsTheFirstErrorAndBlocksWhereItCannotYield() async throws {
        let r = try await withLua { L -> [LuaValue] in
            L.push(function: "sleepy") { call in
                let ms = try call.integer(1)
                return .await(LuaAsync({ () async throws -> Int64 in
                    try await Task.sleep(for: .milliseconds(ms))
                    if ms == 13 { throw StructuredError(code: 13, message: "async failure") }
                    return ms
                }) { state, v in
                    state.push(v)
                    return 1
                })
            }
            L.setGlobal("sleepy")
            try L.load("""
                local i = ...
                -- a metamethod cannot yield: the call blocks there instead of failing
                local t = setmetatable({}, { __index = function(_, k) return sleepy(k) end })
                return t[i]
                """, name: "=task")
            let task = LuaRef(popping: L)
            do {
                try L.runConcurrently(count: 30, concurrency: 4, start: { i, thread in
                    task.push(onto: thread)
                    thread.push(Int64(i == 7 ? 13 : 5))
                    return 1
                }, finish: { _, _, _ in })
                return []
            } catch let e as LuaError {
                // The Lua error value keeps its identity; the Swift error rides along.
                return [.integer((e.underlying as? StructuredError)?.code ?? -1), e.value?["code"] ?? .nil]
            }
        }
        #expect(r == [13, 13])
    }

    /// Registers `started()`, which fires `signal`: Lua code says when it is running.
    static func installStarted(_ lua: LuaRuntime, _ signal: Signal) async throws {
        try await lua.perform { L in
            L.push(function: "started") { _ in
                signal.fire()
                return .none
            }
            L.setGlobal("started")
        }
    }

    @Test func interruptStopsRunningCode() async throws {
        let lua = try LuaRuntime()
        defer { #expect(lua.close(timeout: 10), "the Lua thread is wedged") }
        let started = Signal()
        try await Self.installStarted(lua, started)
        let running = Task {
            try await withDeadline(20, "the interrupted loop") {
                try await lua.perform { L -> LuaError? in
                    do {
                        // Also inside a coroutine whose loop calls Swift: the hook is set on it
                        // at the next call (as lua.c's fires on calls).
                        try L.run("coroutine.wrap(function() started(); local n = 0; while true do n = n + #tostring(n); started() end end)()")
                        return nil
                    } catch let e as LuaError { return e }
                }
            }
        }
        try await started.wait(20, "the loop to start")
        lua.interrupt()
        let error = try await running.value
        #expect(error?.kind == .interrupted)
        #expect(error?.message == "interrupted!")
        // The runtime stays usable.
        #expect(try await lua.perform { L in try L.run("return 1") } == [1])
    }

    @Test("No hook is installed until an interrupt comes (debug.gethook() is nil, in coroutines too); a script's own hook is put back after it; Ctrl-C works under it")
    func theHookIsThereOnlyForAnInterrupt() async throws {
        let lua = try LuaRuntime()
        defer { #expect(lua.close(timeout: 10), "the Lua thread is wedged") }
        let none = try await lua.perform { L in
            try L.run("return debug.gethook() == nil, coroutine.wrap(function() return debug.gethook() == nil end)()")
        }
        #expect(none == [true, true])
        let started = Signal()
        try await Self.installStarted(lua, started)
        let running = Task {
            try await withDeadline(20, "the interrupted loop under a line hook") {
                try await lua.perform { L -> LuaError.Kind? in
                    do {
                        try L.run("lines = 0; mine = function() lines = lines + 1 end; debug.sethook(mine, 'l'); started(); while true do end")
                        return nil
                    } catch let e as LuaError { return e.kind }
                }
            }
        }
        try await started.wait(20, "the loop to start")
        lua.interrupt()
        #expect(try await running.value == .interrupted)
        let after = try await lua.perform { L in
            try L.run("local h, m, c = debug.gethook(); return h == mine, m, c, lines > 0")
        }
        #expect(after == [true, "l", 0, true])
        // With no hook of the script's, an interrupt leaves no hook behind. (The interrupt is
        // sent while the job runs: one sent as a job returns may target that job, whose end the
        // host has not yet counted, and expire — see anInterruptWhileIdleIsKeptForTheNextJobOnly.)
        let again = Signal()
        try await Self.installStarted(lua, again)
        let second = Task {
            try await withDeadline(20, "the interrupted loop without a hook") {
                try await lua.perform { L -> LuaError.Kind? in
                    do { try L.run("debug.sethook(); started(); while true do end"); return nil } catch let e as LuaError { return e.kind }
                }
            }
        }
        try await again.wait(20, "the second loop to start")
        lua.interrupt()
        let kind = try await second.value
        #expect(kind == .interrupted)
        #expect(try await lua.perform { L in try L.run("return debug.gethook() == nil") } == [true])
    }

    @Test func onlyTheHookRaisesAnInterrupt() async throws {
        let lua = try LuaRuntime()
        defer { #expect(lua.close(timeout: 10), "the Lua thread is wedged") }
        let errors = try await withDeadline(20, "forged interrupts") {
            try await lua.perform { L -> [LuaError.Kind] in
                var kinds: [LuaError.Kind] = []
                for source in ["error('interrupted!')", "error('interrupted!', 0)",
                               "coroutine.wrap(function() error('interrupted!') end)()",
                               "error(setmetatable({}, { __tostring = function() return 'interrupted!' end }))"] {
                    do { try L.run(source) } catch let e as LuaError { kinds.append(e.kind) }
                }
                return kinds
            }
        }
        #expect(errors == [.runtime, .runtime, .runtime, .runtime])
        // The real one cannot be reached for copying: its metatable is locked.
        let started = Signal()
        try await Self.installStarted(lua, started)
        let caught = Task {
            try await withDeadline(20, "the caught interrupt") {
                try await lua.perform { L in
                    try L.run("local ok, e = pcall(function() started(); while true do end end); return ok, tostring(e), type(e), getmetatable(e)")
                }
            }
        }
        try await started.wait(20, "the loop to start")
        lua.interrupt()
        #expect(try await caught.value == [false, "interrupted!", "userdata", false])
    }

    @Test func anInterruptWhileIdleIsKeptForTheNextJobOnly() async throws {
        // A fresh runtime has run no job: it is idle, so the interrupt waits for the next one.
        let lua = try LuaRuntime()
        defer { #expect(lua.close(timeout: 10), "the Lua thread is wedged") }
        lua.interrupt()
        let kind = try await withDeadline(20, "the loop interrupted before it started") {
            try await lua.perform { L -> LuaError.Kind? in
                do { try L.run("while true do end"); return nil } catch let e as LuaError { return e.kind }
            }
        }
        #expect(kind == .interrupted)
        // Taken once: the job after it runs in full.
        #expect(try await lua.perform { L in try L.run("local n = 0; for i = 1, 1e6 do n = n + 1 end; return n") } == [1_000_000])
    }

    @Test func interruptCancelsAnAwaitedCall() async throws {
        let lua = try LuaRuntime()
        defer { #expect(lua.close(timeout: 10), "the Lua thread is wedged") }
        let cancelled = Flag()
        let waiting = Signal()
        try await lua.perform { L in
            L.push(function: "forever") { _ in
                .await(LuaAsync({ () async throws -> Int64 in
                    do {
                        waiting.fire()  // the call is now blocked on this work
                        try await Task.sleep(for: .seconds(30))
                    } catch {
                        cancelled.set()
                        throw error
                    }
                    return 0
                }) { _, _ in 0 })
            }
            L.setGlobal("forever")
        }
        // Interrupt from a plain thread, as a signal handler would; time it on plain threads too
        // (the Lua thread), so that a busy concurrency pool does not count.
        let sent = Mutex<ContinuousClock.Instant?>(nil)
        let blocked = Task {
            try await withDeadline(20, "the interrupted call") {
                try await lua.perform { L -> (LuaError?, ContinuousClock.Instant) in
                    do {
                        try L.run("forever()")
                        return (nil, .now)
                    } catch let e as LuaError { return (e, .now) }
                }
            }
        }
        try await waiting.wait(20, "the call to block")
        Thread {
            sent.withLock { $0 = .now }
            lua.interruptHandle.interrupt()
        }.start()
        let (error, stopped) = try await blocked.value
        let delay = stopped - (sent.withLock { $0 } ?? stopped)
        #expect(delay < .seconds(1), "the blocked call stopped \(delay) after the interrupt")
        #expect(error?.kind == .interrupted)
        try await withDeadline(10, "the task's cancellation") { while !cancelled.isSet { try await Task.sleep(for: .milliseconds(5)) } }
    }

    /// A reentrant job posted from another thread runs while a call waits (progress callbacks).
    @Test func reentrantJobsRunDuringAWait() async throws {
        let lua = try LuaRuntime()
        defer { #expect(lua.close(timeout: 10), "the Lua thread is wedged") }
        try await lua.perform { L in
            L.push(function: "wait") { _ in
                .await(LuaAsync({ () async throws -> Int64 in
                    lua.post(reentrant: true) { state in
                        _ = try? state.run("events[#events + 1] = 'progress'")
                    }
                    try await Task.sleep(for: .milliseconds(100))
                    return 1
                }) { _, _ in 0 })
            }
            L.setGlobal("wait")
        }
        let r = try await lua.perform { L in
            try L.run("events = {}; wait(); events[#events + 1] = 'done'; return table.concat(events, ',')")
        }
        #expect(r == ["progress,done"])
    }

    @Test func globalsPathAndArguments() async throws {
        let r = try await withLua { L in
            L.setScriptArguments(script: "s.lua", arguments: ["a", "b"], interpreter: ["flickr"])
            L.setPackagePath("/x/?.lua;" + (L.packagePath ?? ""))
            try L.setGlobal("answer", to: 42)
            L.newTable()
            L.push("hello")
            L.rawSet(field: "greeting", in: -2)
            try L.registerModule("mymod")
            let entries = L.rawEntries(ofTableAt: { L.pushGlobals(); return -1 }())
            L.pop()
            #expect(entries.contains { $0.key == "answer" && $0.type == .number })
            return try L.run("return arg[0], arg[1], arg[2], arg[-1], package.path:sub(1, 9), answer, require('mymod').greeting")
        }
        #expect(r == ["s.lua", "a", "b", "flickr", "/x/?.lua;", 42, "hello"])
    }
}

/// A flag shared with async work.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Counts async calls in flight and the peak.
final class InFlight: Sendable {
    private let state = Mutex((current: 0, peak: 0))
    func enter() { state.withLock { $0.current += 1; $0.peak = max($0.peak, $0.current) } }
    func leave() { state.withLock { $0.current -= 1 } }
    var peak: Int { state.withLock { $0.peak } }
    var current: Int { state.withLock { $0.current } }
}
