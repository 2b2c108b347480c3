import FlickrAPI
import FlickrJobs
import FlickrProtocol
import Foundation
import Synchronization

/// Keeps a copy of a library in a folder (``BackupLayout``): every original once (a video's
/// original video), a JSON sidecar per photo (and an XMP one on request), the sets, and a
/// manifest of every file with its size and SHA-256.
///
/// A run reads the library on disk (sync it first) and does only what changed: an original is
/// fetched when it is new or was replaced on Flickr, a sidecar rewritten when the photo's
/// metadata changed (`views` alone does not count). An unchanged library costs no call and no
/// download. Photos deleted on Flickr are reported and kept (``prune`` moves them to
/// `.deleted/`).
///
/// kill -9 at any moment loses nothing and fetches nothing twice: a download streams into
/// `.flickr-backup/parts/` and gets its final name only whole, after its row (marked pending)
/// is committed; the next run settles a pending row from the finished part or the renamed file.
public struct LibraryBackup: Sendable {
    public let client: FlickrClient
    public let library: LibraryStore
    public let layout: BackupLayout
    /// Also write an XMP sidecar per photo.
    public var xmp = false
    /// Move what Flickr deleted to `.deleted/` instead of keeping it in place.
    public var prune = false
    /// Downloads in flight at once.
    public var concurrency = 4

    public init(client: FlickrClient, library: LibraryStore, directory: String) {
        self.client = client
        self.library = library
        layout = BackupLayout(root: directory)
    }

    /// What a run did.
    public struct Summary: Sendable, Hashable, Codable {
        /// Photos in the library (not deleted).
        public var photos = 0
        /// Originals fetched by this run, and their bytes.
        public var downloaded = 0
        public var bytes: Int64 = 0
        /// Originals a killed run had fetched, taken from `parts/` without a download.
        public var reused = 0
        public var sidecars = 0
        public var xmp = 0
        /// Set manifests written.
        public var sets = 0
        /// Photos with nothing to do.
        public var unchanged = 0
        /// Photos deleted on Flickr still in the backup, and those moved to `.deleted/` now.
        public var deletedKept = 0
        public var pruned = 0
        /// Photos that could not be backed up (id and reason); the next run tries them again.
        public var failed: [Failure] = []
        /// API calls made (`getSizes` for videos and for photos without `url_o`).
        public var calls = 0
        /// Stopped early (Ctrl-C): what was done is kept, the next run goes on.
        public var interrupted = false
        /// Stopped because the disk was full: what was stored is whole and kept, the next run
        /// (once there is room) goes on.
        public var diskFull = false
        /// Photos whose backup is not complete after this run (failed, or not reached when it
        /// stopped).
        public var notBackedUp = 0
        public var elapsed = 0.0
    }

    public struct Failure: Sendable, Hashable, Codable {
        public var photo: String
        public var reason: String
    }

    /// Where a run is: files handled of those it must handle, bytes fetched.
    public struct Progress: Sendable, Hashable, Codable {
        public var done: Int
        public var total: Int
        public var bytes: Int64
        public var calls: Int
    }

    /// Takes the backup's own lock, held in the folder itself (`.flickr-backup/backup.lock`), so
    /// that two backups into one folder from different machines (a network share) or
    /// environments (a cron job with another HOME) never run at once; the kernel releases it when
    /// its holder ends, a crash included. Creates the folder (0700) when missing: one that cannot
    /// be written is refused here, before anything is asked of Flickr. Throws
    /// `RunnerLock.Busy` (naming the host and process that hold it) or ``LibraryError``.
    public static func lock(_ directory: String, command: String) throws -> RunnerLock {
        let layout = BackupLayout(root: directory)
        do {
            return try RunnerLock.acquire("backup", in: layout.stateDirectory, command: command)
        } catch let error as JobError {
            throw LibraryError("\(directory) cannot hold a backup: \(error.message)")
        }
    }

