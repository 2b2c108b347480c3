import FlickrAPI
import FlickrSandbox

extension FlickrContext {
    /// A context for `server`: its application and its default user (holding a write token),
    /// its endpoints, and no client-side rate limit — what a test needs to call it as a user
    /// would call Flickr.
    ///
    /// ```swift
    /// try await FlickrSandboxServer.withRunning(SandboxConfiguration()) { server in
    ///     let client = FlickrClient(context: FlickrContext(sandbox: server))
    ///     _ = try await client.call("flickr.test.login")
    /// }
    /// ```
    public init(sandbox server: FlickrSandboxServer) {
        let c = server.credentials
        self.init(apiKey: c.apiKey, sharedSecret: c.apiSecret, oauthToken: c.oauthToken,
                  oauthTokenSecret: c.oauthTokenSecret, endpoints: Endpoints(baseURL: server.url))
        ratePolicy = .unlimited
    }
}
