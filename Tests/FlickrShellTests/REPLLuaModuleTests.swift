import FlickrLua
import FlickrTestSupport
import Foundation
import LuaKit
import Testing
@testable import FlickrShell

/// `lua/flickr/pretty.lua` and `lua/flickr/complete.lua` on real Lua, and completion through
/// the REPL's Swift bridge against the real `flickr` module.
@Suite("REPL Lua modules", .timeLimit(.minutes(3)), .tags(.unit))
struct REPLLuaModuleTests {
    /// Runs `source` (which may `error` to fail) with the shipped modules (the compiled-in
    /// lua/flickr/*.lua) loadable; returns its results.
    static func run(_ source: String) async throws -> [LuaValue] {
        let runtime = try LuaRuntime()
        defer { runtime.close() }
        return try await runtime.perform { state in
            try ShippedLua.installSearcher(on: state)
            return try state.run(source, name: "=(test)")
        }
    }

    static func string(_ source: String) async throws -> String {
        try #require(try await run(source).first?.stringValue)
    }

    @Test("pretty: sorted keys after the array part, identifiers bare, other keys bracketed")
    func prettyOrder() async throws {
        let s = try await Self.string("""
            return require('flickr.pretty').format({ 3, 2, 1, b = 1, a = 2, [10] = 'ten', [true] = 1, ['not id'] = 0, ['end'] = 5 })
            """)
        #expect(s == #"{ 3, 2, 1, [10] = "ten", [true] = 1, a = 2, b = 1, ["end"] = 5, ["not id"] = 0 }"#)
    }

