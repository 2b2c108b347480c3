import FlickrAPI
import FlickrLua
import FlickrLuaSandbox
import FlickrSandbox
import Foundation
import Logging
import LuaKit

/// The `flickr` command (CLI.md): lua.c-compatible script runner, REPL, and subcommands.
public enum FlickrShell {
    public static let version = "0.1.0"

    /// What `flickr --version` prints: `flickr 0.1.0 (SwiftFlickr) — Lua 5.4.6`.
    static var versionLine: String { "flickr \(version) (SwiftFlickr) — \(LuaRuntime.luaRelease)" }

    /// Runs the command with `argv` (including `argv[0]`) and returns its exit status.
    public static func main(_ argv: [String], environment: [String: String] = ProcessInfo.processInfo.environment) async -> Int32 {
        let invocation: Invocation
        do {
            invocation = try Invocation.parse(argv)
        } catch {
            FileHandleOutput.standardError("flickr: \(error.message)\n\(Invocation.usage)\n")
            return 2
        }
        if invocation.help {
            print(Invocation.usage)
            return 0
        }
        if invocation.showVersion {
            print(versionLine)
            return 0
        }
        switch invocation.mode {
        case .subcommand(let name, let arguments):
            return await Subcommands.run(name, arguments: arguments, invocation: invocation, environment: environment)
        case .lua:
            return await LuaMode.run(invocation, environment: environment)
        }
    }

    /// The session every mode uses: an in-process sandbox with `--sandbox`, else credentials
    /// resolved from options, environment and profile.
    static func makeSession(_ invocation: Invocation, environment: [String: String]) async throws
        -> (session: FlickrLuaSession, server: FlickrSandboxServer?) {
        var options = FlickrLuaSession.Options(environment: environment)
        options.runtime.ignoreEnvironment = invocation.ignoreEnvironment
        options.settings.endpoint = invocation.endpoint
        options.settings.profile = invocation.profile
        options.logger = logger(debug: invocation.debug)
        // A progress bar on the terminal for uploads whose script gives no callback.
        if Terminal.stderrIsTerminal { options.defaultUploadProgress = ProgressBar().callback }
        if invocation.sandbox {
            var configuration = SandboxConfiguration()
            configuration.dataFile = invocation.sandboxData
            let (server, session) = try await FlickrLuaSandbox.start(configuration, options: options)
            return (session, server)
        }
        return (try await FlickrLuaSession(options), nil)
    }

    /// `--debug` traces every HTTP request and response on stderr (the client redacts secrets).
    static func logger(debug: Bool) -> Logger {
        var logger = Logger(label: "flickr") { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .trace
            return handler
        }
        logger.logLevel = debug ? .trace : .error
        return logger
    }

    /// The message lua.c prints for an uncaught error: `flickr: message` + traceback.
    static func report(_ error: any Error) -> String {
        if let e = error as? LuaError { return "flickr: " + e.messageWithTraceback }
        if let e = error as? FlickrError { return "flickr: \(e)" }
        return "flickr: \(error)"
    }
}
