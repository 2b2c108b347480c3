import FlickrAPI
import FlickrMedia
import FlickrProtocol
import Foundation

/// Plans a push, reading only — the folders, the library (brought up to date by an incremental
/// sync) and the files' metadata — and stores the job a batch at a time, as every plan is
/// stored (``JobStore/beginPlan(_:)``). A file is known by its content's SHA-256; a file whose
/// size and mtime match the library's record is not read at all.
public struct PushPlanner: Sendable {
    public let client: FlickrClient
    public let store: JobStore
    public let ledger: any PushLedger
    /// Reads the files' metadata (one process for the whole plan).
    public let exifTool: ExifTool
    /// Steps stored together.
    var batch = 1_000

    public init(client: FlickrClient, store: JobStore, ledger: any PushLedger, exifTool: ExifTool) {
        (self.client, self.store, self.ledger, self.exifTool) = (client, store, ledger, exifTool)
    }

    /// One line of the plan: what happens to a file (`upload`, `skip`, `move`, `replace`,
    /// `meta`, `delete`, or `changed`, `gone`, `ignored`: reported, nothing done), its path
    /// relative to its DIR, and why.
    public struct Line: Sendable, Hashable {
        public var action: String
        public var path: String
        public var detail: String?
    }

    /// What a plan found.
    public struct Result: Sendable {
        /// The job stored (nil: nothing to do).
        public var job: String?
        public var steps: [PushAction: Int] = [:]
        public var skipped = 0
        /// Files reported and left as they are (changed without `--replace`, gone without
        /// `--delete`, a changed video, a file that is not media).
        public var reported = 0
        /// Calls the plan made (the incremental sync's).
        public var calls = 0
        /// Calls `apply` will make, by the plan's count.
        public var applyCalls = 0
        /// Files hashed (their bytes read) and their bytes, and the seconds hashing took.
        public var hashed = 0
        public var hashedBytes: Int64 = 0
        public var hashSeconds = 0.0
        public var warnings: [String] = []
        /// Each file's line, when the front end keeps them (Lua's plan).
        public var lines: [Line] = []

        /// Steps planned, all kinds.
        public var changed: Int { steps.values.reduce(0, +) }
    }

    /// A file as the walk found it.
    struct Found {
        var root: String
        var path: String
        var size: Int64
        var mtime: Double
        var sidecar: String?
        var sidecarStamp: String?
    }

