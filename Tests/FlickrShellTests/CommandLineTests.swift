import FlickrCommandLine
import FlickrLua
import FlickrProtocol
import FlickrTestSupport
import Foundation
import Testing
@testable import FlickrShell

/// The option table and what reads it: the parser (help, version, global options after a
/// subcommand), shell completion, the man pages, and the compiled-in resources.
@Suite(.timeLimit(.minutes(3)), .tags(.unit))
struct CommandLineTests {
    // MARK: Parsing

    @Test func helpAndVersionComeFirst() throws {
        #expect(try Invocation.parse(["flickr", "--help"]).help)
        #expect(try Invocation.parse(["flickr", "-h"]).help)
        #expect(try Invocation.parse(["flickr", "--sandbox", "--version"]).showVersion)
        // After a script they belong to the script; lua.c's -v is still lua.c's.
        let script = try Invocation.parse(["flickr", "s.lua", "--help"])
        #expect(!script.help && script.script == "s.lua" && script.scriptArguments == ["--help"])
        #expect(try Invocation.parse(["flickr", "-v"]).version)
        #expect(throws: Invocation.UsageError.self) { try Invocation.parse(["flickr", "--debug=1"]) }
    }

    @Test func globalOptionsAfterASubcommandAreTakenAsIfFirst() throws {
        let inv = try Invocation.parse(["flickr", "call", "flickr.test.echo", "a=1", "--endpoint", "http://127.0.0.1:9", "--debug", "--json"])
        #expect(inv.endpoint == "http://127.0.0.1:9" && inv.debug)
        #expect(inv.mode == .subcommand("call", ["flickr.test.echo", "a=1", "--json"]))
        let sandbox = try Invocation.parse(["flickr", "upload", "x.jpg", "--sandbox=seed.json"])
        #expect(sandbox.sandbox && sandbox.sandboxData == "seed.json" && sandbox.mode == .subcommand("upload", ["x.jpg"]))
        // The subcommand's own option of that name stays its own; `--` ends the search.
        let login = try Invocation.parse(["flickr", "login", "--profile", "work"])
        #expect(login.profile == nil && login.mode == .subcommand("login", ["--profile", "work"]))
        let separated = try Invocation.parse(["flickr", "upload", "--", "--debug"])
        #expect(!separated.debug && separated.mode == .subcommand("upload", ["--", "--debug"]))
        // A subcommand's --help is the subcommand's.
        #expect(try Invocation.parse(["flickr", "call", "--help"]).mode == .subcommand("call", ["--help"]))
        #expect(throws: Invocation.UsageError.self) { try Invocation.parse(["flickr", "call", "m", "--endpoint"]) }
    }

