import Crypto
import Foundation

/// OAuth 1.0a HMAC-SHA1 signing (RFC 5849 §3.4), as pure functions.
///
/// Both the client (to sign) and the sandbox (to verify and to build `debug_sbs`) use these, so
/// the two sides cannot drift apart. Nothing here reads a clock or a random source: nonce and
/// timestamp come in as parameters (see ``OAuthParameters``).
public enum OAuthSignature {
    /// The base string URI of RFC 5849 §3.4.1.2: scheme and host lower-cased, default port
    /// dropped, path kept exactly as addressed (trailing slash matters), query and fragment removed.
    public static func baseURI(_ url: String) -> String {
        var rest = Substring(url)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        if let q = rest.firstIndex(of: "?") { rest = rest[..<q] }
        guard let schemeEnd = rest.firstRange(of: "://") else { return String(rest) }  // the standard library's, not NSString's
        let scheme = rest[..<schemeEnd.lowerBound].lowercased()
        let afterScheme = rest[schemeEnd.upperBound...]
        let pathStart = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        var authority = afterScheme[..<pathStart].lowercased()
        // Userinfo is not part of the base string URI.
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        if scheme == "http", authority.hasSuffix(":80") { authority.removeLast(3) }
        if scheme == "https", authority.hasSuffix(":443") { authority.removeLast(4) }
        // An empty path stays empty: flickr-sdk's vectors sign "http://www.example.com" as is.
        let path = String(afterScheme[pathStart...])
        return scheme + "://" + authority + path
    }

    /// The query parameters of `url`, decoded (a `+` means space, as RFC 5849 §3.4.1.3.1 says).
    public static func queryParameters(of url: String) -> [(String, String)] {
        var rest = Substring(url)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        guard let q = rest.firstIndex(of: "?") else { return [] }
        return FormEncoding.parse(String(rest[rest.index(after: q)...]))
    }

    /// RFC 5849 §3.4.1.3.2: encode names and values, sort by name then value (byte order),
    /// join as `name=value` with `&`. `oauth_signature` and `realm` are left out.
    public static func normalizedParameters(_ parameters: [(String, String)]) -> String {
        var encoded: [(String, String)] = []
        encoded.reserveCapacity(parameters.count)
        for (name, value) in parameters where name != "oauth_signature" && name != "realm" {
            encoded.append((PercentEncoding.encode(name), PercentEncoding.encode(value)))
        }
        encoded.sort { a, b in
            a.0 == b.0 ? a.1.utf8.lexicographicallyPrecedes(b.1.utf8) : a.0.utf8.lexicographicallyPrecedes(b.0.utf8)
        }
        var out = ""
        for (i, pair) in encoded.enumerated() {
            if i > 0 { out += "&" }
            out += pair.0
            out += "="
            out += pair.1
        }
        return out
    }

    /// The signature base string: `METHOD&enc(base URI)&enc(normalized parameters)`.
    ///
    /// `parameters` must hold every parameter that is signed: query, `oauth_*` and form-body
    /// pairs. Query parameters still present in `url` are *not* added again; pass them in
    /// `parameters` (``queryParameters(of:)`` extracts them).
    public static func baseString(method: String, url: String, parameters: [(String, String)]) -> String {
        method.uppercased() + "&" + PercentEncoding.encode(baseURI(url)) + "&"
            + PercentEncoding.encode(normalizedParameters(parameters))
    }

    /// `enc(consumer secret) & enc(token secret)`; the `&` is always there.
    public static func signingKey(consumerSecret: String, tokenSecret: String?) -> String {
        PercentEncoding.encode(consumerSecret) + "&" + PercentEncoding.encode(tokenSecret ?? "")
    }

