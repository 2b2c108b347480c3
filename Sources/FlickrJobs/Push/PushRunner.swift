import FlickrAPI
import FlickrProtocol
import Foundation
import Synchronization

/// A push job's kind of work for the one engine (``JobEngine``): one file or photo at a time —
/// its upload (asking Flickr's duplicate check), its replace, its metadata writes, its sets, or
/// its deletion (the original kept first) — each journaled before it is sent. An upload whose
/// answer was lost (a kill) is settled by Flickr's duplicate check, never by a second copy: the
/// next attempt sends `dedup_check=1`, and Flickr answers with the photo it already has.
struct PushRunner: PhotoWork {
    typealias Change = PushChange
    typealias Final = PushRecord

    let client: FlickrClient
    let store: JobStore
    var settings = RunSettings()
    /// Set titles → ids as the library knows them, read once a run.
    private let knownSets = SetCache()

    /// A run's sets by title, read from the library once.
    final class SetCache: Sendable {
        let titles = Mutex<[String: String]?>(nil)
        func withLock<T>(_ body: (inout [String: String]?) throws -> T) rethrows -> T { try titles.withLock { try body(&$0) } }
    }

    init(client: FlickrClient, store: JobStore) {
        self.client = client
        self.store = store
    }

    /// The library, which a push cannot run without (it records what was pushed).
    var ledger: any PushLedger {
        get throws {
            guard let ledger = settings.source as? any PushLedger else {
                throw JobError("a push needs the account's library (run flickr sync once)")
            }
            return ledger
        }
    }

    func run(_ job: String, lock: RunnerLock?, progress: @Sendable (JobProgress) -> Void,
             notice: @Sendable @escaping (String) -> Void, shouldStop: @Sendable @escaping () -> Bool) async throws -> JobOutcome {
        _ = try ledger
        // One push of a folder at a time: its lock is held for the whole run.
        let roots = (try store.query(of: job)["dirs"] ?? "").split(separator: "\n").map(String.init)
        let locks = try roots.map { try Self.lockFolder($0, store: store, command: settings.command) }
        defer { withExtendedLifetime(locks) {} }
        return try await JobEngine(work: self).run(job, lock: lock, progress: progress, notice: notice, shouldStop: shouldStop)
    }

    static func lockFolder(_ root: String, store: JobStore, command: String) throws -> RunnerLock {
        try store.lockPushedFolder(root, command: command)
    }

    func accept(_ job: JobSummary) throws {
        guard job.kind == .push else {
            throw JobError("job \(job.id) is a \(job.kind.rawValue) job; run it with: flickr \(job.kind.rawValue) apply \(job.id)")
        }
    }

    func estimate(_ entry: JournalEntry<PushChange>, stamp: Int?, planTime: Int) -> Int { PushPlanner.calls(entry.change) }

    func process(_ entry: JournalEntry<PushChange>, job: String, stamp: Int?, planTime: Int, link: RunLink,
                 calls: inout Int) async throws -> PhotoOutcome<PushRecord> {
        let c = entry.change
        do {
            switch c.action {
            case .upload: return try await upload(entry, job: job, link: link, calls: &calls)
            case .replace: return try await replace(c, job: job, link: link, calls: &calls)
            case .meta:
                try await write(c.writes, photo: c.photo!, link: link, calls: &calls)
                return PhotoOutcome(.done, "photo \(c.photo!)", final: record(c, photo: c.photo!, job: nil))
            case .move:
                try await moveSets(c, photo: c.photo!, job: job, link: link, calls: &calls)
                try await write(c.writes, photo: c.photo!, link: link, calls: &calls)
                try? ledger.forget(root: c.root, path: c.from ?? c.path)
                return PhotoOutcome(.done, "photo \(c.photo!)", final: record(c, photo: c.photo!, job: nil))
            case .delete: return try await delete(c, link: link, calls: &calls)
            }
        } catch let error as FlickrError where EditRunner.isRefusal(error) {
            return PhotoOutcome(.failed, "\(error)", settleAgain: false)
        } catch let error as FlickrError {
            return PhotoOutcome(.failed, "\(error)")
        } catch let error as JobError {
            return PhotoOutcome(.failed, error.message, settleAgain: false)
        }
    }

