import AsyncHTTPClient
import FlickrProtocol
import Foundation
import Logging
import NIOHTTP1
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
    /// Another transport than HTTP (recording, replay, a test double), or nil.
    let customTransport: (any FlickrTransport)?
    let limiter: RateLimiter
    /// Where request/response traces go (level `.trace`; secrets are redacted before logging).
    public let logger: Logger

    /// Creates a client. `httpClient` defaults to one process-wide AsyncHTTPClient (keep-alive
    /// pool shared by every FlickrClient; it makes tracing spans only if a tracer was bootstrapped
    /// with `InstrumentationSystem` before the first request — pass your own client to choose).
    /// `transport`, when given, carries every request
    /// instead (``FlickrTransport``: a cassette's replay, a recorder, an in-process sandbox).
    public init(context: FlickrContext, httpClient: HTTPClient? = nil, transport: (any FlickrTransport)? = nil,
                logger: Logger = Logger(label: "flickr")) {
        state = Mutex(context)
        self.transport = HTTPTransport(client: httpClient)
        customTransport = transport
        limiter = RateLimiter(policy: context.ratePolicy)
        self.logger = logger
    }

    private let sent = Atomic<Int>(0)

    /// The requests this client has sent so far — every call, upload and replacement, each
    /// attempt of a retry counted — as a server's access log would count them. What a batch job
    /// says it spent is the difference of two readings around its work.
    public var requestsSent: Int { sent.load(ordering: .relaxed) }

    /// Sends one prepared request through the custom transport when there is one, else over HTTP.
    func send(_ spec: HTTPRequestSpec, method: String) async throws(FlickrError) -> HTTPResult {
        sent.add(1, ordering: .relaxed)
        guard let customTransport else { return try await transport.send(spec, method: method) }
        let ctx = context
        let secrets = [ctx.apiKey, ctx.sharedSecret, ctx.oauthToken ?? "", ctx.oauthTokenSecret ?? "", ctx.authToken ?? ""]
        let response = try await customTransport.send(FlickrTransportRequest(spec: spec, service: method, secrets: secrets))
        var headers = HTTPHeaders()
        for (name, value) in response.headers { headers.add(name: name, value: value) }
        return HTTPResult(status: response.status, headers: headers, body: response.body)
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
    package var pacer: (any CallPacer)? {
        get { pacerBox.withLock { $0 } }
        set { pacerBox.withLock { $0 = newValue } }
    }

    /// Sets the rate policy; the limiter uses it for every later call (as ``updateContext(_:)``).
    public func setRatePolicy(_ policy: RatePolicy) async {
        updateContext { $0.ratePolicy = policy }
    }
}
