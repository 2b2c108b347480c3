import FlickrProtocol
import Foundation

/// A legacy (frob flow) auth token and its user.
public struct LegacyToken: Sendable, Hashable, CustomStringConvertible {
    /// The auth token (`auth_token`), sent with later calls and signed with `api_sig`.
    public var token: String
    /// The permission it grants.
    public var perms: FlickrPermission
    /// The NSID of the token's user.
    public var userNSID: String?
    /// The user's screen name.
    public var username: String?
    /// The user's full name.
    public var fullname: String?

    /// The form `description` shows: the token masked, its permission and user.
    public var description: String { "LegacyToken(token: \(Redaction.mask(token)), perms: \(perms.rawValue), user: \(userNSID ?? "?"))" }
}

extension FlickrClient {
    /// `flickr.auth.getFrob` (deprecated flow; signed with `api_sig`).
    public func getFrob() async throws(FlickrError) -> String {
        let rsp = try await call("flickr.auth.getFrob")
        guard let frob = rsp["frob"]?.text else {
            throw FlickrError(kind: .parse, message: "getFrob answer has no frob", method: "flickr.auth.getFrob")
        }
        return frob
    }

    /// The legacy login page: desktop form with `frob`, or the web-app form without it (Flickr
    /// then redirects to the app's registered callback with `?frob=…`).
    public func legacyLoginURL(frob: String?, perms: FlickrPermission) -> String {
        let ctx = context
        var params: [(String, String)] = [("api_key", ctx.apiKey), ("perms", perms.rawValue)]
        if let frob { params.append(("frob", frob)) }
        params.append(("api_sig", LegacySignature.apiSig(secret: ctx.sharedSecret, parameters: params)))
        return ctx.endpoints.legacyAuth + "?" + FormEncoding.serialize(params)
    }

    /// `flickr.auth.getToken`: the token for an approved frob, put in use for later calls.
    @discardableResult
    public func getToken(frob: String) async throws(FlickrError) -> LegacyToken {
        let rsp = try await call("flickr.auth.getToken", ["frob": frob])
        let token = try Self.legacyToken(rsp, method: "flickr.auth.getToken")
        updateContext {
            $0.authToken = token.token
            $0.oauthToken = nil
            $0.oauthTokenSecret = nil
        }
        return token
    }

    /// `flickr.auth.checkToken` for the legacy token in use.
    public func checkLegacyToken() async throws(FlickrError) -> LegacyToken {
        guard let token = context.authToken else {
            throw FlickrError.missingCredentials("legacy auth token", method: "flickr.auth.checkToken")
        }
        let rsp = try await call("flickr.auth.checkToken", ["auth_token": token])
        return try Self.legacyToken(rsp, method: "flickr.auth.checkToken")
    }

    /// Migrates the legacy token in use to OAuth (`flickr.auth.oauth.getAccessToken`; Flickr
    /// deletes the legacy token). The new access token is put in use.
    @discardableResult
    public func migrateLegacyToken() async throws(FlickrError) -> OAuthAccessToken {
        guard context.authToken != nil else {
            throw FlickrError.missingCredentials("legacy auth token", method: "flickr.auth.oauth.getAccessToken")
        }
        let rsp = try await call("flickr.auth.oauth.getAccessToken")
        guard let token = rsp["auth.access_token.oauth_token"]?.string,
              let secret = rsp["auth.access_token.oauth_token_secret"]?.string else {
            throw FlickrError(kind: .parse, message: "getAccessToken answer lacks the access token",
                              method: "flickr.auth.oauth.getAccessToken")
        }
        updateContext {
            $0.oauthToken = token
            $0.oauthTokenSecret = secret
            $0.authToken = nil
        }
        return OAuthAccessToken(token: token, secret: secret)
    }

    static func legacyToken(_ rsp: FlickrNode, method: String) throws(FlickrError) -> LegacyToken {
        guard let token = rsp["auth.token"]?.text else {
            throw FlickrError(kind: .parse, message: "answer has no auth token", method: method)
        }
        return LegacyToken(token: token, perms: FlickrPermission(rawValue: rsp["auth.perms"]?.text ?? "") ?? .none,
                           userNSID: rsp["auth.user.nsid"]?.string, username: rsp["auth.user.username"]?.string,
                           fullname: rsp["auth.user.fullname"]?.string)
    }
}
