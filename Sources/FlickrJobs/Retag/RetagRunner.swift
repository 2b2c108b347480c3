import FlickrAPI
import FlickrProtocol
import Foundation

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

/// Applies a planned job (or resumes one) through a write-ahead journal:
/// - one runner per job: the run holds the job's ``RunnerLock`` (a second process is refused
///   and told who holds it);
/// - a photo's intent (`writing`, with the write) is durable before the write is sent, its
///   outcome after the answer;
/// - before the first write, `photos.recentlyUpdated` since the plan finds photos changed
///   elsewhere (`lastupdate` differs from the pre-image): conflicts, skipped, never overwritten;
/// - an ambiguous outcome (timeout, reset, 5xx, a lost answer) and every photo a previous run
///   left `writing` or `failed` is settled by reading the photo, never by replaying blindly;
/// - a call that could not connect sent nothing: it is sent again while the outage is shorter
///   than ``maxOutage`` (``OutageWatch``), then the run stops, resumable, no photo failed;
/// - a photo that still fails is recorded and the job goes on.
public struct RetagRunner: Sendable {
    public let client: FlickrClient
    public let store: JobStore
    /// Attempts per photo (each after a settling read).
    public var attempts = 3
    /// Seconds per call when calls are paced by a budget: the ETA is then the calls left times
    /// this; otherwise the rate observed so far.
    public var secondsPerCall: Double?
    /// Seconds the endpoint may stay unreachable before the run stops (`--max-outage`).
    public var maxOutage: Double = 30
    /// What holds the job's lock, as a second process will be told (`flickr retag apply`).
    public var command = "flickr"
    /// The local mirror, told what each photo now holds (FlickrLibrary's), if there is one.
    public var mirror: (any RetagSource)?

    public init(client: FlickrClient, store: JobStore) {
        self.client = client
        self.store = store
    }

    /// The end of a run.
    public struct Outcome: Sendable {
        public var job: JobSummary
        /// Stopped before the end (on request, or by an outage); the job can be resumed.
        public var stopped: Bool
        /// Why the endpoint outage stopped the run, when it did.
        public var outage: String?
    }

    /// Applies or resumes `job`, holding `lock` (taken here when nil; ``RunnerLock/Busy`` when
    /// another process runs the job). `shouldStop` is asked between photos and while waiting
    /// out an outage (Ctrl-C); `notice` gets a line whenever the run waits for the endpoint.
    public func run(_ job: String, lock: RunnerLock? = nil, progress: @Sendable (JobProgress) -> Void = { _ in },
                    notice: @Sendable @escaping (String) -> Void = { _ in },
                    shouldStop: @Sendable @escaping () -> Bool = { false }) async throws -> Outcome {
        let held = try lock ?? store.lock(job, command: command)
        precondition(held.name == job, "the lock held is not the job's")
        defer { withExtendedLifetime(held) {} }
        do {
            let now = try store.job(job)
            guard try !store.isEdit(job) else { throw JobError("job \(job) is an edit job, not a retag: use flickr edit") }
            // Holding the lock, "running" is a run that ended without saying so (kill -9).
            guard ["planned", "interrupted", "running", "failed"].contains(now.state) else {
                throw JobError("job \(job) is \(now.state); there is nothing to run")
            }
            let link = RunLink(client: client, maxOutage: maxOutage, notice: notice, shouldStop: shouldStop)
            var outcome: Outcome
            do {
                outcome = try await run(job, link: link, progress: progress)
            } catch let outage as JobOutage {
                try store.setState("running", job: job, runner: nil)
                outcome = Outcome(job: try store.job(job), stopped: true, outage: outage.reason)
            } catch is RunLink.Stopped {
                try store.setState("running", job: job, runner: nil)
                outcome = Outcome(job: try store.job(job), stopped: true)
            }
            // Still holding the lock, the store sees the job running; it is interrupted once we let go.
            if outcome.stopped { outcome.job.state = "interrupted" }
            return outcome
        }
    }

