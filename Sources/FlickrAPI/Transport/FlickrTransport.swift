import AsyncHTTPClient
import FlickrProtocol
import Foundation
import NIOCore
import NIOHTTP1

/// What carries a ``FlickrClient``'s requests: every API call, upload, replace, OAuth step and
/// image download goes through one ``send(_:)``. The client's own is ``FlickrNetworkTransport``
/// (HTTP); the `FlickrAPITesting` product has transports that record a run to a cassette,
/// replay one offline, or serve an in-process sandbox (docs/CASSETTES.md).
///
/// A transport sees each request after it was signed: ``FlickrTransportRequest/parameters``
/// hold the signature, nonce and timestamp too, and ``FlickrTransportRequest/secrets`` lists
/// the credentials a transport that writes anything down must leave out. Retries, rate
/// limiting and the classification of answers stay in the client, around the transport: a
/// transport answers what the server answered (an HTTP 500 is a response, not an error) and
/// throws ``FlickrError`` only when there is no answer.
public protocol FlickrTransport: Sendable {
    /// Sends `request` and returns the server's answer, whatever its status.
    /// - Throws: ``FlickrError`` only when no answer came (`network`, `timeout`, `cancelled`, or
    ///   `usage` for a request that cannot be sent).
    func send(_ request: FlickrTransportRequest) async throws(FlickrError) -> FlickrTransportResponse
}

/// One request as the client sends it.
public struct FlickrTransportRequest: Sendable {
    /// What is asked: a method (`flickr.photos.search`), `upload`, `replace`, an OAuth step
    /// (`oauth/request_token`, `oauth/access_token`), or `download` (an image or video file).
    public var service: String
    /// `GET` or `POST`.
    public var httpMethod: String
    /// The URL without the query string (for `download`, the whole URL).
    public var endpoint: String
    /// The parameters in the query string or the form body, in the order sent: the method's
    /// arguments, `method`, `format`, and the authentication (`api_key`, `oauth_*`,
    /// `api_sig`…). OAuth parameters sent in an `Authorization` header are in ``headers``.
    public var parameters: [(String, String)]
    /// Request headers the client sets (`Authorization`, `Content-Type`).
    public var headers: [(String, String)]
    /// The file of an upload or replace (its other form fields are in ``parameters``).
    public var file: FlickrTransportFile?
    /// Seconds the client gives the exchange.
    public var timeout: Double
    /// The credentials in force (API key, secret, tokens): values never to be written down.
    public var secrets: [String]

    /// How the network transport sends it.
    var spec: HTTPRequestSpec

    /// A request for ``FlickrNetworkTransport``: a GET carries `parameters` in the query, a
    /// POST as a urlencoded form.
    public init(service: String, httpMethod: String = "GET", endpoint: String, parameters: [(String, String)] = [],
                headers: [(String, String)] = [], timeout: Double = 30, secrets: [String] = []) {
        let query = FormEncoding.serialize(parameters)
        var spec = HTTPRequestSpec(method: httpMethod == "POST" ? .POST : .GET, url: endpoint, headers: headers, body: nil,
                                   timeout: timeout, redactedSummary: "\(httpMethod) \(endpoint)")
        if httpMethod == "POST" {
            spec.headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            spec.body = .whole(ByteBuffer(string: query))
        } else if !query.isEmpty {
            spec.url = endpoint + (endpoint.contains("?") ? "&" : "?") + query
        }
        spec.endpoint = endpoint
        spec.parameters = parameters
        self.init(spec: spec, service: service, secrets: secrets)
    }

    init(spec: HTTPRequestSpec, service: String, secrets: [String]) {
        self.spec = spec
        self.service = service
        httpMethod = spec.method.rawValue
        endpoint = spec.endpoint.isEmpty ? spec.url : spec.endpoint
        parameters = spec.parameters
        headers = spec.headers
        file = spec.file
        timeout = spec.timeout
        self.secrets = secrets.filter { !$0.isEmpty }
    }
}

/// The file part of an upload: its name and type as sent, and its bytes, which can be read
/// again from the start as often as needed (a recorder digests them before they are sent).
public struct FlickrTransportFile: Sendable {
    /// The file name sent in the part's `Content-Disposition`.
    public var filename: String
    /// The part's `Content-Type` (`image/jpeg`).
    public var mimeType: String
    /// The size announced, when known before reading.
    public var length: Int64?
    let open: @Sendable () -> MultipartBody.ContentIterator

    /// Calls `body` with each chunk of the file, from the first byte to the last.
    public func read(_ body: ([UInt8]) throws -> Void) async throws {
        let iterator = open()
        while var chunk = try await iterator.next() {
            try body(chunk.readBytes(length: chunk.readableBytes) ?? [])
        }
    }
}

/// One answer: the status, the headers and the whole body.
public struct FlickrTransportResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The response headers, in the order received.
    public var headers: [(String, String)]
    /// The whole body.
    public var body: [UInt8]

    /// An answer with `status`, `headers` and `body`.
    public init(status: Int, headers: [(String, String)] = [], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header of that name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }
}

/// HTTP over AsyncHTTPClient: what a ``FlickrClient`` uses unless given another transport.
/// Wrap it to watch or record the exchanges (`FlickrAPITesting`'s `RecordingTransport`).
public struct FlickrNetworkTransport: FlickrTransport {
    let http: HTTPTransport

    /// `httpClient` defaults to the process-wide client every ``FlickrClient`` shares.
    public init(httpClient: HTTPClient? = nil) {
        http = HTTPTransport(client: httpClient)
    }

    /// Sends `request` over HTTP and returns the answer, whatever its status.
    public func send(_ request: FlickrTransportRequest) async throws(FlickrError) -> FlickrTransportResponse {
        let result = try await http.send(request.spec, method: request.service)
        return FlickrTransportResponse(status: result.status, headers: result.headers.map { ($0.name, $0.value) }, body: result.body)
    }
}
