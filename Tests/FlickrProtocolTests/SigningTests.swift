import Foundation
import Testing
import FlickrTestSupport
@testable import FlickrProtocol

/// Every vector of Tests/Fixtures/signing_vectors.json.
@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct SigningVectorTests {
    struct Vector {
        var name: String
        var method: String
        var url: String
        var params: [(String, String)]
        var consumerSecret: String?
        var tokenSecret: String?
        var baseString: String?
        var signingKey: String?
        var signature: String?
    }

    static func load(_ section: String) throws -> [Vector] {
        let root = try #require(try Fixtures.json("signing_vectors.json") as? [String: Any])
        let list = try #require(root[section] as? [[String: Any]])
        return list.map { v in
            var params: [(String, String)] = []
            if let dict = v["params"] as? [String: String] { params = dict.map { ($0.key, $0.value) } }
            if let pairs = v["params_list"] as? [[String]] { params = pairs.map { ($0[0], $0[1]) } }
            return Vector(name: v["name"] as? String ?? "?", method: v["method"] as? String ?? "GET",
                          url: v["url"] as? String ?? "", params: params,
                          consumerSecret: v["consumer_secret"] as? String, tokenSecret: v["token_secret"] as? String,
                          baseString: v["base_string"] as? String, signingKey: v["signing_key"] as? String,
                          signature: v["signature"] as? String)
        }
    }

    @Test func hmacSHA1Vectors() throws {
        let vectors = try Self.load("oauth_hmac_sha1")
        #expect(vectors.count == 9)
        for v in vectors {
            let signed = OAuthSignature.sign(method: v.method, url: v.url, parameters: v.params,
                                             consumerSecret: v.consumerSecret ?? "", tokenSecret: v.tokenSecret)
            if let base = v.baseString { #expect(signed.baseString == base, "\(v.name)") }
            if let key = v.signingKey {
                #expect(OAuthSignature.signingKey(consumerSecret: v.consumerSecret ?? "", tokenSecret: v.tokenSecret) == key, "\(v.name)")
            }
            #expect(signed.signature == v.signature, "\(v.name)")
        }
    }

    @Test func baseStringOnlyVectors() throws {
        let vectors = try Self.load("oauth_base_string_only")
        #expect(vectors.count == 2)
        for v in vectors {
            #expect(OAuthSignature.baseString(method: v.method, url: v.url, parameters: v.params) == v.baseString, "\(v.name)")
        }
    }

    @Test func legacyMD5Vectors() throws {
        let root = try #require(try Fixtures.json("signing_vectors.json") as? [String: Any])
        let list = try #require(root["legacy_md5_api_sig"] as? [[String: Any]])
        #expect(list.count == 3)
        for v in list {
            let params = (v["params"] as! [String: String]).map { ($0.key, $0.value) }
            let secret = v["secret"] as! String
            if let s = v["string_to_sign"] as? String {
                #expect(LegacySignature.stringToSign(secret: secret, parameters: params) == s)
            }
            #expect(LegacySignature.apiSig(secret: secret, parameters: params) == v["api_sig"] as? String)
        }
    }

    @Test func base58Vectors() throws {
        let root = try #require(try Fixtures.json("signing_vectors.json") as? [String: Any])
        let list = try #require(root["base58_short_urls"] as? [[String: String]])
        #expect(list.count == 4)
        for v in list {
            #expect(Base58.encode(UInt64(v["photo_id"]!)!) == v["short"])
            #expect(Base58.decode(v["short"]!) == UInt64(v["photo_id"]!))
        }
        #expect(Base58.decode("0OIl") == nil)
        #expect(Base58.decode("") == nil)
    }

    @Test func percentEncodingIsUnreservedOnly() {
        #expect(PercentEncoding.encode("AZaz09-._~") == "AZaz09-._~")
        #expect(PercentEncoding.encode("a b+c&d=e/f?g") == "a%20b%2Bc%26d%3De%2Ff%3Fg")
        #expect(PercentEncoding.encode("!'()*") == "%21%27%28%29%2A")
        #expect(PercentEncoding.encode("é☺") == "%C3%A9%E2%98%BA")
        #expect(PercentEncoding.decode("a%20b+c", plusAsSpace: true) == "a b c")
        #expect(PercentEncoding.decode("100%") == "100%")
        #expect(PercentEncoding.decode("%zz%4") == "%zz%4")
    }

    @Test func baseURINormalisation() {
        #expect(OAuthSignature.baseURI("HTTP://Example.COM:80/r/v?x=1#f") == "http://example.com/r/v")
        #expect(OAuthSignature.baseURI("https://example.com:443/services/rest/") == "https://example.com/services/rest/")
        #expect(OAuthSignature.baseURI("http://127.0.0.1:8080/services/rest") == "http://127.0.0.1:8080/services/rest")
        #expect(OAuthSignature.baseURI("http://example.com") == "http://example.com")
        // Worked out on the bytes: userinfo dropped, the path's case kept, a fragment before a
        // query, non-ASCII scheme and authority lower-cased by Unicode's rules, no scheme at all.
        #expect(OAuthSignature.baseURI("HTTPS://User:Pw@API.Flickr.COM:443/Services/REST/#x?y") == "https://api.flickr.com/Services/REST/")
        #expect(OAuthSignature.baseURI("http://BÜCHER.example:8080/Äpfel?q") == "http://bücher.example:8080/Äpfel")
        #expect(OAuthSignature.baseURI("/services/rest?x=1") == "/services/rest")
        #expect(OAuthSignature.baseURI("http://example.com:80") == "http://example.com")
    }

    @Test func signaturesAlternatingKeysMatchFreshOnes() {
        // One keyed HMAC is kept between calls: a change of key must never sign with the old one.
        let base = OAuthSignature.baseString(method: "GET", url: "http://x/r", parameters: [("a", "1")])
        let keys = ["k1&t1", "k2&t2", "k1&t1", "", "k2&t2"]
        let signatures = keys.map { OAuthSignature.hmacSHA1(baseString: base, key: $0) }
        #expect(signatures[0] == signatures[2])
        #expect(signatures[1] == signatures[4])
        #expect(Set(signatures).count == 3)
        // RFC 2202's HMAC-SHA1 test case 2 (key "Jefe"), base64 of effcdf6ae5eb2fa2d27416d5f184df9c259a7c79.
        #expect(OAuthSignature.hmacSHA1(baseString: "what do ya want for nothing?", key: "Jefe") == "7/zfauXrL6LSdBbV8YTfnCWafHk=")
    }

    @Test func authorizationHeaderRoundTrips() throws {
        let p = OAuthParameters(consumerKey: "key", token: "tok en", nonce: "n", timestamp: "1", callback: "http://x/?a=b")
        let header = p.authorizationHeader(signature: "ab+/=")
        let parsed = try #require(OAuthParameters.parseAuthorizationHeader(header))
        let dict = Dictionary(parsed, uniquingKeysWith: { a, _ in a })
        #expect(dict["oauth_token"] == "tok en")
        #expect(dict["oauth_callback"] == "http://x/?a=b")
        #expect(dict["oauth_signature"] == "ab+/=")
        #expect(OAuthParameters.parseAuthorizationHeader("Basic abc") == nil)
    }

    @Test func freshParametersDiffer() {
        let a = OAuthParameters.fresh(consumerKey: "k", token: nil)
        let b = OAuthParameters.fresh(consumerKey: "k", token: nil)
        #expect(a.nonce != b.nonce)
        #expect(Int(a.timestamp)! > 1_700_000_000)
    }
}
