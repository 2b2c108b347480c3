import CLuaShim

/// Limits of a conversion between Lua and Swift.
public struct LuaConversionOptions: Sendable, Hashable {
    /// Deepest table nesting converted; deeper is an error (not a crash).
    public var maxDepth: Int

    public init(maxDepth: Int = 200) {
        self.maxDepth = maxDepth
    }

    public static let `default` = LuaConversionOptions()
}

/// ``LuaValue`` ⇄ stack.
extension LuaState {
    /// [-0, +1] Pushes a value; tables are built with raw sets (no metamethods run). Throws (and
    /// pushes nothing) when the value nests deeper than `options.maxDepth` or the stack cannot grow.
    public func push(_ value: LuaValue, options: LuaConversionOptions = .default) throws(LuaError) {
        let top = self.top
        do {
            try push(value, depth: 0, options: options)
        } catch {
            setTop(top)
            throw error
        }
    }

    private func push(_ value: LuaValue, depth: Int, options: LuaConversionOptions) throws(LuaError) {
        switch value {
        case .nil: pushNil()
        case .boolean(let b): push(b)
        case .integer(let i): push(i)
        case .number(let d): push(d)
        case .string(let s): push(bytes: s.bytes)
        case .array(let elements):
            try enterTable(depth: depth, options: options)
            newTable(array: Int32(clamping: elements.count))
            for (i, e) in elements.enumerated() {
                try push(e, depth: depth + 1, options: options)
                rawSet(index: Int64(i + 1), in: -2)
            }
        case .map(let entries):
            try enterTable(depth: depth, options: options)
            newTable(record: Int32(clamping: entries.count))
            for (k, v) in entries {
                if case .nil = k { continue }
                if case .number(let d) = k, d.isNaN { continue }
                if case .nil = v { continue }
                try push(k, depth: depth + 1, options: options)
                try push(v, depth: depth + 1, options: options)
                try rawSet(in: -3)
            }
        }
    }

    private func enterTable(depth: Int, options: LuaConversionOptions) throws(LuaError) {
        guard depth < options.maxDepth else {
            throw LuaError.conversion("value nests deeper than \(options.maxDepth) levels")
        }
        guard ensureStack(4) else { throw LuaError.conversion("Lua stack overflow while converting a value") }
    }

    /// [-n, +0] Pushes several values.
    public func push(_ values: [LuaValue], options: LuaConversionOptions = .default) throws(LuaError) {
        let top = self.top
        guard ensureStack(Int32(clamping: values.count)) else { throw LuaError.conversion("too many values") }
        do {
            for v in values { try push(v, options: options) }
        } catch {
            setTop(top)
            throw error
        }
    }

    /// The value at `index` as Swift data (see ``LuaValue`` for the rules). Tables are read raw;
    /// a cycle, nesting deeper than `options.maxDepth`, or a function/userdata/thread anywhere is
    /// an error. The stack is unchanged.
    public func value(at index: Int32, options: LuaConversionOptions = .default) throws(LuaError) -> LuaValue {
        var path: Set<UnsafeRawPointer> = []
        let top = self.top
        defer { setTop(top) }
        return try read(absoluteIndex(index), depth: 0, path: &path, options: options)
    }

    /// [-n, +0] Converts the top `n` values (bottom first) and pops them.
    public func popValues(_ n: Int32, options: LuaConversionOptions = .default) throws(LuaError) -> [LuaValue] {
        let base = top - n
        defer { setTop(base) }
        var out: [LuaValue] = []
        out.reserveCapacity(Int(n))
        var i = base + 1
        while i <= base + n {
            out.append(try value(at: i, options: options))
            i += 1
        }
        return out
    }

    private func read(_ index: Int32, depth: Int, path: inout Set<UnsafeRawPointer>,
                      options: LuaConversionOptions) throws(LuaError) -> LuaValue {
        switch lua_type(pointer, index) {
        case LUA_TNIL, LUA_TNONE: return .nil
        case LUA_TBOOLEAN: return .boolean(lua_toboolean(pointer, index) != 0)
        case LUA_TNUMBER:
            return isInteger(at: index) ? .integer(lua_tointegerx(pointer, index, nil)) : .number(lua_tonumberx(pointer, index, nil))
        case LUA_TSTRING: return .string(LuaString(bytes: bytes(at: index) ?? []))
        case LUA_TTABLE: return try readTable(index, depth: depth, path: &path, options: options)
        default:
            throw LuaError.conversion("cannot convert a \(typeName(at: index)) value to Swift")
        }
    }

    private func readTable(_ index: Int32, depth: Int, path: inout Set<UnsafeRawPointer>,
                           options: LuaConversionOptions) throws(LuaError) -> LuaValue {
        guard depth < options.maxDepth else {
            throw LuaError.conversion("table nests deeper than \(options.maxDepth) levels")
        }
        guard ensureStack(4) else { throw LuaError.conversion("Lua stack overflow while converting a table") }
        guard let id = identity(at: index), path.insert(id).inserted else {
            throw LuaError.conversion("table contains a cycle")
        }
        defer { path.remove(id) }
        let top = self.top
        defer { setTop(top) }

        var keys: [LuaValue] = []
        var values: [LuaValue] = []
        var sequence = true  // every key an integer so far
        var maxKey: Int64 = 0
        try forEachRawEntry(inTableAt: index) { (e) throws(LuaError) -> Bool in
            let key: LuaValue
            switch lua_type(pointer, e.keyIndex) {
            case LUA_TNUMBER:
                if isInteger(at: e.keyIndex) {
                    let k = lua_tointegerx(pointer, e.keyIndex, nil)
                    if k >= 1 { maxKey = max(maxKey, k) } else { sequence = false }
                    key = .integer(k)
                } else {
                    sequence = false
                    key = .number(lua_tonumberx(pointer, e.keyIndex, nil))
                }
            case LUA_TSTRING:
                sequence = false
                key = .string(LuaString(bytes: bytes(at: e.keyIndex) ?? []))
            case LUA_TBOOLEAN:
                sequence = false
                key = .boolean(lua_toboolean(pointer, e.keyIndex) != 0)
            default:
                throw LuaError.conversion("cannot convert a table with a \(typeName(at: e.keyIndex)) key to Swift")
            }
            keys.append(key)
            values.append(try read(e.valueIndex, depth: depth + 1, path: &path, options: options))
            return true
        }
        if sequence, !keys.isEmpty, maxKey == Int64(keys.count) {
            var array = [LuaValue](repeating: .nil, count: keys.count)
            for (k, v) in zip(keys, values) {
                if case .integer(let i) = k { array[Int(i - 1)] = v }
            }
            return .array(array)
        }
        var map: [LuaValue: LuaValue] = [:]
        map.reserveCapacity(keys.count)
        for (k, v) in zip(keys, values) { map[k] = v }
        return .map(map)
    }
}
