/// How a job is run, whatever its kind: the ETA's pace, how long an outage may last, who holds
/// the lock, and the library to tell what was written. Set by the front ends on ``JobRunner``,
/// handed to its kind's runner as they are.
public struct RunSettings: Sendable {
    /// Seconds per call when calls are paced by a budget: the ETA is then the calls left times
    /// this; otherwise the rate observed so far.
    public var secondsPerCall: Double?
    /// Seconds the endpoint may stay unreachable before the run stops (`--max-outage`).
    public var maxOutage: Double = 30
    /// What holds the job's lock when the run takes it, as a second process will be told
    /// (`flickr edit`).
    public var command = "flickr"
    /// The library on disk, told what each photo now holds, if there is one.
    public var source: (any JobSource)?
    /// The transfer in flight, for a terminal: a file's path and its bytes sent of its size (a
    /// push's uploads).
    public var fileProgress: (@Sendable (_ file: String, _ sent: Int64, _ total: Int64?) -> Void)?

    public init() {}
}
