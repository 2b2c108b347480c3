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

    /// The user's package, built: its build log (with `-v`, so the link command is in it), the
    /// logs in which this repository's sources were compiled for it, and its bin folder.
    /// scripts/test builds it in the main build folder before the suites run (reusing the
    /// compiled dependencies; a test cannot build there while `swift test` holds that folder's
    /// lock) and names the logs in FLICKR_TEST_CONSUMER_BUILD_LOG and FLICKR_TEST_BUILD_LOG;
    /// without them the package is built here, in a folder of its own.
    static func consumerBuild() async throws -> (log: String, sourceLogs: [String], bin: String) {
        let environment = ProcessInfo.processInfo.environment
        if let consumerLog = environment["FLICKR_TEST_CONSUMER_BUILD_LOG"], let buildLog = environment["FLICKR_TEST_BUILD_LOG"] {
            let log = try String(contentsOfFile: consumerLog, encoding: .utf8)
            let main = try String(contentsOfFile: buildLog, encoding: .utf8)
            return (log, [main, log], Fixtures.repository.appendingPathComponent(".build/debug").path)
        }
        let swift = URL(fileURLWithPath: "/usr/bin/env")
        let bin = consumer.appendingPathComponent(".build/debug").path
        // The executable is linked afresh every time, so that its link command is in the log.
        try? FileManager.default.removeItem(atPath: bin + "/swiftflickr-consumer")
        let build = try await Products.run(swift, ["swift", "build", "--package-path", consumer.path, "--product", "swiftflickr-consumer", "-v"],
                                           timeout: 1200)
        try #require(build.status == 0 && !build.timedOut, "\(build.stdout.suffix(4000))\(build.stderr.suffix(2000))")
        return (build.stdout + build.stderr, [build.stdout + build.stderr], bin)
    }

    @Test("A package depending on this one by path builds FlickrAPI without a warning and links none of Hummingbird, GRDB, swift-argument-parser, Lua or readline, and its program (only `import FlickrAPI`) passes every check against the sandbox")
    func consumerPackage() async throws {
        let (log, sourceLogs, binPath) = try await Self.consumerBuild()
        // No warning from this repository's sources where they were compiled (a warm build
        // compiles nothing and prints none), nor the package-level ones SwiftPM prints about this
        // package (prohibited pkg-config flags of its system libraries).
        let ours = sourceLogs.flatMap { $0.split(separator: "\n") }.filter {
            $0.contains("warning:") && ($0.contains(Fixtures.repository.appendingPathComponent("Sources").path) || $0.contains("prohibited flag"))
        }
        #expect(ours.isEmpty, "\(ours.joined(separator: "\n"))")
        // What the program is made of: the object files of its link (one folder per module) and
        // the libraries its link command names.
        let objects = try String(contentsOfFile: binPath + "/swiftflickr-consumer.product/Objects.LinkFileList", encoding: .utf8)
        let modules = Set(objects.split(separator: "\n").compactMap { line -> String? in
            guard let folder = line.split(separator: "/").last(where: { $0.hasSuffix(".build") }) else { return nil }
            return String(folder.dropLast(".build".count))
        })
        #expect(modules.contains("FlickrAPI") && modules.contains("FlickrProtocol"), "\(modules.sorted())")
        for tool in ["Hummingbird", "HummingbirdCore", "GRDB", "ArgumentParser", "LuaKit", "FlickrLua", "CLuaShim", "CReadlineShim",
                     "FlickrSandbox", "FlickrJobs", "FlickrLibrary", "FlickrShell"] {
            #expect(!modules.contains(tool), "the program links \(tool)")
        }
        let link = try #require(log.split(separator: "\n").first { $0.contains("swiftc") && $0.contains("/swiftflickr-consumer ") && $0.contains("-emit-executable") },
                                "no link command of swiftflickr-consumer in the build log")
        for library in ["-llua5.4", "-lreadline", "-lsqlite3"] {
            #expect(!link.split(separator: " ").contains(Substring(library)), "the program is linked with \(library)")
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

    @Test("An application that pins swift-nio below its newest release can depend on this package: it resolves, below the pin")
    func lowerNIOPinResolves() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("consumer-pin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Sources/app"), withIntermediateDirectories: true)
        try Data("import FlickrAPI\n".utf8).write(to: folder.appendingPathComponent("Sources/app/main.swift"))
        let repository = Fixtures.repository.standardizedFileURL
        let manifest = """
            // swift-tools-version:6.1
            import PackageDescription
            let package = Package(
                name: "PinnedApp",
                dependencies: [
                    .package(path: "\(repository.path)"),
                    .package(url: "https://github.com/apple/swift-nio", "2.90.0"..<"2.101.3"),
                ],
                targets: [.executableTarget(name: "app", dependencies: [
                    .product(name: "FlickrAPI", package: "\(repository.lastPathComponent.lowercased())"),
                    .product(name: "NIOCore", package: "swift-nio")])]
            )
            """
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("Package.swift"))
        let resolve = try await Products.run(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "package", "--package-path", folder.path, "resolve"],
                                             timeout: 600)
        try #require(resolve.status == 0 && !resolve.timedOut, "\(resolve.stdout.suffix(3000))\(resolve.stderr.suffix(3000))")
        let resolved = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("Package.resolved"))) as? [String: Any]
        let pins = resolved?["pins"] as? [[String: Any]] ?? []
        let nio = try #require(pins.first { $0["identity"] as? String == "swift-nio" }?["state"] as? [String: Any])
        let version = try #require(nio["version"] as? String).split(separator: ".").compactMap { Int($0) }
        #expect(version.lexicographicallyPrecedes([2, 101, 3]) && !version.lexicographicallyPrecedes([2, 90, 0]), "swift-nio \(version)")
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
