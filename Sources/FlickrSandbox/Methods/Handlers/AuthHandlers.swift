import FlickrProtocol
import Foundation

/// `flickr.auth.*` and `flickr.auth.oauth.*`: legacy tokens, their check and their exchange for OAuth.
struct AuthHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.auth.oauth.checkToken": { store, call in
            let tokenString = call.string("oauth_token") ?? ""
            guard let (token, user) = store.read({ s -> (SandboxToken, SandboxUser)? in
                guard let t = s.tokens[tokenString], t.kind == .access, let u = t.user.flatMap({ s.user(nsid: $0) }) else {
                    return nil
                }
                return (t, u)
            }) else { throw APIFailure(.loginFailed, "Invalid token") }
            return .nodes([XMLNode("oauth", children: [
                .text("token", token.token), .text("perms", token.perms.rawValue),
                XMLNode("user", [("nsid", .string(user.nsid)), ("username", .string(user.username)),
                                 ("fullname", .string(user.realname))]),
            ])])
        },
        "flickr.auth.oauth.getAccessToken": { store, call in
            guard call.caller.scheme == .legacy, let legacy = call.caller.token else {
                throw APIFailure(.loginFailed, "Invalid auth token")
            }
            let token = try store.update { (s: inout SandboxState) throws(APIFailure) -> SandboxToken in
                guard let old = s.tokens.removeValue(forKey: legacy) else { throw APIFailure(.loginFailed, "Invalid auth token") }
                let t = SandboxToken(token: SandboxIDs.token(), secret: SandboxIDs.hex(16), kind: .access, user: old.user,
                                     perms: old.perms, callback: nil, verifier: nil)
                s.tokens[t.token] = t
                return t
            }
            return .nodes([XMLNode("auth", children: [
                XMLNode("access_token", [("oauth_token", .string(token.token)), ("oauth_token_secret", .string(token.secret))]),
            ])])
        },
        "flickr.auth.getFrob": { store, call in
            let frob = "72157" + SandboxIDs.digits(12) + "-" + SandboxIDs.hex(16) + "-" + SandboxIDs.digits(6)
            store.write { $0.frobs[frob] = SandboxFrob(frob: frob, user: nil, perms: .none, created: call.now) }
            return .nodes([.text("frob", frob)])
        },
        "flickr.auth.getToken": { store, call in
            let frob = call.string("frob") ?? ""
            let token = try store.update { (s: inout SandboxState) throws(APIFailure) -> SandboxToken in
                guard let f = s.frobs[frob], let user = f.user else { throw APIFailure(.invalidFrob, "Invalid frob") }
                s.frobs[frob] = nil
                let t = SandboxToken(token: "72157" + SandboxIDs.digits(12) + "-" + SandboxIDs.hex(16), secret: "",
                                     kind: .legacy, user: user, perms: f.perms, callback: nil, verifier: nil)
                s.tokens[t.token] = t
                return t
            }
            return .nodes([AuthHandlers.authElement(store, token)])
        },
        "flickr.auth.checkToken": { store, call in
            let tokenString = call.string("auth_token") ?? ""
            guard let token = store.read({ $0.tokens[tokenString] }), token.kind == .legacy else {
                throw APIFailure(.loginFailed, "Invalid auth token")
            }
            return .nodes([AuthHandlers.authElement(store, token)])
        },
    ]

    /// `<auth><token/><perms/><user nsid username fullname/></auth>` of the legacy API.
    static func authElement(_ store: SandboxStore, _ token: SandboxToken) -> XMLNode {
        let user = store.read { s in token.user.flatMap { s.user(nsid: $0) } }
        return XMLNode("auth", children: [
            .text("token", token.token), .text("perms", token.perms.rawValue),
            XMLNode("user", [("nsid", .string(user?.nsid ?? "")), ("username", .string(user?.username ?? "")),
                             ("fullname", .string(user?.realname ?? ""))]),
        ])
    }
}
