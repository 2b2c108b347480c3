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
            if c.action == .upload { return try await upload(entry, job: job, link: link, calls: &calls) }
            guard let photo = c.photo else { throw StepFailure("a \(c.action.rawValue) step names no photo") }
            switch c.action {
            case .upload: fatalError("handled above")
            case .replace: return try await replace(c, photo: photo, job: job, link: link, calls: &calls)
            case .meta:
                try await write(c.writes, photo: photo, link: link, calls: &calls)
                return PhotoOutcome(.done, "photo \(photo)", final: record(c, photo: photo, job: nil))
            case .move:
                try await moveSets(c, photo: photo, job: job, link: link, calls: &calls)
                try await write(c.writes, photo: photo, link: link, calls: &calls)
                // The new record first, then the old one forgotten: a kill between them leaves both.
                try? ledger.remember([record(c, photo: photo, job: nil)])
                if let from = c.from, (c.fromRoot ?? c.root, from) != (c.root, c.path) { try? ledger.forget(root: c.fromRoot ?? c.root, path: from) }
                return PhotoOutcome(.done, "photo \(photo)", final: record(c, photo: photo, job: nil))
            case .delete: return try await delete(c, photo: photo, link: link, calls: &calls)
            }
        } catch let failure as StepFailure {
            return PhotoOutcome(.failed, failure.message, settleAgain: false)
        } catch let error as FlickrError {
            return PhotoOutcome(.failed, "\(error)", settleAgain: !EditRunner.isRefusal(error))
        }
    }

    func settled(_ entry: JournalEntry<PushChange>, _ status: PhotoStatus, _ final: PushRecord?) {
        guard status == .done, let final else { return }
        try? ledger.remember([final])
    }

    /// What fails one step and not the run (a file changed since the plan, a folder that cannot
    /// be written); a ``JobError`` (the journal failing) ends the run.
    struct StepFailure: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    // MARK: - Steps

    /// The record the library keeps of the file once pushed.
    func record(_ c: PushChange, photo: String, job: String?) -> PushRecord {
        PushRecord(root: c.root, path: c.path, size: c.size, mtime: c.mtime, sha256: c.sha256, video: c.video, photo: photo,
                   set: c.joinSet, meta: c.meta, sidecar: c.sidecar, job: job)
    }

    /// The file must be as planned: one changed since is planned again, not sent.
    func checkUnchanged(_ c: PushChange) throws(StepFailure) {
        var info = stat()
        guard stat(c.file, &info) == 0 else { throw StepFailure("\(c.path) is gone since the plan; plan again") }
        guard Int64(info.st_size) == c.size, PushPlanner.mtime(info) == c.mtime else { throw StepFailure("\(c.path) changed since the plan; plan again") }
    }

    /// What an earlier run of an upload step left: the photo once its answer came (the intent
    /// `uploaded ID` while writing, the detail `photo ID…` of a failure after it), whether Flickr
    /// had it before this job, and when the bytes were first sent (the intent `upload TIME`).
    static func earlier(_ entry: JournalEntry<PushChange>) -> (photo: String?, already: Bool, sent: Int?) {
        if entry.status == .planned { return (nil, false, nil) }
        for text in [entry.intent, entry.detail].compactMap({ $0 }) {
            for prefix in ["uploaded ", "photo "] where text.hasPrefix(prefix) {
                let id = String(text.dropFirst(prefix.count).prefix { $0 != " " && $0 != ":" })
                if !id.isEmpty { return (id, text.contains("(already on Flickr)"), nil) }
            }
        }
        let sent = entry.intent.flatMap { $0.hasPrefix("upload ") ? Int($0.dropFirst("upload ".count)) : nil }
            ?? entry.detail.flatMap { $0.firstMatch(of: /sent at (\d+)/).flatMap { Int($0.1) } }
        return (nil, false, sent ?? 0)
    }

    private func upload(_ entry: JournalEntry<PushChange>, job: String, link: RunLink, calls: inout Int) async throws -> PhotoOutcome<PushRecord> {
        let c = entry.change
        var (photo, already, sentBefore) = Self.earlier(entry)
        if photo == nil {
            try checkUnchanged(c)
            // The intent names when the bytes first went, so that a duplicate answered to a later
            // attempt can be told from a photo Flickr had before this job.
            let sentAt = sentBefore.flatMap { $0 > 0 ? $0 : nil } ?? Int(Date().timeIntervalSince1970)
            try store.record(job: job, photo: c.key, .writing, intent: "upload \(sentAt)")
            var fields = c.upload
            fields["dedup_check"] = "1"
            do {
                var progress: UploadProgress?
                if let report = settings.fileProgress {
                    let path = c.path
                    progress = { @Sendable sent, total in report(path, sent, total) }
                }
                let answer = try await link.send(calls: &calls) { [client, fields, progress] () async throws(FlickrError) in
                    try await client.upload(.file(c.file), arguments: fields, progress: progress)
                }
                photo = answer.photoID
            } catch let error as FlickrError where error.duplicatePhotoID != nil {
                photo = error.duplicatePhotoID
                // Sent before by this job (its answer lost): ours if Flickr stored it since then.
                if let sentBefore, let id = photo {
                    // Unknown when (a journal of an older version): taken as this job's.
                    already = sentBefore > 0 ? !(try await Self.uploaded(id, since: sentBefore - 60, link: link, calls: &calls)) : false
                } else {
                    already = true
                }
            } catch let error as FlickrError {
                // Perhaps stored (a timeout after the bytes went): the next attempt settles it by the duplicate check.
                return PhotoOutcome(.failed, "\(error) (sent at \(sentAt))", settleAgain: !EditRunner.isRefusal(error))
            }
            guard let photo else { throw StepFailure("the upload answered without a photo id") }
            CrashPoint.afterWrite()
            try store.record(job: job, photo: c.key, .writing, intent: "uploaded \(photo)" + (already ? " (already on Flickr)" : ""))
            try? ledger.remember([record(c, photo: photo, job: already ? nil : job)])
        }
        guard let photo else { throw StepFailure("no photo id") }
        let said = "photo \(photo)" + (already ? " (already on Flickr)" : "")
        do {
            try await write(c.writes, photo: photo, link: link, calls: &calls)
            if let set = c.joinSet { try await join(set, photo: photo, job: job, link: link, calls: &calls) }
        } catch let error as FlickrError {
            // The photo is up: the failure keeps its id, for resume and undo.
            return PhotoOutcome(.failed, said + ": \(error)", settleAgain: true)
        }
        return PhotoOutcome(.done, said, final: record(c, photo: photo, job: already ? nil : job))
    }

    /// Whether `photo` was uploaded at or after `time` (Unix seconds), by its `getInfo`.
    static func uploaded(_ photo: String, since time: Int, link: RunLink, calls: inout Int) async throws -> Bool {
        let info = try await link.call("flickr.photos.getInfo", ["photo_id": photo], calls: &calls)
        return (info["photo"]?["dateuploaded"]?.int ?? 0) >= time
    }

    private func replace(_ c: PushChange, photo: String, job: String, link: RunLink, calls: inout Int) async throws -> PhotoOutcome<PushRecord> {
        try checkUnchanged(c)
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
    private func delete(_ c: PushChange, photo: String, link: RunLink, calls: inout Int) async throws -> PhotoOutcome<PushRecord> {
        if c.keepOriginal {
            let folder = c.root + "/.flickr-deleted"
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw StepFailure("cannot keep the original in \(folder): \(error.localizedDescription); not deleted")
            }
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
                throw StepFailure("photo \(photo) has no original to keep (getSizes lists none); not deleted")
            }
            let ext = (c.path as NSString).pathExtension.isEmpty ? "jpg" : (c.path as NSString).pathExtension.lowercased()
            let kept = folder + "/\(photo).\(ext)"
            let part = kept + ".part"
            _ = try await link.send(calls: &calls) { [client] () async throws(FlickrError) in
                try await client.download(from: source, to: part)
            }
            guard rename(part, kept) == 0 else { throw StepFailure("cannot keep \(kept): \(String(cString: strerror(errno))); not deleted") }
            var object: [String: Any] = ["file": c.path, "sha256": c.sha256, "size": c.size]
            if let set = c.leaveSet { object["set"] = set }
            let pushed = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            let text = "{\"push\":" + pushed
                + ",\"getInfo\":" + FlickrJSON.serialize(info) + "}\n"
            guard FileManager.default.createFile(atPath: sidecar + ".part", contents: Data(text.utf8)), rename(sidecar + ".part", sidecar) == 0 else {
                throw StepFailure("cannot write \(sidecar); not deleted")
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
        // An undo takes photos out of the sets its job made, which the library may not know yet.
        if let parent = try store.header(job).undoOf, let made = try store.createdSets(parent)[title] { return made }
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