    func settled(_ entry: JournalEntry<PushChange>, _ status: PhotoStatus, _ final: PushRecord?) {
        guard status == .done, let final else { return }
        try? ledger.remember([final])
    }

    // MARK: - Steps

    /// The record the library keeps of the file once pushed.
    func record(_ c: PushChange, photo: String, job: String?) -> PushRecord {
        PushRecord(root: c.root, path: c.path, size: c.size, mtime: c.mtime, sha256: c.sha256, video: c.video, photo: photo,
                   set: c.joinSet, meta: c.meta, sidecar: c.sidecar, job: job)
    }

    /// The file must be as planned: one changed since is planned again, not sent.
    func checkUnchanged(_ c: PushChange) throws(JobError) {
        var info = stat()
        guard stat(c.file, &info) == 0 else { throw JobError("\(c.path) is gone since the plan; plan again") }
        let mtime = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec / 1_000_000) / 1_000
        guard Int64(info.st_size) == c.size, mtime == c.mtime else { throw JobError("\(c.path) changed since the plan; plan again") }
    }

    private func upload(_ entry: JournalEntry<PushChange>, job: String, link: RunLink, calls: inout Int) async throws -> PhotoOutcome<PushRecord> {
        let c = entry.change
        var photo: String?
        var already = false
        if entry.status == .writing, let intent = entry.intent, intent.hasPrefix("uploaded ") {
            photo = String(intent.dropFirst("uploaded ".count).prefix { $0 != " " })
            already = intent.hasSuffix("(already on Flickr)")
        }
        if photo == nil {
            try checkUnchanged(c)
            // A previous run sent it and its answer was lost: Flickr's duplicate check names the photo.
            let resent = entry.status == .writing
            try store.record(job: job, photo: c.key, .writing, intent: "upload")
            var fields = c.upload
            fields["dedup_check"] = "1"
            do {
                let answer = try await link.send(calls: &calls) { [client, fields] () async throws(FlickrError) in
                    try await client.upload(.file(c.file), arguments: fields)
                }
                photo = answer.photoID
            } catch let error as FlickrError where error.duplicatePhotoID != nil {
                photo = error.duplicatePhotoID
                already = !resent
            }
            guard let photo else { throw JobError("the upload answered without a photo id") }
            CrashPoint.afterWrite()
            try store.record(job: job, photo: c.key, .writing, intent: "uploaded \(photo)" + (already ? " (already on Flickr)" : ""))
            try? ledger.remember([record(c, photo: photo, job: already ? nil : job)])
        }
        guard let photo else { throw JobError("no photo id") }
        try await write(c.writes, photo: photo, link: link, calls: &calls)
        if let set = c.joinSet { try await join(set, photo: photo, job: job, link: link, calls: &calls) }
        return PhotoOutcome(.done, "photo \(photo)" + (already ? " (already on Flickr)" : ""), final: record(c, photo: photo, job: already ? nil : job))
    }

    private func replace(_ c: PushChange, job: String, link: RunLink, calls: inout Int) async throws -> PhotoOutcome<PushRecord> {
        try checkUnchanged(c)
        let photo = c.photo!
        try store.record(job: job, photo: c.key, .writing, intent: "replace")
        _ = try await link.send(calls: &calls) { [client] () async throws(FlickrError) in
            try await client.replace(photoID: photo, with: .file(c.file))
        }
        CrashPoint.afterWrite()
        try await write(c.writes, photo: photo, link: link, calls: &calls)
        return PhotoOutcome(.done, "photo \(photo) replaced", final: record(c, photo: photo, job: nil))
    }

    /// Keeps the original and its record in `ROOT/.flickr-deleted/` (unless the file is in the
    /// folder: an undo's delete of an upload), then deletes the photo; one already gone is done.
    private func delete(_ c: PushChange, link: RunLink, calls: inout Int) async throws -> PhotoOutcome<PushRecord> {
        let photo = c.photo!
        if c.keepOriginal {
            let folder = c.root + "/.flickr-deleted"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let sidecar = folder + "/\(photo).json"
            let info: FlickrNode
            do {
                info = try await link.call("flickr.photos.getInfo", ["photo_id": photo], calls: &calls)
            } catch let error as FlickrError where FlickrErrorCode.photoNotFound.matches(error.code) && error.kind == .api {
                try? ledger.forget(root: c.root, path: c.path)
                return PhotoOutcome(.done, "photo \(photo) was gone already")
            }
            let sizes = try await link.call("flickr.photos.getSizes", ["photo_id": photo], calls: &calls)
            let labels = c.video ? ["Video Original", "Original"] : ["Original"]
            guard let source = (sizes["sizes"]?["size"]?.array ?? []).first(where: { labels.contains($0["label"]?.text ?? "") })?["source"]?.string else {
                throw JobError("photo \(photo) has no original to keep (getSizes lists none); not deleted")
            }
            let ext = (c.path as NSString).pathExtension.isEmpty ? "jpg" : (c.path as NSString).pathExtension.lowercased()
            let kept = folder + "/\(photo).\(ext)"
            let part = kept + ".part"
            _ = try await link.send(calls: &calls) { [client] () async throws(FlickrError) in
                try await client.download(from: source, to: part)
            }
            guard rename(part, kept) == 0 else { throw JobError("cannot keep \(kept): \(String(cString: strerror(errno))); not deleted") }
            var object: [String: Any] = ["file": c.path, "sha256": c.sha256, "size": c.size]
            if let set = c.leaveSet { object["set"] = set }
            let text = "{\"push\":" + String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
                + ",\"getInfo\":" + FlickrJSON.serialize(info) + "}\n"
            guard FileManager.default.createFile(atPath: sidecar + ".part", contents: Data(text.utf8)), rename(sidecar + ".part", sidecar) == 0 else {
                throw JobError("cannot write \(sidecar); not deleted")
            }
        }
        do {
            _ = try await link.call("flickr.photos.delete", ["photo_id": photo], calls: &calls)
        } catch let error as FlickrError where FlickrErrorCode.photoNotFound.matches(error.code) && error.kind == .api {
            // Gone already (a run cut off after the delete).
        }
        CrashPoint.afterWrite()
        try? ledger.forget(root: c.root, path: c.path)
        return PhotoOutcome(.done, "photo \(photo) deleted")
    }

    /// A move's sets: out of the one it leaves, into the one it joins.
    private func moveSets(_ c: PushChange, photo: String, job: String, link: RunLink, calls: inout Int) async throws {
        guard c.joinSet != c.leaveSet else { return }
        if let leave = c.leaveSet, let id = try await setID(leave, job: job, link: link, calls: &calls) {
            // What an undo puts back: the set's order and primary photo before the job took one out.
            do {
                try await JobSets(store: store).rememberOrder(of: id, job: job, link: link, calls: &calls)
            } catch let error as FlickrError where error.kind == .api && FlickrErrorCode.photoNotFound.matches(error.code) {
                // The set is gone on Flickr: nothing to take the photo out of.
                return try await joinOnly(c, photo: photo, job: job, link: link, calls: &calls)
            }
            do {
                _ = try await link.call("flickr.photosets.removePhoto", ["photoset_id": id, "photo_id": photo], calls: &calls)
            } catch let error as FlickrError where error.kind == .api
                        && (FlickrErrorCode.photoNotInSet.matches(error.code) || FlickrErrorCode.photoNotFound.matches(error.code)) {
                // Not in it (any more): nothing to take out.
            }
        }
        try await joinOnly(c, photo: photo, job: job, link: link, calls: &calls)
    }

    private func joinOnly(_ c: PushChange, photo: String, job: String, link: RunLink, calls: inout Int) async throws {
        if let set = c.joinSet { try await join(set, photo: photo, job: job, link: link, calls: &calls) }
    }

    /// The undo's last step: each set the job took photos out of gets its order and primary
    /// photo back (``JobSets/restoreOrders(undoing:link:calls:)``, as an edit's undo).
    func finish(_ job: String, undoOf parent: String?, link: RunLink, calls: inout Int) async throws {
        guard let parent else { return }
        try await JobSets(store: store).restoreOrders(undoing: parent, link: link, calls: &calls)
    }

    /// The id of the set titled `title`: one this job created, or the library's.
    private func setID(_ title: String, job: String, link: RunLink, calls: inout Int) async throws -> String? {
        if let made = try await JobSets(store: store).settleCreates(job: job, link: link, calls: &calls)[title] { return made }
        let known = try knownSets.withLock { cached in
            if cached == nil { cached = try ledger.setIDs() }
            return cached![title]
        }
        return known
    }

    /// Puts `photo` into the set `title` (last, so a folder's set is in file-name order),
    /// creating the set with it when there is none.
    private func join(_ title: String, photo: String, job: String, link: RunLink, calls: inout Int) async throws {
        guard let id = try await setID(title, job: job, link: link, calls: &calls) else {
            _ = try await JobSets(store: store).create(title, photo: photo, job: job, link: link, calls: &calls)
            return
        }
        do {
            _ = try await link.call("flickr.photosets.addPhoto", ["photoset_id": id, "photo_id": photo], calls: &calls)
        } catch let error as FlickrError where error.kind == .api && FlickrErrorCode.photoAlreadyInSet.matches(error.code) {
            // In it already (a resumed step).
        } catch let error as FlickrError where error.kind == .api && FlickrErrorCode.photoNotFound.matches(error.code)
                    && (error.message.lowercased().contains("photoset") || error.message.lowercased().contains("set")) {
            // The library's set is gone on Flickr: make it again.
            knownSets.withLock { $0?[title] = nil }
            _ = try await JobSets(store: store).create(title, photo: photo, job: job, link: link, calls: &calls)
        }
    }

    /// The metadata writes, one call per group; every one may be sent again safely (tags to
    /// remove are looked up by reading the photo first).
    func write(_ w: PushWrites, photo: String, link: RunLink, calls: inout Int) async throws {
        if w.meta {
            _ = try await link.call("flickr.photos.setMeta", ["photo_id": photo, "title": w.title, "description": w.description], calls: &calls)
        }
        if !w.removeTags.isEmpty {
            let info = try await link.call("flickr.photos.getInfo", ["photo_id": photo], calls: &calls)
            let owner = info["photo"]?["owner"]?["nsid"]?.string
            let leaving = Set(w.removeTags.map(TagString.clean))
            for tag in info["photo"]?["tags"]?["tag"]?.array ?? [] {
                guard let id = tag["id"]?.string, tag["author"]?.string == owner,
                      leaving.contains(TagString.clean(tag["raw"]?.text ?? tag.text ?? "")) else { continue }
                _ = try await link.call("flickr.photos.removeTag", ["tag_id": id], calls: &calls)
            }
        }
        if !w.addTags.isEmpty {
            _ = try await link.call("flickr.photos.addTags", ["photo_id": photo, "tags": TagString.join(w.addTags)], calls: &calls)
        }
        if let d = w.dateTaken {
            _ = try await link.call("flickr.photos.setDates", ["photo_id": photo, "date_taken": d, "date_taken_granularity": "0"], calls: &calls)
        }
        if let g = w.geo, g.count == 2 {
            _ = try await link.call("flickr.photos.geo.setLocation", ["photo_id": photo, "lat": String(g[0]), "lon": String(g[1]),
                                                                       "accuracy": "16"], calls: &calls)
        } else if w.clearGeo {
            _ = try await link.call("flickr.photos.geo.removeLocation", ["photo_id": photo], calls: &calls)
        }
        if let l = w.license {
            _ = try await link.call("flickr.photos.licenses.setLicense", ["photo_id": photo, "license_id": String(l)], calls: &calls)
        }
    }
}

extension JobStore {
    /// Takes the push lock of folder `root` (a real path) for this process, held while a push
    /// of it is planned or run; throws ``PushFolderBusy`` naming the holder.
    public func lockPushedFolder(_ root: String, command: String) throws -> RunnerLock {
        do {
            return try RunnerLock.acquire("push-" + FileDigest.of(Data(root.utf8)).prefix(24), in: locks, command: command)
        } catch let busy as RunnerLock.Busy {
            throw PushFolderBusy(folder: root, holder: busy.holder)
        }
    }
}

/// Another process pushes this folder (its plan or its apply): one push of a folder at a time.
public struct PushFolderBusy: Error, Sendable, CustomStringConvertible {
    public var folder: String
    public var holder: RunnerLock.Holder?
    public var description: String { "\(folder) is being pushed by \(holder?.description ?? "another process")" }
}
