import AsyncHTTPClient
@testable import FlickrSandbox
import Foundation
import NIOCore
import Testing
import FlickrTestSupport

@Suite("Fault injection, rate limit, latency", .timeLimit(.minutes(3)), .tags(.integration))
struct FaultTests {
    enum Outcome: Hashable { case ok, serverError, tooManyRequests, reset, truncated, html, other }

    /// One plain call, classified by what the client saw.
    static func classify(_ url: String) async -> Outcome {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        let response: HTTPClientResponse
        do { response = try await TestHTTP.client.execute(request, timeout: .seconds(10)) } catch { return .reset }
        let status = Int(response.status.code)
        let type = response.headers.first(name: "Content-Type") ?? ""
        let body: ByteBuffer
        do { body = try await response.body.collect(upTo: 1 << 20) } catch { return status == 200 ? .truncated : .other }
        let text = String(buffer: body)
        switch status {
        case 502, 503: return text.contains("<html") ? .serverError : .other
        case 429:
            return response.headers.first(name: "Retry-After") == "1"
                && text == "<html><body><h1>429 Too Many Requests</h1>\nYou have sent too many requests in a given amount of time.\n</body></html>"
                ? .tooManyRequests : .other
        case 200 where type.hasPrefix("text/html"): return .html
        case 200 where text.hasSuffix("</rsp>\n") && text.contains("<rsp stat=\"ok\">"): return .ok
        default: return .other
        }
    }

    @Test("Each fault kind at 0.1 over 1,000 calls lands within 4σ of 100")
    func faultRates() async throws {
        let spec = try FaultSpec.parse("5xx=0.1,429=0.1,reset=0.1,truncate=0.1,html=0.1")
        try await withSandbox(SandboxConfiguration(faults: spec)) { server in
            let url = server.url + "/services/rest/?method=flickr.test.echo&api_key=" + server.credentials.apiKey
            var counts: [Outcome: Int] = [:]
            let total = 1000
            try await withThrowingTaskGroup(of: Outcome.self) { group in
                var launched = 0
                for _ in 0..<8 {
                    group.addTask { await Self.classify(url) }
                    launched += 1
                }
                while let outcome = try await group.next() {
                    counts[outcome, default: 0] += 1
                    if launched < total {
                        group.addTask { await Self.classify(url) }
                        launched += 1
                    }
                }
            }
            print("fault counts over \(total) calls: \(counts.sorted { "\($0.key)" < "\($1.key)" })")
            let n = Double(total), p = 0.1
            let sigma = (n * p * (1 - p)).squareRoot()
            for kind in [Outcome.serverError, .tooManyRequests, .reset, .truncated, .html] {
                let c = Double(counts[kind, default: 0])
                #expect(abs(c - n * p) <= 4 * sigma, "\(kind): \(Int(c)) of \(total) (expected \(Int(n * p)) ± \(Int(4 * sigma)))")
            }
            let okSigma = (n * 0.5 * 0.5).squareRoot()
            #expect(abs(Double(counts[.ok, default: 0]) - n * 0.5) <= 4 * okSigma, "ok: \(counts[.ok, default: 0])")
            #expect(counts[.other, default: 0] == 0, "unexpected shapes: \(counts)")
        }
    }

    @Test("Faults hit the token endpoints, spare the authorize page, and can be switched off at run time")
    func faultsScope() async throws {
        try await withSandbox(SandboxConfiguration(faults: try FaultSpec.parse("5xx=1"))) { server in
            let rest = try await TestHTTP.get(server.url + "/services/rest/?method=flickr.test.echo&api_key=" + server.credentials.apiKey)
            #expect(rest.status == 502 || rest.status == 503)
            #expect(rest.body.contains("<!-- status code : \(rest.status) -->"))
            let authorize = try await TestHTTP.get(server.url + "/services/oauth/authorize?oauth_token=nope&perms=read")
            #expect(authorize.status == 400)
            let requestToken = try await TestHTTP.get(server.url + "/services/oauth/request_token?oauth_consumer_key=x")
            #expect(requestToken.status == 502 || requestToken.status == 503)
            await server.setFaults(.none)
            let again = try await TestHTTP.get(server.url + "/services/rest/?method=flickr.test.echo&api_key=" + server.credentials.apiKey)
            #expect(again.status == 200)
        }
    }

    @Test("--faults syntax errors are clear")
    func faultSpecParsing() throws {
        #expect(try FaultSpec.parse("5xx=0.1,html=0.02").probabilities == [.serverError: 0.1, .html: 0.02])
        #expect(try FaultSpec.parse("").probabilities.isEmpty)
        #expect(throws: SandboxError.self) { try FaultSpec.parse("boom=0.1") }
        #expect(throws: SandboxError.self) { try FaultSpec.parse("5xx=1.5") }
        #expect(throws: SandboxError.self) { try FaultSpec.parse("5xx") }
        #expect(throws: SandboxError.self) { try FaultSpec.parse("5xx=0.6,429=0.6") }
    }

