import CLuaShim

/// Which chunks ``LuaState/load(_:name:mode:)`` accepts.
public enum LuaLoadMode: String, Sendable {
    /// Source text only (refuses precompiled bytecode — the safe choice for untrusted input).
    case text = "t"
    /// Bytecode only.
    case binary = "b"
    /// Either.
    case any = "bt"
}

/// Loading chunks and calling functions.
extension LuaState {
    /// [-0, +1] Compiles a chunk and pushes it as a function.
    ///
    /// `name` is the chunk name used in messages: `"=stdin"` prints as `stdin`, `"@file.lua"` as
    /// `file.lua`, anything else as `[string "…"]`. A syntax error throws a ``LuaError`` of kind
    /// `syntax`; ``LuaError/isIncompleteInput`` tells a REPL to read more (message ends in `<eof>`).
    public func load(_ chunk: some Collection<UInt8>, name: String, mode: LuaLoadMode = .text) throws(LuaError) {
        var bytes = Array(chunk)
        if bytes.isEmpty { bytes = [0x20] }  // a non-null buffer; a blank chunk is an empty function
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                lk_load(pointer, chars.baseAddress, chars.count, name, mode.rawValue)
            }
        }
        if status != LUA_OK { throw host.makeError(status: status, on: pointer, traceback: nil) }
    }

    /// [-0, +1] Compiles source text; see ``load(_:name:mode:)-(Collection<UInt8>,_,_)``.
    public func load(_ source: String, name: String, mode: LuaLoadMode = .text) throws(LuaError) {
        try load(Array(source.utf8), name: name, mode: mode)
    }

    /// [-0, +1] Compiles a file (chunk name `@path`; a `#` first line and a BOM are skipped, as
    /// lua.c does). `nil` reads standard input.
    public func loadFile(_ path: String?, mode: LuaLoadMode = .text) throws(LuaError) {
        let status = luaL_loadfilex(pointer, path, mode.rawValue)
        if status != LUA_OK { throw host.makeError(status: status, on: pointer, traceback: nil) }
    }

    /// [-(arguments+1), +results] Calls the function below `arguments` arguments in protected
    /// mode, with a message handler that records a traceback (and adds a `traceback` field to a
    /// table error that has none). Returns how many results it left on the stack (`results`, or
    /// all of them when nil).
    ///
    /// On error the function and arguments are gone and a ``LuaError`` is thrown carrying the
    /// message, the traceback, the error value (``LuaError/value`` as data, and the value itself
    /// so that rethrowing it into Lua raises the same object) and, when a Swift function raised
    /// it, the Swift error (``LuaError/underlying``).
    @discardableResult
    public func pcall(arguments: Int32 = 0, results: Int32? = nil) throws(LuaError) -> Int32 {
        try protectedCall(arguments: arguments, results: results, lk_pcall) { status in
            lk_last_traceback(pointer)
            let traceback = type(at: -1) == .string ? string(at: -1) : nil
            pop()
            return host.makeError(status: status, on: pointer, traceback: traceback)
        }
    }

    /// Runs `call` (a protected call of the function below `arguments` values) one level deeper
    /// in the host's call depth: the Swift errors raised inside are remembered until the
    /// outermost call ends, so that `failure` (given the status, with the error on top) can
    /// still find them. Returns the number of results.
    private func protectedCall(arguments: Int32, results: Int32?, _ call: (OpaquePointer, Int32, Int32) -> Int32,
                               failure: (Int32) -> LuaError) throws(LuaError) -> Int32 {
        let host = self.host
        let base = top - arguments - 1
        host.callDepth += 1
        defer {
            host.callDepth -= 1
            if host.callDepth == 0 { host.forgetRaisedErrors() }
        }
        let status = call(pointer, arguments, results ?? LUA_MULTRET)
        if status == LUA_OK { return top - base }
        throw failure(status)
    }

    /// Calls the function below `arguments` values as lua.c runs a script, `-e` or `-l`: from a
    /// C frame (so a traceback ends with `[C]: in ?`, as lua.c's do), with lua.c's message
    /// handler, which makes the message while the stack is still there. The error thrown has
    /// that message and no separate traceback: a string error with its traceback, an error
    /// object's `__tostring` result alone, or `(error object is a T value)` with a traceback.
    /// Returns the number of results.
    @discardableResult
    public func callAsScript(arguments: Int32 = 0, results: Int32? = nil) throws(LuaError) -> Int32 {
        try protectedCall(arguments: arguments, results: results, lk_luac_docall) { status in
            let message = type(at: -1) == .string ? string(at: -1) ?? "" : "(error object is not a string)"
            pop()
            return LuaError(kind: status == LUA_ERRMEM ? .memory : .runtime, message: message)
        }
    }

    /// Like ``pcall(arguments:results:)``, but a Swift error that crossed Lua is rethrown as
    /// itself (not wrapped in ``LuaError``).
    @discardableResult
    public func call(arguments: Int32 = 0, results: Int32? = nil) throws -> Int32 {
        do {
            return try pcall(arguments: arguments, results: results)
        } catch {
            if let underlying = error.underlying { throw underlying }
            throw error
        }
    }

    /// Compiles and runs `source`, returning its results as Swift values.
    @discardableResult
    public func run(_ source: String, name: String? = nil, arguments: [LuaValue] = []) throws -> [LuaValue] {
        let base = top
        defer { setTop(base) }
        try load(source, name: name ?? "=(run)")
        try push(arguments)
        let n = try call(arguments: Int32(arguments.count))
        return try popValues(n)
    }
}
