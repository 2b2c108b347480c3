extension FlickrSandboxServer {
    /// Starts a sandbox with `configuration` (by default on a free port of 127.0.0.1), runs
    /// `body` with it and stops it however `body` ends — returning, throwing or cancelled — so
    /// that a failing test never leaves a server behind.
    ///
    /// ```swift
    /// @Test func searchesMyPhotos() async throws {
    ///     try await FlickrSandboxServer.withRunning(SandboxConfiguration()) { server in
    ///         let client = FlickrClient(context: FlickrContext(sandbox: server))
    ///         let rsp = try await client.call("flickr.photos.search", ["user_id": "me"])
    ///         #expect(!(rsp["photos.photo"]?.array ?? []).isEmpty)
    ///     }
    /// }
    /// ```
    /// `body`'s error is the one rethrown; a failure to stop is thrown only when `body`
    /// succeeded.
    public static func withRunning<T: Sendable>(_ configuration: SandboxConfiguration = SandboxConfiguration(),
                                                _ body: (FlickrSandboxServer) async throws -> T) async throws -> T {
        let server = try await start(configuration)
        let result: T
        do {
            result = try await body(server)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        return result
    }
}
