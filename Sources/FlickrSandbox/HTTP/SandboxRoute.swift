import FlickrProtocol

/// Which of Flickr's paths a request addressed (FlickrProtocol's `FlickrService`, with or without
/// the trailing slash), the images under `/static/`, a video's play URL under a photo page, or
/// the index page.
enum SandboxRoute: Sendable, Equatable {
    case rest, upload, replace, requestToken, authorize, accessToken, legacyLogin, image, video, index, unknown

    /// Where Flickr's photo pages are (`/photos/{alias or NSID}/{id}/`, on www.flickr.com); a
    /// video plays from under its page: `…/{id}/play/{quality}/{secret}/`.
    static let photoPagesPath = "/photos/"

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
            } else if p.hasPrefix(FlickrService.imagesPath) {
                self = .image
            } else {
                self = Self.isVideoPlay(p) ? .video : .unknown
            }
        }
    }

    /// REST, upload and replace: the API calls (rate limit, budget, API errors apply).
    var isAPI: Bool { self == .rest || self == .upload || self == .replace }

    /// The OAuth token endpoints, which fail like the API (short of API errors), as Flickr's do.
    var isTokenEndpoint: Bool { self == .requestToken || self == .accessToken }

    /// Upload and replace, whose bodies stream to disk.
    var isUpload: Bool { self == .upload || self == .replace }

    /// The downloads: images under `/static/` and a video's play URL (`--image-faults` apply).
    var isDownload: Bool { self == .image || self == .video }

    /// A POST whose form body is read whole before anything else (every path but the uploads
    /// and the downloads).
    var readsFormBody: Bool { !isUpload && !isDownload }

    /// `/photos/{user}/{id}/play/…`: a video's play URL (the engine checks the rest).
    static func isVideoPlay(_ path: String) -> Bool {
        guard path.hasPrefix(photoPagesPath) else { return false }
        let parts = path.split(separator: "/")
        return parts.count >= 4 && parts[3] == "play"
    }
}
