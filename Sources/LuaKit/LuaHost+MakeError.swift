import CLuaShim

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turning a Lua error value into a ``LuaError``.
extension LuaHost {
    /// Builds the ``LuaError`` for the error value on top of `L` (status from pcall / resume /
    /// load) and pops it. `traceback` is the traceback when known.
    func makeError(status: Int32, on L: OpaquePointer, traceback: String?) -> LuaError {
        assertLuaThread()
        let state = LuaState(L)
        let kind: LuaError.Kind
        switch status {
        case LUA_ERRSYNTAX: kind = .syntax
        case LUA_ERRMEM: kind = .memory
        case LUA_ERRERR: kind = .messageHandler
        case LUA_ERRFILE: kind = .file
        default: kind = .runtime
        }
        let underlying = raisedError(matching: -1, on: L)
        let message = state.errorMessage(at: -1)
        var value: LuaValue?
        switch lua_type(L, -1) {
        case LUA_TSTRING, LUA_TNUMBER, LUA_TBOOLEAN: value = try? state.value(at: -1)
        case LUA_TTABLE: value = try? state.value(at: -1, options: LuaConversionOptions(maxDepth: 16))
        default: value = nil
        }
        // Only the hook's sentinel is an interrupt: error("interrupted!") in Lua code is not.
        let interrupted = lk_is_interrupt(L, -1) != 0
        let ref = LuaRef(popping: state)
        return LuaError(kind: interrupted ? .interrupted : kind, message: interrupted ? LuaError.interrupted.message : message,
                        traceback: traceback, value: value,
                        underlying: underlying, isIncompleteInput: kind == .syntax && message.hasSuffix("<eof>"),
                        reference: ref)
    }
}
