import FlickrAPI
import FlickrProtocol
import Foundation
import LuaKit

/// The `flickr` Lua module (LUA-API.md): built once per Lua state, bound to one ``FlickrClient``.
///
/// Lives on the Lua thread: its Swift functions capture it, and Lua releases them when the state
/// closes. Async work captures only Sendable values (the client, converted arguments).
final class FlickrModule {
    let client: FlickrClient
    let environment: [String: String]
    let profiles: ProfileStore
    /// `flickr.configure{}` and the host's explicit settings: the top layer.
    var explicit: FlickrSettings
    /// What is in force (explicit over environment over profile).
    private(set) var effective: FlickrSettings
    /// Progress for uploads that bring no callback of their own (the command's terminal bar).
    let defaultUploadProgress: UploadProgress?

    /// Registry name of the metatable of `flickr.help()` results.
    static let helpMetatableName = "flickr.Help"

    init(client: FlickrClient, explicit: FlickrSettings, environment: [String: String], profiles: ProfileStore,
         defaultUploadProgress: UploadProgress? = nil) {
        self.client = client
        self.defaultUploadProgress = defaultUploadProgress
        self.explicit = explicit
        self.environment = environment
        self.profiles = profiles
        effective = explicit
    }

    /// Explicit over environment over the selected profile, by FlickrAPI's ``CredentialResolver``;
    /// the settings that are not credentials (timeouts, rate, format) come from `explicit` only.
    static func resolve(explicit: FlickrSettings, environment: [String: String],
                        profiles: ProfileStore) throws -> FlickrSettings {
        let asked = FlickrProfile(apiKey: explicit.apiKey, apiSecret: explicit.secret, oauthToken: explicit.token,
                                  oauthTokenSecret: explicit.tokenSecret, endpoint: explicit.endpoint)
        let resolved = try CredentialResolver(environment: environment, store: profiles).resolve(explicit: asked, profile: explicit.profile)
        let c = resolved.credentials
        // The profile's saved user describes its token only: not one given some other way.
        let stored = resolved.profileExists ? try profiles.load(resolved.profileName) : nil
        let ownToken = stored?.oauthToken != nil && stored?.oauthToken == c.oauthToken && explicit.token == nil
        let user = ownToken ? stored?.username.map { name in name + (stored?.userNSID.map { " (\($0))" } ?? "") } : nil
        var lower = FlickrSettings(apiKey: c.apiKey, secret: c.apiSecret, token: c.oauthToken, tokenSecret: c.oauthTokenSecret,
                                   endpoint: c.endpoint, profile: resolved.profileName, user: user)
        lower.permission = ownToken ? stored?.perms.flatMap(FlickrPermission.init(rawValue:)) : nil
        return explicit.over(lower)
    }

    /// Recomputes the settings in force and puts them into the client.
    func apply(on state: LuaState) throws {
        effective = try Self.resolve(explicit: explicit, environment: environment, profiles: profiles)
        let context = effective.context()
        client.updateContext { $0 = context }
    }

    // MARK: - Building the table

    /// [-0, +1] Pushes the module table (also sets `package.loaded.flickr`).
    func push(onto state: LuaState) throws {
        state.newTable(record: 64)
        let flickr = state.top
        installNamespaces(state, flickr)
        installCalls(state, flickr)
        installHelpers(state, flickr)
        installUpload(state, flickr)
        installDownload(state, flickr)
        installAuth(state, flickr)
        installConcurrency(state, flickr)
        installConfiguration(state, flickr)
        installJobs(state, flickr)
        installEdit(state, flickr)
        installPush(state, flickr)
        installLibrary(state, flickr)
        try installLuaPart(state, flickr)
        // The module itself answers a name it lacks as its namespaces do: `flickr.nope.foo{}`
        // says "no such method or namespace" with the nearest names, not "attempt to index nil".
        setLookup(state, forNamespaceAt: flickr, path: "flickr")
        state.pushCopy(of: flickr)
        try state.registerModule("flickr")
    }

    /// Sets `t[key]` to a Swift function named `flickr.<path>` whose errors become `flickr.Error`
    /// values (argument errors → `usage`, interrupts → `cancelled`).
    func define(_ state: LuaState, _ table: Int32, _ key: String, path: String? = nil,
                _ body: @escaping (LuaCall) throws -> LuaReturn) {
        let name = "flickr." + (path ?? key)
        state.push(function: name) { call in
            do {
                return try body(call)
            } catch {
                throw FlickrError.from(error, function: name)
            }
        }
        state.rawSet(field: key, in: table)
    }

    /// The Lua part (`lua/flickr/core.lua`, compiled in): error `__tostring`, walk, text, help.
    private func installLuaPart(_ state: LuaState, _ flickr: Int32) throws {
        try ShippedLua.load("flickr.core", on: state)
        try state.call(arguments: 0, results: 1)
        state.pushCopy(of: flickr)
        state.pushMetatable(named: errorMetatableName)
        state.pushMetatable(named: Self.helpMetatableName)
        try state.call(arguments: 3, results: 0)
    }

