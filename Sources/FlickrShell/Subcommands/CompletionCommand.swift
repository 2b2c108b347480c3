import FlickrAPI
import FlickrCommandLine
import FlickrLua

/// `flickr completion bash|zsh|fish` prints a completion script; `flickr __complete` (hidden)
/// answers the scripts with candidates (see ``ShellCompletion``).
enum CompletionCommand {
    static func run(_ args: [String]) throws(Invocation.UsageError) -> Int32 {
        let words = try CommandLineParser.parse(args, for: "completion").positional
        guard words.count == 1, let script = ShellCompletion.script(for: words[0]) else {
            throw Invocation.UsageError(message: "usage: flickr completion bash|zsh|fish")
        }
        print(script, terminator: "")
        return 0
    }

    /// `__complete --line LINE` (bash: the line up to the cursor, command name first) or
    /// `__complete -- WORD...` (zsh, fish: the words after the command name, the last one the
    /// word being completed).
    static func complete(_ args: [String], environment: [String: String]) throws(Invocation.UsageError) -> Int32 {
        let words: [String]
        if args.first == "--line", args.count == 2 {
            words = Array(ShellCompletion.words(ofLine: args[1]).dropFirst())
        } else if args.first == "--" {
            words = Array(args.dropFirst())
        } else {
            throw Invocation.UsageError(message: "usage: flickr __complete (--line LINE | -- WORD...)")
        }
        let completion = ShellCompletion(profiles: { ProfileStore(environment: environment).names() })
        for candidate in completion.candidates(words.isEmpty ? [""] : words) { print(candidate) }
        return 0
    }
}

/// `flickr editor luals|luacheck` prints what editors and linters know of the `flickr` module
/// (``LuaDefinitions``): LuaLS annotations (`flickr.lua`) or a complete `.luacheckrc`, computed
/// from the catalog compiled into this binary (`scripts/install` writes both under
/// `PREFIX/share/flickr/`).
enum EditorCommand {
    static func run(_ args: [String]) throws(Invocation.UsageError) -> Int32 {
        let words = try CommandLineParser.parse(args, for: "editor").positional
        let text: String
        switch words {
        case ["luals"]: text = LuaDefinitions.luaLS()
        case ["luacheck"]: text = LuaDefinitions.luacheckrc()
        default: throw Invocation.UsageError(message: "usage: flickr editor luals|luacheck")
        }
        print(text, terminator: "")
        return 0
    }
}
