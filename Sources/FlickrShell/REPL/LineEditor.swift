import CReadlineShim
import Foundation

/// What reading a line gave.
enum LineInput: Equatable {
    case line(String)
    /// Ctrl-C: the line being typed was dropped.
    case interrupted
    /// Ctrl-D on an empty line, or the end of standard input.
    case endOfInput
}

/// Reads the REPL's lines: GNU readline (history, Ctrl-R, completion) when standard input is a
/// terminal, plain line reading otherwise. SIGINT goes through CReadlineShim's self-pipe, so a
/// Ctrl-C while editing discards the line and a Ctrl-C while Lua runs can be turned into an
/// interrupt by whoever waits (``waitForCompletion(of:onInterrupt:)``).
final class LineEditor {
    /// Whether readline is in use (standard input is a terminal).
    let interactive: Bool
    /// Where history is loaded from and saved to; nil keeps none.
    let historyPath: String?
    /// Entries kept in the history file.
    static let historyLimit: Int32 = 1000

    /// Word-break characters for completion: every ASCII punctuation character except those that
    /// are part of a path (`_ . : [ ] " '`), so `flickr.photos.ge` and `t["ke` are single words.
    static let wordBreaks = " \t\n!#$%&()*+,-/;<=>?@\\^`{|}~"

    init(interactive: Bool, historyPath: String?, candidates: frl_candidates_fn?) {
        self.interactive = interactive
        self.historyPath = historyPath
        _ = frl_signals_install()
        if interactive {
            frl_configure("flickr", Self.wordBreaks, candidates)
            frl_history_setup(Self.historyLimit)
            if let historyPath {
                _ = frl_history_load(historyPath)
                Self.createDirectory(of: historyPath)
            }
            // Each entry reaches the file when it is entered: nothing to save at exit.
            frl_history_file(historyPath, Self.historyLimit)
        }
    }

    /// Reads one line after showing `prompt` (with readline, `\u{1}`…`\u{2}` around escape
    /// sequences keep the width right; they are dropped in plain mode).
    func read(prompt: String) -> LineInput {
        var out: UnsafeMutablePointer<CChar>?
        let status: Int32
        if interactive {
            status = frl_readline(prompt, &out)
        } else {
            status = frl_plain_readline(prompt.filter { $0 != "\u{1}" && $0 != "\u{2}" }, &out)
        }
        defer { free(out) }
        switch Int(status) {
        case Int(FRL_LINE):
            guard let out else { return .endOfInput }
            // Off a terminal the line follows its prompt, as lua5.4's readline writes it
            // (`> x = 1`), so that a transcript reads as a session.
            if !interactive { FileHandleOutput.standardOutput(String(cString: out) + "\n") }
            return .line(String(cString: out))
        case Int(FRL_INTERRUPT):
            return .interrupted
        default:
            return .endOfInput
        }
    }

    /// Whether a failure to write the history file was said (once a session is enough).
    private var historyFailureSaid = false

    /// Adds a finished chunk (all its lines, newlines kept) to the history, and appends it to
    /// the history file at once; the first failure to write the file is said on stderr.
    func remember(_ chunk: String) {
        guard interactive, !chunk.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return }
        let status = frl_history_add(chunk)
        guard status != 0, let historyPath, !historyFailureSaid else { return }
        historyFailureSaid = true
        FileHandleOutput.standardError("flickr: could not save history to \(historyPath): \(String(cString: strerror(status)))\n")
    }

    /// Creates the directory of the history file (mode 0700) if it is missing.
    static func createDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) else { return }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
    }

    /// The history entries, oldest first.
    var history: [String] {
        (0..<frl_history_count()).compactMap { frl_history_entry($0).map { String(cString: $0) } }
    }

    /// Drops Ctrl-Cs that arrived while no one was reading (e.g. just as a call finished).
    func discardPendingInterrupts() { _ = frl_take_interrupts() }

    /// Waits on the REPL thread until `done` is readable, calling `onInterrupt` for each Ctrl-C
    /// meanwhile (the SIGINT handler never does more than write to a pipe).
    func waitForCompletion(of done: Int32, onInterrupt: () -> Void) {
        while true {
            switch frl_wait(done, -1) {
            case 0: onInterrupt()
            case 1: return
            case 2: continue  // a window change: the next prompt reads the new size
            default:
                // select failed (should not happen); don't spin
                usleep(10_000)
            }
        }
    }

    /// The terminal's width now (80 when not a terminal); safe on any thread.
    static var terminalColumns: Int { Int(frl_columns()) }

    /// The terminal's height (24 when not a terminal).
    var rows: Int { Int(frl_rows()) }

    /// Restores the signal handlers that were there before.
    func close() {
        frl_history_file(nil, 0)
        frl_signals_restore()
    }
}
