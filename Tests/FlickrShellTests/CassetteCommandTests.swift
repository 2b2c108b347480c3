import Foundation
import Testing
import FlickrTestSupport

/// `flickr --record` and `flickr --replay` as a user runs them: a script recorded against a
/// flickr-sandbox process (calls, an upload, an error answer, a download), the cassette checked
/// for secrets, then replayed with the sandbox stopped and no credentials anywhere.
@Suite(.timeLimit(.minutes(3)), .tags(.command))
struct CassetteCommandTests {
    let world: CommandWorld
    var dir: URL { world.directory }

    init() throws {
        world = try CommandWorld("cassette")
    }

    func run(_ args: [String], _ env: [String: String]) async throws -> Products.Result {
        let r = try await Products.run(world.flickr, args, environment: env, directory: dir, timeout: 90)
        #expect(!r.timedOut, "flickr \(args) timed out")
        return r
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: dir.appendingPathComponent(name))
    }

    static let script = """
        local echo = flickr.test.echo{ greeting = "hello", note = "two\\nlines" }
        print("echo", flickr.text(echo.greeting))
        print("me", flickr.text(flickr.test.login().user.username))
        local found = flickr.photos.search{ user_id = "me", per_page = 3, extras = "tags" }
        print("search", found.photos.total, #found.photos.photo)
        local id = flickr.upload{ file = "cat.jpg", title = "A cat", tags = { "cat", "black cat" } }
        print("uploaded", id)
        local ok, err = pcall(flickr.photos.getInfo, { photo_id = "1" })
        print("error", ok, err.kind, err.code, err.message)
        print("title", flickr.text(flickr.photos.getInfo{ photo_id = id }.photo.title))
        local file = flickr.download(id, { dir = "out" })
        local f = assert(io.open(file.path, "rb")); local bytes = f:read("a"); f:close()
        print("downloaded", file.path, file.bytes, #bytes, bytes:sub(1, 3) == "\\255\\216\\255")
        print("again", flickr.test.echo{ greeting = "hello", note = "two\\nlines" }.stat)
        """

    @Test func recordThenReplayOfflineWithTheSameOutput() async throws {
        var rng = TestRandom("cassette photo")
        try Data([0xFF, 0xD8, 0xFF, 0xE0] + (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &rng) })
            .write(to: dir.appendingPathComponent("cat.jpg"))
        try write("script.lua", Self.script)
        try await SandboxWorld.withProcess(environment: world.environment) { sandbox in
            let running = try #require(sandbox.process)
            let recorded: Products.Result
            do {
                defer { running.stop() }
                recorded = try await run(["--record", "script.cassette", "script.lua"], sandbox.environment(world.environment))
                #expect(recorded.status == 0, "\(recorded.stderr)")
            }
            let lines = recorded.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "echo\thello" && lines.contains("me\tbees"), "\(recorded.stdout)")
            #expect(lines.contains { $0.hasPrefix("error\tfalse\tapi\t1\t") }, "\(recorded.stdout)")
            #expect(lines.contains { $0.hasPrefix("downloaded\tout/") && $0.hasSuffix("\t20004\t20004\ttrue") }, "\(recorded.stdout)")

            // The cassette: versioned, one block per exchange, the upload by size and digest, no
            // credential and no one-time value.
            let cassette = try String(contentsOf: dir.appendingPathComponent("script.cassette"), encoding: .utf8)
            #expect(cassette.hasPrefix("# flickr cassette v1\n"))
            #expect(cassette.contains("\nendpoint: \(sandbox.values["url"] ?? "?")\n"))
            #expect(cassette.components(separatedBy: "\n--- ").count - 1 == 9, "\(cassette)")
            #expect(cassette.contains("\nrequest: upload\nhttp: POST /services/upload/\narg: tags=cat \"black cat\"\narg: title=A cat\n"
                                      + "file: cat.jpg image/jpeg 20004 sha256:"), "\(cassette)")
            #expect(cassette.contains("arg: note=\"two\\nlines\"\n"), "\(cassette)")
            #expect(cassette.contains("<err code=\"1\""), "the error answer is recorded")
            #expect(cassette.contains("\nrequest: download\nhttp: GET\narg: url=\(sandbox.values["url"] ?? "?")/"), "\(cassette)")
            for name in ["api_key", "api_secret", "oauth_token", "oauth_token_secret"] {
                let secret = try #require(sandbox.values[name])
                #expect(!cassette.contains(secret), "the cassette holds \(name)")
            }
            for word in ["api_key", "api_sig", "oauth_nonce", "oauth_timestamp", "oauth_signature", "oauth_consumer_key",
                         "oauth_token", "Authorization"] {
                #expect(!cassette.contains(word), "the cassette holds \(word)")
            }

            // Replay: the sandbox is gone, no credential in the environment nor any profile (a
            // fresh home), and the same output.
            try FileManager.default.removeItem(at: dir.appendingPathComponent("out"))
            let stopped = await running.process.wait(timeout: 10)
            #expect(stopped != nil && !running.process.process.isRunning, "the sandbox still runs")
            let offline = world.environment.merging(["HOME": dir.path + "/elsewhere", "XDG_CONFIG_HOME": dir.path + "/elsewhere/config",
                                                     "FLICKR_PROFILE": "nobody"]) { $1 }
            let replayed = try await run(["--replay", "script.cassette", "script.lua"], offline)
            #expect(replayed.status == 0, "\(replayed.stderr)")
            #expect(replayed.stdout == recorded.stdout)
            #expect(replayed.stderr.isEmpty, "\(replayed.stderr)")

            // A request the cassette does not have: an error naming it and the nearest one.
            try write("changed.lua", Self.script.replacingOccurrences(of: "per_page = 3", with: "per_page = 5"))
            let changed = try await run(["--replay", "script.cassette", "changed.lua"], offline)
            #expect(changed.status == 1)
            #expect(changed.stderr.contains("has no request flickr.photos.search {extras=tags, per_page=5, user_id=me}; "
                                            + "the nearest recorded is #3 flickr.photos.search {extras=tags, per_page=3, user_id=me} "
                                            + "(per_page is \"5\" here, \"3\" recorded)"), "\(changed.stderr)")
            #expect(changed.stdout == "echo\thello\nme\tbees\n")

            // Another file uploaded: matched by its digest, so not found; the recorded one is named.
            try Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]).write(to: dir.appendingPathComponent("cat.jpg"))
            let otherFile = try await run(["--replay", "script.cassette", "script.lua"], offline)
            #expect(otherFile.status == 1)
            #expect(otherFile.stderr.contains("has no request upload {tags=cat \"black cat\", title=A cat, photo=<cat.jpg, 7 bytes")
                    && otherFile.stderr.contains("here, cat.jpg (20004 bytes"), "\(otherFile.stderr)")

            // A miss the script catches still fails the run, and says so.
            try write("caught.lua", "print(pcall(flickr.photos.getRecent, {}))\n")
            let caught = try await run(["--replay", "script.cassette", "caught.lua"], offline)
            #expect(caught.status == 1 && caught.stdout.hasPrefix("false"))
            #expect(caught.stderr.contains("flickr: replay: script.cassette has no request flickr.photos.getRecent {}"), "\(caught.stderr)")
        }
    }

    @Test func optionsThatDoNotGoTogether() async throws {
        try write("s.lua", "print(1)\n")
        let env = world.environment
        let both = try await run(["--record", "a.cassette", "--replay", "b.cassette", "s.lua"], env)
        #expect(both.status == 2 && both.stderr.contains("--record and --replay do not go together"), "\(both.stderr)")
        let sub = try await run(["--replay", "b.cassette", "call", "flickr.test.echo"], env)
        #expect(sub.status == 2 && sub.stderr.contains("are for scripts"), "\(sub.stderr)")
        let missing = try await run(["--replay", "nothing.cassette", "s.lua"], env)
        #expect(missing.status == 2 && missing.stderr.contains("nothing.cassette"), "\(missing.stderr)")
        try write("bad.cassette", "# flickr cassette v9\n")
        let future = try await run(["--replay", "bad.cassette", "s.lua"], env)
        #expect(future.status == 2 && future.stderr.contains("bad.cassette:1: flickr cassette v9 is not a version"), "\(future.stderr)")
        // A script with no request replays from an empty cassette, and records one.
        let none = try await run(["--record", "empty.cassette", "--sandbox", "s.lua"], env)
        #expect(none.status == 0 && none.stdout == "1\n", "\(none.stderr)")
        let empty = try await run(["--replay", "empty.cassette", "s.lua"], env)
        #expect(empty.status == 0 && empty.stdout == "1\n", "\(empty.stderr)")
    }
}
