import FlickrProtocol

/// A subcommand's words read against its ``SubcommandSpec``: the action (`retag plan`), each
/// option given with its values in command-line order (rules are ordered and repeatable), and
/// the positional words.
package struct ParsedArguments: Equatable {
    /// One option as given: its long name and its values (none for a flag).
    package struct Given: Equatable {
        package var name: String
        package var values: [String]
    }

    /// The action word, for a subcommand that has actions (`plan`, `apply`, …).
    package var action: String?
    package var given: [Given] = []
    package var positional: [String] = []

    /// The value of the option `name` (the last one given wins; "" for a flag), or nil when
    /// it was not given.
    package subscript(name: String) -> String? {
        given.last { $0.name == name }.map { $0.values.first ?? "" }
    }

    /// Whether the option `name` was given.
    package func has(_ name: String) -> Bool { given.contains { $0.name == name } }
}

/// The one reader of `flickr`'s options: global options (``Invocation``), every subcommand's
/// options and actions, and what shell completion needs to know of a partial line. It reads
/// ``CommandLineSpec``, which `--help` and the completions read too, so that what is accepted,
/// what is documented and what is completed cannot disagree.
package enum CommandLineParser {
    /// A match of ``option(in:at:among:)``: the option, its values, and the words it took.
    package struct Match {
        package var spec: OptionSpec
        package var values: [String]
        package var taken: Int
    }

    /// [one step] The option `args[i]` names among `options` — `--name`, `--name=value` (one
    /// value only), `-x` for a short alias — with the values it takes from the words after it.
    /// Nil when `args[i]` is not one of `options` (the caller decides whether that is an error).
    package static func option(in args: [String], at i: Int, among options: [OptionSpec]) throws(Invocation.UsageError) -> Match? {
        let word = args[i]
        let spec: OptionSpec
        var inline: String?
        if word.hasPrefix("--") {
            var name = String(word.dropFirst(2))
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard !name.isEmpty, let found = options.first(where: { $0.name == name }) else { return nil }
            spec = found
        } else if word.count == 2, word.hasPrefix("-"), let letter = word.last,
                  let found = options.first(where: { $0.short == letter }) {
            spec = found
        } else {
            return nil
        }
        guard spec.value != nil else {
            guard inline == nil else { throw Invocation.UsageError(message: "--\(spec.name) takes no value") }
            return Match(spec: spec, values: [], taken: 1)
        }
        if let inline {
            guard spec.count == 1 else {
                throw Invocation.UsageError(message: "--\(spec.name) takes \(spec.count) values: --\(spec.name) \(spec.placeholder)")
            }
            return Match(spec: spec, values: [inline], taken: 1)
        }
        if spec.valueOptional { return Match(spec: spec, values: [], taken: 1) }
        // A word that is itself one of the options ends the values early: `--rename onlyone
        // --add x` lacks a value; it does not rename "onlyone" to "--add".
        let values = args[(i + 1)..<min(args.count, i + 1 + spec.count)].prefix { word in
            !(word.hasPrefix("--") && options.contains { "--" + $0.name == word || word.hasPrefix("--" + $0.name + "=") })
        }
        guard values.count == spec.count else {
            let got = values.isEmpty ? "" : " (got only " + values.map { "'\($0)'" }.joined(separator: " ") + ")"
            throw Invocation.UsageError(message: spec.count == 1 ? "--\(spec.name) needs a value"
                                        : "--\(spec.name) needs \(spec.count) values: --\(spec.name) \(spec.placeholder)" + got)
        }
        return Match(spec: spec, values: Array(values), taken: 1 + spec.count)
    }

    /// Parses the words after `flickr NAME` against the subcommand's spec. Options may come
    /// anywhere; `--` makes every later word positional. A subcommand with actions takes the
    /// action first and then that action's options. With `lenient` (completion of a partial
    /// line), unknown options and missing values are skipped instead of refused.
    package static func parse(_ args: [String], for name: String, lenient: Bool = false) throws(Invocation.UsageError) -> ParsedArguments {
        guard let spec = CommandLineSpec.subcommand(named: name) else {
            throw Invocation.UsageError(message: "unknown subcommand \(name)")
        }
        return try parse(args, spec: spec, lenient: lenient)
    }

    package static func parse(_ args: [String], spec: SubcommandSpec, lenient: Bool = false) throws(Invocation.UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var words = args[...]
        var options = spec.options
        var command = spec.name
        if !spec.actions.isEmpty {
            guard let first = words.first, let action = spec.actions.first(where: { $0.name == first }) else {
                if lenient { return parsed }
                let given = words.first.map { "unknown action '\($0)'" } ?? "no action given"
                throw Invocation.UsageError(message: given + " (\(spec.actions.map(\.name).joined(separator: ", "))); "
                                            + "usage: flickr \(spec.name) \(spec.synopsis)")
            }
            parsed.action = action.name
            options = action.options
            command += " " + action.name
            words = words.dropFirst()
        }
        let list = Array(words)
        var i = 0
        while i < list.count {
            let word = list[i]
            if word == "--" {
                parsed.positional += list[(i + 1)...]
                break
            }
            let match: Match?
            do {
                match = try option(in: list, at: i, among: options)
            } catch where lenient {
                break  // a value still to be typed
            }
            if let match {
                parsed.given.append(.init(name: match.spec.name, values: match.values))
                i += match.taken
                continue
            }
            if word.hasPrefix("-"), word != "-" {
                if !lenient { throw unknownOption(word, options: options, command: command) }
            } else {
                parsed.positional.append(word)
            }
            i += 1
        }
        return parsed
    }

    /// "unknown option --nope (did you mean --no-strict?); see flickr call --help".
    package static func unknownOption(_ word: String, options: [OptionSpec], command: String) -> Invocation.UsageError {
        let name = Invocation.optionName(word)
        let near = Suggestions.closest(to: name, among: options.map(\.name)).map { "--" + $0 }
        let shown = word.hasPrefix("--") ? "--" + name : word
        return Invocation.UsageError(message: "unknown option \(shown)" + Suggestions.phrase(near)
                                     + " (see flickr \(command.split(separator: " ").first.map(String.init) ?? command) --help)")
    }
}
