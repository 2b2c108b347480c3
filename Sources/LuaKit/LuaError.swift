/// A failure inside Lua, reported to Swift: a runtime error, a syntax error while loading, a
/// conversion that was not possible, an interrupt.
///
/// When the Lua error value was raised by a Swift function (see ``LuaErrorRepresentable`` for how
/// a Swift error becomes a Lua value), ``underlying`` is that Swift error, and
/// ``LuaState/call(arguments:results:)`` rethrows it as itself.
public struct LuaError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// An error raised while running Lua code (`error(...)`, a bad operation, a Swift error).
        case runtime
        /// The chunk did not compile.
        case syntax
        /// A file could not be read (``LuaState/loadFile(_:mode:)``).
        case file
        /// Lua ran out of memory.
        case memory
        /// The message handler itself failed.
        case messageHandler
        /// A value could not be converted between Lua and Swift (cycle, depth, type).
        case conversion
        /// The host interrupted the running code (``LuaRuntime/interrupt()``).
        case interrupted
        /// The runtime was closed.
        case closed
    }

    public var kind: Kind
    /// The error as text: a string error as is, a table through `__tostring` or its `message`
    /// field, others as "(error object is a X value)".
    public var message: String
    /// `stack traceback:` … where the error was raised, when known.
    public var traceback: String?
    /// The Lua error value as data, when it has a data form (a string, a table of plain values).
    public var value: LuaValue?
    /// The Swift error this Lua error carries, when a Swift function raised it.
    public var underlying: (any Error)?
    /// A syntax error at the end of the input (the message ends in `<eof>`): a REPL should read
    /// another line and retry, as lua.c does.
    public var isIncompleteInput: Bool
    /// The original Lua value, so that rethrowing into Lua raises the same value (identity kept).
    let reference: LuaRef?

    /// True when the error carries a value raised in Lua (as opposed to one made in Swift).
    public var isLuaValue: Bool { reference != nil }

    public init(kind: Kind, message: String, traceback: String? = nil, value: LuaValue? = nil,
                underlying: (any Error)? = nil, isIncompleteInput: Bool = false) {
        self.init(kind: kind, message: message, traceback: traceback, value: value, underlying: underlying,
                  isIncompleteInput: isIncompleteInput, reference: nil)
    }

    init(kind: Kind, message: String, traceback: String?, value: LuaValue?, underlying: (any Error)?,
         isIncompleteInput: Bool, reference: LuaRef?) {
        self.kind = kind
        self.message = message
        self.traceback = traceback
        self.value = value
        self.underlying = underlying
        self.isIncompleteInput = isIncompleteInput
        self.reference = reference
    }

    public var description: String { message }

    /// The message followed by the traceback, as lua.c's message handler prints it.
    public var messageWithTraceback: String {
        guard let traceback, !traceback.isEmpty else { return message }
        return message + "\n" + traceback
    }

    static func conversion(_ message: String) -> LuaError { LuaError(kind: .conversion, message: message) }

    /// The error of an interrupted blocking call.
    public static let interrupted = LuaError(kind: .interrupted, message: "interrupted!")
}

/// A Swift error that chooses its own Lua error value (typically a table with a metatable, so
/// that Lua code can branch on its fields and `tostring` it).
///
/// Errors that do not conform are raised as their `String(describing:)` text.
public protocol LuaErrorRepresentable: Error {
    /// Pushes exactly one value: what Lua code receives from `pcall`. Runs on the Lua thread.
    func pushLuaErrorValue(onto state: LuaState)
}

/// A bad argument to a Swift function, worded like Lua's `luaL_argerror`:
/// `bad argument #1 to 'f' (table expected, got nil)`.
public struct LuaArgumentError: Error, Sendable, CustomStringConvertible {
    public var position: Int32
    public var function: String
    public var problem: String

    public init(position: Int32, function: String, problem: String) {
        self.position = position
        self.function = function
        self.problem = problem
    }

    public var description: String { "bad argument #\(position) to '\(function)' (\(problem))" }
}
