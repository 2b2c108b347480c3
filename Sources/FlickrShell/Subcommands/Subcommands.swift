import FlickrAPI
import FlickrCommandLine
import FlickrJobs
import FlickrLibrary
import FlickrLua
import FlickrProtocol
import FlickrSandbox
import Foundation
import LuaKit

/// The subcommands of `flickr` (CLI.md, ``CommandLineSpec/subcommands``). Exit statuses: 0
/// success, 1 a Flickr or network failure, 2 a usage problem (bad arguments, no credentials).
enum Subcommands {
    static func run(_ name: String, arguments: [String], invocation: Invocation,
                    environment: [String: String]) async -> Int32 {
        do {
            if let spec = CommandLineSpec.subcommand(named: name), wantsHelp(arguments) {
                print(TextLayout.fit(spec.helpText, width: LineEditor.terminalColumns))
                return 0
            }
            switch name {
            case "call": return try await Call.run(arguments, invocation, environment)
            case "login": return try await Login.run(arguments, invocation, environment)
            case "logout": return try Logout.run(arguments, invocation, environment)
            case "whoami": return try await WhoAmI.run(arguments, invocation, environment)
            case "help": return try Help.run(arguments)
            case "upload": return try await UploadCommand.run(arguments, invocation, environment)
            case "download": return try await DownloadCommand.run(arguments, invocation, environment)
            case "retag": return try await RetagCommand.run(arguments, invocation, environment)
            case "edit": return try await EditCommand.run(arguments, invocation, environment)
            case "push": return try await PushCommand.run(arguments, invocation, environment)
            case "jobs": return try await JobsCommand.run(arguments, invocation, environment)
            case "sync": return try await SyncCommand.run(arguments, invocation, environment)
            case "find": return try await FindCommand.run(arguments, invocation, environment)
            case "backup": return try await BackupCommand.run(arguments, invocation, environment)
            case "export": return try await ExportCommand.run(arguments, invocation, environment)
            case "completion": return try CompletionCommand.run(arguments)
            case "editor": return try EditorCommand.run(arguments)
            case "__complete": return try CompletionCommand.complete(arguments, environment: environment)
            default: throw Invocation.UsageError(message: "unknown subcommand \(name)")
            }
        } catch let error as Invocation.UsageError {
            FileHandleOutput.standardError("flickr \(name): \(error.message)\n")
            return 2
        } catch var error as FlickrError {
            // `flickr whoami: whoami: …` says the command twice; once is enough.
            if error.method == name { error.method = nil }
            FileHandleOutput.standardError("flickr \(name): \(error)\n")
            return error.kind == .usage ? 2 : 1
        } catch let error as JobError {
            FileHandleOutput.standardError("flickr \(name): \(error)\n")
            return 1
        } catch let error as LibraryError {
            FileHandleOutput.standardError("flickr \(name): \(error)\n")
            return 1
        } catch {
            FileHandleOutput.standardError(FlickrShell.report(error) + "\n")
            return 1
        }
    }

    /// `--help` or `-h` among the options (before a `--`).
    static func wantsHelp(_ args: [String]) -> Bool {
        for a in args {
            if a == "--" { return false }
            if a == "--help" || a == "-h" { return true }
        }
        return false
    }

    /// A subcommand's session and, with `--sandbox`, the in-process server; ``close()`` ends both.
    struct OpenSession {
        let session: FlickrLuaSession
        let server: FlickrSandboxServer?

        func close() {
            session.close()
            if let server { Task.detached { try? await server.stop() } }
        }
    }

    /// The client for a subcommand: sandbox, or credentials from options, environment, profile.
    static func session(_ invocation: Invocation, _ environment: [String: String], profile: String? = nil) async throws -> OpenSession {
        var inv = invocation
        if let profile { inv.profile = profile }
        let (session, server) = try await FlickrShell.makeSession(inv, environment: environment)
        return OpenSession(session: session, server: server)
    }
}

