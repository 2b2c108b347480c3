import CLuaShim

/// LuaKit inside a Lua state that another program created and runs: a Lua C module written in
/// Swift, loaded by `require` into a stock interpreter such as Debian's `lua5.4`.
///
/// ```swift
/// // Called by the module's C `luaopen_NAME` (a C function, so that its error can be raised
/// // from C): push the module and return 1.
/// let state = try LuaModuleHost.attach(L)
/// try state.registerModule("name")
/// ```
///
/// What differs from a ``LuaRuntime``:
/// - The interpreter's thread is the Lua thread (the one that called `attach`); there is no job
///   loop, so work posted with ``LuaJobPoster`` runs only while a call waits — which is when
///   the module's async work posts it (progress callbacks, answers built into tables).
/// - A call that awaits async work blocks the interpreter's thread as it does in a runtime
///   (coroutines of ``LuaState/runConcurrently(count:concurrency:keepGoing:start:finish:failed:)``
///   still yield to each other).
/// - The state's allocator, extra space and hook stay the interpreter's: LuaKit keeps its flags
///   in the registry and installs no count hook. Ctrl-C: lua.c interrupts running Lua code
///   itself (a hook set from its SIGINT handler); while a call waits, LuaKit catches SIGINT in
///   place of lua.c's handler and the call raises ``LuaError/interrupted`` (a module may raise
///   its own value instead: ``LuaAsync/interruptedError``), as does a call whose wait begins
///   with lua.c's interrupt pending. After that, SIGINT ends the process until lua.c's next
///   chunk, as after lua.c's own first Ctrl-C; a wait that took none puts lua.c's handler back.
/// - `lua_close` detaches the host (async work still running is cancelled); a Swift function
///   called after that raises an error.
public enum LuaModuleHost {
    /// Attaches LuaKit to `L`'s state (once: later calls, from any thread of the state, find the
    /// same host) and returns `L` as a ``LuaState``. Call it on the interpreter's thread, from a C
    /// function that Lua called (`luaopen_*`).
    public static func attach(_ L: OpaquePointer) throws(LuaError) -> LuaState {
        if lk_host_owner(L) == nil {
            _ = try LuaHost(attachingTo: L)  // the state's anchor holds it
        }
        return LuaState(L)
    }
}
