import Foundation

/// A per-key call budget: at most `calls` API calls by one API key in any `seconds`-long window
/// (Flickr publishes 3,600 calls an hour). One type for both sides of the wire: the client paces
/// itself by it (FlickrJobs' `SharedBudget`, `--budget`, `FLICKR_BUDGET`,
/// `flickr.configure{ budget = … }`) and the sandbox enforces it (`flickr-sandbox --budget`:
/// past it, REST, upload and replace answer HTTP 429 with `Retry-After`).
public struct CallBudget: Sendable, Hashable, CustomStringConvertible {
    /// Calls allowed per window.
    public var calls: Int
    /// The window's length in seconds.
    public var seconds: Double

    /// A budget of `calls` per `seconds`; both must be positive.
    public init(calls: Int, seconds: Double) throws(CallBudgetError) {
        guard calls >= 1, seconds > 0, seconds.isFinite else {
            throw CallBudgetError("budget: expected N/SECONDS with N ≥ 1 and SECONDS > 0, e.g. 3600/3600")
        }
        self.calls = calls
        self.seconds = seconds
    }

    /// Parses `N/SECONDS`, e.g. `3600/3600` or `5/0.5`.
    public static func parse(_ text: String) throws(CallBudgetError) -> CallBudget {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = Int(parts[0].trimmingCharacters(in: .whitespaces)),
              let s = Double(parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw CallBudgetError("budget: expected N/SECONDS, e.g. 3600/3600 (got \"\(text)\")")
        }
        return try CallBudget(calls: n, seconds: s)
    }

    /// A little under Flickr's published 3,600 calls an hour, for a real endpoint.
    public static let flickrDefault = try! CallBudget(calls: 3_500, seconds: 3_600)

    /// Seconds between two calls when paced evenly.
    public var interval: Double { seconds / Double(calls) }

    /// The `N/SECONDS` form `parse` reads.
    public var description: String {
        "\(calls)/\(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds))"
    }
}
