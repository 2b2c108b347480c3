import FlickrAPI
import FlickrProtocol
import FlickrSandbox
import Foundation
import NIOCore

/// What a test's sandbox is seeded with (SEED-FORMAT.md). No seed is the demo world, or what the
/// configuration (or the arguments) already name: `dataFile`, `world`, `stateDirectory`.
public enum SandboxSeed {
    /// A seed file, served as it is.
    case file(URL)
    /// A seed object, written to a temporary file for the start and removed after the stop.
    case object([String: Any])

    /// The seed's file, and the temporary file to remove after the stop (an object's).
    func materialize() throws -> (file: URL, temporary: URL?) {
        switch self {
        case .file(let url):
            return (url, nil)
        case .object(let object):
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-seed-\(UUID().uuidString).json")
            try JSONSerialization.data(withJSONObject: object).write(to: url)
            return (url, url)
        }
    }
}

/// The one way tests start a sandbox: in process (``with(_:seed:accessLog:eventLoopGroup:_:)``,
/// a ``FlickrSandboxServer`` on an ephemeral loopback port) or the real `flickr-sandbox` binary
/// as a child process (``withProcess(_:seed:accessLog:environment:timeout:_:)``), seeded from a
/// file, an object or not at all, with an access log when asked, and always stopped however the
/// body ends. The body gets this value: where the sandbox is, its credentials, clients and the
/// environment that point at it, and the server or the process for what only they can do
/// (steering faults, issuing tokens, stopping it mid-test to make an outage).
public struct SandboxWorld: Sendable {
    /// `http://HOST:PORT`.
    public let url: String
    /// The built-in application and the default user's write token.
    public let credentials: SandboxCredentials
    /// The in-process server; nil for a `flickr-sandbox` process.
    public let server: FlickrSandboxServer?
    /// The `flickr-sandbox` process; nil in process.
    public let process: SandboxProcess?
    /// The access log (one JSON line per request), when the sandbox keeps one.
    public let accessLog: URL?

    init(server: FlickrSandboxServer, accessLog: URL?) {
        url = server.url
        credentials = server.credentials
        self.server = server
        process = nil
        self.accessLog = accessLog
    }

    init(process: SandboxProcess, accessLog: URL?) {
        let v = process.values
        url = v["url"] ?? ""
        credentials = SandboxCredentials(apiKey: v["api_key"] ?? "", apiSecret: v["api_secret"] ?? "",
                                         oauthToken: v["oauth_token"] ?? "", oauthTokenSecret: v["oauth_token_secret"] ?? "",
                                         userNSID: v["user_nsid"] ?? "", username: v["username"] ?? "")
        server = nil
        self.process = process
        self.accessLog = accessLog
    }

    /// The port it listens on.
    public var port: Int { URLComponents(string: url)?.port ?? 0 }

    /// The `key=value` lines of `flickr-sandbox`'s banner (`url`, `api_key`, `api_secret`,
    /// `oauth_token`, `oauth_token_secret`, `user_nsid`, `username`): a process's as it printed
    /// them, the same keys for an in-process server.
    public var values: [String: String] {
        if let process { return process.values }
        return ["url": url, "api_key": credentials.apiKey, "api_secret": credentials.apiSecret,
                "oauth_token": credentials.oauthToken, "oauth_token_secret": credentials.oauthTokenSecret,
                "user_nsid": credentials.userNSID, "username": credentials.username]
    }

    /// The in-process server (``with(_:seed:accessLog:eventLoopGroup:_:)`` always has one).
    public func inProcessServer() throws -> FlickrSandboxServer {
        guard let server else { throw ProcessFailure(description: "the sandbox at \(url) is a flickr-sandbox process, not in process") }
        return server
    }

    /// `base` with the variables that point `flickr` at this sandbox as its default user.
    public func environment(_ base: [String: String]) -> [String: String] {
        base.merging([
            "FLICKR_ENDPOINT": url, "FLICKR_API_KEY": credentials.apiKey, "FLICKR_API_SECRET": credentials.apiSecret,
            "FLICKR_OAUTH_TOKEN": credentials.oauthToken, "FLICKR_OAUTH_TOKEN_SECRET": credentials.oauthTokenSecret,
        ]) { $1 }
    }

