import AsyncHTTPClient
import FlickrAPI
import FlickrProtocol
import FlickrSandbox
import Foundation
import Logging
import NIOCore
import Synchronization

/// Starts an in-process sandbox on an ephemeral loopback port and a client pointed at it.
struct SandboxHarness {
    let server: FlickrSandboxServer
    let client: FlickrClient
    let log: LogCapture

    static func start(_ configuration: SandboxConfiguration = SandboxConfiguration(),
                      token: Bool = true, retry: RetryPolicy = RetryPolicy(maxAttempts: 1),
                      format: FlickrContext.Format = .xml, eventLoopGroup: (any EventLoopGroup)? = nil) async throws -> SandboxHarness {
        let server = try await FlickrSandboxServer.start(configuration, eventLoopGroup: eventLoopGroup)
        let c = server.credentials
        // 60 s, not Flickr-like seconds: the sandbox answers on the Swift concurrency pool that
        // the suite's ~450 tests share with it on two cores, and in a fresh-clone CI rehearsal on
        // a slow day four calls of one suite found no answer within 10 s while every test around
        // them took ~40 s. Tests of deadlines set their own.
        let ctx = FlickrContext(apiKey: c.apiKey, sharedSecret: c.apiSecret,
                                oauthToken: token ? c.oauthToken : nil, oauthTokenSecret: token ? c.oauthTokenSecret : nil,
                                endpoints: Endpoints(baseURL: server.url), format: format, requestTimeout: 60,
                                uploadTimeout: 60, retryPolicy: retry, ratePolicy: .unlimited)
        let log = LogCapture()
        var logger = Logger(label: "test") { _ in log }
        logger.logLevel = .trace
        return SandboxHarness(server: server, client: FlickrClient(context: ctx, logger: logger), log: log)
    }

    func stop() async {
        try? await server.stop()
    }

    /// Runs `body` with a started harness and always stops the server.
    static func with<T>(_ configuration: SandboxConfiguration = SandboxConfiguration(), token: Bool = true,
                        retry: RetryPolicy = RetryPolicy(maxAttempts: 1), format: FlickrContext.Format = .xml,
                        eventLoopGroup: (any EventLoopGroup)? = nil,
                        _ body: (SandboxHarness) async throws -> T) async throws -> T {
        let h = try await start(configuration, token: token, retry: retry, format: format, eventLoopGroup: eventLoopGroup)
        do {
            let result = try await body(h)
            await h.stop()
            return result
        } catch {
            await h.stop()
            throw error
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
