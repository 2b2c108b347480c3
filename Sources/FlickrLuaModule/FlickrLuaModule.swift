import FlickrAPI
import FlickrLua
import Logging
import LuaKit

/// The Swift half of `luaopen_flickr` (CFlickrLuaModule): `require "flickr"` in a stock
/// `lua5.4` (docs/LUA-API.md, "From lua5.4"). Attaches LuaKit to the interpreter's state and
/// pushes the module, configured as the `flickr` command configures itself from the environment
/// and the profile; returns 1, or pushes the error value and returns -1 (the C half raises it).
@_cdecl("flickr_lua_module_open")
public func flickrLuaModuleOpen(_ L: OpaquePointer?) -> Int32 {
    guard let L else { return -1 }
    let state: LuaState
    do {
        state = try LuaModuleHost.attach(L)
    } catch {
        LuaState(L).push("flickr: \(error.message)")
        return -1
    }
    do {
        var options = FlickrLuaSession.Options()
        options.logger = FlickrLuaModuleLogging.logger
        try FlickrLuaSession.pushModule(onto: state, options: options)
        return 1
    } catch {
        // Text, as the command reports a setup error: there is no module (and no flickr.Error
        // metatable) to make a table of.
        state.push("flickr: \((error as? FlickrError)?.message ?? String(describing: error))")
        return -1
    }
}

/// The client's log, as the `flickr` command's without `--debug`: errors only, on stderr
/// (the default swift-log handler would print to stdout, into the user's output).
enum FlickrLuaModuleLogging {
    static var logger: Logger {
        var logger = Logger(label: "flickr") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .error
        return logger
    }
}
