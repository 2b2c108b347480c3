import FlickrProtocol
import LuaKit

/// A mapped Flickr response (``FlickrNode``) as nested Lua tables, built straight from the tree
/// with raw sets: maps → tables with string fields, lists → arrays (1-based), strings → strings.
enum ResponseMapping {
    /// Deepest nesting converted (Flickr answers are a few levels deep).
    static let maxDepth = 200

    /// [-0, +1] Pushes `node`. Throws (pushing nothing) on absurd nesting.
    static func push(_ node: FlickrNode, onto state: LuaState) throws(LuaError) {
        let top = state.top
        do throws(LuaError) {
            try state.withCollectorPaused { () throws(LuaError) in try push(node, onto: state, depth: 0) }
        } catch {
            state.setTop(top)
            throw error
        }
    }

    /// The keys of the previous sibling map in a list, and their Lua strings (a table at
    /// `table`): siblings (the 3,000 `photo` elements of a page) repeat the same attribute names
    /// in the same order, so a key equal to the sibling's is pushed from there instead of being
    /// hashed and interned again by Lua.
    private struct SiblingKeys {
        var table: Int32
        var keys: [String] = []
    }

    private static func push(_ node: FlickrNode, onto state: LuaState, depth: Int,
                             siblings: UnsafeMutablePointer<SiblingKeys>? = nil) throws(LuaError) {
        switch node {
        case .string(let s):
            state.push(s)
        case .map(let map):
            guard depth < maxDepth, state.ensureStack(4) else {
                throw LuaError(kind: .conversion, message: "response nests deeper than \(maxDepth) levels")
            }
            let count = map.keys.count
            state.newTable(record: Int32(clamping: count))
            try map.keys.withUnsafeBufferPointer { keys throws(LuaError) in
                try map.values.withUnsafeBufferPointer { values throws(LuaError) in
                    for i in 0..<count {
                        if let siblings {
                            if i < siblings.pointee.keys.count, siblings.pointee.keys[i] == keys[i] {
                                state.rawGet(index: Int64(i + 1), in: siblings.pointee.table)
                            } else {
                                state.push(keys[i])
                                state.pushCopy(of: -1)
                                state.rawSet(index: Int64(i + 1), in: siblings.pointee.table)
                                if i < siblings.pointee.keys.count {
                                    siblings.pointee.keys[i] = keys[i]
                                } else {
                                    siblings.pointee.keys.append(keys[i])
                                }
                            }
                        } else {
                            state.push(keys[i])
                        }
                        if case .string(let s) = values[i] {
                            state.push(s)
                        } else {
                            try push(values[i], onto: state, depth: depth + 1)
                        }
                        try state.rawSet(in: -3)
                    }
                }
            }
        case .list(let list):
            guard depth < maxDepth, state.ensureStack(6) else {
                throw LuaError(kind: .conversion, message: "response nests deeper than \(maxDepth) levels")
            }
            // A scratch table for the siblings' keys, below the list.
            state.newTable()
            var keys = SiblingKeys(table: state.top)
            state.newTable(array: Int32(clamping: list.count))
            try list.withUnsafeBufferPointer { elements throws(LuaError) in
                for i in 0..<elements.count {
                    try push(elements[i], onto: state, depth: depth + 1, siblings: &keys)
                    state.rawSet(index: Int64(i + 1), in: -2)
                }
            }
            state.remove(at: -2)
        }
    }

    /// The Lua value at `index` as a tree (for URL helpers): strings and numbers → strings,
    /// tables → maps (arrays → lists); other values are skipped.
    static func node(at index: Int32, in state: LuaState, depth: Int = 0) -> FlickrNode? {
        switch state.type(at: index) {
        case .string: return .string(state.bytes(at: index).map { String(decoding: $0, as: UTF8.self) } ?? "")
        case .number:
            if state.isInteger(at: index) { return .string(String(state.integer(at: index) ?? 0)) }
            return .string(ArgumentConversion.format(state.number(at: index) ?? 0))
        case .boolean: return .string(state.boolean(at: index) ? "1" : "0")
        case .table:
            guard depth < 16, let value = try? state.value(at: index, options: LuaConversionOptions(maxDepth: 16 - depth)) else {
                return nil
            }
            return node(value)
        default: return nil
        }
    }

    private static func node(_ value: LuaValue) -> FlickrNode? {
        switch value {
        case .string(let s): return .string(s.description)
        case .integer(let i): return .string(String(i))
        case .number(let d): return .string(ArgumentConversion.format(d))
        case .boolean(let b): return .string(b ? "1" : "0")
        case .nil: return nil
        case .array(let a): return .list(a.compactMap(node))
        case .map(let m):
            var map = FlickrMap()
            for (k, v) in m {
                guard let key = k.stringValue, let n = node(v) else { continue }
                map[key] = n
            }
            return .map(map)
        }
    }
}

extension LuaState {
    /// [-0, +1] Pushes a mapped Flickr response as nested tables, exactly as the `flickr` module
    /// returns it (maps → tables, lists → arrays, strings → strings; raw sets).
    public func push(flickrNode node: FlickrNode) throws(LuaError) {
        try ResponseMapping.push(node, onto: self)
    }
}
