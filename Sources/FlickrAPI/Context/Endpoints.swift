import Foundation

/// Where Flickr's services live. One base URL (`--endpoint`, `FLICKR_ENDPOINT`, the sandbox)
/// maps all of them onto one host with Flickr's paths, images under `/static/`.
public struct Endpoints: Sendable, Hashable {
    public var rest: String
    public var upload: String
    public var replace: String
    public var oauthRequestToken: String
    public var oauthAuthorize: String
    public var oauthAccessToken: String
    /// Legacy (frob) login page.
    public var legacyAuth: String
    /// Static images; photo source URLs start with this (ends with `/`).
    public var images: String
    /// Web pages (photo pages, profiles); ends with `/`.
    public var web: String

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

    /// The real Flickr.
    public static let flickr = Endpoints(
        rest: "https://api.flickr.com/services/rest/",
        upload: "https://up.flickr.com/services/upload/",
        replace: "https://up.flickr.com/services/replace/",
        oauthRequestToken: "https://www.flickr.com/services/oauth/request_token",
        oauthAuthorize: "https://www.flickr.com/services/oauth/authorize",
        oauthAccessToken: "https://www.flickr.com/services/oauth/access_token",
        legacyAuth: "https://www.flickr.com/services/auth/",
        images: "https://live.staticflickr.com/",
        web: "https://www.flickr.com/")

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
        self.init(rest: base + "/services/rest/",
                  upload: base + "/services/upload/",
                  replace: base + "/services/replace/",
                  oauthRequestToken: base + "/services/oauth/request_token",
                  oauthAuthorize: base + "/services/oauth/authorize",
                  oauthAccessToken: base + "/services/oauth/access_token",
                  legacyAuth: base + "/services/auth/",
                  images: base + "/static/",
                  web: base + "/")
    }
}
