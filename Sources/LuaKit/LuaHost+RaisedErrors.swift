import CLuaShim

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Swift errors raised into Lua: the Lua value pushed for each is remembered (in a registry
/// table parallel to ``LuaHost/raisedErrors``), so that when the value comes back to the host —
/// through pcall, a coroutine, a callback — the Swift error comes back as itself.
extension LuaHost {
    /// Pushes the Lua value for a Swift error and remembers the pair, so that the error comes
    /// back as itself if the value reaches the host again.
    func pushError(_ error: any Error, on state: LuaState) {
        assertLuaThread()
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

    fileprivate func remember(_ error: any Error, valueAt idx: Int32, on L: OpaquePointer) {
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
        assertLuaThread()
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
        assertLuaThread()
        guard !raisedErrors.isEmpty else { return }
        raisedErrors.removeAll()
        lua_pushnil(main)
        lua_rawsetp(main, lk_registryindex(), Self.raisedKey)
    }
}

extension LuaState {
    /// [-0, +1] Pushes the Lua value of an error: the very value raised in Lua for an error that
    /// came from Lua (identity kept), else the value a Swift error is raised as — and a Swift
    /// error raised from that value later comes back as itself.
    public func push(error: any Error) {
        host.pushError(error, on: self)
    }
}
