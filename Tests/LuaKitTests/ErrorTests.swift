import LuaKit
import Testing
import FlickrTestSupport

@Suite(.serialized, .timeLimit(.minutes(5)), .tags(.unit)) struct ErrorTests {
    /// 100,000 errors raised by Swift functions that hold Swift objects: none leaks, none crashes.
    @Test func hundredThousandErrorsReleaseEverything() async throws {
        let live = LiveCount()
        let caught = try await withLua { L in
            L.push(function: "fail") { call in
                let held = Tracker(live)  // owned by this frame when the error is raised
                let n = try call.integer(1)
                withExtendedLifetime(held) {}
                if n % 2 == 0 { throw TrackedError(code: Int(n), live: live) }
                throw StructuredError(code: n, message: "structured \(n)")
            }
            L.setGlobal("fail")
            let r = try L.run("""
                local caught, tables = 0, 0
                for i = 1, 100000 do
                  local ok, err = pcall(fail, i)
                  if not ok then caught = caught + 1 end
                  if type(err) == "table" then tables = tables + 1 end
                end
                return caught, tables
                """)
            return r
        }
        #expect(caught == [100_000, 50_000])
        #expect(live.count == 0)
    }

    @Test func luaErrorsBecomeSwiftErrorsWithTraceback() async throws {
        let error = try await withLua { L -> LuaError? in
            do {
                try L.run("local function inner() error('boom') end\nlocal function outer() inner() end\nouter()", name: "=chunk")
                return nil
            } catch let e as LuaError {
                return e
            }
        }
        let e = try #require(error)
        #expect(e.kind == .runtime)
        #expect(e.message == "chunk:1: boom")
        #expect(e.traceback?.contains("stack traceback:") == true)
        #expect(e.traceback?.contains("in local 'inner'") == true || e.traceback?.contains("inner") == true)
        #expect(e.value == .string("chunk:1: boom"))
    }

    @Test func tableErrorsKeepIdentityAndGetATraceback() async throws {
        let result = try await withLua { L -> [LuaValue] in
            // The same table comes back to Lua through the host: identity kept.
            L.push(function: "rethrow") { call in
                call.state.pushCopy(of: 1)
                do {
                    try call.state.call(arguments: 0)
                } catch {
                    throw error
                }
                return 0
            }
            L.setGlobal("rethrow")
            return try L.run("""
                local e = setmetatable({ code = 7 }, { __tostring = function(t) return "E" .. t.code end })
                local ok, got = pcall(rethrow, function() error(e) end)
                return ok, got == e, tostring(got), type(got.traceback)
                """)
        }
        #expect(result == [false, true, "E7", "string"])
        let e = try await withLua { L -> LuaError? in
            do {
                try L.run("error(setmetatable({ code = 7 }, { __tostring = function(t) return 'E' .. t.code end }))")
                return nil
            } catch let e as LuaError { return e }
        }
        #expect(e?.message == "E7")
        #expect(e?.value?["code"] == 7)
        #expect(e?.value?["traceback"]?.stringValue?.contains("stack traceback:") == true)
    }

    @Test func swiftErrorComesBackAsItself() async throws {
        try await withLua { L in
            L.push(function: "fail") { call in throw StructuredError(code: try call.integer(1), message: "m") }
            L.setGlobal("fail")
            L.push(function: "plain") { _ in throw TrackedError(code: 3) }
            L.setGlobal("plain")
            // Direct.
            #expect(throws: StructuredError(code: 1, message: "m")) { try L.run("fail(1)") }
            // Through pcall and a re-raise.
            #expect(throws: StructuredError(code: 2, message: "m")) { try L.run("local ok, e = pcall(fail, 2); error(e)") }
            // A plain (string) error through pcall and a re-raise.
            do {
                try L.run("local ok, e = pcall(plain); assert(type(e) == 'string'); error(e, 0)")
                Issue.record("no error")
            } catch let e as TrackedError {
                #expect(e.code == 3)
            }
            // Through coroutines: wrap (tables keep identity) and resume (strings too).
            #expect(throws: StructuredError(code: 4, message: "m")) {
                try L.run("coroutine.wrap(function() fail(4) end)()")
            }
            do {
                try L.run("local ok, e = coroutine.resume(coroutine.create(plain)); error(e, 0)")
                Issue.record("no error")
            } catch let e as TrackedError {
                #expect(e.code == 3)
            }
        }
    }

    /// host → Lua → host → Lua → host: the innermost Swift error surfaces at the top as itself.
    @Test func nestedHostLuaCalls() async throws {
        try await withLua { L in
            L.push(function: "host") { call in
                // Calls the Lua function passed in (a nested protected call from Swift).
                call.state.pushCopy(of: 1)
                try call.state.call(arguments: 0, results: 0)
                return 0
            }
            L.setGlobal("host")
            L.push(function: "fail") { _ in throw StructuredError(code: 9, message: "deep") }
            L.setGlobal("fail")
            #expect(throws: StructuredError(code: 9, message: "deep")) {
                try L.run("host(function() host(function() fail() end) end)")
            }
            let r = try L.run("return pcall(host, function() host(function() fail() end) end)")
            #expect(r.first == false)
            #expect(r.last?["code"] == 9)
        }
    }

    @Test func callbackErrorInsideTableSort() async throws {
        try await withLua { L in
            L.push(function: "less") { call in
                let a = try call.integer(1), b = try call.integer(2)
                if a == 13 || b == 13 { throw StructuredError(code: 13, message: "unlucky") }
                call.state.push(a < b)
                return 1
            }
            L.setGlobal("less")
            let ok = try L.run("local t = {5, 3, 9, 1}; table.sort(t, less); return table.concat(t, ',')")
            #expect(ok == ["1,3,5,9"])
            #expect(throws: StructuredError(code: 13, message: "unlucky")) {
                try L.run("local t = {}; for i = 20, 1, -1 do t[#t + 1] = i end; table.sort(t, less)")
            }
            let r = try L.run("local t = {13, 2, 1}; local ok, e = pcall(table.sort, t, less); return ok, e.code")
            #expect(r == [false, 13])
        }
    }

    @Test func syntaxErrorsTellIncompleteInput() async throws {
        try await withLua { L in
            for (source, incomplete) in [("for i = 1, 2 do", true), ("x = {", true), ("x = = 1", false), ("return 'abc", true), ("f(", true), ("end", false)] {
                do {
                    try L.load(source, name: "=stdin")
                    Issue.record("\(source) loaded")
                } catch let error as LuaError {
                    #expect(error.kind == .syntax)
                    #expect(error.isIncompleteInput == incomplete, "\(source): \(error.message)")
                }
            }
            #expect(L.top == 0)
        }
    }

    @Test func argumentErrorsReadLikeLua() async throws {
        let r = try await withLua { L in
            L.push(function: "mod.f") { call in
                try call.table(1)
                return 0
            }
            L.setGlobal("f")
            return try L.run("return select(2, pcall(f, 'x'))")
        }
        #expect(r == ["bad argument #1 to 'mod.f' (table expected, got string)"])
    }
}
