import FlickrProtocol

/// Which of Flickr's paths a request addressed (FlickrProtocol's `FlickrService`, with or without
/// the trailing slash), the images under `/static/`, or the index page.
enum SandboxRoute: Sendable, Equatable {
    case rest, upload, replace, requestToken, authorize, accessToken, legacyLogin, image, index, unknown

    init(path: String) {
        switch FlickrService(path: path) {
        case .rest?: self = .rest
        case .upload?: self = .upload
        case .replace?: self = .replace
        case .oauthRequestToken?: self = .requestToken
        case .oauthAuthorize?: self = .authorize
        case .oauthAccessToken?: self = .accessToken
        case .legacyAuth?: self = .legacyLogin
        case nil:
            var p = path
            if p.count > 1, p.hasSuffix("/") { p.removeLast() }
            if p == "/" {
                self = .index
            } else {
                self = p.hasPrefix(FlickrService.imagesPath) ? .image : .unknown
            }
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
