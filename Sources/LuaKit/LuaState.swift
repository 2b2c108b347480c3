import CLuaShim

/// A view of one Lua thread's stack (the main state or a coroutine), for code running on the
/// Lua thread: inside ``LuaRuntime/perform(reentrant:_:)`` bodies and Swift functions called
/// from Lua. Never keep it beyond that call, and never use it on another thread.
///
/// Everything here is safe from longjmp: reads, pushes and *raw* table access call only Lua API
/// functions that cannot raise; operations that may run metamethods or raise (`getField`,
/// `toDisplayString`, `pcall`, …) go through CLuaShim's protected helpers and throw instead.
///
/// Stack invariant of this API: a method documents what it pushes and pops (`[-pop, +push]`); a
/// method that throws leaves the stack as it found it unless it says otherwise.
public struct LuaState {
    /// The raw `lua_State *`, for CLuaShim calls. Do not call `e`/`v`-class Lua functions on it.
    public let pointer: OpaquePointer

    public init(_ pointer: OpaquePointer) { self.pointer = pointer }

    var host: LuaHost { LuaHost.of(pointer) }

    // MARK: - Stack

    /// Number of values on the stack (the index of the top).
    public var top: Int32 { lua_gettop(pointer) }

    /// Sets the stack height: drops values above `n` or pushes nils up to it.
    /// (Safe: LuaKit never creates to-be-closed slots, so `lua_settop` cannot run code.)
    public func setTop(_ n: Int32) { lua_settop(pointer, n) }

    /// [-n, +0] Pops `n` values.
    public func pop(_ n: Int32 = 1) { lk_pop(pointer, n) }

    /// The absolute index for a relative one (-1 = top).
    public func absoluteIndex(_ index: Int32) -> Int32 { lua_absindex(pointer, index) }

    /// Makes room for `n` more values; false when the stack cannot grow (C stack overflow guard).
    @inlinable
    public func ensureStack(_ n: Int32) -> Bool { lua_checkstack(pointer, n) != 0 }

    /// [-n, +0] here, [-0, +n] on `other`: moves the top `n` values to another thread of the
    /// same state (e.g. into a coroutine before resuming it).
    public func move(_ n: Int32, to other: LuaState) { lua_xmove(pointer, other.pointer, n) }

    /// [-0, +1] Pushes a copy of the value at `index`.
    public func pushCopy(of index: Int32) { lua_pushvalue(pointer, index) }

    /// [-1, +0] Moves the top value into position `index`, shifting the values above it up.
    public func insert(at index: Int32) { lk_insert(pointer, index) }

    /// [-1, +0] Removes the value at `index`, shifting the values above it down.
    public func remove(at index: Int32) { lk_remove(pointer, index) }

    /// The type at `index` (``LuaType/none`` beyond the top).
    public func type(at index: Int32) -> LuaType { LuaType(rawValue: lua_type(pointer, index)) ?? .none }

    /// Lua's name for the type at `index`, honouring `__name` like `luaL_typename` does not:
    /// this is the plain type name (`table`, `nil`, `no value`).
    public func typeName(at index: Int32) -> String { type(at: index).description }

    /// Whether the value at `index` is an integer (not a float).
    public func isInteger(at index: Int32) -> Bool { lua_isinteger(pointer, index) != 0 }

    /// Whether the values are primitively equal (`rawequal`).
    public func rawEqual(_ a: Int32, _ b: Int32) -> Bool { lua_rawequal(pointer, a, b) != 0 }

    /// An identity for a table, function, userdata or thread (`lua_topointer`).
    public func identity(at index: Int32) -> UnsafeRawPointer? { lua_topointer(pointer, index) }

    // MARK: - Push

    /// [-0, +1] Pushes nil.
    public func pushNil() { lua_pushnil(pointer) }

    /// [-0, +1] Pushes a boolean.
    public func push(_ value: Bool) { lua_pushboolean(pointer, value ? 1 : 0) }

    /// [-0, +1] Pushes an integer.
    public func push(_ value: Int64) { lua_pushinteger(pointer, value) }

    /// [-0, +1] Pushes an integer.
    public func push(_ value: Int) { lua_pushinteger(pointer, Int64(value)) }

    /// [-0, +1] Pushes a float.
    public func push(_ value: Double) { lua_pushnumber(pointer, value) }

