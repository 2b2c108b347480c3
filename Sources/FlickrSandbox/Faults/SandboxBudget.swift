/// A per-key call budget: at most `calls` API calls by one API key in any `seconds`-long window
/// (`--budget 3600/3600` is Flickr's published limit). Past it, REST, upload and replace
/// answer HTTP 429 with `Retry-After`.
public struct SandboxBudget: Sendable, Hashable, CustomStringConvertible {
    /// Calls allowed per window.
    public var calls: Int
    /// The window's length in seconds.
    public var seconds: Double

    /// A budget of `calls` per `seconds`; both must be positive.
    public init(calls: Int, seconds: Double) throws(SandboxError) {
        guard calls >= 1 else { throw SandboxError("budget: the number of calls must be at least 1 (got \(calls))") }
        guard seconds > 0, seconds.isFinite else { throw SandboxError("budget: the window must be a positive number of seconds") }
        self.calls = calls
        self.seconds = seconds
    }

    /// Parses `N/SECONDS`, e.g. `3600/3600` or `5/0.5`.
    public static func parse(_ text: String) throws(SandboxError) -> SandboxBudget {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let calls = Int(parts[0].trimmingCharacters(in: .whitespaces)),
              let seconds = Double(parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw SandboxError("budget: expected N/SECONDS, e.g. 3600/3600 (got \"\(text)\")")
        }
        return try SandboxBudget(calls: calls, seconds: seconds)
    }

    public var description: String {
        "\(calls)/\(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds))"
    }
}
