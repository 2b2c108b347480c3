import FlickrProtocol

/// One request as the sandbox sees it: where it was sent and every parameter, from the query,
/// the `Authorization: OAuth` header and the form body.
struct SandboxRequest: Sendable {
    /// `GET`, `POST`, …
    var verb: String
    /// The path exactly as requested, without the query.
    var path: String
    /// The `Host` header as sent (`127.0.0.1:8080`).
    var host: String
    var query: [(String, String)]
    /// Pairs of an `Authorization: OAuth …` header, nil without one.
    var authorization: [(String, String)]?
    /// Urlencoded body fields, or the multipart fields other than `photo`.
    var body: [(String, String)]

    /// Every signed pair: query + header + body (RFC 5849 §3.4.1.3.1).
    var signedPairs: [(String, String)] { query + (authorization ?? []) + body }

    /// `http://HOST` as the client addressed the server.
    var baseURL: String { "http://" + host }

    /// The URL the client addressed (without query), for the signature base string.
    var addressedURL: String { baseURL + path }

    /// Parameters by name (the last occurrence wins, body over query, header over both).
    var parameters: [String: String] {
        var p: [String: String] = [:]
        for (k, v) in signedPairs { p[k] = v }
        return p
    }

    /// All non-OAuth parameters in order (for `flickr.test.echo`).
    var plainPairs: [(String, String)] {
        (query + body).filter { !$0.0.hasPrefix("oauth_") }
    }
}

/// Who is calling, after authentication.
struct SandboxCaller: Sendable {
    enum Scheme: Sendable { case none, oauth, legacy }
    var scheme: Scheme
    /// NSID of the user the token belongs to; nil when not logged in.
    var user: String?
    var perms: FlickrPermission
    var token: String?

    static let anonymous = SandboxCaller(scheme: .none, user: nil, perms: .none, token: nil)
}

/// A Flickr API failure: `<err code msg>` (HTTP 200).
struct APIFailure: Error, Sendable {
    var code: Int
    var message: String
    /// Extra payload elements next to `<err>` (e.g. `duplicate_photo_id`).
    var extra: [XMLNode] = []

    /// A failure with Flickr's named code.
    init(_ code: FlickrErrorCode, _ message: String, extra: [XMLNode] = []) {
        self.init(code: code.rawValue, message: message, extra: extra)
    }

    /// A failure with a code read from the catalog.
    init(code: Int, message: String, extra: [XMLNode] = []) {
        self.code = code
        self.message = message
        self.extra = extra
    }
}

/// An OAuth-level failure: HTTP 401 `oauth_problem=…[&debug_sbs=…]`.
struct OAuthProblem: Error, Sendable {
    var problem: String
    var debugSBS: String?

    init(_ problem: String, debugSBS: String? = nil) {
        self.problem = problem
        self.debugSBS = debugSBS
    }
}

/// Either failure of authentication.
enum AuthFailure: Error, Sendable {
    case api(APIFailure)
    case oauth(OAuthProblem)
}
