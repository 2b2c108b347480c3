import FlickrAPI
import FlickrProtocol
import Foundation
import LuaKit

/// `flickr.oauth.*` and `flickr.legacy.*`.
extension FlickrModule {
    func installAuth(_ state: LuaState, _ flickr: Int32) {
        state.newTable()
        let oauth = state.top
        // request_token{ callback = "oob", perms = "read" } → { token, secret, authorize_url }
        define(state, oauth, "request_token", path: "oauth.request_token") { call in
            var callback = "oob", perms = FlickrPermission.read
            if let options = try LuaOptions.read(call, at: 1, function: "flickr.oauth.request_token", known: ["callback", "perms"]) {
                callback = try options.string("callback") ?? callback
                perms = try Self.permission(options) ?? perms
            }
            let client = self.client
            let (callbackURL, permissions) = (callback, perms)
            return self.asyncReturn("flickr.oauth.request_token", { () async throws -> OAuthRequestToken in
                try await client.requestToken(callback: callbackURL)
            }, deliver: { state, request in
                Self.pushFields(state, ["token": request.token, "secret": request.secret,
                                        "authorize_url": client.authorizeURL(for: request, perms: permissions)])
                return 1
            })
        }
        // access_token(request, verifier) → { token, secret, user_nsid, username, fullname }; now in use.
        define(state, oauth, "access_token", path: "oauth.access_token") { call in
            try call.table(1)
            // The table request_token returned (its other fields, such as authorize_url, are not read).
            let request = try LuaOptions(state: call.state, index: 1, function: "flickr.oauth.access_token", known: nil, noun: "field")
            guard let token = try request.string("token"), let secret = try request.string("secret") else {
                throw call.argumentError(1, "request token table with token and secret expected")
            }
            let verifier = try call.string(2)
            let client = self.client
            return self.asyncReturn("flickr.oauth.access_token", { () async throws -> OAuthAccessToken in
                try await client.accessToken(for: OAuthRequestToken(token: token, secret: secret), verifier: verifier)
            }, deliver: { state, access in
                self.useAccessToken(access)
                Self.push(access, onto: state)
                return 1
            })
        }
        // login{ perms = "write", profile = "default", callback = "oob"|"loopback", open = fn(url),
        //        verifier = fn(url) → string, save = true } → the access token table (+ profile path)
        define(state, oauth, "login", path: "oauth.login") { call in
            try self.login(call)
        }
        // check() → { perms, user_nsid, username, fullname } (flickr.auth.oauth.checkToken)
        define(state, oauth, "check", path: "oauth.check") { call in
            let client = self.client
            return self.asyncReturn("flickr.oauth.check", { try await client.checkToken() }, deliver: { state, info in
                Self.pushFields(state, ["perms": info.perms.rawValue, "user_nsid": info.userNSID,
                                        "username": info.username, "fullname": info.fullname])
                return 1
            })
        }
        state.rawSet(field: "oauth", in: flickr)

        state.newTable()
        let legacy = state.top
        // login_url{ frob =, perms = "read" } → the legacy login page (api_sig MD5)
        define(state, legacy, "login_url", path: "legacy.login_url") { call in
            var frob: String?, perms = FlickrPermission.read
            if let options = try LuaOptions.read(call, at: 1, function: "flickr.legacy.login_url", known: ["frob", "perms"]) {
                frob = try options.string("frob")
                perms = try Self.permission(options) ?? perms
            }
            call.state.push(self.client.legacyLoginURL(frob: frob, perms: perms))
            return .results(1)
        }
        define(state, legacy, "get_frob", path: "legacy.get_frob") { _ in
            let client = self.client
            return self.asyncReturn("flickr.legacy.get_frob", { try await client.getFrob() }, deliver: { state, frob in
                state.push(frob)
                return 1
            })
        }
        // get_token(frob) → { token, perms, user_nsid, username, fullname }; now in use.
        define(state, legacy, "get_token", path: "legacy.get_token") { call in
            let frob = try call.string(1)
            let client = self.client
            return self.asyncReturn("flickr.legacy.get_token", { try await client.getToken(frob: frob) }, deliver: { state, token in
                self.explicit.authToken = token.token
                self.explicit.token = nil
                self.explicit.tokenSecret = nil
                Self.push(token, onto: state)
                return 1
            })
        }
        define(state, legacy, "check", path: "legacy.check") { _ in
            let client = self.client
            return self.asyncReturn("flickr.legacy.check", { try await client.checkLegacyToken() }, deliver: { state, token in
                Self.push(token, onto: state)
                return 1
            })
        }
        // exchange(auth_token) → { token, secret }: flickr.auth.oauth.getAccessToken; now in use.
        define(state, legacy, "exchange", path: "legacy.exchange") { call in
            let authToken = try call.string(1)
            let client = self.client
            return self.asyncReturn("flickr.legacy.exchange", { () async throws -> OAuthAccessToken in
                client.updateContext {
                    $0.authToken = authToken
                    $0.oauthToken = nil
                    $0.oauthTokenSecret = nil
                }
                return try await client.migrateLegacyToken()
            }, deliver: { state, access in
                self.useAccessToken(access)
                Self.push(access, onto: state)
                return 1
            })
        }
        state.rawSet(field: "legacy", in: flickr)
    }

