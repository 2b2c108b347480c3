import FlickrAPI
import FlickrJobs
import FlickrProtocol
import LuaKit

/// The `flickr` module in a Lua state another program runs: `require "flickr"` in Debian's
/// `lua5.4` (the `flickr-lua` library, FlickrLuaModule; LUA-API.md, "From lua5.4").
extension FlickrLuaSession {
    /// [-0, +1] Pushes the `flickr` module onto `state` (also `package.loaded.flickr`), set up as
    /// a session's: the settings of `options` over the `FLICKR_*` environment over the profile
    /// (`FLICKR_PROFILE`, else `default`), the call budget of ``callBudget(_:environment:rest:)``
    /// with `FLICKR_BUDGET`, and the shipped Lua modules (`flickr.pretty`, …) found by
    /// `require` after `package.path`. No global is set: the caller decides (`require` returns
    /// the table). `state` is a foreign state's (``LuaModuleHost/attach(_:)``) or a runtime's.
    /// Throws what a session's init throws (an unreadable profile), and a `usage`
    /// ``FlickrError`` for a malformed `FLICKR_BUDGET`.
    public static func pushModule(onto state: LuaState, options: Options = Options()) throws {
        let profiles = options.profiles ?? ProfileStore(environment: options.environment)
        let settings = try FlickrModule.resolve(explicit: options.settings, environment: options.environment,
                                                profiles: profiles)
        let client = FlickrClient(context: settings.context(), logger: options.logger)
        let budget: CallBudget?
        do {
            budget = try callBudget(nil, environment: options.environment, rest: client.context.endpoints.rest)
        } catch {
            throw FlickrError.usage("FLICKR_BUDGET: \(error.message)", method: nil)
        }
        if let budget {
            client.pacer = SharedBudget(budget: budget, path: JobStore.defaultPath(environment: options.environment))
        }
        let module = FlickrModule(client: client, explicit: options.settings, environment: options.environment,
                                  profiles: profiles, defaultUploadProgress: options.defaultUploadProgress)
        try module.apply(on: state)
        try module.push(onto: state)
        try ShippedLua.installSearcher(on: state)
    }

    /// The per-key call budget a `flickr` process paces itself by (CLI.md, `--budget`): `text`
    /// (the command's `--budget`), else `FLICKR_BUDGET`, else a little under Flickr's published
    /// limit (``CallBudget/flickrDefault``) for a real endpoint and none (nil) for a loopback
    /// one (`rest` is the REST endpoint's URL).
    public static func callBudget(_ text: String?, environment: [String: String],
                                  rest: String) throws(CallBudgetError) -> CallBudget? {
        if let text = text ?? environment["FLICKR_BUDGET"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return try CallBudget.parse(text)
        }
        return Loopback.isLoopback(url: rest) ? nil : CallBudget.flickrDefault
    }
}
