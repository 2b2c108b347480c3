import FlickrTestSupport
import Foundation
import Testing

/// The `flickr` executable itself (built by `swift build --build-tests`): script mode against
/// `--sandbox`, exit codes, the error report.
@Suite(.timeLimit(.minutes(5)), .tags(.command)) struct CommandTests {
    /// Runs the built `flickr` (a missing binary fails the test) with no FLICKR_* variables and
    /// a throwaway home, through the shared runner (both pipes drained, killed at 60 s).
    static func run(_ arguments: [String]) async throws -> Products.Result {
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("FLICKR_") { env[key] = nil }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-cmd-\(UUID().uuidString)")
        env["HOME"] = home.path
        env["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        env["XDG_STATE_HOME"] = home.appendingPathComponent("state").path
        let r = try await Products.run(try Products.executable("flickr"), arguments, environment: env)
        #expect(!r.timedOut, "flickr \(arguments) timed out")
        return r
    }

    static func script(_ source: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-\(UUID().uuidString).lua").path
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func runsAScriptAgainstTheSandbox() async throws {
        let path = try Self.script("""
            #!/usr/bin/env flickr
            local n = select('#', ...)
            print(arg[0] ~= nil, arg[1], n, flickr.test.echo{ hello = "world" }.hello._text, require("flickr") == flickr)
            """)
        let r = try await Self.run(["--sandbox", path, "one", "two"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "true\tone\t2\tworld\ttrue\n")
    }

    @Test func uncaughtErrorsReportAndExitOne() async throws {
        let path = try Self.script("local function f() flickr.photos.getInfo{ photo_id = '0' } end\nf()\n")
        let r = try await Self.run(["--sandbox", path])
        #expect(r.status == 1)
        // A flickr.Error is an error object with __tostring: lua.c prints its string alone,
        // after the program's name as invoked (as lua5.4 does with flickr.so).
        #expect(r.stderr.hasPrefix(try Products.executable("flickr").path + ": flickr.photos.getInfo: [1] "), "\(r.stderr)")
        #expect(!r.stderr.contains("stack traceback:") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    }

    @Test func osExitAndMissingCredentials() async throws {
        let exit = try await Self.run(["--sandbox", try Self.script("io.write('bye'); os.exit(3)")])
        #expect(exit.status == 3)
        #expect(exit.stdout == "bye")
        let none = try await Self.run([try Self.script("flickr.test.echo{}")])
        #expect(none.status == 1)
        #expect(none.stderr.contains("FLICKR_API_KEY"), "\(none.stderr)")
    }

    @Test func luaTestScriptThroughTheCommand() async throws {
        let path = Fixtures.repository.appendingPathComponent("lua/tests/test_concurrency.lua").path
        let r = try await Self.run(["--sandbox", path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("test_concurrency: ok"))
    }
}
