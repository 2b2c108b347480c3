import FlickrAPI
import FlickrAPITesting
import FlickrCommandLine
import FlickrLua
import FlickrSandbox
import Foundation
import LuaKit

/// lua.c's `pmain`, step by step: `arg`, `LUA_INIT`, `-e`/`-l` in order, the script (or stdin),
/// then the REPL when asked for or when nothing else was given and stdin is a terminal.
enum LuaMode {
    static func run(_ inv: Invocation, environment: [String: String]) async -> Int32 {
        let session: FlickrLuaSession
        let server: FlickrSandboxServer?
        let replay: ReplayTransport?
        do {
            (session, server, replay) = try await FlickrShell.makeCassetteSession(inv, environment: environment)
        } catch {
            // A bad --endpoint, profile or setting is a usage error: 2, as for the subcommands.
            FileHandleOutput.standardError(report(error) + "\n")
            return (error as? FlickrError)?.kind == .usage ? 2 : 1
        }
        defer {
            session.close()
            if let server { Task.detached { try? await server.stop() } }
        }
        // Lua's copyright line alone, as lua5.4 -v prints it (a script may read it); `flickr
        // --version` and the REPL's banner name flickr.
        if inv.version { print(LuaRuntime.luaCopyright) }
        // Ctrl-C while Lua runs (the script, -e, LUA_INIT, stdin) as in lua.c: the running code
        // raises "interrupted!" (a blocking call is cancelled and raises it too), which a script
        // may catch with pcall; a second Ctrl-C meanwhile ends the process as lua.c's does.
        let interrupt = session.runtime.interruptHandle
        let watch = InterruptWatch { _ in
            signal(SIGINT, SIG_DFL)
            interrupt.interrupt()
        }
        defer { watch.stop() }
        do {
            try await prepare(inv, session: session, environment: environment)
            for action in inv.actions { try await perform(action, session: session) }
            if let script = inv.script { try await runScript(script, inv, session: session) }
        } catch {
            fflush(nil)
            FileHandleOutput.standardError(report(error) + "\n")
            return 1
        }
        // A request the cassette lacks fails the run even when the script caught its error.
        if let replay, !replay.misses.isEmpty {
            fflush(nil)
            for miss in replay.misses { FileHandleOutput.standardError("\(programName): \(miss)\n") }
            return 1
        }
        let startREPL: Bool
        if inv.interactive {
            startREPL = true
        } else if inv.script == nil && inv.actions.isEmpty && !inv.version {
            if Terminal.stdinIsTerminal {
                // At the window's width when printed, as every text the REPL shows.
                print(TextLayout.fit(versionLine() + "\n" + (await whereLine(session)), width: LineEditor.terminalColumns))
                startREPL = true
            } else {
                // lua.c: `dofile(L, NULL)` — standard input as one chunk.
                do {
                    try await runStandardInput(session: session)
                } catch {
                    fflush(nil)
                    FileHandleOutput.standardError(report(error) + "\n")
                    return 1
                }
                startREPL = false
            }
        } else {
            startREPL = false
        }
        fflush(nil)
        guard startREPL else { return 0 }
        watch.stop()  // the REPL takes Ctrl-C its own way
        let options = REPLOptions(color: Terminal.colorEnabled(noColorOption: inv.noColor, environment: environment),
                                  historyPath: historyPath(environment), banner: false,
                                  pager: Pager.command(environment: environment))
        return await REPL.run(session: session, options: options)
    }

    /// lua.c's `progname`: the program as invoked (`argv[0]`), which begins its error messages.
    static var programName: String {
        let invoked = CommandLine.arguments.first ?? ""
        return invoked.isEmpty ? "flickr" : invoked
    }

    /// An error as lua.c's `l_message` prints it: the program's name, then the message (a Lua
    /// error's is the message handler's: a traceback included where lua.c shows one).
    static func report(_ error: any Error) -> String {
        if let e = error as? LuaError { return "\(programName): \(e.messageWithTraceback)" }
        return "\(programName): \(error)"
    }

    /// The REPL banner's second line: the endpoint and who is logged in, as known without a
    /// call (`flickr.config()`), then how to get help.
    static func whereLine(_ session: FlickrLuaSession) async -> String {
        let values = try? await session.runtime.perform { state in
            try state.run("local c = flickr.config() return c.endpoint or '', c.user or '', c.signed_in or '', c.profile or ''",
                          name: "=(banner)")
        }
        let v = (values ?? []).map { $0.stringValue ?? "" } + ["", "", "", ""]
        let endpoint = v[0].isEmpty ? "https://api.flickr.com (Flickr)" : v[0]
        let who: String
        if !v[1].isEmpty {
            who = "user \(v[1])"
        } else if !v[2].isEmpty {
            who = "logged in (\(v[2])); flickr.test.login() says as whom"
        } else {
            who = "not logged in (flickr login)"
        }
        return "endpoint \(endpoint) · \(who)\(v[3].isEmpty || v[3] == "default" ? "" : " · profile \(v[3])") · :help for help"
    }

