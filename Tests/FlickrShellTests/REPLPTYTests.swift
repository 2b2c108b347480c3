import Foundation
import FlickrTestSupport
import Testing

/// The REPL through a real pseudo-terminal, readline on: `Tests/scripts/repl_pty.py` drives the
/// built `flickr` with pexpect and checks what a user would see (see the scenarios there).
@Suite("REPL through a pseudo-terminal", .serialized, .timeLimit(.minutes(2)))
struct REPLPTYTests {
    @Test("Tab completes flickr.photos.ge from the catalog, globals, t[\"k\"], s:m; never calls __index")
    func completion() async throws { try await Self.scenario("completion") }

    @Test("multi-line for loop with >>, pretty printer, _ and several results")
    func multiline() async throws { try await Self.scenario("multiline") }

    @Test("errors print message and traceback; flickr.Error via __tostring; prompt returns")
    func errors() async throws { try await Self.scenario("errors") }

    @Test(":help, :doc METHOD, :time EXPR, unknown command, :quit")
    func commands() async throws { try await Self.scenario("commands") }

    @Test("Ctrl-C cancels a call to a --latency 5000 sandbox in well under 5 s (kind cancelled)")
    func cancel() async throws {
        let output = try await Self.scenario("cancel", sandbox: true)
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("cancel_seconds=") })
        let seconds = try #require(Double(line.dropFirst("cancel_seconds=".count)))
        #expect(seconds < 4.0, "Ctrl-C took \(seconds) s")
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
        var arguments = [script, name, "--flickr", try BuiltProducts.path(of: "flickr")]
        if sandbox { arguments += ["--sandbox", try BuiltProducts.path(of: "flickr-sandbox")] }
        var environment = ProcessInfo.processInfo.environment
        environment["FLICKR_LUA_DIR"] = Fixtures.repository.appendingPathComponent("lua").path
        let result = try await ChildProcess.run("/usr/bin/env", ["python3"] + arguments, environment: environment,
                                                timeout: 90)
        #expect(result.status == 0, "scenario \(name) failed:\n\(result.output)")
        return result.output
    }
}

/// The executables built next to the test bundle (`<scratch>/debug/`).
enum BuiltProducts {
    static func path(of name: String) throws -> String {
        var candidates: [URL] = []
        let bundleDir = Bundle.main.bundleURL
        candidates.append(bundleDir.appendingPathComponent(name))
        candidates.append(bundleDir.deletingLastPathComponent().appendingPathComponent(name))
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(dir.appendingPathComponent(name))
            dir = dir.deletingLastPathComponent()
        }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return found.path
        }
        throw REPLTestFailure("\(name) is not built next to the tests (looked in \(candidates.map(\.path)))")
    }
}

struct REPLTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A child process whose output (stdout and stderr together) is collected on a plain thread, so
/// no concurrency thread blocks; killed after `timeout` seconds.
enum ChildProcess {
    struct Result: Sendable {
        var status: Int32
        var output: String
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String],
                    input: String? = nil, timeout: Double) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try? stdin.fileHandleForWriting.close()
        return await withCheckedContinuation { continuation in
            let thread = Thread {
                let reader = pipe.fileHandleForReading
                let deadline = Date().addingTimeInterval(timeout)
                let collected = OutputBox()
                let readerThread = Thread {
                    collected.set(reader.readDataToEndOfFile())
                }
                readerThread.start()
                while process.isRunning, Date() < deadline { usleep(20_000) }
                var timedOut = false
                if process.isRunning {
                    timedOut = true
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                }
                let data = collected.wait(seconds: 10)
                var output = String(decoding: data, as: UTF8.self)
                if timedOut { output += "\n(killed after \(timeout) s)" }
                continuation.resume(returning: Result(status: timedOut ? -1 : process.terminationStatus, output: output))
            }
            thread.start()
        }
    }

    /// Output handed from the reading thread.
    final class OutputBox: @unchecked Sendable {
        private let lock = NSCondition()
        private var data: Data?

        func set(_ d: Data) {
            lock.lock()
            data = d
            lock.broadcast()
            lock.unlock()
        }

        func wait(seconds: Double) -> Data {
            lock.lock()
            defer { lock.unlock() }
            let deadline = Date().addingTimeInterval(seconds)
            while data == nil, lock.wait(until: deadline) {}
            return data ?? Data()
        }
    }
}
