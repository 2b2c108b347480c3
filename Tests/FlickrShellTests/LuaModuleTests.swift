import Foundation
import Testing
import FlickrTestSupport

/// `require "flickr"` in Debian's `lua5.4`: the built `libflickr-lua.so`, as
/// `flickr.so` on `LUA_CPATH`, loaded by the real `/usr/bin/lua5.4` against a real
/// `flickr-sandbox` on loopback — configured as `flickr` is (environment, profile), calls that
/// block, errors as tables, the helpers, Ctrl-C sent to the `lua5.4` process mid-call, one Lua
/// core in the process, and 10,000 calls without growth.
@Suite("flickr in lua5.4", .serialized, .timeLimit(.minutes(10)), .tags(.command))
struct LuaModuleTests {
    let world: CommandWorld
    /// A folder holding only `flickr.so` (a link to the built library): the `LUA_CPATH`.
    let cpath: URL
    let lua = URL(fileURLWithPath: "/usr/bin/lua5.4")

    init() throws {
        world = try CommandWorld("lua-module")
        cpath = world.directory.appendingPathComponent("cpath")
        try FileManager.default.createDirectory(at: cpath, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: cpath.appendingPathComponent("flickr.so"),
                                                   withDestinationURL: try Products.executable("libflickr-lua.so"))
    }

    /// The test's clean environment with `flickr.so` (alone) on the C path.
    var environment: [String: String] { world.environment.merging(["LUA_CPATH": cpath.path + "/?.so"]) { $1 } }

    func lua(_ arguments: [String], env: [String: String], timeout: Double = 120) async throws -> Products.Result {
        #expect(FileManager.default.isExecutableFile(atPath: lua.path), "no /usr/bin/lua5.4 (scripts/bootstrap installs Debian's lua5.4)")
        let r = try await Products.run(lua, arguments, environment: env, directory: world.directory, timeout: timeout)
        #expect(!r.timedOut, "lua5.4 \(arguments) timed out")
        return r
    }

