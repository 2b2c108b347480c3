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
        do {
            try push(node, onto: state, depth: 0)
        } catch {
            state.setTop(top)
            throw error
        }
    }

    private static func push(_ node: FlickrNode, onto state: LuaState, depth: Int) throws(LuaError) {
        switch node {
        case .string(let s):
            state.push(s)
        case .map(let map):
            guard depth < maxDepth, state.ensureStack(4) else {
                throw LuaError(kind: .conversion, message: "response nests deeper than \(maxDepth) levels")
            }
            state.newTable(record: Int32(clamping: map.keys.count))
            for i in 0..<map.keys.count {
                state.push(map.keys[i])
                try push(map.values[i], onto: state, depth: depth + 1)
                state.rawSet(in: -3)
            }
        case .list(let list):
            guard depth < maxDepth, state.ensureStack(4) else {
                throw LuaError(kind: .conversion, message: "response nests deeper than \(maxDepth) levels")
            }
            state.newTable(array: Int32(clamping: list.count))
            for (i, element) in list.enumerated() {
                try push(element, onto: state, depth: depth + 1)
                state.rawSet(index: Int64(i + 1), in: -2)
            }
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
