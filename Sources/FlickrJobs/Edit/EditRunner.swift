import FlickrAPI
import FlickrProtocol
import Foundation

/// Applies a planned edit job (or resumes one, or runs an undo of one) through the job
/// database's write-ahead journal, as ``RetagRunner`` does for tags:
/// - one runner per job (``RunnerLock``);
/// - each group's write is journaled (`writing`, with the group and its calls) before it is sent
///   and the photo's outcome recorded after the answer;
/// - `photos.recentlyUpdated` since the plan finds photos changed elsewhere: those are read, and
///   a group changed since the plan is a conflict (never overwritten) while the other groups are
///   still written (``EditStep``);
/// - an unclear outcome, and every photo a previous run left `writing` or failed, is settled by
///   reading the photo, never by replaying blindly;
/// - an outage longer than ``maxOutage`` stops the run, resumable, no photo failed.
public struct EditRunner: Sendable {
    public let client: FlickrClient
    public let store: JobStore
    /// Rounds without progress before a photo fails.
    public var attempts = 3
    /// Seconds per call when paced by a budget (the ETA); else the rate observed.
    public var secondsPerCall: Double?
    /// Seconds the endpoint may stay unreachable before the run stops (`--max-outage`).
    public var maxOutage: Double = 30
    /// What holds the job's lock, as a second process is told (`flickr edit apply`).
    public var command = "flickr"
    /// The library on disk, told what each photo now holds, if there is one.
    public var source: (any EditSource)?

    public init(client: FlickrClient, store: JobStore) {
        self.client = client
        self.store = store
    }

    /// Applies or resumes `job`, holding `lock` (taken here when nil). `shouldStop` is asked
    /// between photos and while waiting out an outage; `notice` gets a line while it waits.
    public func run(_ job: String, lock: RunnerLock? = nil, progress: @Sendable (JobProgress) -> Void = { _ in },
                    notice: @Sendable @escaping (String) -> Void = { _ in },
                    shouldStop: @Sendable @escaping () -> Bool = { false }) async throws -> RetagRunner.Outcome {
        let held = try lock ?? store.lock(job, command: command)
        precondition(held.name == job, "the lock held is not the job's")
        defer { withExtendedLifetime(held) {} }
        let now = try store.job(job)
        guard ["planned", "interrupted", "running", "failed"].contains(now.state) else {
            throw JobError("job \(job) is \(now.state); there is nothing to run")
        }
        guard try store.isEdit(job) else { throw JobError("job \(job) is a \(now.kind) job, not an edit: use flickr retag") }
        let link = RunLink(client: client, maxOutage: maxOutage, notice: notice, shouldStop: shouldStop)
        var outcome: RetagRunner.Outcome
        do {
            outcome = try await run(job, link: link, progress: progress)
        } catch let outage as JobOutage {
            try store.setState("running", job: job, runner: nil)
            outcome = RetagRunner.Outcome(job: try store.job(job), stopped: true, outage: outage.reason)
        } catch is RunLink.Stopped {
            try store.setState("running", job: job, runner: nil)
            outcome = RetagRunner.Outcome(job: try store.job(job), stopped: true)
        }
        if outcome.stopped { outcome.job.state = "interrupted" }
        return outcome
    }

