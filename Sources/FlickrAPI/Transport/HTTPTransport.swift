import AsyncHTTPClient
import FlickrProtocol
import Foundation
import NIOCore
import NIOHTTP1
import Tracing

/// One HTTP exchange: what to send.
struct HTTPRequestSpec: Sendable {
    var method: HTTPMethod
    var url: String
    var headers: [(String, String)] = []
    var body: Body?
    var timeout: Double
    /// For traces: the request with secrets masked.
    var redactedSummary: String
    /// The OAuth base string signed for this request, to show beside Flickr's `debug_sbs`.
    var signedBaseString: String?
    /// For other transports (``FlickrTransportRequest``): the URL without the query, the
    /// parameters sent, and an upload's file.
    var endpoint = ""
    var parameters: [(String, String)] = []
    var file: FlickrTransportFile?

    /// What follows the head: a body known in full before sending (a form), or one streamed
    /// as it is read (an upload).
    enum Body: Sendable {
        case whole(ByteBuffer)
        case streamed(HTTPClientRequest.Body)
    }
}

/// What came back.
struct HTTPResult: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    var contentType: String? { headers.first(name: "content-type") }
    var retryAfter: String? { headers.first(name: "retry-after") }
}

/// AsyncHTTPClient underneath every call: one shared client (keep-alive pool), a deadline per
/// request, and Task cancellation aborting the request.
struct HTTPTransport: Sendable {
    /// The client given, if any; nil: ``sharedClient``.
    private let given: HTTPClient?
    /// Largest response body accepted (Flickr answers are far smaller).
    var maxBodyBytes = 256 * 1024 * 1024

    /// `client` nil: the shared one, made at the first request rather than here — making it
    /// starts the event loop threads, which a process that makes no request (`flickr -e ''`, a
    /// script's first lines) should not wait for.
    init(client: HTTPClient? = nil) {
        given = client
        givenHome = client?.eventLoopGroup.next()
    }

    /// The client requests go through.
    var client: HTTPClient { given ?? Self.sharedClient }

    /// The event loop of the given client that runs this transport's whole-body requests.
    private let givenHome: (any EventLoop)?

    /// The event loop that runs the delegate of this transport's whole-body requests and gets
    /// the connections made for them (`sendWhole`).
    var homeLoop: any EventLoop { givenHome ?? Self.sharedHome }

    /// The shared client's event loop for whole-body requests: one for every transport that uses
    /// the shared client, so that their keep-alive connections are found where they are asked for.
    static let sharedHome: any EventLoop = sharedClient.eventLoopGroup.next()

