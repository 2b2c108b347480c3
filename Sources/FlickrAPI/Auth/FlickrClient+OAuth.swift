import AsyncHTTPClient
import FlickrProtocol
import Foundation
import NIOCore

/// A request token (step 1 of the OAuth dance).
public struct OAuthRequestToken: Sendable, Hashable, CustomStringConvertible {
    /// The request token (`oauth_token`), sent back at step 3.
    public var token: String
    /// Its secret (`oauth_token_secret`), which signs the step 3 request.
    public var secret: String
    /// Whether Flickr confirmed the callback (`oauth_callback_confirmed=true`).
    public var callbackConfirmed: Bool

    /// A request token as step 1 gave it (or as stored between steps).
    public init(token: String, secret: String, callbackConfirmed: Bool = true) {
        self.token = token
        self.secret = secret
        self.callbackConfirmed = callbackConfirmed
    }

    /// The form `description` shows: the token, its secret masked.
    public var description: String { "OAuthRequestToken(token: \(token), secret: \(Redaction.mask(secret)))" }
}

/// An access token (step 3) with the user it belongs to.
public struct OAuthAccessToken: Sendable, Hashable, CustomStringConvertible {
    /// The access token (`oauth_token`), sent with every call.
    public var token: String
    /// Its secret, which signs every call.
    public var secret: String
    /// The NSID of the user who approved the app, when Flickr says it.
    public var userNSID: String?
    /// The user's screen name, when Flickr says it.
    public var username: String?
    /// The user's full name, when Flickr says it.
    public var fullname: String?

    /// An access token and what is known of its user.
    public init(token: String, secret: String, userNSID: String? = nil, username: String? = nil, fullname: String? = nil) {
        self.token = token
        self.secret = secret
        self.userNSID = userNSID
        self.username = username
        self.fullname = fullname
    }

    /// The form `description` shows: token and secret masked, and the user.
    public var description: String {
        "OAuthAccessToken(token: \(Redaction.mask(token)), secret: \(Redaction.mask(secret)), user: \(userNSID ?? "?") \(username ?? ""))"
    }
}

/// What `checkToken` says about a token.
public struct TokenInfo: Sendable, Hashable {
    /// The permission the token grants (`none` when Flickr names none this client knows).
    public var perms: FlickrPermission
    /// The NSID of the token's user.
    public var userNSID: String?
    /// The user's screen name.
    public var username: String?
    /// The user's full name.
    public var fullname: String?
}

extension FlickrClient {
    /// Step 1: a request token. `callback` is a URL Flickr redirects to after approval, or
    /// `oob` (the user is shown a verifier such as `123-456-789` to type in).
    public func requestToken(callback: String = "oob") async throws(FlickrError) -> OAuthRequestToken {
        let ctx = context
        let pairs = try await oauthEndpoint(ctx.endpoints.oauthRequestToken, service: "oauth/request_token",
                                            oauth: OAuthParameters.fresh(consumerKey: ctx.apiKey, token: nil, callback: callback),
                                            tokenSecret: nil)
        guard let token = pairs["oauth_token"], let secret = pairs["oauth_token_secret"] else {
            throw FlickrError(kind: .parse, message: "request_token answer lacks oauth_token/oauth_token_secret",
                              method: "oauth/request_token")
        }
        return OAuthRequestToken(token: token, secret: secret, callbackConfirmed: pairs["oauth_callback_confirmed"] == "true")
    }

    /// Step 2: the page where the user approves `perms` for `requestToken`.
    public func authorizeURL(for requestToken: OAuthRequestToken, perms: FlickrPermission = .read) -> String {
        let base = context.endpoints.oauthAuthorize
        return base + (base.contains("?") ? "&" : "?") + "oauth_token=" + PercentEncoding.encode(requestToken.token)
            + "&perms=" + perms.rawValue
    }

    /// Step 3: exchanges the request token and the verifier for an access token, which the
    /// client uses from then on.
    @discardableResult
    public func accessToken(for requestToken: OAuthRequestToken, verifier: String) async throws(FlickrError) -> OAuthAccessToken {
        let ctx = context
        let trimmed = verifier.trimmingCharacters(in: .whitespacesAndNewlines)
        let pairs = try await oauthEndpoint(ctx.endpoints.oauthAccessToken, service: "oauth/access_token",
                                            oauth: OAuthParameters.fresh(consumerKey: ctx.apiKey, token: requestToken.token,
                                                                         verifier: trimmed),
                                            tokenSecret: requestToken.secret)
        guard let token = pairs["oauth_token"], let secret = pairs["oauth_token_secret"] else {
            throw FlickrError(kind: .parse, message: "access_token answer lacks oauth_token/oauth_token_secret",
                              method: "oauth/access_token")
        }
        let access = OAuthAccessToken(token: token, secret: secret, userNSID: pairs["user_nsid"],
                                      username: pairs["username"], fullname: pairs["fullname"])
        updateContext {
            $0.oauthToken = token
            $0.oauthTokenSecret = secret
            $0.authToken = nil
        }
        return access
    }

