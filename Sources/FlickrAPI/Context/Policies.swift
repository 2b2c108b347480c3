import FlickrProtocol

/// When and how calls are retried (ARCHITECTURE.md: reads on 5xx, 429, codes 105/201/0 and
/// transport resets; writes only when idempotent by nature or opted in, or when the request never
/// went out: written to a connection the server had already closed — ``FlickrError/requestNotSent``).
public struct RetryPolicy: Sendable, Hashable {
    /// Total attempts including the first; 1 disables retries.
    public var maxAttempts: Int
    /// First backoff delay in seconds; doubles each attempt, with full jitter.
    public var baseDelay: Double
    /// Upper bound of one delay (a Retry-After beyond it is still honoured up to `maxRetryAfter`).
    public var maxDelay: Double
    /// Longest Retry-After the client waits for; longer answers fail at once with the rate-limit error.
    public var maxRetryAfter: Double
    /// Write methods retried although not idempotent (opt-in, by method name).
    public var retryWrites: Bool
    /// Write methods that are idempotent by nature: repeating them leaves the same state.
    public var idempotentWrites: Set<String>

    /// A policy; delays are in seconds, and `maxAttempts` below 1 counts as 1.
    public init(maxAttempts: Int = 4, baseDelay: Double = 0.5, maxDelay: Double = 30,
                maxRetryAfter: Double = 120, retryWrites: Bool = false,
                idempotentWrites: Set<String> = RetryPolicy.naturallyIdempotent) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.retryWrites = retryWrites
        self.idempotentWrites = idempotentWrites
    }

    /// Four attempts, backoff from 0.5 s up to 30 s, a Retry-After of up to 120 s honoured, no
    /// opted-in writes.
    public static let `default` = RetryPolicy()
    /// One attempt: no retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// setTags/setMeta replace state; addTags of the same tags adds nothing the second time.
    public static let naturallyIdempotent: Set<String> = [
        "flickr.photos.setTags", "flickr.photos.setMeta", "flickr.photos.addTags",
        "flickr.photos.setPerms", "flickr.photos.setDates", "flickr.photos.setSafetyLevel",
        "flickr.photos.setContentType", "flickr.photos.licenses.setLicense", "flickr.photosets.editMeta",
        "flickr.photosets.editPhotos", "flickr.photosets.orderSets", "flickr.photos.geo.setLocation",
    ]

    /// Backoff before attempt `attempt + 1` (attempt counts from 1): full jitter in
    /// `[0, min(maxDelay, base·2^(attempt-1))]`, at least a tenth of the cap.
    public func backoff(afterAttempt attempt: Int) -> Double {
        let cap = min(maxDelay, baseDelay * Double(1 << min(attempt - 1, 20)))
        return Double.random(in: (cap * 0.1)...max(cap * 0.1, cap))
    }
}

/// Client-side rate limit: a token bucket shared by every call of one client.
public struct RatePolicy: Sendable, Hashable {
    /// Sustained calls per second; nil means unlimited.
    public var callsPerSecond: Double?
    /// Calls that may go at once after a quiet period.
    public var burst: Int

    /// A limit of `callsPerSecond` (nil: none) with bursts of `burst` calls (at least 1).
    public init(callsPerSecond: Double?, burst: Int = 5) {
        self.callsPerSecond = callsPerSecond
        self.burst = max(1, burst)
    }

    /// Flickr's guidance is 3,600 calls an hour per key: 1 call/s with a small burst.
    public static let `default` = RatePolicy(callsPerSecond: 1, burst: 5)
    /// No limit.
    public static let unlimited = RatePolicy(callsPerSecond: nil)

    /// ``default`` for Flickr, ``unlimited`` for an endpoint on loopback (the sandbox).
    public static func `default`(for endpoints: Endpoints) -> RatePolicy {
        Loopback.isLoopback(url: endpoints.rest) ? .unlimited : .default
    }
}
