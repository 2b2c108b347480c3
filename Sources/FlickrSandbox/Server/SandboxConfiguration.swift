import FlickrProtocol

/// How a sandbox server is started; each field mirrors a `flickr-sandbox` option.
public struct SandboxConfiguration: Sendable {
    /// Interface to bind; loopback by default (the sandbox is never meant to be reachable).
    public var host: String = "127.0.0.1"
    /// TCP port; 0 picks an ephemeral port (read it back from ``FlickrSandboxServer/url``).
    public var port: Int = 0
    /// `--data SEED.json`: a seed world in the format of `SEED-FORMAT.md`; nil = the demo world.
    public var dataFile: String? = nil
    /// `--photos N [--seed S] [--sets K] [--videos V]`: a generated world (``GeneratedWorld``)
    /// instead of the seed file or the demo world.
    public var world: GeneratedWorld? = nil
    /// `--state DIR`: where the state is persisted (atomically) and uploaded originals kept.
    public var stateDirectory: String? = nil
    /// `--faults`: injected failure probabilities. They apply to `/services/rest/`,
    /// `/services/upload/` and `/services/replace/` only — never to the OAuth endpoints, the
    /// login page or `/static/` images, so a client can always authenticate.
    public var faults: FaultSpec = .none
    /// `--image-faults`: the same kinds of failure for `/static/` image downloads (Flickr's image
    /// host fails on its own: 429 with `Retry-After`, 5xx, resets, bodies cut short).
    public var imageFaults: FaultSpec = .none
    /// `--rate-limit N`: calls per second (a sliding one-second window, counted over the same
    /// paths as faults) before answering 429 with `Retry-After: 1`.
    public var rateLimit: Int? = nil
    /// `--budget N/SECONDS`: a per-API-key call budget over a sliding window (nil = none).
    public var budget: CallBudget? = nil
    /// `--latency MS`: delay added to every answer.
    public var latencyMilliseconds: Int = 0
    /// `--log FILE`: one JSON line per request appended to this file (see ``FlickrSandboxServer``).
    public var logFile: String? = nil
    /// `--close-idle MS`: a keep-alive connection left idle this long after an answer is closed by
    /// the server, without a `Connection: close` beforehand — as busy servers and proxies do (a new
    /// connection's first request is waited for as usual). A few milliseconds make clients meet
    /// connections closed between their requests (nil = kept open).
    public var closeIdleMilliseconds: Int? = nil
    /// `--clock-skew SECONDS`: how far a request's `oauth_timestamp` may be from the server's
    /// clock before it is refused (`timestamp_refused`); a nonce is remembered until its
    /// timestamp would be refused, so this also bounds the nonce memory (about 30 bytes a request
    /// for this long). Flickr's own tolerance is not documented; ``defaultClockSkew`` is the usual
    /// five minutes of OAuth servers.
    public var clockSkewSeconds: Int = Self.defaultClockSkew

    /// Five minutes, the tolerance OAuth servers commonly give (and the sandbox's default).
    public static let defaultClockSkew = 300

    /// Memberwise, with the defaults above.
    public init(host: String = "127.0.0.1", port: Int = 0, dataFile: String? = nil, stateDirectory: String? = nil,
                faults: FaultSpec = .none, imageFaults: FaultSpec = .none, rateLimit: Int? = nil,
                latencyMilliseconds: Int = 0) {
        self.host = host
        self.port = port
        self.dataFile = dataFile
        self.stateDirectory = stateDirectory
        self.faults = faults
        self.imageFaults = imageFaults
        self.rateLimit = rateLimit
        self.latencyMilliseconds = latencyMilliseconds
    }
}

/// The built-in application and the default user's write token: enough for a client to work
/// without an OAuth dance.
public struct SandboxCredentials: Sendable, Hashable {
    /// The built-in app's API key.
    public var apiKey: String
    /// The built-in app's shared secret.
    public var apiSecret: String
    /// The default user's access token (write permission).
    public var oauthToken: String
    /// The access token's secret.
    public var oauthTokenSecret: String
    /// The default user's NSID.
    public var userNSID: String
    /// The default user's screen name.
    public var username: String

    /// Credentials with these values.
    public init(apiKey: String, apiSecret: String, oauthToken: String, oauthTokenSecret: String,
                userNSID: String, username: String) {
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.oauthToken = oauthToken
        self.oauthTokenSecret = oauthTokenSecret
        self.userNSID = userNSID
        self.username = username
    }
}

/// Why the sandbox could not start or do what was asked.
public struct SandboxError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for a person.
    public var message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The form `description` shows: the message.
    public var description: String { message }
}
