import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport

/// No secret leaves the profile file: every subcommand, a script, the REPL and `--debug` run
/// with a known application secret and token secret, and all they print, trace and write — the
/// history, the job database, a plan file, the sandbox's access log — is searched for them;
/// `flickr login` (traced, loopback callback) too, for the token secret it was issued.
/// Files that hold user data are 0600 in 0700 directories.
@Suite(.timeLimit(.minutes(5)), .tags(.command))
struct SecretsTests {
    @Test func secretsStayInTheProfile() async throws {
        let world = try CommandWorld("secrets")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let log = world.directory.appendingPathComponent("access.jsonl")
        try await SandboxWorld.with(accessLog: log) { sandbox in
            let c = sandbox.credentials
            var secrets = [c.apiSecret, c.oauthTokenSecret]
            #expect(secrets.allSatisfy { $0.count >= 8 })
            let env = sandbox.environment(world.environment)
            let dir = world.directory
            try Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 5_000)).write(to: dir.appendingPathComponent("cat.jpg"))
            try "print(flickr.config().secret, flickr.config().token_secret)\nflickr.photos.getInfo{ photo_id = '0' }\n"
                .write(to: dir.appendingPathComponent("script.lua"), atomically: true, encoding: .utf8)
            let plan = dir.appendingPathComponent("plan.json")

