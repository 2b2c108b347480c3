import FlickrCommandLine
import FlickrLua
import Foundation
import LuaKit

/// How the interactive loop looks and behaves.
public struct REPLOptions: Sendable {
    /// ANSI colour in the prompt and the printed values (only on a terminal, never with NO_COLOR).
    public var color: Bool
    /// Where history is kept (`$XDG_STATE_HOME/flickr/history`); nil keeps none.
    public var historyPath: String?
    /// Print the version banner first (lua.c does when it starts the REPL by itself).
    public var banner: Bool
    /// The pager for results taller than the terminal (``Pager/command(environment:)``); nil
    /// prints them straight.
    public var pager: String?

    public init(color: Bool, historyPath: String?, banner: Bool, pager: String? = nil) {
        self.color = color
        self.historyPath = historyPath
        self.banner = banner
        self.pager = pager
    }
}

/// The interactive loop of the `flickr` command (CLI.md "The REPL").
///
/// The loop runs on a thread of its own (readline blocks): it reads lines, hands chunks to the
/// Lua thread and waits for them with a `select` on a completion pipe and the SIGINT pipe, so a
/// Ctrl-C during a call becomes ``LuaRuntime/interrupt()`` (the call is cancelled, the prompt
/// comes back) and a Ctrl-C while editing clears the line.
public enum REPL {
    /// Runs until end of input or `:quit`; returns the process exit status.
    public static func run(session: FlickrLuaSession, options: REPLOptions) async -> Int32 {
        if options.banner { FileHandleOutput.standardOutput(LuaMode.versionLine() + "\n") }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let thread = Thread {
                let status = REPLLoop(runtime: session.runtime, options: options).run()
                continuation.resume(returning: status)
            }
            thread.name = "flickr-repl"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}

/// One REPL session on its own thread.
final class REPLLoop {
    let runtime: LuaRuntime
    let options: REPLOptions
    let palette: Palette
    /// What `:set` changes.
    var settings = REPLSettings()
    /// The pager for tall output; nil once it proved unusable (it was not found, say).
    var pager: Pager?
    /// Pager problems already reported (each is reported once a session).
    private var pagerWarnings: Set<String> = []
    /// Read end [0] and write end [1] of the pipe the Lua thread writes to when a chunk is done.
    private var donePipe: [Int32] = [-1, -1]

    init(runtime: LuaRuntime, options: REPLOptions) {
        self.runtime = runtime
        self.options = options
        self.palette = Palette(enabled: options.color)
        self.pager = options.pager.map(Pager.init(command:))
    }

    func run() -> Int32 {
        guard pipe(&donePipe) == 0 else {
            FileHandleOutput.standardError("flickr: cannot start the REPL: \(String(cString: strerror(errno)))\n")
            return 1
        }
        for fd in donePipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { for fd in donePipe { close(fd) } }

        let support = try? runtime.performAndWait { state in try REPLSupport.load(on: state) }
        if let support { Completion.active = (runtime, support) }
        defer { Completion.active = nil }

        let editor = LineEditor(interactive: Terminal.stdinIsTerminal, historyPath: options.historyPath,
                                candidates: support == nil ? nil : replCandidates)
        defer { editor.close() }

        var pending: [String] = []   // lines of an unfinished chunk
        var timed = false            // the pending chunk came from `:time`
        var warnedAboutLocals = false
        while true {
            if pending.isEmpty { editor.discardPendingInterrupts() }
            switch editor.read(prompt: prompt(continuation: !pending.isEmpty)) {
            case .endOfInput where !pending.isEmpty:
                // As lua.c: the unfinished chunk is reported as the syntax error it is, and the
                // session goes on at the primary prompt (a second Ctrl-D leaves).
                if editor.interactive { FileHandleOutput.standardOutput("\n") }
                let chunk = pending.joined(separator: "\n")
                editor.remember(timed ? ":time " + chunk : chunk)
                report(.failure(incompleteError(chunk)), timed: false, editor: editor)
                pending = []
                timed = false
            case .endOfInput:
                FileHandleOutput.standardOutput("\n")  // lua.c ends the REPL on a new line, on a terminal or not
                return 0
            case .interrupted:
                pending = []
                timed = false
            case .line(let line):
                if pending.isEmpty, let command = REPLCommand.parse(line) {
                    switch command {
                    case .quit:
                        editor.remember(line)
                        return 0
                    case .time(let expression):
                        timed = true
                        pending = [expression]
                    default:
                        editor.remember(line)
                        perform(command, editor: editor)
                        continue
                    }
                } else {
                    if pending.isEmpty && line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                    pending.append(line)
                }
                let chunk = pending.joined(separator: "\n")
                let outcome = evaluate(chunk, support: support, editor: editor)
                if case .incomplete = outcome { continue }
                editor.remember(timed ? ":time " + chunk : chunk)
                report(outcome, timed: timed, editor: editor)
                if !warnedAboutLocals, case .values = outcome, Self.declaresLocal(chunk) {
                    warnedAboutLocals = true  // as Lua 5.5's REPL does, once
                    FileHandleOutput.standardError(palette.dim("note: locals do not survive to the next prompt; drop `local` to keep the value") + "\n")
                }
                pending = []
                timed = false
            }
        }
    }