    private func run(_ job: String, link: RunLink, progress: @Sendable (JobProgress) -> Void) async throws -> RetagRunner.Outcome {
        let header = try store.header(job)
        let start = Date()
        try store.setState("running", job: job, runner: getpid())
        var calls = 0
        let photos = try store.editPhotos(of: job)
        var counts = (done: photos.filter { $0.status == .done }.count,
                      failed: photos.filter { $0.status == .failed && $0.intent == nil }.count,
                      conflicts: photos.filter { $0.status == .conflict }.count)
        let pending = photos.filter { $0.status == .planned || $0.status == .writing || ($0.status == .failed && $0.intent != nil) }
        let tags = RetagRunner(client: client, store: store)
        var changedElsewhere = ChangeWatch(planTime: header.planTime)
        try await changedElsewhere.look(using: tags, link: link, calls: &calls)
        try store.count(calls: calls, job: job)
        var callsLeft = pending.reduce(0) { $0 + $1.change.calls }
        var stopped = false
        for (n, photo) in pending.enumerated() {
            if link.shouldStop() {
                stopped = true
                break
            }
            if n > 0, n % ChangeWatch.interval == 0 {
                var reads = 0
                try await changedElsewhere.look(using: tags, link: link, calls: &reads)
                calls += reads
                try store.count(calls: reads, job: job)
            }
            let id = photo.change.pre.photoID
            callsLeft -= photo.change.calls
            var made = 0
            do {
                var current: PhotoMetadata?
                let stamp = changedElsewhere[id]
                if photo.status != .planned || stamp.map({ $0 != photo.change.pre.lastUpdate || $0 >= header.planTime }) == true {
                    // Written before (perhaps), or changed since the plan: look at what it holds now.
                    current = try await read(id, sets: photo.change.fields.contains(.sets), link: link, calls: &made)
                    if current == nil {
                        calls += made
                        try store.record(job: job, photo: id, .failed, detail: "the photo is gone (deleted since the plan)", calls: made)
                        counts.failed += 1
                        progress(report(job, photos.count, counts, calls, start, callsLeft: callsLeft, id, "failed"))
                        continue
                    }
                }
                let (status, detail, final) = try await settle(job: job, photo: photo, current: current, planTime: header.planTime,
                                                               link: link, calls: &made)
                calls += made
                try store.record(job: job, photo: id, status, intent: status == .failed ? "settle" : nil, detail: detail, calls: made)
                switch status {
                case .done, .conflict:
                    if status == .done { counts.done += 1 } else { counts.conflicts += 1 }
                    // The library is a cache: failing to update it must not fail the job.
                    if let final { try? source?.wrote(final) }
                default: counts.failed += 1
                }
                progress(report(job, photos.count, counts, calls, start, callsLeft: callsLeft, id, status.rawValue))
            } catch {
                try store.count(calls: made, job: job)
                throw error
            }
        }
        if stopped {
            try store.setState("running", job: job, runner: nil)
        } else {
            // As retag: done only when every photo is; a conflict or a failure leaves it failed
            // (undo still takes back what was written).
            let complete = counts.done == photos.count
            try store.setState(complete ? "done" : "failed", job: job)
            if complete, header.kind == "undo", let parent = header.parent { try store.setState("undone", job: parent) }
        }
        return RetagRunner.Outcome(job: try store.job(job), stopped: stopped)
    }

    /// Drives one photo to its targets, group by group: journal the write, send it, and settle
    /// anything unclear by reading. Returns the status, its detail and the photo as it now is.
    func settle(job: String, photo: EditJobPhoto, current: PhotoMetadata?, planTime: Int, link: RunLink,
                calls: inout Int) async throws -> (PhotoStatus, String?, PhotoMetadata?) {
        let id = photo.change.pre.photoID
        var created = try store.createdSets(job)
        var change = EditPlanner.resolving(photo.change, created: created)
        var current = current
        var stalls = 0, rounds = 0
        while stalls < attempts, rounds < 10 * attempts + change.calls {
            rounds += 1
            switch EditStep.next(change, current: current) {
            case .done(let conflicts):
                let final = current ?? change.pre
                return conflicts.isEmpty ? (.done, nil, final) : (.conflict, conflicts.map(\.description).joined(separator: "; "), final)
            case .write(let write):
                try store.record(job: job, photo: id, .writing, intent: Self.describe(write))
                var model = current ?? change.pre
                do {
                    for call in write.calls {
                        if call.method == "flickr.photosets.addPhoto", let set = call.arguments["photoset_id"], set.hasPrefix("new:") {
                            let title = String(set.dropFirst(4))
                            let made = try await createSet(title, photo: id, job: job, planTime: planTime, adopt: photo.status != .planned,
                                                           link: link, calls: &calls)
                            created[title] = made
                            change = EditPlanner.resolving(photo.change, created: created)
                            model.sets = (model.sets ?? []) + [made]
                            continue
                        }
                        var arguments = call.arguments
                        arguments["photo_id"] = id
                        _ = try await link.call(call.method, arguments, calls: &calls)
                        CrashPoint.afterWrite()
                        if let set = call.arguments["photoset_id"] {
                            if call.method.hasSuffix("removePhoto") { model.sets?.removeAll { $0 == set } } else { model.sets = (model.sets ?? []) + [set] }
                        }
                    }
                    current = write.field == .sets ? model : model.with(write.to)
                    stalls = 0
                } catch let error as FlickrError where Self.isDefinite(error, write) {
                    return (.failed, "\(write.field.rawValue): \(error)", nil)
                } catch is FlickrError {
                    // It may or may not have happened: look.
                    let before = current ?? change.pre
                    guard let now = try await read(id, sets: change.fields.contains(.sets), link: link, calls: &calls) else {
                        return (.failed, "the photo is gone (deleted since the plan)", nil)
                    }
                    current = now
                    stalls = now.value(write.field) == before.value(write.field) ? stalls + 1 : 0
                }
            }
        }
        return (.failed, "did not reach the planned values after \(attempts) attempts without progress", nil)
    }

