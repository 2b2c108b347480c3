import Testing
import FlickrTestSupport
import FlickrProtocol
@testable import FlickrAPI

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct PhotoURLTests {
    let photo: FlickrNode = ["id": "12502775644", "server": "7372", "secret": "acfd415fa7", "owner": "12037949754@N01"]

    @Test func sharedSecretSizes() throws {
        #expect(try PhotoURL.source(photo, size: .small400) == "https://live.staticflickr.com/7372/12502775644_acfd415fa7_w.jpg")
        #expect(try PhotoURL.source(photo, size: .medium500) == "https://live.staticflickr.com/7372/12502775644_acfd415fa7.jpg")
        for size in [PhotoSize.square75, .square150, .thumbnail, .small240, .small320, .medium640, .medium800, .large1024] {
            #expect(try PhotoURL.source(photo, size: size).hasSuffix("_\(size.rawValue).jpg"))
        }
        #expect(PhotoSize(suffix: "-") == .medium500)
    }

    @Test func uniqueSecretSizesNeedExtras() throws {
        for size in [PhotoSize.large1600, .large2048, .xLarge3K, .xLarge4K, .xLarge4KF, .xLarge5K, .xLarge6K] {
            do throws(FlickrError) {
                _ = try PhotoURL.source(photo, size: size)
                Issue.record("\(size) built without its secret")
            } catch {
                #expect(error.kind == .usage)
                #expect(error.message.contains(size.extrasKey))
            }
        }
        var withH = photo.map!
        withH["url_h"] = "https://live.staticflickr.com/7372/12502775644_c34e251a30_h.jpg"
        #expect(try PhotoURL.source(.map(withH), size: .large1600) == "https://live.staticflickr.com/7372/12502775644_c34e251a30_h.jpg")
    }

    @Test func original() throws {
        do throws(FlickrError) {
            _ = try PhotoURL.source(photo, size: .original)
            Issue.record("original built without originalsecret")
        } catch {
            #expect(error.message.contains("original_format"))
        }
        var m = photo.map!
        m["originalsecret"] = "41cc4e453a"
        m["originalformat"] = "png"
        #expect(try PhotoURL.source(.map(m), size: .original) == "https://live.staticflickr.com/7372/12502775644_41cc4e453a_o.png")
        #expect(try PhotoURL.source(.map(m), size: .thumbnail, images: "http://127.0.0.1:9/static/") == "http://127.0.0.1:9/static/7372/12502775644_acfd415fa7_t.jpg")
    }

    @Test func pages() throws {
        #expect(try PhotoURL.page(photo) == "https://www.flickr.com/photos/12037949754@N01/12502775644/")
        let info: FlickrNode = ["id": "2733", "owner": ["nsid": "12037949754@N01", "path_alias": "bees"]]
        #expect(try PhotoURL.page(info) == "https://www.flickr.com/photos/bees/2733/")
        let search: FlickrNode = ["id": "1", "owner": "x@N01", "pathalias": "alias"]
        #expect(try PhotoURL.page(search) == "https://www.flickr.com/photos/alias/1/")
        #expect(throws: FlickrError.self) { try PhotoURL.page(["id": "1"]) }
    }

    @Test func shortURLs() throws {
        #expect(try PhotoURL.short(photoID: "5169665786") == "https://flic.kr/p/8SPTwJ")
        #expect(try PhotoURL.photoID(fromShortURL: "https://flic.kr/p/7Afjsu") == "4325695128")
        #expect(try PhotoURL.photoID(fromShortURL: "5hruZg") == "2811466321")
        #expect(throws: FlickrError.self) { try PhotoURL.photoID(fromShortURL: "https://flic.kr/p/0OIl") }
        #expect(throws: FlickrError.self) { try PhotoURL.short(photoID: "abc") }
    }

    @Test func recordedSearchURLsMatchBuiltOnes() throws {
        // url_q in a real response equals the URL built from server/id/secret with suffix q.
        let tree = try FlickrJSON.parse(Fixtures.data("real/flickr.photos.search.url_m.2019.json"))
        for p in tree["photos.photo"]?.array ?? [] {
            guard let urlM = p["url_m"]?.string, var m = p.map else { continue }
            m["url_m"] = nil
            let built = try PhotoURL.source(.map(m), size: .medium500)
            #expect(urlM.hasSuffix(built.split(separator: "/").suffix(2).joined(separator: "/")))
        }
    }
}

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct ContextAndRedactionTests {
    @Test func descriptionNeverShowsSecrets() {
        let ctx = FlickrContext(apiKey: "key123", sharedSecret: "supersecret-shared", oauthToken: "72157626318069415-087bfc7b5816092c",
                                oauthTokenSecret: "a202d1f853ec69de", authToken: "976598454353455")
        let d = ctx.description
        for secret in ["supersecret-shared", "a202d1f853ec69de", "72157626318069415-087bfc7b5816092c", "976598454353455"] {
            #expect(!d.contains(secret))
        }
        #expect(d.contains("key123"))
    }

    @Test func rateLimitDefaultsOffOnlyForLoopback() {
        #expect(FlickrContext(apiKey: "k", sharedSecret: "s").ratePolicy == .default)
        #expect(FlickrContext(apiKey: "k", sharedSecret: "s", endpoints: Endpoints(baseURL: "http://127.0.0.1:8080")).ratePolicy == .unlimited)
        #expect(FlickrContext(apiKey: "k", sharedSecret: "s", endpoints: Endpoints(baseURL: "http://localhost")).ratePolicy == .unlimited)
        #expect(FlickrContext(apiKey: "k", sharedSecret: "s", endpoints: Endpoints(baseURL: "http://[::1]:9")).ratePolicy == .unlimited)
        #expect(FlickrContext(apiKey: "k", sharedSecret: "s", endpoints: Endpoints(baseURL: "http://127.example.com")).ratePolicy == .default)
        #expect(MethodCatalog.shared.example(for: "photos.getInfo")?.contains("<photo") == true)
    }

    @Test func endpointsFromOneBase() {
        let e = Endpoints(baseURL: "http://127.0.0.1:8080/")
        #expect(e.rest == "http://127.0.0.1:8080/services/rest/")
        #expect(e.upload == "http://127.0.0.1:8080/services/upload/")
        #expect(e.replace == "http://127.0.0.1:8080/services/replace/")
        #expect(e.oauthAuthorize == "http://127.0.0.1:8080/services/oauth/authorize")
        #expect(e.images == "http://127.0.0.1:8080/static/")
        #expect(Endpoints.flickr.upload == "https://up.flickr.com/services/upload/")
    }

    @Test func endpointsOfFlickr() {
        let e = Endpoints.flickr
        #expect([e.rest, e.upload, e.replace, e.oauthRequestToken, e.oauthAuthorize, e.oauthAccessToken, e.legacyAuth, e.images, e.web] == [
            "https://api.flickr.com/services/rest/", "https://up.flickr.com/services/upload/",
            "https://up.flickr.com/services/replace/", "https://www.flickr.com/services/oauth/request_token",
            "https://www.flickr.com/services/oauth/authorize", "https://www.flickr.com/services/oauth/access_token",
            "https://www.flickr.com/services/auth/", "https://live.staticflickr.com/", "https://www.flickr.com/",
        ])
        let b = Endpoints(baseURL: "http://h:1")
        #expect([b.oauthRequestToken, b.oauthAccessToken, b.legacyAuth, b.web] == [
            "http://h:1/services/oauth/request_token", "http://h:1/services/oauth/access_token", "http://h:1/services/auth/", "http://h:1/",
        ])
    }

    @Test func redactForms() {
        let s = Redaction.redactForm([("oauth_token", "72157626318069415-087bfc7b5816092c"), ("api_key", "k"), ("api_sig", "0123456789abcdef")])
        #expect(!s.contains("087bfc7b5816092c") && !s.contains("0123456789abcdef") && s.contains("api_key=k"))
        let h = OAuthParameters(consumerKey: "ck", token: "tok-secretish-123", nonce: "n", timestamp: "1").authorizationHeader(signature: "SIGNATURE+/=")
        let r = Redaction.redactAuthorization(h)
        #expect(!r.contains("SIGNATURE") && !r.contains("tok-secretish-123") && r.contains("ck"))
    }

    @Test func signedRequestsVerify() throws {
        let client = FlickrClient(context: FlickrContext(apiKey: "ck", sharedSecret: "cs", oauthToken: "t", oauthTokenSecret: "ts"))
        for placement in [SignaturePlacement.parameters, .header] {
            let signed = try client.sign(url: "https://api.flickr.com/services/rest/", verb: .post,
                                         parameters: [("method", "flickr.test.echo"), ("name", "a b&c")],
                                         context: client.context, method: "flickr.test.echo", placement: placement)
            var pairs = signed.parameters
            if placement == .header {
                let header = try #require(signed.headers.first { $0.0 == "Authorization" }?.1)
                pairs += try #require(OAuthParameters.parseAuthorizationHeader(header))
            }
            let signature = try #require(pairs.first { $0.0 == "oauth_signature" }?.1)
            let expected = OAuthSignature.sign(method: "POST", url: "https://api.flickr.com/services/rest/", parameters: pairs,
                                               consumerSecret: "cs", tokenSecret: "ts").signature
            #expect(signature == expected)
            #expect(signed.baseString == OAuthSignature.baseString(method: "POST", url: "https://api.flickr.com/services/rest/", parameters: pairs))
        }
    }

    @Test func legacySigningAddsApiSig() throws {
        let client = FlickrClient(context: FlickrContext(apiKey: "9a0554259914a86fb9e7eb014e4e5d52", sharedSecret: "000005fab4534d05"))
        let signed = try client.sign(url: "https://api.flickr.com/services/rest/", verb: .get,
                                     parameters: [("method", "flickr.auth.getFrob")], context: client.context, method: "m")
        #expect(signed.parameters.first { $0.0 == "api_sig" }?.1 == "8ad70cd3888ce493c8dde4931f7d6bd0")
    }

    @Test func missingKeyIsAUsageErrorNamingTheWays() {
        let client = FlickrClient(context: FlickrContext(apiKey: "", sharedSecret: ""))
        do throws(FlickrError) {
            _ = try client.sign(url: "u", verb: .get, parameters: [], context: client.context, method: "m")
            Issue.record("signed without a key")
        } catch {
            #expect(error.kind == .usage)
            // The command line's advice in `description` (what flickr and Lua print) …
            for word in ["FLICKR_API_KEY", "flickr login", "--sandbox"] { #expect(error.description.contains(word), "\(error)") }
            // … and a Swift program's in `localizedDescription`, with no command-line advice.
            let swift = error.localizedDescription
            for word in ["FLICKR_API_KEY", "FlickrContext(apiKey:", "FlickrContext(sandbox:)"] { #expect(swift.contains(word), "\(swift)") }
            #expect(!swift.contains("flickr login") && !swift.contains("--sandbox"), "\(swift)")
        }
    }

    @Test func refusedCallsAdviseInSwiftTerms() async {
        // Port 9 (discard) on loopback: the call is refused before any request is made.
        let client = FlickrClient(context: FlickrContext(apiKey: "k", sharedSecret: "s", endpoints: Endpoints(baseURL: "http://127.0.0.1:9")))
        do throws(FlickrError) {
            _ = try await client.call("flickr.photos.getInfo", ["photoid": "1"])
            Issue.record("a misspelt argument was sent")
        } catch {
            let swift = error.localizedDescription
            #expect(swift.hasPrefix("flickr.photos.getInfo: unknown argument photoid") && swift.contains("photo_id"), "\(swift)")
            #expect(swift.contains("`strict: false` sends it anyway") && !swift.contains("--no-strict") && !swift.contains("Lua"), "\(swift)")
            #expect(error.description.contains("--no-strict (flickr call)"), "\(error)")
        }
    }
}
