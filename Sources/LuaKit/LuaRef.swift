import CLuaShim

/// A Lua value kept alive from Swift (a reference in the registry, `luaL_ref`).
///
/// May be held and dropped on any thread: the registry slot is released on the Lua thread at
/// its next safe point. Using it after its runtime closed pushes nil.
public final class LuaRef: @unchecked Sendable {
    weak var host: LuaHost?
    let ref: Int32

    /// Pops the value on top of `state` and keeps it.
    public init(popping state: LuaState) {
        host = state.host
        ref = luaL_ref(state.pointer, lk_registryindex())
    }

    /// Keeps the value at `index` (the stack is unchanged).
    public convenience init(at index: Int32, in state: LuaState) {
        lua_pushvalue(state.pointer, index)
        self.init(popping: state)
    }

    /// Pushes the value. Must run on the Lua thread of the runtime the value belongs to.
    public func push(onto state: LuaState) {
        guard let host, host === state.host, !host.closed, ref != LUA_REFNIL, ref != LUA_NOREF else {
            lua_pushnil(state.pointer)
            return
        }
        lua_rawgeti(state.pointer, lk_registryindex(), Int64(ref))
    }

    deinit {
        if ref != LUA_REFNIL, ref != LUA_NOREF { host?.enqueueUnref(ref) }
    }
}
