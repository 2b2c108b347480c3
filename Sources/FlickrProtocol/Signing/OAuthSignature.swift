import Crypto
import Foundation
import Synchronization

/// OAuth 1.0a HMAC-SHA1 signing (RFC 5849 §3.4), as pure functions.
///
/// Both the client (to sign) and the sandbox (to verify and to build `debug_sbs`) use these, so
/// the two sides cannot drift apart. Nothing here reads a clock or a random source: nonce and
/// timestamp come in as parameters (see ``OAuthParameters``).
public enum OAuthSignature {
    /// The base string URI of RFC 5849 §3.4.1.2: scheme and host lower-cased, default port
    /// dropped, path kept exactly as addressed (trailing slash matters), query and fragment removed.
    public static func baseURI(_ url: String) -> String {
        String(decoding: baseURIBytes(url), as: UTF8.self)
    }

    /// ``baseURI(_:)`` as UTF-8, worked out on the bytes (every call signs one): the delimiters
    /// are ASCII, so cutting at them keeps the UTF-8 valid; a scheme or authority that is not
    /// all ASCII is lower-cased as a String, as before.
    static func baseURIBytes(_ url: String) -> [UInt8] {
        var bytes = Array(url.utf8)
        if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) { bytes.removeSubrange(hash...) }
        if let q = bytes.firstIndex(of: UInt8(ascii: "?")) { bytes.removeSubrange(q...) }
        let separator: [UInt8] = Array("://".utf8)
        guard let schemeEnd = bytes.indices.dropLast(2).first(where: { bytes[$0..<($0 + 3)].elementsEqual(separator) }) else {
            return bytes
        }
        let afterScheme = schemeEnd + 3
        let pathStart = bytes[afterScheme...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
        let scheme = lowercased(bytes[..<schemeEnd])
        var authority = lowercased(bytes[afterScheme..<pathStart])
        // Userinfo is not part of the base string URI.
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority.removeSubrange(...at) }
        if scheme.elementsEqual("http".utf8), authority.suffix(3).elementsEqual(":80".utf8) { authority.removeLast(3) }
        if scheme.elementsEqual("https".utf8), authority.suffix(4).elementsEqual(":443".utf8) { authority.removeLast(4) }
        // An empty path stays empty: flickr-sdk's vectors sign "http://www.example.com" as is.
        return scheme + separator + authority + bytes[pathStart...]
    }

    /// Lower-cased UTF-8: ASCII on the bytes, anything else through String's Unicode rules.
    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            return bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
        }
        return Array(String(decoding: bytes, as: UTF8.self).lowercased().utf8)
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
        String(decoding: normalizedParameterBytes(parameters), as: UTF8.self)
    }

    /// ``normalizedParameters(_:)`` as UTF-8, built without a string per piece.
    static func normalizedParameterBytes(_ parameters: [(String, String)]) -> [UInt8] {
        var encoded: [(name: [UInt8], value: [UInt8])] = []
        encoded.reserveCapacity(parameters.count)
        var length = 0
        for (name, value) in parameters where name != "oauth_signature" && name != "realm" {
            var n: [UInt8] = [], v: [UInt8] = []
            n.reserveCapacity(name.utf8.count)
            v.reserveCapacity(value.utf8.count)
            PercentEncoding.append(name.utf8, to: &n)
            PercentEncoding.append(value.utf8, to: &v)
            length += n.count + v.count + 2
            encoded.append((n, v))
        }
        encoded.sort { a, b in
            a.name == b.name ? a.value.lexicographicallyPrecedes(b.value) : a.name.lexicographicallyPrecedes(b.name)
        }
        var out: [UInt8] = []
        out.reserveCapacity(length)
        for (i, pair) in encoded.enumerated() {
            if i > 0 { out.append(UInt8(ascii: "&")) }
            out += pair.name
            out.append(UInt8(ascii: "="))
            out += pair.value
        }
        return out
    }

    /// The signature base string: `METHOD&enc(base URI)&enc(normalized parameters)`.
    ///
    /// `parameters` must hold every parameter that is signed: query, `oauth_*` and form-body
    /// pairs. Query parameters still present in `url` are *not* added again; pass them in
    /// `parameters` (``queryParameters(of:)`` extracts them).
    public static func baseString(method: String, url: String, parameters: [(String, String)]) -> String {
        String(decoding: baseStringBytes(method: method, url: url, parameters: parameters), as: UTF8.self)
    }

    /// ``baseString(method:url:parameters:)`` as UTF-8: one buffer for the whole, which is what
    /// the signature hashes (a call's signing was an eighth of its CPU time when each piece was
    /// a string of its own).
    static func baseStringBytes(method: String, url: String, parameters: [(String, String)]) -> [UInt8] {
        let normalized = normalizedParameterBytes(parameters)
        let uri = baseURIBytes(url)
        var out: [UInt8] = []
        out.reserveCapacity(method.utf8.count + 2 + uri.count * 3 + normalized.count * 3)
        out += method.uppercased().utf8
        out.append(UInt8(ascii: "&"))
        PercentEncoding.append(uri, to: &out)
        out.append(UInt8(ascii: "&"))
        PercentEncoding.append(normalized, to: &out)
        return out
    }

    /// `enc(consumer secret) & enc(token secret)`; the `&` is always there.
    public static func signingKey(consumerSecret: String, tokenSecret: String?) -> String {
        PercentEncoding.encode(consumerSecret) + "&" + PercentEncoding.encode(tokenSecret ?? "")
    }

    /// Base64 of HMAC-SHA1(key, base string).
    public static func hmacSHA1(baseString: String, key: String) -> String {
        hmacSHA1(Array(baseString.utf8), key: key)
    }

    /// Base64 of HMAC-SHA1(key, bytes). The HMAC keyed with the last key used is kept: a
    /// client signs every call with the same key, and keying (the key's two padded blocks
    /// hashed) cost as much as hashing a call's base string. Only the keyed state is taken under
    /// the lock; calls signing at once hash apart.
    static func hmacSHA1(_ bytes: [UInt8], key: String) -> String {
        var hmac = keyedHMAC.withLock { last -> HMAC<Insecure.SHA1> in
            if let last, last.key == key { return last.hmac }
            let keyed = HMAC<Insecure.SHA1>(key: SymmetricKey(data: Array(key.utf8)))
            last = (key, keyed)
            return keyed
        }
        hmac.update(data: bytes)
        return Data(hmac.finalize()).base64EncodedString()
    }

    /// The last signing key and its keyed HMAC (``hmacSHA1(_:key:)``).
    private static let keyedHMAC = Mutex<(key: String, hmac: HMAC<Insecure.SHA1>)?>(nil)

    /// Signs a request: returns the base string and the (un-encoded, base64) signature.
    public static func sign(
        method: String, url: String, parameters: [(String, String)],
        consumerSecret: String, tokenSecret: String?
    ) -> (baseString: String, signature: String) {
        let base = baseStringBytes(method: method, url: url, parameters: parameters)
        let key = signingKey(consumerSecret: consumerSecret, tokenSecret: tokenSecret)
        return (String(decoding: base, as: UTF8.self), hmacSHA1(base, key: key))
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
        let nonce = String(rng.next() as UInt64, radix: 16) + String(rng.next() as UInt64, radix: 16)
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