    /// Plans `spec`, telling `line` what happens to each file as it is decided. Throws a
    /// ``JobError`` for what cannot be planned (a missing folder; an empty or missing one with
    /// `--delete`), before anything is stored.
    public func plan(_ spec: PushSpec, line: (Line) -> Void = { _ in }) async throws -> Result {
        try spec.check()
        let roots = try Self.roots(spec)
        try Self.checkLogin(spec, client: client)
        var result = Result()
        let sentBefore = client.requestsSent
        // The folders first: one that would make --delete delete everything is refused before any request.
        var found: [Found] = []
        for root in roots {
            let (files, ignored) = Self.walk(root, ignore: spec.ignore)
            for (path, reason) in ignored {
                result.reported += 1
                line(Line(action: "ignored", path: path, detail: reason))
            }
            if spec.delete && files.isEmpty {
                throw JobError("\(root) holds no file to push, and --delete would delete every photo pushed from it "
                               + "(an unmounted disk looks like a deleted library): nothing planned")
            }
            found += files
        }
        _ = try await ledger.refresh()
        let owner = ledger.account
        let records = Dictionary(try ledger.pushRecords(roots: roots).map { ($0.root + "\u{0}" + $0.path, $0) }) { a, _ in a }
        let pushed = try ledger.pushedHashes()
        let backups = try ledger.backupHashes()
        let live = Set(try ledger.ids(find: [:]))

        // Pass 1: each file's identity (hash only what changed since the library saw it).
        var hashes: [String] = []
        var videos: [Bool] = []
        var media: [Bool] = []
        var cache: [PushRecord] = []
        for f in found {
            let key = f.root + "\u{0}" + f.path
            if let r = records[key], r.size == f.size, r.mtime == f.mtime {
                hashes.append(r.sha256)
                videos.append(r.video)
                media.append(true)
                continue
            }
            let absolute = f.root + "/" + f.path
            let checked = MediaFile.check(absolute, size: f.size)
            guard let mime = checked.mime, checked.refusal == nil else {
                let reason = checked.refusal ?? "not a photo or video Flickr accepts"
                result.reported += 1
                line(Line(action: "ignored", path: f.path, detail: reason))
                hashes.append("")
                videos.append(false)
                media.append(false)
                continue
            }
            let started = Date()
            let digest = try FileDigest.of(file: absolute)
            result.hashSeconds += Date().timeIntervalSince(started)
            result.hashed += 1
            result.hashedBytes += digest.size
            hashes.append(digest.sha256)
            videos.append(mime.hasPrefix("video/"))
            media.append(true)
            var row = records[key] ?? PushRecord(root: f.root, path: f.path, size: f.size, mtime: f.mtime, sha256: digest.sha256,
                                                 video: mime.hasPrefix("video/"))
            if row.photo == nil || row.sha256 == digest.sha256 {
                // A pushed file's record keeps its bytes' hash until the push that carries the change.
                (row.size, row.mtime, row.sha256) = (f.size, f.mtime, digest.sha256)
                cache.append(row)
            }
            if cache.count >= batch {
                try ledger.remember(cache)
                cache.removeAll()
            }
        }
        try ledger.remember(cache)
        var here: [String: String] = [:]  // root\0path → sha, of the files found
        for (f, sha) in zip(found, hashes) where !sha.isEmpty { here[f.root + "\u{0}" + f.path] = sha }

        // Pass 2: each file's step.
        let id = JobStore.newID(kind: JobKind.push.rawValue)
        var writer: JobStore.PlanWriter?
        var pending: [PushChange] = []
        var keys: Set<String> = []
        var uploading: [String: String] = [:]  // sha → path, of the files this plan uploads
        let rootNames = Dictionary(roots.map { ($0, ($0 as NSString).lastPathComponent) }) { a, _ in a }
        func setTitle(_ root: String, _ path: String) -> String? {
            switch spec.sets {
            case .none: return nil
            case .title(let t): return t
            case .folder:
                let folder = (path as NSString).deletingLastPathComponent
                return folder.isEmpty ? rootNames[root] : folder
            }
        }
        func add(_ change: PushChange, _ text: String, _ detail: String?) throws {
            guard keys.insert(change.key).inserted else {
                result.skipped += 1
                line(Line(action: "skip", path: change.path, detail: "photo \(change.photo ?? "") has a step already"))
                return
            }
            result.steps[change.action, default: 0] += 1
            result.applyCalls += Self.calls(change)
            line(Line(action: text, path: change.path, detail: detail))
            pending.append(change)
            if pending.count >= batch { try flush() }
        }
        func flush() throws {
            guard !pending.isEmpty else { return }
            if writer == nil {
                writer = try store.beginPlan(NewJob(id: id, kind: .push, undoOf: nil, owner: owner, endpoint: client.context.endpoints.rest,
                                                    rules: spec.rules, query: ["dirs": roots.joined(separator: "\n")],
                                                    planTime: Int(Date().timeIntervalSince1970) - 1, enumerated: found.count,
                                                    calls: 0, changes: []))
            }
            try store.append(&writer!, changes: pending, refused: [])
            pending.removeAll()
            CrashPoint.afterPlanBatch()
        }
        var adopted: [PushRecord] = []
        do {
            for (i, f) in found.enumerated() where media[i] {
                let sha = hashes[i], video = videos[i]
                let key = f.root + "\u{0}" + f.path
                let record = records[key]
                var change = PushChange(action: .upload, key: "file:" + f.root + "/" + f.path, root: f.root, path: f.path,
                                        size: f.size, mtime: f.mtime, sha256: sha, video: video)
                change.sidecar = f.sidecarStamp
                if let known = pushed[sha], let photo = known.photo, live.contains(photo) {
                    change.photo = photo
                    change.key = photo
                    if known.root == f.root && known.path == f.path {
                        // The file as pushed: only its metadata may have changed.
                        if known.size == f.size && known.mtime == f.mtime && known.sidecar == f.sidecarStamp {
                            result.skipped += 1
                            line(Line(action: "skip", path: f.path, detail: nil))
                            continue
                        }
                        let now = try meta(f, spec: spec, warnings: &result.warnings).target
                        change.meta = now
                        change.writes = try metaWrites(from: known.meta, to: now, photo: photo)
                        change.before = known.meta
                        change.joinSet = known.set
                        change.leaveSet = known.set
                        change.action = .meta
                        if change.writes.isEmpty {
                            // Touched, not changed: the record takes the new mtime, nothing is sent.
                            var r = known
                            (r.size, r.mtime, r.sidecar, r.meta) = (f.size, f.mtime, f.sidecarStamp, now)
                            adopted.append(r)
                            result.skipped += 1
                            line(Line(action: "skip", path: f.path, detail: nil))
                            continue
                        }
                        try add(change, "meta", change.writes.groups.joined(separator: ", "))
                    } else if here[known.root + "\u{0}" + known.path] == sha || !roots.contains(known.root) {
                        result.skipped += 1
                        line(Line(action: "skip", path: f.path, detail: "the same bytes as \(known.path), photo \(photo)"))
                    } else {
                        change.action = .move
                        change.from = known.path
                        change.fromRoot = known.root
                        change.meta = known.meta
                        change.before = known.meta
                        if known.size != f.size || known.mtime != f.mtime || known.sidecar != f.sidecarStamp {
                            // Moved and edited (a photo manager's move): its metadata goes too.
                            let now = try meta(f, spec: spec, warnings: &result.warnings).target
                            change.meta = now
                            change.writes = try metaWrites(from: known.meta, to: now, photo: photo)
                        }
                        change.leaveSet = known.set
                        change.joinSet = setTitle(f.root, f.path)
                        try add(change, "move", "from \(known.path)" + (change.joinSet != change.leaveSet
                                ? ", set \(change.leaveSet.map { "\"\($0)\"" } ?? "none") → \(change.joinSet.map { "\"\($0)\"" } ?? "none")" : ""))
                    }
                    continue
                }
                if let photo = backups[sha], live.contains(photo) {
                    // Known from a backup's manifest: on Flickr already, recorded without an upload.
                    adopted.append(PushRecord(root: f.root, path: f.path, size: f.size, mtime: f.mtime, sha256: sha, video: video, photo: photo,
                                              set: setTitle(f.root, f.path), meta: nil, sidecar: f.sidecarStamp))
                    result.skipped += 1
                    line(Line(action: "skip", path: f.path, detail: "photo \(photo), known from a backup"))
                    continue
                }
                if let first = uploading[sha] {
                    result.skipped += 1
                    line(Line(action: "skip", path: f.path, detail: "the same bytes as \(first), uploaded by this push"))
                    continue
                }
                if let record, let photo = record.photo, live.contains(photo) {
                    // Uploaded from this path; its bytes changed.
                    if video {
                        result.reported += 1
                        line(Line(action: "changed", path: f.path, detail: "a video cannot be replaced on Flickr (photo \(photo)); left as it is"))
                    } else if !spec.replace {
                        result.reported += 1
                        line(Line(action: "changed", path: f.path, detail: "photo \(photo) has other bytes; plan with --replace to replace it"))
                    } else {
                        change.action = .replace
                        change.photo = photo
                        change.key = photo
                        let now = try meta(f, spec: spec, warnings: &result.warnings).target
                        change.meta = now
                        change.writes = try metaWrites(from: record.meta, to: now, photo: photo)
                        change.before = record.meta
                        change.joinSet = record.set
                        change.leaveSet = record.set
                        try add(change, "replace", "photo \(photo)")
                    }
                    continue
                }
                let (fileOnly, target) = try meta(f, spec: spec, warnings: &result.warnings)
                change.meta = target
                change.upload = Self.uploadFields(f, spec: spec, fileOnly: fileOnly, target: target)
                change.writes = Self.writes(afterUpload: fileOnly, target: target)
                change.writes.license = spec.license
                change.joinSet = setTitle(f.root, f.path)
                uploading[sha] = f.path
                try add(change, "upload", change.joinSet.map { "set \"\($0)\"" })
            }
            // Files pushed before and gone now: neither at their path nor anywhere else.
            let seen = Set(hashes)
            for r in records.values.sorted(by: { ($0.root, $0.path) < ($1.root, $1.path) }) {
                guard let photo = r.photo, here[r.root + "\u{0}" + r.path] == nil, !seen.contains(r.sha256),
                      Self.isGone(r.root, r.path, ignore: spec.ignore) else { continue }
                guard live.contains(photo) else {
                    try ledger.forget(root: r.root, path: r.path)
                    continue
                }
                guard spec.delete, r.job != nil else {
                    result.reported += 1
                    line(Line(action: "gone", path: r.path, detail: "photo \(photo) stays on Flickr"
                              + (r.job == nil ? " (this push did not upload it: --delete leaves it)" : "; --delete deletes it")))
                    continue
                }
                var change = PushChange(action: .delete, key: photo, root: r.root, path: r.path, size: r.size, mtime: r.mtime,
                                        sha256: r.sha256, video: r.video)
                change.photo = photo
                change.keepOriginal = true
                change.leaveSet = r.set
                try add(change, "delete", "photo \(photo) (its original kept in \(r.root)/.flickr-deleted/)")
            }
            try ledger.remember(adopted)
            try flush()
            result.calls = client.requestsSent - sentBefore
            if let writer {
                try store.finish(writer, enumerated: found.count, calls: result.calls)
                result.job = id
            }
        } catch {
            if let writer { store.discard(writer) }
            throw error
        }
        return result
    }

