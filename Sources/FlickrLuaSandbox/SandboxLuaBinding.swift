import AsyncHTTPClient
import FlickrAPI
import FlickrLua
import FlickrProtocol
import FlickrSandbox
import LuaKit

/// `flickr --sandbox`: an in-process sandbox, a session using its app and default user, and a
/// global `sandbox` table to steer the sandbox from a script:
///
/// ```lua
/// sandbox.url, sandbox.credentials.user_nsid
/// sandbox.faults("5xx=1")        -- fault injection (`""` turns it off)
/// sandbox.latency(100)           -- milliseconds added to every answer
/// sandbox.rate_limit(5)          -- 429 beyond 5 calls/s (nil: off)
/// sandbox.budget(3600, 3600)     -- 429 beyond 3600 calls per key in any hour (nil: off)
/// local t = sandbox.issue_token{ perms = "read" }   -- { token =, secret = } for the default user
/// local verifier = sandbox.approve(url)   -- the user's browser: opens an authorize / login URL
/// ```
public enum FlickrLuaSandbox {
    /// Starts a sandbox and a session bound to it (rate limit off, as for any loopback endpoint).
    public static func start(_ configuration: SandboxConfiguration = SandboxConfiguration(),
                             options: FlickrLuaSession.Options = FlickrLuaSession.Options())
        async throws -> (server: FlickrSandboxServer, session: FlickrLuaSession) {
        let server = try await FlickrSandboxServer.start(configuration)
        do {
            var options = options
            let c = server.credentials
            options.settings = FlickrSettings(apiKey: c.apiKey, secret: c.apiSecret, token: c.oauthToken,
                                              tokenSecret: c.oauthTokenSecret, endpoint: server.url,
                                              user: "\(c.username) (\(c.userNSID))").over(options.settings)
            let session = try await FlickrLuaSession(options)
            try await install(server, in: session.runtime)
            return (server, session)
        } catch {
            try? await server.stop()
            throw error
        }
    }

    /// Sets the global `sandbox` table.
    public static func install(_ server: FlickrSandboxServer, in runtime: LuaRuntime) async throws {
        try await runtime.perform { state in
            let c = server.credentials
            state.newTable()
            let t = state.top
            state.push(server.url)
            state.rawSet(field: "url", in: t)
            try state.push(LuaValue.map([
                "api_key": .string(c.apiKey), "api_secret": .string(c.apiSecret), "oauth_token": .string(c.oauthToken),
                "oauth_token_secret": .string(c.oauthTokenSecret), "user_nsid": .string(c.userNSID),
                "username": .string(c.username),
            ]))
            state.rawSet(field: "credentials", in: t)
            func define(_ name: String, _ body: @escaping (LuaCall) throws -> LuaReturn) {
                state.push(function: "sandbox." + name, body)
                state.rawSet(field: name, in: t)
            }
            func done(_ work: @escaping @Sendable () async throws -> Void) -> LuaReturn {
                .await(LuaAsync(work) { _, _ in 0 })
            }
            define("faults") { call in
                let spec = try call.optionalString(1) ?? ""
                let faults = spec.isEmpty ? FaultSpec.none : try FaultSpec.parse(spec)
                return done { await server.setFaults(faults) }
            }
            define("latency") { call in
                let ms = Int(try call.integer(1))
                return done { await server.setLatency(milliseconds: ms) }
            }
            define("rate_limit") { call in
                let n = try call.optionalInteger(1).map(Int.init)
                return done { await server.setRateLimit(n) }
            }
            define("budget") { call in
                let budget: CallBudget?
                if let calls = try call.optionalInteger(1) {
                    budget = try CallBudget(calls: Int(calls), seconds: try call.number(2))
                } else {
                    budget = nil
                }
                return done { await server.setBudget(budget) }
            }
            // requests(): how many HTTP requests the sandbox has received so far (of any kind), so
            // that a test can see a refusal cost none.
            define("requests") { call in
                call.state.push(Int64(server.requestCount()))
                return .results(1)
            }
            define("issue_token") { call in
                var username: String?
                var perms = FlickrPermission.write
                if try call.optionalTable(1) {
                    if call.state.rawGet(field: "username", in: 1) == .string { username = call.state.string(at: -1) }
                    if call.state.rawGet(field: "perms", in: 1) == .string {
                        perms = FlickrPermission(rawValue: call.state.string(at: -1) ?? "") ?? .write
                    }
                    call.state.pop(2)
                }
                let (user, level) = (username, perms)
                return .await(LuaAsync({ try await server.issueToken(username: user, perms: level) }) { state, pair in
                    try state.push(LuaValue.map(["token": .string(pair.token), "secret": .string(pair.secret)]))
                    return 1
                })
            }
            // approve(url): what the user's browser does with an authorize or legacy login page.
            // Redirects are followed (a loopback callback receives the verifier); returns the
            // verifier shown on an `oob` page (or nil) and the final HTTP status.
            define("approve") { call in
                let url = try call.string(1)
                return .await(LuaAsync({ () async throws -> (String?, Int) in
                    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
                    let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
                    var verifier: String?
                    if let start = body.range(of: "id=\"oauth_verifier\">"),
                       let end = body[start.upperBound...].range(of: "<") {
                        verifier = String(body[start.upperBound..<end.lowerBound])
                    }
                    return (verifier, Int(response.status.code))
                }) { state, result in
                    if let v = result.0 { state.push(v) } else { state.pushNil() }
                    state.push(Int64(result.1))
                    return 2
                })
            }
            state.setGlobal("sandbox")
        }
    }
}
