import Foundation
import FlickrTestSupport
import Testing

/// The REPL and the commands through a real pseudo-terminal: `Tests/scripts/repl_pty.py` drives
/// the built `flickr` with pexpect (readline on, the real `less`, window changes by TIOCSWINSZ,
/// Ctrl-C and Ctrl-D as keys) and prints an `ok: …` line per check that held; each test here
/// requires the scenario to pass and every one of its checks to have been reported.
@Suite("REPL through a pseudo-terminal", .serialized, .timeLimit(.minutes(3)), .tags(.pty))
struct REPLPTYTests {
    @Test("Tab completes flickr.photos.ge from the catalog, globals, t[\"k\"], s:m; never calls __index")
    func completion() async throws {
        try await Self.scenario("completion", checks: ["lists geo., getInfo(", "flickr.test.ec<TAB> → flickr.test.echo(",
                                                       "string.fo, t[\"key o", "never calls __index", "catalog completion"])
    }

    @Test("multi-line for loop with >>, pretty printer, _ and several results")
    func multiline() async throws {
        try await Self.scenario("multiline", checks: ["multi-line for loop", "pretty printer", "pasted multi-line input"])
    }

    @Test("the banner names endpoint and user; tall results through $PAGER (PAGER=cat); :set pager, items, depth")
    func pager() async throws {
        try await Self.scenario("pager", checks: ["banner names the endpoint", "tall results through $PAGER",
                                                  ":set pager off, :set items"])
    }

    @Test("PAGER unset: results, :help and :doc through the real less, which takes keys, Ctrl-C and a resize; q gives back the prompt with line editing")
    func pagerLess() async throws {
        try await Self.scenario("pager_less", checks: ["a tall result went through less", "after the pager: line editing",
                                                       ":help and :doc through less"])
    }

    @Test("PAGER=less and PAGER='less -R; echo rc=$? >FILE': less reads the keyboard and ends with 0")
    func pagerVariants() async throws {
        try await Self.scenario("pager_variants", checks: ["PAGER='less'", "PAGER='less -R; echo", "ended with status 0"])
    }

    @Test("a PAGER that does not exist: one warning and the text; a pager that fails: the text")
    func pagerMissing() async throws {
        try await Self.scenario("pager_missing", checks: ["a missing PAGER: one warning", "a pager that fails"])
    }

    @Test("a window change takes effect at once: at the prompt and during a call")
    func resize() async throws {
        try await Self.scenario("resize", checks: ["resized at the prompt", "resized during a call"])
    }

    @Test("Ctrl-D at >> reports the unfinished chunk and keeps the session, as lua.c, with the next keys typed one by one")
    func endOfInputInAContinuation() async throws {
        try await Self.scenario("eof_continuation", checks: ["Ctrl-D at >> reports 'end' expected", "keys typed one by one after Ctrl-D"])
    }

    @Test("Ctrl-Z under an interactive bash, then fg: the prompt and the half-typed line come back; Tab, Ctrl-L, Up, Ctrl-R work at once")
    func suspendAndContinue() async throws {
        try await Self.scenario("suspend", checks: ["Ctrl-Z then fg redraws the prompt", "after fg Tab, Ctrl-L, Up and Ctrl-R work"])
    }

    @Test(": and Tab complete the REPL's commands; an unknown namespace gets a did-you-mean")
    func commandCompletion() async throws {
        try await Self.scenario("command_completion", checks: [":<TAB> lists and completes", "flickr.photoz / flickr.nope"])
    }

    @Test("errors print message and traceback; flickr.Error via __tostring; prompt returns")
    func errors() async throws {
        try await Self.scenario("errors", checks: ["runtime error prints message", "syntax error reported",
                                                   "flickr.Error prints as"])
    }

    @Test(":help, :doc METHOD, :time EXPR, unknown command, :quit")
    func commands() async throws {
        try await Self.scenario("commands", checks: [":help, :doc, :time", ":quit exits 0"])
    }

    @Test("Ctrl-C cancels a call to a --latency 20000 sandbox in well under 20 s (kind cancelled)")
    func cancel() async throws {
        let output = try await Self.scenario("cancel", sandbox: true, checks: ["Ctrl-C cancelled a call", "has kind 'cancelled'"])
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("cancel_seconds=") })
        let seconds = try #require(Double(line.dropFirst("cancel_seconds=".count)))
        #expect(seconds < 10.0, "Ctrl-C took \(seconds) s")
    }

    @Test("Ctrl-C clears the line, drops a pending chunk, interrupts a busy loop twice without dying")
    func interrupt() async throws {
        try await Self.scenario("interrupt", checks: ["clears the line", "drops the pending chunk", "don't kill the process"])
    }

    @Test("Ctrl-C in the script runner: interrupted! + traceback and exit 1, catchable by pcall, also in a blocking call")
    func scriptInterrupt() async throws {
        try await Self.scenario("script_interrupt", sandbox: true,
                                checks: ["Ctrl-C in a busy script", "catches Ctrl-C with pcall", "during a blocking call",
                                         "a script's own hook does not stop Ctrl-C"])
    }

    @Test("Ctrl-C in upload --set and download: lines as files complete, stop after the file in flight, abort on the second, exit 130")
    func transferInterrupt() async throws {
        try await Self.scenario("transfer_interrupt", sandbox: true, checks: ["one Ctrl-C:", "two Ctrl-Cs:", "download: one Ctrl-C"])
    }

    @Test("history persists across two runs, multi-line chunks whole; Ctrl-R finds an entry; two sessions at once keep both; SIGHUP loses nothing")
    func history() async throws {
        try await Self.scenario("history", checks: ["saved the history file", "Up recalls", "Ctrl-R finds", "two sessions at once keep both", "SIGHUP loses nothing"])
    }

    @Test("colour on a terminal; none under NO_COLOR or --no-color")
    func color() async throws {
        try await Self.scenario("color", checks: ["colour sequences on a terminal", "NO_COLOR=1: no SGR", "--no-color: no SGR"])
    }

    @Test("non-terminal stdin (-i < file): plain lines, same evaluation, no escape sequences; results through print, _PROMPT by tostring, as lua.c")
    func plain() async throws {
        try await Self.scenario("plain", checks: ["non-terminal stdin", "-i off a terminal"])
    }

    // MARK: - Running the driver

    /// Runs one scenario of the driver; fails the test with its report unless it passed and
    /// printed an `ok:` line containing each of `checks`. Returns its standard output.
    @discardableResult
    static func scenario(_ name: String, sandbox: Bool = false, checks: [String]) async throws -> String {
        let script = Fixtures.repository.appendingPathComponent("Tests/scripts/repl_pty.py").path
        var arguments = [script, name, "--flickr", try Products.executable("flickr").path]
        if sandbox { arguments += ["--sandbox", try Products.executable("flickr-sandbox").path] }
        let result = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + arguments,
                                            environment: ProcessInfo.processInfo.environment, timeout: 150)
        let report = result.stdout + result.stderr + (result.timedOut ? "\n(killed after 150 s)" : "")
        #expect(result.status == 0 && !result.timedOut, "scenario \(name) failed:\n\(report)")
        let passed = result.stdout.split(separator: "\n").filter { $0.hasPrefix("ok: ") }
        for check in checks {
            #expect(passed.contains { $0.contains(check) }, "scenario \(name) did not report the check '\(check)':\n\(report)")
        }
        return result.stdout
    }
}
