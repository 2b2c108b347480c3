import FlickrProtocol
import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport

@Suite("OAuth and legacy auth, permissions, verbs", .timeLimit(.minutes(3)), .tags(.integration))
struct AuthTests {
    /// Signs `pairs` for `url` and returns the oauth_* pairs including the signature.
    static func signed(_ server: FlickrSandboxServer, verb: String, url: String, _ pairs: [(String, String)],
                       token: String?, secret: String?, oauth: OAuthParameters? = nil) -> [(String, String)] {
        let o = oauth ?? OAuthParameters.fresh(consumerKey: server.credentials.apiKey, token: token)
        let s = OAuthSignature.sign(method: verb, url: url, parameters: pairs + o.pairs,
                                    consumerSecret: server.credentials.apiSecret, tokenSecret: secret)
        return o.pairs + [("oauth_signature", s.signature)]
    }

    @Test("The OAuth dance with a callback URL: 302 carrying token and verifier, then the access token")
    func callbackDance() async throws {
        try await withSandbox { server in
            let base = server.url + "/services/oauth/"
            let cb = "http://client.example/done?state=1"
            var o = OAuthParameters.fresh(consumerKey: server.credentials.apiKey, token: nil, callback: cb)
            var sig = OAuthSignature.sign(method: "GET", url: base + "request_token", parameters: o.pairs,
                                          consumerSecret: server.credentials.apiSecret, tokenSecret: nil)
            let rt = try await TestHTTP.get(base + "request_token?" + FormEncoding.serialize(o.pairs + [("oauth_signature", sig.signature)]))
            #expect(rt.status == 200)
            let fields = Dictionary(FormEncoding.parse(rt.body), uniquingKeysWith: { a, _ in a })
            #expect(fields["oauth_callback_confirmed"] == "true")
            let token = try #require(fields["oauth_token"]), secret = try #require(fields["oauth_token_secret"])
            #expect(token.wholeMatch(of: /\d{17}-[0-9a-f]{16}/) != nil && secret.wholeMatch(of: /[0-9a-f]{16}/) != nil)

            let auth = try await TestHTTP.get(base + "authorize?oauth_token=\(token)&perms=write")
            #expect(auth.status == 302)
            let location = try #require(auth.header("Location"))
            #expect(location.hasPrefix(cb + "&oauth_token=\(token)&oauth_verifier="))
            let verifier = try #require(FormEncoding.parse(String(location.split(separator: "?")[1])).first { $0.0 == "oauth_verifier" }?.1)

            // A wrong verifier is refused; the right one yields an access token.
            o = OAuthParameters.fresh(consumerKey: server.credentials.apiKey, token: token, verifier: "000-000-000")
            sig = OAuthSignature.sign(method: "POST", url: base + "access_token", parameters: o.pairs,
                                      consumerSecret: server.credentials.apiSecret, tokenSecret: secret)
            let bad = try await TestHTTP.send(base + "access_token", method: .POST, headers: [("Authorization", o.authorizationHeader(signature: sig.signature))])
            #expect(bad.status == 401 && bad.body == "oauth_problem=verifier_invalid")
            o = OAuthParameters.fresh(consumerKey: server.credentials.apiKey, token: token, verifier: verifier)
            sig = OAuthSignature.sign(method: "POST", url: base + "access_token", parameters: o.pairs,
                                      consumerSecret: server.credentials.apiSecret, tokenSecret: secret)
            let at = try await TestHTTP.send(base + "access_token", method: .POST, headers: [("Authorization", o.authorizationHeader(signature: sig.signature))])
            #expect(at.status == 200)
            let access = Dictionary(FormEncoding.parse(at.body), uniquingKeysWith: { a, _ in a })
            #expect(access["user_nsid"] == server.credentials.userNSID && access["username"] == server.credentials.username)
            #expect(access["fullname"] != nil)
            let client = SandboxClient(server, token: access["oauth_token"], tokenSecret: access["oauth_token_secret"])
            let check = try await client.ok("flickr.auth.oauth.checkToken", [], verb: "GET")
            #expect(XMLProbe.texts(of: "perms", in: check) == ["write"])
            // The request token is spent.
            let reuse = try await TestHTTP.send(base + "access_token", method: .POST, headers: [("Authorization", o.authorizationHeader(signature: sig.signature))])
            #expect(reuse.status == 401 && reuse.body == "oauth_problem=token_rejected")
        }
    }