    /// Whether a chunk starts by declaring a local (`local x = …`, not `local function`).
    static func declaresLocal(_ chunk: String) -> Bool {
        let words = chunk.split(whereSeparator: { $0.isWhitespace }).prefix(2)
        return words.first == "local" && words.dropFirst().first != "function"
    }

    /// The prompt: `_PROMPT`/`_PROMPT2` as `tostring` gives them (a `__tostring` is called, as
    /// lua.c's `luaL_tolstring`), else `> ` / `>> `.
    func prompt(continuation: Bool) -> String {
        let name = continuation ? "_PROMPT2" : "_PROMPT"
        let custom = try? runtime.performAndWait { state -> String? in
            try state.run("local p = \(name) if p ~= nil then return tostring(p) end", name: "=(prompt)").first?.stringValue
        }
        let text = (custom ?? nil) ?? (continuation ? ">> " : "> ")
        return palette.prompt(text)
    }

    /// Runs a chunk on the Lua thread; a Ctrl-C meanwhile interrupts it.
    func evaluate(_ chunk: String, support: REPLSupport?, editor: LineEditor) -> EvaluationOutcome {
        final class Box: @unchecked Sendable { var outcome: EvaluationOutcome? }
        let box = Box()
        let color = options.color
        let (depth, items) = (settings.depth, settings.items)
        let withPrint = !editor.interactive  // off a terminal, results go to `print`, as lua.c's
        let signal = donePipe[1]
        fflush(nil)
        let posted = runtime.post { state in
            // The width when the results are rendered: a resize during the call counts.
            box.outcome = Evaluator.evaluate(chunk, on: state, support: support, color: color, width: LineEditor.terminalColumns,
                                             depth: depth, items: items, withPrint: withPrint)
            var byte: UInt8 = 1
            _ = write(signal, &byte, 1)
        }
        guard posted else { return .failure(REPLError(message: "the Lua runtime is closed")) }
        var interrupted = false
        editor.waitForCompletion(of: donePipe[0]) {
            runtime.interrupt()
            interrupted = true
        }
        var byte: UInt8 = 0
        _ = read(donePipe[0], &byte, 1)
        // The terminal echoed ^C where the cursor was: continue on a fresh line.
        if interrupted && editor.interactive { FileHandleOutput.standardOutput("\n") }
        return box.outcome ?? .failure(REPLError(message: "no result"))
    }

    /// Prints values on stdout (through the pager when taller than the terminal), errors
    /// (message, then traceback) on stderr.
    func report(_ outcome: EvaluationOutcome, timed: Bool, editor: LineEditor) {
        fflush(nil)
        switch outcome {
        case .incomplete:
            break
        case .values(let text, let elapsed):
            if let text { show(text + "\n", editor: editor) }
            if timed { FileHandleOutput.standardOutput(palette.dim(String(format: "time: %.3f s", elapsed)) + "\n") }
        case .failure(let error):
            var text = palette.error(error.message)
            if let traceback = error.traceback { text += "\n" + palette.dim(traceback) }
            FileHandleOutput.standardError(text + "\n")
        }
    }

