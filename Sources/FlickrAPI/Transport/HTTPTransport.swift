import AsyncHTTPClient
import FlickrProtocol
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP exchange: what to send.
struct HTTPRequestSpec: Sendable {
    var method: HTTPMethod
    var url: String
    var headers: [(String, String)] = []
    var body: HTTPClientRequest.Body?
    var timeout: Double
    /// For traces: the request with secrets masked.
    var redactedSummary: String
    /// The OAuth base string signed for this request, to show beside Flickr's `debug_sbs`.
    var signedBaseString: String?
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
    let client: HTTPClient
    /// Largest response body accepted (Flickr answers are far smaller).
    var maxBodyBytes = 256 * 1024 * 1024

    init(client: HTTPClient = HTTPTransport.sharedClient) {
        self.client = client
    }

    /// The process-wide client every ``FlickrClient`` shares unless given its own: keep-alive
    /// pool, redirects followed, and a refused connection reported at once (the retry policy, not
    /// the pool, decides whether to try again). Never shut down, like `HTTPClient.shared`.
    static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 10, allowCycles: false),
            timeout: .init(connect: .seconds(15)),
            connectionPool: .init(idleTimeout: .seconds(60)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    func send(_ spec: HTTPRequestSpec, method flickrMethod: String?) async throws(FlickrError) -> HTTPResult {
        var request = HTTPClientRequest(url: spec.url)
        request.method = spec.method
        for (k, v) in spec.headers { request.headers.add(name: k, value: v) }
        request.headers.replaceOrAdd(name: "User-Agent", value: "SwiftFlickr/0.1")
        if let body = spec.body { request.body = body }
        do {
            try Task.checkCancellation()
            let deadline = NIODeadline.now() + .milliseconds(Int64(spec.timeout * 1000))
            let response = try await client.execute(request, deadline: deadline)
            var buffer = try await response.body.collect(upTo: maxBodyBytes)
            let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
            return HTTPResult(status: Int(response.status.code), headers: response.headers, body: bytes)
        } catch {
            throw Self.map(error, method: flickrMethod, timeout: spec.timeout)
        }
    }

    /// Transport failures → error kinds a user can act on.
    static func map(_ error: any Error, method: String?, timeout: Double) -> FlickrError {
        if let e = error as? FlickrError { return e }
        if error is CancellationError || Task.isCancelled {
            return FlickrError(kind: .cancelled, message: "cancelled", method: method)
        }
        if let e = error as? HTTPClientError {
            switch e {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout, .getConnectionFromPoolTimeout:
                return FlickrError(kind: .timeout, message: "no answer within \(FlickrError.format(timeout)) s", method: method)
            case .cancelled:
                return FlickrError(kind: .cancelled, message: "cancelled", method: method)
            case .remoteConnectionClosed:
                return FlickrError(kind: .network, message: "the server closed the connection before answering in full", method: method)
            case .invalidURL, .emptyHost, .emptyScheme:
                return FlickrError(kind: .usage, message: "bad endpoint URL: \(e)", method: method)
            default:
                return FlickrError(kind: .network, message: "HTTP failure: \(e)", method: method)
            }
        }
        if error is NIOTooManyBytesError {
            return FlickrError(kind: .http, message: "response larger than the client accepts", method: method)
        }
        let text = String(describing: error)
        if text.contains("connectTimeout") || text.contains("timedOut") {
            return FlickrError(kind: .timeout, message: "no answer within \(FlickrError.format(timeout)) s", method: method)
        }
        return FlickrError(kind: .network, message: "network failure: \(text)", method: method)
    }
}