    /// [-0, +1] Pushes a string (its UTF-8 bytes).
    @inlinable
    public func push(_ value: String) {
        var s = value
        s.withUTF8 { buffer in
            _ = lua_pushlstring(pointer, UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self), buffer.count)
        }
    }

    /// [-0, +1] Pushes a string (its UTF-8 bytes).
    public func push(_ value: Substring) { push(String(value)) }

    /// [-0, +1] Pushes a NUL-terminated C string.
    @inlinable
    public func push(cString: UnsafePointer<CChar>) { _ = lua_pushstring(pointer, cString) }

    /// [-0, +1] Pushes raw bytes as a string.
    @inlinable
    public func push(bytes: UnsafeRawBufferPointer) {
        _ = lua_pushlstring(pointer, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
    }

    /// [-0, +1] Pushes a byte string.
    public func push(bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            _ = lua_pushlstring(pointer, buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, buffer.count)
        }
        if done == nil {
            let array = Array(bytes)
            array.withUnsafeBufferPointer { buffer in
                _ = lua_pushlstring(pointer, buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, buffer.count)
            }
        }
    }

    /// [-0, +1] Pushes a light userdata (a bare pointer, compared by address).
    public func push(lightUserdata: UnsafeMutableRawPointer?) { lk_pushlightuserdata(pointer, lightUserdata) }

    /// [-0, +1] Pushes the globals table.
    public func pushGlobals() { lua_rawgeti(pointer, lk_registryindex(), Int64(LUA_RIDX_GLOBALS)) }

    // MARK: - Read

    /// The string at `index` as text (invalid UTF-8 replaced), when it is a string or number.
    /// A number is converted in place, as `lua_tolstring` does: do not call this on a key during
    /// ``next(tableAt:)``.
    public func string(at index: Int32) -> String? {
        var length = 0
        guard let p = lua_tolstring(pointer, index, &length) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: p, count: length), as: UTF8.self)
    }

    /// The bytes of the string at `index`, only when it *is* a string (no number conversion).
    public func bytes(at index: Int32) -> [UInt8]? {
        guard lua_type(pointer, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let p = lua_tolstring(pointer, index, &length) else { return nil }
        return Array(UnsafeRawBufferPointer(start: p, count: length))
    }

    /// The integer at `index`, when it is an integer or a float/string with an integer value.
    public func integer(at index: Int32) -> Int64? {
        var ok: Int32 = 0
        let v = lua_tointegerx(pointer, index, &ok)
        return ok != 0 ? v : nil
    }

    /// The number at `index`, when it is a number or a numeric string.
    public func number(at index: Int32) -> Double? {
        var ok: Int32 = 0
        let v = lua_tonumberx(pointer, index, &ok)
        return ok != 0 ? v : nil
    }

    /// Lua truthiness of the value at `index`.
    public func boolean(at index: Int32) -> Bool { lua_toboolean(pointer, index) != 0 }

    /// The light userdata pointer at `index`.
    public func lightUserdata(at index: Int32) -> UnsafeMutableRawPointer? {
        guard lua_type(pointer, index) == LUA_TLIGHTUSERDATA else { return nil }
        return lua_touserdata(pointer, index)
    }

    /// The value at `index` rendered as `tostring` would (calls `__tostring`/`__name`; protected).
    public func toDisplayString(at index: Int32) throws(LuaError) -> String {
        let status = lk_ptolstring(pointer, index)
        defer { pop() }
        guard status == LUA_OK else { throw LuaError(kind: .runtime, message: string(at: -1) ?? "error in __tostring") }
        return string(at: -1) ?? ""
    }

    /// The text of an error value: strings and numbers as they are, `__tostring` when present,
    /// a table's string `message` field, else "(error object is a X value)" like lua.c.
    public func errorMessage(at index: Int32) -> String {
        let index = absoluteIndex(index)
        switch type(at: index) {
        case .string:
            return bytes(at: index).map { String(decoding: $0, as: UTF8.self) } ?? ""
        case .number:
            pushCopy(of: index)
            defer { pop() }
            return string(at: -1) ?? ""
        default:
            if lua_getmetatable(pointer, index) != 0 {
                let hasToString = rawGet(field: "__tostring", in: -1) != .nil
                pop(2)
                if hasToString, let text = try? toDisplayString(at: index) { return text }
            }
            if type(at: index) == .table {
                defer { pop() }
                if rawGet(field: "message", in: index) == .string, let text = string(at: -1) { return text }
            }
            return "(error object is a \(typeName(at: index)) value)"
        }
    }
}