    func perform(_ command: REPLCommand, editor: LineEditor) {
        switch command {
        case .help:
            var text = REPLText.help(historyPath: editor.interactive ? options.historyPath : nil)
            let overview = try? runtime.performAndWait { state -> String? in
                (try? state.run("local h = flickr and flickr.help and flickr.help(); return h and tostring(h)",
                                name: "=(repl)"))?.first?.stringValue
            }
            if let overview = overview ?? nil { text += "\n" + overview + "\n" }
            show(TextLayout.fit(text, width: LineEditor.terminalColumns), editor: editor)
        case .doc(let name):
            let (text, found) = REPLText.doc(name)
            if found {
                show(TextLayout.fit(text, width: LineEditor.terminalColumns) + "\n", editor: editor)
            } else {
                FileHandleOutput.standardError(palette.error(text) + "\n")
            }
        case .history:
            let entries = editor.history
            let lines = entries.enumerated().map { i, e in
                String(format: "%5d  ", i + 1) + e.replacingOccurrences(of: "\n", with: "\n       ")
            }
            FileHandleOutput.standardOutput(lines.isEmpty ? "(no history)\n" : lines.joined(separator: "\n") + "\n")
        case .set(let name, let value):
            if let name {
                if let problem = settings.set(name, value) { FileHandleOutput.standardError(palette.error(problem) + "\n") }
            } else {
                FileHandleOutput.standardOutput(settings.description + (pager == nil ? "  (no pager: set PAGER)" : "") + "\n")
            }
        case .usage(let text):
            FileHandleOutput.standardError("usage: \(text)\n")
        case .unknown(let name):
            FileHandleOutput.standardError(palette.error("unknown command :\(name) (:help lists the commands)") + "\n")
        case .quit, .time:
            break  // handled by the loop
        }
    }
}

extension REPLLoop {
    /// Prints `text` on stdout, through the pager when the REPL is on a terminal, the pager is
    /// on, and the text is taller than the terminal (less a line for the prompt). When the pager
    /// cannot run or fails, the text is printed all the same, after a warning (once a session).
    func show(_ text: String, editor: LineEditor) {
        if editor.interactive, settings.pager, let pager {
            var lines = 0
            for byte in text.utf8 where byte == UInt8(ascii: "\n") { lines += 1 }
            if lines >= editor.rows - 1 {
                fflush(nil)
                switch pager.show(text) {
                case .shown:
                    return
                case .unavailable(let problem):
                    self.pager = nil
                    warnOnce(problem)
                case .failed(let problem):
                    warnOnce(problem + "; printed here instead")
                }
            }
        }
        FileHandleOutput.standardOutput(text)
    }

    /// A pager problem on stderr, the first time it happens.
    private func warnOnce(_ problem: String) {
        guard pagerWarnings.insert(problem).inserted else { return }
        FileHandleOutput.standardError(palette.error("flickr: " + problem) + "\n")
    }

    /// The syntax error of a chunk that ended unfinished (Ctrl-D at `>>`), as lua.c reports it.
    func incompleteError(_ chunk: String) -> REPLError {
        let error = try? runtime.performAndWait { state in Evaluator.incompleteError(chunk, on: state) }
        return (error ?? nil) ?? REPLError(message: "\(Evaluator.chunkName.dropFirst()): unfinished chunk at end of input")
    }
}

/// ANSI colours of the REPL; every function returns its text unchanged when colour is off.
struct Palette {
    let enabled: Bool

    private func paint(_ code: String, _ text: String) -> String {
        enabled ? "\u{1B}[\(code)m" + text + "\u{1B}[0m" : text
    }

    /// A prompt for readline: the escape sequences wrapped in \001…\002 (invisible width).
    func prompt(_ text: String) -> String {
        enabled ? "\u{1}\u{1B}[1;32m\u{2}" + text + "\u{1}\u{1B}[0m\u{2}" : text
    }

    func error(_ text: String) -> String { paint("31", text) }
    func dim(_ text: String) -> String { paint("90", text) }
}