    /// A push writes (and with `--delete` deletes): a login known to lack that is refused before
    /// any request (front ends call this before they open the library, which asks who is logged in).
    public static func checkLogin(_ spec: PushSpec, client: FlickrClient) throws(FlickrError) {
        try FlickrClient.checkPermission(spec.delete ? .delete : .write, for: spec.delete ? "flickr.photos.delete" : "flickr.photos.upload",
                                         context: client.context)
    }

    /// A file's modification time as the library records it (to the millisecond): the plan and
    /// the runner's check that a file is as planned must read it the same way.
    static func mtime(_ info: stat) -> Double {
        Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec / 1_000_000) / 1_000
    }

    /// Whether the file pushed from `path` under `root` is gone: no such file (not one that cannot
    /// be read, nor one `--ignore` now leaves out), in a folder that is not an empty one (an
    /// unmounted disk's mount point, reached through a link).
    static func isGone(_ root: String, _ path: String, ignore: [String]) -> Bool {
        let name = (path as NSString).lastPathComponent
        if ignore.contains(where: { fnmatch($0, path, 0) == 0 || (!$0.contains("/") && fnmatch($0, name, 0) == 0) }) { return false }
        var info = stat()
        guard lstat(root + "/" + path, &info) != 0, errno == ENOENT else { return false }
        var folder = ((root + "/" + path) as NSString).deletingLastPathComponent
        while folder.count > root.count {
            if FileManager.default.fileExists(atPath: folder) { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return (try? FileManager.default.contentsOfDirectory(atPath: folder))?.contains(where: { !$0.hasPrefix(".") }) == true
    }

    /// The writes from the metadata last pushed to the file's now. Without a record of what was
    /// pushed (a photo known from a backup) nothing is written: the file's metadata becomes the
    /// record. A title or description the file does not give keeps the photo's own (setMeta
    /// sets both), as the library knows it.
    func metaWrites(from before: PushMeta?, to now: PushMeta, photo: String) throws -> PushWrites {
        guard let before else { return PushWrites() }
        var w = Self.writes(from: before, to: now)
        if w.meta, now.title == nil || now.description == nil, let current = try ledger.metadata(of: [photo])[photo]?.metadata {
            if now.title == nil { w.title = current.title }
            if now.description == nil { w.description = current.description }
        }
        return w
    }

    /// The folders as real paths; a missing one is refused (with `--delete`, saying why it matters).
    public static func roots(_ spec: PushSpec) throws(JobError) -> [String] {
        var roots: [String] = []
        for dir in spec.dirs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), let real = FolderWalk.realPath(dir) else {
                throw JobError("\(dir): no such folder" + (spec.delete ? " (an unmounted disk looks like a deleted library; with --delete nothing is planned)" : ""))
            }
            guard isDirectory.boolValue else { throw JobError("\(dir) is a file, not a folder: push takes folders") }
            // An unmounted disk's mount point is an empty folder: with --delete, refused at once.
            if spec.delete, (try? FileManager.default.contentsOfDirectory(atPath: real))?.contains(where: { !$0.hasPrefix(".") }) != true {
                throw JobError("\(dir) is empty, and --delete would delete every photo pushed from it "
                               + "(an unmounted disk looks like a deleted library): nothing planned")
            }
            if !roots.contains(real) { roots.append(real) }
        }
        return roots
    }

    /// The files under `root` a push takes, in file-name order, each with its XMP sidecar, and
    /// what it leaves out by name (hidden entries, `@eaDir`, `Thumbs.db`, `--ignore`) and why.
    static func walk(_ root: String, ignore: [String]) -> (files: [Found], ignored: [(String, String)]) {
        var walk = FolderWalk()
        walk.exclude = { path in
            let name = (path as NSString).lastPathComponent
            if ["@eaDir", "Thumbs.db", "desktop.ini"].contains(name) { return true }
            let relative = String(path.dropFirst(root.count + 1))
            return ignore.contains { glob in
                fnmatch(glob, relative, 0) == 0 || (!glob.contains("/") && fnmatch(glob, name, 0) == 0)
            }
        }
        walk.read(root)
        let all = Set(walk.files)
        var files: [Found] = []
        var ignored: [(String, String)] = []
        for (path, reason) in walk.skipped { ignored.append((String(path.dropFirst(root.count + 1)), reason)) }
        for path in walk.files {
            let lower = path.lowercased()
            if lower.hasSuffix(".xmp") { continue }  // a sidecar, read with its file
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            var f = Found(root: root, path: String(path.dropFirst(root.count + 1)), size: Int64(info.st_size),
                          mtime: Self.mtime(info))
            let base = (path as NSString).deletingPathExtension
            for candidate in [path + ".xmp", path + ".XMP", base + ".xmp", base + ".XMP"] where all.contains(candidate) {
                var s = stat()
                if stat(candidate, &s) == 0 {
                    f.sidecar = candidate
                    f.sidecarStamp = "\(s.st_size):\(s.st_mtim.tv_sec).\(s.st_mtim.tv_nsec / 1_000_000)"
                }
                break
            }
            files.append(f)
        }
        return (files, ignored)
    }

    /// What Flickr reads from the file by itself (keywords whole, as its upload takes them) and
    /// what the push makes of the file and its sidecar.
    func meta(_ f: Found, spec: PushSpec, warnings: inout [String]) throws -> (fileOnly: PushMeta, target: PushMeta) {
        var file = EmbeddedMetadata()
        var sidecar: EmbeddedMetadata?
        guard exifTool.isAvailable else {
            throw JobError("exiftool is needed to read the files' metadata (Debian: apt-get install libimage-exiftool-perl)")
        }
        do { file = try exifTool.read(f.root + "/" + f.path) } catch { warnings.append("\(f.path): \(error.description)") }
        if let path = f.sidecar {
            do { sidecar = try exifTool.read(path) } catch { warnings.append("\(path): \(error.description)") }
        }
        var target = PushMeta.merged(file: file, sidecar: sidecar, fullKeywords: spec.fullKeywords)
        if spec.titleFromFilename { target.title = ((f.path as NSString).lastPathComponent as NSString).deletingPathExtension }
        return (PushMeta(embedded: file, fullKeywords: true), target)
    }

    /// An upload's fields: the options, and what the file's bytes do not say by themselves.
    static func uploadFields(_ f: Found, spec: PushSpec, fileOnly: PushMeta, target: PushMeta) -> [String: String] {
        var fields: [String: String] = [:]
        if target.title != fileOnly.title { fields["title"] = target.title ?? "" }
        if target.description != fileOnly.description { fields["description"] = target.description ?? "" }
        var tags = target.tags.filter { !fileOnly.tags.contains($0) }
        if let extra = spec.tags { tags += TagString.parse(extra).filter { !tags.contains($0) } }
        if !tags.isEmpty { fields["tags"] = TagString.join(tags) }
        if let p = spec.privacy {
            (fields["is_public"], fields["is_friend"], fields["is_family"]) = (p.isPublic ? "1" : "0", p.isFriend ? "1" : "0", p.isFamily ? "1" : "0")
        }
        if let s = spec.safety { fields["safety_level"] = String(s) }
        if spec.hidden { fields["hidden"] = "2" }
        return fields
    }

    /// The writes after an upload: what the sidecar says beyond the bytes (a date, a
    /// position), and the keywords Flickr took whole that the push maps to their last part.
    static func writes(afterUpload fileOnly: PushMeta, target: PushMeta) -> PushWrites {
        var w = PushWrites()
        w.removeTags = fileOnly.tags.filter { !target.tags.contains($0) }
        if let d = target.dateTaken, d != fileOnly.dateTaken { w.dateTaken = d }
        if let g = target.geo, g != fileOnly.geo { w.geo = g }
        return w
    }

    /// The writes that take a photo from the metadata last pushed to the file's now: one per
    /// changed group; a keyword gone from the file leaves the photo's tags, a tag added on
    /// Flickr by hand stays.
    static func writes(from before: PushMeta, to now: PushMeta) -> PushWrites {
        var w = PushWrites()
        if now.title != before.title || now.description != before.description {
            (w.meta, w.title, w.description) = (true, now.title ?? "", now.description ?? "")
        }
        w.addTags = now.tags.filter { !before.tags.contains($0) }
        w.removeTags = before.tags.filter { !now.tags.contains($0) }
        if now.dateTaken != before.dateTaken, let d = now.dateTaken { w.dateTaken = d }
        if now.geo != before.geo {
            if let g = now.geo { w.geo = g } else { w.clearGeo = true }
        }
        return w
    }

    /// The calls a step costs (a set joined: one; a delete: the original's sizes, the photo's
    /// record and the delete).
    static func calls(_ c: PushChange) -> Int {
        let sets = (c.joinSet != nil && c.joinSet != c.leaveSet ? 1 : 0) + (c.leaveSet != nil && c.joinSet != c.leaveSet ? 1 : 0)
        switch c.action {
        case .upload: return 1 + c.writes.calls + (c.joinSet == nil ? 0 : 1)
        case .move: return sets
        case .replace, .meta: return (c.action == .replace ? 1 : 0) + c.writes.calls
        case .delete: return c.keepOriginal ? 3 : 1
        }
    }
}