    private func run(_ job: String, link: RunLink, progress: @Sendable (JobProgress) -> Void) async throws -> Outcome {
        let header = try store.header(job)
        let start = Date()
        try store.setState("running", job: job, runner: getpid())
        var calls = 0
        let photos = try store.photos(of: job)
        var counts = (done: photos.filter { $0.status == .done }.count, failed: 0, conflicts: photos.filter { $0.status == .conflict }.count)
        let pending = photos.filter { $0.status == .planned || $0.status == .writing || ($0.status == .failed && $0.intent != nil) }
        counts.failed = photos.filter { $0.status == .failed && $0.intent == nil }.count
        var changedElsewhere = ChangeWatch(planTime: header.planTime)
        try await changedElsewhere.look(using: self, link: link, calls: &calls)
        try store.count(calls: calls, job: job)
        // Calls still planned after each photo (for the ETA): its write, and a read where the
        // photo must be looked at first.
        var callsAfter = [Int](repeating: 0, count: pending.count + 1)
        for i in pending.indices.reversed() {
            var estimate = 0
            if case .write(let w) = PhotoStep.next(pending[i].change, current: nil) { estimate = w.calls }
            let stamp = changedElsewhere[pending[i].change.pre.photoID]
            let reads = pending[i].status != .planned || (stamp.map { $0 >= header.planTime } ?? false) ? 1 : 0
            callsAfter[i] = callsAfter[i + 1] + estimate + reads
        }
        var stopped = false
        for (n, photo) in pending.enumerated() {
            if link.shouldStop() {
                stopped = true
                break
            }
            if n > 0, n % ChangeWatch.interval == 0 {
                var reads = 0
                try await changedElsewhere.look(using: self, link: link, calls: &reads)
                calls += reads
                try store.count(calls: reads, job: job)
            }
            let id = photo.change.pre.photoID
            var current: PhotoTags?
            var made = 0
            if photo.status == .planned, let stamp = changedElsewhere[id], stamp != photo.change.pre.lastUpdate {
                try store.record(job: job, photo: id, .conflict, detail: "changed since the plan (lastupdate \(photo.change.pre.lastUpdate) → \(stamp))")
                counts.conflicts += 1
                progress(report(job, photos.count, counts, calls, start, processed: n + 1, callsLeft: callsAfter[n + 1], id, "conflict"))
                continue
            }
            do {
                if photo.status != .planned {
                    // A previous run may or may not have written it: read, never replay blindly.
                    current = try await read(id, link: link, calls: &made)
                } else if let stamp = changedElsewhere[id], stamp >= header.planTime {
                    // Changed in the very second the plan read it: lastupdate (whole seconds) cannot
                    // tell, the tags can.
                    current = try await read(id, link: link, calls: &made)
                    if let now = current, Set(now.tags) != Set(photo.change.pre.tags) {
                        calls += made
                        try store.record(job: job, photo: id, .conflict, detail: "its tags changed since the plan", calls: made)
                        counts.conflicts += 1
                        progress(report(job, photos.count, counts, calls, start, processed: n + 1, callsLeft: callsAfter[n + 1], id, "conflict"))
                        continue
                    }
                }
                let (status, detail) = try await settle(job: job, change: photo.change, current: current, link: link, calls: &made)
                calls += made
                // A runtime failure keeps a mark so that resume settles it again (by reading first).
                try store.record(job: job, photo: id, status, intent: status == .failed ? "settle" : nil, detail: detail, calls: made)
                switch status {
                case .done:
                    counts.done += 1
                    // The mirror is a cache: failing to update it must not fail the job (the
                    // next sync reads the photo again, its lastupdate having moved).
                    try? mirror?.wrote(photo: id, tags: photo.change.target)
                case .conflict: counts.conflicts += 1
                default: counts.failed += 1
                }
                progress(report(job, photos.count, counts, calls, start, processed: n + 1, callsLeft: callsAfter[n + 1], id, status.rawValue))
            } catch {
                // An outage or a stop: the photo keeps its journal entry (planned, or writing
                // with the write under way) for resume to settle; the calls it made are counted.
                try store.count(calls: made, job: job)
                throw error
            }
        }
        if stopped {
            try store.setState("running", job: job, runner: nil)
        } else {
            let complete = counts.done == photos.count
            try store.setState(complete ? "done" : "failed", job: job)
            if complete, header.kind == "undo", let parent = header.parent { try store.setState("undone", job: parent) }
        }
        return Outcome(job: try store.job(job), stopped: stopped)
    }

    /// Drives one photo to its target: journal the intent, write, and settle anything unclear
    /// by reading. A round that moved the photo closer (something we sent took effect) does not
    /// count against ``attempts``; `attempts` rounds in a row without progress fail the photo.
    /// Returns the final status to record.
    func settle(job: String, change: PhotoChange, current: PhotoTags?, link: RunLink, calls: inout Int) async throws -> (PhotoStatus, String?) {
        let id = change.pre.photoID
        var current = current
        var stalls = 0
        var rounds = 0
        while stalls < attempts, rounds < 10 * attempts {
            rounds += 1
            switch PhotoStep.next(change, current: current) {
            case .done: return (.done, nil)
            case .conflict(let why): return (.conflict, why)
            case .write(let write):
                try store.record(job: job, photo: id, .writing, intent: Self.describe(write))
                do {
                    try await perform(write, on: id, link: link, calls: &calls)
                    return (.done, nil)
                } catch let error as FlickrError where Self.isDefinite(error, write) {
                    return (.failed, "\(error)")
                } catch is FlickrError {
                    // The write may or may not have happened: look.
                    let before = Self.ownRaws(current ?? change.pre)
                    switch try await look(id, link: link, calls: &calls) {
                    case .success(let now): current = now
                    case .failure(let readError):
                        return (.failed, "could not read the photo to settle an unclear write: \(readError)")
                    }
                    stalls = Self.ownRaws(current) == before ? stalls + 1 : 0
                }
            }
        }
        return (.failed, "did not reach the planned tags after \(attempts) attempts without progress")
    }

