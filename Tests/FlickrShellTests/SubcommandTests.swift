import AsyncHTTPClient
import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport

/// `flickr call|login|logout|whoami|help` as a user runs them, against a sandbox over loopback.
@Suite(.timeLimit(.minutes(2)), .tags(.command))
struct SubcommandTests {
    let world: CommandWorld
    var flickr: URL { world.flickr }
    var dir: URL { world.directory }
    var baseEnv: [String: String] { world.environment }

    init() throws {
        world = try CommandWorld("sub")
    }

    func run(_ args: [String], env extra: [String: String] = [:], stdin: String? = nil) async throws -> Products.Result {
        let r = try await Products.run(flickr, args, environment: baseEnv.merging(extra) { $1 }, stdin: stdin)
        #expect(!r.timedOut, "flickr \(args) timed out")
        return r
    }

    @Test func callPrintsJSONThatPythonParses() async throws {
        let r = try await run(["--sandbox", "call", "flickr.photos.search", "user_id=me", "per_page=3", "extras=tags,url_q", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let script = """
            import json, sys
            d = json.load(sys.stdin)
            assert d["stat"] == "ok", d
            photos = d["photos"]["photo"]
            assert len(photos) == 3, photos
            assert all("url_q" in p and "tags" in p for p in photos)
            print(list(d.keys()) == sorted(d.keys()), photos[0]["id"])
            """
        let python = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script], stdin: r.stdout)
        #expect(python.status == 0, "\(python.stderr)")
        #expect(python.stdout.hasPrefix("True "))
        // Stable key order: the same call twice prints the same text.
        let again = try await run(["--sandbox", "call", "flickr.test.echo", "b=2", "a=1", "--json"])
        let twice = try await run(["--sandbox", "call", "flickr.test.echo", "a=1", "b=2", "--json"])
        #expect(again.stdout == twice.stdout)
    }

    @Test func callPrettyPrintsAndReportsErrors() async throws {
        let ok = try await run(["--sandbox", "call", "test.echo", "name=x y"])
        #expect(ok.status == 0 && ok.stdout.contains("stat = \"ok\"") && ok.stdout.contains("name = { _text = \"x y\" }"))
        let fail = try await run(["--sandbox", "call", "flickr.photos.getInfo", "photo_id=1"])
        #expect(fail.status == 1 && fail.stderr.hasPrefix("[1] Photo") && fail.stdout.isEmpty)
        let unknown = try await run(["--sandbox", "call", "flickr.nope", "--no-strict"])
        #expect(unknown.status == 1 && unknown.stderr.hasPrefix("[112] "))
        let usage = try await run(["--sandbox", "call", "flickr.test.echo", "notkeyvalue"])
        #expect(usage.status == 2 && usage.stderr.contains("key=value"))
        let verb = try await run(["--sandbox", "call", "flickr.test.echo", "--verb", "PUT"])
        #expect(verb.status == 2)
        let noCredentials = try await run(["call", "flickr.test.echo"])
        #expect(noCredentials.status == 2)
        for word in ["FLICKR_API_KEY", "flickr login", "--sandbox"] { #expect(noCredentials.stderr.contains(word)) }
    }

    @Test func helpDescribesMethods() async throws {
        let one = try await run(["help", "photos.setTags"])
        #expect(one.status == 0 && one.stdout.hasPrefix("flickr.photos.setTags  (POST, needs write permission)"))
        let all = try await run(["help"])
        #expect(all.status == 0 && all.stdout.contains("223 Flickr methods"))
        let bad = try await run(["help", "photos.nope"])
        #expect(bad.status == 2)
    }

    /// The browser: fetches a URL, following redirects (the loopback callback is one).
    static func browse(_ url: String) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }

    func loginEnvironment(_ sandbox: SandboxWorld) -> [String: String] {
        baseEnv.merging(["FLICKR_API_KEY": sandbox.credentials.apiKey, "FLICKR_API_SECRET": sandbox.credentials.apiSecret]) { $1 }
    }

