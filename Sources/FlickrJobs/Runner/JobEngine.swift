import FlickrAPI
import Foundation

/// What one kind of job does with one photo: the part of the engine that differs between a
/// retag (tags, written by setTags or removeTag/addTags) and an edit (any field group). The
/// rest — the runner's lock, the job's states, the journal, the conflict watch, outages,
/// stops, progress and the ETA — is ``JobEngine``'s, the same for every kind.
protocol PhotoWork: Sendable {
    associatedtype Change: JobChange
    /// What the photo holds once settled, for the library on disk (nil: nothing to tell it).
    associatedtype Final: Sendable

    var client: FlickrClient { get }
    var store: JobStore { get }
    /// The pace, the outage allowed, the lock's holder, the library to tell.
    var settings: RunSettings { get }

    /// Throws when `job` is of another kind, saying which command runs it.
    func accept(_ job: JobSummary) throws
    /// The calls `entry` is expected to cost, for the ETA. `stamp` is its `lastupdate` if it
    /// changed since the plan.
    func estimate(_ entry: JournalEntry<Change>, stamp: Int?, planTime: Int) -> Int
    /// Drives one photo to its target (journaling each write before it is sent) and returns
    /// how it ended. Throws only what ends the run (an outage, a stop, the journal failing):
    /// the photo then keeps its entry.
    func process(_ entry: JournalEntry<Change>, job: String, stamp: Int?, planTime: Int, link: RunLink,
                 calls: inout Int) async throws -> PhotoOutcome<Final>
    /// Told after the outcome is journaled (the library on disk is a cache: it must not fail
    /// the job).
    func settled(_ entry: JournalEntry<Change>, _ status: PhotoStatus, _ final: Final?)
    /// The job's last step, once every photo was processed (not when the run stopped before
    /// the end): what is about the job as a whole rather than one photo. Must be idempotent
    /// (a resume may run it again).
    func finish(_ job: String, undoOf: String?, link: RunLink, calls: inout Int) async throws
}

extension PhotoWork {
    func finish(_ job: String, undoOf: String?, link: RunLink, calls: inout Int) async throws {}
}

/// How one photo of a run ended.
struct PhotoOutcome<Final: Sendable>: Sendable {
    var status: PhotoStatus
    var detail: String?
    /// What the photo now holds, for the library on disk.
    var final: Final?
    /// A failure that a resume should settle again by reading the photo (false for one that
    /// cannot change, such as a photo deleted since the plan).
    var settleAgain = true

    init(_ status: PhotoStatus, _ detail: String? = nil, final: Final? = nil, settleAgain: Bool = true) {
        (self.status, self.detail, self.final, self.settleAgain) = (status, detail, final, settleAgain)
    }
}

/// The one engine that applies, resumes and undoes every job, whatever its kind:
/// - one runner per job: the run holds the job's ``RunnerLock`` (a second process is refused
///   and told who holds it);
/// - a photo's intent is durable before its write is sent, its outcome after the answer;
/// - `photos.recentlyUpdated` (``ChangeWatch``) finds photos changed elsewhere since the plan:
///   the kind decides what is a conflict, never overwritten;
/// - an ambiguous outcome, and every photo a previous run left `writing` or failed, is settled
///   by reading the photo, never by replaying blindly;
/// - a call that could not connect is sent again while the outage is shorter than
///   `maxOutage` (``RunLink``), then the run stops, resumable, no photo failed;
/// - a photo that still fails is recorded and the job goes on.
struct JobEngine<Work: PhotoWork> {
    let work: Work

    /// Applies or resumes `job`, holding `lock` (taken here when nil).
    func run(_ job: String, lock: RunnerLock?, progress: @Sendable (JobProgress) -> Void,
             notice: @Sendable @escaping (String) -> Void, shouldStop: @Sendable @escaping () -> Bool) async throws -> JobOutcome {
        let store = work.store
        let held = try lock ?? store.lock(job, command: work.settings.command)
        precondition(held.name == job, "the lock held is not the job's")
        defer { withExtendedLifetime(held) {} }
        let now = try store.job(job)
        try work.accept(now)
        // Holding the lock, "running" is a run that ended without saying so (kill -9).
        guard ["planned", "interrupted", "running", "failed"].contains(now.state) else {
            throw JobError("job \(job) is \(now.state); there is nothing to run")
        }
        let link = RunLink(client: work.client, maxOutage: work.settings.maxOutage, notice: notice, shouldStop: shouldStop)
        var outcome: JobOutcome
        do {
            outcome = try await run(job, link: link, progress: progress)
        } catch let outage as JobOutage {
            try store.setState("running", job: job, runner: nil)
            outcome = JobOutcome(job: try store.job(job), stopped: true, outage: outage.reason)
        } catch is RunLink.Stopped {
            try store.setState("running", job: job, runner: nil)
            outcome = JobOutcome(job: try store.job(job), stopped: true)
        }
        // Still holding the lock, the store sees the job running; it is interrupted once we let go.
        if outcome.stopped { outcome.job.state = "interrupted" }
        return outcome
    }