    @Test("Beyond N calls per second the answer is 429 with Retry-After: 1")
    func rateLimit() async throws {
        try await withSandbox(SandboxConfiguration(rateLimit: 5)) { server in
            let url = server.url + "/services/rest/?method=flickr.test.echo&api_key=" + server.credentials.apiKey
            let start = Date()
            var statuses: [Int] = []
            var retryAfter: [String] = []
            // All at once, so that a loaded machine cannot spread them thinner than the limit.
            let results = try await withThrowingTaskGroup(of: HTTPResult.self) { group in
                for _ in 0..<20 { group.addTask { try await TestHTTP.get(url) } }
                var all: [HTTPResult] = []
                for try await r in group { all.append(r) }
                return all
            }
            for r in results {
                statuses.append(r.status)
                if r.status == 429 { retryAfter.append(r.header("Retry-After") ?? "") }
            }
            let elapsed = Date().timeIntervalSince(start)
            let ok = statuses.filter { $0 == 200 }.count
            // A sliding one-second window admits at most 5 calls in any second.
            #expect(ok >= 5)
            #expect(Double(ok) <= 5 * (elapsed.rounded(.up) + 1), "\(ok) accepted in \(elapsed) s")
            #expect(statuses.contains(429))
            #expect(retryAfter.allSatisfy { $0 == "1" })
            #expect(Set(statuses).isSubset(of: [200, 429]))
            await server.setRateLimit(nil)
            for _ in 0..<10 { #expect(try await TestHTTP.get(url).status == 200) }
        }
    }

    @Test("--latency delays every answer")
    func latency() async throws {
        // 1.5 s: the answer without latency must come sooner, which a busy machine's scheduling
        // delays (tens of milliseconds) cannot undo.
        try await withSandbox(SandboxConfiguration(latencyMilliseconds: 1500)) { server in
            let url = server.url + "/services/rest/?method=flickr.test.echo&api_key=" + server.credentials.apiKey
            let clock = ContinuousClock()
            let slow = try await clock.measure { _ = try await TestHTTP.get(url) }
            #expect(slow >= .milliseconds(1500))
            await server.setLatency(milliseconds: 0)
            // Faster once it is switched off (well under the injected delay).
            let fast = try await clock.measure { _ = try await TestHTTP.get(url) }
            #expect(fast < slow)
        }
    }

    @Test("105 and 106 answer Flickr's own errors with HTTP 200; 106 fails writes only, and the write does not happen")
    func transientAPIErrors() async throws {
        try await withSandbox(SandboxConfiguration()) { server in
            let client = SandboxClient.writer(server)
            let mine = try await client.ok("flickr.photos.search", [("user_id", "me"), ("per_page", "1")], verb: "GET")
            let photo = try #require(XMLProbe.attributes("id", of: "photo", in: mine).first)
            await server.setFaults(try FaultSpec.parse("105=1"))
            let xml = try await client.call("flickr.test.echo", [("a", "1")], verb: "GET")
            #expect(xml.status == 200 && XMLProbe.errorCode(xml.body) == 105 && xml.body.contains("Service currently unavailable"))
            let json = try await client.call("flickr.test.echo", [("a", "1")], verb: "GET", json: true)
            #expect(json.status == 200 && json.body.contains("\"code\":105"), "\(json.body)")
            await server.setFaults(try FaultSpec.parse("106=1"))
            let write = try await client.call("flickr.photos.addTags", [("photo_id", photo), ("tags", "fault106")])
            #expect(write.status == 200 && XMLProbe.errorCode(write.body) == 106 && write.body.contains("Write operation failed"))
            let read = try await client.call("flickr.photos.getInfo", [("photo_id", photo)], verb: "GET")
            #expect(read.status == 200 && read.body.contains("<rsp stat=\"ok\">") && !read.body.contains("fault106"),
                    "a read answers normally and the failed write left no tag")
            await server.setFaults(.none)
        }
    }

    @Test("flickr.test.echo leaves out argument names that are not XML names, so its answer stays well-formed")
    func echoOfOddNames() async throws {
        try await withSandbox(SandboxConfiguration()) { server in
            let r = try await SandboxClient.writer(server).call("flickr.test.echo", [("a b", "c"), ("1x", "d"), ("ok_name", "e")], verb: "GET")
            #expect(r.status == 200 && r.body.contains("<ok_name>e</ok_name>") && !r.body.contains("<a b>") && !r.body.contains("<1x>"))
            #expect(throws: Never.self) { _ = try XMLNode.read(r.body) }
            #expect(XMLNode.isName("photo_id") && XMLNode.isName("é.x-1") && !XMLNode.isName("a b") && !XMLNode.isName("1x") && !XMLNode.isName(""))
        }
    }
}