    /// Sends a write's calls.
    func perform(_ write: TagWrite, on photo: String, link: RunLink, calls: inout Int) async throws {
        switch write {
        case .setTags(let tags):
            _ = try await link.call("flickr.photos.setTags", ["photo_id": photo, "tags": TagString.join(tags)], calls: &calls)
            CrashPoint.afterWrite()
        case .removeThenAdd(let remove, let add):
            for tag in remove {
                _ = try await link.call("flickr.photos.removeTag", ["tag_id": tag.id], calls: &calls)
                CrashPoint.afterWrite()
            }
            if !add.isEmpty {
                _ = try await link.call("flickr.photos.addTags", ["photo_id": photo, "tags": TagString.join(add)], calls: &calls)
                CrashPoint.afterWrite()
            }
        }
    }

    /// Whether an error proves the write did not happen (Flickr refused it, or the request
    /// was never sent). A removeTag "not found" is not proof: an earlier attempt may have
    /// removed it.
    static func isDefinite(_ error: FlickrError, _ write: TagWrite) -> Bool {
        switch error.kind {
        case .usage, .oauth: return true
        case .api:
            if case .removeThenAdd = write { return false }
            return error.code != 105 && error.code != 106
        default: return false
        }
    }

    /// ``read(_:link:calls:)`` with Flickr's and the network's errors as a result (an outage
    /// or a stop still ends the run).
    func look(_ photo: String, link: RunLink, calls: inout Int) async throws -> Result<PhotoTags?, FlickrError> {
        do { return .success(try await read(photo, link: link, calls: &calls)) } catch let error as FlickrError { return .failure(error) }
    }

    static func ownRaws(_ tags: PhotoTags?) -> Set<String> { Set(tags?.ownerTags.map(\.raw) ?? []) }

    /// Reads a photo's tags; a transient failure (after the client's own retries) is tried
    /// again twice, since settling an unclear write depends on it.
    func read(_ photo: String, link: RunLink, calls: inout Int) async throws -> PhotoTags? {
        var tries = 0
        while true {
            tries += 1
            let answer: FlickrNode
            do {
                answer = try await link.call("flickr.photos.getInfo", ["photo_id": photo], calls: &calls)
            } catch let error as FlickrError {
                if error.isTransient, tries < 3 { continue }
                throw error
            }
            return PhotoTags(getInfo: answer)
        }
    }

    /// `photo id → lastupdate` of the caller's photos changed since `since`.
    func recentlyUpdated(since: Int, link: RunLink, calls: inout Int) async throws -> [String: Int] {
        var out: [String: Int] = [:]
        var page = 1
        while true {
            let rsp = try await link.call("flickr.photos.recentlyUpdated",
                                          ["min_date": String(since), "per_page": "500", "page": String(page), "extras": "last_update"],
                                          calls: &calls)
            for p in rsp["photos"]?["photo"]?.array ?? [] {
                if let id = p["id"]?.string { out[id] = p["lastupdate"]?.int ?? 0 }
            }
            if page >= (rsp["photos"]?["pages"]?.int ?? 1) { break }
            page += 1
        }
        return out
    }

    static func describe(_ write: TagWrite) -> String {
        switch write {
        case .setTags(let tags): return "setTags " + TagString.join(tags)
        case .removeThenAdd(let r, let a): return "removeTag " + r.map(\.id).joined(separator: ",") + "; addTags " + TagString.join(a)
        }
    }

    func report(_ job: String, _ total: Int, _ c: (done: Int, failed: Int, conflicts: Int), _ calls: Int, _ start: Date,
                processed: Int, callsLeft: Int, _ photo: String?, _ outcome: String?) -> JobProgress {
        let elapsed = Date().timeIntervalSince(start)
        let perCall = secondsPerCall ?? elapsed / Double(max(1, calls))
        return JobProgress(job: job, total: total, done: c.done, failed: c.failed, conflicts: c.conflicts, calls: calls,
                           elapsed: elapsed, eta: perCall * Double(callsLeft), photo: photo, outcome: outcome)
    }
}
