import Foundation
import Testing
import FlickrTestSupport

/// The script runner behaves as lua.c does (CLI.md): options, `arg` and `...`, shebang,
/// LUA_INIT, LUA_PATH, the compiled-in shipped modules, exit statuses, stdin as a chunk.
@Suite(.timeLimit(.minutes(2)), .tags(.command))
struct RunnerTests {
    let world: CommandWorld
    var flickr: URL { world.flickr }
    var dir: URL { world.directory }
    var env: [String: String] { world.environment }

    init() throws {
        world = try CommandWorld("runner")
    }

    func file(_ name: String, _ text: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func run(_ args: [String], env extra: [String: String] = [:], stdin: String? = nil) async throws -> Products.Result {
        let r = try await Products.run(flickr, args, environment: env.merging(extra) { $1 }, stdin: stdin, directory: dir)
        #expect(!r.timedOut, "flickr \(args) timed out")
        return r
    }

    @Test func executesChunksInOrder() async throws {
        let r = try await run(["-e", "x = 1", "-e", "x = x + 1", "-e", "print(x, math.type(x))"])
        #expect(r.status == 0 && r.stdout == "2\tinteger\n")
        let attached = try await run(["-eprint('attached')"])
        #expect(attached.stdout == "attached\n")
    }

    @Test func requiresLibrariesIntoGlobals() async throws {
        _ = try file("mods/greet.lua", "return { hello = function(n) return 'hello ' .. n end }")
        let path = dir.path + "/mods/?.lua;;"
        let r = try await run(["-l", "greet", "-l", "g=greet", "-e", "print(greet.hello('a'), g.hello('b'))"], env: ["LUA_PATH": path])
        #expect(r.status == 0 && r.stdout == "hello a\thello b\n", "\(r.stderr)")
        // ";;" kept the default path: a standard module path is still there.
        let p = try await run(["-e", "print(package.path:find('/usr/', 1, true) ~= nil, package.path:find('mods', 1, true) ~= nil)"],
                              env: ["LUA_PATH": path])
        #expect(p.stdout == "true\ttrue\n")
    }

    @Test func argTableAndVarargs() async throws {
        let script = try file("args.lua", "#!/usr/bin/env flickr\nprint(select('#', ...), ...)\nprint(arg[0] == ..., #arg, arg[1], arg[2], arg[-1], arg[-2])\n")
        let r = try await run(["-e", "x=1", script, "a", "b c"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "2\ta\tb c")
        #expect(lines.dropFirst().first == "false\t2\ta\tb c\tx=1\t-e")
        let noScript = try await run(["-e", "print(arg[0] ~= nil, arg[1], arg[2])"])
        #expect(noScript.stdout == "true\t-e\tprint(arg[0] ~= nil, arg[1], arg[2])\n")
    }

    @Test func luaInitVariables() async throws {
        let r = try await run(["-e", "print(init)"], env: ["LUA_INIT": "init = 'plain'"])
        #expect(r.stdout == "plain\n")
        let initFile = try file("init.lua", "init = 'from file'")
        let f = try await run(["-e", "print(init)"], env: ["LUA_INIT": "@" + initFile])
        #expect(f.stdout == "from file\n")
        let versioned = try await run(["-e", "print(init)"], env: ["LUA_INIT": "init = 'plain'", "LUA_INIT_5_4": "init = '5.4'"])
        #expect(versioned.stdout == "5.4\n")
        let ignored = try await run(["-E", "-e", "print(init)"], env: ["LUA_INIT": "init = 'plain'"])
        #expect(ignored.stdout == "nil\n")
        // -E also ignores LUA_PATH: Lua's default path, and the shipped modules are still found.
        let path = try await run(["-E", "-e", "print(package.path:find('nowhere', 1, true) == nil, require('flickr.pretty') ~= nil)"],
                                 env: ["LUA_PATH": "/nowhere/?.lua"])
        #expect(path.stdout == "true\ttrue\n", "\(path.stderr)")
        let honoured = try await run(["-e", "print(package.path:find('nowhere', 1, true) ~= nil)"], env: ["LUA_PATH": "/nowhere/?.lua"])
        #expect(honoured.stdout == "true\n")
        let broken = try await run(["-e", "print(1)"], env: ["LUA_INIT": "error('init failed')"])
        #expect(broken.status == 1 && broken.stderr.contains("init failed") && broken.stdout.isEmpty)
    }

    @Test func shippedModulesAreCompiledInAndLuaPathOverridesThem() async throws {
        // From a directory with no lua/ anywhere near: the module comes from the executable.
        let r = try await run(["-e", "print(require('flickr.pretty').format({b = 1, a = {1, 2.0}}), (package.searchpath('flickr.pretty', package.path)))"])
        #expect(r.status == 0 && r.stdout == "{ a = { 1, 2.0 }, b = 1 }\tnil\n", "\(r.stderr)")
        // A module of the same name on LUA_PATH wins, on purpose.
        let own = dir.appendingPathComponent("mine/flickr")
        try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
        try Data("return { format = function() return 'mine' end }".utf8).write(to: own.appendingPathComponent("pretty.lua"))
        let mine = try await run(["-e", "print(require('flickr.pretty').format({}))"],
                                 env: ["LUA_PATH": dir.path + "/mine/?.lua;;"])
        #expect(mine.stdout == "mine\n", "\(mine.stderr)")
        // package.searchers keeps lua5.4's four entries, and a module found nowhere gets
        // lua5.4's message: the same lines, nothing of ours among them.
        let script = "package.path = '?.lua' package.cpath = '?.so' print(#package.searchers, select(2, pcall(require, 'XXX')))"
        let ours = try await run(["-e", script])
        let theirs = try await Products.run(URL(fileURLWithPath: "/usr/bin/lua5.4"), ["-e", script], directory: dir)
        #expect(ours.status == 0 && ours.stdout == theirs.stdout && ours.stdout.hasPrefix("4\t"), "\(ours.stdout) vs \(theirs.stdout)")
    }

    @Test func exitStatuses() async throws {
        let boom = try file("boom.lua", "local function f() error('boom') end\nf()\n")
        let e = try await run([boom])
        #expect(e.status == 1)
        // Lua shortens long chunk names ("...") exactly as lua.c prints them.
        #expect(e.stderr.hasPrefix(flickr.path + ": ") && e.stderr.contains("boom.lua:1: boom\nstack traceback:"))
        #expect(e.stderr.contains("in local 'f'") || e.stderr.contains("in function"))
        #expect(try await run(["-e", "io.write('kept'); os.exit(3)"]).status == 3)
        let flushed = try await run(["-e", "io.write('kept'); os.exit(3)"])
        #expect(flushed.stdout == "kept")
        #expect(try await run(["-e", "os.exit(true)"]).status == 0)
        #expect(try await run(["-e", "os.exit(false)"]).status == 1)
        let syntax = try await run(["-e", "x = = 1"])
        #expect(syntax.status == 1 && syntax.stderr.contains("unexpected symbol"))
        let missing = try await run([dir.path + "/nope.lua"])
        #expect(missing.status == 1 && missing.stderr.contains("cannot open"))
        let tableError = try await run(["-e", "error(setmetatable({}, {__tostring = function() return 'custom' end}))"])
        #expect(tableError.status == 1 && tableError.stderr.contains("custom"))
    }

    @Test func standardInputIsAChunk() async throws {
        let piped = try await run([], stdin: "print('from stdin', 1 + 1)\n")
        #expect(piped.status == 0 && piped.stdout == "from stdin\t2\n")
        let dash = try await run(["-", "x", "y"], stdin: "print(...)\n")
        #expect(dash.stdout == "x\ty\n")
        let afterDashes = try await run(["--", "-"], stdin: "print('dash after --')\n")
        #expect(afterDashes.stdout == "dash after --\n")
    }

    @Test func versionAndWarnings() async throws {
        let v = try await run(["-v"])  // Lua's copyright line alone, as lua5.4 -v prints it
        #expect(v.status == 0 && v.stdout.hasPrefix("Lua 5.4") && v.stdout.hasSuffix("Lua.org, PUC-Rio\n")
                && v.stdout.split(separator: "\n").count == 1, "\(v.stdout)")
        let w = try await run(["-W", "-e", "warn('careful')"])
        #expect(w.stderr.contains("Lua warning: careful"))
        let off = try await run(["-e", "warn('careful')"])
        #expect(!off.stderr.contains("careful"))
    }

    @Test func badOptionsAreUsageErrors() async throws {
        let r = try await run(["-x"])
        #expect(r.status == 2 && r.stderr.contains("unrecognized option '-x'") && r.stderr.contains("usage:"))
        let missing = try await run(["-e"])
        #expect(missing.status == 2 && missing.stderr.contains("'-e' needs argument"))
    }

    @Test("As lua5.4: a child of os.execute starts with no signal blocked (kill -s TERM $$ is its death, a shell's wait returns); -e that changes arg changes the script's ...; arg = 1 is an error")
    func childrenAndArguments() async throws {
        // What lua5.4 prints when started by a shell (this test process blocks signals on its
        // threads, so a lua5.4 it started would inherit them: the expected lines are written out).
        for (chunk, expected) in [("print(os.execute('kill -s TERM $$'))", "nil\tsignal\t15\n"),
                                  ("print(os.execute('kill -s HUP $$'))", "nil\tsignal\t1\n"),
                                  ("print(os.execute('sleep 0.1 & wait'))", "true\texit\t0\n"),
                                  ("os.execute('exec grep SigBlk /proc/self/status')", "SigBlk:\t0000000000000000\n")] {
            let ours = try await run(["-e", chunk])
            #expect(ours.status == 0 && ours.stdout == expected, "\(chunk): \(ours.stdout) \(ours.stderr)")
        }
        let changed = try await run(["-e", "arg[1] = 100", "-", "x"], stdin: "print(...)")
        #expect(changed.stdout == "100\n", "\(changed.stdout) \(changed.stderr)")
        let notATable = try await run(["-e", "arg = 1", "-"], stdin: "")
        #expect(notATable.status == 1 && notATable.stderr.contains("'arg' is not a table"), "\(notATable.stderr)")
    }

    @Test func noCredentialsGivesAHelpfulError() async throws {
        let r = try await run(["-e", "flickr.test.login()"])
        #expect(r.status == 1)
        for word in ["FLICKR_API_KEY", "flickr login", "--sandbox"] { #expect(r.stderr.contains(word), "\(r.stderr)") }
    }
}

/// Errors as lua.c reports them, byte for byte against Debian's `lua5.4`: both run as `./lua`
/// (a symbolic link in a folder of its own) so that the program name lua.c begins its messages
/// with (`argv[0]`) is the same.
@Suite(.timeLimit(.minutes(2)), .tags(.command))
struct RunnerErrorTests {
    let world: CommandWorld
    var dir: URL { world.directory }

    init() throws {
        world = try CommandWorld("runner-errors")
        for (folder, target) in [("flickr", world.flickr.path), ("reference", "/usr/bin/lua5.4")] {
            let bin = dir.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent("lua").path, withDestinationPath: target)
        }
        try """
            local function inner(t) return t.y.z end
            local function outer() return inner({}) end
            outer()
            """.write(to: dir.appendingPathComponent("flickr/nested.lua"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: dir.appendingPathComponent("flickr/nested.lua"), to: dir.appendingPathComponent("reference/nested.lua"))
    }

    /// `./lua ARGS` in the folder of each; both outputs and statuses must be the same.
    func same(_ args: [String], _ comment: Comment) async throws {
        var results: [Products.Result] = []
        for folder in ["reference", "flickr"] {
            let r = try await Products.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec ./lua \"$@\"", "sh"] + args,
                                           environment: world.environment, directory: dir.appendingPathComponent(folder))
            #expect(!r.timedOut)
            results.append(r)
        }
        let (lua, flickr) = (results[0], results[1])
        #expect(lua.stderr.contains("./lua: ") || lua.stderr.isEmpty, "lua5.4 \(args): \(lua.stderr)")
        #expect(flickr.stderr == lua.stderr && flickr.stdout == lua.stdout && flickr.status == lua.status,
                "\(comment): flickr and lua5.4 differ:\nflickr (\(flickr.status)): \(flickr.stdout)\(flickr.stderr)\nlua5.4 (\(lua.status)): \(lua.stdout)\(lua.stderr)")
    }

    @Test("the program name as invoked begins each message; string errors get a traceback ending [C]: in ?")
    func messagesAndTracebacks() async throws {
        try await same(["-e", "error('x')"], "a string error")
        try await same(["nested.lua"], "a traceback through local functions")
        try await same(["-e", "x ="], "a syntax error")
        try await same(["missing.lua"], "a script that is not there")
        try await same(["-e", "print(debug.getinfo(2).what, debug.getinfo(2).currentline)"], "the C frame above the main chunk")
    }

    @Test("an error object's __tostring is its message, made before the stack unwinds, with no traceback; other objects are named by type")
    func errorObjects() async throws {
        try await same(["-e", "error(setmetatable({}, { __tostring = function() return 'obj' end }))"], "__tostring")
        try await same(["-e", "error({})"], "a table")
        try await same(["-e", "error(nil)"], "nil")
        try await same(["-e", "error(setmetatable({}, { __tostring = function() return 42 end }))"], "__tostring that is no string")
        try await same(["-e", """
            local c <close> = setmetatable({}, { __close = function() io.stderr:write('close ran\\n') end })
            error(setmetatable({}, { __tostring = function() io.stderr:write('tostring, level 4 is ', debug.getinfo(4, 'S').what, '\\n') return 'obj' end }))
            """], "__tostring runs before the to-be-closed variable is closed, the stack whole")
    }

    @Test("-v prints Lua's own copyright line, and -i off a terminal reads as lua5.4's session")
    func versionAndPlainSession() async throws {
        try await same(["-v"], "-v")
        try await same(["-v", "-e", "print('hello')"], "-v then a chunk")
    }
}

