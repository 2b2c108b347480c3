import CLuaShim

/// What a Swift function called from Lua returns.
public enum LuaReturn {
    /// `n` results are on top of the stack.
    case results(Int32)
    /// Wait for async work, then deliver its results: inside a coroutine run by
    /// ``LuaState/runConcurrently(count:concurrency:keepGoing:start:finish:failed:)`` the coroutine yields to the
    /// scheduler (so other calls proceed); anywhere else (top level, inside a metamethod or a
    /// `table.sort` comparator, a user's own coroutine) the Lua thread blocks until it is done.
    case await(LuaAsync)

    /// No results.
    public static var none: LuaReturn { .results(0) }
}

extension LuaReturn: ExpressibleByIntegerLiteral {
    /// `return 2` in a Swift function means two results are on the stack.
    public init(integerLiteral value: Int32) { self = .results(value) }
}

/// Async work a Swift function hands to LuaKit, and how to push its result.
public struct LuaAsync {
    let work: @Sendable () async -> LuaAsyncOutcome
    let deliver: (LuaState, any Sendable) throws -> Int32
    /// Raised instead of ``LuaError/interrupted`` when an interrupt cancels a blocking wait for
    /// this work (e.g. a module's own "cancelled" error value).
    public var interruptedError: (any Error)?
    /// Whether `work` runs on the Lua thread while it waits (``LuaThreadExecutor``) rather than
    /// on the concurrency pool: for short work whose answer the Lua thread handles anyway (an
    /// API call whose tables it builds), not for long work (a job engine, an upload), which would
    /// make every other thing the thread does wait for it.
    public var runsOnLuaThread = false

    /// `work` runs in a Task (off the Lua thread; cancelled on interrupt); `deliver` runs on the
    /// Lua thread with the state of the calling coroutine, pushes the results and returns how
    /// many. An error thrown by either is raised in Lua.
    public init<T: Sendable>(_ work: @escaping @Sendable () async throws -> T,
                             deliver: @escaping (LuaState, T) throws -> Int32) {
        self.work = {
            do {
                return .success(try await work())
            } catch {
                return .failure(error)
            }
        }
        self.deliver = { state, value in try deliver(state, value as! T) }
    }
}

/// The signature of a Swift function callable from Lua.
public typealias LuaFunctionBody = (LuaCall) throws -> LuaReturn

/// One call from Lua into a Swift function: its arguments, and argument checks that throw
/// ``LuaArgumentError`` (raised in Lua like `luaL_argerror`, but without a longjmp through Swift).
public struct LuaCall {
    /// The calling thread's state. Arguments are at indices `1…argumentCount`.
    public let state: LuaState
    /// The function's name in messages (`flickr.photos.search`).
    public let name: String
    /// How many arguments were passed.
    public let argumentCount: Int32

    /// The type of argument `i` (``LuaType/none`` when absent).
    public func type(_ i: Int32) -> LuaType { i <= argumentCount ? state.type(at: i) : .none }

    /// An argument error for argument `i`.
    public func argumentError(_ i: Int32, _ problem: String) -> LuaArgumentError {
        LuaArgumentError(position: i, function: name, problem: problem)
    }

    /// The error for argument `i` having the wrong type.
    public func typeError(_ i: Int32, expected: String) -> LuaArgumentError {
        argumentError(i, "\(expected) expected, got \(type(i) == .none ? "no value" : state.typeName(at: i))")
    }

    /// Argument `i` as data (see ``LuaValue``).
    public func value(_ i: Int32) throws -> LuaValue {
        guard i <= argumentCount else { return .nil }
        do {
            return try state.value(at: i)
        } catch {
            throw argumentError(i, error.message)
        }
    }

    /// Argument `i` as a string (numbers are converted, as in Lua).
    public func string(_ i: Int32) throws -> String {
        guard type(i) == .string || type(i) == .number, let s = state.string(at: i) else {
            throw typeError(i, expected: "string")
        }
        return s
    }

    /// Argument `i` as a string, or nil when absent or nil.
    public func optionalString(_ i: Int32) throws -> String? {
        type(i) == .nil || type(i) == .none ? nil : try string(i)
    }

    /// Argument `i` as an integer (a float with an integral value is accepted).
    public func integer(_ i: Int32) throws -> Int64 {
        guard type(i) == .number || type(i) == .string else { throw typeError(i, expected: "number") }
        guard let v = state.integer(at: i) else { throw argumentError(i, "number has no integer representation") }
        return v
    }

    /// Argument `i` as an integer, or nil when absent or nil.
    public func optionalInteger(_ i: Int32) throws -> Int64? {
        type(i) == .nil || type(i) == .none ? nil : try integer(i)
    }

