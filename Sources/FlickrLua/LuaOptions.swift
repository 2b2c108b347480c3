import FlickrAPI
import LuaKit

/// An option table (`flickr.download(id, { size = "o", dir = … })`), read one way by every
/// function of the module: typed getters with raw reads (no metamethods run), each returning nil
/// for an absent (nil) option and raising a usage error that names the option and what it
/// expects otherwise, and — for a table that holds only options — a key the function does not
/// take refused up front, with the ones it does:
///
///     unknown option 'sise' (dir, path, progress, size)
///     bad option 'size': a string expected, got table
///
/// `flickr.configure{}` reads its table the same way, calling its keys settings.
struct LuaOptions {
    let state: LuaState
    /// The table's absolute stack index.
    let index: Int32
    /// The function named in errors (`flickr.map`, `download`, a Flickr method).
    let function: String
    /// What the keys are called in errors: "option", or "setting" for configure.
    let noun: String

    /// The options at argument `argument` of `call`: nil when it is absent or nil, an argument
    /// error when it is not a table. With `known`, any other key (of any type) is a usage
    /// error; without, the table may hold other fields (upload's Flickr parameters).
    static func read(_ call: LuaCall, at argument: Int32, function: String, known: Set<String>?,
                     noun: String = "option") throws -> LuaOptions? {
        guard try call.optionalTable(argument) else { return nil }
        return try LuaOptions(state: call.state, index: argument, function: function, known: known, noun: noun)
    }

    /// The options in the table at `index` (which must be a table).
    init(state: LuaState, index: Int32, function: String, known: Set<String>?, noun: String = "option") throws {
        self.state = state
        self.index = state.absoluteIndex(index)
        self.function = function
        self.noun = noun
        guard let known else { return }
        let s = state
        try s.forEachRawEntry(inTableAt: self.index) { (e) throws(FlickrError) -> Bool in
            // The key is a copy on the stack: reading it as text cannot disturb the traversal.
            let key = s.type(at: e.keyIndex) == .string ? s.bytes(at: e.keyIndex).map { String(decoding: $0, as: UTF8.self) } : nil
            guard let key, known.contains(key) else {
                let shown = key ?? (s.type(at: e.keyIndex) == .number ? "[\(s.string(at: e.keyIndex) ?? "?")]" : s.typeName(at: e.keyIndex))
                throw FlickrError.usage("unknown \(noun) '\(shown)' (\(known.sorted().joined(separator: ", ")))", method: function)
            }
            return true
        }
    }

    /// A usage error about option `key`: `bad option 'key': EXPECTED expected, got …`.
    func bad(_ key: String, expected: String, got: String? = nil) -> FlickrError {
        FlickrError.usage("bad \(noun) '\(key)': \(expected) expected" + (got.map { ", got \($0)" } ?? ""), method: function)
    }

    /// Runs `read` with the value of `key` on top of the stack (popped after); nil when it is nil.
    private func value<T>(_ key: String, _ read: (LuaType) throws -> T) throws -> T? {
        let type = state.rawGet(field: key, in: index)
        defer { state.pop() }
        return type == .nil ? nil : try read(type)
    }

    /// Whether `key` is there (any value but nil).
    func has(_ key: String) -> Bool {
        defer { state.pop() }
        return state.rawGet(field: key, in: index) != .nil
    }

    /// Whether `key` is `false` (for the settings that `false` clears).
    func isFalse(_ key: String) -> Bool {
        defer { state.pop() }
        return state.rawGet(field: key, in: index) == .boolean && !state.boolean(at: -1)
    }

    /// A string (a number is taken as its text, as Lua's own functions take it).
    func string(_ key: String, expected: String = "a string") throws -> String? {
        try value(key) { type in
            guard type == .string || type == .number, let s = state.string(at: -1) else {
                throw bad(key, expected: expected, got: state.typeName(at: -1))
            }
            return s
        }
    }

    /// A string's bytes, as they are (upload's `data`).
    func bytes(_ key: String, expected: String = "a string") throws -> [UInt8]? {
        try value(key) { type in
            guard type == .string, let b = state.bytes(at: -1) else { throw bad(key, expected: expected, got: state.typeName(at: -1)) }
            return b
        }
    }

    /// A number, at least `minimum` when given.
    func number(_ key: String, minimum: Double? = nil, expected: String? = nil) throws -> Double? {
        let expected = expected ?? (minimum == 0 ? "a non-negative number" : "a number")
        return try value(key) { type in
            guard type == .number, let v = state.number(at: -1) else { throw bad(key, expected: expected, got: state.typeName(at: -1)) }
            if let minimum, !(v >= minimum) { throw bad(key, expected: expected, got: ArgumentConversion.format(v)) }
            return v
        }
    }

    /// An integer (a float with an integral value counts), at least `minimum` when given.
    func integer(_ key: String, minimum: Int64? = nil, expected: String? = nil) throws -> Int64? {
        let expected = expected ?? (minimum == 1 ? "a positive integer" : "an integer")
        return try value(key) { type in
            guard type == .number, let v = state.integer(at: -1) else {
                throw bad(key, expected: expected, got: type == .number ? ArgumentConversion.format(state.number(at: -1) ?? 0) : state.typeName(at: -1))
            }
            if let minimum, v < minimum { throw bad(key, expected: expected, got: String(v)) }
            return v
        }
    }

    /// `true` or `false`.
    func boolean(_ key: String) throws -> Bool? {
        try value(key) { type in
            guard type == .boolean else { throw bad(key, expected: "true or false", got: state.typeName(at: -1)) }
            return state.boolean(at: -1)
        }
    }

    /// A function, kept (`expected` says how it is called, e.g. "a function(sent, total)").
    func function(_ key: String, expected: String = "a function") throws -> LuaRef? {
        let type = state.rawGet(field: key, in: index)
        switch type {
        case .nil:
            state.pop()
            return nil
        case .function:
            return LuaRef(popping: state)
        default:
            defer { state.pop() }
            throw bad(key, expected: expected, got: state.typeName(at: -1))
        }
    }

    /// One of a few words (`on_error = "collect"`): the value of the matching choice;
    /// `ignoringCase` accepts `get` for `GET`.
    func choice<T>(_ key: String, _ choices: KeyValuePairs<String, T>, ignoringCase: Bool = false) throws -> T? {
        let expected = choices.map { "\"\($0.key)\"" }.joined(separator: choices.count == 2 ? " or " : ", ")
        return try value(key) { type in
            guard type == .string, let word = state.string(at: -1) else { throw bad(key, expected: expected, got: state.typeName(at: -1)) }
            guard let match = choices.first(where: { ignoringCase ? $0.key.lowercased() == word.lowercased() : $0.key == word }) else {
                throw bad(key, expected: expected, got: "'\(word)'")
            }
            return match.value
        }
    }
}
