import Foundation

/// The one place credentials are resolved (ARCHITECTURE.md, "Credentials"): explicit values
/// (a context, `flickr.configure{}`, command-line options) over the `FLICKR_*` environment over
/// the stored profile. The Lua module, the `flickr` command and ``FlickrContext/resolve(explicit:profile:environment:store:)``
/// all go through it.
public struct CredentialResolver: Sendable {
    /// What resolution found, layer by layer merged.
    public struct Resolved: Sendable, Hashable {
        /// Each field from the highest layer that has it.
        public var credentials: FlickrProfile
        /// The profile that was read: the explicit name, else `FLICKR_PROFILE`, else "default".
        public var profileName: String
        /// Whether a profile file of that name exists.
        public var profileExists: Bool
    }

    /// The environment read for `FLICKR_*` variables.
    public var environment: [String: String]
    /// Where stored profiles are read.
    public var store: ProfileStore

    /// `store` defaults to the one the environment points at (`XDG_CONFIG_HOME`, `HOME`).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, store: ProfileStore? = nil) {
        self.environment = environment
        self.store = store ?? ProfileStore(environment: environment)
    }

    /// Merges `explicit` over the environment over the profile `profile` (or the one the
    /// environment names). Throws when the profile name is malformed or its file unreadable, when
    /// a profile named on purpose (`profile`, `FLICKR_PROFILE`) does not exist — the error lists
    /// those that do — and when the endpoint is not a base URL (``Endpoints/check(baseURL:)``).
    public func resolve(explicit: FlickrProfile = FlickrProfile(), profile: String? = nil) throws(FlickrError) -> Resolved {
        let name = ProfileStore.profileName(explicit: profile, environment: environment)
        let stored = try store.load(name)
        let named = profile != nil || !(environment["FLICKR_PROFILE"] ?? "").isEmpty
        if stored == nil, named {
            let others = store.names()
            throw FlickrError.usage("no profile named \"\(name)\" in \(store.directory.path) ("
                                    + (others.isEmpty ? "there are none yet" : "there are: " + others.joined(separator: ", ")) + ")",
                                    remedy: .init(commandLine: "; `flickr login --profile \(name)` makes one",
                                                  swift: "; ProfileStore.save(_:as:) makes one"))
        }
        let merged = explicit.filled(from: FlickrProfile.fromEnvironment(environment)).filled(from: stored ?? FlickrProfile())
        if let endpoint = merged.endpoint { try Endpoints.check(baseURL: endpoint) }
        return Resolved(credentials: merged, profileName: name, profileExists: stored != nil)
    }
}

extension FlickrContext {
    /// A context from credentials resolved by ``CredentialResolver`` (explicit values first,
    /// then the `FLICKR_*` environment, then the stored profile). Throws a `usage` error naming
    /// what to set when no API key is found.
    public static func resolve(explicit: FlickrProfile = FlickrProfile(), profile: String? = nil,
                               environment env: [String: String] = ProcessInfo.processInfo.environment,
                               store: ProfileStore? = nil) throws(FlickrError) -> FlickrContext {
        let merged = try CredentialResolver(environment: env, store: store).resolve(explicit: explicit, profile: profile).credentials
        guard let key = merged.apiKey else { throw FlickrError.missingCredentials("API key", method: nil) }
        let endpoints = merged.endpoint.map { Endpoints(baseURL: $0) } ?? .flickr
        return FlickrContext(apiKey: key, sharedSecret: merged.apiSecret ?? "", oauthToken: merged.oauthToken,
                             oauthTokenSecret: merged.oauthTokenSecret, endpoints: endpoints)
    }
}
