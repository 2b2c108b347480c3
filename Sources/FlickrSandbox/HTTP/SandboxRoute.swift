/// Which of Flickr's paths a request addressed (with or without the trailing slash).
enum SandboxRoute: Sendable, Equatable {
    case rest, upload, replace, requestToken, authorize, accessToken, legacyLogin, image, index, unknown

    init(path: String) {
        var p = path
        if p.count > 1, p.hasSuffix("/") { p.removeLast() }
        switch p {
        case "/services/rest": self = .rest
        case "/services/upload": self = .upload
        case "/services/replace": self = .replace
        case "/services/oauth/request_token": self = .requestToken
        case "/services/oauth/authorize": self = .authorize
        case "/services/oauth/access_token": self = .accessToken
        case "/services/auth": self = .legacyLogin
        case "/": self = .index
        default: self = p.hasPrefix("/static/") ? .image : .unknown
        }
    }

    /// REST, upload and replace: the API calls (rate limit, budget, API errors apply).
    var isAPI: Bool { self == .rest || self == .upload || self == .replace }

    /// The OAuth token endpoints, which fail like the API (short of API errors), as Flickr's do.
    var isTokenEndpoint: Bool { self == .requestToken || self == .accessToken }

    /// Upload and replace, whose bodies stream to disk.
    var isUpload: Bool { self == .upload || self == .replace }

    /// A POST whose form body is read whole before anything else (every path but the uploads
    /// and images).
    var readsFormBody: Bool { !isUpload && self != .image }
}
