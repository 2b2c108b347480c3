/// Flickr's services by path — the one place they are written. The paths are the same on every
/// host: Flickr's own (REST on api.flickr.com, uploads on up.flickr.com, OAuth and the legacy
/// login on www.flickr.com), one base URL given as `--endpoint`, and the sandbox, which serves
/// them all on one host. The client builds its endpoints from them; the sandbox routes by them.
public enum FlickrService: String, Sendable, CaseIterable {
    /// The REST API.
    case rest = "/services/rest/"
    /// Photo and video uploads.
    case upload = "/services/upload/"
    /// Replacing a photo's file.
    case replace = "/services/replace/"
    /// OAuth 1.0a: the request token.
    case oauthRequestToken = "/services/oauth/request_token"
    /// OAuth 1.0a: the page where the user approves the app.
    case oauthAuthorize = "/services/oauth/authorize"
    /// OAuth 1.0a: the access token.
    case oauthAccessToken = "/services/oauth/access_token"
    /// The legacy (frob) login page.
    case legacyAuth = "/services/auth/"

    /// The path, as Flickr writes it (`/services/rest/`).
    public var path: String { rawValue }

    /// The service a request path names, with or without its trailing slash (`/services/rest`
    /// and `/services/rest/` alike); nil for any other path.
    public init?(path: String) {
        func trimmed<S: StringProtocol>(_ s: S) -> S.SubSequence { s.count > 1 && s.hasSuffix("/") ? s.dropLast() : s[...] }
        let asked = trimmed(path)
        guard let service = Self.allCases.first(where: { trimmed($0.rawValue) == asked }) else { return nil }
        self = service
    }

    /// Where static images are under one base URL (`BASE/static/SERVER/ID_SECRET_SIZE.jpg`); Flickr's
    /// own are at the root of live.staticflickr.com.
    public static let imagesPath = "/static/"
}