    @Test func subcommandOptions() throws {
        let parsed = try CommandLineParser.parse(["a", "--tags=x y", "--public", "b", "--", "--set"], for: "upload")
        #expect(parsed["tags"] == "x y" && parsed.has("public") && parsed["public"] == "" && parsed["set"] == nil)
        #expect(parsed.positional == ["a", "b", "--set"])
        #expect(throws: Invocation.UsageError(message: "unknown option --nope (see flickr upload --help)")) {
            try CommandLineParser.parse(["--nope"], for: "upload")
        }
        #expect(throws: Invocation.UsageError(message: "--public takes no value")) { try CommandLineParser.parse(["--public=1"], for: "upload") }
        #expect(throws: Invocation.UsageError(message: "--set needs a value")) { try CommandLineParser.parse(["--set"], for: "upload") }
        // A near miss is named.
        #expect(throws: Invocation.UsageError(message: "unknown option --titel-from-filename (did you mean --title-from-filename?) (see flickr upload --help)")) {
            try CommandLineParser.parse(["--titel-from-filename"], for: "upload")
        }
    }

    @Test("retag's actions each take their own options through the one parser; rules keep their order")
    func actionsAndOrderedRules() throws {
        let plan = try CommandLineParser.parse(["plan", "--rename", "nyc", "new york", "--add", "trip", "--query", "tags=nyc", "--remove", "old"],
                                               for: "retag")
        #expect(plan.action == "plan" && plan.positional.isEmpty)
        #expect(plan.given.map(\.name) == ["rename", "add", "query", "remove"])
        #expect(plan.given[0].values == ["nyc", "new york"])
        let rules = try RetagCommand.planArguments(plan)
        #expect(rules.rules.count == 3 && rules.query == ["tags": "nyc"])
        let apply = try CommandLineParser.parse(["apply", "plan.json", "-y", "--events"], for: "retag")
        #expect(apply.action == "apply" && apply.positional == ["plan.json"] && apply.has("yes") && apply.has("events"))
        // An option of another action is refused, as is a missing or unknown action.
        #expect(throws: Invocation.UsageError.self) { try CommandLineParser.parse(["resume", "--yes"], for: "retag") }
        #expect(throws: Invocation.UsageError.self) { try CommandLineParser.parse(["plan", "--rename", "only-one"], for: "retag") }
        #expect(throws: Invocation.UsageError.self) { try CommandLineParser.parse(["plan", "--rename=a"], for: "retag") }
        #expect(throws: Invocation.UsageError.self) { try CommandLineParser.parse([], for: "retag") }
        #expect(throws: Invocation.UsageError.self) { try CommandLineParser.parse(["replan"], for: "retag") }
        // Every option of every action is documented in retag --help.
        let retag = try #require(CommandLineSpec.subcommand(named: "retag"))
        for action in retag.actions {
            for option in action.options { #expect(retag.helpText.contains("--" + option.name), "retag \(action.name) --\(option.name)") }
        }
    }

    @Test func usageListsEverySubcommandAndGlobalOption() {
        let usage = CommandLineSpec.usage
        for sub in CommandLineSpec.subcommands {
            #expect(usage.contains("flickr [global options] \(sub.name)") != sub.hidden, "\(sub.name)")
            if !sub.hidden {
                for option in sub.allOptions { #expect(sub.helpText.contains("--" + option.name), "\(sub.name) --\(option.name)") }
            }
        }
        for option in CommandLineSpec.globalOptions { #expect(usage.contains("--" + option.name)) }
    }

    // MARK: Shell completion

    func complete(_ words: [String], profiles: [String] = []) -> [String] {
        ShellCompletion(profiles: { profiles }).candidates(words)
    }

    @Test func completesSubcommandsOptionsAndValues() {
        #expect(complete(["up"]) == ["upload", ShellCompletion.files])
        #expect(complete(["--en"]) == ["--endpoint"])
        #expect(complete(["--sa"]) == ["--sandbox", "--sandbox="])
        #expect(complete(["--profile", ""], profiles: ["default", "work"]) == ["default", "work"])
        #expect(complete(["--profile", "w"], profiles: ["default", "work"]) == ["work"])
        #expect(complete(["--debug", "log"]) == ["login", "logout", ShellCompletion.files])
        #expect(complete(["login", "--perms", ""]) == ["read", "write", "delete"])
        #expect(complete(["login", "--pro"]) == ["--profile"])
        #expect(complete(["download", "--size", "6"]) == ["6k"])
        #expect(complete(["download", "--dir", ""]) == [ShellCompletion.directories])
        #expect(complete(["upload", "pics", ""]) == [ShellCompletion.files])
        #expect(complete(["completion", ""]) == ["bash", "zsh", "fish"])
        #expect(complete(["script.lua", ""]) == [ShellCompletion.files])
        #expect(complete(["__complete", ""]) == [ShellCompletion.files])  // hidden: not offered, not completed
        #expect(!complete([""]).contains("__complete"))
    }

    @Test func completesMethodsAndTheirArguments() {
        #expect(complete(["call", "flickr.photos.sea"]) == ["flickr.photos.search"])
        #expect(complete(["call", "photos.getI"]) == ["photos.getInfo"])
        #expect(complete(["call", ""]).count == MethodCatalog.shared.methods.count)
        #expect(Set(complete(["call", "flickr.photos.search", "ta"])) == ["tags=", "tag_mode="])
        // Arguments already given are not offered again; required ones come first.
        let args = complete(["call", "flickr.photos.getInfo", ""])
        #expect(args.first == "photo_id=" && args.contains("secret="))
        #expect(!complete(["call", "flickr.photos.getInfo", "photo_id=1", ""]).contains("photo_id="))
        #expect(complete(["call", "flickr.photos.search", "tags=c"]).isEmpty)
        #expect(complete(["--endpoint", "http://x", "call", "flickr.test.ec"]) == ["flickr.test.echo"])
        #expect(complete(["help", "photosets.c"]) == ["photosets.comments", "photosets.comments.addComment",
                                                       "photosets.comments.deleteComment", "photosets.comments.editComment",
                                                       "photosets.comments.getList", "photosets.create"])
        #expect(complete(["download", "--search", "user_id=me", "ta"]).sorted() == ["tag_mode=", "tags="])
        #expect(complete(["download", "123", ""]).isEmpty)
    }

    @Test func splitsABashLine() {
        #expect(ShellCompletion.words(ofLine: "flickr call m ") == ["flickr", "call", "m", ""])
        #expect(ShellCompletion.words(ofLine: "flickr upload 'my pics' --tags \"a \\\"b\\\"\" x") == ["flickr", "upload", "my pics", "--tags", "a \"b\"", "x"])
        #expect(ShellCompletion.words(ofLine: "flickr my\\ file") == ["flickr", "my file"])
    }

    @Test func everyShellGetsAScript() {
        for shell in ["bash", "zsh", "fish"] {
            let script = ShellCompletion.script(for: shell) ?? ""
            #expect(script.contains("__complete") && script.contains(":files") && script.contains(":dirs"), "\(shell)")
        }
        #expect(ShellCompletion.script(for: "tcsh") == nil)
    }

    // MARK: Man pages cover the option table

    @Test func manPagesNameEveryOptionAndSubcommand() throws {
        let flickr = try String(contentsOf: Fixtures.repository.appendingPathComponent("man/flickr.1"), encoding: .utf8)
        let text = flickr.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\fB", with: "")
            .replacingOccurrences(of: "\\fR", with: "").replacingOccurrences(of: "\\fI", with: "").replacingOccurrences(of: "\\fP", with: "")
        for option in CommandLineSpec.globalOptions { #expect(text.contains("--" + option.name), "flickr.1 lacks --\(option.name)") }
        for sub in CommandLineSpec.subcommands where !sub.hidden {
            #expect(text.contains(sub.name), "flickr.1 lacks \(sub.name)")
            for option in sub.allOptions { #expect(text.contains("--" + option.name), "flickr.1 lacks \(sub.name) --\(option.name)") }
        }
        for variable in ["FLICKR_API_KEY", "FLICKR_API_SECRET", "FLICKR_OAUTH_TOKEN", "FLICKR_OAUTH_TOKEN_SECRET", "FLICKR_ENDPOINT",
                         "FLICKR_PROFILE", "LUA_INIT", "LUA_PATH", "NO_COLOR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"] {
            #expect(text.contains(variable), "flickr.1 lacks \(variable)")
        }
        let sandbox = try String(contentsOf: Fixtures.repository.appendingPathComponent("man/flickr-sandbox.1"), encoding: .utf8)
            .replacingOccurrences(of: "\\-", with: "-")
        for option in ["host", "port", "data", "state", "faults", "image-faults", "rate-limit", "budget", "latency", "log", "help", "version"] {
            #expect(sandbox.contains("--" + option), "flickr-sandbox.1 lacks --\(option)")
        }
    }

    // MARK: Compiled-in resources

    @Test func everyShippedLuaFileIsCompiledInAsWritten() throws {
        let dir = Fixtures.repository.appendingPathComponent("lua/flickr")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".lua") }.sorted()
        #expect(files.count >= 4)
        for file in files {
            let module = "flickr." + file.dropLast(4)
            let source = try #require(ShippedLua.sources[module], "lua/flickr/\(file) is not compiled in (CFlickrLuaSources)")
            #expect(Data(source.bytes) == (try Data(contentsOf: dir.appendingPathComponent(file))), "\(module) differs from its file")
            #expect(source.path == "lua/flickr/" + file)
        }
        #expect(ShippedLua.sources.count == files.count)
    }

    @Test("lua/editor/definitions.lua is compiled in and read whole: its prelude, every helper section (in order), sandbox; no marker or placeholder left")
    func editorDefinitionsTemplateIsCompiledIn() throws {
        let file = try String(contentsOf: Fixtures.repository.appendingPathComponent("lua/editor/definitions.lua"), encoding: .utf8)
        let helperLines = file.split(separator: "\n").filter { $0.hasPrefix("--@@ helper ") }
        #expect(LuaDefinitions.helpers.map(\.path) == helperLines.map { String($0.split(separator: " ")[2]) })
        #expect(LuaDefinitions.helpers.filter(\.openTable).map(\.path) == ["Error"])
        let luals = LuaDefinitions.luaLS()
        #expect(!luals.contains("--@@") && !luals.contains("{{"), "a marker or placeholder of the template is printed")
        #expect(!luals.contains("These lines, before the first section"), "the template's notes are printed")
        for helper in LuaDefinitions.helpers where !helper.annotation.isEmpty {
            #expect(luals.contains(helper.annotation + "\n"), "helper \(helper.path) is not printed")
        }
        #expect(luals.contains("---@alias flickr.Id string|integer\n") && luals.contains("---@class flickr.SandboxControl\n"))
    }
}
