/// The end of a job's run (an apply, a resume or an undo).
public struct JobOutcome: Sendable {
    public var job: JobSummary
    /// Stopped before the end (on request, or by an outage); the job can be resumed.
    public var stopped: Bool
    /// Why the endpoint outage stopped the run, when it did.
    public var outage: String?
}