    /// `lua5.4 ARGUMENTS` with the signal state a shell gives: no signal blocked, none ignored.
    /// (Foundation's Process passes on the spawning thread's mask, and the threads of a test —
    /// dispatch's, the task pool's — block SIGINT: lua.c itself would never see a Ctrl-C.)
    func interactiveLua(_ arguments: [String], env: [String: String]) throws -> InteractiveProcess {
        let unblocked = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
            + "signal.signal(signal.SIGPIPE, signal.SIG_DFL); signal.signal(signal.SIGXFSZ, signal.SIG_DFL); "
            + "os.execv(sys.argv[1], sys.argv[1:])"
        return try InteractiveProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", unblocked, lua.path] + arguments,
                                      environment: env)
    }

    /// What lua.c prefixes its error reports with: its `argv[0]`.
    var progname: String { lua.path }

    func file(_ name: String, _ text: String) throws -> String {
        let url = world.directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test("a call's answer, the same table from require, the shipped modules")
    func calls() async throws {
        try await SandboxWorld.withProcess(environment: world.environment) { sandbox in
            let script = try file("calls.lua", """
                local flickr = require "flickr"
                assert(require "flickr" == flickr and package.loaded.flickr == flickr)
                print(rawget(_G, "flickr") == nil)
                local rsp = flickr.test.echo{ foo = "bar", n = 3 }
                print(rsp.stat, rsp.foo._text, rsp.n._text, flickr.text(rsp.method))
                print(flickr.test.login().user.username._text)
                print(flickr.call("flickr.test.echo", { x = "y" }, { verb = "POST" }).x._text)
                print(#flickr.methods() > 200, type(flickr.help("flickr.photos.search")))
                print(type(require("flickr.pretty")))
                """)
            let r = try await lua([script], env: sandbox.environment(environment))
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout == "true\nok\tbar\t3\tflickr.test.echo\n\(sandbox.values["username"] ?? "?")\ny\ntrue\ttable\ntable\n",
                    "\(r.stdout)\(r.stderr)")
        }
    }

    @Test("errors are flickr.Error tables: pcall gives them intact, uncaught they end lua5.4 with status 1")
    func errorsAsTables() async throws {
        try await SandboxWorld.withProcess(accessLog: world.directory.appendingPathComponent("sandbox.log"),
                                           environment: world.environment) { sandbox in
            let env = sandbox.environment(environment)
            let script = try file("errors.lua", """
                local flickr = require "flickr"
                local ok, err = pcall(flickr.photos.getInfo, { photo_id = "404" })
                print(ok, getmetatable(err) == flickr.Error, err.kind, err.code, err.method, tostring(err))
                ok, err = pcall(flickr.photos.search, { tagz = "cat" })
                print(ok, getmetatable(err) == flickr.Error, err.kind, err.message:find("unknown argument tagz (did you mean tags", 1, true) ~= nil)
                ok, err = pcall(function() return flickr.photos.serach end)
                print(ok, err.kind)
                """)
            let r = try await lua([script], env: env)
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(r.stdout)")
            #expect(lines.first == "false\ttrue\tapi\t1\tflickr.photos.getInfo\tflickr.photos.getInfo: [1] Photo \"404\" not found (invalid ID)")
            #expect(lines.dropFirst().first == "false\ttrue\tusage\ttrue")
            #expect(lines.last == "false\tusage")
            // The usage error cost no request: the sandbox saw getInfo only.
            let log = (try? String(contentsOfFile: world.directory.path + "/sandbox.log", encoding: .utf8)) ?? ""
            #expect(log.contains("flickr.photos.getInfo") && !log.contains("flickr.photos.search"), "\(log)")

            // Uncaught: lua.c prints the error through its __tostring and exits 1.
            let uncaught = try await lua(["-e", "require('flickr').photos.getInfo{ photo_id = '404' }"], env: env)
            #expect(uncaught.status == 1)
            #expect(uncaught.stderr == "\(progname): flickr.photos.getInfo: [1] Photo \"404\" not found (invalid ID)\n", "\(uncaught.stderr)")
        }
    }

    @Test("walk pages through a list, map overlaps calls")
    func helpers() async throws {
        try await SandboxWorld.withProcess(["--latency", "50"], environment: world.environment) { sandbox in
            let script = try file("helpers.lua", """
                local flickr = require "flickr"
                local total = tonumber(flickr.photos.search{ user_id = "me", per_page = 1 }.photos.total)
                local n, seen = 0, {}
                for photo in flickr.walk("flickr.photos.search", { user_id = "me", per_page = 20 }) do
                  n = n + 1
                  seen[photo.id] = true
                end
                local distinct = 0
                for _ in pairs(seen) do distinct = distinct + 1 end
                print(total > 40, n == total, distinct == total)
                local ids = {}
                for i = 1, 16 do ids[i] = i end
                local echoed = flickr.map(ids, function(i) return flickr.test.echo{ i = i }.i._text end, { concurrency = 8 })
                print(table.concat(echoed, ","))
                local results, errors = flickr.map({ "1", "x" }, function(id)
                  return flickr.photos.getInfo{ photo_id = id }
                end, { on_error = "collect" })
                print(results[1] == nil, errors[1].code, errors[2].kind)
                """)
            let r = try await lua([script], env: sandbox.environment(environment))
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout == "true\ttrue\ttrue\n1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\ntrue\t1\tapi\n", "\(r.stdout)\(r.stderr)")
        }
    }

    @Test("configured like flickr: FLICKR_* variables, a profile by FLICKR_PROFILE, FLICKR_BUDGET")
    func configuration() async throws {
        try await SandboxWorld.withProcess(environment: world.environment) { sandbox in
            let v = sandbox.values
            // A profile holding the sandbox's credentials, as `flickr login` writes one.
            let profiles = world.directory.appendingPathComponent("config/flickr/profiles")
            try FileManager.default.createDirectory(at: profiles, withIntermediateDirectories: true)
            let profile = profiles.appendingPathComponent("sbx.json")
            let json = try JSONSerialization.data(withJSONObject: [
                "api_key": v["api_key"] ?? "", "api_secret": v["api_secret"] ?? "", "oauth_token": v["oauth_token"] ?? "",
                "oauth_token_secret": v["oauth_token_secret"] ?? "", "endpoint": v["url"] ?? "", "username": v["username"] ?? "",
                "user_nsid": v["user_nsid"] ?? "",
            ])
            try json.write(to: profile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: profile.path)

            let show = """
                local flickr = require "flickr"
                local c = flickr.config()
                print(c.endpoint, c.api_key, c.secret, c.token, c.profile, c.user, c.signed_in, c.rate, c.budget, c.timeout)
                print(flickr.test.login().user.username._text)
                """
            let script = try file("config.lua", show)
            for extra in [sandbox.environment([:]), ["FLICKR_PROFILE": "sbx"], ["FLICKR_PROFILE": "sbx", "FLICKR_BUDGET": "500/60"]] {
                let fromLua = try await lua([script], env: environment.merging(extra) { $1 })
                let fromFlickr = try await Products.run(world.flickr, [script], environment: world.environment.merging(extra) { $1 },
                                                        directory: world.directory, timeout: 60)
                #expect(fromLua.status == 0 && fromFlickr.status == 0, "\(fromLua.stderr)\(fromFlickr.stderr)")
                #expect(fromLua.stdout == fromFlickr.stdout, "lua5.4 and flickr differ with \(extra.keys.sorted())")
                #expect(fromLua.stdout.hasSuffix("\n\(v["username"] ?? "?")\n"), "\(fromLua.stdout)")
            }
            let budget = try await lua([script], env: environment.merging(["FLICKR_PROFILE": "sbx", "FLICKR_BUDGET": "500/60"]) { $1 })
            #expect(budget.stdout.contains("\t500/60\t"), "\(budget.stdout)")

            // A malformed FLICKR_BUDGET fails the require, as it fails flickr's start.
            let bad = try await lua(["-e", "require 'flickr'"], env: environment.merging(["FLICKR_PROFILE": "sbx", "FLICKR_BUDGET": "lots"]) { $1 })
            #expect(bad.status == 1 && bad.stderr.hasPrefix("\(progname): flickr: FLICKR_BUDGET: "), "\(bad.stderr)")
        }
    }

    @Test("Ctrl-C: a blocked call raises a cancelled flickr.Error at once, pcall catches it, lua.c's own interrupt is back for the next chunk")
    func interrupt() async throws {
        // Every answer of this one takes 30 s; the second answers at once.
        try await SandboxWorld.withProcess(["--latency", "30000"], environment: world.environment) { slow in
            try await SandboxWorld.withProcess(environment: world.environment) { fast in
                let f = fast.values

                // Uncaught: the process ends with lua.c's report and status 1, long before the answer.
                // (Whether the SIGINT lands in the wait or in the instant before it, the call takes it.)
                let uncaught = try interactiveLua(["-e", """
                    local flickr = require "flickr"
                    print("calling") io.stdout:flush()
                    flickr.test.echo{}
                    print("answered")
                    """], env: slow.environment(environment))
                #expect(await uncaught.waitForLine(timeout: 30) { $0 == "calling" } != nil, "\(uncaught.stderr)")
                try await Task.sleep(for: .milliseconds(300))
                let sent = Date()
                kill(uncaught.process.processIdentifier, SIGINT)
                let status = await uncaught.wait(timeout: 10)
                #expect(status == 1, "lua5.4 did not end after Ctrl-C (status \(String(describing: status)))")
                #expect(Date().timeIntervalSince(sent) < 5)
                #expect(uncaught.stderr == "\(progname): flickr.test.echo: interrupted!\n", "\(uncaught.stderr)")
                #expect(!uncaught.stdout.contains("answered"))

                // Caught: pcall has the error table and the module works on (against the fast sandbox).
                // The next chunk has lua.c's handler again: its busy loop is interrupted the lua.c way.
                let caught = try interactiveLua(["-e", """
                    flickr = require "flickr"
                    print("calling") io.stdout:flush()
                    local ok, err = pcall(flickr.test.echo, {})
                    print(ok, getmetatable(err) == flickr.Error, err.kind, err.message, err.method)
                    flickr.configure{ endpoint = "\(f["url"] ?? "")", api_key = "\(f["api_key"] ?? "")", secret = "\(f["api_secret"] ?? "")",
                                      token = "\(f["oauth_token"] ?? "")", token_secret = "\(f["oauth_token_secret"] ?? "")" }
                    print(flickr.test.echo{ after = "yes" }.after._text)
                    """, "-e", "print('looping') io.stdout:flush() while true do end"], env: slow.environment(environment))
                #expect(await caught.waitForLine(timeout: 30) { $0 == "calling" } != nil, "\(caught.stderr)")
                try await Task.sleep(for: .milliseconds(300))
                kill(caught.process.processIdentifier, SIGINT)
                #expect(await caught.waitForLine(timeout: 10) { $0 == "looping" } != nil, "\(caught.stdout)\(caught.stderr)")
                #expect(caught.stdout == "calling\nfalse\ttrue\tcancelled\tinterrupted!\tflickr.test.echo\nyes\nlooping\n",
                        "\(caught.stdout)")
                kill(caught.process.processIdentifier, SIGINT)
                let loopStatus = await caught.wait(timeout: 10)
                #expect(loopStatus == 1)
                #expect(caught.stderr.hasPrefix("\(progname): interrupted!\nstack traceback:"), "\(caught.stderr)")

                // After a Ctrl-C, as in lua.c, a second one in the same chunk ends the process.
                let twice = try interactiveLua(["-e", """
                    local flickr = require "flickr"
                    print("calling") io.stdout:flush()
                    print(pcall(flickr.test.echo, {}))
                    print("again") io.stdout:flush()
                    flickr.test.echo{}
                    """], env: slow.environment(environment))
                #expect(await twice.waitForLine(timeout: 30) { $0 == "calling" } != nil, "\(twice.stderr)")
                try await Task.sleep(for: .milliseconds(300))
                kill(twice.process.processIdentifier, SIGINT)
                #expect(await twice.waitForLine(timeout: 10) { $0 == "again" } != nil, "\(twice.stdout)\(twice.stderr)")
                try await Task.sleep(for: .milliseconds(300))
                kill(twice.process.processIdentifier, SIGINT)
                _ = await twice.wait(timeout: 10)
                #expect(!twice.process.isRunning)
                #expect(twice.process.terminationReason == .uncaughtSignal && twice.process.terminationStatus == SIGINT,
                        "\(twice.process.terminationReason) \(twice.process.terminationStatus) \(twice.stderr)")
            }
        }
    }

    @Test("one Lua core: the library defines no Lua API, every Lua symbol binds to the lua5.4 executable")
    func oneLuaCore() async throws {
        let library = try Products.executable("libflickr-lua.so").path
        // Every symbol table (not only the dynamic one: a static liblua would bring its hidden
        // luaV_execute) has Lua names defined only for the module's entry point.
        let defined = try await Products.run(URL(fileURLWithPath: "/bin/sh"),
                                             ["-c", "nm --defined-only \"$0\" | grep -E ' (lua_|luaL_|luaV_|luaopen_)'", library],
                                             timeout: 120)
        #expect(defined.status == 0, "\(defined.stderr)")
        let luaCore = defined.stdout.split(separator: "\n").filter {
            let name = $0.split(separator: " ").last.map(String.init) ?? ""
            return name.hasPrefix("lua_") || name.hasPrefix("luaL_") || name.hasPrefix("luaV_") || name == "luaopen_base"
        }
        #expect(luaCore.isEmpty, "the library carries Lua itself: \(luaCore.prefix(5))")
        #expect(defined.stdout.contains(" T luaopen_flickr"))

        // Every reference to the Lua API resolved (LD_BIND_NOW) against lua5.4 itself.
        let r = try await lua(["-e", "require 'flickr'"], env: environment.merging(["LD_BIND_NOW": "1", "LD_DEBUG": "bindings"]) { $1 })
        #expect(r.status == 0)
        let bindings = r.stderr.split(separator: "\n").filter {
            $0.contains("binding file \(cpath.path)/flickr.so") && ($0.contains("`lua_") || $0.contains("`luaL_"))
        }
        #expect(bindings.count > 50, "\(bindings.count) Lua bindings seen")
        let elsewhere = bindings.filter { !$0.contains(" to \(lua.path) [0]:") && !$0.contains(" to lua5.4 [0]:") }
        #expect(elsewhere.isEmpty, "bound elsewhere than lua5.4: \(elsewhere.prefix(3))")
    }

    @Test("10,000 calls from lua5.4: the resident set grows less than 2 MiB from the 1,000th call on")
    func noLeak() async throws {
        try await SandboxWorld.withProcess(["--latency", "0"], environment: world.environment) { sandbox in
            let script = Fixtures.repository.appendingPathComponent("lua/tests/module_calls.lua").path
            let r = try await lua([script, "10000"], env: sandbox.environment(environment), timeout: 480)
            #expect(r.status == 0, "\(r.stderr)")
            let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
            let marks = line.split(separator: "rss_kib=").last?.split(separator: ",").compactMap { Int($0) } ?? []
            try #require(line.hasPrefix("calls=10000 ") && marks.count == 10, "\(r.stdout)")
            // Bound: an answer kept per call (its tables alone are a few hundred bytes, with the
            // Swift task and closures around a call more) would add several MiB over 9,000 calls;
            // what is measured is well under 1 MiB (allocator slack).
            let growth = marks[9] - marks[0]
            print("LuaModuleTests: VmRSS after 1,000…10,000 calls (KiB): \(marks); growth \(growth) KiB")
            #expect(growth < 2048, "RSS grew \(growth) KiB between 1,000 and 10,000 calls: \(marks)")
        }
    }
}
