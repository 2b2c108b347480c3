import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

@Suite("The flickr-sandbox executable", .timeLimit(.minutes(2)), .tags(.command))
struct ExecutableTests {
    @Test("--port 0 prints the key=value lines and ready, serves a call, exits 0 on SIGTERM")
    func startCallStop() async throws {
        // Direct, not SandboxWorld: this tests flickr-sandbox's own start (its banner) and its exit on SIGTERM.
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
            // Direct, not SandboxWorld: this tests whether flickr-sandbox starts at all with these options.
            let sandbox = try InteractiveProcess(try Products.executable("flickr-sandbox"), args + ["--port", "0"],
                                                 environment: ProcessInfo.processInfo.environment)
            defer { if sandbox.process.isRunning { sandbox.process.terminate() } }
            let ready = await sandbox.waitForLine(timeout: 60) { $0 == "ready" }
            #expect(ready != nil, "\(args): \(sandbox.stderr)")
            sandbox.process.terminate()
            _ = await sandbox.wait(timeout: 60)
        }
    }

    @Test("--photos N --write FILE writes a generated world as a seed file, the same bytes for the same N and seed; --photos serves it")
    func generatedWorld() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("generated-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let sandbox = try Products.executable("flickr-sandbox")
        var files: [Data] = []
        for (name, seed) in [("a", "s1"), ("b", "s1"), ("c", "s2")] {
            let path = dir.appendingPathComponent("\(name).json").path
            let r = try await Products.run(sandbox, ["--photos", "400", "--seed", seed, "--sets", "4", "--videos", "10", "--write", path], timeout: 60)
            #expect(r.status == 0 && r.stdout.isEmpty, "\(r.stderr)")
            files.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        #expect(files[0] == files[1] && files[0] != files[2])
        let world = try #require(try JSONSerialization.jsonObject(with: files[0]) as? [String: Any])
        let photos = try #require(world["photos"] as? [[String: Any]])
        #expect(photos.count == 400 && (world["photosets"] as? [Any])?.count == 4)
        #expect(photos.filter { $0["media"] as? String == "video" }.count == 10)
        // Dates over at least three years, every granularity, multi-word and machine tags, and
        // tags other users added.
        let years = Set(photos.compactMap { ($0["date_taken"] as? String)?.prefix(4) })
        #expect(years.count >= 3, "\(years)")
        #expect(Set(photos.compactMap { $0["date_taken_granularity"] as? Int }) == [0, 4, 6, 8])
        let tags = photos.flatMap { $0["tags"] as? [Any] ?? [] }
        #expect(tags.contains { ($0 as? String)?.contains(" ") == true } && tags.contains { ($0 as? String)?.contains(":") == true })
        #expect(tags.contains { ($0 as? [String: String])?["author"] != nil })
        #expect(Set(photos.compactMap { $0["license"] as? Int }).count >= 5 && photos.contains { $0["latitude"] != nil })
        // The file is a seed the sandbox takes; --photos serves the same world.
        for args in [["--data", dir.appendingPathComponent("a.json").path], ["--photos", "400", "--seed", "s1", "--sets", "4", "--videos", "10"]] {
            try await SandboxWorld.withProcess(args, timeout: 60) { served in
                let url = try #require(served.values["url"]), key = served.values["api_key"] ?? ""
                let publicCount = photos.filter { $0["is_public"] as? Int == 1 }.count
                let listed = try await TestHTTP.get(url + "/services/rest/?method=flickr.people.getPublicPhotos&api_key=\(key)&user_id=10000001@N01&per_page=1")
                #expect(publicCount > 0 && listed.body.contains("total=\"\(publicCount)\""), "\(args): \(listed.body.prefix(300))")
                let process = try #require(served.process).process
                process.process.terminate()
                _ = await process.wait(timeout: 60)
            }
        }
        // The options that go with --photos only, and --photos with --data, are refused.
        for args in [["--seed", "x"], ["--write", dir.appendingPathComponent("x.json").path], ["--photos", "5", "--data", "seed.json"],
                     ["--photos", "-1"], ["--photos", "5", "--videos", "9"]] {
            let r = try await Products.run(sandbox, args, timeout: 60)
            #expect(!r.timedOut && r.status != 0 && !r.stderr.isEmpty, "\(args): \(r.stderr)")
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
