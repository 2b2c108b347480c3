import FlickrProtocol
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A one-shot HTTP server on 127.0.0.1 that catches Flickr's OAuth redirect
/// (`/callback?oauth_token=…&oauth_verifier=…`) during a desktop login.
///
/// Only loopback is bound. Requests without the two parameters (favicon, a stray probe) get a
/// 404 and the receiver keeps waiting; a browser speaking TLS to it just gets the connection
/// closed. The one expected request is the last: once it has come, the listening socket closes,
/// so nothing else on the machine can reach the receiver.
public final class LoopbackCallbackReceiver: Sendable {
    /// The URL to pass as `oauth_callback`.
    public let callbackURL: String
    private let channel: any Channel
    private let results: AsyncStream<(token: String, verifier: String)>

    private init(channel: any Channel, callbackURL: String, results: AsyncStream<(token: String, verifier: String)>) {
        self.channel = channel
        self.callbackURL = callbackURL
        self.results = results
    }

    /// Starts listening on `127.0.0.1:port` (0 = any free port).
    public static func start(port: Int = 0) async throws -> LoopbackCallbackReceiver {
        let (stream, continuation) = AsyncStream<(token: String, verifier: String)>.makeStream()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                // On the channel's event loop: the handler is built and added there and never leaves it.
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(CallbackHandler(continuation: continuation))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        let actualPort = channel.localAddress?.port ?? port
        return LoopbackCallbackReceiver(channel: channel, callbackURL: "http://127.0.0.1:\(actualPort)/callback",
                                        results: stream)
    }

    /// Waits for the redirect; `.timeout` after `timeout` seconds, `.cancelled` if the task is.
    public func waitForCallback(timeout: Double) async throws(FlickrError) -> (token: String, verifier: String) {
        let results = self.results
        let outcome: Result<(token: String, verifier: String), FlickrError> = await withTaskGroup(
            of: Result<(token: String, verifier: String), FlickrError>?.self
        ) { group in
            group.addTask {
                for await r in results { return .success(r) }
                return .failure(FlickrError(kind: .cancelled, message: "callback receiver stopped", method: "oauth/authorize"))
            }
            group.addTask {
                do {
                    try await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                    return .failure(FlickrError(kind: .timeout, message: "no OAuth callback within \(FlickrError.format(timeout)) s",
                                                method: "oauth/authorize"))
                } catch {
                    return nil
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failure(FlickrError(kind: .cancelled, message: "cancelled", method: "oauth/authorize"))
        }
        return try outcome.get()
    }

    /// Returns once the listening socket is closed: after the expected request, or ``stop()``.
    public func waitUntilClosed() async {
        try? await channel.closeFuture.get()
    }

    /// Stops listening.
    public func stop() async {
        try? await channel.close()
    }
}

/// Answers each request; reports the first one carrying a token and a verifier.
private final class CallbackHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let continuation: AsyncStream<(token: String, verifier: String)>.Continuation

    init(continuation: AsyncStream<(token: String, verifier: String)>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let query = head.uri.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        let pairs = Dictionary(FormEncoding.parse(query), uniquingKeysWith: { a, _ in a })
        let status: HTTPResponseStatus
        let page: String
        let expected = pairs["oauth_token"].flatMap { token in pairs["oauth_verifier"].map { (token, $0) } }
        if let (token, verifier) = expected {
            continuation.yield((token, verifier))
            continuation.finish()
            // Stop listening: the one request it waited for has come.
            context.channel.parent?.close(promise: nil)
            status = .ok
            page = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>SwiftFlickr</title></head>"
                + "<body><h1>Authorised</h1><p>You can close this window and return to the terminal.</p></body></html>"
        } else {
            status = .notFound
            page = "<!DOCTYPE html><html><body><p>Waiting for Flickr's redirect.</p></body></html>"
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(page.utf8.count))
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: page)))), promise: nil)
        // The context stays on its event loop, where the write completes.
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Not HTTP (e.g. a TLS ClientHello): drop this connection, keep listening.
        context.close(promise: nil)
    }
}
