import Foundation
import FlickrTestSupport
import Testing

/// The REPL through a real pseudo-terminal, readline on: `Tests/scripts/repl_pty.py` drives the
/// built `flickr` with pexpect and checks what a user would see (see the scenarios there).
@Suite("REPL through a pseudo-terminal", .serialized, .timeLimit(.minutes(2)), .tags(.pty), .kind("pty"))
struct REPLPTYTests {
    @Test("Tab completes flickr.photos.ge from the catalog, globals, t[\"k\"], s:m; never calls __index")
    func completion() async throws { try await Self.scenario("completion") }

    @Test("multi-line for loop with >>, pretty printer, _ and several results")
    func multiline() async throws { try await Self.scenario("multiline") }

    @Test("the banner names endpoint and user; tall results through $PAGER; :set pager, items, depth")
    func pager() async throws { try await Self.scenario("pager") }

    @Test("errors print message and traceback; flickr.Error via __tostring; prompt returns")
    func errors() async throws { try await Self.scenario("errors") }

    @Test(":help, :doc METHOD, :time EXPR, unknown command, :quit")
    func commands() async throws { try await Self.scenario("commands") }

    @Test("Ctrl-C cancels a call to a --latency 20000 sandbox in well under 20 s (kind cancelled)")
    func cancel() async throws {
        let output = try await Self.scenario("cancel", sandbox: true)
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("cancel_seconds=") })
        let seconds = try #require(Double(line.dropFirst("cancel_seconds=".count)))
        #expect(seconds < 10.0, "Ctrl-C took \(seconds) s")
    }

    @Test("Ctrl-C clears the line, drops a pending chunk, interrupts a busy loop twice without dying")
    func interrupt() async throws { try await Self.scenario("interrupt") }

    @Test("history persists across two runs, multi-line chunks whole; Ctrl-R finds an entry")
    func history() async throws { try await Self.scenario("history") }

    @Test("colour on a terminal; none under NO_COLOR or --no-color")
    func color() async throws { try await Self.scenario("color") }

    @Test("non-terminal stdin (-i < file): plain lines, same evaluation, no escape sequences")
    func plain() async throws { try await Self.scenario("plain") }

    // MARK: - Running the driver

    /// Runs one scenario of the driver; fails the test with its report unless it passed.
    @discardableResult
    static func scenario(_ name: String, sandbox: Bool = false) async throws -> String {
        let script = Fixtures.repository.appendingPathComponent("Tests/scripts/repl_pty.py").path
        var arguments = [script, name, "--flickr", try Products.executable("flickr").path]
        if sandbox { arguments += ["--sandbox", try Products.executable("flickr-sandbox").path] }
        var environment = ProcessInfo.processInfo.environment
        let result = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + arguments,
                                            environment: environment, timeout: 90)
        let report = result.stdout + result.stderr + (result.timedOut ? "\n(killed after 90 s)" : "")
        #expect(result.status == 0 && !result.timedOut, "scenario \(name) failed:\n\(report)")
        return result.stdout
    }
}
