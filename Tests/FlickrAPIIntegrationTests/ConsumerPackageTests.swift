import FlickrAPI
import FlickrAPITesting
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// FlickrAPI as a Swift developer meets it: a package of its own (Tests/Consumer) that depends
/// on this one by path, builds with `import FlickrAPI` alone and runs against a sandbox; the
/// README's snippets compiled; a sandbox in a user's test that never outlives it.
@Suite("FlickrAPI in a user's package: one import, no tool dependencies, no warnings; README snippets; the sandbox in users' tests",
       .timeLimit(.minutes(25)), .tags(.integration, .heavy))
struct ConsumerPackageTests {
    static let consumer = Fixtures.repository.appendingPathComponent("Tests/Consumer")

    @Test("The README's Swift snippets are the ReadmeSnippets target's sources (scripts/readme-snippets --check), which the build compiles")
    func readmeSnippetsCurrent() async throws {
        let result = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"),
                                            ["python3", Fixtures.repository.appendingPathComponent("scripts/readme-snippets").path, "--check"],
                                            timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: Fixtures.repository.appendingPathComponent("Tests/ReadmeSnippets").path)
        #expect(files.filter { $0.hasSuffix(".swift") }.count >= 5, "\(files)")
    }

    @Test("A package depending on this one by path builds FlickrAPI without a warning and without Hummingbird, GRDB, swift-argument-parser, Lua or readline, and its program (only `import FlickrAPI`) passes every check against the sandbox")
    func consumerPackage() async throws {
        let swift = URL(fileURLWithPath: "/usr/bin/env")
        let build = try await Products.run(swift, ["swift", "build", "--package-path", Self.consumer.path, "--product", "swiftflickr-consumer"],
                                           timeout: 1200)
        #expect(build.status == 0 && !build.timedOut, "\(build.stdout.suffix(4000))\(build.stderr.suffix(2000))")
        guard build.status == 0 else { return }
        // No warning from this repository's sources (a rebuild from a warm cache compiles nothing, so
        // clean our modules' outputs first would cost minutes: the first build's output is what counts,
        // and a warm one prints none either way).
        // Also the package-level ones SwiftPM prints about this package (prohibited pkg-config
        // flags of its system libraries).
        let ours = (build.stdout + build.stderr).split(separator: "\n").filter {
            $0.contains("warning:") && ($0.contains(Fixtures.repository.appendingPathComponent("Sources").path) || $0.contains("prohibited flag"))
        }
        #expect(ours.isEmpty, "\(ours.joined(separator: "\n"))")
        // What the build compiled: its modules.
        let bin = try await Products.run(swift, ["swift", "build", "--package-path", Self.consumer.path, "--show-bin-path"], timeout: 120)
        let binPath = bin.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let modules = try FileManager.default.contentsOfDirectory(atPath: binPath + "/Modules").map { ($0 as NSString).deletingPathExtension }
        #expect(modules.contains("FlickrAPI") && modules.contains("FlickrProtocol"), "\(modules)")
        for tool in ["Hummingbird", "GRDB", "ArgumentParser", "LuaKit", "FlickrLua", "CLua", "CReadline", "FlickrSandbox", "FlickrJobs"] {
            #expect(!modules.contains(tool), "building FlickrAPI compiled \(tool)")
        }
        // The program, against a sandbox, with credentials as every SwiftFlickr program finds them.
        try await FlickrSandboxServer.withRunning(SandboxConfiguration()) { server in
            let c = server.credentials
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("consumer-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": home.path,
                       "XDG_CONFIG_HOME": home.path, "FLICKR_API_KEY": c.apiKey, "FLICKR_API_SECRET": c.apiSecret,
                       "FLICKR_OAUTH_TOKEN": c.oauthToken, "FLICKR_OAUTH_TOKEN_SECRET": c.oauthTokenSecret, "FLICKR_ENDPOINT": server.url]
            let run = try await Products.run(URL(fileURLWithPath: binPath + "/swiftflickr-consumer"), [], environment: env, timeout: 120)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(!run.stdout.contains("FAIL"), "\(run.stdout)")
            for check in ["resolve without credentials throws", "call + FlickrNode", "photoURL on the client's host", "pageURL keeps @",
                          "TagString", "typed search", "typed addComment", ".string reads element text", ".bool", ".int", ".date",
                          ".double", "FlickrNodeDecoder", "keyDecodingStrategy", "FlickrErrorCode", "LocalizedError", "Swift advice",
                          "main-actor delegate"] {
                #expect(run.stdout.contains("ok " + check), "missing: \(check)\n\(run.stdout)")
            }
        }
    }

    struct Boom: Error {}

    @Test("FlickrSandboxServer.withRunning stops the server however the body ends; FlickrContext(sandbox:) calls it as its default user")
    func withRunning() async throws {
        let url = try await FlickrSandboxServer.withRunning(SandboxConfiguration()) { server in
            let client = FlickrClient(context: FlickrContext(sandbox: server))
            let login = try await client.call("flickr.test.login")
            #expect(login["user.id"]?.string == server.credentials.userNSID)
            return server.url
        }
        var thrownURL: String?
        await #expect(throws: Boom.self) {
            try await FlickrSandboxServer.withRunning(SandboxConfiguration()) { server in
                thrownURL = server.url
                throw Boom()
            }
        }
        // Both servers are gone: nothing listens on their ports any more.
        for stopped in [url, thrownURL ?? ""] {
            var context = FlickrContext(apiKey: "k", sharedSecret: "s", endpoints: Endpoints(baseURL: stopped))
            context.retryPolicy = .none
            let error = await #expect(throws: FlickrError.self) { _ = try await FlickrClient(context: context).call("flickr.test.echo") }
            #expect(error?.unreachable == true, "\(String(describing: error))")
        }
    }
}
