import FlickrProtocol
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A running Flickr emulator on loopback.
///
/// ```swift
/// let server = try await FlickrSandboxServer.start(SandboxConfiguration())
/// print(server.url)               // http://127.0.0.1:PORT
/// let creds = server.credentials  // app key/secret + the default user's write token
/// try await server.stop()
/// ```
///
/// Flickr's paths are served on one host: `/services/rest/`, `/services/upload/`,
/// `/services/replace/`, `/services/oauth/{request_token,authorize,access_token}`,
/// `/services/auth/` and `/static/…`.
public final class FlickrSandboxServer: Sendable {
    /// `http://HOST:PORT`.
    public let url: String
    /// The built-in application and the default user, holding a write token.
    public let credentials: SandboxCredentials
    let engine: SandboxEngine
    private let task: Mutex<Task<Void, Error>?>
    private let group: ServiceGroup
    private let stopped = Atomic<Bool>(false)

    private init(url: String, credentials: SandboxCredentials, engine: SandboxEngine, task: Task<Void, Error>,
                 group: ServiceGroup) {
        self.group = group
        self.url = url
        self.credentials = credentials
        self.engine = engine
        self.task = Mutex(task)
    }

    /// Starts a server and returns once it is listening. Its connections are served by
    /// `eventLoopGroup`, or by NIO's shared event loops when nil: a test whose timing depends on
    /// the server's loops (how soon an idle connection is closed) gives it loops of its own, which
    /// other servers in the same process cannot keep busy.
    public static func start(_ configuration: SandboxConfiguration,
                             eventLoopGroup: (any EventLoopGroup)? = nil) async throws -> FlickrSandboxServer {
        var logger = Logger(label: "flickr-sandbox")
        logger.logLevel = ProcessInfo.processInfo.environment["FLICKR_SANDBOX_LOG"].flatMap { Logger.Level(rawValue: $0) } ?? .error
        guard (0...65_535).contains(configuration.port) else { throw SandboxError("port \(configuration.port) is out of range") }
        if let rate = configuration.rateLimit, rate < 1 { throw SandboxError("the rate limit must be at least 1 call per second") }
        if let idle = configuration.closeIdleMilliseconds, idle < 1 { throw SandboxError("--close-idle must be at least 1 ms") }
        if configuration.clockSkewSeconds < 1 { throw SandboxError("--clock-skew must be at least 1 second") }
        let store = try SandboxStore.open(configuration)
        let controls = SandboxControls(configuration: configuration)
        let engine = SandboxEngine(store: store, controls: controls, logger: logger)

        let closeIdle = configuration.closeIdleMilliseconds.map { TimeAmount.milliseconds(Int64($0)) }
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: SandboxRouter.make(engine: engine, log: try configuration.logFile.map(AccessLog.init(path:))),
            server: .http1(configuration: .init(additionalChannelHandlers: connectionHandlers(controls: controls, closeIdle: closeIdle))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                 serverName: nil),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            eventLoopGroupProvider: eventLoopGroup.map { .shared($0) } ?? .singleton,
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        var port: Int?
        for await p in portStream {
            port = p
            break
        }
        guard let port, port > 0 else {
            task.cancel()
            store.removeTemporaryFiles()
            let reason: String
            if case .failure(let error) = await task.result { reason = "\(error)" } else { reason = "no listening socket" }
            throw SandboxError("cannot listen on \(configuration.host):\(configuration.port): \(reason)")
        }
        let user = store.read { $0.user(nsid: engine.defaultToken.user ?? "") }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let credentials = SandboxCredentials(
            apiKey: engine.credentialsApp.apiKey, apiSecret: engine.credentialsApp.apiSecret,
            oauthToken: engine.defaultToken.token, oauthTokenSecret: engine.defaultToken.secret,
            userNSID: user?.nsid ?? "", username: user?.username ?? "")
        return FlickrSandboxServer(url: "http://\(host):\(port)", credentials: credentials, engine: engine, task: task,
                                   group: group)
    }

    /// The handlers each new connection gets after HTTP decoding: the connection count, and the
    /// keep-alive closer of `--close-idle` (Hummingbird's own idle timeout would also close a new
    /// connection whose first request is slow to come, which a web server does not).
    private static func connectionHandlers(controls: SandboxControls, closeIdle: TimeAmount?) -> [any RemovableChannelHandler] {
        var handlers: [any RemovableChannelHandler] = [ConnectionCounter(controls: controls)]
        if let closeIdle { handlers.append(KeepAliveCloser(idle: closeIdle)) }
        return handlers
    }

    /// Issues an access token (for tests: e.g. a read-only token, or another user's).
    /// `username` nil means the default user; an NSID or path alias works too.
    public func issueToken(username: String?, perms: FlickrPermission) async throws -> (token: String, secret: String) {
        let token = try engine.issueToken(username: username, perms: perms)
        return (token.token, token.secret)
    }

    /// The catalog methods the sandbox answers from its state (every other method answers its
    /// documented example), sorted.
    public static var modelledMethods: [String] { MethodRouter.flickr.names }

    /// Changes the injected failure rates.
    public func setFaults(_ faults: FaultSpec) async { engine.controls.faults = faults }

    /// Changes the injected failures of `/static/` image downloads.
    public func setImageFaults(_ faults: FaultSpec) async { engine.controls.imageFaults = faults }

    /// Changes the delay added to every answer.
    public func setLatency(milliseconds: Int) async { engine.controls.latencyMilliseconds = milliseconds }

    /// The most requests the server was answering at once since the last call (or since it
    /// started); the count then starts afresh. Tests use it to see that calls overlap.
    public func takePeakConcurrency() -> Int { engine.controls.takePeak() }

    /// How many HTTP requests the server has received (any path, answered or not).
    public func requestCount() -> Int { engine.controls.requestCount }

    /// How many connections the server has accepted.
    public func connectionCount() -> Int { engine.controls.connectionCount }

    /// Changes the rate limit (nil = unlimited).
    public func setRateLimit(_ callsPerSecond: Int?) async { engine.controls.rateLimit = callsPerSecond }

    /// Changes the per-key call budget (nil = none); the windows start empty.
    public func setBudget(_ budget: CallBudget?) async { engine.controls.budget = budget }

    /// Stops listening and closes connections (with `--state`, every answered write is already on disk).
    public func stop() async throws {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let task = task.withLock({ $0 }) {
            // Graceful first (idle keep-alive connections are closed), then cancellation as a backstop.
            await group.triggerGracefulShutdown()
            let backstop = Task {
                try await Task.sleep(for: .seconds(2))
                task.cancel()
            }
            _ = await task.result
            backstop.cancel()
        }
        if let failure = engine.store.failure { throw SandboxError("the state could not be written: \(failure)") }
        engine.store.removeTemporaryFiles()
    }

    /// A server dropped without ``stop()`` still stops listening and removes its private upload
    /// directory (a `--state` directory is kept).
    deinit {
        task.withLock { $0 }?.cancel()
        if !stopped.load(ordering: .acquiring) { engine.store.removeTemporaryFiles() }
    }
}
