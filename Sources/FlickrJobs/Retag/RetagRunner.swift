import FlickrAPI
import FlickrProtocol
import Foundation

/// Applies a retag job (or resumes or undoes one): the tag-only kind of the one job engine
/// (``JobEngine`` holds the lock, the journal, the conflict watch, outages and stops). What is
/// retag's own: a photo changed since the plan (its `lastupdate` moved) is a conflict without
/// a read; a photo carrying only its owner's tags is written by one `setTags`, one with other
/// members' tags by `removeTag` per leaving tag and one `addTags` (``PhotoStep``), so that no
/// one else's tag is touched; an unclear write is settled by reading the photo's tags.
public struct RetagRunner: Sendable {
    public let client: FlickrClient
    public let store: JobStore
    /// Attempts per photo (each after a settling read).
    public var attempts = 3
    /// The pace, the outage allowed, the lock's holder, the library to tell.
    public var settings = RunSettings()

    public init(client: FlickrClient, store: JobStore) {
        self.client = client
        self.store = store
    }

    /// Applies or resumes `job` with the one job engine (``JobEngine``), holding `lock` (taken
    /// here when nil; ``RunnerLock/Busy`` when another process runs the job). `shouldStop` is
    /// asked between photos and while waiting out an outage (Ctrl-C); `notice` gets a line
    /// whenever the run waits for the endpoint.
    public func run(_ job: String, lock: RunnerLock? = nil, progress: @Sendable (JobProgress) -> Void = { _ in },
                    notice: @Sendable @escaping (String) -> Void = { _ in },
                    shouldStop: @Sendable @escaping () -> Bool = { false }) async throws -> JobOutcome {
        try await JobEngine(work: self).run(job, lock: lock, progress: progress, notice: notice, shouldStop: shouldStop)
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
            case .write(let write) where write.needsTagIDs:
                // The pre-image does not know the ids of the tags to remove: read them first.
                switch try await look(id, link: link, calls: &calls) {
                case .success(let now?): current = now
                case .success(nil): return (.failed, "the photo is gone (deleted since the plan)")
                case .failure(let readError): return (.failed, "could not read the photo's tags: \(readError)")
                }
                stalls += 1
            case .write(let write):
                try store.record(job: job, photo: id, .writing, intent: write.description)
                do {
                    try await perform(write, on: id, link: link, calls: &calls)
                    return (.done, nil)
                } catch let error as FlickrError where write.isRefusal(error) {
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

    /// Sends a write's calls, each followed by the crash point tests kill at.
    func perform(_ write: TagWrite, on photo: String, link: RunLink, calls: inout Int) async throws {
        for request in write.requests(photo: photo) {
            _ = try await link.call(request.method, request.arguments, calls: &calls)
            CrashPoint.afterWrite()
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
}

extension RetagRunner: PhotoWork {
    func accept(_ job: JobSummary) throws {
        guard job.kind == .retag else { throw JobError("job \(job.id) is a \(job.kind.rawValue) job, not a retag: use flickr jobs apply") }
    }

    /// Its write, and a read where the photo must be looked at first.
    func estimate(_ entry: JobPhoto, stamp: Int?, planTime: Int) -> Int {
        var estimate = 0
        if case .write(let w) = PhotoStep.next(entry.change, current: nil) { estimate = w.calls }
        let reads = entry.status != .planned || (stamp.map { $0 >= planTime } ?? false) ? 1 : 0
        return estimate + reads
    }

    func process(_ entry: JobPhoto, job: String, stamp: Int?, planTime: Int, link: RunLink,
                 calls: inout Int) async throws -> PhotoOutcome<[String]> {
        let change = entry.change
        var current: PhotoTags?
        if entry.status == .planned, let stamp, stamp != change.pre.lastUpdate {
            return PhotoOutcome(.conflict, "changed since the plan (lastupdate \(change.pre.lastUpdate) → \(stamp))")
        }
        if entry.status != .planned {
            // A previous run may or may not have written it: read, never replay blindly.
            current = try await read(change.pre.photoID, link: link, calls: &calls)
        } else if let stamp, stamp >= planTime {
            // Changed in the very second the plan read it: lastupdate (whole seconds) cannot
            // tell, the tags can.
            current = try await read(change.pre.photoID, link: link, calls: &calls)
            if let now = current, Set(now.tags) != Set(change.pre.tags) {
                return PhotoOutcome(.conflict, "its tags changed since the plan")
            }
        }
        let (status, detail) = try await settle(job: job, change: change, current: current, link: link, calls: &calls)
        return PhotoOutcome(status, detail, final: change.target)
    }

    func settled(_ entry: JobPhoto, _ status: PhotoStatus, _ final: [String]?) {
        // The mirror is a cache: failing to update it must not fail the job (the next sync
        // reads the photo again, its lastupdate having moved).
        guard status == .done, let final else { return }
        try? settings.source?.wrote(photo: entry.change.pre.photoID, tags: final)
    }
}
