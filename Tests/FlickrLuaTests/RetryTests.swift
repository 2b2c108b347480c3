import FlickrAPI
import FlickrLua
import FlickrLuaSandbox
import FlickrSandbox
import FlickrTestSupport
import Foundation
import LuaKit
import Testing

/// A Lua call's answer goes into tables under the client's retry policy: a malformed answer is
/// retried like on the Swift client's path, blocking or inside flickr.map.
@Suite(.serialized, .timeLimit(.minutes(5)), .tags(.integration)) struct RetryTests {
    /// The sandbox's parse faults (`truncate`: a 200 whose body stops halfway) on a third of the
    /// answers: every call still gets its answer, after as many requests as it took.
    @Test func luaCallsAreRetriedAfterTruncatedAnswers() async throws {
        let config = try TemporaryDirectory()
        let (server, session) = try await FlickrLuaSandbox.start(options: Session.options(config: config.path))
        defer { session.close() }
        _ = try await session.run("flickr.configure{ retries = 12 }")
        await server.setFaults(try FaultSpec.parse("truncate=0.3"))
        let before = server.requestCount()
        let r = try await session.run("""
            for i = 1, 30 do assert(flickr.test.echo{ i = i }.i._text == tostring(i)) end
            local list = {}
            for i = 1, 30 do list[i] = i end
            local echoed = flickr.map(list, function(i) return flickr.test.echo{ i = i } end, { concurrency = 4 })
            for i = 1, 30 do assert(echoed[i].i._text == tostring(i)) end
            return #echoed
            """)
        let requests = server.requestCount() - before
        try? await server.stop()
        #expect(r == [.integer(30)])
        #expect(requests > 60, "60 calls took \(requests) requests: none was retried")
    }

    /// An answer that is complete but not well-formed XML (the sandbox's `malformed` fault: a
    /// control character in it) fails to parse on the Lua path, straight into tables: retried per
    /// the policy (3 attempts with retries = 2), then a parse error naming the method — as the
    /// Swift client does. Before, the Lua path gave up after the first answer.
    @Test func aMalformedAnswerIsRetriedOnTheLuaPath() async throws {
        let config = try TemporaryDirectory()
        let (server, session) = try await FlickrLuaSandbox.start(options: Session.options(config: config.path))
        defer { session.close() }
        let r = try await session.run("""
            flickr.configure{ retries = 2 }
            sandbox.faults("malformed=1")
            local function requests_of(f, ...)
              local before = sandbox.requests()
              local ok, e = pcall(f, ...)
              assert(not ok and e.kind == "parse" and e.method == "flickr.test.echo", tostring(e))
              assert(e.message:find("malformed response", 1, true), e.message)
              return sandbox.requests() - before
            end
            local blocking = requests_of(flickr.test.echo, { a = "x" })
            local mapped = requests_of(function()
              return flickr.map({ 1 }, function() return flickr.call("flickr.test.echo", { a = "x" }) end)
            end)
            return blocking, mapped
            """)
        try? await server.stop()
        #expect(r == [.integer(3), .integer(3)])
    }
}