    /// Creates the set `title` with the photo as its primary (which makes it a member), once:
    /// a resumed run first adopts a set of that title the job made before it was cut off.
    func createSet(_ title: String, photo: String, job: String, planTime: Int, adopt: Bool, link: RunLink,
                   calls: inout Int) async throws -> String {
        if adopt {
            let rsp = try await link.call("flickr.photosets.getList", ["per_page": "500"], calls: &calls)
            if let made = (rsp["photosets"]?["photoset"]?.array ?? []).first(where: {
                $0["title"]?.text == title && ($0["date_create"]?.int ?? 0) >= planTime
            }), let setID = made["id"]?.string {
                try store.recordCreatedSet(job, title: title, id: setID)
                return setID
            }
        }
        let rsp = try await link.call("flickr.photosets.create", ["title": title, "primary_photo_id": photo], calls: &calls)
        CrashPoint.afterWrite()
        guard let setID = rsp["photoset"]?["id"]?.string else { throw JobError("photosets.create answered without the set's id") }
        try store.recordCreatedSet(job, title: title, id: setID)
        return setID
    }

    /// Whether an error proves the write did not happen: Flickr refused it (not a set's
    /// "already in"/"not in", which an earlier attempt may have caused), or it was never sent.
    static func isDefinite(_ error: FlickrError, _ write: EditWrite) -> Bool {
        switch error.kind {
        case .usage, .oauth: return true
        case .api:
            // A set's 1 (no such set), 2 (no such photo) and 10 (the set is full) are refusals;
            // its 3 (already in / not in the set) may be an earlier attempt's doing.
            if write.field == .sets { return [1, 2, 10].contains(error.code ?? 0) }
            return error.code != 105 && error.code != 106
        default: return false
        }
    }

    /// The photo now (`getInfo`, and `getAllContexts` for its sets); nil when it is gone. A
    /// transient failure is tried again twice, since settling depends on it.
    func read(_ id: String, sets: Bool, link: RunLink, calls: inout Int) async throws -> PhotoMetadata? {
        var tries = 0
        while true {
            tries += 1
            do {
                let info = try await link.call("flickr.photos.getInfo", ["photo_id": id], calls: &calls)
                var setIDs: [String]?
                if sets {
                    let contexts = try await link.call("flickr.photos.getAllContexts", ["photo_id": id], calls: &calls)
                    setIDs = (contexts["set"]?.array ?? []).compactMap { $0["id"]?.string }
                }
                return PhotoMetadata(getInfo: info, sets: setIDs)
            } catch let error as FlickrError {
                if error.kind == .api, error.code == 1 { return nil }
                if error.isTransient, tries < 3 { continue }
                throw error
            }
        }
    }

    /// The journal's intent line: `meta: flickr.photos.setMeta`.
    static func describe(_ write: EditWrite) -> String {
        write.field.rawValue + ": " + write.calls.map { $0.method + ($0.arguments["photoset_id"].map { " " + $0 } ?? "") }.joined(separator: "; ")
    }

    func report(_ job: String, _ total: Int, _ c: (done: Int, failed: Int, conflicts: Int), _ calls: Int, _ start: Date,
                callsLeft: Int, _ photo: String?, _ outcome: String?) -> JobProgress {
        let elapsed = Date().timeIntervalSince(start)
        let perCall = secondsPerCall ?? elapsed / Double(max(1, calls))
        return JobProgress(job: job, total: total, done: c.done, failed: c.failed, conflicts: c.conflicts, calls: calls,
                           elapsed: elapsed, eta: perCall * Double(max(0, callsLeft)), photo: photo, outcome: outcome)
    }
}