extension PushPlanner {
    /// Plans the undo of push `job` (reads only the journal): each photo it uploaded deleted
    /// (only those: one Flickr already had is left), each move's sets put back, each metadata
    /// write taken back to what the library recorded before it. A replace and a deletion cannot
    /// be taken back (Flickr keeps no earlier version; the original is in
    /// `DIR/.flickr-deleted/`): they are stored as refused, with the reason, and reported.
    public static func planUndo(of job: String, store: JobStore) throws -> Result {
        let header = try store.header(job)
        let id = JobStore.newID(kind: JobKind.push.rawValue)
        var result = Result()
        var writer = try store.beginPlan(NewJob(id: id, kind: .push, undoOf: job, owner: header.owner, endpoint: header.endpoint,
                                                rules: ["undo of \(job)"], query: try store.query(of: job), planTime: Int(Date().timeIntervalSince1970) - 1,
                                                enumerated: 0, calls: 0, changes: []))
        do {
            var enumerated = 0
            try store.eachPage(of: job, as: PushChange.self) { page in
                var steps: [PushChange] = []
                var refused: [(PushChange, String)] = []
                for entry in page {
                    let c = entry.change
                    // An upload's photo, once known: the journal's detail when done, its intent while writing.
                    let earlier = PushRunner.earlier(entry)
                    let said = c.action == .upload ? earlier.photo.map { "photo \($0)" + (earlier.already ? " (already on Flickr)" : "") } : entry.detail
                    guard entry.status == .done || (c.action == .upload && said != nil) else { continue }
                    enumerated += 1
                    var u = c
                    if c.action == .meta {
                        // Taken back to what the library recorded before the push.
                        (u.before, u.meta) = (c.meta, c.before)
                    }
                    switch c.action {
                    case .upload:
                        guard let said, let photo = said.split(separator: " ").first(where: { !$0.isEmpty && $0 != "photo" }).map(String.init) else { continue }
                        if said.contains("already on Flickr") { continue }
                        u.action = .delete
                        u.photo = photo
                        u.key = photo
                        // The file is the copy, unless it is gone or changed since: then the original is kept first.
                        var info = stat()
                        u.keepOriginal = !(stat(c.file, &info) == 0 && Int64(info.st_size) == c.size)
                        u.writes = PushWrites()
                        steps.append(u)
                    case .move:
                        (u.path, u.from) = (c.from ?? c.path, c.path)
                        (u.root, u.fromRoot) = (c.fromRoot ?? c.root, c.root)
                        (u.joinSet, u.leaveSet) = (c.leaveSet, c.joinSet)
                        u.writes = PushWrites()
                        steps.append(u)
                    case .meta:
                        u.writes = writes(from: c.meta ?? PushMeta(), to: c.before ?? PushMeta())
                        if !u.writes.isEmpty { steps.append(u) }
                    case .replace:
                        refused.append((u, "photo \(c.photo ?? "") was replaced by \(c.path): Flickr keeps no earlier version, so this cannot be undone"))
                    case .delete:
                        refused.append((u, "photo \(c.photo ?? "") was deleted: Flickr cannot bring it back; its original is in \(c.root)/.flickr-deleted/"))
                    }
                }
                for s in steps {
                    result.steps[s.action, default: 0] += 1
                    result.applyCalls += calls(s)
                }
                result.reported += refused.count
                try store.append(&writer, changes: steps, refused: refused)
            }
            try store.finish(writer, enumerated: enumerated, calls: 0)
        } catch {
            store.discard(writer)
            throw error
        }
        result.job = id
        return result
    }
}
