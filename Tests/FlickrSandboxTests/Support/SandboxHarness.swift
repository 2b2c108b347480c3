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
    static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(30))))

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
    let server: FlickrSandboxServer
    var token: String?
    var tokenSecret: String?

    init(_ server: FlickrSandboxServer, token: String? = nil, tokenSecret: String? = nil) {
        self.server = server
        self.token = token
        self.tokenSecret = tokenSecret
    }

    /// The default user's write token.
    static func writer(_ server: FlickrSandboxServer) -> SandboxClient {
        SandboxClient(server, token: server.credentials.oauthToken, tokenSecret: server.credentials.oauthTokenSecret)
    }

    /// An OAuth-signed REST call; `verb` POST sends the parameters as a form body.
    func call(_ method: String, _ params: [(String, String)] = [], verb: String = "POST", json: Bool = false,
              path: String = "/services/rest/") async throws -> HTTPResult {
        var pairs = [("method", method)] + params
        if json { pairs += [("format", "json"), ("nojsoncallback", "1")] }
        let url = server.url + path
        let oauth = OAuthParameters.fresh(consumerKey: server.credentials.apiKey, token: token)
        let signed = OAuthSignature.sign(method: verb, url: url, parameters: pairs + oauth.pairs,
                                         consumerSecret: server.credentials.apiSecret, tokenSecret: tokenSecret)
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

/// Runs one test body against a fresh in-process sandbox, stopping it afterwards.
func withSandbox<T>(_ configuration: SandboxConfiguration = SandboxConfiguration(),
                    _ body: (FlickrSandboxServer) async throws -> T) async throws -> T {
    let server = try await FlickrSandboxServer.start(configuration)
    do {
        let result = try await body(server)
        try await server.stop()
        return result
    } catch {
        try? await server.stop()
        throw error
    }
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

/// Runs a Python helper from Tests/scripts with a time limit; stdout/stderr go to temp files
/// (no pipe can fill up). Never blocks a concurrency thread while waiting.
enum PythonRunner {
    static func run(_ script: String, _ arguments: [String], timeout: Double = 60) async throws -> (status: Int32, stdout: String, stderr: String) {
        let scriptURL = Fixtures.repository.appendingPathComponent("Tests/scripts/\(script)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-py-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let outURL = dir.appendingPathComponent("out"), errURL = dir.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", scriptURL.path] + arguments
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = dir.path  // flickrapi must not touch the real ~/.flickr
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = env
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { p in continuation.resume(returning: p.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if process.isRunning { kill(pid, SIGKILL) }
            }
        }
        return (status, (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}
