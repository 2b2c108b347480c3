import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

@Suite("The flickr-sandbox executable", .timeLimit(.minutes(2)), .tags(.command), .kind("command"))
struct ExecutableTests {
    @Test("--port 0 prints the key=value lines and ready, serves a call, exits 0 on SIGTERM")
    func startCallStop() async throws {
        let sandbox = try InteractiveProcess(try Products.executable("flickr-sandbox"), ["--port", "0", "--latency", "0"],
                                             environment: ProcessInfo.processInfo.environment)
        defer { if sandbox.process.isRunning { sandbox.process.terminate() } }
        // Generous: a loaded machine at the start of the run (every suite starting at once) once
        // took over 20 s here; alone the debug build is ready in 0.2 s.
        _ = try #require(await sandbox.waitForLine(timeout: 60) { $0 == "ready" }, "no ready line: \(sandbox.stderr)")
        let lines = sandbox.stdout.split(separator: "\n").map(String.init)
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
        sandbox.process.terminate()  // SIGTERM
        let status = await sandbox.wait(timeout: 60)
        #expect(status == 0)
    }

    @Test("--allow-remote lets --host be another interface; loopback names need no flag")
    func allowRemote() async throws {
        for args in [["--host", "0.0.0.0", "--allow-remote"], ["--host", "localhost"], ["--host", "127.0.0.2"]] {
            let sandbox = try InteractiveProcess(try Products.executable("flickr-sandbox"), args + ["--port", "0"],
                                                 environment: ProcessInfo.processInfo.environment)
            defer { if sandbox.process.isRunning { sandbox.process.terminate() } }
            let ready = await sandbox.waitForLine(timeout: 60) { $0 == "ready" }
            #expect(ready != nil, "\(args): \(sandbox.stderr)")
            sandbox.process.terminate()
            _ = await sandbox.wait(timeout: 60)
        }
    }

    @Test("Bad options exit non-zero with a message")
    func badOptions() async throws {
        for args in [["--faults", "boom=1"], ["--port", "70000"], ["--rate-limit", "0"], ["--image-faults", "5xx=2"], ["--budget", "3"], ["--budget", "0/60"],
                     ["--clock-skew", "0"], ["--clock-skew", "soon"]] {
            let r = try await Products.run(try Products.executable("flickr-sandbox"), args, timeout: 60)
            #expect(!r.timedOut && r.status != 0 && r.stderr.contains(args[0]), "\(args): \(r.stderr)")
        }
        // Only loopback unless asked: the sandbox prints its secrets.
        for host in ["0.0.0.0", "192.168.1.10", "::"] {
            let r = try await Products.run(try Products.executable("flickr-sandbox"), ["--host", host], timeout: 60)
            #expect(!r.timedOut && r.status != 0 && r.stderr.contains("--allow-remote"), "\(host): \(r.stderr)")
        }
    }
}
