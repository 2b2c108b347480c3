import FlickrAPI
import FlickrLua
import FlickrProtocol
import FlickrLuaSandbox
import FlickrSandbox
import FlickrTestSupport
import Foundation
import LuaKit
import Testing

@Suite(.serialized, .timeLimit(.minutes(5)), .tags(.integration)) struct ConcurrencyTests {
    /// With 100 ms latency, flickr.map over 32 getInfo calls at concurrency 8
    /// overlaps them — the server sees between 2 and 8 at once — and answers in order. How long
    /// it takes (about 4 × 100 ms; sequential 3.2 s) is a benchmark's figure (`scripts/bench`).
    @Test func mapOverlapsCalls() async throws {
        let config = try TemporaryDirectory()
        let (server, session) = try await FlickrLuaSandbox.start(options: Session.options(config: config.path))
        defer { session.close() }
        _ = try await session.run("""
            ids = {}
            for i, p in ipairs(flickr.photos.search{ user_id = "me", per_page = 32 }.photos.photo) do ids[i] = p.id end
            assert(#ids == 32)
            """)
        await server.setLatency(milliseconds: 100)
        _ = server.takePeakConcurrency()
        let clock = ContinuousClock()
        let start = clock.now
        let r = try await session.run("""
            local infos = flickr.map(ids, function(id) return flickr.photos.getInfo{ photo_id = id } end, { concurrency = 8 })
            for i, info in ipairs(infos) do assert(info.photo.id == ids[i]) end
            return #infos
            """)
        let elapsed = clock.now - start
        // The server saw the calls overlap, and never more at once than the concurrency asked:
        // counted where they arrive, so a busy machine cannot make this pass or fail.
        let peak = server.takePeakConcurrency()
        try? await server.stop()
        print("flickr.map: 32 getInfo at concurrency 8 with 100 ms latency took \(elapsed), at most \(peak) at once")
        #expect(r == [32])
        #expect(peak >= 2 && peak <= 8, "at most \(peak) calls at once")
        // 32 calls of 100 ms, 8 at a time, cannot take less than 4 rounds.
        #expect(elapsed >= .milliseconds(400), "took \(elapsed): faster than the latency allows")
    }

    /// With a rate configured, N calls take at least (N − burst) / rate seconds, even in flickr.map.
    @Test func rateLimiterHolds() async throws {
        let config = try TemporaryDirectory()
        let (server, session) = try await FlickrLuaSandbox.start(options: Session.options(config: config.path))
        defer { session.close() }
        let (n, burst, rate) = (12, 2, 10.0)
        _ = try await session.run("flickr.configure{ rate = \(rate), burst = \(burst) }")
        // Let the bucket fill to its burst.
        try await Task.sleep(for: .milliseconds(300))
        let clock = ContinuousClock()
        let start = clock.now
        let r = try await session.run("""
            local list = {}
            for i = 1, \(n) do list[i] = i end
            return #flickr.map(list, function(i) return flickr.test.echo{ i = i } end, { concurrency = 8 })
            """)
        let elapsed = clock.now - start
        try? await server.stop()
        let floor = Double(n - burst) / rate
        print("rate limit: \(n) calls at \(rate)/s burst \(burst) took \(elapsed) (floor \(floor) s)")
        #expect(r == [.integer(Int64(n))])
        #expect(elapsed >= .milliseconds(Int64(floor * 1000) - 20), "took \(elapsed), floor \(floor) s")
    }

    /// Interrupting a blocked call cancels it: a flickr.Error of kind "cancelled", at once.
    @Test func interruptCancelsACall() async throws {
        let config = try TemporaryDirectory()
        let (server, session) = try await FlickrLuaSandbox.start(options: Session.options(config: config.path))
        defer { #expect(session.runtime.close(timeout: 10), "the Lua thread is wedged") }
        // An answer 20 s away: a call that finishes within 10 s was cut off, not answered, with
        // room for a busy machine's scheduling delays.
        await server.setLatency(milliseconds: 20_000)
        let runtime = session.runtime
        // Told, not guessed: a reentrant job runs only while a call blocks the Lua thread, so it
        // fires once flickr.test.echo is waiting for its answer; then the interrupt goes.
        let blocked = Signal()
        try await runtime.perform { L in
            L.push(function: "calling") { _ in
                runtime.post(reentrant: true) { _ in blocked.fire() }
                return .none
            }
            L.setGlobal("calling")
        }
        let clock = ContinuousClock()
        let start = clock.now
        let call = Task {
            try await withDeadline(20, "the interrupted call") {
                try await session.run("""
                    calling()
                    local ok, e = pcall(flickr.test.echo, {})
                    return ok, e.kind, e.message, tostring(e)
                    """)
            }
        }
        try await blocked.wait(20, "the call to block")
        runtime.interrupt()
        let r = try await call.value
        let elapsed = clock.now - start
        try? await server.stop()
        #expect(r == [false, "cancelled", "interrupted!", "flickr.test.echo: interrupted!"])
        #expect(elapsed < .seconds(10), "took \(elapsed)")
    }

    /// The mapped response in Lua is the Swift tree, value for value.
    @Test func luaTablesMatchTheSwiftTree() async throws {
        let config = try TemporaryDirectory()
        let (server, session) = try await FlickrLuaSandbox.start(options: Session.options(config: config.path))
        defer { session.close() }
        let tree = try await session.client.call("flickr.photos.search", ["user_id": "me", "per_page": "50", "extras": "tags,url_q,description"])
        let lua = try await session.run("return flickr.photos.search{ user_id = 'me', per_page = 50, extras = 'tags,url_q,description' }")
        try? await server.stop()
        #expect(lua.count == 1)
        #expect(Self.value(tree) == lua.first)
    }

    static func value(_ node: FlickrNode) -> LuaValue {
        switch node {
        case .string(let s): return .string(s)
        case .list(let l): return l.isEmpty ? .map([:]) : .array(l.map(value))
        case .map(let m):
            var out: [LuaValue: LuaValue] = [:]
            for (k, v) in m { out[.string(k)] = value(v) }
            return .map(out)
        }
    }
}
