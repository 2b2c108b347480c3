import FlickrAPI
import FlickrLua
import FlickrProtocol
import Foundation
import Testing
import FlickrTestSupport

/// Runs a program of Debian's (found on PATH: scripts/bootstrap installs lua5.4, lua-check,
/// lua-cjson, lua-filesystem and luarocks) with the test's environment.
private func tool(_ name: String, _ arguments: [String], world: CommandWorld, env extra: [String: String] = [:],
                  directory: URL? = nil, timeout: Double = 60) async throws -> Products.Result {
    let r = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"), [name] + arguments,
                                   environment: world.environment.merging(extra) { $1 }, directory: directory ?? world.directory,
                                   timeout: timeout)
    #expect(!r.timedOut, "\(name) \(arguments) timed out")
    #expect(r.status != 127, "\(name) is not installed (scripts/bootstrap installs it): \(r.stderr)")
    return r
}

/// `flickr editor luals` (LuaLS annotations) and `flickr editor luacheck` (a .luacheckrc), checked
/// against the catalog compiled into the binary, the live module, Debian's luac5.4 and luacheck.
@Suite("Editor and lint definitions", .timeLimit(.minutes(3)), .tags(.command))
struct EditorDefinitionTests {
    let world: CommandWorld
    var flickr: URL { world.flickr }
    var dir: URL { world.directory }

    init() throws {
        world = try CommandWorld("editor")
    }

    func run(_ args: [String], env extra: [String: String] = [:]) async throws -> Products.Result {
        let r = try await Products.run(flickr, args, environment: world.environment.merging(extra) { $1 }, directory: dir)
        #expect(!r.timedOut, "flickr \(args) timed out")
        return r
    }

