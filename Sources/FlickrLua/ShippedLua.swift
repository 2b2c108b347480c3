import CFlickrLuaSources
import LuaKit

/// The Lua that ships with the command (`lua/flickr/*.lua`), compiled into the executable by
/// CFlickrLuaSources, so an installed `flickr` needs nothing from the source tree.
///
/// ``installSearcher(on:)`` lets `require` find these modules *after* `package.path`: a user's
/// `LUA_PATH` (or `./flickr/pretty.lua`) overrides a shipped module on purpose.
public enum ShippedLua {
    /// One shipped chunk. (`@unchecked`: `bytes` points at constant data compiled into the
    /// executable, never written and never freed.)
    public struct Source: @unchecked Sendable {
        /// The name `require` takes (`flickr.pretty`).
        public let module: String
        /// Where it lives in the source tree (`lua/flickr/pretty.lua`); tracebacks name it.
        public let path: String
        /// The source text, valid for the life of the process.
        public let bytes: UnsafeRawBufferPointer
    }

    /// Every shipped chunk, by module name.
    public static let sources: [String: Source] = {
        var count = 0
        guard let table = flickr_lua_sources(&count) else { return [:] }
        var sources: [String: Source] = [:]
        for entry in UnsafeBufferPointer(start: table, count: count) {
            let source = Source(module: String(cString: entry.module), path: String(cString: entry.path),
                                bytes: UnsafeRawBufferPointer(start: entry.bytes, count: entry.length))
            sources[source.module] = source
        }
        return sources
    }()

    /// [-0, +1] Compiles the shipped chunk `module` (chunk name `@lua/flickr/….lua`) and pushes
    /// it. Throws a syntax error, or a `file` error when there is no such chunk.
    public static func load(_ module: String, on state: LuaState) throws(LuaError) {
        guard let source = sources[module] else {
            throw LuaError(kind: .file, message: "no shipped Lua module '\(module)'")
        }
        try state.load(source.bytes, name: "@" + source.path)
    }

    /// [-0, +0] Lets the `package.path` searcher find the shipped modules when `package.path`
    /// has none of that name (before the C searchers): `package.searchers` keeps lua5.4's four
    /// entries and a module found nowhere gets lua5.4's message.
    public static func installSearcher(on state: LuaState) throws(LuaError) {
        let sources = self.sources
        try state.extendModuleSearcher(position: 2) { state, module -> String? in
            guard let source = sources[module] else { return nil }
            try state.load(source.bytes, name: "@" + source.path)
            return source.path
        }
    }
}
