import AsyncHTTPClient
import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import NIOCore
import NIOHTTP1

/// A response as the tests look at it.
struct HTTPResult: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: String
    var bytes: [UInt8]

    func header(_ name: String) -> String? { headers.first(name: name) }
}

/// Plain HTTP over loopback (AsyncHTTPClient; never the FlickrAPI client).
enum TestHTTP {
    /// One client for the whole test process; redirects are not followed so 302s can be seen.
    /// The connect bound is the requests' own 30 s: a new connection waits for the event loops
    /// the process shares with every in-process sandbox, which took more than 5 s while the
    /// whole suite starts at once (getConnectionFromPoolTimeout in two CI rehearsals).
    static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(30), read: .seconds(30))))

    static func send(_ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = [],
                     body: [UInt8]? = nil, timeout: TimeAmount = .seconds(30)) async throws -> HTTPResult {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (k, v) in headers { request.headers.add(name: k, value: v) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: timeout)
        let buffer = try await response.body.collect(upTo: 64 << 20)
        let bytes = Array(buffer.readableBytesView)
        return HTTPResult(status: Int(response.status.code), headers: response.headers,
                          body: String(decoding: bytes, as: UTF8.self), bytes: bytes)
    }

    static func get(_ url: String) async throws -> HTTPResult { try await send(url) }

    static func postForm(_ url: String, _ pairs: [(String, String)], headers: [(String, String)] = []) async throws -> HTTPResult {
        try await send(url, method: .POST, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
                       body: Array(FormEncoding.serialize(pairs).utf8))
    }
}

/// Calls the sandbox the way a Flickr client does: OAuth-signed (header) or legacy.
struct SandboxClient: Sendable {
    /// `http://HOST:PORT` of the sandbox.
    let url: String
    let credentials: SandboxCredentials
    var token: String?
    var tokenSecret: String?

    init(_ server: FlickrSandboxServer, token: String? = nil, tokenSecret: String? = nil) {
        url = server.url
        credentials = server.credentials
        self.token = token
        self.tokenSecret = tokenSecret
    }

    /// The default user's write token.
    /// A client of a sandbox running in another process (its printed url and credentials),
    /// with the default user's write token.
    init(url: String, credentials: SandboxCredentials) {
        self.url = url
        self.credentials = credentials
        token = credentials.oauthToken
        tokenSecret = credentials.oauthTokenSecret
    }

    static func writer(_ server: FlickrSandboxServer) -> SandboxClient {
        SandboxClient(server, token: server.credentials.oauthToken, tokenSecret: server.credentials.oauthTokenSecret)
    }

    /// An OAuth-signed REST call; `verb` POST sends the parameters as a form body.
    func call(_ method: String, _ params: [(String, String)] = [], verb: String = "POST", json: Bool = false,
              path: String = "/services/rest/") async throws -> HTTPResult {
        var pairs = [("method", method)] + params
        if json { pairs += [("format", "json"), ("nojsoncallback", "1")] }
        let url = self.url + path
        let oauth = OAuthParameters.fresh(consumerKey: credentials.apiKey, token: token)
        let signed = OAuthSignature.sign(method: verb, url: url, parameters: pairs + oauth.pairs,
                                         consumerSecret: credentials.apiSecret, tokenSecret: tokenSecret)
        let header = oauth.authorizationHeader(signature: signed.signature)
        if verb == "POST" {
            return try await TestHTTP.postForm(url, pairs, headers: [("Authorization", header)])
        }
        return try await TestHTTP.send(url + "?" + FormEncoding.serialize(pairs), headers: [("Authorization", header)])
    }

    /// A call expected to succeed: the XML payload (without the envelope) as a string.
    func ok(_ method: String, _ params: [(String, String)] = [], verb: String = "POST") async throws -> String {
        let r = try await call(method, params, verb: verb)
        guard r.status == 200, r.body.contains("<rsp stat=\"ok\">") else {
            throw TestFailure("\(method) failed: \(r.status) \(r.body)")
        }
        return r.body
    }

    /// A call answered as plain JSON, decoded.
    func json(_ method: String, _ params: [(String, String)] = [], verb: String = "POST") async throws -> [String: Any] {
        let r = try await call(method, params, verb: verb, json: true)
        guard let object = try JSONSerialization.jsonObject(with: Data(r.bytes)) as? [String: Any] else {
            throw TestFailure("\(method): not a JSON object: \(r.body)")
        }
        return object
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}

/// Runs one test body against a fresh in-process sandbox (``SandboxWorld``), stopping it afterwards.
func withSandbox<T>(_ configuration: SandboxConfiguration = SandboxConfiguration(),
                    _ body: (FlickrSandboxServer) async throws -> T) async throws -> T {
    try await SandboxWorld.with(configuration) { try await body(try $0.inProcessServer()) }
}

/// Small XML helpers for assertions.
enum XMLProbe {
    /// Values of `attribute` on every `<element …>` in `xml`.
    static func attributes(_ attribute: String, of element: String, in xml: String) -> [String] {
        var out: [String] = []
        var rest = Substring(xml)
        while let start = rest.range(of: "<\(element) ") ?? rest.range(of: "<\(element)>") {
            let tagEnd = rest[start.lowerBound...].firstIndex(of: ">") ?? rest.endIndex
            let tag = rest[start.lowerBound..<tagEnd]
            if let a = tag.range(of: " \(attribute)=\"") {
                let valueStart = a.upperBound
                if let q = tag[valueStart...].firstIndex(of: "\"") { out.append(String(tag[valueStart..<q])) }
            }
            rest = rest[tagEnd...]
        }
        return out
    }

    /// Text of every `<element …>text</element>`.
    static func texts(of element: String, in xml: String) -> [String] {
        var out: [String] = []
        var rest = Substring(xml)
        while let start = rest.range(of: "<\(element)") {
            guard let gt = rest[start.upperBound...].firstIndex(of: ">") else { break }
            let after = rest.index(after: gt)
            if rest[rest.index(before: gt)] == "/" || !(rest[start.upperBound] == " " || rest[start.upperBound] == ">") {
                rest = rest[after...]
                continue
            }
            guard let close = rest[after...].range(of: "</\(element)>") else { break }
            out.append(String(rest[after..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return out
    }

    static func errorCode(_ xml: String) -> Int? {
        attributes("code", of: "err", in: xml).first.flatMap { Int($0) }
    }
}