    func write(_ name: String, _ text: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Every field of the live `flickr` table that is not a catalog method or namespace (nor
    /// internal, `_`-prefixed): `walk`, `oauth`, `oauth.login`, …
    func liveHelperPaths() async throws -> Set<String> {
        let r = try await run(["-e", """
            local catalog = {}
            for _, m in ipairs(flickr.methods()) do
              local path = m:sub(8)
              catalog[path] = true
              while path:find("%.") do path = path:match("^(.*)%.[^.]*$"); catalog[path] = true end
            end
            local function walk(t, prefix)
              for k, v in pairs(t) do
                if type(k) == "string" and k:sub(1, 1) ~= "_" then
                  local path = prefix and (prefix .. "." .. k) or k
                  if not catalog[path] then print(path) end
                  if type(v) == "table" and path ~= "Error" then walk(v, path) end
                end
              end
            end
            walk(flickr)
            """])
        try #require(r.status == 0, "\(r.stderr)")
        return Set(r.stdout.split(separator: "\n").map(String.init))
    }

    @Test("luals: ---@meta flickr, parses with luac5.4, every method with its arguments, every helper")
    func lualsNamesEveryMethodAndRequiredArgument() async throws {
        let r = try await run(["editor", "luals"])
        try #require(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let text = r.stdout
        #expect(text.hasPrefix("---@meta flickr\n"))
        let file = try write("flickr.lua", text)
        let luac = try await tool("luac5.4", ["-p", file], world: world)
        #expect(luac.status == 0, "luac5.4 -p: \(luac.stderr)")

        // Parsed as text: per method its declaration, its argument class with each argument
        // (required ones without `?`) and its parameter (optional when nothing is required).
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var declared: Set<String> = []
        var classes: [String: [String: Bool]] = [:]  // class → field → optional
        var parameters: [String: Bool] = [:]          // method → args optional
        var current: String?
        for line in lines {
            if let m = line.prefixMatch(of: /function (flickr\.[A-Za-z0-9_.]+)\(/) {
                declared.insert(String(m.1))
            } else if let m = line.wholeMatch(of: #/---@class \(exact\) (flickr\.[A-Za-z0-9_.]+)\.Args/#) {
                current = String(m.1)
                classes[String(m.1), default: [:]] = [:]
            } else if let m = line.prefixMatch(of: #/---@field ([A-Za-z0-9_]+)(\??) /#), let c = current {
                classes[c]?[String(m.1)] = !m.2.isEmpty
            } else if let m = line.prefixMatch(of: #/---@param args(\??) (flickr\.[A-Za-z0-9_.]+)\.Args/#) {
                parameters[String(m.2)] = !m.1.isEmpty
            } else if !line.hasPrefix("---@field") {
                current = nil
            }
        }
        let catalog = MethodCatalog.shared
        #expect(catalog.methods.count >= 223)
        for method in catalog.methods {
            #expect(declared.contains(method.name) && text.contains("\nfunction \(method.name)(args) end\n"), "\(method.name) is not declared")
            let fields = classes[method.name] ?? [:]
            for argument in method.arguments {
                #expect(fields[argument.name] == argument.optional,
                        "\(method.name): argument \(argument.name) \(fields[argument.name] == nil ? "missing" : "with the wrong optionality")")
            }
            #expect(fields.count == method.arguments.count, "\(method.name): \(fields.keys.sorted()) vs the catalog")
            #expect(parameters[method.name] == method.requiredArguments.isEmpty, "\(method.name)'s args parameter")
        }
        // Each namespace is a class, so that an editor reports a name it lacks (flickr.photos.serach).
        for namespace in LuaDefinitions.namespaces() {
            #expect(text.contains("---@class flickr.\(namespace)\nflickr.\(namespace) = {}\n"), "namespace \(namespace)")
        }
        let kinds = try #require(lines.first { $0.hasPrefix("---@alias flickr.ErrorKind ") })
        for kind in FlickrError.Kind.allCases.map(\.rawValue) + ["lua"] { #expect(kinds.contains("\"\(kind)\""), "kind \(kind)") }
        // Documentation: a method's description and a required argument's.
        #expect(text.contains("---@field photo_id flickr.Id The id of the photo to get information for."))
        #expect(text.contains("---Get information about a photo. The calling user must have permission to view the photo."))
        #expect(text.contains("---@field photos flickr.PhotoList"))

        // Run by lua5.4 (it defines tables and empty functions): every catalog method and every
        // helper of the live module is there, a function or a table as in the module.
        let helpers = try await liveHelperPaths()
        #expect(helpers.isSuperset(of: ["walk", "map", "upload", "download", "library", "retag", "edit", "jobs", "configure",
                                        "photo_url", "photo_page_url", "short_url", "Error", "oauth", "library.photos"]),
                "\(helpers.sorted())")
        let probe = try write("probe.lua", """
            local meta = assert(dofile(arg[1]))
            assert(meta == flickr, "the file returns the module")
            local missing = {}
            for line in io.lines(arg[2]) do
              local t = flickr
              for part in line:gmatch("[^.]+") do t = type(t) == "table" and rawget(t, part) or nil end
              if t == nil then missing[#missing + 1] = line end
            end
            print(#missing == 0 and "all there" or table.concat(missing, " "))
            """)
        let names = catalog.names.map { String($0.dropFirst("flickr.".count)) } + helpers.sorted()
        let list = try write("names.txt", names.joined(separator: "\n") + "\n")
        let lua = try await tool("lua5.4", [probe, file, list], world: world)
        #expect(lua.status == 0 && lua.stdout == "all there\n", "\(lua.stdout)\(lua.stderr)")
    }

