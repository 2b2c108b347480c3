import FlickrProtocol
import Foundation

extension SandboxEngine {
    /// Authenticates a REST or upload request.
    ///
    /// With `oauth_signature` (in any location) the request is OAuth 1.0a: consumer key,
    /// timestamp, token, signature and nonce are checked and failures are HTTP 401s. Otherwise it
    /// is the legacy scheme: `api_key`, optional MD5 `api_sig`, optional `auth_token`.
    func authenticate(_ request: SandboxRequest, now: Int) throws(AuthFailure) -> SandboxCaller {
        let params = request.parameters
        if params["oauth_signature"] != nil {
            do {
                let token = try verifyOAuth(request, now: now, tokenKinds: [.access], tokenRequired: false)
                guard let token else { return SandboxCaller(scheme: .oauth, user: nil, perms: .none, token: nil) }
                return SandboxCaller(scheme: .oauth, user: token.user, perms: token.perms, token: token.token)
            } catch { throw .oauth(error) }
        }
        return try authenticateLegacy(request)
    }

    /// Verifies an OAuth-signed request and returns its token (nil when none was sent and none
    /// is required). `tokenKinds` says which tokens are acceptable here.
    func verifyOAuth(_ request: SandboxRequest, now: Int, tokenKinds: Set<SandboxToken.Kind>,
                     tokenRequired: Bool) throws(OAuthProblem) -> SandboxToken? {
        let params = request.parameters
        let app = credentialsApp
        guard let consumerKey = params["oauth_consumer_key"], !consumerKey.isEmpty else {
            throw OAuthProblem("parameter_absent&oauth_parameters_absent=oauth_consumer_key")
        }
        guard consumerKey == app.apiKey else { throw OAuthProblem("consumer_key_unknown") }
        if let method = params["oauth_signature_method"], method != "HMAC-SHA1" {
            throw OAuthProblem("signature_method_rejected")
        }
        guard let tsString = params["oauth_timestamp"], let timestamp = Int(tsString) else {
            throw OAuthProblem("parameter_absent&oauth_parameters_absent=oauth_timestamp")
        }
        guard abs(timestamp - now) <= controls.clockSkew else {
            throw OAuthProblem("timestamp_refused")
        }
        guard let nonce = params["oauth_nonce"], !nonce.isEmpty else {
            throw OAuthProblem("parameter_absent&oauth_parameters_absent=oauth_nonce")
        }
        var token: SandboxToken?
        if let tokenString = params["oauth_token"], !tokenString.isEmpty {
            guard let found = store.read({ $0.tokens[tokenString] }), tokenKinds.contains(found.kind) else {
                throw OAuthProblem("token_rejected")
            }
            token = found
        } else if tokenRequired {
            throw OAuthProblem("parameter_absent&oauth_parameters_absent=oauth_token")
        }
        let signature = params["oauth_signature"] ?? ""
        let base = OAuthSignature.baseString(method: request.verb, url: request.addressedURL,
                                             parameters: request.signedPairs)
        let key = OAuthSignature.signingKey(consumerSecret: app.apiSecret, tokenSecret: token?.secret)
        let expected = OAuthSignature.hmacSHA1(baseString: base, key: key)
        guard OAuthSignature.constantTimeEquals(expected, signature) else {
            throw OAuthProblem("signature_invalid", debugSBS: base)
        }
        guard controls.useNonce(consumerKey: consumerKey, timestamp: timestamp, nonce: nonce, now: now) else {
            throw OAuthProblem("nonce_used")
        }
        return token
    }

    /// The legacy scheme: `api_key`, `api_sig` (MD5 over every parameter), `auth_token`.
    func authenticateLegacy(_ request: SandboxRequest) throws(AuthFailure) -> SandboxCaller {
        let params = request.parameters
        let app = credentialsApp
        guard let key = params["api_key"], key == app.apiKey else {
            throw .api(APIFailure(.invalidAPIKey, "Invalid API Key (Key has invalid format)"))
        }
        if let sig = params["api_sig"] {
            let pairs = (request.query + request.body)
            let expected = LegacySignature.apiSig(secret: app.apiSecret, parameters: pairs)
            guard OAuthSignature.constantTimeEquals(expected, sig.lowercased()) else {
                throw .api(APIFailure(.invalidSignature, "Invalid signature"))
            }
        }
        guard let authToken = params["auth_token"], !authToken.isEmpty else { return .anonymous }
        guard params["api_sig"] != nil else { throw .api(APIFailure(.missingSignature, "Missing signature")) }
        guard let token = store.read({ $0.tokens[authToken] }), token.kind == .legacy else {
            throw .api(APIFailure(.loginFailed, "Invalid auth token"))
        }
        return SandboxCaller(scheme: .legacy, user: token.user, perms: token.perms, token: token.token)
    }
}
