import FlickrProtocol

/// The command line of `flickr`, parsed (CLI.md):
///
///     flickr [global options] [lua options] [script [args...]]
///     flickr [global options] SUBCOMMAND ...
///
/// Global options (``CommandLineSpec/globalOptions``) come first: `--sandbox[=DATA.json]`,
/// `--endpoint URL`, `--profile NAME`, `--debug`, `--no-color`, `--help`, `--version`. Then lua.c's: `-e chunk`, `-l [g=]mod`, `-i`, `-v`, `-E`, `-W`, `--`,
/// `-`. The first other argument is a subcommand word (no `/`, no `.lua`) or the script.
package struct Invocation: Equatable {
    /// A `-e` or `-l` in command-line order (lua.c runs them in order, before the script).
    package enum Action: Equatable {
        case execute(String)
        case require(global: String, module: String)
    }

    package enum Mode: Equatable {
        /// lua.c behaviour: actions, then the script (or stdin), then maybe the REPL.
        case lua
        case subcommand(String, [String])
    }

    package var sandbox = false
    package var sandboxData: String?
    package var endpoint: String?
    /// `--budget N/SECONDS`: the per-key call budget shared by every process.
    package var budget: String?
    package var profile: String?
    /// `--record CASSETTE`: the script's exchanges written to a cassette.
    package var record: String?
    /// `--replay CASSETTE`: the script answered from a cassette, offline.
    package var replay: String?
    package var debug = false
    package var noColor = false
    /// `--help` / `-h` before anything else: usage on stdout, exit 0.
    package var help = false
    /// `--version`: one line, exit 0 (`-v` is lua.c's, which goes on to run the script).
    package var showVersion = false

    package var actions: [Action] = []
    package var interactive = false
    package var version = false
    package var ignoreEnvironment = false
    package var warnings = false
    /// The script path (`-` means standard input); nil when none was given.
    package var script: String?
    package var scriptArguments: [String] = []
    /// Everything before the script, for `arg`'s negative indices (lua.c `createargtable`).
    package var interpreterArguments: [String] = []
    package var mode = Mode.lua

    /// The subcommand words (CLI.md): a first argument that is one of these is a subcommand.
    package static let subcommands = Set(CommandLineSpec.subcommands.map(\.name))

    /// A usage problem: exit status 2 (lua.c prints usage and exits 1; CLI.md wants 2).
    package struct UsageError: Error, Equatable, CustomStringConvertible {
        package var message: String
        package var description: String { message }
        package init(message: String) { self.message = message }
    }

    /// Applies the global option at `argv[i]` if it is one; returns how many words it took
    /// (0: not a global option).
    package mutating func takeGlobalOption(_ argv: [String], at i: Int) throws(UsageError) -> Int {
        guard let match = try CommandLineParser.option(in: argv, at: i, among: CommandLineSpec.globalOptions) else { return 0 }
        let value = match.values.first
        switch match.spec.name {
        case "sandbox": sandbox = true; sandboxData = value
        case "endpoint": endpoint = value
        case "budget": budget = value
        case "profile": profile = value
        case "record": record = value
        case "replay": replay = value
        case "debug": debug = true
        case "no-color": noColor = true
        case "help": help = true
        case "version": showVersion = true
        default: return 0
        }
        return match.taken
    }

    /// Parses `argv` (with `argv[0]`).
    package static func parse(_ argv: [String]) throws(UsageError) -> Invocation {
        var inv = Invocation()
        let program = argv.first ?? "flickr"
        var i = 1
        // Global options.
        while i < argv.count {
            let taken = try inv.takeGlobalOption(argv, at: i)
            if taken == 0 { break }
            i += taken
        }
        if inv.help || inv.showVersion { return inv }
        // A subcommand? Global options written after it (a common slip: `flickr call M k=v
        // --endpoint URL`) are taken as if they came first, unless the subcommand has an option
        // of that name itself; `--` ends the search.
        if i < argv.count, subcommands.contains(argv[i]) {
            let name = argv[i]
            let spec = CommandLineSpec.subcommand(named: name)
            var rest: [String] = []
            var j = i + 1
            var seenSeparator = false
            while j < argv.count {
                let a = argv[j]
                if a == "--" { seenSeparator = true }
                let own = a.hasPrefix("--") && spec?.option(named: Self.optionName(a)) != nil
                if !seenSeparator, !own, spec?.hidden == false, a != "-h", a != "--help" {
                    let taken = try inv.takeGlobalOption(argv, at: j)
                    if taken > 0 { j += taken; continue }
                }
                rest.append(a)
                j += 1
            }
            inv.mode = .subcommand(name, rest)
            if inv.record != nil || inv.replay != nil {
                throw UsageError(message: "--record and --replay are for scripts (flickr --record CASSETTE script.lua), not \(name)")
            }
            return inv
        }
        // lua.c options (collectargs + runargs).
        while i < argv.count {
            let a = argv[i]
            guard a.hasPrefix("-") else { break }
            if a == "--" { i += 1; break }
            if a == "-" { break }  // stdin as the script
            guard let letter = a.dropFirst().first,
                  let option = CommandLineSpec.luaOptions.first(where: { $0.short == letter }), option.value != nil || a.count == 2 else {
                let long = a.hasPrefix("--") ? String(a.dropFirst(2).prefix { $0 != "=" }) : ""
                let near = long.isEmpty ? [] : Suggestions.closest(to: long, among: CommandLineSpec.globalOptions.map(\.name)).map { "--" + $0 }
                throw UsageError(message: "unrecognized option '\(a)'" + Suggestions.phrase(near))
            }
            var value = String(a.dropFirst(2))
            if option.value != nil, value.isEmpty {
                // lua.c: the value is the next word, which may not look like an option.
                i += 1
                guard i < argv.count, !argv[i].hasPrefix("-") || argv[i] == "-" else {
                    throw UsageError(message: "'\(a)' needs argument")
                }
                value = argv[i]
            }
            switch option.name {
            case "execute": inv.actions.append(.execute(value))
            case "require":
                if let eq = value.firstIndex(of: "=") {
                    inv.actions.append(.require(global: String(value[..<eq]), module: String(value[value.index(after: eq)...])))
                } else {
                    inv.actions.append(.require(global: value, module: value))
                }
            case "interactive": inv.interactive = true; inv.version = true
            case "version": inv.version = true
            case "ignore-environment": inv.ignoreEnvironment = true
            default: inv.warnings = true
            }
            i += 1
        }
        if inv.record != nil, inv.replay != nil {
            throw UsageError(message: "--record and --replay do not go together: record once, then replay")
        }
        if inv.replay != nil, inv.sandbox {
            throw UsageError(message: "--replay answers from the cassette, with no server: leave out --sandbox")
        }
        inv.interpreterArguments = [program] + Array(argv[1..<i])
        if i < argv.count {
            inv.script = argv[i]
            inv.scriptArguments = Array(argv[(i + 1)...])
        }
        return inv
    }

    /// `--name` of `--name=value`.
    package static func optionName(_ word: String) -> String {
        let body = word.drop { $0 == "-" }
        return String(body.prefix { $0 != "=" })
    }

    /// lua.c's usage text, with this command's additions.
    package static var usage: String { CommandLineSpec.usage }
}