    @Test("luacheck: flickr.photos.serach is an undefined field; the examples have none")
    func luacheckFlagsUndefinedFields() async throws {
        let r = try await run(["editor", "luacheck"])
        try #require(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        _ = try write(".luacheckrc", r.stdout)
        let luac = try await tool("luac5.4", ["-p", dir.path + "/.luacheckrc"], world: world)
        #expect(luac.status == 0, "\(luac.stderr)")
        func luacheck(_ files: [String]) async throws -> Products.Result {
            try await tool("luacheck", ["--no-color", "--codes", "--formatter", "plain"] + files, world: world)
        }

        // A misspelt method, a misspelt helper and a misspelt namespace: W143, accessing an
        // undefined field of the global flickr; the right names are not reported.
        let bad = try write("bad.lua", """
            local rsp = flickr.photos.serach{ tags = "cat" }
            local ok = flickr.photos.search{ tags = "cat" }
            for p in flickr.wlak("flickr.photos.search", {}) do print(p) end
            flickr.photoz.getInfo{ photo_id = 1 }
            print(rsp, ok, flickr.photos.comments.getList{ photo_id = 1 }, flickr.library.photos{}, flickr.Error)
            """)
        let flagged = try await luacheck([bad])
        #expect(flagged.status != 0)
        let warnings = flagged.stdout.split(separator: "\n").map(String.init)
        #expect(warnings.contains { $0.hasSuffix("bad.lua:1:13: (W143) accessing undefined field 'photos.serach' of global 'flickr'") },
                "\(flagged.stdout)")
        #expect(warnings.contains { $0.contains("bad.lua:3:") && $0.contains("(W143) accessing undefined field 'wlak' of global 'flickr'") })
        #expect(warnings.contains { $0.contains("bad.lua:4:") && $0.contains("(W143) accessing undefined field 'photoz.getInfo' of global 'flickr'") })
        #expect(warnings.count == 3, "\(flagged.stdout)")

        // Every method and helper of the module, accessed through the global: not one warning.
        let helpers = try await liveHelperPaths()
        let every = (MethodCatalog.shared.names + helpers.map { "flickr." + $0 }).map { "print(\($0))" }
        let all = try await luacheck([try write("every.lua", every.joined(separator: "\n") + "\n")])
        #expect(all.status == 0 && all.stdout.isEmpty, "\(all.stdout)")

        // lua/examples/ as written (they `require "flickr"` into a local), and with that line
        // removed so that every `flickr.` in them is the global luacheck checks: no undefined field.
        let examples = Fixtures.repository.appendingPathComponent("lua/examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".lua") }.sorted()
        #expect(names.count >= 3)
        let asWritten = try await luacheck(names.map { examples.path + "/" + $0 })
        #expect(asWritten.status == 0 && asWritten.stdout.isEmpty, "\(asWritten.stdout)")
        var global: [String] = []
        for name in names {
            let source = try String(contentsOf: examples.appendingPathComponent(name), encoding: .utf8)
            let stripped = source.replacingOccurrences(of: "local flickr = require \"flickr\"\n", with: "\n")
            #expect(stripped != source, "\(name) no longer requires flickr into a local: check what this test strips")
            global.append(try write("global/" + name, stripped))
        }
        let checked = try await luacheck(global)
        #expect(!checked.stdout.contains("W143") && !checked.stdout.contains("W113"),
                "undefined fields or globals in the examples: \(checked.stdout)")
        #expect(checked.status == 0 && checked.stdout.isEmpty, "\(checked.stdout)")
    }

    @Test("editor without luals or luacheck is a usage error")
    func editorUsage() async throws {
        for args in [["editor"], ["editor", "vim"], ["editor", "luals", "luacheck"]] {
            let r = try await run(args)
            #expect(r.status == 2 && r.stdout.isEmpty && r.stderr.contains("usage: flickr editor luals|luacheck"), "\(args): \(r.stderr)")
        }
        let help = try await run(["editor", "--help"])
        #expect(help.status == 0 && help.stdout.contains("usage: flickr [global options] editor luals|luacheck"))
    }
}

/// Lua C modules and rocks load in scripts run by `flickr` exactly as in Debian's `lua5.4`:
/// the same default `package.path`/`cpath` (Debian's, compiled into its liblua5.4), the same
/// handling of LUA_PATH, LUA_CPATH and their _5_4 forms, Debian's lua-cjson and lua-filesystem,
/// and a rock (a Lua and a C module) built and installed by Debian's luarocks for Lua 5.4.
@Suite("C modules and rocks", .timeLimit(.minutes(3)), .tags(.command))
struct CModuleTests {
    let world: CommandWorld
    var flickr: URL { world.flickr }
    var dir: URL { world.directory }

    init() throws {
        world = try CommandWorld("cmodules")
    }

