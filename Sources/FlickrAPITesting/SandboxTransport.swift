import FlickrAPI
import FlickrSandbox
import Foundation

/// A transport served by a Flickr sandbox running inside the test process (``FlickrSandbox``
/// on 127.0.0.1, its default seed or a data file): a ``FlickrAPI/FlickrClient`` made with
/// ``makeClient()`` talks to it as its app and default user, with real signatures, uploads and
/// error answers, and nothing leaves the machine.
///
/// ```swift
/// import FlickrAPI
/// import FlickrAPITesting
/// import Testing
///
/// @Test func tagsAPhoto() async throws {
///     let sandbox = try await SandboxTransport.start()
///     defer { Task { try? await sandbox.stop() } }
///     let flickr = sandbox.makeClient()
///     let photos = try await flickr.call("flickr.photos.search", ["user_id": "me"])
///     let id = try #require(photos["photos.photo"]?.array?.first?["id"]?.string)
///     _ = try await flickr.call("flickr.photos.addTags", ["photo_id": id, "tags": "tested"])
/// }
/// ```
/// Wrap it in a ``RecordingTransport`` to make a cassette of a test's exchanges.
public final class SandboxTransport: FlickrTransport {
    /// The sandbox (steer it: faults, latency, rate limits, tokens).
    public let server: FlickrSandboxServer
    private let network: FlickrNetworkTransport

    private init(server: FlickrSandboxServer) {
        self.server = server
        network = FlickrNetworkTransport()
    }

    /// Starts a sandbox (by default on a free port of 127.0.0.1 with its built-in seed).
    public static func start(_ configuration: SandboxConfiguration = SandboxConfiguration()) async throws -> SandboxTransport {
        SandboxTransport(server: try await FlickrSandboxServer.start(configuration))
    }

    /// The sandbox's base URL (`http://127.0.0.1:PORT`).
    public var url: String { server.url }

    /// Its app and default user, its endpoints, no rate limit.
    public var context: FlickrContext { FlickrContext(sandbox: server) }

    /// A client of the sandbox as its default user; `through` wraps this transport (a
    /// ``RecordingTransport`` made with it as `inner`), or nil to use it directly.
    public func makeClient(through: (any FlickrTransport)? = nil) -> FlickrClient {
        FlickrClient(context: context, transport: through ?? self)
    }

    /// Sends `request` to the sandbox over loopback.
    /// - Throws: A `usage` ``FlickrAPI/FlickrError`` for a request to another endpoint (a client
    ///   whose context is not this sandbox's), else what the network transport throws.
    public func send(_ request: FlickrTransportRequest) async throws(FlickrError) -> FlickrTransportResponse {
        guard request.endpoint.hasPrefix(server.url) else {
            throw FlickrError(kind: .usage, message: "the sandbox transport serves \(server.url) only, not \(request.endpoint) "
                              + "(make the client with makeClient(), or give it the context of this transport)",
                              method: request.service)
        }
        return try await network.send(request)
    }

    /// Stops the sandbox.
    public func stop() async throws { try await server.stop() }
}
