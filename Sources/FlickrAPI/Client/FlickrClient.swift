import AsyncHTTPClient
import FlickrProtocol
import Foundation
import Logging
import Synchronization

/// The Flickr client: one context, one HTTP connection pool, one rate limiter.
///
/// ```swift
/// let flickr = FlickrClient(context: FlickrContext(apiKey: key, sharedSecret: secret,
///                                                  oauthToken: token, oauthTokenSecret: tokenSecret))
/// let rsp = try await flickr.call("flickr.photos.search", ["user_id": "me", "extras": "tags"])
/// for photo in rsp["photos.photo"]?.array ?? [] { print(photo["title"]?.string ?? "") }
/// ```
/// All calls of one client share its rate limiter (token bucket) and its connection pool.
/// The context can change while the client lives (auth flows put tokens in it).
public final class FlickrClient: Sendable {
    private let state: Mutex<FlickrContext>
    private let pacerBox = Mutex<(any CallPacer)?>(nil)
    let transport: HTTPTransport
    let limiter: RateLimiter
    /// Where request/response traces go (level `.trace`; secrets are redacted before logging).
    public let logger: Logger

    /// Creates a client. `httpClient` defaults to one process-wide AsyncHTTPClient (keep-alive
    /// pool shared by every FlickrClient).
    public init(context: FlickrContext, httpClient: HTTPClient? = nil,
                logger: Logger = Logger(label: "flickr")) {
        state = Mutex(context)
        transport = HTTPTransport(client: httpClient ?? HTTPTransport.sharedClient)
        limiter = RateLimiter(policy: context.ratePolicy)
        self.logger = logger
    }

    /// The current context.
    public var context: FlickrContext { state.withLock { $0 } }

    /// Changes the context (credentials, endpoints, policies) for every later call: when it
    /// returns, the rate limiter already paces by the new rate policy (both change under the
    /// context's lock, so concurrent updates land in one order).
    public func updateContext(_ change: (inout FlickrContext) -> Void) {
        state.withLock { ctx in
            change(&ctx)
            limiter.update(ctx.ratePolicy)
        }
    }

    /// A pacer shared beyond this client (a budget per API key across processes), asked
    /// before every API call attempt in addition to the rate limiter; nil for none.
    public var pacer: (any CallPacer)? {
        get { pacerBox.withLock { $0 } }
        set { pacerBox.withLock { $0 = newValue } }
    }

    /// Sets the rate policy; the limiter uses it for every later call (as ``updateContext(_:)``).
    public func setRatePolicy(_ policy: RatePolicy) async {
        updateContext { $0.ratePolicy = policy }
    }
}