    func write(_ name: String, _ text: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// The same arguments to `lua5.4` and to `flickr`: both must succeed with the same output.
    func same(_ args: [String], env: [String: String] = [:], _ comment: Comment? = nil) async throws -> String {
        let lua = try await tool("lua5.4", args, world: world, env: env)
        let r = try await Products.run(flickr, args, environment: world.environment.merging(env) { $1 }, directory: dir)
        #expect(!r.timedOut)
        #expect(lua.status == 0, "lua5.4 \(args): \(lua.stderr)")
        #expect(r.status == 0 && r.stdout == lua.stdout,
                "flickr and lua5.4 differ \(comment.map { "(\($0))" } ?? ""):\nflickr: \(r.stdout)\(r.stderr)\nlua5.4: \(lua.stdout)")
        return r.stdout
    }

    static let printPaths = ["-e", "print(package.path) print(package.cpath)"]

    @Test("the default package.path and cpath are Debian's lua5.4's, LUA_PATH/LUA_CPATH and _5_4 forms honoured")
    func pathsAreLua54s() async throws {
        let defaults = try await same(Self.printPaths, "defaults")
        // Debian's defaults: /usr/local first, then the multiarch and plain /usr/lib C paths.
        let cpath = try #require(defaults.split(separator: "\n").last.map(String.init))
        #expect(cpath.contains("/usr/lib/x86_64-linux-gnu/lua/5.4/?.so") || cpath.contains("/lua/5.4/?.so"), "\(cpath)")
        #expect(defaults.contains("/usr/local/share/lua/5.4/?.lua") && defaults.contains("/usr/share/lua/5.4/?.lua"))
        let cases: [[String: String]] = [
            ["LUA_PATH": dir.path + "/mine/?.lua"],
            ["LUA_PATH": dir.path + "/mine/?.lua;;", "LUA_CPATH": ";;" + dir.path + "/lib/?.so"],
            ["LUA_PATH_5_4": "/five-four/?.lua;;", "LUA_PATH": "/plain/?.lua"],
            ["LUA_CPATH_5_4": "/five-four/?.so", "LUA_CPATH": "/plain/?.so;;"],
            ["LUA_PATH": "a;;b;;c"],
        ]
        for env in cases { _ = try await same(Self.printPaths, env: env, "\(env)") }
        // -E: the variables ignored, Lua's defaults again.
        let ignored = try await same(["-E"] + Self.printPaths, env: ["LUA_PATH": "/nowhere/?.lua", "LUA_CPATH_5_4": "/nowhere/?.so"], "-E")
        #expect(ignored == defaults)
    }

    @Test("Debian's lua-cjson and lua-filesystem load and work as in lua5.4")
    func debianCModules() async throws {
        _ = try write("data/a.txt", "hello")
        _ = try write("data/b.txt", "")
        let script = try write("cmods.lua", """
            local cjson = require "cjson"
            local safe = require "cjson.safe"
            local lfs = require "lfs"
            print(package.searchpath("cjson", package.cpath), package.searchpath("lfs", package.cpath))
            local doc = cjson.decode('{"photos":{"photo":[{"id":"1","title":"caf\\\\u00e9"}],"total":1}}')
            print(doc.photos.photo[1].title, doc.photos.total, math.type(doc.photos.total), cjson.encode({ 1, 2, "three" }))
            print(safe.decode("{not json"))
            local names = {}
            for name in lfs.dir(arg[1]) do
              if name ~= "." and name ~= ".." then names[#names + 1] = name .. "=" .. lfs.attributes(arg[1] .. "/" .. name, "size") end
            end
            table.sort(names)
            print(table.concat(names, " "), lfs.attributes(arg[1], "mode"), lfs.mkdir(arg[1] .. "/made"), lfs.rmdir(arg[1] .. "/made"))
            """)
        let out = try await same([script, dir.path + "/data"])
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(out)")
        #expect(lines.first.map { $0.contains("/lua/5.4/cjson.so\t") && $0.hasSuffix("/lua/5.4/lfs.so") } == true, "\(out)")
        // (Debian's lua-cjson 2.1.0 decodes every number as a float, in lua5.4 as in flickr.)
        #expect(lines.dropFirst().first.map { $0.hasPrefix("café\t1") && $0.hasSuffix("\t[1,2,\"three\"]") } == true, "\(out)")
        #expect(lines.last == "a.txt=5 b.txt=0\tdirectory\ttrue\ttrue", "\(out)")
        // Also from -l, as lua5.4 -l does, and with the flickr module in the same script.
        let r = try await Products.run(flickr, ["-l", "cjson", "-e", "print(cjson.encode({ methods = #flickr.methods() }))"],
                                       environment: world.environment, directory: dir)
        #expect(r.status == 0 && r.stdout == "{\"methods\":\(MethodCatalog.shared.methods.count)}\n", "\(r.stdout)\(r.stderr)")
    }

