import FlickrCommandLine
import FlickrProtocol

/// Completion candidates for the shells (bash, zsh, fish), from the one option table
/// (``CommandLineSpec``) and the compiled-in method catalog: no network, no Lua.
///
/// The shell scripts (`flickr completion SHELL`) call `flickr __complete` with the words before
/// the cursor; it prints one candidate per line. Two lines are directives, not candidates:
/// `:files` (let the shell complete a path) and `:dirs` (a directory). A candidate ending in `=`
/// (`tags=`) wants no space after it.
struct ShellCompletion {
    /// The stored profile names (read only when a profile is being completed).
    var profiles: () -> [String]
    var catalog: MethodCatalog = .shared

    static let files = ":files"
    static let directories = ":dirs"

    /// Candidates for the last of `words` (the words after `flickr`; the last one is the word
    /// being completed, possibly empty).
    func candidates(_ words: [String]) -> [String] {
        var words = words
        let current = words.popLast() ?? ""
        var i = 0
        // Global options first.
        while i < words.count, words[i].hasPrefix("-") {
            let w = words[i]
            if let option = CommandLineSpec.globalOption(named: Invocation.optionName(w)), w.hasPrefix("--") {
                if option.value != nil, !option.valueOptional, !w.contains("=") {
                    if i + 1 == words.count { return values(option.value, current) }
                    i += 2
                } else {
                    i += 1
                }
                continue
            }
            if w == "-h" { i += 1; continue }
            break
        }
        if i == words.count { return first(current) }
        guard let sub = CommandLineSpec.subcommand(named: words[i]), !sub.hidden else {
            // lua.c options or a script's arguments: paths are the best guess.
            return [Self.files]
        }
        return inSubcommand(sub, Array(words[(i + 1)...]), current)
    }

    /// The first word after the global options: an option, a subcommand or a script.
    private func first(_ current: String) -> [String] {
        if let eq = current.firstIndex(of: "="), current.hasPrefix("--") {
            let option = CommandLineSpec.globalOption(named: String(current[current.index(current.startIndex, offsetBy: 2)..<eq]))
            return option?.value == nil ? [] : values(option?.value, String(current[current.index(after: eq)...]))
        }
        if current.hasPrefix("-") { return matching(optionWords(CommandLineSpec.globalOptions), current) }
        let subcommands = CommandLineSpec.subcommands.filter { !$0.hidden }.map(\.name)
        return matching(subcommands, current) + [Self.files]
    }

    private func inSubcommand(_ sub: SubcommandSpec, _ rest: [String], _ current: String) -> [String] {
        // After an action word (`retag plan`), that action's options; before it, the actions.
        let action = sub.action(in: rest)
        let options = action?.options ?? sub.options
        // The value of the option just before?
        if let previous = rest.last, previous.hasPrefix("--"), !previous.contains("="),
           let option = options.first(where: { $0.name == Invocation.optionName(previous) })
            ?? CommandLineSpec.globalOption(named: Invocation.optionName(previous)),
           option.value != nil, !option.valueOptional {
            return values(option.value, current)
        }
        if current.hasPrefix("-") {
            let shadowed = Set(options.map(\.name))
            let globals = CommandLineSpec.globalOptions.filter { !shadowed.contains($0.name) && $0.name != "version" }
            return matching(optionWords(options + [CommandLineSpec.help] + globals), current)
        }
        if action != nil { return [Self.files] }  // a plan file, a job id: files are the best guess
        let positional = positionalWords(sub, rest)
        switch sub.positional {
        case .none:
            return []
        case .choice(let words):
            return positional.isEmpty ? matching(words, current) : []
        case .paths:
            return [Self.files]
        case .methodCall:
            guard let name = positional.first else { return methodNames(current) }
            return argumentNames(of: name, given: Array(positional.dropFirst()), current)
        case .methodOrGroup:
            guard positional.isEmpty else { return [] }
            let groups = Set(catalog.names.map(MethodCatalog.group(of:))).sorted()
            return matching(groups, current) + methodNames(current)
        case .photos:
            guard rest.contains("--search") else { return [] }
            return argumentNames(of: "flickr.photos.search", given: positional, current)
        }
    }

    /// `--name` words of `options` (`--name=` too, for those whose value is optional).
    private func optionWords(_ options: [OptionSpec]) -> [String] {
        options.flatMap { o in o.valueOptional ? ["--" + o.name, "--" + o.name + "="] : ["--" + o.name] }
    }

    /// The words of `rest` that are not options or option values (the parser's reading of a
    /// partial line: unknown options and unfinished values are passed over).
    private func positionalWords(_ sub: SubcommandSpec, _ rest: [String]) -> [String] {
        var spec = sub
        spec.options += CommandLineSpec.globalOptions.filter { sub.option(named: $0.name) == nil }
        return (try? CommandLineParser.parse(rest, spec: spec, lenient: true).positional) ?? []
    }

    private func values(_ kind: ValueKind?, _ current: String) -> [String] {
        switch kind {
        case .file: [Self.files]
        case .directory: [Self.directories]
        case .choice(let words): matching(words, current)
        case .profile: matching(profiles(), current)
        case .text, nil: []
        }
    }

    /// Method names starting with `current`; written without `flickr.` when `current` is.
    private func methodNames(_ current: String) -> [String] {
        let names = catalog.names
        if "flickr.".hasPrefix(current) || current.hasPrefix("flickr.") { return matching(names, current) }
        return matching(names.map { String($0.dropFirst("flickr.".count)) }, current)
    }

    /// `name=` for the method's arguments not given yet (required ones first).
    private func argumentNames(of method: String, given: [String], _ current: String) -> [String] {
        guard !current.contains("="), let m = catalog.resolve(method) else { return [] }
        let used = Set(given.compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        let names = (m.requiredArguments + m.optionalArguments).filter { !used.contains($0) && $0 != "api_key" }
        return matching(names.map { $0 + "=" }, current)
    }

    private func matching(_ words: [String], _ current: String) -> [String] {
        words.filter { $0.hasPrefix(current) }
    }

    /// Splits a command line the way a shell would, closely enough for completion: blanks
    /// separate words, quotes and backslashes group them. A trailing blank starts an empty word.
    static func words(ofLine line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for ch in line {
            if escaped { word.append(ch); escaped = false; inWord = true; continue }
            if let q = quote {
                if ch == q { quote = nil } else if ch == "\\" && q == "\"" { escaped = true } else { word.append(ch) }
                continue
            }
            switch ch {
            case "\\": escaped = true; inWord = true
            case "\"", "'": quote = ch; inWord = true
            case " ", "\t", "\n":
                if inWord { words.append(word); word = ""; inWord = false }
            default: word.append(ch); inWord = true
            }
        }
        words.append(word)  // the word being completed (empty after a blank)
        return words
    }
}
