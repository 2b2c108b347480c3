import FlickrTestSupport
import Foundation
import Testing

/// The `flickr` executable itself (built by `swift build --build-tests`): script mode against
/// `--sandbox`, exit codes, the error report.
@Suite(.timeLimit(.minutes(5))) struct CommandTests {
    static let binary: String? = {
        for configuration in ["debug", "release"] {
            let path = Fixtures.repository.appendingPathComponent(".build/\(configuration)/flickr").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }()

    /// Runs the binary on a plain thread (never blocking Swift concurrency's pool).
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try runBlocking(arguments) }) }.start()
        }
    }

    static func runBlocking(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary!)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("FLICKR_") { env[key] = nil }
        env["HOME"] = FileManager.default.temporaryDirectory.path
        env["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-cmd-\(getpid())").path
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    static func script(_ source: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-\(UUID().uuidString).lua").path
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(.enabled(if: binary != nil)) func runsAScriptAgainstTheSandbox() async throws {
        let path = try Self.script("""
            #!/usr/bin/env flickr
            local n = select('#', ...)
            print(arg[0] ~= nil, arg[1], n, flickr.test.echo{ hello = "world" }.hello._text, require("flickr") == flickr)
            """)
        let r = try await Self.run(["--sandbox", path, "one", "two"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "true\tone\t2\tworld\ttrue\n")
    }

    @Test(.enabled(if: binary != nil)) func uncaughtErrorsReportAndExitOne() async throws {
        let path = try Self.script("local function f() flickr.photos.getInfo{ photo_id = '0' } end\nf()\n")
        let r = try await Self.run(["--sandbox", path])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("flickr: flickr.photos.getInfo: [1] "), "\(r.stderr)")
        #expect(r.stderr.contains("stack traceback:"))
    }

    @Test(.enabled(if: binary != nil)) func osExitAndMissingCredentials() async throws {
        let exit = try await Self.run(["--sandbox", try Self.script("io.write('bye'); os.exit(3)")])
        #expect(exit.status == 3)
        #expect(exit.stdout == "bye")
        let none = try await Self.run([try Self.script("flickr.test.echo{}")])
        #expect(none.status == 1)
        #expect(none.stderr.contains("FLICKR_API_KEY"), "\(none.stderr)")
    }

    @Test(.enabled(if: binary != nil)) func luaTestScriptThroughTheCommand() async throws {
        let path = Fixtures.repository.appendingPathComponent("lua/tests/test_concurrency.lua").path
        let r = try await Self.run(["--sandbox", path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("test_concurrency: ok"))
    }
}