    /// A context of this sandbox: the default user's, or that of another of its tokens.
    public func context(token: (token: String, secret: String)? = nil) -> FlickrContext {
        FlickrContext(apiKey: credentials.apiKey, sharedSecret: credentials.apiSecret,
                      oauthToken: token?.token ?? credentials.oauthToken,
                      oauthTokenSecret: token?.secret ?? credentials.oauthTokenSecret, endpoints: Endpoints(baseURL: url))
    }

    /// A client of this sandbox: the default user's, or that of another of its tokens.
    public func client(token: (token: String, secret: String)? = nil) -> FlickrClient {
        FlickrClient(context: context(token: token))
    }
}

extension SandboxWorld {
    /// Starts an in-process sandbox with `configuration` (by default on a free port of
    /// 127.0.0.1), seeded with `seed` (it sets `dataFile`) and logging to `accessLog` (it sets
    /// `logFile`), its connections served by `eventLoopGroup` (NIO's shared loops when nil);
    /// runs `body` with it and stops it however `body` ends. `body`'s error is the one rethrown;
    /// a failure to stop is thrown only when `body` succeeded. A start that fails throws before
    /// `body` runs (SandboxError).
    public static func with<T>(_ configuration: SandboxConfiguration = SandboxConfiguration(), seed: SandboxSeed? = nil,
                               accessLog: URL? = nil, eventLoopGroup: (any EventLoopGroup)? = nil,
                               _ body: (SandboxWorld) async throws -> T) async throws -> T {
        var configuration = configuration
        let seeded = try seed?.materialize()
        defer { if let temporary = seeded?.temporary { try? FileManager.default.removeItem(at: temporary) } }
        if let seeded { configuration.dataFile = seeded.file.path }
        if let accessLog { configuration.logFile = accessLog.path }
        let server = try await FlickrSandboxServer.start(configuration, eventLoopGroup: eventLoopGroup)
        let world = SandboxWorld(server: server, accessLog: configuration.logFile.map { URL(fileURLWithPath: $0) })
        let result: T
        do {
            result = try await body(world)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        return result
    }

    /// Starts `flickr-sandbox ARGUMENTS` (with `--port 0`, a free port, unless they name a port;
    /// `--data` for `seed`, `--log` for `accessLog`) in `environment`, waits up to `timeout`
    /// seconds for its `ready` line, runs `body` with it and stops it (SIGTERM) however `body`
    /// ends. A process of its own: for tests that kill it, restart it on its state, or must not
    /// share the test process's cooperative pool.
    public static func withProcess<T>(_ arguments: [String] = [], seed: SandboxSeed? = nil, accessLog: URL? = nil,
                                      environment: [String: String] = ProcessInfo.processInfo.environment, timeout: Double = 120,
                                      _ body: (SandboxWorld) async throws -> T) async throws -> T {
        let seeded = try seed?.materialize()
        defer { if let temporary = seeded?.temporary { try? FileManager.default.removeItem(at: temporary) } }
        var arguments = arguments
        if let seeded { arguments += ["--data", seeded.file.path] }
        if let accessLog { arguments += ["--log", accessLog.path] }
        let process = try await startProcess(arguments, environment: environment, timeout: timeout)
        defer { process.stop() }
        return try await body(SandboxWorld(process: process, accessLog: accessLog))
    }

    /// Starts `flickr-sandbox ARGUMENTS` as ``withProcess(_:seed:accessLog:environment:timeout:_:)``
    /// does, for a caller that cannot put its use in one body (several sandboxes made in a loop):
    /// the caller stops it, `defer { sandbox.stop() }` right after this line.
    public static func startProcess(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
                                    timeout: Double = 120) async throws -> SandboxProcess {
        let namesPort = arguments.contains { $0 == "--port" || $0.hasPrefix("--port=") }
        return try await SandboxProcess.start(namesPort ? arguments : ["--port", "0"] + arguments, environment: environment,
                                              timeout: timeout)
    }
}