    /// Base64 of HMAC-SHA1(key, base string).
    public static func hmacSHA1(baseString: String, key: String) -> String {
        let mac = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(baseString.utf8), using: SymmetricKey(data: Data(key.utf8)))
        return Data(mac).base64EncodedString()
    }

    /// Signs a request: returns the base string and the (un-encoded, base64) signature.
    public static func sign(
        method: String, url: String, parameters: [(String, String)],
        consumerSecret: String, tokenSecret: String?
    ) -> (baseString: String, signature: String) {
        let base = baseString(method: method, url: url, parameters: parameters)
        let key = signingKey(consumerSecret: consumerSecret, tokenSecret: tokenSecret)
        return (base, hmacSHA1(baseString: base, key: key))
    }

    /// Constant-time comparison for signatures (the sandbox verifies with it).
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}

/// The `oauth_*` protocol parameters of one request (RFC 5849 §3.1).
public struct OAuthParameters: Sendable, Equatable {
    /// `oauth_consumer_key`: the app's API key.
    public var consumerKey: String
    /// `oauth_token`: the request or access token; nil when there is none yet (step 1).
    public var token: String?
    /// `oauth_nonce`: a value never used before with this timestamp.
    public var nonce: String
    /// `oauth_timestamp`: Unix time in seconds, as a decimal string.
    public var timestamp: String
    /// `oauth_callback`: where Flickr sends the user after approval (step 1 only), or `oob`.
    public var callback: String?
    /// `oauth_verifier`: the code the user was shown or the callback got (step 3 only).
    public var verifier: String?

    /// Parameters with a given nonce and timestamp (tests, signature vectors); see
    /// ``fresh(consumerKey:token:callback:verifier:now:)`` for a request.
    public init(consumerKey: String, token: String? = nil, nonce: String, timestamp: String,
                callback: String? = nil, verifier: String? = nil) {
        self.consumerKey = consumerKey
        self.token = token
        self.nonce = nonce
        self.timestamp = timestamp
        self.callback = callback
        self.verifier = verifier
    }

    /// Fresh parameters: a random 32-hex-digit nonce and the current Unix time.
    public static func fresh(consumerKey: String, token: String?, callback: String? = nil,
                             verifier: String? = nil, now: Date = Date()) -> OAuthParameters {
        var rng = SystemRandomNumberGenerator()
        let nonce = (0..<2).map { _ in String(rng.next() as UInt64, radix: 16) }.joined()
        return OAuthParameters(consumerKey: consumerKey, token: token, nonce: nonce,
                               timestamp: String(Int(now.timeIntervalSince1970)),
                               callback: callback, verifier: verifier)
    }

    /// The pairs to sign and send (without `oauth_signature`).
    public var pairs: [(String, String)] {
        var p: [(String, String)] = [
            ("oauth_consumer_key", consumerKey),
            ("oauth_nonce", nonce),
            ("oauth_signature_method", "HMAC-SHA1"),
            ("oauth_timestamp", timestamp),
            ("oauth_version", "1.0"),
        ]
        if let token { p.append(("oauth_token", token)) }
        if let callback { p.append(("oauth_callback", callback)) }
        if let verifier { p.append(("oauth_verifier", verifier)) }
        return p
    }

    /// An `Authorization: OAuth …` header value carrying these parameters and the signature.
    public func authorizationHeader(signature: String, realm: String? = nil) -> String {
        var parts: [String] = []
        if let realm { parts.append("realm=\"\(realm)\"") }
        for (k, v) in pairs + [("oauth_signature", signature)] {
            parts.append("\(PercentEncoding.encode(k))=\"\(PercentEncoding.encode(v))\"")
        }
        return "OAuth " + parts.joined(separator: ", ")
    }

    /// Parses an `Authorization: OAuth k="v", …` header into pairs (`realm` dropped).
    public static func parseAuthorizationHeader(_ header: String) -> [(String, String)]? {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 5, trimmed.prefix(5).lowercased() == "oauth" else { return nil }
        var result: [(String, String)] = []
        for item in trimmed.dropFirst(5).split(separator: ",") {
            let piece = item.trimmingCharacters(in: .whitespaces)
            guard let eq = piece.firstIndex(of: "=") else { continue }
            let name = PercentEncoding.decode(piece[..<eq])
            var value = piece[piece.index(after: eq)...]
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = value.dropFirst().dropLast()
            }
            if name == "realm" { continue }
            result.append((name, PercentEncoding.decode(value)))
        }
        return result
    }
}