    @Test("pretty: integers vs floats, special numbers, quoted strings with escapes")
    func prettyScalars() async throws {
        let s = try await Self.string(#"""
            local f = require('flickr.pretty').format
            return table.concat({ f(1), f(1.0), f(0.1), f(2^53), f(1/0), f(-1/0), f(0/0), f(-0.0),
              f("a\nb\t\"c\"\\"), f("\0\1"), f("héllo") }, " ")
            """#)
        #expect(s == #"1 1.0 0.1 9007199254740992.0 math.huge -math.huge 0/0 -0.0 "a\nb\t\"c\"\\" "\000\001" "héllo""#)
    }

    @Test("pretty: depth and item limits with … N more, multi-line past the width")
    func prettyLimits() async throws {
        let s = try await Self.string("""
            local f = require('flickr.pretty').format
            local many = {} for i = 1, 60 do many[i] = i end
            local wide = {} for i = 1, 12 do wide['key' .. i] = string.rep('v', 8) end
            return f({ a = { b = { c = 1 } } }, { depth = 2 }) .. '|' .. f(many, { items = 3 }) .. '|' ..
              f({ x = 1, y = 2, z = 3 }, { items = 2 }) .. '|' .. f(wide)
            """)
        let parts = s.split(separator: "|").map(String.init)
        #expect(parts[0] == "{ a = { b = {…} } }")
        #expect(parts[1] == "{ 1, 2, 3, … 57 more }")
        #expect(parts[2] == "{ x = 1, y = 2, … 1 more }")
        #expect(parts[3].hasPrefix("{\n  key1 = \"vvvvvvvv\",\n  key10 ="))
        #expect(parts[3].hasSuffix("\n}"))
    }

    @Test("pretty: a table on its own path prints as a cycle marker; shared tables print twice")
    func prettyCycles() async throws {
        let s = try await Self.string("""
            local f = require('flickr.pretty').format
            local c = {}; c.me = c; c.list = { c }
            local shared = { 1 }
            return f(c) .. '|' .. f({ a = shared, b = shared })
            """)
        let parts = s.split(separator: "|").map(String.init)
        #expect(parts[0].range(of: #"^\{ list = \{ <cycle 0x[0-9a-f]+> \}, me = <cycle 0x[0-9a-f]+> \}$"#,
                               options: .regularExpression) != nil, "\(parts[0])")
        #expect(parts[1] == "{ a = { 1 }, b = { 1 } }")
    }

    @Test("pretty: printing never runs a metamethod (__index, __len, __pairs, __tostring, __name keys)")
    func prettyRaw() async throws {
        let s = try await Self.string("""
            local f = require('flickr.pretty').format
            calls = 0
            local function count() calls = calls + 1 end
            local mt = { __index = function() count() end, __len = function() count(); return 9 end,
                         __pairs = function() count(); return next, {}, nil end,
                         __tostring = function() count(); return 'T' end, __name = 'Thing' }
            local trap = setmetatable({ x = 1 }, mt)
            local key = setmetatable({}, mt)
            local out = f(trap) .. '|' .. f({ trap, [key] = 1 }) .. '|' .. f(io.stdout)
            return out .. '|' .. calls
            """)
        let parts = s.split(separator: "|").map(String.init)
        #expect(parts[0] == "{ x = 1 }")
        #expect(parts[1].hasPrefix("{ { x = 1 }, [<table Thing 0x"))
        #expect(parts[2].hasPrefix("<userdata FILE* 0x"))
        #expect(parts[3] == "0")
    }

    @Test("pretty: colour only when asked, and the same text without it")
    func prettyColour() async throws {
        let s = try await Self.string("""
            local f = require('flickr.pretty').format
            return f({ 1, 'a', k = true }, { color = true }) .. '|' .. f({ 1, 'a', k = true })
            """)
        let parts = s.split(separator: "|").map(String.init)
        #expect(parts[0].contains("\u{1B}[36m1\u{1B}[0m"))
        #expect(!parts[1].contains("\u{1B}"))
        #expect(parts[0].replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression) == parts[1])
    }

    @Test("complete: globals and keywords, dotted, colon and bracket paths, through __index tables only")
    func complete() async throws {
        let s = try await Self.string(#"""
            local c = require('flickr.complete')
            calls = 0
            local env = setmetatable({
              flickr = { photos = { getInfo = print, getSizes = print, search = print, geo = {} } },
              t = { ['key one'] = 1, key2 = { deep = true } }, s = 'abc',
              trap = setmetatable({}, { __index = function() calls = calls + 1 end }),
              obj = setmetatable({}, { __index = { method = print, field = 1 } }),
            }, { __index = _G })
            local function show(line, opts)
              local list, start = c.candidates(line, env, opts)
              return start .. ':' .. table.concat(list, ',')
            end
            local sfx = { suffix = true }
            return table.concat({
              show('flickr.photos.ge'), show('flickr.photos.ge', sfx), show('x = flickr.pho', sfx),
              show('t["key o'), show("t['ke"), show('t.key2.de'), show('s:upp', sfx), show('obj:', sfx),
              show('obj.f'), show('whi'), show('trap.x.y'), show('("x"):'), show('3.1'), tostring(calls),
            }, ' | ')
            """#)
        let parts = s.components(separatedBy: " | ")
        #expect(parts[0] == "1:flickr.photos.geo,flickr.photos.getInfo,flickr.photos.getSizes")
        #expect(parts[1] == "1:flickr.photos.geo.,flickr.photos.getInfo(,flickr.photos.getSizes(")
        #expect(parts[2] == "5:flickr.photos.")
        #expect(parts[3] == #"1:t["key one"]"#)
        #expect(parts[4] == "1:t['key one'],t['key2']")
        #expect(parts[5] == "1:t.key2.deep")
        #expect(parts[6] == "1:s:upper(")
        #expect(parts[7] == "1:obj:method(")
        #expect(parts[8] == "1:obj.field")
        #expect(parts[9] == "1:while")
        #expect(parts[10] == "1:")
        #expect(parts[11] == "6:")
        #expect(parts[12] == "1:")
        #expect(parts[13] == "0", "completion called an __index function")
    }

    /// The real module with the REPL's helpers, pointed where nothing listens (completion must
    /// never call the network; a call would fail).
    static func completionSession() async throws -> (FlickrLuaSession, REPLSupport) {
        var options = FlickrLuaSession.Options(environment: [:])
        options.settings.endpoint = "http://127.0.0.1:9/"
        let session = try await FlickrLuaSession(options)
        let support = try await session.runtime.perform { state in try REPLSupport.load(on: state) }
        return (session, support)
    }

    @Test("completion through the REPL bridge offers the catalog's flickr.photos.ge… with no network")
    func completeFlickrModule() async throws {
        let (session, support) = try await Self.completionSession()
        defer { session.close() }
        let runtime = session.runtime
        // performAndWait blocks its caller: call it from a plain thread, as readline does
        let result = await onThread { Completion.candidates(for: "x = flickr.photos.ge", runtime: runtime, support: support) }
        #expect(result.start == 5)
        for name in ["getInfo(", "getSizes(", "getExif(", "getRecent(", "geo."] {
            #expect(result.list.contains("flickr.photos." + name), "missing flickr.photos.\(name)")
        }
        #expect(result.list.allSatisfy { $0.hasPrefix("flickr.photos.ge") })
        let globals = await onThread { Completion.candidates(for: "fli", runtime: runtime, support: support) }
        #expect(globals.list == ["flickr."])
    }

    @Test("completion from the catalog: argument names in a call's table (not given yet first), method names in strings and after :doc, numeric indices")
    func completeFromTheCatalog() async throws {
        let (session, support) = try await Self.completionSession()
        defer { session.close() }
        let runtime = session.runtime
        func complete(_ line: String) async -> (list: [String], start: Int) {
            await onThread { Completion.candidates(for: line, runtime: runtime, support: support) }
        }
        var r = await complete("flickr.photos.search{ us")
        #expect(r.list == ["user_id = "] && r.start == 23, "\(r)")
        r = await complete("flickr.photos.getInfo{ ")
        #expect(r.list == ["photo_id = ", "secret = "], "\(r)")
        // Given ones go last; required ones first.
        r = await complete("flickr.photos.addTags{ tags = 'a', ")
        #expect(r.list == ["photo_id = ", "tags = "], "\(r)")
        r = await complete("flickr.call('flickr.photos.getInfo', { photo_id = 1, s")
        #expect(r.list == ["secret = "], "\(r)")
        r = await complete("for p in flickr.walk(\"flickr.photos.search\", { per_page = 5, ta")
        #expect(r.list == ["tag_mode = ", "tags = "], "\(r)")
        // Not at a key: a value is being written.
        r = await complete("flickr.photos.search{ user_id = ")
        #expect(!r.list.contains { $0.hasSuffix(" = ") })
        // Method names inside the string of flickr.call / walk / help, and after :doc.
        r = await complete("flickr.call(\"flickr.photos.getI")
        #expect(r.list == ["flickr.photos.getInfo"] && r.start == 14, "\(r)")
        r = await complete("flickr.help('photos.getSi")
        #expect(r.list == ["flickr.photos.getSizes"], "\(r)")
        r = await complete("for x in flickr.walk(\"flickr.people.getP")
        #expect(r.list.contains("flickr.people.getPhotos") && r.list.allSatisfy { $0.hasPrefix("flickr.people.getP") }, "\(r)")
        r = await complete(":doc photos.comm")
        #expect(r.list.contains("photos.comments") && r.start == 6, "\(r)")
        // After a numeric index.
        _ = try await runtime.perform { state in try state.run("rsp = { photos = { photo = { { title = 'x', id = '1' } } } }", name: "=t") }
        r = await complete("rsp.photos.photo[1].ti")
        #expect(r.list == ["rsp.photos.photo[1].title"], "\(r)")
    }
}

/// Runs `body` on a new plain thread (not the concurrency pool) and returns its result.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