    /// The REPL's banner: Lua's own copyright line, as lua5.4 prints it, then ours.
    static func versionLine() -> String {
        LuaRuntime.luaCopyright + "\n" + FlickrShell.versionLine
    }

    /// `$XDG_STATE_HOME/flickr/history` (default `~/.local/state/flickr/history`).
    static func historyPath(_ env: [String: String]) -> String? {
        if let state = env["XDG_STATE_HOME"], !state.isEmpty { return state + "/flickr/history" }
        guard let home = env["HOME"], !home.isEmpty else { return nil }
        return home + "/.local/state/flickr/history"
    }

    /// `arg`, warnings, `LUA_INIT_5_4` / `LUA_INIT` (unless `-E`).
    static func prepare(_ inv: Invocation, session: FlickrLuaSession, environment: [String: String]) async throws {
        // lua.c createargtable: with no script, arg[0] is the program and the options follow it.
        let scriptName = inv.script ?? inv.interpreterArguments.first ?? "flickr"
        let interpreter = inv.script == nil ? [] : inv.interpreterArguments
        let arguments = inv.script == nil ? Array(inv.interpreterArguments.dropFirst()) : inv.scriptArguments
        let warnings = inv.warnings
        try await session.runtime.perform { state in
            state.setScriptArguments(script: scriptName, arguments: arguments, interpreter: interpreter)
            if warnings { _ = try state.run("warn('@on')", name: "=(command line)") }
        }
        guard !inv.ignoreEnvironment else { return }
        let (name, value): (String, String?) = environment["LUA_INIT_5_4"].map { ("=LUA_INIT_5_4", $0) }
            ?? ("=LUA_INIT", environment["LUA_INIT"])
        guard let value, !value.isEmpty else { return }
        if value.hasPrefix("@") {
            try await runFile(String(value.dropFirst()), session: session)
        } else {
            try await runChunk(value, name: name, session: session)
        }
    }

    static func perform(_ action: Invocation.Action, session: FlickrLuaSession) async throws {
        switch action {
        case .execute(let chunk):
            try await runChunk(chunk, name: "=(command line)", session: session)
        case .require(let global, let module):
            try await session.runtime.perform { state in
                _ = state.getGlobal("require")
                state.push(module)
                try state.callAsScript(arguments: 1, results: 1)
                state.setGlobal(global)
            }
        }
    }

    static func runChunk(_ source: String, name: String, session: FlickrLuaSession) async throws {
        try await session.runtime.perform { state in
            try state.load(source, name: name)
            try state.callAsScript(arguments: 0, results: 0)
        }
    }

    static func runFile(_ path: String, session: FlickrLuaSession) async throws {
        try await session.runtime.perform { state in
            try state.loadFile(path)
            try state.callAsScript(arguments: 0, results: 0)
        }
    }

    /// The script (`-` is standard input) with the global `arg`'s items as `...`, read after
    /// `-e` and `-l` ran (lua.c's `pushargs`: a chunk may have changed them, and an `arg` that
    /// is not a table is an error).
    static func runScript(_ script: String, _ inv: Invocation, session: FlickrLuaSession) async throws {
        try await session.runtime.perform { state in
            let base = state.top
            try state.loadFile(script == "-" ? nil : script)  // luaL_loadfile skips a #! first line
            do { try pushArguments(state) } catch {
                state.pop()  // the script
                throw error
            }
            try state.callAsScript(arguments: state.top - base - 1, results: 0)
        }
    }

    /// [-0, +n] lua.c's `pushargs`: `arg[1]` … `arg[#arg]` (raw reads; `#` may run `__len`).
    static func pushArguments(_ state: LuaState) throws {
        guard state.getGlobal("arg") == .table else {
            state.pop()
            throw LuaError(kind: .runtime, message: "'arg' is not a table")
        }
        let table = state.top
        let n = try state.length(at: table)
        guard n < 8_000, state.ensureStack(Int32(n) + 3) else {
            state.pop()
            throw LuaError(kind: .runtime, message: "too many arguments to script")
        }
        for i in 0..<n { _ = state.rawGet(index: i + 1, in: table) }
        state.remove(at: table)
    }

    static func runStandardInput(session: FlickrLuaSession) async throws {
        try await session.runtime.perform { state in
            try state.loadFile(nil)
            try state.callAsScript(arguments: 0, results: 0)
        }
    }
}
