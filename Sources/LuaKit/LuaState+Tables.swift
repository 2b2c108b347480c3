import CLuaShim

/// Tables: raw access (never runs metamethods, cannot raise) and protected access (may run
/// `__index`/`__newindex`, throws on error).
extension LuaState {
    /// [-0, +1] Pushes a new table with room for `array` sequence and `record` other entries.
    @inlinable
    public func newTable(array: Int32 = 0, record: Int32 = 0) { lua_createtable(pointer, array, record) }

    /// [-0, +1] Pushes `t[field]` without metamethods; returns its type.
    @discardableResult
    public func rawGet(field: String, in table: Int32) -> LuaType {
        let t = absoluteIndex(table)
        push(field)
        return LuaType(rawValue: lua_rawget(pointer, t)) ?? .nil
    }

    /// [-1, +0] `t[field] = top` without metamethods.
    public func rawSet(field: String, in table: Int32) {
        let t = absoluteIndex(table)
        push(field)
        insert(at: -2)
        lua_rawset(pointer, t)
    }

    /// [-0, +1] Pushes `t[index]` without metamethods; returns its type.
    @discardableResult
    public func rawGet(index: Int64, in table: Int32) -> LuaType {
        LuaType(rawValue: lua_rawgeti(pointer, table, index)) ?? .nil
    }

    /// [-1, +0] `t[index] = top` without metamethods.
    @inlinable
    public func rawSet(index: Int64, in table: Int32) { lua_rawseti(pointer, table, index) }

    /// [-1, +1] Replaces the key on top by `t[key]`, without metamethods; returns its type.
    @discardableResult
    public func rawGet(in table: Int32) -> LuaType { LuaType(rawValue: lua_rawget(pointer, table)) ?? .nil }

    /// [-2, +0] `t[key] = value` (key and value on top) without metamethods. A nil or NaN key,
    /// on which Lua would raise (a longjmp through Swift), is refused instead: key and value are
    /// popped and a `conversion` error is thrown.
    @inlinable
    public func rawSet(in table: Int32) throws(LuaError) {
        let keyType = lua_type(pointer, -2)
        if keyType == LUA_TNIL || (keyType == LUA_TNUMBER && lua_isinteger(pointer, -2) == 0 && lua_tonumberx(pointer, -2, nil).isNaN) {
            throw refuseKey(keyType == LUA_TNIL ? "nil" : "NaN")
        }
        lua_rawset(pointer, table)
    }

    @usableFromInline
    func refuseKey(_ what: String) -> LuaError {
        pop(2)
        return LuaError.conversion("a table key cannot be \(what)")
    }

    /// The raw length (`#` without `__len`) of a table or string.
    public func rawLength(at index: Int32) -> Int64 { Int64(lua_rawlen(pointer, index)) }

    /// [-1, +(2|0)] `lua_next`: pops a key, pushes the next key and value and returns true, or
    /// pushes nothing and returns false at the end. It raises (a longjmp) when given a key it
    /// did not produce — which is why only ``forEachRawEntry(inTableAt:_:)`` calls it, with
    /// the key it was handed and nothing else.
    func next(tableAt table: Int32) -> Bool { lua_next(pointer, table) != 0 }

    /// One entry of a raw traversal: stack indices of a *copy* of the key and of the value.
    public struct RawEntry {
        public let keyIndex: Int32
        public let valueIndex: Int32
    }

    /// Visits every entry of the table at `index` without metamethods, until `body` returns
    /// false. `body` sees a copy of each key (so reading it any way — `string(at:)` on a number
    /// key included — cannot disturb the traversal) and the value; whatever it leaves on the
    /// stack is popped after it. It must not add keys to the table (assigning to existing ones,
    /// or clearing them, is fine, as in `next`). The stack is as it was when this returns, also
    /// when `body` throws. Does nothing when `index` is not a table.
    public func forEachRawEntry<E: Error>(inTableAt index: Int32, _ body: (RawEntry) throws(E) -> Bool) throws(E) {
        let t = absoluteIndex(index)
        guard type(at: t) == .table, ensureStack(4) else { return }
        let base = top
        defer { setTop(base) }
        pushNil()
        while next(tableAt: t) {        // base+1: the key next() gave, base+2: the value
            pushCopy(of: base + 1)      // base+3: the copy body may read as it likes
            guard try body(RawEntry(keyIndex: base + 3, valueIndex: base + 2)) else { return }
            setTop(base + 1)            // the untouched key goes back to next()
        }
    }