    @Test("Parameters may travel in the query, the header or the body; both path spellings verify")
    func parameterLocations() async throws {
        try await withSandbox { server in
            let c = server.credentials
            for path in ["/services/rest/", "/services/rest"] {
                let url = server.url + path
                let pairs = [("method", "flickr.test.login")]
                // All in the query (GET).
                let q = Self.signed(server, verb: "GET", url: url, pairs, token: c.oauthToken, secret: c.oauthTokenSecret)
                let inQuery = try await TestHTTP.get(url + "?" + FormEncoding.serialize(pairs + q))
                #expect(inQuery.body.contains("<username>\(c.username)</username>"), "\(path) query: \(inQuery.body)")
                // All in the form body (POST, Flickr-Foundation style is query; this is the form style).
                let b = Self.signed(server, verb: "POST", url: url, pairs, token: c.oauthToken, secret: c.oauthTokenSecret)
                let inBody = try await TestHTTP.postForm(url, pairs + b)
                #expect(inBody.body.contains("<rsp stat=\"ok\">"), "\(path) body: \(inBody.body)")
                // The signature covers the path as requested: signing one spelling and sending the other fails.
                let other = path.hasSuffix("/") ? server.url + "/services/rest" : server.url + "/services/rest/"
                let wrong = Self.signed(server, verb: "GET", url: other, pairs, token: c.oauthToken, secret: c.oauthTokenSecret)
                let mismatch = try await TestHTTP.get(url + "?" + FormEncoding.serialize(pairs + wrong))
                #expect(mismatch.status == 401 && mismatch.body.hasPrefix("oauth_problem=signature_invalid&debug_sbs=GET&"))
            }
        }
    }

    @Test("Replayed nonces, stale timestamps, unknown tokens and keys are refused with Flickr's 401s")
    func oauthRefusals() async throws {
        try await withSandbox { server in
            let c = server.credentials
            let url = server.url + "/services/rest/"
            let pairs = [("method", "flickr.test.null")]
            let fixed = OAuthParameters(consumerKey: c.apiKey, token: c.oauthToken, nonce: "n-\(UUID().uuidString)",
                                        timestamp: String(Int(Date().timeIntervalSince1970)))
            let once = Self.signed(server, verb: "GET", url: url, pairs, token: c.oauthToken, secret: c.oauthTokenSecret, oauth: fixed)
            #expect(try await TestHTTP.get(url + "?" + FormEncoding.serialize(pairs + once)).status == 200)
            let replay = try await TestHTTP.get(url + "?" + FormEncoding.serialize(pairs + once))
            #expect(replay.status == 401 && replay.body == "oauth_problem=nonce_used")

            let stale = OAuthParameters(consumerKey: c.apiKey, token: c.oauthToken, nonce: "s", timestamp: String(Int(Date().timeIntervalSince1970) - 3600))
            let old = Self.signed(server, verb: "GET", url: url, pairs, token: c.oauthToken, secret: c.oauthTokenSecret, oauth: stale)
            let refused = try await TestHTTP.get(url + "?" + FormEncoding.serialize(pairs + old))
            #expect(refused.status == 401 && refused.body == "oauth_problem=timestamp_refused")
            #expect(refused.header("Content-Type") == "text/plain;charset=UTF-8")

            let unknown = Self.signed(server, verb: "GET", url: url, pairs, token: "72157000000000000-0000000000000000", secret: "x")
            let rejected = try await TestHTTP.get(url + "?" + FormEncoding.serialize(pairs + unknown))
            #expect(rejected.status == 401 && rejected.body == "oauth_problem=token_rejected")

            let wrongKey = OAuthParameters.fresh(consumerKey: "0123456789abcdef0123456789abcdef", token: nil)
            let wk = try await TestHTTP.get(url + "?" + FormEncoding.serialize(pairs + wrongKey.pairs + [("oauth_signature", "x")]))
            #expect(wk.status == 401 && wk.body == "oauth_problem=consumer_key_unknown")
        }
    }

