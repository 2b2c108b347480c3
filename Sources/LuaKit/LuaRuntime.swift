import CLuaShim

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Lua 5.4 state with its own thread: the one safe way into Lua from Swift.
///
/// ```swift
/// let lua = try LuaRuntime()
/// let sum = try await lua.perform { L in try L.run("return 1 + 1") }   // [.integer(2)]
/// ```
///
/// - Every use of the state happens on the runtime's dedicated thread (never a Swift
///   concurrency pool thread): hand it work with ``perform(reentrant:_:)`` from async code or
///   ``performAndWait(_:)`` from a plain thread. Jobs run one at a time, in order.
/// - A Swift function called from Lua may wait for async work (``LuaReturn/await(_:)``): the
///   Lua thread blocks (running *reentrant* jobs meanwhile), or, inside coroutines of
///   ``LuaState/runConcurrently(count:concurrency:keepGoing:start:finish:failed:)``, yields so that many calls
///   overlap.
/// - ``interrupt()`` (or ``LuaInterruptHandle`` from a signal handler) stops running Lua code
///   with the error "interrupted!" and cancels an awaited call.
/// - ``close()`` (or the last reference going away) closes the state on its thread; Swift
///   functions registered in it are released then.
public final class LuaRuntime: Sendable {
    /// How to create a runtime.
    public struct Configuration: Sendable {
        /// Stack size of the Lua thread, in bytes (C recursion of Lua and of conversions).
        public var stackSize: Int
        /// Open Lua's standard libraries (`luaL_openlibs`).
        public var openStandardLibraries: Bool

        /// lua.c's `-E`: the package library ignores `LUA_PATH`/`LUA_CPATH` (and their `_5_4`
        /// forms) and starts from Lua's default paths.
        public var ignoreEnvironment: Bool

        public init(stackSize: Int = 16 << 20, openStandardLibraries: Bool = true,
                    ignoreEnvironment: Bool = false) {
            self.ignoreEnvironment = ignoreEnvironment
            self.stackSize = stackSize
            self.openStandardLibraries = openStandardLibraries
        }
    }

    let host: LuaHost

    /// Creates a state, opens the standard libraries and starts its thread.
    /// The Lua release LuaKit was built with: `Lua 5.4.6`.
    public static var luaRelease: String { String(cString: lk_lua_release()) }
    /// Lua's copyright line, as `lua -v` prints it: `Lua 5.4.6  Copyright (C) 1994-2023 Lua.org, PUC-Rio`.
    public static var luaCopyright: String { String(cString: lk_lua_copyright()) }

    public init(_ configuration: Configuration = Configuration()) throws(LuaError) {
        host = try LuaHost(stackSize: configuration.stackSize, openLibraries: configuration.openStandardLibraries,
                           ignoreEnvironment: configuration.ignoreEnvironment)
        try host.start()
    }

    deinit {
        host.stop()
    }

