/// How an apply is going, for a progress line or NDJSON events.
public struct JobProgress: Sendable, Hashable, Codable {
    public var job: String
    public var total: Int
    public var done: Int
    public var failed: Int
    public var conflicts: Int
    /// Calls made by this run.
    public var calls: Int
    public var elapsed: Double
    /// Seconds left at the rate observed so far (nil before the first photo).
    public var eta: Double?
    /// The photo just finished and how (`done`, `conflict`, `failed`), if any.
    public var photo: String?
    public var outcome: String?
}