    private func run(_ job: String, link: RunLink, progress: @Sendable (JobProgress) -> Void) async throws -> JobOutcome {
        let store = work.store
        let header = try store.header(job)
        var tally = Tally(job: job, start: Date(), secondsPerCall: work.settings.secondsPerCall)
        try store.setState("running", job: job, runner: getpid())
        // Photos refused at plan time are no part of the run.
        let photos = try store.entries(of: job, as: Work.Change.self).filter { $0.status != .refused }
        tally.total = photos.count
        tally.done = photos.filter { $0.status == .done }.count
        tally.failed = photos.filter { $0.status == .failed && $0.intent == nil }.count
        tally.conflicts = photos.filter { $0.status == .conflict }.count
        let pending = photos.filter(\.isPending)
        var changedElsewhere = ChangeWatch(planTime: header.planTime)
        try await changedElsewhere.look(link: link, calls: &tally.calls)
        try store.count(calls: tally.calls, job: job)
        // Calls still planned after each photo, for the ETA.
        var callsAfter = [Int](repeating: 0, count: pending.count + 1)
        for i in pending.indices.reversed() {
            let stamp = changedElsewhere[pending[i].change.photoID]
            callsAfter[i] = callsAfter[i + 1] + work.estimate(pending[i], stamp: stamp, planTime: header.planTime)
        }
        var stopped = false
        for (n, entry) in pending.enumerated() {
            if link.shouldStop() {
                stopped = true
                break
            }
            if n > 0, n % ChangeWatch.interval == 0 {
                var reads = 0
                try await changedElsewhere.look(link: link, calls: &reads)
                tally.calls += reads
                try store.count(calls: reads, job: job)
            }
            let id = entry.change.photoID
            var made = 0
            do {
                let outcome = try await work.process(entry, job: job, stamp: changedElsewhere[id],
                                                     planTime: header.planTime, link: link, calls: &made)
                tally.calls += made
                // A runtime failure keeps a mark so that resume settles it again (by reading first).
                let again = outcome.status == .failed && outcome.settleAgain
                try store.record(job: job, photo: id, outcome.status, intent: again ? "settle" : nil, detail: outcome.detail, calls: made)
                tally.count(outcome.status)
                work.settled(entry, outcome.status, outcome.final)
                progress(tally.report(callsLeft: callsAfter[n + 1], id, outcome.status.rawValue))
            } catch {
                // An outage or a stop: the photo keeps its journal entry (planned, or writing
                // with the write under way) for resume to settle; the calls it made are counted.
                try store.count(calls: made, job: job)
                throw error
            }
        }
        if !stopped {
            var made = 0
            do {
                try await work.finish(job, undoOf: header.undoOf, link: link, calls: &made)
            } catch {
                try store.count(calls: made, job: job)
                throw error
            }
            tally.calls += made
            try store.count(calls: made, job: job)
        }
        if stopped {
            try store.setState("running", job: job, runner: nil)
        } else {
            // Done only when every photo is; a conflict or a failure leaves it failed (undo
            // still takes back what was written).
            let complete = tally.done == photos.count
            try store.setState(complete ? "done" : "failed", job: job)
            if complete, let undone = header.undoOf { try store.setState("undone", job: undone) }
        }
        return JobOutcome(job: try store.job(job), stopped: stopped)
    }

    /// A run's counts, and its progress reports.
    struct Tally {
        var job: String
        var start: Date
        var secondsPerCall: Double?
        var total = 0, done = 0, failed = 0, conflicts = 0
        /// Calls made by this run.
        var calls = 0

        mutating func count(_ status: PhotoStatus) {
            switch status {
            case .done: done += 1
            case .conflict: conflicts += 1
            default: failed += 1
            }
        }

        /// The ETA is the calls left at the budget's pace, or at the rate observed so far.
        func report(callsLeft: Int, _ photo: String?, _ outcome: String?) -> JobProgress {
            let elapsed = Date().timeIntervalSince(start)
            let perCall = secondsPerCall ?? elapsed / Double(max(1, calls))
            return JobProgress(job: job, total: total, done: done, failed: failed, conflicts: conflicts, calls: calls,
                               elapsed: elapsed, eta: perCall * Double(max(0, callsLeft)), photo: photo, outcome: outcome)
        }
    }
}
