import FlickrAPI
import FlickrCommandLine
import FlickrProtocol
import Foundation

/// `flickr login [--perms read|write|delete] [--profile NAME] [--callback oob|loopback]`
///
/// OAuth 1.0a: a request token, the authorize URL for the user to open, then either the
/// verifier typed back (`oob`, the default) or the browser's redirect caught by a receiver on
/// 127.0.0.1 (`loopback`). The access token is saved in the profile, atomically, mode 0600.
enum Login {
    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let options = try CommandLineParser.parse(args, for: "login")
        let words = options.positional
        guard words.isEmpty else { throw Invocation.UsageError(message: "unexpected argument '\(words[0])'") }
        guard let perms = FlickrPermission(rawValue: options["perms"] ?? "write"), perms != .none else {
            throw Invocation.UsageError(message: "--perms must be read, write or delete")
        }
        let callback = options["callback"] ?? "oob"
        guard callback == "oob" || callback == "loopback" else { throw Invocation.UsageError(message: "--callback must be oob or loopback") }
        let profileName = ProfileStore.profileName(explicit: options["profile"] ?? inv.profile, environment: env)
        let store = ProfileStore(environment: env)

        // The app's key and secret: the sandbox's, or from options/environment/the profile (a
        // profile not made yet is what this command makes, so it is not asked for).
        let exists = (try store.load(profileName)) != nil
        var sessionEnv = env
        if !exists { sessionEnv["FLICKR_PROFILE"] = nil }
        var sessionInv = inv
        if !exists { sessionInv.profile = nil }
        let opened = try await Subcommands.session(sessionInv, sessionEnv, profile: exists ? profileName : nil)
        defer { opened.close() }
        let session = opened.session
        var context = session.client.context
        guard !context.apiKey.isEmpty, !context.sharedSecret.isEmpty else {
            throw FlickrError.usage("flickr login needs your app's key and secret: set FLICKR_API_KEY and FLICKR_API_SECRET "
                                    + "(https://www.flickr.com/services/apps/create/), or try it with `flickr --sandbox login`")
        }
        context.oauthToken = nil
        context.oauthTokenSecret = nil
        context.authToken = nil
        let client = FlickrClient(context: context, logger: session.client.logger)

        let access: OAuthAccessToken
        if callback == "loopback" {
            access = try await client.loginWithLoopback(perms: perms) { url in
                print("Open this URL in your browser and approve the access:\n\(url)")
                fflush(nil)
            }
        } else {
            let request = try await client.requestToken(callback: "oob")
            print("Open this URL in your browser and approve the access:\n\(client.authorizeURL(for: request, perms: perms))")
            FileHandleOutput.standardError("Then type the verifier Flickr shows (like 123-456-789): ")
            fflush(nil)
            guard let line = readLine(strippingNewline: true), !line.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw FlickrError.usage("no verifier given")
            }
            access = try await Self.verify(client, request, verifier: line)
        }
        let info = try await client.checkToken()
        var profile = (try store.load(profileName)) ?? FlickrProfile()
        profile.apiKey = context.apiKey
        profile.apiSecret = context.sharedSecret
        profile.oauthToken = access.token
        profile.oauthTokenSecret = access.secret
        profile.userNSID = access.userNSID ?? info.userNSID
        profile.username = access.username ?? info.username
        profile.fullname = access.fullname ?? info.fullname
        profile.perms = info.perms.rawValue
        profile.endpoint = context.endpoints == .flickr ? nil : String(context.endpoints.web.dropLast())
        try store.save(profile, as: profileName)
        print("Logged in as \(profile.username ?? "?") (\(profile.userNSID ?? "?")) with \(info.perms.rawValue) permission; "
              + "saved to profile \"\(profileName)\" (\(try store.url(for: profileName).path)).")
        return 0
    }

    /// The access token for `verifier`; a verifier Flickr refuses is said as what a person can
    /// act on (mistyped or expired: log in again), not with the signature base string.
    static func verify(_ client: FlickrClient, _ request: OAuthRequestToken, verifier: String) async throws(FlickrError) -> OAuthAccessToken {
        do {
            return try await client.accessToken(for: request, verifier: verifier)
        } catch where error.kind == .oauth {
            throw FlickrError(kind: .oauth, message: "Flickr refused the verifier \"\(verifier)\" (\(error.oauthProblem ?? "oauth_problem unknown"))"
                              + ": it was mistyped, or the request expired; run flickr login again and paste the code the page shows")
        }
    }
}

/// `flickr logout [--profile NAME]`: forgets the profile's token (the app key stays).
enum Logout {
    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) throws -> Int32 {
        let options = try CommandLineParser.parse(args, for: "logout")
        let words = options.positional
        guard words.isEmpty else { throw Invocation.UsageError(message: "unexpected argument '\(words[0])'") }
        let name = ProfileStore.profileName(explicit: options["profile"] ?? inv.profile, environment: env)
        let store = ProfileStore(environment: env)
        guard var profile = try store.load(name), profile.oauthToken != nil else {
            print("Not logged in (profile \"\(name)\").")
            return 0
        }
        profile.oauthToken = nil
        profile.oauthTokenSecret = nil
        profile.perms = nil
        try store.save(profile, as: name)
        print("Logged out of profile \"\(name)\".")
        return 0
    }
}

/// `flickr whoami`: the user behind the credentials in use (flickr.test.login, checkToken).
enum WhoAmI {
    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let words = try CommandLineParser.parse(args, for: "whoami").positional
        guard words.isEmpty else { throw Invocation.UsageError(message: "unexpected argument '\(words[0])'") }
        let opened = try await Subcommands.session(inv, env)
        defer { opened.close() }
        let session = opened.session
        let context = session.client.context
        guard !context.apiKey.isEmpty else { throw FlickrError.missingCredentials("API key", method: "whoami") }
        guard context.hasOAuthToken || context.authToken != nil else {
            throw FlickrError.missingCredentials("login (OAuth token)", method: "whoami")
        }
        let login = try await session.client.call("flickr.test.login")
        let info = context.hasOAuthToken ? try? await session.client.checkToken() : nil
        print("\(login["user.username"]?.text ?? "?") (\(login["user.id"]?.string ?? "?"))")
        if let info { print("perms: \(info.perms.rawValue)") }
        print("endpoint: \(context.endpoints.rest)")
        return 0
    }

}
