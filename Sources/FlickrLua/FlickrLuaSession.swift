import FlickrAPI
import Foundation
import Logging
import LuaKit

/// A Lua runtime with the `flickr` module installed: the entry point of the `flickr` command
/// and of anything else that runs Flickr scripts.
///
/// ```swift
/// let session = try await FlickrLuaSession()
/// let outcome = await session.runScript(at: "photos.lua", arguments: ["cat"])
/// ```
/// The module is the global `flickr` and `require "flickr"`. The shipped Lua modules
/// (``ShippedLua``) are found by `require` after `package.path`, so `LUA_PATH` can override them.
public final class FlickrLuaSession: Sendable {
    /// How to create a session.
    public struct Options: Sendable {
        /// Explicit settings (the host's command-line options, the sandbox): the top layer, above
        /// the environment and the profile file.
        public var settings: FlickrSettings
        /// Where `FLICKR_*` variables (and `XDG_CONFIG_HOME`, `HOME`) are read.
        public var environment: [String: String]
        /// Where profiles are read and `flickr.oauth.login` saves; by default from the environment.
        public var profiles: ProfileStore?
        public var runtime: LuaRuntime.Configuration
        /// Receives the client's request traces (secrets redacted).
        public var logger: Logger
        /// Progress for `flickr.upload` / `flickr.replace` calls without a `progress` function
        /// (the command draws a bar on a terminal); nil shows nothing.
        public var defaultUploadProgress: UploadProgress?
        /// What carries the client's requests (a cassette's recorder or replay); nil: HTTP.
        public var transport: (any FlickrTransport)?

        public init(settings: FlickrSettings = FlickrSettings(),
                    environment: [String: String] = ProcessInfo.processInfo.environment,
                    profiles: ProfileStore? = nil,
                    runtime: LuaRuntime.Configuration = LuaRuntime.Configuration(),
                    logger: Logger = Logger(label: "flickr")) {
            self.settings = settings
            self.environment = environment
            self.profiles = profiles
            self.runtime = runtime
            self.logger = logger
        }
    }

    /// The Lua runtime; use it for anything else (REPL, completion, printing).
    public let runtime: LuaRuntime
    /// The client the module uses.
    public let client: FlickrClient

    /// Creates the runtime and installs the module. Throws when the profile file is unreadable
    /// or the module cannot be built.
    public init(_ options: Options = Options()) async throws {
        let profiles = options.profiles ?? ProfileStore(environment: options.environment)
        let settings = try FlickrModule.resolve(explicit: options.settings, environment: options.environment,
                                                profiles: profiles)
        if let profile = settings.profile, let warning = profiles.exposure(of: profile) {
            FileHandle.standardError.write(Data("flickr: warning: \(warning)\n".utf8))
        }
        let client = FlickrClient(context: settings.context(), transport: options.transport, logger: options.logger)
        let runtime = try LuaRuntime(options.runtime)
        self.runtime = runtime
        self.client = client
        let explicit = options.settings
        let environment = options.environment
        let defaultUploadProgress = options.defaultUploadProgress
        try await runtime.perform { state in
            let module = FlickrModule(client: client, explicit: explicit, environment: environment, profiles: profiles,
                                      defaultUploadProgress: defaultUploadProgress)
            try module.apply(on: state)
            try module.push(onto: state)
            state.setGlobal("flickr")
            try ShippedLua.installSearcher(on: state)
        }
    }

    /// Closes the runtime (the client's connections are shared and stay).
    public func close() { runtime.close() }

    /// Runs a script file as lua.c does: `arg` set (`arg[0]` the script, negative indices
    /// `interpreter`), the arguments also passed as `...`, a `#!` first line skipped, the
    /// script's directory added to `package.path`. Uncaught errors come back as
    /// ``ScriptOutcome/failure(_:)`` with message and traceback. (`os.exit` exits the process.)
    public func runScript(at path: String, arguments: [String] = [], interpreter: [String] = ["flickr"]) async -> ScriptOutcome {
        do {
            return try await runtime.perform { state -> ScriptOutcome in
                state.setScriptArguments(script: path, arguments: arguments, interpreter: interpreter)
                let directory = (path as NSString).deletingLastPathComponent
                let dir = directory.isEmpty ? "." : directory
                state.setPackagePath("\(dir)/?.lua;" + (state.packagePath ?? ""))
                do {
                    try state.loadFile(path)
                    for a in arguments { state.push(a) }
                    try state.pcall(arguments: Int32(arguments.count), results: 0)
                    return .success
                } catch let error as LuaError {
                    return .failure(error)
                } catch {
                    return .failure(LuaError(kind: .runtime, message: String(describing: error), underlying: error))
                }
            }
        } catch {
            return .failure(LuaError(kind: .closed, message: String(describing: error)))
        }
    }

    /// Runs a chunk of source and returns its results as Swift values.
    public func run(_ source: String, name: String = "=(flickr)") async throws -> [LuaValue] {
        try await runtime.perform { state in try state.run(source, name: name) }
    }
}

/// How a script ended.
public enum ScriptOutcome: Sendable {
    case success
    /// An uncaught error (message, traceback; a Swift error carried through as ``LuaError/underlying``).
    case failure(LuaError)

    /// lua.c's report: `<message>` + newline + traceback.
    public var report: String? {
        guard case .failure(let error) = self else { return nil }
        return error.messageWithTraceback
    }
}