            var printed: [(String, Products.Result)] = []
            // A traced login into a profile of its own: the token secret it is issued is known only
            // to the profile file, which must hold it, and must appear nowhere else.
            let login = try InteractiveProcess(world.flickr, ["--debug", "login", "--profile", "secrets", "--perms", "write", "--callback", "loopback"],
                                               environment: env.filter { !$0.key.hasPrefix("FLICKR_OAUTH_") })
            let authorize = try #require(await login.waitForLine(timeout: 60) { $0.hasPrefix("http") }, "no authorize URL: \(login.stderr)")
            #expect(try await SubcommandTests.browse(authorize).contains("Authorised"))
            let loginStatus = await login.wait(timeout: 60)
            #expect(loginStatus == 0, "\(login.stdout) \(login.stderr)")
            printed.append(("--debug login", Products.Result(status: loginStatus ?? -1, stdout: login.stdout, stderr: login.stderr, timedOut: loginStatus == nil)))
            let profile = dir.appendingPathComponent("config/flickr/profiles/secrets.json")
            let saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: profile)) as? [String: String])
            let issued = try #require(saved["oauth_token_secret"], "\(saved.keys.sorted())")
            #expect(issued.count >= 8 && !secrets.contains(issued))
            #expect(saved["api_secret"] == nil || saved["api_secret"] == c.apiSecret)
            #expect(try Self.mode(profile) == 0o600 && Self.mode(profile.deletingLastPathComponent()) == 0o700)
            secrets.append(issued)
            if let token = saved["oauth_token"] { #expect(!login.stderr.contains(token), "the login traced the whole token it was issued") }
            #expect(login.stderr.contains("→ POST") || login.stderr.contains("→ GET"), "the login's trace was on: \(login.stderr.prefix(500))")
            func run(_ args: [String], _ environment: [String: String] = env, stdin: String? = nil) async throws {
                let r = try await Products.run(world.flickr, args, environment: environment, stdin: stdin, directory: dir, timeout: 120)
                #expect(!r.timedOut, "flickr \(args) timed out")
                printed.append((args.joined(separator: " "), r))
                // Each run did its work (the plan exits 1: it has changes; the wrong secret and the
                // script's missing photo fail on purpose), so the search below looks at real output.
                let failing = args.contains("plan") || args.contains("script.lua") || environment["FLICKR_API_SECRET"] != c.apiSecret
                #expect(r.status == (failing ? 1 : 0), "flickr \(args): \(r.status) \(r.stderr.suffix(500))")
            }
            try await run(["--debug", "call", "flickr.test.echo", "a=1"])
            try await run(["--debug", "call", "flickr.photos.search", "user_id=me", "per_page=2", "extras=tags", "--json"])
            try await run(["--debug", "whoami"])
            try await run(["--debug", "script.lua"])
            try await run(["--debug", "-e", "for k, v in pairs(flickr.config()) do print(k, v) end print(flickr.test.login())"])
            try await run(["--debug", "upload", "cat.jpg", "--tags", "secretstest"])
            try await run(["--debug", "download", "--search", "user_id=me", "tags=secretstest", "--dir", "got"])
            try await run(["--debug", "retag", "plan", "--add", "checked", "--query", "tags=secretstest", "--out", plan.path])
            try await run(["--debug", "retag", "apply", "last", "--yes"])
            try await run(["jobs", "--json"])
            try await run(["--debug", "retag", "undo", "last", "--yes"])
            try await run(["--debug", "retag", "resume", "last"])
            let jobs = try JSONSerialization.jsonObject(with: Data((printed.first { $0.0 == "jobs --json" }?.1.stdout ?? "").utf8))
            let job = try #require(((jobs as? [[String: Any]]) ?? ((jobs as? [String: Any])?["jobs"] as? [[String: Any]]))?.first?["id"] as? String,
                                   "no job listed: \(jobs)")
            try await run(["jobs", "show", job, "--json"])
            try await run(["help", "photos.search"])
            try await run(["completion", "bash"])
            try await run(["--debug", "logout", "--profile", "secrets"])
            // A failing signature (a wrong secret): the error shows base strings, never a secret.
            try await run(["--debug", "call", "flickr.test.login"], env.merging(["FLICKR_API_SECRET": "wrong-secret-value"]) { $1 })
            // The REPL (plain mode), and the same through a pseudo-terminal with history kept.
            try await run(["--debug", "-i"], env, stdin: "flickr.config()\nflickr.test.login()\n:doc photos.search\n")
            let pty = try await Products.python("repl_pty.py", ["secrets", "--flickr", world.flickr.path],
                                                environment: env.merging(["SECRETS": secrets.joined(separator: " ")]) { $1 }, timeout: 120)
            #expect(pty.status == 0 && !pty.timedOut, "pty: \(pty.stdout.suffix(1500))")
            printed.append(("repl (pty)", pty))
            // Stopped before the files are searched: the access log is all written.
            try? await sandbox.server?.stop()

            for (what, r) in printed {
                for secret in secrets {
                    #expect(!r.stdout.contains(secret) && !r.stderr.contains(secret), "\(what) printed a secret")
                }
                // Traces show the token shortened.
                if what.hasPrefix("--debug") { #expect(!r.stderr.contains(c.oauthToken), "\(what) traced the whole token") }
            }
            #expect(printed.contains { $0.0.hasPrefix("--debug call flickr.test.echo") && $0.1.stderr.contains("→ GET") },
                    "the trace was on (the check above would prove nothing)")
            // Every file the runs wrote, except the profiles, and the sandbox's access log.
            var files = [log, plan]
            let enumerator = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                if url.path.contains("/flickr/profiles/") { continue }
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(url) }
            }
            let stateFiles = files.filter { $0.path.contains("/state/flickr/") }
            #expect(stateFiles.contains { $0.lastPathComponent == "jobs.sqlite" }, "\(stateFiles)")
            #expect(stateFiles.contains { $0.lastPathComponent == "history" }, "\(stateFiles)")
            for file in files {
                let data = (try? Data(contentsOf: file)) ?? Data()
                for secret in secrets {
                    #expect(data.range(of: Data(secret.utf8)) == nil, "\(file.path) holds a secret")
                }
            }
            // User data is private: 0600 files in 0700 directories.
            for file in stateFiles where ["jobs.sqlite", "history"].contains(file.lastPathComponent) {
                #expect(try Self.mode(file) == 0o600, "\(file.path)")
                #expect(try Self.mode(file.deletingLastPathComponent()) == 0o700, "\(file.deletingLastPathComponent().path)")
            }
        }
    }

    static func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1) & 0o777
    }
}