    /// Argument `i` as a number.
    public func number(_ i: Int32) throws -> Double {
        guard type(i) == .number || type(i) == .string, let v = state.number(at: i) else {
            throw typeError(i, expected: "number")
        }
        return v
    }

    /// Checks that argument `i` is a table.
    public func table(_ i: Int32) throws {
        guard type(i) == .table else { throw typeError(i, expected: "table") }
    }

    /// Checks that argument `i` is a table or absent/nil; returns whether it is a table.
    public func optionalTable(_ i: Int32) throws -> Bool {
        switch type(i) {
        case .table: return true
        case .nil, .none: return false
        default: throw typeError(i, expected: "table")
        }
    }

    /// Checks that argument `i` is a function.
    public func function(_ i: Int32) throws {
        guard type(i) == .function else { throw typeError(i, expected: "function") }
    }

    /// Runs `work` in a Task and blocks the Lua thread until it finishes, running reentrant
    /// jobs meanwhile (see ``LuaRuntime/perform(reentrant:_:)``). Never yields. An interrupt
    /// cancels the task and throws ``LuaError/interrupted``.
    public func awaitBlocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        try state.awaitBlocking(work)
    }
}

extension LuaState {
    /// [-0, +1] Pushes a Swift function. `body` (and what it captures) lives until Lua collects
    /// the function (or the runtime closes). `name` is used in argument errors.
    public func push(function name: String, _ body: @escaping LuaFunctionBody) {
        let box = LuaFunctionBox(name: name, body: body)
        lk_push_function(pointer, Unmanaged.passRetained(box).toOpaque())
    }

    /// Runs `work` in a Task and blocks the Lua thread until it finishes (see
    /// ``LuaCall/awaitBlocking(_:)``). Only on the Lua thread, never from async code.
    public func awaitBlocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let host = self.host
        let token = host.startTask {
            do {
                return .success(try await work())
            } catch {
                return .failure(error)
            }
        }
        let (_, outcome) = try host.waitForAny(of: [token], on: self)
        return try outcome.get() as! T
    }
}

/// A Swift function as Lua holds it: retained by the userdata upvalue of its trampoline closure,
/// released by that userdata's `__gc`.
final class LuaFunctionBox {
    let name: String
    let body: LuaFunctionBody

    init(name: String, body: @escaping LuaFunctionBody) {
        self.name = name
        self.body = body
    }

    /// Installs the dispatcher and releaser into CLuaShim (once per process).
    static let installTrampoline: Void = {
        lk_install(luaKitDispatch, luaKitRelease)
    }()
}

/// The Swift half of the trampoline. Everything owned here is released before it returns, so
/// the C half may then raise or yield.
private func luaKitDispatch(_ L: OpaquePointer?, _ box: UnsafeMutableRawPointer?) -> Int32 {
    guard let L, let box else { return 0 }
    let function = Unmanaged<LuaFunctionBox>.fromOpaque(box).takeUnretainedValue()
    let state = LuaState(L)
    guard lk_host_owner(L) != nil else {
        // A foreign state past its host's detach (a finalizer that runs during lua_close).
        state.push("\(function.name): the Lua state is closing")
        return LK_RAISE
    }
    let host = state.host
    let saved = host.current
    host.current = L
    lk_host_arm_if_pending(host.flags)
    defer { host.current = saved }
    do {
        let call = LuaCall(state: state, name: function.name, argumentCount: lua_gettop(L))
        switch try function.body(call) {
        case .results(let n):
            return n
        case .await(let async):
            return try host.run(async, on: state)
        }
    } catch {
        host.pushError(error, on: state)
        return LK_RAISE
    }
}

private func luaKitRelease(_ box: UnsafeMutableRawPointer?) {
    guard let box else { return }
    Unmanaged<LuaFunctionBox>.fromOpaque(box).release()
}

extension LuaHost {
    /// Yields to the scheduler when `state` is one of its coroutines and may yield here; blocks
    /// otherwise. Returns the trampoline status.
    func run(_ async: LuaAsync, on state: LuaState) throws -> Int32 {
        let L = state.pointer
        if hostCoroutines.contains(L), lua_isyieldable(L) != 0 {
            let token = startTask(async.work, onLuaThread: async.runsOnLuaThread)
            deliveries[token] = async.deliver
            state.push(lightUserdata: LuaHost.yieldSentinel)
            state.push(Int64(bitPattern: token))
            return lk_yield(2)
        }
        let token = startTask(async.work, onLuaThread: async.runsOnLuaThread)
        let outcome: LuaAsyncOutcome
        do {
            (_, outcome) = try waitForAny(of: [token], on: state)
        } catch {
            throw async.interruptedError ?? error
        }
        return try async.deliver(state, try outcome.get())
    }
}