    /// The keys of a table and the types of their values, read raw (for completion and
    /// inspection: no metamethod runs). Keys other than strings, numbers and booleans are skipped.
    public func rawEntries(ofTableAt index: Int32) -> [(key: LuaValue, type: LuaType)] {
        var out: [(LuaValue, LuaType)] = []
        forEachRawEntry(inTableAt: index) { e in
            let valueType = type(at: e.valueIndex)
            switch type(at: e.keyIndex) {
            case .string: out.append((.string(LuaString(bytes: bytes(at: e.keyIndex) ?? [])), valueType))
            case .number:
                out.append((isInteger(at: e.keyIndex) ? .integer(integer(at: e.keyIndex) ?? 0)
                                                      : .number(lua_tonumberx(pointer, e.keyIndex, nil)), valueType))
            case .boolean: out.append((.boolean(boolean(at: e.keyIndex)), valueType))
            default: break
            }
            return true
        }
        return out
    }

    /// [-0, +1] Pushes `t[field]`, running `__index` if needed.
    public func getField(_ field: String, in table: Int32) throws(LuaError) {
        let status = lk_pgetfield(pointer, table, field)
        if status != LUA_OK { throw host.makeError(status: status, on: pointer, traceback: nil) }
    }

    /// [-1, +0] `t[field] = top`, running `__newindex` if needed.
    public func setField(_ field: String, in table: Int32) throws(LuaError) {
        let status = lk_psetfield(pointer, table, field)
        if status != LUA_OK { throw host.makeError(status: status, on: pointer, traceback: nil) }
    }

    /// [-1, +1] Replaces the key on top by `t[key]`, running `__index` if needed.
    public func getTable(_ table: Int32) throws(LuaError) {
        let status = lk_pgettable(pointer, table)
        if status != LUA_OK { throw host.makeError(status: status, on: pointer, traceback: nil) }
    }

    /// [-2, +0] `t[key] = value` (key, value on top), running `__newindex` if needed.
    public func setTable(_ table: Int32) throws(LuaError) {
        let status = lk_psettable(pointer, table)
        if status != LUA_OK { throw host.makeError(status: status, on: pointer, traceback: nil) }
    }

    /// The length operator `#v` (runs `__len`).
    public func length(at index: Int32) throws(LuaError) -> Int64 {
        let status = lk_plen(pointer, index)
        if status != LUA_OK { throw host.makeError(status: status, on: pointer, traceback: nil) }
        defer { pop() }
        guard let n = integer(at: -1) else { throw LuaError(kind: .runtime, message: "object length is not an integer") }
        return n
    }

    // MARK: - Globals and modules

    /// [-0, +1] Pushes the global `name` (raw access to the globals table); returns its type.
    @discardableResult
    public func getGlobal(_ name: String) -> LuaType {
        pushGlobals()
        let t = rawGet(field: name, in: -1)
        remove(at: -2)
        return t
    }

    /// [-1, +0] Sets the global `name` to the value on top (raw access).
    public func setGlobal(_ name: String) {
        pushGlobals()
        insert(at: -2)
        rawSet(field: name, in: -2)
        pop()
    }

    /// Sets a global to a value.
    public func setGlobal(_ name: String, to value: LuaValue) throws(LuaError) {
        try push(value)
        setGlobal(name)
    }

    /// [-1, +0] Registers the value on top as a loaded module: `require(name)` returns it.
    public func registerModule(_ name: String) throws(LuaError) {
        let status = lk_prequiref(pointer, name)
        if status != LUA_OK { throw host.makeError(status: status, on: pointer, traceback: nil) }
    }

