/// The command line of `flickr`, parsed (CLI.md):
///
///     flickr [global options] [lua options] [script [args...]]
///     flickr [global options] call|login|logout|whoami|help ...
///
/// Global options come first: `--sandbox[=DATA.json]`, `--endpoint URL`, `--profile NAME`,
/// `--debug`, `--no-color`. Then lua.c's: `-e chunk`, `-l [g=]mod`, `-i`, `-v`, `-E`, `-W`, `--`,
/// `-`. The first other argument is a subcommand word (no `/`, no `.lua`) or the script.
struct Invocation: Equatable {
    /// A `-e` or `-l` in command-line order (lua.c runs them in order, before the script).
    enum Action: Equatable {
        case execute(String)
        case require(global: String, module: String)
    }

    enum Mode: Equatable {
        /// lua.c behaviour: actions, then the script (or stdin), then maybe the REPL.
        case lua
        case subcommand(String, [String])
    }

    var sandbox = false
    var sandboxData: String?
    var endpoint: String?
    var profile: String?
    var debug = false
    var noColor = false

    var actions: [Action] = []
    var interactive = false
    var version = false
    var ignoreEnvironment = false
    var warnings = false
    /// The script path (`-` means standard input); nil when none was given.
    var script: String?
    var scriptArguments: [String] = []
    /// Everything before the script, for `arg`'s negative indices (lua.c `createargtable`).
    var interpreterArguments: [String] = []
    var mode = Mode.lua

    static let subcommands: Set<String> = ["call", "login", "logout", "whoami", "help"]

    /// A usage problem: exit status 2 (lua.c prints usage and exits 1; CLI.md wants 2).
    struct UsageError: Error, Equatable, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Parses `argv` (with `argv[0]`).
    static func parse(_ argv: [String]) throws(UsageError) -> Invocation {
        var inv = Invocation()
        let program = argv.first ?? "flickr"
        var i = 1
        // Global options.
        while i < argv.count {
            let a = argv[i]
            if a == "--sandbox" { inv.sandbox = true }
            else if a.hasPrefix("--sandbox=") { inv.sandbox = true; inv.sandboxData = String(a.dropFirst("--sandbox=".count)) }
            else if a == "--endpoint" || a == "--profile" {
                guard i + 1 < argv.count else { throw UsageError(message: "'\(a)' needs an argument") }
                if a == "--endpoint" { inv.endpoint = argv[i + 1] } else { inv.profile = argv[i + 1] }
                i += 1
            }
            else if a.hasPrefix("--endpoint=") { inv.endpoint = String(a.dropFirst("--endpoint=".count)) }
            else if a.hasPrefix("--profile=") { inv.profile = String(a.dropFirst("--profile=".count)) }
            else if a == "--debug" { inv.debug = true }
            else if a == "--no-color" { inv.noColor = true }
            else { break }
            i += 1
        }
        // A subcommand?
        if i < argv.count, subcommands.contains(argv[i]) {
            inv.mode = .subcommand(argv[i], Array(argv[(i + 1)...]))
            return inv
        }
        // lua.c options (collectargs + runargs).
        let luaStart = i
        while i < argv.count {
            let a = argv[i]
            guard a.hasPrefix("-") else { break }
            if a == "--" { i += 1; break }
            if a == "-" { break }  // stdin as the script
            switch a.prefix(2) {
            case "-e", "-l":
                var value = String(a.dropFirst(2))
                if value.isEmpty {
                    i += 1
                    guard i < argv.count, !argv[i].hasPrefix("-") || argv[i] == "-" else {
                        throw UsageError(message: "'\(a)' needs argument")
                    }
                    value = argv[i]
                }
                if a.hasPrefix("-e") {
                    inv.actions.append(.execute(value))
                } else if let eq = value.firstIndex(of: "=") {
                    inv.actions.append(.require(global: String(value[..<eq]), module: String(value[value.index(after: eq)...])))
                } else {
                    inv.actions.append(.require(global: value, module: value))
                }
            case "-i" where a.count == 2: inv.interactive = true; inv.version = true
            case "-v" where a.count == 2: inv.version = true
            case "-E" where a.count == 2: inv.ignoreEnvironment = true
            case "-W" where a.count == 2: inv.warnings = true
            default:
                throw UsageError(message: "unrecognized option '\(a)'")
            }
            i += 1
        }
        inv.interpreterArguments = [program] + Array(argv[1..<i])
        _ = luaStart
        if i < argv.count {
            inv.script = argv[i]
            inv.scriptArguments = Array(argv[(i + 1)...])
        }
        return inv
    }

    /// lua.c's usage text, with this command's additions.
    static let usage = """
        usage: flickr [options] [script [args]]
               flickr call METHOD [key=value ...] [--json] [--verb GET|POST]
               flickr login [--perms read|write|delete] [--profile NAME] [--callback oob|loopback]
               flickr logout [--profile NAME] | whoami | help [METHOD]
        Global options (first):
          --sandbox[=DATA.json]  run against an in-process Flickr emulator (its app and default user)
          --endpoint URL         another base URL than Flickr's
          --profile NAME         stored credentials to use (default: FLICKR_PROFILE or "default")
          --debug                trace HTTP requests on stderr (secrets redacted)
          --no-color             no colour in the REPL
        Lua options (as lua):
          -e stat   execute string 'stat'
          -i        enter interactive mode after executing 'script'
          -l mod    require library 'mod' into global 'mod'
          -l g=mod  require library 'mod' into global 'g'
          -v        show version information
          -E        ignore environment variables
          -W        turn warnings on
          --        stop handling options
          -         stop handling options and execute stdin
        """
}