    func checkProfileAndWhoAmI(_ sandbox: SandboxWorld, perms: String) async throws {
        let profile = dir.appendingPathComponent("config/flickr/profiles/default.json")
        let attributes = try FileManager.default.attributesOfItem(atPath: profile.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: profile)) as? [String: String])
        #expect(saved["user_nsid"] == sandbox.credentials.userNSID && saved["perms"] == perms)
        #expect(saved["endpoint"] == sandbox.url)
        // whoami with nothing but the profile (no FLICKR_* variables, no --endpoint).
        let who = try await run(["whoami"])
        #expect(who.status == 0, "\(who.stderr)")
        #expect(who.stdout.hasPrefix("\(sandbox.credentials.username) (\(sandbox.credentials.userNSID))"))
        #expect(who.stdout.contains("perms: \(perms)"))
        if perms == "read" {
            // The profile says the token reads only: a write is refused before any request.
            let write = try await run(["call", "flickr.photos.addTags", "photo_id=1", "tags=x"])
            #expect(write.status == 2 && write.stderr.contains("granted read") && write.stderr.contains("flickr login --perms write"),
                    "\(write.stderr)")
        }
        let out = try await run(["logout"])
        #expect(out.status == 0 && out.stdout.contains("Logged out"))
        let after = try await run(["whoami"])
        #expect(after.status == 2 && after.stderr.contains("flickr login"))
    }

    @Test func loginOutOfBand() async throws {
        try await SandboxWorld.with { sandbox in
            let login = try InteractiveProcess(flickr, ["--endpoint", sandbox.url, "login", "--perms", "write"],
                                               environment: loginEnvironment(sandbox))
            let url = try #require(await login.waitForLine(timeout: 120) { $0.hasPrefix("http") }, "no authorize URL: \(login.stdout) \(login.stderr)")
            #expect(url.contains("perms=write"))
            let page = try await Self.browse(url)
            let verifier = try #require(page.range(of: "<span id=\"oauth_verifier\">").flatMap { r in
                page[r.upperBound...].split(separator: "<").first.map(String.init)
            })
            login.write(verifier + "\n")
            let status = await login.wait(timeout: 120)
            #expect(status == 0, "\(login.stdout) \(login.stderr)")
            #expect(login.stdout.contains("Logged in as \(sandbox.credentials.username)"))
            try await checkProfileAndWhoAmI(sandbox, perms: "write")
        }
    }

    @Test func loginWithLoopbackCallback() async throws {
        try await SandboxWorld.with { sandbox in
            let login = try InteractiveProcess(flickr, ["--endpoint", sandbox.url, "login", "--perms", "read", "--callback", "loopback"],
                                               environment: loginEnvironment(sandbox))
            let url = try #require(await login.waitForLine(timeout: 120) { $0.hasPrefix("http") }, "no authorize URL: \(login.stderr)")
            #expect(url.contains("perms=read"))
            let landing = try await Self.browse(url)  // the sandbox approves and redirects to 127.0.0.1
            #expect(landing.contains("Authorised"))
            let status = await login.wait(timeout: 120)
            #expect(status == 0, "\(login.stdout) \(login.stderr)")
            try await checkProfileAndWhoAmI(sandbox, perms: "read")
        }
    }

    @Test("A write with an app key and no login, or by GET, is refused before any request, naming what to do")
    func writesRefusedBeforeSending() async throws {
        let log = dir.appendingPathComponent("access.jsonl")
        try await SandboxWorld.with(accessLog: log) { sandbox in
            let requests = { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").count }
            let before = requests()
            let appOnly = loginEnvironment(sandbox).merging(["FLICKR_ENDPOINT": sandbox.url]) { $1 }
            let noLogin = try await run(["call", "flickr.photos.addTags", "photo_id=1", "tags=x"], env: appOnly)
            #expect(noLogin.status == 2 && noLogin.stderr.contains("needs write permission, and no login is configured")
                    && noLogin.stderr.contains("flickr login --perms write"), "\(noLogin.stderr)")
            let byGet = try await run(["call", "flickr.photos.addTags", "photo_id=1", "tags=x", "--verb", "GET"], env: sandbox.environment([:]))
            #expect(byGet.status == 2 && byGet.stderr.contains("only by POST"), "\(byGet.stderr)")
            #expect(requests() == before, "a refused write sent a request")
            // A read that needs no login still goes.
            let open = try await run(["call", "flickr.photos.search", "tags=x", "per_page=1"], env: appOnly)
            #expect(open.status == 0 && requests() == before + 1, "\(open.stderr)")
        }
    }

    @Test("A corrupt profile is named with what the reader found; one readable by others is used, with a warning naming chmod 600; each subcommand's --help lists every global option")
    func profileProblemsAndHelp() async throws {
        let profiles = dir.appendingPathComponent("config/flickr/profiles")
        try FileManager.default.createDirectory(at: profiles, withIntermediateDirectories: true)
        let file = profiles.appendingPathComponent("default.json")
        try Data("{\n  \"api_key\": \"k\",\n  \"api_secret\": \"s\",\n".utf8).write(to: file)
        let truncated = try await run(["call", "flickr.test.echo"])
        #expect(truncated.status == 2 && truncated.stderr.contains(file.path) && truncated.stderr.contains("unexpected end of data at line 4"),
                "\(truncated.stderr)")
        try await SandboxWorld.with { sandbox in
            let saved: [String: String] = ["api_key": sandbox.credentials.apiKey, "api_secret": sandbox.credentials.apiSecret,
                                           "endpoint": sandbox.url]
            try JSONSerialization.data(withJSONObject: saved).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            let exposed = try await run(["call", "flickr.test.echo", "a=1"])
            #expect(exposed.status == 0 && exposed.stderr.contains("chmod 600 \(file.path)"), "\(exposed.stderr)")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            let kept = try await run(["call", "flickr.test.echo", "a=1"])
            #expect(kept.status == 0 && !kept.stderr.contains("chmod"), "\(kept.stderr)")
        }
        for sub in ["call", "retag", "edit", "jobs", "upload", "download", "sync", "backup", "find"] {
            let help = try await run([sub, "--help"])
            for option in ["--sandbox", "--endpoint", "--profile", "--budget", "--record", "--replay", "--debug", "--no-color"] {
                #expect(help.stdout.contains(option), "flickr \(sub) --help lacks \(option)")
            }
        }
    }

    @Test func loginWithoutAppKeyExplainsWhatToDo() async throws {
        let r = try await run(["login"], stdin: "")
        #expect(r.status == 2 && r.stderr.contains("FLICKR_API_KEY") && r.stderr.contains("--sandbox"))
    }

    @Test func wrongVerifierFails() async throws {
        try await SandboxWorld.with { sandbox in
            let login = try InteractiveProcess(flickr, ["--endpoint", sandbox.url, "login"], environment: loginEnvironment(sandbox))
            _ = await login.waitForLine(timeout: 120) { $0.hasPrefix("http") }
            login.write("000-000-000\n")
            let status = await login.wait(timeout: 120)
            #expect(status == 1)
            #expect(login.stderr.contains("refused the verifier") && login.stderr.contains("verifier_invalid")
                    && login.stderr.contains("flickr login again") && !login.stderr.contains("oauth_signature"), "\(login.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("config/flickr/profiles/default.json").path))
        }
    }
}
