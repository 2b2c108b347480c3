import Crypto
import Foundation

/// The legacy (pre-OAuth) `api_sig`: lower-case hex MD5 of the shared secret followed by every
/// argument as `name` + `value`, sorted by name, values *not* URL-encoded
/// (https://www.flickr.com/services/api/auth.spec.html).
public enum LegacySignature {
    /// The string that is hashed; exposed for tests and for the sandbox's error messages.
    public static func stringToSign(secret: String, parameters: [(String, String)]) -> String {
        let sorted = parameters.filter { $0.0 != "api_sig" }.sorted { a, b in
            a.0 == b.0 ? a.1.utf8.lexicographicallyPrecedes(b.1.utf8) : a.0.utf8.lexicographicallyPrecedes(b.0.utf8)
        }
        var s = secret
        for (k, v) in sorted {
            s += k
            s += v
        }
        return s
    }

    /// `api_sig` for `parameters` (any `api_sig` among them is ignored).
    public static func apiSig(secret: String, parameters: [(String, String)]) -> String {
        let digest = Insecure.MD5.hash(data: Data(stringToSign(secret: secret, parameters: parameters).utf8))
        return digest.map { byte in
            let h = String(byte, radix: 16)
            return byte < 16 ? "0" + h : h
        }.joined()
    }
}
