import Foundation

/// Unbuffered writes to the standard streams (Swift's `print` goes through C stdio; these are
/// for messages that must not wait for a flush).
enum FileHandleOutput {
    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func standardOutput(_ text: String) {
        fflush(nil)
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

/// Terminal facts the command adapts to.
enum Terminal {
    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Colour only on a terminal and never under NO_COLOR (https://no-color.org) or --no-color.
    static func colorEnabled(noColorOption: Bool, environment: [String: String]) -> Bool {
        !noColorOption && stdoutIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }
}
