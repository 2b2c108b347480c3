import FlickrAPI
import FlickrAPITesting
import FlickrCommandLine
import FlickrJobs
import FlickrLua
import FlickrLuaSandbox
import FlickrProtocol
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
            // One line of usage, not the whole help: the message says what is wrong.
            let firstUsage = Invocation.usage.split(separator: "\n").first.map(String.init) ?? ""
            FileHandleOutput.standardError("flickr: \(error.message)\n\(firstUsage)\n`flickr --help` lists the options and subcommands.\n")
            return 2
        }
        if invocation.help {
            print(TextLayout.fit(Invocation.usage, width: LineEditor.terminalColumns))
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
        let made = try await makeCassetteSession(invocation, environment: environment)
        return (made.session, made.server)
    }

    /// ``makeSession(_:environment:)`` with `--record` (every exchange written to the
    /// cassette) and `--replay` (answered from it: no network, placeholder credentials, no
    /// profile or `FLICKR_*` credentials read, the endpoint recorded in the cassette).
    static func makeCassetteSession(_ invocation: Invocation, environment: [String: String]) async throws
        -> (session: FlickrLuaSession, server: FlickrSandboxServer?, replay: ReplayTransport?) {
        var options = FlickrLuaSession.Options(environment: environment)
        options.runtime.ignoreEnvironment = invocation.ignoreEnvironment
        options.settings.endpoint = invocation.endpoint
        options.settings.profile = invocation.profile
        options.logger = logger(debug: invocation.debug)
        // A progress bar on the terminal for uploads whose script gives no callback.
        if Terminal.stderrIsTerminal { options.defaultUploadProgress = ProgressBar().callback }
        if let path = invocation.replay {
            let replay: ReplayTransport
            do { replay = try ReplayTransport(path: path) } catch {
                throw FlickrError(kind: .usage, message: "--replay: \(error)")
            }
            let placeholder = ReplayTransport.placeholderContext
            options.transport = replay
            options.settings = FlickrSettings(apiKey: placeholder.apiKey, secret: placeholder.sharedSecret,
                                              token: placeholder.oauthToken, tokenSecret: placeholder.oauthTokenSecret,
                                              endpoint: invocation.endpoint ?? replay.cassette.endpoint, rate: .some(nil))
            options.environment = environment.filter { !$0.key.hasPrefix("FLICKR_") }
            options.profiles = ProfileStore(directory: URL(fileURLWithPath: "/nonexistent/flickr-replay-has-no-profiles"))
            return (try await FlickrLuaSession(options), nil, replay)
        }
        var recorder: RecordingTransport?
        if let path = invocation.record {
            do { recorder = try RecordingTransport(path: path, endpoint: nil) } catch {
                throw FlickrError(kind: .usage, message: "--record: \(error)")
            }
            options.transport = recorder
        }
        if invocation.sandbox {
            var configuration = SandboxConfiguration()
            configuration.dataFile = invocation.sandboxData
            let (server, session) = try await FlickrLuaSandbox.start(configuration, options: options)
            recorder?.setEndpoint(server.url)
            try applyBudget(invocation, environment: environment, to: session.client)
            return (session, server, nil)
        }
        let session = try await FlickrLuaSession(options)
        let endpoints = session.client.context.endpoints
        recorder?.setEndpoint(endpoints == .flickr ? nil : String(endpoints.web.dropLast()))
        try applyBudget(invocation, environment: environment, to: session.client)
        return (session, nil, nil)
    }

    /// The per-key budget every flickr process shares (`--budget`, else `FLICKR_BUDGET`, else a
    /// little under Flickr's 3,600 calls an hour for a real endpoint and none on loopback).
    /// (The rule is FlickrLuaSession's, which `require "flickr"` in lua5.4 follows too.)
    static func applyBudget(_ invocation: Invocation, environment: [String: String], to client: FlickrClient) throws {
        let budget: CallBudget?
        do {
            budget = try FlickrLuaSession.callBudget(invocation.budget, environment: environment, rest: client.context.endpoints.rest)
        } catch {
            throw Invocation.UsageError(message: "--budget/FLICKR_BUDGET: \(error.message)")
        }
        guard let budget else { return }
        client.pacer = SharedBudget(budget: budget, path: JobStore.defaultPath(environment: environment))
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
