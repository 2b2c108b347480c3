import FlickrLua
import LuaKit

/// How the interactive loop looks and behaves.
public struct REPLOptions: Sendable {
    /// ANSI colour in the prompt and the printed values (only on a terminal, never with NO_COLOR).
    public var color: Bool
    /// Where history is kept (`$XDG_STATE_HOME/flickr/history`); nil keeps none.
    public var historyPath: String?
    /// Print the version banner first (lua.c does when it starts the REPL by itself).
    public var banner: Bool

    public init(color: Bool, historyPath: String?, banner: Bool) {
        self.color = color
        self.historyPath = historyPath
        self.banner = banner
    }
}

/// The interactive loop of the `flickr` command (CLI.md "The REPL").
public enum REPL {
    /// Runs until end of input or `:quit`; returns the process exit status.
    public static func run(session: FlickrLuaSession, options: REPLOptions) async -> Int32 {
        // Replaced by the readline REPL (issue 5); until then say so instead of pretending.
        FileHandleOutput.standardError("flickr: the interactive REPL is not built yet; run a script or a subcommand\n")
        return 1
    }
}
