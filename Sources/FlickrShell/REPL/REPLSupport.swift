import FlickrLua
import LuaKit

/// The Lua half of the REPL (`lua/flickr/repl.lua`, compiled in): one table of helpers, loaded
/// once per REPL on the Lua thread and kept in a ``LuaRef``. `show` renders results
/// (`flickr.pretty`), `complete` finds completion candidates (`flickr.complete`); both only ever
/// read tables raw.
struct REPLSupport: @unchecked Sendable {
    /// The helper table.
    let helpers: LuaRef

    /// Builds the helper table. The globals table is captured when it is built, so completion
    /// keeps walking the real globals even if `_G` is reassigned.
    static func load(on state: LuaState) throws -> REPLSupport {
        let base = state.top
        defer { state.setTop(base) }
        try ShippedLua.load("flickr.repl", on: state)
        state.pushGlobals()
        try state.pcall(arguments: 1, results: 1)
        return REPLSupport(helpers: LuaRef(popping: state))
    }
}