    /// Remembers an access token the client now uses, so that configure{} keeps it.
    func useAccessToken(_ access: OAuthAccessToken) {
        explicit.token = access.token
        explicit.tokenSecret = access.secret
        explicit.authToken = nil
    }

    private func login(_ call: LuaCall) throws -> LuaReturn {
        let s = call.state
        var perms = FlickrPermission.write, profile = effective.profile ?? "default", loopback = false, save = true
        var timeout = 300.0
        var open: LuaRef?, verifier: LuaRef?
        if let options = try LuaOptions.read(call, at: 1, function: "flickr.oauth.login",
                                             known: ["perms", "profile", "callback", "save", "timeout", "open", "verifier"]) {
            perms = try Self.permission(options) ?? perms
            profile = try options.string("profile") ?? profile
            loopback = try options.choice("callback", ["oob": false, "loopback": true]) ?? loopback
            save = try options.boolean("save") ?? save
            timeout = try options.number("timeout", minimum: 0, expected: "seconds") ?? timeout
            open = try options.function("open", expected: "a function(url)")
            verifier = try options.function("verifier", expected: "a function(url) returning the verifier")
        }
        let client = self.client
        let finish: (LuaState, OAuthAccessToken) throws -> Int32 = { state, access in
            self.useAccessToken(access)
            var path: String?
            if save {
                let ctx = client.context
                let saved = FlickrProfile(apiKey: ctx.apiKey, apiSecret: ctx.sharedSecret, oauthToken: access.token,
                                          oauthTokenSecret: access.secret, userNSID: access.userNSID,
                                          username: access.username, perms: perms.rawValue, fullname: access.fullname,
                                          endpoint: self.effective.endpoint)
                do throws(FlickrError) {
                    try self.profiles.save(saved, as: profile)
                    path = try self.profiles.url(for: profile).path
                } catch {
                    throw FlickrError(kind: error.kind, message: error.message, method: "flickr.oauth.login")
                }
            }
            Self.push(access, onto: state)
            if let path {
                state.push(path)
                state.rawSet(field: "profile", in: -2)
            }
            return 1
        }
        if loopback {
            let poster = s.jobPoster
            let (permissions, seconds, opener) = (perms, timeout, open)
            return asyncReturn("flickr.oauth.login", { () async throws -> OAuthAccessToken in
                try await client.loginWithLoopback(perms: permissions, timeout: seconds) { url in
                    _ = await poster.run { state in Self.show(url, with: opener, on: state) }
                }
            }, deliver: finish)
        } else {
            let request = try s.awaitBlocking { try await client.requestToken(callback: "oob") }
            let url = client.authorizeURL(for: request, perms: perms)
            let code: String
            if let verifier {
                verifier.push(onto: s)
                s.push(url)
                try s.call(arguments: 1, results: 1)
                guard let v = s.type(at: -1) == .string ? s.string(at: -1) : nil else {
                    throw FlickrError.usage("the verifier function returned no string", method: "flickr.oauth.login")
                }
                s.pop()
                code = v
            } else {
                if let error = Self.show(url, with: open, on: s) { throw error }
                FileHandle.standardError.write(Data("Enter the verifier code Flickr shows: ".utf8))
                guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                    throw FlickrError(kind: .cancelled, message: "no verifier entered", method: "flickr.oauth.login")
                }
                code = line
            }
            let access = try s.awaitBlocking { try await client.accessToken(for: request, verifier: code) }
            return .results(try finish(s, access))
        }
    }

    /// Shows the authorize URL: the user's `open` function, else a line on stderr.
    @discardableResult
    private static func show(_ url: String, with open: LuaRef?, on state: LuaState) -> (any Error)? {
        guard let open else {
            FileHandle.standardError.write(Data("Open this page to authorize the app:\n  \(url)\n".utf8))
            return nil
        }
        open.push(onto: state)
        state.push(url)
        do {
            try state.call(arguments: 1, results: 0)
            return nil
        } catch {
            return error
        }
    }

    /// The `perms` option: read, write or delete.
    static func permission(_ options: LuaOptions) throws -> FlickrPermission? {
        try options.choice("perms", ["read": .read, "write": .write, "delete": .delete])
    }

    static func pushFields(_ state: LuaState, _ fields: [String: String?]) {
        state.newTable(record: Int32(fields.count))
        for (k, v) in fields {
            guard let v else { continue }
            state.push(v)
            state.rawSet(field: k, in: -2)
        }
    }

    static func push(_ access: OAuthAccessToken, onto state: LuaState) {
        pushFields(state, ["token": access.token, "secret": access.secret, "user_nsid": access.userNSID,
                           "username": access.username, "fullname": access.fullname])
    }

    static func push(_ token: LegacyToken, onto state: LuaState) {
        pushFields(state, ["token": token.token, "perms": token.perms.rawValue, "user_nsid": token.userNSID,
                           "username": token.username, "fullname": token.fullname])
    }
}
