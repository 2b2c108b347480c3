import FlickrAPI

/// Decides what a job does when its endpoint cannot be reached: wait and try the same call
/// again while the outage is shorter than `maxOutage`, then stop the job. A pure state machine
/// (times are passed in), tested apart from any I/O.
///
/// Only failures where no connection was made count (``FlickrAPI/FlickrError/unreachable``):
/// nothing was sent, so trying the call again — a write included — is safe, and the photo is
/// neither failed nor left unclear. Any answer from the server ends the outage.
public struct OutageWatch: Sendable, Hashable {
    /// Seconds of consecutive failures to connect after which the job stops.
    public var maxOutage: Double
    /// Seconds between two lines saying what the job waits for (at most 30, so that a log
    /// without a terminal shows life at least that often).
    public var noticeInterval: Double
    /// When the first failing call of the current outage was started, if one is under way.
    public private(set) var since: Double?
    private var lastNotice: Double?

    public init(maxOutage: Double, noticeInterval: Double = 10) {
        self.maxOutage = max(0, maxOutage)
        self.noticeInterval = min(30, max(1, noticeInterval))
    }

    /// What to do after a call failed to connect.
    public enum Action: Sendable, Hashable {
        /// Wait `after` seconds and send the same call again; `notice`, when set, is a line to show.
        case retry(after: Double, notice: String?)
        /// The outage lasted longer than allowed: stop the job with this reason.
        case stop(reason: String)
    }

    /// A call started at `started` failed at `now` without reaching the server (`error`).
    public mutating func failed(_ error: FlickrError, started: Double, now: Double) -> Action {
        let first = since ?? started
        since = first
        let down = now - first
        guard down < maxOutage else {
            return .stop(reason: "the endpoint was unreachable for \(Int(down.rounded())) s (--max-outage \(Self.seconds(maxOutage))): \(error.message)")
        }
        var notice: String?
        if lastNotice.map({ now - $0 >= noticeInterval }) ?? true {
            lastNotice = now
            notice = "waiting for the endpoint: \(error.message); down for \(Int(down.rounded())) s, "
                + "the job stops after \(Self.seconds(maxOutage)) s (--max-outage)"
        }
        // Short waits: an endpoint back after a blip is used at once, and the stop is on time.
        return .retry(after: min(2, max(0.1, maxOutage - down)), notice: notice)
    }

    /// A call got an answer (any answer): the outage, if any, is over.
    public mutating func answered() {
        since = nil
        lastNotice = nil
    }

    static func seconds(_ s: Double) -> String { s == s.rounded() ? String(Int(s)) : String(s) }
}

/// A job stopped because its endpoint stayed unreachable longer than `--max-outage`: the journal
/// is consistent and the job can be resumed.
public struct JobOutage: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