    // Wide margins: the sandbox reads its clock when the request arrives, which on a loaded
    // machine came more than 10 s after `now` (a timestamp 40 s ahead then passed a 30 s skew).
    @Test("--clock-skew sets how far off a timestamp may be: 100 s behind passes a 300 s skew, 600 s behind is refused")
    func clockSkewIsConfigurable() async throws {
        var configuration = SandboxConfiguration()
        configuration.clockSkewSeconds = 300
        try await withSandbox(configuration) { server in
            let c = server.credentials
            let url = server.url + "/services/rest/"
            let pairs = [("method", "flickr.test.null")]
            let now = Int(Date().timeIntervalSince1970)
            for (behind, status) in [(100, 200), (600, 401), (-100, 200), (-600, 401)] {
                let oauth = OAuthParameters(consumerKey: c.apiKey, token: c.oauthToken, nonce: "skew-\(behind)-\(UUID().uuidString)",
                                            timestamp: String(now - behind))
                let signed = Self.signed(server, verb: "GET", url: url, pairs, token: c.oauthToken, secret: c.oauthTokenSecret, oauth: oauth)
                let answer = try await TestHTTP.get(url + "?" + FormEncoding.serialize(pairs + signed))
                #expect(answer.status == status, "\(behind) s behind: \(answer.body)")
                if status == 401 { #expect(answer.body == "oauth_problem=timestamp_refused") }
            }
        }
    }

    @Test("Permissions: none/read tokens cannot write (99); setters need POST (116); bad key 100")
    func permissions() async throws {
        try await withSandbox { server in
            let read = try await server.issueToken(username: nil, perms: .read)
            let reader = SandboxClient(server, token: read.token, tokenSecret: read.secret)
            let denied = try await reader.call("flickr.photos.addTags", [("photo_id", "1"), ("tags", "x")])
            #expect(denied.body.contains("<err code=\"99\" msg=\"Insufficient permissions. Method requires write privileges; read granted.\" />"))
            let ok = try await reader.call("flickr.test.login", [], verb: "GET")
            #expect(ok.body.contains("<rsp stat=\"ok\">"))
            let writer = SandboxClient.writer(server)
            let delete = try await writer.call("flickr.photos.delete", [("photo_id", "1")])
            #expect(delete.body.contains("Method requires delete privileges; write granted."))
            let anonymous = SandboxClient(server)
            let none = try await anonymous.call("flickr.test.null", [], verb: "GET")
            #expect(none.body.contains("<err code=\"99\" msg=\"Insufficient permissions. Method requires read privileges; none granted.\" />"))
            let viaGet = try await writer.call("flickr.photos.addTags", [("photo_id", "1"), ("tags", "x")], verb: "GET")
            #expect(XMLProbe.errorCode(viaGet.body) == 116)
            let badKey = try await TestHTTP.get(server.url + "/services/rest/?method=flickr.test.echo&api_key=nope")
            #expect(badKey.body == "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"fail\">\n\t<err code=\"100\" msg=\"Invalid API Key (Key has invalid format)\" />\n</rsp>\n")
            let missing = try await writer.call("flickr.photos.getInfo", [], verb: "GET")
            #expect(missing.body.contains("<err code=\"1\" msg=\"Required parameter missing\" />"))
        }
    }

    @Test("Legacy auth: getFrob, the login page, getToken, checkToken, api_sig checks, exchange to OAuth once")
    func legacyFlow() async throws {
        try await withSandbox { server in
            let c = server.credentials
            func signedURL(_ pairs: [(String, String)], path: String = "/services/rest/") -> String {
                let all = [("api_key", c.apiKey)] + pairs
                return server.url + path + "?" + FormEncoding.serialize(all + [("api_sig", LegacySignature.apiSig(secret: c.apiSecret, parameters: all))])
            }
            let unsigned = try await TestHTTP.get(server.url + "/services/rest/?method=flickr.test.login&api_key=\(c.apiKey)&auth_token=x")
            #expect(XMLProbe.errorCode(unsigned.body) == 99 || XMLProbe.errorCode(unsigned.body) == 97)
            let frobXML = try await TestHTTP.get(signedURL([("method", "flickr.auth.getFrob")]))
            let frob = try #require(XMLProbe.texts(of: "frob", in: frobXML.body).first)
            let early = try await TestHTTP.get(signedURL([("method", "flickr.auth.getToken"), ("frob", frob)]))
            #expect(XMLProbe.errorCode(early.body) == 108)
            let login = try await TestHTTP.get(signedURL([("perms", "write"), ("frob", frob)], path: "/services/auth/"))
            #expect(login.status == 200)
            let tokenXML = try await TestHTTP.get(signedURL([("method", "flickr.auth.getToken"), ("frob", frob)]))
            let token = try #require(XMLProbe.texts(of: "token", in: tokenXML.body).first)
            #expect(XMLProbe.texts(of: "perms", in: tokenXML.body) == ["write"])
            #expect(XMLProbe.attributes("nsid", of: "user", in: tokenXML.body) == [c.userNSID])
            let who = try await TestHTTP.get(signedURL([("method", "flickr.test.login"), ("auth_token", token)]))
            #expect(who.body.contains("<username>\(c.username)</username>"))
            let tampered = try await TestHTTP.get(signedURL([("method", "flickr.test.login"), ("auth_token", token)]).replacingOccurrences(of: "test.login", with: "test.null"))
            #expect(XMLProbe.errorCode(tampered.body) == 96)
            let check = try await TestHTTP.get(signedURL([("method", "flickr.auth.checkToken"), ("auth_token", token)]))
            #expect(XMLProbe.texts(of: "token", in: check.body) == [token])
            let exchange = try await TestHTTP.get(signedURL([("method", "flickr.auth.oauth.getAccessToken"), ("auth_token", token)]))
            let oauthToken = try #require(XMLProbe.attributes("oauth_token", of: "access_token", in: exchange.body).first)
            let oauthSecret = try #require(XMLProbe.attributes("oauth_token_secret", of: "access_token", in: exchange.body).first)
            let after = try await TestHTTP.get(signedURL([("method", "flickr.test.login"), ("auth_token", token)]))
            #expect(XMLProbe.errorCode(after.body) == 98)
            let client = SandboxClient(server, token: oauthToken, tokenSecret: oauthSecret)
            #expect(try await client.ok("flickr.test.login", [], verb: "GET").contains(c.username))
        }
    }

    @Test("Authorize with oob shows the verifier; unknown tokens and bad perms are refused")
    func authorizePage() async throws {
        try await withSandbox { server in
            let base = server.url + "/services/oauth/"
            let o = OAuthParameters.fresh(consumerKey: server.credentials.apiKey, token: nil, callback: "oob")
            let sig = OAuthSignature.sign(method: "POST", url: base + "request_token", parameters: o.pairs,
                                          consumerSecret: server.credentials.apiSecret, tokenSecret: nil)
            let rt = try await TestHTTP.postForm(base + "request_token", o.pairs + [("oauth_signature", sig.signature)])
            let token = try #require(FormEncoding.parse(rt.body).first { $0.0 == "oauth_token" }?.1)
            let page = try await TestHTTP.get(base + "authorize?perms=read&oauth_token=\(token)")
            #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(page.body.firstMatch(of: /<span id="oauth_verifier">\d{3}-\d{3}-\d{3}<\/span>/) != nil)
            #expect(try await TestHTTP.get(base + "authorize?perms=read&oauth_token=nope").status == 400)
            #expect(try await TestHTTP.get(base + "authorize?perms=admin&oauth_token=\(token)").status == 400)
            let unsigned = try await TestHTTP.get(base + "request_token?oauth_callback=oob")
            #expect(unsigned.status == 401 && unsigned.body.hasPrefix("oauth_problem="))
        }
    }
}