    @Test("a rock installed by luarocks --lua-version 5.4 (a Lua and a C module) loads as in lua5.4")
    func luarocksRock() async throws {
        // No rock server is reachable here: the rock is built from a rockspec and local sources
        // with `luarocks make`, into a tree of the test's own.
        let source = dir.appendingPathComponent("greet")
        _ = try write("greet/greet.lua", """
            local M = {}
            function M.hello(name) return "hello, " .. name end
            return M
            """)
        _ = try write("greet/greetc.c", """
            #include <lua.h>
            #include <lauxlib.h>
            static int twice(lua_State *L) { lua_pushinteger(L, 2 * luaL_checkinteger(L, 1)); return 1; }
            int luaopen_greetc(lua_State *L) {
              luaL_Reg f[] = { { "twice", twice }, { NULL, NULL } };
              luaL_newlib(L, f);
              lua_pushstring(L, LUA_RELEASE);
              lua_setfield(L, -2, "built_for");
              return 1;
            }
            """)
        _ = try write("greet/greet-1.0-1.rockspec", """
            rockspec_format = "3.0"
            package = "greet"
            version = "1.0-1"
            source = { url = "file:///nowhere/greet-1.0.tar.gz" }
            description = { summary = "A test rock: a Lua module and a C module", license = "MIT" }
            dependencies = { "lua >= 5.4" }
            build = { type = "builtin", modules = { greet = "greet.lua", greetc = { sources = { "greetc.c" } } } }
            """)
        let tree = dir.path + "/rocks"
        let make = try await tool("luarocks", ["--lua-version", "5.4", "--tree", tree, "make", "greet-1.0-1.rockspec"],
                                  world: world, directory: source, timeout: 120)
        try #require(make.status == 0, "luarocks make: \(make.stdout)\(make.stderr)")
        let list = try await tool("luarocks", ["--lua-version", "5.4", "--tree", tree, "list", "--porcelain"], world: world)
        #expect(list.stdout.contains("greet\t1.0-1\tinstalled"), "\(list.stdout)")

        let script = try write("rock.lua", """
            local greet, greetc = require "greet", require "greetc"
            print(greet.hello("rock"), greetc.twice(21), greetc.built_for:sub(1, 7) == _VERSION)
            print((package.searchpath("greetc", package.cpath):gsub("^.*/rocks/", "")))
            """)
        // As `eval "$(luarocks --lua-version 5.4 --tree DIR path)"` sets them (full paths) ...
        let path = try await tool("luarocks", ["--lua-version", "5.4", "--tree", tree, "path", "--lr-path"], world: world)
        let cpath = try await tool("luarocks", ["--lua-version", "5.4", "--tree", tree, "path", "--lr-cpath"], world: world)
        let full = try await tool("luarocks", ["--lua-version", "5.4", "--tree", tree, "path"], world: world)
        var exported: [String: String] = [:]
        for line in full.stdout.split(separator: "\n") {
            if let m = line.wholeMatch(of: /export (LUA_C?PATH)='(.*)'/) { exported[String(m.1)] = String(m.2) }
        }
        #expect(exported.count == 2, "\(full.stdout)")
        let expected = "hello, rock\t42\ttrue\nlib/lua/5.4/greetc.so\n"
        #expect(try await same([script], env: exported, "luarocks path") == expected)
        // ... and the tree alone before the defaults (";;"), in the _5_4 variables.
        let lr = ["LUA_PATH_5_4": path.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + ";;",
                  "LUA_CPATH_5_4": cpath.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + ";;"]
        #expect(try await same([script], env: lr, "--lr-path;;") == expected)
    }
}
