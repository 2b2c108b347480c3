import FlickrAPI
import FlickrProtocol
import Foundation

/// Applies an edit job (or resumes one, or runs an undo of one): the kind of the one job
/// engine (``JobEngine``) that writes any field group. What is edit's own:
/// - each group's write is journaled (`writing`, with the group and its calls) before it is
///   sent;
/// - a photo changed since the plan (``ChangeWatch``) is read, and a group changed since the
///   plan is a conflict (never overwritten) while the other groups are still written
///   (``EditStep``);
/// - a set that `--create-set` asks for is created once, by the first photo that joins it.
public struct EditRunner: Sendable {
    public let client: FlickrClient
    public let store: JobStore
    /// Rounds without progress before a photo fails.
    public var attempts = 3
    /// The pace, the outage allowed, the lock's holder, the library to tell.
    public var settings = RunSettings()

    public init(client: FlickrClient, store: JobStore) {
        self.client = client
        self.store = store
    }

    /// Applies or resumes `job` with the one job engine, holding `lock` (taken here when nil).
    /// `shouldStop` is asked between photos and while waiting out an outage; `notice` gets a
    /// line while it waits.
    public func run(_ job: String, lock: RunnerLock? = nil, progress: @Sendable (JobProgress) -> Void = { _ in },
                    notice: @Sendable @escaping (String) -> Void = { _ in },
                    shouldStop: @Sendable @escaping () -> Bool = { false }) async throws -> JobOutcome {
        try await JobEngine(work: self).run(job, lock: lock, progress: progress, notice: notice, shouldStop: shouldStop)
    }

    /// Drives one photo to its targets, group by group: journal the write, send it, and settle
    /// anything unclear by reading. Returns the status, its detail and the photo as it now is.
    func settle(job: String, photo: EditJobPhoto, current: PhotoMetadata?, link: RunLink,
                calls: inout Int) async throws -> (PhotoStatus, String?, PhotoMetadata?) {
        let id = photo.change.pre.photoID
        var created = try await JobSets(store: store).settleCreates(job: job, link: link, calls: &calls)
        var change = EditPlanner.resolving(photo.change, created: created)
        var current = current
        var stalls = 0, rounds = 0
        while stalls < attempts, rounds < 10 * attempts + change.calls {
            rounds += 1
            switch EditStep.next(change, current: current) {
            case .done(let conflicts):
                let final = current ?? change.pre
                return conflicts.isEmpty ? (.done, nil, final) : (.conflict, conflicts.map(\.description).joined(separator: "; "), final)
            case .write(let write) where write.tagWrite?.needsTagIDs == true:
                // The pre-image does not know the ids of the tags to remove: read them first.
                guard let now = try await read(id, sets: change.fields.contains(.sets), link: link, calls: &calls) else {
                    return (.failed, "the photo is gone (deleted since the plan)", nil)
                }
                current = now
                stalls += 1
            case .write(let write):
                try store.record(job: job, photo: id, .writing, intent: Self.describe(write))
                var model = current ?? change.pre
                do {
                    for call in write.calls {
                        if call.method == "flickr.photosets.addPhoto", let set = call.arguments["photoset_id"], set.hasPrefix("new:") {
                            let title = String(set.dropFirst(4))
                            let made = try await JobSets(store: store).create(title, photo: id, job: job, link: link, calls: &calls)
                            created[title] = made
                            change = EditPlanner.resolving(photo.change, created: created)
                            model.sets = (model.sets ?? []) + [made]
                            continue
                        }
                        if call.method == "flickr.photosets.removePhoto", let set = call.arguments["photoset_id"] {
                            // Undo puts the photo back where it was: the set's order, before the job's first removal.
                            try await JobSets(store: store).rememberOrder(of: set, job: job, link: link, calls: &calls)
                        }
                        var arguments = call.arguments
                        if call.method != "flickr.photos.removeTag" { arguments["photo_id"] = id }
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

    /// Whether an error proves the write did not happen: Flickr refused it (not a set's
    /// "already in"/"not in", which an earlier attempt may have caused), or it was never sent.
    static func isDefinite(_ error: FlickrError, _ write: EditWrite) -> Bool {
        switch error.kind {
        case .usage, .oauth: return true
        case .api:
            if let tagWrite = write.tagWrite { return tagWrite.isRefusal(error) }
            // A set's 1 (no such set), 2 (no such photo) and 10 (the set is full) are refusals;
            // its 3 (already in / not in the set) may be an earlier attempt's doing.
            if write.field == .sets {
                return [FlickrErrorCode.photosetNotFound, .photoNotFoundCode2, .maximumNumberOfPhotosInSet].contains { $0.matches(error.code) }
            }
            return isRefusal(error)
        default: return false
        }
    }

    /// Whether an error proves a write was refused or never sent (Flickr's "service
    /// unavailable" and "write failed" leave it open, as does any failure of the exchange).
    static func isRefusal(_ error: FlickrError) -> Bool {
        switch error.kind {
        case .usage, .oauth: return true
        case .api: return !FlickrErrorCode.serviceUnavailable.matches(error.code) && !FlickrErrorCode.writeFailed.matches(error.code)
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
                if error.kind == .api, FlickrErrorCode.photoNotFound.matches(error.code) { return nil }
                if error.isTransient, tries < 3 { continue }
                throw error
            }
        }
    }

    /// The journal's intent line: `meta: flickr.photos.setMeta`.
    static func describe(_ write: EditWrite) -> String {
        write.field.rawValue + ": " + write.calls.map { $0.method + ($0.arguments["photoset_id"].map { " " + $0 } ?? "") }.joined(separator: "; ")
    }
}

extension EditRunner: PhotoWork {
    func accept(_ job: JobSummary) throws {
        guard job.kind == .edit else { throw JobError("job \(job.id) is a \(job.kind.rawValue) job, not an edit: use flickr jobs apply") }
    }

    /// One call per group, one per set joined or left (the reads that settle are not foreseen).
    func estimate(_ entry: EditJobPhoto, stamp: Int?, planTime: Int) -> Int { entry.change.calls }

    func process(_ entry: EditJobPhoto, job: String, stamp: Int?, planTime: Int, link: RunLink,
                 calls: inout Int) async throws -> PhotoOutcome<PhotoMetadata> {
        let change = entry.change
        var current: PhotoMetadata?
        if entry.status != .planned || stamp.map({ $0 != change.pre.lastUpdate || $0 >= planTime }) == true {
            // Written before (perhaps), or changed since the plan: look at what it holds now.
            current = try await read(change.pre.photoID, sets: change.fields.contains(.sets), link: link, calls: &calls)
            if current == nil {
                return PhotoOutcome(.failed, "the photo is gone (deleted since the plan)", settleAgain: false)
            }
        }
        let (status, detail, final) = try await settle(job: job, photo: entry, current: current,
                                                       link: link, calls: &calls)
        return PhotoOutcome(status, detail, final: final)
    }

    func finish(_ job: String, undoOf parent: String?, link: RunLink, calls: inout Int) async throws {
        guard let parent else { return }
        try await JobSets(store: store).restoreOrders(undoing: parent, link: link, calls: &calls)
    }

    func settled(_ entry: EditJobPhoto, _ status: PhotoStatus, _ final: PhotoMetadata?) {
        // The library is a cache: failing to update it must not fail the job.
        guard status == .done || status == .conflict, let final else { return }
        try? settings.source?.wrote(final)
    }
}