    /// The process-wide client every ``FlickrClient`` shares unless given its own: keep-alive
    /// pool, redirects followed, and a refused connection reported at once (the retry policy, not
    /// the pool, decides whether to try again). Never shut down, like `HTTPClient.shared`.
    ///
    /// Spans for tracing only when a tracer was bootstrapped (`InstrumentationSystem`) before the
    /// first request: AsyncHTTPClient otherwise makes a span for every request from the no-op
    /// tracer and, to fill in its attributes, parses the URL a second time — 3-5 % of a call's
    /// CPU against a loopback server, for nothing.
    static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 10, allowCycles: false),
            timeout: .init(connect: .seconds(15)),
            connectionPool: .init(idleTimeout: .seconds(60)))
        configuration.connectionPool.retryConnectionEstablishment = false
        if InstrumentationSystem.tracer is NoOpTracer { configuration.tracing.tracer = nil }
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    func send(_ spec: HTTPRequestSpec, method flickrMethod: String?) async throws(FlickrError) -> HTTPResult {
        do {
            try Task.checkCancellation()
            let deadline = NIODeadline.now() + .milliseconds(Int64(spec.timeout * 1000))
            if case .streamed(let body) = spec.body { return try await sendStreaming(spec, body: body, deadline: deadline) }
            return try await sendWhole(spec, deadline: deadline)
        } catch {
            throw Self.map(error, method: flickrMethod, timeout: spec.timeout, url: spec.url)
        }
    }

    /// A request whose body (if any) is in memory: AsyncHTTPClient's delegate interface, the
    /// answer gathered on the event loop, one resumption of the caller when it is complete.
    ///
    /// Why not `execute(_:deadline:)` as for streamed bodies: that interface starts an
    /// unstructured Task per request (its cancellation actor), which wakes a pool thread, and its
    /// body is an async sequence read in a task group beside a watchdog. Here the deadline is
    /// the client's own and covers the body; no task is made.
    ///
    /// Why the request is started on the event loop (one hand-over), not from the caller's
    /// thread: started from outside, its deadline timer, its queueing, its connection's write and
    /// the caller's callback each hand a job to the loop, and each wakes the loop's thread —
    /// five wake-ups before the request went out, each preempting the caller on its CPU.
    ///
    /// The delegate runs on one event loop per transport (``homeLoop``), which also gets the
    /// connections made for it, so a call is not handed from one event loop to the other.
    private func sendWhole(_ spec: HTTPRequestSpec, deadline: NIODeadline) async throws -> HTTPResult {
        var body: HTTPClient.Body?
        if case .whole(let bytes) = spec.body { body = .byteBuffer(bytes) }
        let request = try HTTPClient.Request(url: spec.url, method: spec.method, headers: Self.headers(of: spec), body: body)
        let (client, loop, limit) = (self.client, homeLoop, maxBodyBytes)
        let pending = PendingExchange()
        let response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPClient.Response, any Error>) in
                loop.execute {
                    let task = client.execute(request: request, delegate: ResponseAccumulator(request: request, maxBodySize: limit),
                                              eventLoop: .delegate(on: loop), deadline: deadline)
                    task.futureResult.whenComplete { continuation.resume(with: $0) }
                    if !pending.keep(task) { task.cancel() }
                }
            }
        } onCancel: {
            pending.cancel()
        }
        var bytes = response.body ?? ByteBuffer()
        return HTTPResult(status: Int(response.status.code), headers: response.headers,
                          body: bytes.readBytes(length: bytes.readableBytes) ?? [])
    }

    /// A request whose body is streamed (an upload): AsyncHTTPClient's async interface, the
    /// answer read under the same deadline (its own ends with the head).
    private func sendStreaming(_ spec: HTTPRequestSpec, body: HTTPClientRequest.Body, deadline: NIODeadline) async throws -> HTTPResult {
        var request = HTTPClientRequest(url: spec.url)
        request.method = spec.method
        request.headers = Self.headers(of: spec)
        request.body = body
        let response = try await client.execute(request, deadline: deadline)
        // An answer that stalls halfway would otherwise wait for the server forever.
        let limit = maxBodyBytes
        let bytes = try await Self.watched(by: .deadline(deadline), on: client.eventLoopGroup.any(),
                                           timeoutError: { HTTPClientError.deadlineExceeded }) { _ in
            var buffer = try await response.body.collect(upTo: limit)
            return buffer.readBytes(length: buffer.readableBytes) ?? []
        }
        return HTTPResult(status: Int(response.status.code), headers: response.headers, body: bytes)
    }

    /// The User-Agent every request sends (downloads too).
    static let userAgent = "SwiftFlickr/0.1"

    /// The headers `spec` is sent with: its own, and the User-Agent.
    private static func headers(of spec: HTTPRequestSpec) -> HTTPHeaders {
        var headers = HTTPHeaders(spec.headers)
        headers.replaceOrAdd(name: "User-Agent", value: userAgent)
        return headers
    }

    /// Transport failures → error kinds a user can act on, each a sentence naming the server
    /// (`host:port` of `url`) and what to check.
    static func map(_ error: any Error, method: String?, timeout: Double, url: String = "") -> FlickrError {
        if let e = error as? FlickrError { return e }
        if error is CancellationError || Task.isCancelled {
            return FlickrError(kind: .cancelled, message: "cancelled", method: method)
        }
        let server = Self.server(of: url)
        let noAnswer = FlickrError(kind: .timeout, message: "no answer from \(server) within \(FlickrError.format(timeout)) s",
                                   method: method)
        if let idle = error as? IdleTimeout {
            return FlickrError(kind: .timeout, message: "\(server) sent nothing for \(FlickrError.format(idle.seconds)) s", method: method)
        }
        if let e = error as? HTTPClientError {
            switch e {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .getConnectionFromPoolTimeout:
                return noAnswer
            case .connectTimeout:
                return Self.unreachable(.timeout, "could not connect to \(server) in time (is the host reachable?)", method)
            case .cancelled:
                return FlickrError(kind: .cancelled, message: "cancelled", method: method)
            case .remoteConnectionClosed:
                return FlickrError(kind: .network, message: "\(server) closed the connection before answering in full", method: method)
            case .invalidURL, .emptyHost, .emptyScheme:
                return FlickrError(kind: .usage, message: "bad endpoint URL \(url): " + Endpoints.expectedForm, method: method)
            default:
                if "\(e)".contains("unsupportedScheme") {
                    return FlickrError(kind: .usage, message: "bad endpoint URL \(url): " + Endpoints.expectedForm, method: method)
                }
            }
        }
        if let e = error as? ChannelError, e == .ioOnClosedChannel {
            var notSent = FlickrError(kind: .network, message: "\(server) had closed the connection before the request went out",
                                      method: method)
            notSent.requestNotSent = true
            return notSent
        }
        if error is NIOTooManyBytesError || error is ResponseAccumulator.ResponseTooBigError {
            return FlickrError(kind: .http, message: "response larger than the client accepts", method: method)
        }
        if let e = error as? IOError, e.errnoCode == ECONNREFUSED {
            return Self.unreachable(.network, "cannot connect to \(server): connection refused "
                                    + "(is the server running, and is the endpoint right?)", method)
        }
        if let e = error as? IOError, e.errnoCode == EHOSTUNREACH || e.errnoCode == ENETUNREACH || e.errnoCode == ENETDOWN {
            return Self.unreachable(.network, "cannot connect to \(server): \(String(cString: strerror(e.errnoCode))) "
                                    + "(check this machine's network)", method)
        }
        let text = String(describing: error)
        let type = String(reflecting: Swift.type(of: error))
        if error is SocketAddressError || text.hasPrefix("DNS error") || text.contains("UnknownHost") {
            return Self.unreachable(.network, "cannot resolve the host name of \(server) "
                                    + "(check its spelling and this machine's network and DNS)", method)
        }
        if type.contains("NIOSSL") || type.contains("BoringSSL") || text.contains("handshakeFailed") || text.contains("BoringSSL") {
            return FlickrError(kind: .network, message: "the TLS handshake with \(server) failed "
                               + "(does it speak https? check the endpoint's scheme and this machine's clock and CA certificates): "
                               + Self.firstLine(text), method: method)
        }
        if text.contains("connectTimeout") {
            return Self.unreachable(.timeout, "could not connect to \(server) in time (is the host reachable?)", method)
        }
        if text.contains("timedOut") { return noAnswer }
        if text.contains("Connection refused") || text.contains("errno: 111") {
            return Self.unreachable(.network, "cannot connect to \(server): connection refused "
                                    + "(is the server running, and is the endpoint right?)", method)
        }
        if text.contains("No route to host") || text.contains("Network is unreachable") {
            return Self.unreachable(.network, "cannot connect to \(server): \(Self.firstLine(text)) (check this machine's network)", method)
        }
        if text.contains("reset") {
            return FlickrError(kind: .network, message: "\(server) reset the connection", method: method)
        }
        return FlickrError(kind: .network, message: "network failure talking to \(server): \(Self.firstLine(text))", method: method)
    }

    /// An error of a connection that was never made: nothing of the request was sent
    /// (``FlickrError/unreachable``).
    static func unreachable(_ kind: FlickrError.Kind, _ message: String, _ method: String?) -> FlickrError {
        var error = FlickrError(kind: kind, message: message, method: method)
        error.unreachable = true
        return error
    }

    /// `host:port` of a URL, for messages (the URL itself when it has no host).
    static func server(of url: String) -> String {
        guard let c = URLComponents(string: url), let host = c.host, !host.isEmpty else { return url.isEmpty ? "the server" : url }
        let port = c.port ?? (c.scheme?.lowercased() == "https" ? 443 : 80)
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return (bare.contains(":") ? "[\(bare)]" : bare) + ":\(port)"
    }

    private static func firstLine(_ text: String) -> String {
        String(text.prefix { $0 != "\n" }.prefix(200))
    }
}
