import FlickrProtocol
import Foundation

extension SandboxEngine {
    /// `/services/oauth/request_token`: signed with `consumer_secret&`, needs `oauth_callback`.
    func handleRequestToken(_ request: SandboxRequest) -> SandboxReply {
        do {
            _ = try verifyOAuth(request, now: Self.now(), tokenKinds: [], tokenRequired: false)
        } catch { return .oauth(error) }
        guard let callback = request.parameters["oauth_callback"], !callback.isEmpty else {
            return .oauth(OAuthProblem("parameter_absent&oauth_parameters_absent=oauth_callback"))
        }
        let token = SandboxToken(token: SandboxIDs.token(), secret: SandboxIDs.hex(16), kind: .request, user: nil,
                                 perms: .none, callback: callback, verifier: nil)
        store.write { $0.tokens[token.token] = token }
        return .form("oauth_callback_confirmed=true&oauth_token=\(token.token)&oauth_token_secret=\(token.secret)")
    }

    /// `/services/oauth/authorize?oauth_token=…&perms=…`: approves at once as the default user.
    /// A callback URL gets a 302 carrying the verifier; `oob` gets a page showing it.
    func handleAuthorize(_ request: SandboxRequest) -> SandboxReply {
        let params = request.parameters
        guard let perms = FlickrPermission(rawValue: params["perms"] ?? "read"), perms != .none else {
            return .html(400, page(title: "Invalid perms", body: "<p>perms must be read, write or delete.</p>"))
        }
        let tokenString = params["oauth_token"] ?? ""
        let verifier = SandboxIDs.verifier()
        let approved = store.write { s -> SandboxToken? in
            guard var token = s.tokens[tokenString], token.kind == .request else { return nil }
            token.user = s.defaultUser
            token.perms = perms
            token.verifier = verifier
            s.tokens[tokenString] = token
            return token
        }
        guard let approved else {
            return .html(400, page(title: "Oops", body: "<p>The oauth_token is unknown or has expired.</p>"))
        }
        let callback = approved.callback ?? "oob"
        if callback == "oob" {
            let username = store.read { s in approved.user.flatMap { s.user(nsid: $0)?.username } } ?? ""
            return .html(200, page(title: "Authorized", body: """
                <p>You have authorized this application with <b>\(perms.rawValue)</b> permission as \(XMLNode.escape(username)).</p>
                <p>Enter this code in the application: <span id="oauth_verifier">\(verifier)</span></p>
                """))
        }
        let separator = callback.contains("?") ? "&" : "?"
        let location = callback + separator + "oauth_token=" + PercentEncoding.encode(tokenString)
            + "&oauth_verifier=" + PercentEncoding.encode(verifier)
        return SandboxReply(status: 302, contentType: SandboxReply.htmlType,
                            body: "<a href=\"\(XMLNode.escape(location))\">Continue</a>", headers: [("Location", location)])
    }

    /// `/services/oauth/access_token`: signed with the request token's secret, carries the verifier.
    func handleAccessToken(_ request: SandboxRequest) -> SandboxReply {
        let requestToken: SandboxToken
        do {
            guard let t = try verifyOAuth(request, now: Self.now(), tokenKinds: [.request], tokenRequired: true) else {
                return .oauth(OAuthProblem("token_rejected"))
            }
            requestToken = t
        } catch { return .oauth(error) }
        guard let expected = requestToken.verifier, let user = requestToken.user,
              let given = request.parameters["oauth_verifier"], given == expected else {
            return .oauth(OAuthProblem("verifier_invalid"))
        }
        let access = SandboxToken(token: SandboxIDs.token(), secret: SandboxIDs.hex(16), kind: .access, user: user,
                                  perms: requestToken.perms, callback: nil, verifier: nil)
        let owner = store.write { s -> SandboxUser? in
            s.tokens[requestToken.token] = nil
            s.tokens[access.token] = access
            return s.user(nsid: user)
        }
        let pairs: [(String, String)] = [
            ("fullname", owner?.realname ?? ""), ("oauth_token", access.token), ("oauth_token_secret", access.secret),
            ("user_nsid", user), ("username", owner?.username ?? ""),
        ]
        return .form(FormEncoding.serialize(pairs))
    }

    /// `/services/auth/` (legacy login page). With `frob`: approves that frob for the default
    /// user at the requested perms and shows a confirmation page. Without a frob (the web-app
    /// flow) it creates an approved frob and redirects to the `callback` parameter (or, without
    /// one, shows the frob on the page) — Flickr sent the user to the app's registered callback.
    func handleLegacyLogin(_ request: SandboxRequest) -> SandboxReply {
        let params = request.parameters
        guard params["api_key"] == credentialsApp.apiKey else {
            return .html(400, page(title: "Oops", body: "<p>Invalid API Key (Key has invalid format)</p>"))
        }
        if let sig = params["api_sig"] {
            let expected = LegacySignature.apiSig(secret: credentialsApp.apiSecret, parameters: request.query + request.body)
            guard expected == sig.lowercased() else {
                return .html(400, page(title: "Oops", body: "<p>Invalid signature</p>"))
            }
        }
        let perms = FlickrPermission(rawValue: params["perms"] ?? "read") ?? .read
        let now = Self.now()
        if let frob = params["frob"], !frob.isEmpty {
            let ok = store.write { s -> Bool in
                guard var f = s.frobs[frob] else { return false }
                f.user = s.defaultUser
                f.perms = perms
                s.frobs[frob] = f
                return true
            }
            guard ok else { return .html(400, page(title: "Oops", body: "<p>Invalid frob</p>")) }
            return .html(200, page(title: "Authorized", body: "<p>You have authorized this application (\(perms.rawValue)). You can close this window.</p>"))
        }
        let frob = "72157" + SandboxIDs.digits(12) + "-" + SandboxIDs.hex(16) + "-" + SandboxIDs.digits(6)
        store.write { s in s.frobs[frob] = SandboxFrob(frob: frob, user: s.defaultUser, perms: perms, created: now) }
        if let callback = params["callback"], !callback.isEmpty {
            let location = callback + (callback.contains("?") ? "&" : "?") + "frob=" + PercentEncoding.encode(frob)
            return SandboxReply(status: 302, contentType: SandboxReply.htmlType, body: "", headers: [("Location", location)])
        }
        return .html(200, page(title: "Authorized", body: "<p>Your frob: <span id=\"frob\">\(frob)</span></p>"))
    }

    /// A minimal HTML page.
    func page(title: String, body: String) -> String {
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Flickr Sandbox: \(title)</title></head>\n<body>\n<h1>\(title)</h1>\n\(body)\n</body></html>\n"
    }
}