    /// `flickr.photos.search` …: a table per namespace, a function per catalog method. Each
    /// namespace table's `__index` (reached only for a key it lacks) finds a method or
    /// namespace written in another case, and refuses any other name with did-you-mean.
    private func installNamespaces(_ state: LuaState, _ flickr: Int32) {
        var namespaces: Set<String> = []
        // The names alone: decoding the catalog waits for the first call.
        for name in MethodCatalog.methodNames {
            var parts = name.split(separator: ".").map(String.init)
            guard parts.first == "flickr", parts.count >= 2 else { continue }
            parts.removeFirst()
            let leaf = parts.removeLast()
            state.pushCopy(of: flickr)
            var path = "flickr"
            for part in parts {
                path += "." + part
                if state.rawGet(field: part, in: -1) != .table {
                    state.pop()
                    state.newTable()
                    state.pushCopy(of: -1)
                    state.rawSet(field: part, in: -3)
                }
                state.remove(at: -2)
                if namespaces.insert(path).inserted { setLookup(state, forNamespaceAt: state.top, path: path) }
            }
            let table = state.top
            define(state, table, leaf, path: String(name.dropFirst("flickr.".count))) { call in
                let arguments = try ArgumentConversion.parameters(at: 1, in: call.state, method: name)
                return self.callReturn(name, arguments, verb: nil, timeout: nil, strict: true, on: call.state)
            }
            state.pop()
        }
    }

    /// [-0, +0] Gives the namespace table at `index` (named `path`) a metatable whose `__index`
    /// resolves a key case-insensitively to a method or namespace of the table, and raises a
    /// usage error naming the nearest methods (else the nearest names of the table) for any
    /// other key.
    private func setLookup(_ state: LuaState, forNamespaceAt index: Int32, path: String) {
        state.newTable(record: 1)
        state.push(function: path + ".__index") { call in
            let s = call.state
            let key = try call.string(2)
            // A method or namespace of this table, in another case: the same entry.
            var match: String?
            var names: [String] = []
            s.forEachRawEntry(inTableAt: 1) { e in
                if s.type(at: e.keyIndex) == .string, let k = s.string(at: e.keyIndex) {
                    if k.lowercased() == key.lowercased() { match = k }
                    names.append(k)
                }
                return match == nil
            }
            if let match {
                s.rawGet(field: match, in: 1)
                return .results(1)
            }
            let full = path + "." + key
            var near = MethodCatalog.shared.suggestions(forMethod: full)
            if near.isEmpty { near = Suggestions.closest(to: key, among: names).map { path + "." + $0 } }
            let lister = path == "flickr" ? "flickr.methods()" : "flickr.methods(\"\(path)\")"
            throw FlickrError.usage("no such method or namespace" + Suggestions.phrase(near) + " — \(lister) lists them",
                                    method: full)
        }
        state.rawSet(field: "__index", in: -2)
        state.setMetatable(of: index)
    }

    /// The async call of a method, its response pushed as tables. An XML answer goes into
    /// tables straight from the parser (``LuaTableSink``, the one route from XML to Lua),
    /// built on the Lua thread while the call still runs under the client's retry policy, so
    /// a malformed answer is retried like any other; a JSON answer comes as the mapped tree.
    func callReturn(_ method: String, _ arguments: [(String, String)], verb: HTTPVerb?, timeout: Double?,
                    strict: Bool, on state: LuaState) -> LuaReturn {
        let client = self.client
        let poster = state.jobPoster
        var async = LuaAsync({ () async throws -> FlickrResponseBody<LuaRef> in
            try await client.callBody(method, arguments: arguments, verb: verb, timeout: timeout, strict: strict) { bytes async throws(FlickrError) in
                let built = await poster.run { state in LuaTableSink.tables(bytes, on: state) }
                guard let built else { throw FlickrError.interrupted(method) }
                return try built.get()
            }
        }, deliver: { state, body in
            switch body {
            case .tree(let node): try ResponseMapping.push(node, onto: state)
            case .xml(let tables): tables.push(onto: state)
            }
            return 1
        })
        async.interruptedError = FlickrError.interrupted(method)
        async.runsOnLuaThread = true  // signing, the answer and its tables: on the thread that waits
        return .await(async)
    }

    /// An async helper whose result `deliver` pushes.
    func asyncReturn<T: Sendable>(_ name: String, _ work: @escaping @Sendable () async throws -> T,
                                  deliver: @escaping (LuaState, T) throws -> Int32) -> LuaReturn {
        var async = LuaAsync(work, deliver: deliver)
        async.interruptedError = FlickrError.interrupted(name)
        return .await(async)
    }

    // MARK: - flickr.call

    private func installCalls(_ state: LuaState, _ flickr: Int32) {
        // flickr.call(method, args, opts{verb, timeout, strict})
        define(state, flickr, "call") { call in
            var method = try call.string(1)
            if !method.hasPrefix("flickr.") { method = "flickr." + method }
            let arguments = try ArgumentConversion.parameters(at: 2, in: call.state, method: method)
            var verb: HTTPVerb?
            var timeout: Double?
            var strict = true
            if let options = try LuaOptions.read(call, at: 3, function: method, known: ["verb", "timeout", "strict"]) {
                verb = try options.choice("verb", ["GET": .get, "POST": .post], ignoringCase: true)
                timeout = try options.number("timeout", expected: "seconds")
                strict = try options.boolean("strict") ?? true
            }
            return self.callReturn(method, arguments, verb: verb, timeout: timeout, strict: strict, on: call.state)
        }
    }
}