    /// `flickr.auth.oauth.checkToken` for the token in use (or `token`).
    public func checkToken(_ token: String? = nil) async throws(FlickrError) -> TokenInfo {
        guard let token = token ?? context.oauthToken else {
            throw FlickrError.missingCredentials("OAuth token", method: "flickr.auth.oauth.checkToken")
        }
        let rsp = try await call("flickr.auth.oauth.checkToken", ["oauth_token": token])
        return TokenInfo(perms: FlickrPermission(rawValue: rsp["oauth.perms"]?.text ?? "") ?? .none,
                         userNSID: rsp["oauth.user.nsid"]?.string, username: rsp["oauth.user.username"]?.string,
                         fullname: rsp["oauth.user.fullname"]?.string)
    }

    /// The whole desktop login: request token with a loopback callback, `open` shows the
    /// authorize URL to the user (prints it or launches a browser), the receiver catches the
    /// redirect, then the access token is fetched and put in use.
    @discardableResult
    public func loginWithLoopback(perms: FlickrPermission, timeout: Double = 300,
                                  open: @Sendable (String) async -> Void) async throws(FlickrError) -> OAuthAccessToken {
        let receiver: LoopbackCallbackReceiver
        do {
            receiver = try await LoopbackCallbackReceiver.start()
        } catch {
            throw FlickrError(kind: .network, message: "cannot listen on 127.0.0.1 for the OAuth callback: \(error)",
                              method: "oauth/authorize")
        }
        do throws(FlickrError) {
            let request = try await requestToken(callback: receiver.callbackURL)
            await open(authorizeURL(for: request, perms: perms))
            let result = try await receiver.waitForCallback(timeout: timeout)
            guard result.token == request.token else {
                throw FlickrError(kind: .oauth, message: "the callback carried another request token", method: "oauth/authorize",
                                  oauthProblem: "token_rejected")
            }
            let access = try await accessToken(for: request, verifier: result.verifier)
            await receiver.stop()
            return access
        } catch {
            await receiver.stop()
            throw error
        }
    }

    /// Signs and sends one request to an OAuth endpoint; the answer is form-encoded.
    func oauthEndpoint(_ url: String, service: String, oauth: OAuthParameters,
                       tokenSecret: String?) async throws(FlickrError) -> [String: String] {
        let ctx = context
        guard !ctx.apiKey.isEmpty, !ctx.sharedSecret.isEmpty else {
            throw FlickrError.missingCredentials("API key and secret", method: service)
        }
        let query = OAuthSignature.queryParameters(of: url)
        let signed = OAuthSignature.sign(method: "GET", url: url, parameters: query + oauth.pairs,
                                         consumerSecret: ctx.sharedSecret, tokenSecret: tokenSecret)
        let all = oauth.pairs + [("oauth_signature", signed.signature)]
        var spec = HTTPRequestSpec(method: .GET, url: url + (url.contains("?") ? "&" : "?") + FormEncoding.serialize(all),
                                   timeout: ctx.requestTimeout,
                                   redactedSummary: "GET \(url) \(Redaction.redactForm(all))",
                                   signedBaseString: signed.baseString)
        spec.endpoint = String(url.prefix { $0 != "?" })
        spec.parameters = query + all
        return try await withRetries(method: service, isWrite: false) { () async throws(FlickrError) -> [String: String] in
            logger.trace("→ \(spec.redactedSummary)")
            let result = try await send(spec, method: service)
            logger.trace("← \(result.status) \(service) \(result.body.count) bytes")
            if result.status == 401, var problem = ResponseClassifier.oauthProblem(result.body) {
                problem.method = service
                problem.httpStatus = 401
                problem.signedBaseString = signed.baseString
                throw problem
            }
            guard result.status == 200 else {
                throw FlickrError(kind: .http, message: "HTTP \(result.status) from \(service)", method: service,
                                  httpStatus: result.status,
                                  retryAfter: ResponseClassifier.parseRetryAfter(result.retryAfter),
                                  bodyExcerpt: Redaction.scrub(ResponseClassifier.excerpt(result.body), secrets: [ctx.sharedSecret, tokenSecret]))
            }
            let text = String(decoding: result.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let pairs = Dictionary(FormEncoding.parse(text), uniquingKeysWith: { a, _ in a })
            guard pairs["oauth_token"] != nil else {
                throw FlickrError(kind: .parse, message: "unexpected answer from \(service)", method: service,
                                  httpStatus: result.status, bodyExcerpt: ResponseClassifier.excerpt(result.body))
            }
            return pairs
        }
    }
}
