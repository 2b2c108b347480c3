import CReadlineShim
import Foundation

/// Long REPL output through a pager, as git and man do: `$PAGER` (run by `/bin/sh -c`), else
/// `less -R` when it is installed (`-R` keeps the colours), else none.
///
/// The pager runs as the terminal's foreground job (CReadlineShim's `frl_run_pager`): it reads
/// the keys, gets Ctrl-C and the window changes, and the REPL takes the terminal back with its
/// modes when it ends. Output is never lost: when the pager cannot be run, or fails without
/// showing the text, the text is printed directly (``Pager/Outcome``).
struct Pager {
    /// The command, as `/bin/sh -c` runs it.
    let command: String

    /// The pager for `environment`, or nil when there is none.
    static func command(environment: [String: String]) -> String? {
        if let pager = environment["PAGER"], !pager.trimmingCharacters(in: .whitespaces).isEmpty { return pager }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/less") {
            return "less -R"
        }
        return nil
    }

    /// What showing a text gave.
    enum Outcome: Equatable {
        /// The pager ran and ended on its own (quit, or the text was shown).
        case shown
        /// The pager could not be run (not found, not executable, no process): the text still
        /// has to be printed, and the pager is of no use for the rest of the session.
        case unavailable(String)
        /// The pager ran but failed (a status other than 0, e.g. less without a keyboard): the
        /// text has to be printed.
        case failed(String)
    }

    /// The command `/bin/sh -c` runs: a simple command is `exec`ed, so that the pager itself
    /// (not a shell a Ctrl-C could end under it) is the process the REPL waits for.
    var shellCommand: String {
        let special = CharacterSet(charactersIn: ";&|<>()$`\\\"'*?[]#~=%{}\n")
        return command.rangeOfCharacter(from: special) == nil ? "exec " + command : command
    }

    /// Runs the pager with `text` on its standard input and waits for it to end.
    func show(_ text: String) -> Outcome {
        var status: Int32 = 0
        let started = text.withCString { frl_run_pager(shellCommand, $0, strlen($0), &status) }
        guard started == 0 else {
            return .unavailable("cannot run the pager '\(command)': \(String(cString: strerror(errno)))")
        }
        return Self.outcome(waitStatus: status, command: command)
    }

    /// Reads a wait status: 127 and 126 are the shell's "not found" and "cannot execute"; any
    /// other status but 0 is a failure; ended by a signal (the user's Ctrl-C or kill) counts as
    /// shown: the user ended it.
    static func outcome(waitStatus status: Int32, command: String) -> Outcome {
        let signalled = status & 0x7f != 0
        let code = (status >> 8) & 0xff
        if signalled || code == 0 { return .shown }
        switch code {
        case 127: return .unavailable("the pager '\(command)' was not found (set PAGER, or :set pager off)")
        case 126: return .unavailable("the pager '\(command)' cannot be executed (set PAGER, or :set pager off)")
        default: return .failed("the pager '\(command)' failed (exit status \(code))")
        }
    }
}
