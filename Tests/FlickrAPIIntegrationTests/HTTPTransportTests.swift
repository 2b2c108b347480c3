import AsyncHTTPClient
import FlickrProtocol
import FlickrSandbox
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing
import FlickrTestSupport
@testable import FlickrAPI

/// The transport's two ways to send, against the sandbox: a body known in full (a form, or
/// none) through AsyncHTTPClient's delegate interface, and a streamed one (an upload, which
/// UploadTests and LargeUploadTests cover) through its async interface.
@Suite(.timeLimit(.minutes(2)), .tags(.integration)) struct HTTPTransportTests {
    /// An unsigned REST request: the sandbox answers an echo with the API key alone. Its
    /// deadline is 60 s, as SandboxHarness gives calls: on a slow day, with the suite's tests
    /// sharing two cores, an echo found no answer within 10 s.
    static func echo(_ server: FlickrSandboxServer, verb: HTTPMethod, word: String) -> HTTPRequestSpec {
        let query = FormEncoding.serialize([("method", "flickr.test.echo"), ("api_key", server.credentials.apiKey), ("word", word)])
        let rest = server.url + "/services/rest/"
        if verb == .GET {
            return HTTPRequestSpec(method: .GET, url: rest + "?" + query, timeout: 60, redactedSummary: "GET echo")
        }
        return HTTPRequestSpec(method: .POST, url: rest, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                               body: .whole(ByteBuffer(string: query)), timeout: 60, redactedSummary: "POST echo")
    }

    /// A form POST and a GET come back whole; an answer over the transport's limit fails as a
    /// response too large (not a network failure, not a truncated body), and the same transport
    /// then answers again.
    @Test func wholeBodiesAndTheirLimit() async throws {
        try await SandboxWorld.with { sandbox in
            let server = try sandbox.inProcessServer()
            var transport = HTTPTransport()
            for verb in [HTTPMethod.GET, .POST] {
                let answer = try await transport.send(Self.echo(server, verb: verb, word: "word-\(verb.rawValue)"), method: "flickr.test.echo")
                let text = String(decoding: answer.body, as: UTF8.self)
                #expect(answer.status == 200 && text.contains("word-\(verb.rawValue)"), "\(verb): \(text)")
            }
            transport.maxBodyBytes = 64
            do throws(FlickrError) {
                let answer = try await transport.send(Self.echo(server, verb: .POST, word: String(repeating: "x", count: 500)),
                                                      method: "flickr.test.echo")
                Issue.record("an answer of \(answer.body.count) bytes got through a limit of 64")
            } catch {
                #expect(error.kind == .http && error.message == "response larger than the client accepts", "\(error)")
            }
            transport.maxBodyBytes = 1 << 20
            let again = try await transport.send(Self.echo(server, verb: .GET, word: "again"), method: "flickr.test.echo")
            #expect(String(decoding: again.body, as: UTF8.self).contains("again"))
        }
    }

    /// Cancelling the task that waits cancels the request: the call ends as cancelled soon
    /// after, not when the sandbox (answering after 20 s) would have answered. The sandbox and
    /// the client have event loops of their own: on the ones the suite shares, another test's
    /// work can hold a loop for seconds on a loaded machine.
    @Test func cancellingTheCallerCancelsTheRequest() async throws {
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = SandboxConfiguration()
        configuration.latencyMilliseconds = 20_000
        try await SandboxWorld.with(configuration, eventLoopGroup: loops) { sandbox in
            let server = try sandbox.inProcessServer()
            let clientLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let http = HTTPClient(eventLoopGroup: clientLoops)
            let transport = HTTPTransport(client: http)
            let spec = Self.echo(server, verb: .GET, word: "slow")
            let clock = ContinuousClock()
            let call = Task { () -> FlickrError? in
                do throws(FlickrError) {
                    _ = try await transport.send(spec, method: "flickr.test.echo")
                    return nil
                } catch {
                    return error
                }
            }
            // Cancelled once the request is on its way (the sandbox's access log is written after
            // the answer, so the connection is what can be seen).
            let waited = clock.now
            while server.connectionCount() == 0, clock.now - waited < .seconds(10) { try await Task.sleep(for: .milliseconds(2)) }
            let cancelled = clock.now
            call.cancel()
            let error = await call.value
            #expect(error?.kind == .cancelled, "\(String(describing: error))")
            #expect(clock.now - cancelled < .seconds(10), "took \(clock.now - cancelled) after the cancel")
            try await http.shutdown()
            try await clientLoops.shutdownGracefully()
        }
        try await loops.shutdownGracefully()
    }
}
