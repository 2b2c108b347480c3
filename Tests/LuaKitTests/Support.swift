import LuaKit
import Synchronization

/// How many ``Tracker``s of one test are alive (tests run in parallel: one counter each).
final class LiveCount: Sendable {
    private let value = Mutex(0)
    func add(_ n: Int) { value.withLock { $0 += n } }
    var count: Int { value.withLock { $0 } }
}

/// Counts live instances, to prove that Swift objects held by functions and errors are released.
final class Tracker: Sendable {
    let live: LiveCount
    init(_ live: LiveCount) {
        self.live = live
        live.add(1)
    }
    deinit { live.add(-1) }
}

/// A plain Swift error holding an object.
struct TrackedError: Error, CustomStringConvertible {
    let code: Int
    let tracker: Tracker
    init(code: Int, live: LiveCount = LiveCount()) {
        self.code = code
        tracker = Tracker(live)
    }
    var description: String { "tracked error \(code)" }
}

/// A structured Swift error: raised in Lua as a table with a metatable.
struct StructuredError: LuaErrorRepresentable, Equatable {
    let code: Int64
    let message: String

    func pushLuaErrorValue(onto state: LuaState) {
        state.newTable(record: 2)
        state.push(code)
        state.rawSet(field: "code", in: -2)
        state.push(message)
        state.rawSet(field: "message", in: -2)
        if state.pushMetatable(named: "test.Error") {
            state.push(function: "__tostring") { call in
                call.state.rawGet(field: "message", in: 1)
                return 1
            }
            state.rawSet(field: "__tostring", in: -2)
        }
        state.setMetatable(of: -2)
    }
}

/// Runs `body` with a fresh runtime, closed afterwards.
func withLua<T: Sendable>(_ body: @escaping @Sendable (LuaState) throws -> T) async throws -> T {
    let lua = try LuaRuntime()
    defer { lua.close() }
    return try await lua.perform(body)
}
