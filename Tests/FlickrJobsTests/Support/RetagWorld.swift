import FlickrAPI
import FlickrSandbox
import FlickrTestSupport
import Foundation

/// The world of the retag tests: a sandbox over loopback and a clean home for `flickr`.
enum RetagWorld {
    /// A sandbox seeded with `photos` of alice (bob, with a write token, may add his tags); the
    /// body gets the server, alice's client, bob's client and the environment to run `flickr` in.
    static func with<T>(_ photos: [[String: Any]], log: URL? = nil,
                        _ body: (FlickrSandboxServer, FlickrClient, FlickrClient, [String: String]) async throws -> T) async throws -> T {
        let seed: [String: Any] = ["users": [["username": "alice"], ["username": "bob"]], "photos": photos,
                                   "tokens": [["token": "72157600000000009-00000000000000bb", "secret": "bbbbbbbbbbbbbbbb", "user": "bob", "perms": "write"]]]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("edge-seed-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: seed).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var configuration = SandboxConfiguration(dataFile: file.path)
        configuration.logFile = log?.path
        let server = try await FlickrSandboxServer.start(configuration)
        do {
            let c = server.credentials
            let alice = FlickrClient(context: FlickrContext(apiKey: c.apiKey, sharedSecret: c.apiSecret, oauthToken: c.oauthToken,
                                                            oauthTokenSecret: c.oauthTokenSecret, endpoints: Endpoints(baseURL: server.url)))
            let bob = FlickrClient(context: FlickrContext(apiKey: c.apiKey, sharedSecret: c.apiSecret, oauthToken: "72157600000000009-00000000000000bb",
                                                          oauthTokenSecret: "bbbbbbbbbbbbbbbb", endpoints: Endpoints(baseURL: server.url)))
            let world = try CommandWorld("retag-edge")
            var env = world.environment
            env["FLICKR_ENDPOINT"] = server.url
            env["FLICKR_API_KEY"] = c.apiKey
            env["FLICKR_API_SECRET"] = c.apiSecret
            env["FLICKR_OAUTH_TOKEN"] = c.oauthToken
            env["FLICKR_OAUTH_TOKEN_SECRET"] = c.oauthTokenSecret
            let result = try await body(server, alice, bob, env)
            try? FileManager.default.removeItem(at: world.directory)
            try await server.stop()
            return result
        } catch {
            try? await server.stop()
            throw error
        }
    }
}
