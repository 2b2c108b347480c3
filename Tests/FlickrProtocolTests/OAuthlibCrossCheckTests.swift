import Foundation
import Testing
import FlickrTestSupport
@testable import FlickrProtocol

/// 1,000 random parameter sets signed by this package and by Python's oauthlib must agree.
@Suite(.timeLimit(.minutes(5)), .tags(.crossCheck)) struct OAuthlibCrossCheckTests {
    static let alphabet: [String] = ["a", "Z", "0", " ", "+", "&", "=", "%", "/", "?", "#", "~", "-", ".", "_",
                                     "!", "'", "(", ")", "*", "é", "日本", "☺", "😀", ",", ";", ":", "@", "\"", "\\"]

    static func randomString(_ rng: inout some RandomNumberGenerator, maxLength: Int) -> String {
        let n = Int.random(in: 0...maxLength, using: &rng)
        return (0..<n).map { _ in alphabet.randomElement(using: &rng)! }.joined()
    }

    @Test func thousandRandomSetsMatchOAuthlib() async throws {
        var rng = TestRandom("oauthlib cross-check")
        var cases: [[String: Any]] = []
        for i in 0..<1000 {
            var params: [[String]] = []
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                var name = Self.randomString(&rng, maxLength: 6)
                if name.isEmpty { name = "k" }
                params.append([name, Self.randomString(&rng, maxLength: 10)])
            }
            if let first = params.first, Bool.random(using: &rng) { params.append([first[0], Self.randomString(&rng, maxLength: 4)]) }
            params.append(["oauth_consumer_key", "key\(i)"])
            params.append(["oauth_nonce", "nonce\(i)"])
            params.append(["oauth_timestamp", "\(1_300_000_000 + i)"])
            params.append(["oauth_signature_method", "HMAC-SHA1"])
            params.append(["oauth_version", "1.0"])
            if Bool.random(using: &rng) { params.append(["oauth_token", "72157-" + Self.randomString(&rng, maxLength: 5)]) }
            let url = ["https://api.flickr.com/services/rest/", "http://127.0.0.1:8080/services/rest",
                       "https://up.flickr.com/services/upload/", "HTTPS://WWW.Flickr.com:443/services/oauth/request_token"][i % 4]
            cases.append(["method": i % 2 == 0 ? "GET" : "POST", "url": url, "params": params,
                          "consumer_secret": Self.randomString(&rng, maxLength: 8),
                          "token_secret": Self.randomString(&rng, maxLength: 8)])
        }
        let input = try JSONSerialization.data(withJSONObject: cases)
        let run = try await Products.python("oauthlib_sign.py", stdin: String(decoding: input, as: UTF8.self), timeout: 120)
        try #require(run.status == 0 && !run.timedOut, "oauthlib_sign.py failed: \(run.stderr)")
        let theirs = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: String]])
        #expect(theirs.count == 1000)
        var mismatches = 0
        for (c, t) in zip(cases, theirs) {
            let params = (c["params"] as! [[String]]).map { ($0[0], $0[1]) }
            let ours = OAuthSignature.sign(method: c["method"] as! String, url: c["url"] as! String, parameters: params,
                                           consumerSecret: c["consumer_secret"] as! String,
                                           tokenSecret: c["token_secret"] as? String)
            if ours.baseString != t["base_string"] || ours.signature != t["signature"] {
                mismatches += 1
                if mismatches < 4 {
                    Issue.record("mismatch for \(c): ours \(ours.baseString) theirs \(t["base_string"] ?? "")")
                }
            }
        }
        #expect(mismatches == 0)
    }
}
