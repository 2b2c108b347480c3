import FlickrProtocol
import Foundation

/// Where Flickr's services live. One base URL (`--endpoint`, `FLICKR_ENDPOINT`, the sandbox)
/// maps all of them onto one host with Flickr's paths (`FlickrService`), images under `/static/`.
public struct Endpoints: Sendable, Hashable {
    /// The REST endpoint (`…/services/rest/`).
    public var rest: String
    /// The upload endpoint (`…/services/upload/`).
    public var upload: String
    /// The replace endpoint (`…/services/replace/`).
    public var replace: String
    /// OAuth's request-token endpoint (`…/services/oauth/request_token`).
    public var oauthRequestToken: String
    /// OAuth's authorization page (`…/services/oauth/authorize`), opened in a browser.
    public var oauthAuthorize: String
    /// OAuth's access-token endpoint (`…/services/oauth/access_token`).
    public var oauthAccessToken: String
    /// Legacy (frob) login page.
    public var legacyAuth: String
    /// Static images; photo source URLs start with this (ends with `/`).
    public var images: String
    /// Web pages (photo pages, profiles); ends with `/`.
    public var web: String

    /// Each service at a URL of its own.
    public init(rest: String, upload: String, replace: String, oauthRequestToken: String,
                oauthAuthorize: String, oauthAccessToken: String, legacyAuth: String,
                images: String, web: String) {
        self.rest = rest
        self.upload = upload
        self.replace = replace
        self.oauthRequestToken = oauthRequestToken
        self.oauthAuthorize = oauthAuthorize
        self.oauthAccessToken = oauthAccessToken
        self.legacyAuth = legacyAuth
        self.images = images
        self.web = web
    }

    /// Each service at `host(service) + service.path` (`FlickrService`, where the paths are written).
    private init(host: (FlickrService) -> String, images: String, web: String) {
        self.init(rest: host(.rest) + FlickrService.rest.path,
                  upload: host(.upload) + FlickrService.upload.path,
                  replace: host(.replace) + FlickrService.replace.path,
                  oauthRequestToken: host(.oauthRequestToken) + FlickrService.oauthRequestToken.path,
                  oauthAuthorize: host(.oauthAuthorize) + FlickrService.oauthAuthorize.path,
                  oauthAccessToken: host(.oauthAccessToken) + FlickrService.oauthAccessToken.path,
                  legacyAuth: host(.legacyAuth) + FlickrService.legacyAuth.path,
                  images: images, web: web)
    }

    /// The real Flickr: REST on api.flickr.com, uploads on up.flickr.com, OAuth and the legacy
    /// login on www.flickr.com.
    public static let flickr = Endpoints(host: { service in
        switch service {
        case .rest: "https://api.flickr.com"
        case .upload, .replace: "https://up.flickr.com"
        case .oauthRequestToken, .oauthAuthorize, .oauthAccessToken, .legacyAuth: "https://www.flickr.com"
        }
    }, images: "https://live.staticflickr.com/", web: "https://www.flickr.com/")

    /// The form of a base URL, for messages.
    public static let expectedForm = "give the base URL, such as http://127.0.0.1:8080 (a flickr-sandbox's url=) or https://api.example.org "
        + "— http or https, a host, and no /services/… path"

    /// Checks a base URL given for ``init(baseURL:)``: http or https, a host, and no path beyond
    /// `/` (the services' paths are added). A usage error showing the expected form otherwise.
    public static func check(baseURL: String) throws(FlickrError) {
        let problem: String?
        if let c = URLComponents(string: baseURL), let scheme = c.scheme?.lowercased() {
            if scheme != "http" && scheme != "https" {
                problem = "the scheme must be http or https, not \(scheme)"
            } else if (c.host ?? "").isEmpty {
                problem = "it has no host"
            } else if !c.path.isEmpty && c.path != "/" {
                problem = "it has a path (\(c.path)); the services' paths are added to the base"
            } else if c.query != nil || c.fragment != nil {
                problem = "it has a query or fragment"
            } else {
                problem = nil
            }
        } else {
            problem = "it is not a URL with a scheme"
        }
        if let problem {
            throw FlickrError.usage("bad endpoint \"\(baseURL)\": \(problem); " + expectedForm)
        }
    }

    /// Every service on one host: `http://127.0.0.1:8080` → `http://127.0.0.1:8080/services/rest/`, …
    public init(baseURL: String) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.init(host: { _ in base }, images: base + FlickrService.imagesPath, web: base + "/")
    }
}
