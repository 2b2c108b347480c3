/// A Lua string: bytes, which need not be UTF-8 (Lua strings may hold anything, NUL included).
public struct LuaString: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The exact bytes.
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(_ string: String) { bytes = Array(string.utf8) }
    public init(stringLiteral value: String) { self.init(value) }

    /// The bytes as text when they are valid UTF-8, else nil.
    public var text: String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// The bytes as text, invalid UTF-8 replaced by U+FFFD.
    public var description: String { String(decoding: bytes, as: UTF8.self) }
}

/// A Lua value as plain Swift data, for crossing between Lua and Swift.
///
/// Conversions keep what Lua distinguishes: integers vs floats, string bytes, booleans. A table
/// becomes ``array(_:)`` when its keys are exactly `1…n` (n ≥ 1) and ``map(_:)`` otherwise (an
/// empty table is an empty map; a table with holes is a map). Functions, userdata and threads
/// have no data form: converting them is a ``LuaError`` of kind ``LuaError/Kind/conversion``.
public indirect enum LuaValue: Sendable, Hashable {
    case `nil`
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case string(LuaString)
    case array([LuaValue])
    case map([LuaValue: LuaValue])

    /// A string value from Swift text.
    public static func string(_ text: String) -> LuaValue { .string(LuaString(text)) }

    /// The text of a string value (lossy for invalid UTF-8); nil for other kinds.
    public var stringValue: String? {
        if case .string(let s) = self { return s.description }
        return nil
    }

    /// The value of an integer (or of a float with an exact integer value).
    public var integerValue: Int64? {
        switch self {
        case .integer(let i): return i
        case .number(let d): return Int64(exactly: d)
        default: return nil
        }
    }

    /// The value of a number, integer or float.
    public var numberValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let d): return d
        default: return nil
        }
    }

    /// The value of a boolean.
    public var booleanValue: Bool? {
        if case .boolean(let b) = self { return b }
        return nil
    }

    /// Elements of an array value.
    public var arrayValue: [LuaValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// Entries of a map value.
    public var mapValue: [LuaValue: LuaValue]? {
        if case .map(let m) = self { return m }
        return nil
    }

    /// The entry for a string key of a map, or the element at a 1-based integer key of an array.
    public subscript(key: String) -> LuaValue? {
        mapValue?[.string(key)]
    }

    /// Element `i` (1-based, as in Lua) of an array, or the map entry for integer key `i`.
    public subscript(index: Int) -> LuaValue? {
        switch self {
        case .array(let a): return a.indices.contains(index - 1) ? a[index - 1] : nil
        case .map(let m): return m[.integer(Int64(index))]
        default: return nil
        }
    }

    /// Lua's truthiness: everything but nil and false is true.
    public var isTruthy: Bool {
        switch self {
        case .nil, .boolean(false): return false
        default: return true
        }
    }
}

extension LuaValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(stringLiteral value: String) { self = .string(LuaString(value)) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(arrayLiteral elements: LuaValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (LuaValue, LuaValue)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension LuaValue: CustomStringConvertible {
    /// A Lua-like rendering for messages and tests (keys of maps sorted by their rendering).
    public var description: String {
        switch self {
        case .nil: return "nil"
        case .boolean(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .number(let d): return "\(d)"
        case .string(let s): return "\"" + s.description + "\""
        case .array(let a): return "{" + a.map(\.description).joined(separator: ", ") + "}"
        case .map(let m):
            let entries = m.map { "[\($0.key)] = \($0.value)" }.sorted()
            return "{" + entries.joined(separator: ", ") + "}"
        }
    }
}

/// The type of a Lua value (`lua_type`).
public enum LuaType: Int32, Sendable, Hashable, CustomStringConvertible {
    case none = -1
    case `nil` = 0
    case boolean = 1
    case lightUserdata = 2
    case number = 3
    case string = 4
    case table = 5
    case function = 6
    case userdata = 7
    case thread = 8

    /// Lua's name of the type (`nil`, `table`, … ; `no value` for none).
    public var description: String {
        switch self {
        case .none: return "no value"
        case .nil: return "nil"
        case .boolean: return "boolean"
        case .lightUserdata, .userdata: return "userdata"
        case .number: return "number"
        case .string: return "string"
        case .table: return "table"
        case .function: return "function"
        case .thread: return "thread"
        }
    }
}
