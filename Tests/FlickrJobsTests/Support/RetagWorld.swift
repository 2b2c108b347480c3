import FlickrAPI
import FlickrSandbox
import FlickrTestSupport
import Foundation

/// The world of the retag tests: a sandbox over loopback (``SandboxWorld``) and a clean home for `flickr`.
enum RetagWorld {
    /// A sandbox seeded with `photos` of alice (bob, with a write token, may add his tags); the
    /// body gets the server, alice's client, bob's client and the environment to run `flickr` in.
    static func with<T>(_ photos: [[String: Any]], log: URL? = nil,
                        _ body: (FlickrSandboxServer, FlickrClient, FlickrClient, [String: String]) async throws -> T) async throws -> T {
        let seed: [String: Any] = ["users": [["username": "alice"], ["username": "bob"]], "photos": photos,
                                   "tokens": [["token": "72157600000000009-00000000000000bb", "secret": "bbbbbbbbbbbbbbbb", "user": "bob", "perms": "write"]]]
        return try await SandboxWorld.with(seed: .object(seed), accessLog: log) { sandbox in
            let alice = sandbox.client()
            let bob = sandbox.client(token: (token: "72157600000000009-00000000000000bb", secret: "bbbbbbbbbbbbbbbb"))
            let world = try CommandWorld("retag-edge")
            let result = try await body(try sandbox.inProcessServer(), alice, bob, sandbox.environment(world.environment))
            try? FileManager.default.removeItem(at: world.directory)
            return result
        }
    }
}