/// `flickr call METHOD [key=value ...] [--json] [--verb GET|POST] [--no-strict]`
enum Call {
    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let options = try CommandLineParser.parse(args, for: "call")
        let words = options.positional
        guard let given = words.first else {
            throw Invocation.UsageError(message: "usage: flickr call METHOD [key=value ...] [--json] [--verb GET|POST] [--no-strict]")
        }
        if let bad = invalidUTF8Argument() {
            throw Invocation.UsageError(message: "argument '\(bad)' is not valid UTF-8 (the shell passed bytes in another encoding)")
        }
        var arguments: [(String, String)] = []
        for word in words.dropFirst() {
            guard let eq = word.firstIndex(of: "="), eq != word.startIndex else {
                throw Invocation.UsageError(message: "argument '\(word)' is not key=value")
            }
            arguments.append((String(word[..<eq]), String(word[word.index(after: eq)...])))
        }
        // Checked before a session opens: a misspelt method or argument costs no request and
        // is not hidden behind missing credentials.
        let strict = options["no-strict"] == nil
        let method: String
        do {
            method = try MethodCatalog.shared.check(given, argumentNames: arguments.map(\.0), strict: strict)
        } catch {
            FileHandleOutput.standardError(error.description + "\n")
            return 2
        }
        var verb: HTTPVerb?
        if let v = options["verb"] {
            guard let parsed = HTTPVerb(rawValue: v.uppercased()) else { throw Invocation.UsageError(message: "--verb must be GET or POST") }
            verb = parsed
        }
        let opened = try await Subcommands.session(inv, env)
        defer { opened.close() }
        let session = opened.session
        guard !session.client.context.apiKey.isEmpty else { throw FlickrError.missingCredentials("API key", method: method) }
        let rsp: FlickrNode
        do throws(FlickrError) {
            rsp = try await session.client.call(method, arguments: arguments, verb: verb, strict: strict)
        } catch {
            // A Flickr error: `[code] message` on stderr, status 1 (a usage error: 2).
            let text = error.code.map { "[\($0)] \(error.message)" } ?? error.description
            FileHandleOutput.standardError(text + "\n")
            return error.kind == .usage ? 2 : 1
        }
        if options["json"] != nil {
            print(FlickrJSON.serialize(rsp, sortedKeys: true, pretty: true))
        } else {
            print(try await prettyLua(rsp, session: session))
        }
        return 0
    }

    /// The first command-line argument whose bytes are not UTF-8 (as Swift shows it, with
    /// U+FFFD in place of the bad bytes), or nil. `CommandLine.arguments` has already replaced
    /// them, so the raw `argv` is read.
    static func invalidUTF8Argument() -> String? {
        for i in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[i] else { continue }
            if String(validatingCString: raw) == nil { return String(cString: raw) }
        }
        return nil
    }

    /// The response as the REPL prints it: the Lua table, through `flickr.pretty`.
    static func prettyLua(_ rsp: FlickrNode, session: FlickrLuaSession) async throws -> String {
        try await session.runtime.perform { state in
            let values = try state.run("""
                local tree = ...
                return require("flickr.pretty").format(tree, { depth = math.huge, items = math.huge })
                """, name: "=(flickr call)", arguments: [LuaValue(tree: rsp)])
            return values.first?.stringValue ?? ""
        }
    }
}

extension LuaValue {
    /// A mapped response as a Lua value: maps → tables with string keys, lists → arrays.
    init(tree: FlickrNode) {
        switch tree {
        case .string(let s): self = .string(LuaString(s))
        case .list(let items): self = .array(items.map(LuaValue.init(tree:)))
        case .map(let m):
            var d: [LuaValue: LuaValue] = [:]
            for (k, v) in m { d[.string(LuaString(k))] = LuaValue(tree: v) }
            self = .map(d)
        }
    }
}
