import Foundation
import FlickrProtocol

/// Everything a client needs to talk to Flickr: credentials, endpoints, format, timeouts and
/// policies — ObjectiveFlickr's `OFFlickrAPIContext` as a Sendable value.
///
/// Secrets never appear in `description` (it is what logs and REPLs print).
public struct FlickrContext: Sendable, Hashable, CustomStringConvertible {
    /// The answer format asked of Flickr.
    public enum Format: String, Sendable, Hashable {
        /// Flickr's default REST XML (`<rsp>`).
        case xml
        /// `format=json&nojsoncallback=1`.
        case json
    }

    /// The app's API key, sent as `api_key`.
    public var apiKey: String
    /// The app's shared secret; it signs requests and is never sent.
    public var sharedSecret: String
    /// OAuth access (or request) token and its secret.
    public var oauthToken: String?
    /// The secret of ``oauthToken``; nil when there is no token.
    public var oauthTokenSecret: String?
    /// Legacy auth token (frob flow); used, with an `api_sig`, when no OAuth token is set.
    public var authToken: String?
    /// Where the services live: Flickr's own by default, or one base URL such as a sandbox's.
    public var endpoints: Endpoints
    /// The answer format asked for: XML (the default) or JSON; either maps to the same `FlickrNode`.
    public var format: Format
    /// Seconds for an ordinary call.
    public var requestTimeout: Double
    /// Seconds for an upload or replace; Flickr may think for a long time after the last byte.
    public var uploadTimeout: Double
    /// When and how failed calls are retried.
    public var retryPolicy: RetryPolicy
    /// Client-side rate limit; by default 1 call/s with a burst, none for a loopback endpoint
    /// (the sandbox).
    public var ratePolicy: RatePolicy
    /// Where OAuth parameters go (query/body, or the Authorization header).
    public var signaturePlacement: SignaturePlacement
    /// The permission the token was granted, when known (a profile `flickr login` saved records
    /// it); nil when unknown. A call that needs more is refused before any request.
    public var tokenPermission: FlickrPermission?

    /// A context with these credentials and settings; timeouts are in seconds, and a nil
    /// `ratePolicy` takes ``RatePolicy/default(for:)`` of `endpoints`.
    public init(apiKey: String, sharedSecret: String, oauthToken: String? = nil,
                oauthTokenSecret: String? = nil, authToken: String? = nil,
                endpoints: Endpoints = .flickr, format: Format = .xml,
                requestTimeout: Double = 30, uploadTimeout: Double = 600,
                retryPolicy: RetryPolicy = .default, ratePolicy: RatePolicy? = nil,
                signaturePlacement: SignaturePlacement = .parameters) {
        self.signaturePlacement = signaturePlacement
        self.apiKey = apiKey
        self.sharedSecret = sharedSecret
        self.oauthToken = oauthToken
        self.oauthTokenSecret = oauthTokenSecret
        self.authToken = authToken
        self.endpoints = endpoints
        self.format = format
        self.requestTimeout = requestTimeout
        self.uploadTimeout = uploadTimeout
        self.retryPolicy = retryPolicy
        self.ratePolicy = ratePolicy ?? RatePolicy.default(for: endpoints)
    }

    /// True when calls are signed with an OAuth access token.
    public var hasOAuthToken: Bool { oauthToken != nil && oauthTokenSecret != nil }

    /// The form `description` shows: key, endpoint, format and timeouts, every secret masked.
    public var description: String {
        "FlickrContext(apiKey: \(apiKey), sharedSecret: \(Redaction.mask(sharedSecret)), "
            + "oauthToken: \(oauthToken.map(Redaction.mask) ?? "nil"), "
            + "oauthTokenSecret: \(oauthTokenSecret.map(Redaction.mask) ?? "nil"), "
            + "authToken: \(authToken.map(Redaction.mask) ?? "nil"), rest: \(endpoints.rest), "
            + "format: \(format.rawValue), timeout: \(requestTimeout)s, upload timeout: \(uploadTimeout)s)"
    }
}

/// Masks secrets for logs, traces and messages.
package enum Redaction {
    /// Parameter names whose values are never shown.
    package static let secretNames: Set<String> = [
        "oauth_token", "oauth_token_secret", "oauth_signature", "oauth_verifier", "auth_token",
        "api_sig", "frob", "secret", "shared_secret", "token_secret", "mini_token",
    ]

    /// `•••` plus nothing of the secret when short, else its last 3 characters for recognition.
    package static func mask(_ secret: String) -> String {
        secret.isEmpty ? "" : (secret.count < 12 ? "•••" : "•••" + secret.suffix(3))
    }

    /// A query string or form body with secret values masked.
    package static func redactForm(_ pairs: [(String, String)]) -> String {
        pairs.map { k, v in k + "=" + (secretNames.contains(k) ? mask(v) : v) }.joined(separator: "&")
    }

    /// A header value with OAuth secrets masked.
    package static func redactAuthorization(_ header: String) -> String {
        guard let pairs = OAuthParameters.parseAuthorizationHeader(header) else { return "•••" }
        return "OAuth " + pairs.map { k, v in k + "=\"" + (secretNames.contains(k) ? mask(v) : v) + "\"" }
            .joined(separator: ", ")
    }

    /// Removes secrets that may occur verbatim in free text (error bodies, `debug_sbs`).
    package static func scrub(_ text: String, secrets: [String?]) -> String {
        var out = text
        for case let s? in secrets where s.count >= 4 {
            out = out.replacingOccurrences(of: s, with: mask(s))
        }
        return out
    }
}
