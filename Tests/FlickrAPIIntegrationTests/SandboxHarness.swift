import AsyncHTTPClient
import FlickrAPI
import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Logging
import NIOCore
import Synchronization

/// An in-process sandbox on an ephemeral loopback port (``SandboxWorld``) and a client pointed at
/// it that logs into ``LogCapture``.
struct SandboxHarness {
    let world: SandboxWorld
    let server: FlickrSandboxServer
    let client: FlickrClient
    let log: LogCapture

    /// The harness of a started sandbox: its client, with the default user's token or none.
    static func make(_ world: SandboxWorld, token: Bool, retry: RetryPolicy, format: FlickrContext.Format) throws -> SandboxHarness {
        let c = world.credentials
        // 60 s, not Flickr-like seconds: the sandbox answers on the Swift concurrency pool that
        // the suite's ~450 tests share with it on two cores, and in a fresh-clone CI rehearsal on
        // a slow day four calls of one suite found no answer within 10 s while every test around
        // them took ~40 s. Tests of deadlines set their own.
        let ctx = FlickrContext(apiKey: c.apiKey, sharedSecret: c.apiSecret,
                                oauthToken: token ? c.oauthToken : nil, oauthTokenSecret: token ? c.oauthTokenSecret : nil,
                                endpoints: Endpoints(baseURL: world.url), format: format, requestTimeout: 60,
                                uploadTimeout: 60, retryPolicy: retry, ratePolicy: .unlimited)
        let log = LogCapture()
        var logger = Logger(label: "test") { _ in log }
        logger.logLevel = .trace
        return SandboxHarness(world: world, server: try world.inProcessServer(), client: FlickrClient(context: ctx, logger: logger), log: log)
    }

    /// Runs `body` with a harness over ``SandboxWorld/with(_:seed:accessLog:eventLoopGroup:_:)``,
    /// which always stops the server.
    static func with<T>(_ configuration: SandboxConfiguration = SandboxConfiguration(), token: Bool = true,
                        retry: RetryPolicy = RetryPolicy(maxAttempts: 1), format: FlickrContext.Format = .xml,
                        eventLoopGroup: (any EventLoopGroup)? = nil,
                        _ body: (SandboxHarness) async throws -> T) async throws -> T {
        try await SandboxWorld.with(configuration, eventLoopGroup: eventLoopGroup) { world in
            try await body(try Self.make(world, token: token, retry: retry, format: format))
        }
    }

    /// A plain GET (following redirects), for pages a browser would fetch.
    static func fetch(_ url: String) async throws -> (status: Int, body: String, location: String?) {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), String(buffer: body), response.headers.first(name: "location"))
    }
}

/// Collects log messages so tests can count retries and check redaction.
final class LogCapture: LogHandler, @unchecked Sendable {
    private let lines = Mutex<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let text = "\(event.message)"
        lines.withLock { $0.append(text) }
    }

    var messages: [String] { lines.withLock { $0 } }

    func count(containing needle: String) -> Int { messages.filter { $0.contains(needle) }.count }
}
