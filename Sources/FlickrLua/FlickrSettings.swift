import FlickrAPI
import Foundation

/// The settings `flickr.configure{}` takes, each optional so that layers can be merged. The
/// credentials among them are resolved by FlickrAPI's ``CredentialResolver`` (explicit, then the
/// environment, then the profile file; ARCHITECTURE.md, "Credentials").
public struct FlickrSettings: Sendable, Hashable {
    public var apiKey: String?
    public var secret: String?
    public var token: String?
    public var tokenSecret: String?
    /// Legacy auth token (frob flow).
    public var authToken: String?
    /// One base URL for every service (`http://127.0.0.1:8080`), or nil for Flickr.
    public var endpoint: String?
    public var profile: String?
    /// Who the credentials belong to, as known without a call ("name (NSID)": a profile's saved
    /// user, the sandbox's); nil when unknown. Shown, never sent.
    public var user: String?
    /// The permission the token was granted, when known (a profile's saved `perms`, for its own
    /// token only): a call that needs more is refused before any request.
    public var permission: FlickrPermission?
    public var format: FlickrContext.Format?
    /// Seconds for an ordinary call.
    public var timeout: Double?
    /// Seconds for an upload.
    public var uploadTimeout: Double?
    /// Retries after the first attempt (0 disables).
    public var retries: Int?
    /// Calls per second (token bucket); `.some(nil)` means unlimited.
    public var rate: Double??
    /// Calls that may go at once after a quiet period.
    public var burst: Int?

    public init(apiKey: String? = nil, secret: String? = nil, token: String? = nil, tokenSecret: String? = nil,
                authToken: String? = nil, endpoint: String? = nil, profile: String? = nil, user: String? = nil,
                format: FlickrContext.Format? = nil, timeout: Double? = nil, uploadTimeout: Double? = nil,
                retries: Int? = nil, rate: Double?? = nil, burst: Int? = nil) {
        self.apiKey = apiKey
        self.secret = secret
        self.token = token
        self.tokenSecret = tokenSecret
        self.authToken = authToken
        self.endpoint = endpoint
        self.profile = profile
        self.user = user
        self.format = format
        self.timeout = timeout
        self.uploadTimeout = uploadTimeout
        self.retries = retries
        self.rate = rate
        self.burst = burst
    }

    /// Each field from `self`, else from `lower`.
    public func over(_ lower: FlickrSettings) -> FlickrSettings {
        FlickrSettings(apiKey: apiKey ?? lower.apiKey, secret: secret ?? lower.secret,
                       token: token ?? lower.token, tokenSecret: tokenSecret ?? lower.tokenSecret,
                       authToken: authToken ?? lower.authToken, endpoint: endpoint ?? lower.endpoint,
                       profile: profile ?? lower.profile, user: user ?? lower.user, format: format ?? lower.format,
                       timeout: timeout ?? lower.timeout, uploadTimeout: uploadTimeout ?? lower.uploadTimeout,
                       retries: retries ?? lower.retries, rate: rate ?? lower.rate, burst: burst ?? lower.burst)
            .withPermission(permission ?? lower.permission)
    }

    private func withPermission(_ p: FlickrPermission?) -> FlickrSettings {
        var s = self
        s.permission = p
        return s
    }

    /// The client context these settings describe.
    public func context() -> FlickrContext {
        let endpoints = endpoint.map(Endpoints.init(baseURL:)) ?? .flickr
        var retry = RetryPolicy.default
        if let retries { retry.maxAttempts = max(1, retries + 1) }
        let ratePolicy: RatePolicy
        switch rate {
        case .some(.some(let r)): ratePolicy = RatePolicy(callsPerSecond: r, burst: burst ?? RatePolicy.default.burst)
        case .some(.none): ratePolicy = .unlimited
        case .none:
            var p = RatePolicy.default(for: endpoints)
            if let burst { p.burst = max(1, burst) }
            ratePolicy = p
        }
        let hasOAuth = token != nil && tokenSecret != nil
        var context = FlickrContext(apiKey: apiKey ?? "", sharedSecret: secret ?? "",
                                    oauthToken: hasOAuth ? token : nil, oauthTokenSecret: hasOAuth ? tokenSecret : nil,
                                    authToken: hasOAuth ? nil : authToken, endpoints: endpoints, format: format ?? .xml,
                                    requestTimeout: timeout ?? 30, uploadTimeout: uploadTimeout ?? 600,
                                    retryPolicy: retry, ratePolicy: ratePolicy)
        context.tokenPermission = hasOAuth ? permission : nil
        return context
    }
}
