import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport

/// The `flickr` command's refusals and failures as a person meets them: each names what is wrong
/// and what to do, exits 2 for usage errors and 1 for failures, and costs no request when the
/// problem can be known before one.
@Suite(.timeLimit(.minutes(2)), .tags(.command))
struct CommandErrorTests {
    let world: CommandWorld

    init() throws {
        world = try CommandWorld("errors")
    }

    func run(_ args: [String], env extra: [String: String] = [:]) async throws -> Products.Result {
        let r = try await Products.run(world.flickr, args, environment: world.environment.merging(extra) { $1 })
        #expect(!r.timedOut, "flickr \(args) timed out")
        return r
    }

    /// Credentials that reach no server: a refusal before the wire must not need one.
    static let offline = ["FLICKR_API_KEY": "k", "FLICKR_API_SECRET": "s"]

    @Test func callIsCheckedAgainstTheCatalogFirst() async throws {
        // No server at all: the check comes before credentials or a connection matter.
        var r = try await run(["call", "flickr.photos.getinfo"])
        #expect(r.status == 2 && r.stderr.contains("flickr.photos.getInfo: missing required argument photo_id"), "\(r.stderr)")
        r = try await run(["call", "flickr.photos.getInfo", "photoid=1"])
        #expect(r.status == 2 && r.stderr.contains("did you mean photo_id?") && r.stderr.contains("--no-strict"), "\(r.stderr)")
        r = try await run(["call", "flickr.photos.getInfoo", "photo_id=1"])
        #expect(r.status == 2 && r.stderr.contains("did you mean flickr.photos.getInfo"), "\(r.stderr)")
        // Any case reaches the method; --no-strict sends what the catalog lacks.
        r = try await run(["--sandbox", "call", "FLICKR.TEST.ECHO", "a=1", "--json"])
        #expect(r.status == 0 && r.stdout.contains("\"flickr.test.echo\""), "\(r.stderr)")
        r = try await run(["--sandbox", "call", "flickr.photos.search", "user_id=me", "per_page=1", "newer=1", "--no-strict"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func argumentsThatAreNotUTF8AreRefused() async throws {
        // Bytes a shell in Latin-1 would pass: the check reads the raw argv.
        let r = try await Products.run(URL(fileURLWithPath: "/bin/bash"),
                                       ["-c", "exec \"$0\" --sandbox call flickr.test.echo \"tags=$(printf 'caf\\351')\"", world.flickr.path],
                                       environment: world.environment)
        #expect(r.status == 2 && r.stderr.contains("not valid UTF-8"), "\(r.stderr)")
    }

    @Test func endpointsAreCheckedAndNetworkFailuresNameTheServer() async throws {
        for (endpoint, words) in [("not a url", "not a URL with a scheme"), ("ftp://example.org", "http or https, not ftp"),
                                  ("http://127.0.0.1:9/services/rest/", "it has a path (/services/rest/)")] {
            for args in [["--endpoint", endpoint, "call", "flickr.test.echo"], ["--endpoint", endpoint, "-e", "print(1)"]] {
                let r = try await run(args, env: Self.offline)
                #expect(r.status == 2 && r.stderr.contains(words) && r.stderr.contains("http://127.0.0.1:8080"), "\(args): \(r.stderr)")
            }
        }
        // Port 9 (discard) on loopback: nothing listens here.
        var r = try await run(["--endpoint", "http://127.0.0.1:9", "call", "flickr.test.echo"], env: Self.offline)
        #expect(r.status == 1 && r.stderr.contains("cannot connect to 127.0.0.1:9: connection refused"), "\(r.stderr)")
        #expect(!r.stderr.contains("errno"))
        // https to a server that speaks plain HTTP: the TLS handshake fails, and says where.
        let port = try await SandboxWorld.with { sandbox in
            let listening = try #require(URL(string: sandbox.url)?.port)
            r = try await run(["--endpoint", "https://127.0.0.1:\(listening)", "call", "flickr.test.echo"], env: Self.offline)
            return listening
        }
        #expect(r.status == 1 && r.stderr.contains("the TLS handshake with 127.0.0.1:\(port) failed"), "\(r.stderr)")
        // (Name resolution failures are mapped in FlickrAPITests: resolving a name would leave loopback.)
    }

    @Test func profilesAndLoginsAreNamed() async throws {
        var r = try await run(["--profile", "nope", "call", "flickr.test.echo"], env: Self.offline)
        #expect(r.status == 2 && r.stderr.contains("no profile named \"nope\"") && r.stderr.contains("flickr login --profile nope"),
                "\(r.stderr)")
        r = try await run(["call", "flickr.test.echo"], env: Self.offline.merging(["FLICKR_PROFILE": "work"]) { $1 })
        #expect(r.status == 2 && r.stderr.contains("no profile named \"work\""), "\(r.stderr)")
        // The command's name once, not twice.
        r = try await run(["whoami"], env: Self.offline)
        #expect(r.status != 0 && r.stderr.hasPrefix("flickr whoami: ") && !r.stderr.contains("whoami: whoami"), "\(r.stderr)")
        // An option misspelt: one line of usage and a suggestion, not the whole help.
        r = try await run(["--endpont", "http://x", "call", "flickr.test.echo"])
        #expect(r.status == 2 && r.stderr.contains("did you mean --endpoint?") && r.stderr.split(separator: "\n").count <= 3, "\(r.stderr)")
    }
}
