import FlickrAPI
import FlickrProtocol
import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport

@Suite(.timeLimit(.minutes(5)), .tags(.integration)) struct OAuthFlowTests {
    @Test func oobDanceEndToEnd() async throws {
        try await SandboxHarness.with(token: false) { h in
            let request = try await h.client.requestToken(callback: "oob")
            #expect(request.callbackConfirmed)
            let url = h.client.authorizeURL(for: request, perms: .write)
            #expect(url.contains("perms=write") && url.contains("oauth_token="))
            let page = try await SandboxHarness.fetch(url)
            #expect(page.status == 200)
            let verifier = try #require(Self.verifier(in: page.body))
            let access = try await h.client.accessToken(for: request, verifier: verifier)
            #expect(access.userNSID == h.server.credentials.userNSID)
            #expect(h.client.context.oauthToken == access.token)
            let info = try await h.client.checkToken()
            #expect(info.perms == .write)
            #expect(info.userNSID == h.server.credentials.userNSID)
            let login = try await h.client.call("flickr.test.login")
            #expect(login["user.id"]?.string == h.server.credentials.userNSID)
        }
    }

    @Test func loopbackCallbackLogin() async throws {
        try await SandboxHarness.with(token: false) { h in
            let access = try await h.client.loginWithLoopback(perms: .read, timeout: 20) { url in
                // The "browser": the sandbox approves and redirects to our loopback receiver.
                _ = try? await SandboxHarness.fetch(url)
            }
            #expect(access.username == h.server.credentials.username)
            #expect(try await h.client.checkToken().perms == .read)
        }
    }

    /// The loopback receiver answers strays with 404 and keeps waiting; after its one expected
    /// request it stops listening.
    @Test func loopbackReceiverTakesOneRequest() async throws {
        let receiver = try await LoopbackCallbackReceiver.start()
        defer { Task { await receiver.stop() } }
        let base = String(receiver.callbackURL.dropLast("/callback".count))
        #expect(try await SandboxHarness.fetch(base + "/favicon.ico").status == 404)
        #expect(try await SandboxHarness.fetch(receiver.callbackURL + "?oauth_token=t&oauth_verifier=v").status == 200)
        let got = try await receiver.waitForCallback(timeout: 10)
        #expect(got.token == "t" && got.verifier == "v")
        // The close is asynchronous (it hops to the listener's loop): told when it has landed.
        try await withDeadline(60, "the listener to close") { await receiver.waitUntilClosed() }
        // A plain connect, refused at once (an HTTP client would retry the connection until its
        // deadline).
        let port = try #require(URL(string: receiver.callbackURL)?.port)
        #expect(!Self.acceptsConnections(port: port), "the receiver still listens after its one request")
    }

    /// Whether something listens on 127.0.0.1:`port`: one blocking connect, which loopback
    /// answers at once.
    static func acceptsConnections(port: Int) -> Bool {
        guard let fd = LoopbackSocket.connect(port: port) else { return false }
        close(fd)
        return true
    }

    @Test func wrongVerifierIsRejected() async throws {
        try await SandboxHarness.with(token: false) { h in
            let request = try await h.client.requestToken(callback: "oob")
            _ = try await SandboxHarness.fetch(h.client.authorizeURL(for: request, perms: .read))
            do {
                try await h.client.accessToken(for: request, verifier: "000-000-000")
                Issue.record("accepted a wrong verifier")
            } catch let error as FlickrError {
                #expect(error.kind == .oauth && error.oauthProblem == "verifier_invalid")
            }
        }
    }

    @Test func wrongSecretShowsBothBaseStrings() async throws {
        try await SandboxHarness.with { h in
            h.client.updateContext { $0.sharedSecret = "not-the-secret" }
            do {
                _ = try await h.client.call("flickr.test.login")
                Issue.record("accepted a bad signature")
            } catch let error as FlickrError {
                #expect(error.kind == .oauth && error.oauthProblem == "signature_invalid" && error.httpStatus == 401)
                #expect(error.debugSBS != nil && error.debugSBS == error.signedBaseString)
                #expect(!error.description.contains("not-the-secret"))
            }
        }
    }

    @Test func legacyFrobFlowAndMigration() async throws {
        try await SandboxHarness.with(token: false) { h in
            let frob = try await h.client.getFrob()
            let login = h.client.legacyLoginURL(frob: frob, perms: .write)
            #expect(login.contains("api_sig=") && login.contains("frob="))
            let page = try await SandboxHarness.fetch(login)
            #expect(page.status == 200 || page.status == 302)
            let token = try await h.client.getToken(frob: frob)
            #expect(token.perms == .write)
            #expect(h.client.context.authToken == token.token)
            #expect(try await h.client.checkLegacyToken().userNSID == h.server.credentials.userNSID)
            let echo = try await h.client.call("flickr.test.login")
            #expect(echo["user.id"]?.string == h.server.credentials.userNSID)
            let access = try await h.client.migrateLegacyToken()
            #expect(h.client.context.oauthToken == access.token && h.client.context.authToken == nil)
            #expect(try await h.client.checkToken().perms == .write)
            // The legacy token was consumed by the exchange.
            h.client.updateContext { $0.oauthToken = nil; $0.oauthTokenSecret = nil; $0.authToken = token.token }
            do {
                _ = try await h.client.call("flickr.test.login")
                Issue.record("legacy token still valid after migration")
            } catch let error as FlickrError {
                #expect(error.kind == .api && error.code == 98)
            }
        }
    }

    static func verifier(in page: String) -> String? {
        guard let r = page.range(of: "<span id=\"oauth_verifier\">"),
              let end = page.range(of: "</span>", range: r.upperBound..<page.endIndex) else { return nil }
        return String(page[r.upperBound..<end.lowerBound])
    }
}