    /// Runs `body` on the Lua thread with the main state and returns its result.
    ///
    /// With `reentrant: false` (the default) the job runs when no other job runs. With
    /// `reentrant: true` it may also run while a running call is blocked waiting for async
    /// work, with the waiting thread's state (progress callbacks use this). The stack is reset
    /// to its height after the job. Throws ``LuaError`` of kind `closed` after ``close()``.
    public func perform<T: Sendable>(reentrant: Bool = false,
                                     _ body: @escaping @Sendable (LuaState) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = LuaJob(reentrant: reentrant) { state in
                continuation.resume(with: Result { try body(state) })
            }
            if !host.post(job) {
                continuation.resume(throwing: LuaError(kind: .closed, message: "the Lua runtime is closed"))
            }
        }
    }

    /// Posts `body` without waiting for it (see ``perform(reentrant:_:)``); false when closed.
    @discardableResult
    public func post(reentrant: Bool = false, _ body: @escaping @Sendable (LuaState) -> Void) -> Bool {
        host.post(LuaJob(reentrant: reentrant, body: body))
    }

    /// Runs `body` on the Lua thread and blocks the calling thread until it is done. Called on
    /// the Lua thread itself (from inside a job or a Swift function), it runs `body` at once
    /// with the state of the innermost running call. Never call it from async code.
    public func performAndWait<T>(_ body: (LuaState) throws -> T) throws -> T {
        if host.isLuaThread {
            return try body(LuaState(host.current))
        }
        return try withoutActuallyEscaping(body) { escapable in
            let box = UncheckedBox<Result<T, any Error>?>(nil)
            let done = Semaphore()
            // The job may outlive this call for a moment (the Lua thread still holds it after
            // signalling), so it reaches `body` only through a box that it empties first.
            let bodyBox = UncheckedBox<((LuaState) throws -> T)?>(escapable)
            let job = LuaJob(reentrant: false) { state in
                box.value = Self.runOnce(bodyBox, state)
                done.signal()
            }
            guard host.post(job) else { throw LuaError(kind: .closed, message: "the Lua runtime is closed") }
            done.wait()
            return try box.value!.get()
        }
    }

    /// Runs and drops the boxed body (so nothing holds it once the result is out).
    private static func runOnce<T>(_ bodyBox: UncheckedBox<((LuaState) throws -> T)?>, _ state: LuaState) -> Result<T, any Error> {
        guard let body = bodyBox.value else { return .failure(LuaError(kind: .closed, message: "job ran twice")) }
        bodyBox.value = nil
        return Result { try body(state) }
    }

    /// Stops running Lua code: as lua.c does on Ctrl-C, a hook set for the purpose (on the main
    /// thread and the thread of the innermost Swift function; any hooks of the script's are put
    /// back when it fires) makes the running code raise the interrupt
    /// (kind ``LuaError/Kind/interrupted``, shown as lua.c's "interrupted!"; Lua code cannot
    /// raise one of its own); a call blocked on async work is cancelled and raises the same.
    /// It targets the job running now or, with none running, the next job to start; an
    /// interrupt whose job ended before it was taken expires (it never stops a later job).
    public func interrupt() { lk_host_interrupt(host.flags) }

    /// A handle whose ``LuaInterruptHandle/interrupt()`` is async-signal-safe (for a SIGINT
    /// handler). Valid while the runtime is open.
    public var interruptHandle: LuaInterruptHandle { LuaInterruptHandle(host: host.flags) }

    /// Whether the caller runs on the Lua thread.
    public var isLuaThread: Bool { host.isLuaThread }

    /// Closes the state after the jobs already posted, and waits until it is closed.
    /// Must not be called on the Lua thread.
    public func close() {
        precondition(!host.isLuaThread, "LuaRuntime.close() called on the Lua thread")
        host.stop()
        host.waitUntilFinished()
    }

    /// Like ``close()``, but gives up after `seconds`: returns false when the Lua thread is still
    /// busy then (a job that never ends; it keeps the state until it does). For callers — tests,
    /// a shutdown path — that must not hang on a wedged runtime.
    @discardableResult
    public func close(timeout seconds: Double) -> Bool {
        precondition(!host.isLuaThread, "LuaRuntime.close(timeout:) called on the Lua thread")
        host.stop()
        return host.waitUntilFinished(timeout: seconds)
    }
}

/// Interrupts a runtime from anywhere, signal handlers included: it stores a flag and posts a
/// semaphore, nothing else (no allocation, no locks, no reference counting).
public struct LuaInterruptHandle: @unchecked Sendable {
    let host: OpaquePointer

    /// See ``LuaRuntime/interrupt()``.
    public func interrupt() { lk_host_interrupt(host) }
}

/// A value moved between threads under external synchronisation (a semaphore).
final class UncheckedBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// A counting semaphore for plain threads.
final class Semaphore: @unchecked Sendable {
    private var sem = sem_t()

    init() { sem_init(&sem, 0, 0) }
    deinit { sem_destroy(&sem) }

    func signal() { sem_post(&sem) }

    func wait() {
        while sem_wait(&sem) != 0 && errno == EINTR {}
    }

    /// Waits at most `seconds`; false when the time ran out first.
    func wait(timeout seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanos = Int(deadline.tv_nsec) + Int((seconds - seconds.rounded(.down)) * 1e9)
        deadline.tv_sec += Int(seconds.rounded(.down)) + nanos / 1_000_000_000
        deadline.tv_nsec = nanos % 1_000_000_000
        while true {
            if sem_timedwait(&sem, &deadline) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}

/// Posts jobs to the Lua thread of a state without holding its runtime alive: what async work
/// started by a Swift function uses to call back into Lua (progress callbacks, prompts).
public struct LuaJobPoster: Sendable {
    private final class WeakHost: @unchecked Sendable {
        weak var host: LuaHost?
        init(_ host: LuaHost) { self.host = host }
    }

    private let box: WeakHost

    init(host: LuaHost) { box = WeakHost(host) }

    /// See ``LuaRuntime/post(reentrant:_:)``; false when the runtime is gone.
    @discardableResult
    public func post(reentrant: Bool = true, _ body: @escaping @Sendable (LuaState) -> Void) -> Bool {
        box.host?.post(LuaJob(reentrant: reentrant, body: body)) ?? false
    }

    /// Runs `body` on the Lua thread (reentrantly, so it also runs while the caller's Lua code
    /// is blocked waiting) and waits for it; returns nil when the runtime is gone.
    public func run<T: Sendable>(_ body: @escaping @Sendable (LuaState) -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let posted = post(reentrant: true) { state in continuation.resume(returning: body(state)) }
            if !posted { continuation.resume(returning: nil) }
        }
    }
}

extension LuaState {
    /// A poster for this state's Lua thread (see ``LuaJobPoster``).
    public var jobPoster: LuaJobPoster { LuaJobPoster(host: host) }
}
