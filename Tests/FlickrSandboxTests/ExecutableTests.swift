import FlickrSandbox
import Foundation
import Testing

@Suite("The flickr-sandbox executable", .timeLimit(.minutes(1)))
struct ExecutableTests {
    /// The built `flickr-sandbox`, next to the test bundle (`<scratch>/debug/`).
    static func executable() throws -> URL {
        var candidates: [URL] = []
        let bundleDir = Bundle.main.bundleURL
        candidates.append(bundleDir.appendingPathComponent("flickr-sandbox"))
        candidates.append(bundleDir.deletingLastPathComponent().appendingPathComponent("flickr-sandbox"))
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = argv0.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(dir.appendingPathComponent("flickr-sandbox"))
            dir = dir.deletingLastPathComponent()
        }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) { return found }
        throw TestFailure("flickr-sandbox not built next to the tests (looked in \(candidates.map(\.path)))")
    }

    /// Reads lines from a pipe until `ready` (or EOF / the deadline), without blocking a concurrency thread.
    static func readStartup(_ handle: FileHandle, timeout: Double) async throws -> [String] {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                var buffer = Data()
                let deadline = Date().addingTimeInterval(timeout)
                while Date() < deadline {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    buffer.append(chunk)
                    if String(decoding: buffer, as: UTF8.self).contains("\nready\n") { break }
                }
                continuation.resume(returning: String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init))
            }
            thread.start()
        }
    }

    static func waitForExit(_ process: Process, timeout: Double) async -> Int32? {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                let deadline = Date().addingTimeInterval(timeout)
                while process.isRunning, Date() < deadline { usleep(20_000) }
                continuation.resume(returning: process.isRunning ? nil : process.terminationStatus)
            }
            thread.start()
        }
    }

    @Test("--port 0 prints the key=value lines and ready, serves a call, exits 0 on SIGTERM")
    func startCallStop() async throws {
        let binary = try Self.executable()
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--port", "0", "--latency", "0"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let lines = try await Self.readStartup(out.fileHandleForReading, timeout: 20)
        let keys = lines.compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) }
        #expect(keys.prefix(7) == ["url", "api_key", "api_secret", "oauth_token", "oauth_token_secret", "user_nsid", "username"])
        #expect(lines.last == "ready")
        var values: [String: String] = [:]
        for line in lines where line.contains("=") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            values[parts[0]] = parts[1]
        }
        let url = try #require(values["url"])
        #expect(url.hasPrefix("http://127.0.0.1:"))
        let echo = try await TestHTTP.get(url + "/services/rest/?method=flickr.test.echo&api_key=\(values["api_key"] ?? "")&x=1")
        #expect(echo.body.contains("<x>1</x>"))
        process.terminate()  // SIGTERM
        let status = await Self.waitForExit(process, timeout: 10)
        #expect(status == 0)
    }

    @Test("Bad options exit non-zero with a message")
    func badOptions() async throws {
        let binary = try Self.executable()
        for args in [["--faults", "boom=1"], ["--port", "70000"], ["--rate-limit", "0"]] {
            let process = Process()
            process.executableURL = binary
            process.arguments = args
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let status = await Self.waitForExit(process, timeout: 10)
            #expect(status != nil && status != 0, "\(args)")
        }
    }
}