    /// `package.path` (nil when the package library is not open).
    public var packagePath: String? {
        guard getGlobal("package") == .table else {
            pop()
            return nil
        }
        defer { pop(2) }
        return rawGet(field: "path", in: -1) == .string ? string(at: -1) : nil
    }

    /// Sets `package.path`. Does nothing when the package library is not open.
    public func setPackagePath(_ path: String) {
        guard getGlobal("package") == .table else {
            pop()
            return
        }
        push(path)
        rawSet(field: "path", in: -2)
        pop()
    }

    /// Sets the global `arg` as lua.c does: `arg[0]` the script, `arg[1…]` its arguments,
    /// negative indices the interpreter and its options (`interpreter[0]` at the lowest index).
    public func setScriptArguments(script: String, arguments: [String], interpreter: [String] = []) {
        newTable(array: Int32(arguments.count), record: Int32(interpreter.count + 1))
        for (i, a) in interpreter.enumerated() {
            push(a)
            rawSet(index: Int64(i - interpreter.count), in: -2)
        }
        push(script)
        rawSet(index: 0, in: -2)
        for (i, a) in arguments.enumerated() {
            push(a)
            rawSet(index: Int64(i + 1), in: -2)
        }
        setGlobal("arg")
    }

    /// [-0, +0] String fields in bulk: for `i` in `from..<keys.count` with `keys[i] >= 0`,
    /// `t[names[keys[i] + 1]] = bytes(i)`, `t` the table at `table`, `names` a table of key
    /// strings, `bytes(i)` the range `ranges[i * stride] ..< ranges[i * stride + 1]`. Stops before
    /// the first range holding the byte `stop` and returns its index (the caller transforms that
    /// value and goes on from the next); returns `keys.count` when all are set. One C loop: three
    /// Lua API calls a field. Raw sets with string keys only (a non-string key is skipped), so
    /// nothing can raise but memory.
    @inlinable
    public func setStringFields(in table: Int32, names: Int32, keys: UnsafeBufferPointer<Int>,
                                ranges: UnsafePointer<UnsafePointer<CChar>?>, stride: Int, from: Int = 0,
                                stoppingAt stop: UInt8?) -> Int {
        guard let base = keys.baseAddress, from < keys.count else { return keys.count }
        return Int(lk_set_string_fields(pointer, table, names, base, ranges, Int32(stride), Int32(from),
                                        Int32(keys.count), stop.map(Int32.init) ?? -1))
    }

    // MARK: - Metatables

    /// [-0, +1] Pushes the registry metatable `name`, creating it (with `__name`) on first use;
    /// returns true when it was created.
    @discardableResult
    public func pushMetatable(named name: String) -> Bool {
        luaL_newmetatable(pointer, name) != 0
    }

    /// [-1, +0] Pops a table (or nil) and sets it as the metatable of the value at `index`.
    public func setMetatable(of index: Int32) {
        let i = absoluteIndex(index)
        lua_setmetatable(pointer, i)
    }

    /// [-0, +(1|0)] Pushes the metatable of the value at `index` and returns true, or pushes
    /// nothing and returns false.
    public func pushMetatable(of index: Int32) -> Bool { lua_getmetatable(pointer, index) != 0 }

    /// Collects garbage (a full cycle); finalizers run.
    public func collectGarbage() { _ = lk_gc(pointer, LUA_GCCOLLECT) }

    /// Memory in use by Lua, in bytes.
    public var memoryInUse: Int {
        Int(lk_gc(pointer, LUA_GCCOUNT)) * 1024 + Int(lk_gc(pointer, LUA_GCCOUNTB))
    }
}

extension LuaState {
    /// Runs `body` with the garbage collector stopped (unless it already was): building a large
    /// value whose parts all stay reachable creates no garbage, so collection steps meanwhile are
    /// wasted work. The collector restarts afterwards, also when `body` throws.
    public func withCollectorPaused<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let running = lk_gc(pointer, LUA_GCISRUNNING) != 0
        if running { _ = lk_gc(pointer, LUA_GCSTOP) }
        defer { if running { _ = lk_gc(pointer, LUA_GCRESTART) } }
        return try body()
    }
}