    /// The account a backup folder belongs to, when it is one.
    public static func account(of directory: String) -> String? {
        let layout = BackupLayout(root: directory)
        guard FileManager.default.fileExists(atPath: layout.database), let state = try? BackupState(layout) else { return nil }
        return try? state.meta("account")
    }

    /// Refuses what cannot hold a backup, before anything is asked of Flickr: a file, or a
    /// folder with files in it that is not a backup. A missing or empty folder is fine.
    public static func checkFolder(_ directory: String) throws(LibraryError) {
        let layout = BackupLayout(root: directory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: layout.root, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else { throw LibraryError("\(layout.root) is a file, not a folder") }
        // The state folder alone (its lock taken, the first run not yet begun) is a backup's.
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: layout.root)) ?? []).filter { $0 != BackupLayout.stateFolder }
        if !entries.isEmpty && !FileManager.default.fileExists(atPath: layout.database) {
            throw LibraryError("\(layout.root) is not empty and is not a backup (no \(BackupLayout.stateFolder)/ in it): "
                               + "give an empty or new folder, or an earlier backup's")
        }
    }

    /// Opens the backup at ``layout`` for ``library``'s account, creating the folder when
    /// missing. Refuses a non-empty folder that is not a backup, and a backup of another account.
    func open() throws(LibraryError) -> BackupState {
        try Self.checkFolder(layout.root)
        do {
            try FileManager.default.createDirectory(atPath: layout.root, withIntermediateDirectories: true)
        } catch {
            throw LibraryError("cannot create \(layout.root): \(error.localizedDescription)")
        }
        let state = try BackupState(layout)
        if let account = try state.meta("account") {
            guard account == library.account else {
                throw LibraryError("\(layout.root) is the backup of \(account), not of \(library.account): give another folder")
            }
        } else {
            try state.setMeta("account", library.account)
            try state.setMeta("created", String(Int(Date().timeIntervalSince1970)))
        }
        return state
    }

    /// Runs the backup. `shouldStop` is read between photos (Ctrl-C: finish those in flight,
    /// write the manifest, stop).
    /// - Throws: ``LibraryError`` when the folder cannot be used, or when Flickr's image host
    ///   could not be reached at all (the run stops; run it again to go on).
    public func run(shouldStop: @escaping @Sendable () -> Bool = { false },
                    progress: @escaping @Sendable (Progress) -> Void = { _ in }) async throws -> Summary {
        let started = Date()
        let state = try open()
        // A push matches files against this backup's manifest by their hashes.
        try? library.registerBackup(FolderWalk.realPath(layout.root) ?? layout.root)
        try state.setMeta("running", "\(getpid()) \(Int(started.timeIntervalSince1970))")
        var summary = Summary()
        try settlePending(state)

        let records = try library.records(try library.ids(LibraryFilter.all))
        let sets = try library.sets()
        let titles = Dictionary(sets.map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a })
        summary.photos = records.count
        let rows = try rowsByOwner(state)
        let parts = Set((try? FileManager.default.contentsOfDirectory(atPath: layout.parts)) ?? [])

        // What each photo needs.
        var work: [(LibraryRecord, BackupPlan)] = []
        for record in records {
            let mine = rows[record.photo.id] ?? [:]
            let key = BackupPlan.originalKey(record.photo)
            let sidecar = BackupSidecar(record: record, setTitles: titles, original: mine[.original]?.path)
            let plan = BackupPlan.decide(key: key, metadataHash: sidecar.metadataHash,
                                         xmpHash: xmp ? FileDigest.of(Data(XMPSidecar.text(record).utf8)) : nil,
                                         rows: mine, sound: sound, partExists: parts.contains(BackupLayout.partName(id: record.photo.id, key: key)))
            if plan.isEmpty { summary.unchanged += 1 } else { work.append((record, plan)) }
        }

        let tally = Tally(total: work.count)
        progress(tally.progress)
        var unreachable: FlickrError?
        var full: FlickrError?  // no room left: fetching the next original would only fail the same way
        var completed = 0
        try await withThrowingTaskGroup(of: PhotoOutcome.self) { group in
            var next = 0
            func start() {
                guard next < work.count, !shouldStop(), unreachable == nil, full == nil else { return }
                let (record, plan) = work[next]
                next += 1
                group.addTask { await backUp(record, plan, titles: titles, state: state, tally: tally, progress: progress) }
            }
            for _ in 0..<max(1, concurrency) { start() }
            while let outcome = try await group.next() {
                switch outcome {
                case .done(let original, let reused, let sidecar, let xmpWritten):
                    completed += 1
                    if original { if reused { summary.reused += 1 } else { summary.downloaded += 1 } }
                    if sidecar { summary.sidecars += 1 }
                    if xmpWritten { summary.xmp += 1 }
                case .failed(let id, let error):
                    if error.unreachable { unreachable = unreachable ?? error }
                    if error.diskFull { full = full ?? error }
                    summary.failed.append(Failure(photo: id, reason: "\(error)"))
                }
                tally.finish()
                progress(tally.progress)
                start()
            }
        }
        summary.bytes = tally.bytes
        summary.calls = tally.calls
        summary.interrupted = shouldStop()
        summary.diskFull = full != nil
        summary.notBackedUp = work.count - completed
        if full != nil {
            // What was stored is whole and recorded; the manifest is written if it fits.
            try? writeManifest(state)
            removeLeftoverParts()
            try? state.setMeta("running", nil)
            summary.elapsed = Date().timeIntervalSince(started)
            return summary
        }
        if unreachable == nil && !summary.interrupted {
            summary.sets = try writeSets(sets, state: state, rows: try rowsByOwner(state))
        }
        (summary.deletedKept, summary.pruned) = try handleDeleted(state, liveSets: Set(sets.map(\.id)))
        try writeManifest(state)
        removeLeftoverParts()
        try state.setMeta("running", nil)
        summary.elapsed = Date().timeIntervalSince(started)
        if let unreachable {
            throw LibraryError("stopped: Flickr could not be reached (\(unreachable.message)); what was fetched is kept — "
                               + "run `flickr backup \(layout.root)` again to go on")
        }
        return summary
    }

    /// How one photo ended.
    enum PhotoOutcome: Sendable {
        case done(original: Bool, reused: Bool, sidecar: Bool, xmp: Bool)
        case failed(String, FlickrError)
    }

    /// Counts shared by the photos in flight.
    final class Tally: Sendable {
        private let counts: Mutex<(done: Int, bytes: Int64, calls: Int)>
        let total: Int
        init(total: Int) {
            self.total = total
            counts = Mutex((0, 0, 0))
        }
        func finish() { counts.withLock { $0.done += 1 } }
        func add(bytes: Int64) { counts.withLock { $0.bytes += bytes } }
        func call() { counts.withLock { $0.calls += 1 } }
        var bytes: Int64 { counts.withLock { $0.bytes } }
        var calls: Int { counts.withLock { $0.calls } }
        var progress: Progress { counts.withLock { Progress(done: $0.done, total: total, bytes: $0.bytes, calls: $0.calls) } }
    }

    /// Whether a row's file is there at the size recorded (one stat: every run checks every file).
    func sound(_ row: BackupState.FileRow) -> Bool {
        let attributes = try? FileManager.default.attributesOfItem(atPath: layout.absolute(row.path))
        return (attributes?[.size] as? NSNumber)?.int64Value == row.size
    }

    /// Forgets the files at `paths` (relative to the backup's folder): each is removed and its
    /// row dropped, so that the next run fetches or writes it again (`--verify --repair`).
    public static func forget(_ paths: [String], in directory: String) throws(LibraryError) {
        let layout = BackupLayout(root: directory)
        let state = try BackupState(layout)
        for path in paths {
            try? FileManager.default.removeItem(atPath: layout.absolute(path))
            try state.write { db in try db.execute(sql: "DELETE FROM file WHERE path = ?", arguments: [path]) }
        }
    }

    func rowsByOwner(_ state: BackupState) throws(LibraryError) -> [String: [BackupState.FileRow.Kind: BackupState.FileRow]] {
        var out: [String: [BackupState.FileRow.Kind: BackupState.FileRow]] = [:]
        for row in try state.files() { out[row.owner, default: [:]][row.kind] = row }
        return out
    }

    // MARK: One photo

    /// The original (when the plan says so), then the sidecars, of one photo.
    func backUp(_ record: LibraryRecord, _ plan: BackupPlan, titles: [String: String], state: BackupState,
                tally: Tally, progress: @escaping @Sendable (Progress) -> Void) async -> PhotoOutcome {
        let id = record.photo.id
        do {
            var originalPath = try state.read { db in
                try String.fetchOne(db, sql: "SELECT path FROM file WHERE owner = ? AND kind = 'original'", arguments: [id])
            }
            var reused = false
            if plan.original {
                (originalPath, reused) = try await fetchOriginal(record.photo, reuse: plan.reusePart, state: state, tally: tally, progress: progress)
            }
            var wroteSidecar = false, wroteXMP = false
            if plan.sidecar || plan.original {
                let sidecar = BackupSidecar(record: record, setTitles: titles, original: originalPath)
                try writeText(sidecar.text, to: BackupLayout.sidecar(id: id, uploaded: record.photo.date_upload),
                              owner: id, kind: .sidecar, key: sidecar.metadataHash, state: state)
                wroteSidecar = true
            }
            if xmp, plan.xmp || plan.original, let originalPath {
                let text = XMPSidecar.text(record)
                try writeText(text, to: BackupLayout.xmp(original: originalPath), owner: id, kind: .xmp,
                              key: FileDigest.of(Data(text.utf8)), state: state)
                wroteXMP = true
            }
            return .done(original: plan.original, reused: reused, sidecar: wroteSidecar, xmp: wroteXMP)
        } catch let error as FlickrError {
            return .failed(id, error)
        } catch {
            var failure = FlickrError(kind: .usage, message: "\(error)", method: "backup")
            failure.diskFull = (error as? LibraryError)?.diskFull ?? false
            return .failed(id, failure)
        }
    }

    /// Downloads (or takes from `parts/`) the photo's original, records it pending, gives it its
    /// final name, settles the row. Returns its path and whether it was reused.
    func fetchOriginal(_ photo: LibraryPhoto, reuse: Bool, state: BackupState, tally: Tally,
                       progress: @escaping @Sendable (Progress) -> Void) async throws -> (String, Bool) {
        let key = BackupPlan.originalKey(photo)
        let part = layout.parts + "/" + BackupLayout.partName(id: photo.id, key: key)
        var reused = false
        if reuse && FileManager.default.fileExists(atPath: part) {
            reused = true
        } else {
            let url = try await originalURL(photo, tally: tally)
            let outcome = try await client.download(from: url, to: part)
            tally.add(bytes: outcome.bytes)
            progress(tally.progress)
        }
        let (size, sha) = try FileDigest.of(file: part)
        let ext = Self.fileExtension(of: part, photo: photo)
        let relative = BackupLayout.original(id: photo.id, uploaded: photo.date_upload, extension: ext)
        let replaced = try state.record(BackupState.FileRow(path: relative, size: size, sha256: sha, owner: photo.id,
                                                           kind: .original, key: "pending:" + key))
        try place(part, at: relative)
        DownloadedFile.setTaken(photo.date_taken, at: layout.absolute(relative))  // file browsers sort by it
        try state.write { db in
            try db.execute(sql: "UPDATE file SET key = ? WHERE path = ?", arguments: [key, relative])
        }
        if let replaced { try? FileManager.default.removeItem(atPath: layout.absolute(replaced)) }
        return (relative, reused)
    }

    /// Where the original is: a video's from getSizes' "Video Original" (one call); a photo's
    /// `url_o` from the listing, else getSizes' "Original".
    func originalURL(_ photo: LibraryPhoto, tally: Tally) async throws -> String {
        if photo.media != "video", let url = photo.url_o, !url.isEmpty { return url }
        tally.call()
        let sizes = try await client.call("flickr.photos.getSizes", ["photo_id": photo.id])
        if photo.media == "video" {
            for entry in sizes["sizes.size"]?.array ?? [] where entry["label"]?.string == "Video Original" {
                if let source = entry["source"]?.string, !source.isEmpty { return source }
            }
            throw FlickrError(kind: .api, message: "Flickr offers no original of video \(photo.id) (no \"Video Original\" in getSizes)",
                              method: "backup")
        }
        return try PhotoSource.choose(fromSizes: sizes, size: .original, photoID: photo.id).url
    }

    /// The extension the file's own bytes call for (`jpg`, `png`, `mp4`, …), else the format
    /// the library knows.
    static func fileExtension(of path: String, photo: LibraryPhoto) -> String {
        if let type = MIMEType.forFile(atPath: path), let ext = MIMEType.fileExtension(forType: type) { return ext }
        if let format = photo.original_format, !format.isEmpty, photo.media != "video" { return format }
        return photo.media == "video" ? "mp4" : "jpg"
    }

    /// Moves `source` (in the backup's state folder) to `relative`, making its folder.
    func place(_ source: String, at relative: String) throws(LibraryError) {
        let target = layout.absolute(relative)
        let folder = (target as NSString).deletingLastPathComponent
        do {
            // The backup is as private as the library: folders 0700, files 0600.
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            if let posix = SystemErrors.posixCode(error), posix == ENOSPC || posix == EDQUOT { throw LibraryError.write(folder, errno: posix) }
            throw LibraryError("cannot create \(folder): \(error.localizedDescription)")
        }
        guard chmod(source, 0o600) == 0, rename(source, target) == 0 else {
            throw LibraryError("cannot move \(source) to \(target): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes a sidecar or manifest through `tmp/` (a whole file or none under its name) and
    /// records it.
    func writeText(_ text: String, to relative: String, owner: String, kind: BackupState.FileRow.Kind, key: String,
                   state: BackupState) throws(LibraryError) {
        let data = Data(text.utf8)
        let temporary = layout.temporary + "/" + UUID().uuidString
        guard FileManager.default.createFile(atPath: temporary, contents: data) else {
            let code = errno
            try? FileManager.default.removeItem(atPath: temporary)  // nothing half written stays
            throw LibraryError.write(temporary, errno: code)
        }
        try place(temporary, at: relative)
        let replaced = try state.record(BackupState.FileRow(path: relative, size: Int64(data.count), sha256: FileDigest.of(data),
                                                           owner: owner, kind: kind, key: key))
        if let replaced { try? FileManager.default.removeItem(atPath: layout.absolute(replaced)) }
    }

    // MARK: Recovery, sets, deletions, manifest

    /// Rows a killed run left pending: the file is moved into place from `parts/` if it is
    /// still there, taken as it is if it already has its name and hash, forgotten otherwise
    /// (so that it is fetched again).
    func settlePending(_ state: BackupState) throws(LibraryError) {
        let pending = try state.read { db in
            try BackupState.FileRow.fetchAll(db, sql: "SELECT * FROM file WHERE key LIKE 'pending:%'")
        }
        for var row in pending {
            let key = String(row.key.dropFirst("pending:".count))
            let part = layout.parts + "/" + BackupLayout.partName(id: row.owner, key: key)
            if FileManager.default.fileExists(atPath: part), let digest = try? FileDigest.of(file: part), digest.sha256 == row.sha256 {
                try place(part, at: row.path)
            }
            if let digest = try? FileDigest.of(file: layout.absolute(row.path)), digest.sha256 == row.sha256 {
                row.key = key
                try state.write { db in try row.save(db) }
            } else {
                try state.write { db in _ = try row.delete(db) }
            }
        }
        // A sidecar half-written into tmp/ never had its name: nothing to settle.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: layout.temporary)) ?? [] {
            try? FileManager.default.removeItem(atPath: layout.temporary + "/" + name)
        }
    }

    /// Downloads cut off mid-way, and finished ones no photo wants any more.
    func removeLeftoverParts() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: layout.parts)) ?? [] {
            try? FileManager.default.removeItem(atPath: layout.parts + "/" + name)
        }
    }

    /// The sets' manifests: written when new or changed. Returns how many were written.
    func writeSets(_ sets: [LibrarySet], state: BackupState,
                   rows: [String: [BackupState.FileRow.Kind: BackupState.FileRow]]) throws(LibraryError) -> Int {
        var written = 0
        for set in sets {
            let members: [JSONValue] = set.members.map { id in
                .object([("id", .string(id)), ("original", rows[id]?[.original].map { .string($0.path) } ?? .null)])
            }
            let value = JSONValue.object([
                ("format", .string(BackupSidecar.format)), ("id", .string(set.id)), ("title", .string(set.title)),
                ("description", .string(set.description)), ("primary", set.primary.map(JSONValue.string) ?? .null),
                ("date_create", set.dateCreate.map(JSONValue.number) ?? .null),
                ("date_update", set.dateUpdate.map(JSONValue.number) ?? .null), ("photos", .array(members)),
            ])
            let text = value.render(pretty: true) + "\n"
            let key = FileDigest.of(Data(text.utf8))
            let owner = "set:" + set.id
            if let row = rows[owner]?[.set], row.key == key, sound(row) { continue }
            try writeText(text, to: BackupLayout.set(id: set.id), owner: owner, kind: .set, key: key, state: state)
            written += 1
        }
        return written
    }

    /// Photos and sets Flickr no longer has: kept and counted, or with ``prune`` moved under
    /// `.deleted/` (same relative paths) and dropped from the manifest.
    func handleDeleted(_ state: BackupState, liveSets: Set<String>) throws(LibraryError) -> (kept: Int, pruned: Int) {
        let live = Set(try library.ids(LibraryFilter.all))
        let rows = try rowsByOwner(state)
        var kept = 0, pruned = 0
        for (owner, files) in rows.sorted(by: { $0.key < $1.key }) {
            let isSet = owner.hasPrefix("set:")
            let gone = isSet ? !liveSets.contains(String(owner.dropFirst(4))) : !live.contains(owner)
            guard gone else { continue }
            guard prune else {
                if !isSet { kept += 1 }
                continue
            }
            for row in files.values {
                let source = layout.absolute(row.path)
                let target = layout.absolute(BackupLayout.deletedFolder + "/" + row.path)
                try? FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                         withIntermediateDirectories: true)
                if FileManager.default.fileExists(atPath: source) {
                    try? FileManager.default.removeItem(atPath: target)
                    guard rename(source, target) == 0 else {
                        throw LibraryError("cannot move \(source) to \(target): \(String(cString: strerror(errno)))")
                    }
                }
            }
            try state.forget(owner: owner)
            if !isSet { pruned += 1 }
        }
        return (kept, pruned)
    }

    /// `manifest.json`: every file of the backup, one per line, written whole or not at all.
    func writeManifest(_ state: BackupState) throws(LibraryError) {
        let files = try state.files()
        var text = "{\"format\": \(JSONValue.quote(BackupSidecar.format)), \"account\": \(JSONValue.quote(library.account)), "
            + "\"files\": [\n"
        for (i, row) in files.enumerated() {
            let owner = row.kind == .set ? ("set", String(row.owner.dropFirst(4))) : ("photo", row.owner)
            text += " {\"path\": \(JSONValue.quote(row.path)), \"size\": \(row.size), \"sha256\": \"\(row.sha256)\", "
                + "\"kind\": \"\(row.kind.rawValue)\", \"\(owner.0)\": \(JSONValue.quote(owner.1))}"
                + (i + 1 < files.count ? ",\n" : "\n")
        }
        text += "]}\n"
        let temporary = layout.temporary + "/manifest.json"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else {
            throw LibraryError("cannot write \(temporary): \(String(cString: strerror(errno)))")
        }
        guard rename(temporary, layout.manifest) == 0 else {
            throw LibraryError("cannot write \(layout.manifest): \(String(cString: strerror(errno)))")
        }
    }
}
