import Crypto
import FlickrAPI
import FlickrJobs
import FlickrMedia
import Foundation

/// Makes a tree for people and photo managers from a folder `flickr backup` made: each photo
/// as `DATE TITLE (ID).EXT` under its sets, its day or the folder itself (``ExportLayout``),
/// dated by when it was taken, and with `embed` its metadata written into the copy. It reads
/// only the backup (its state, sidecars and set files): no call, no download, no library.
///
/// The backup's originals are never written: each photo is copied once (its SHA-256 checked
/// against the backup's manifest on the way), and a photo in several sets is a hard link to
/// that copy in each. A second run writes only what changed, moves what only moved, and
/// removes what the backup no longer holds, touching no file it did not write.
///
/// kill -9 at any moment leaves nothing half written under a final name: a copy is made and
/// embedded in `DIR/.flickr-export/tmp/`, recorded pending, then renamed into place (each link
/// made in `tmp/` and renamed too); the next run settles or redoes a pending photo.
public struct LibraryExport: Sendable {
    /// The export's folder and the backup it reads.
    public let directory: String
    public let backup: String
    public var layout: ExportLayout = .set
    /// Write the metadata into the copies (a video gets an XMP sidecar).
    public var embed = false
    /// Also write the static site (``ExportGallery``): `DIR/index.html` and `DIR/gallery/`.
    public var gallery = false

    static let stateFolder = ".flickr-export"

    public init(directory: String, backup: String) {
        self.directory = BackupLayout(root: directory).root
        self.backup = BackupLayout(root: backup).root
    }

    var stateDirectory: String { directory + "/" + Self.stateFolder }
    var temporary: String { stateDirectory + "/tmp" }
    func absolute(_ relative: String) -> String { directory + "/" + relative }

    /// What a run did.
    public struct Summary: Sendable, Hashable, Codable {
        /// Photos the backup holds whole.
        public var photos = 0
        /// Copies written, and those only linked or moved into new places.
        public var written = 0
        public var moved = 0
        public var unchanged = 0
        /// Photos the backup no longer holds, whose files were removed.
        public var removed = 0
        /// Gallery pages written (new or changed) by this run.
        public var pages = 0
        /// Photos the backup holds only in part (a backup run did not finish them).
        public var incomplete: [String] = []
        public var failed: [Failure] = []
        public var interrupted = false
        public var diskFull = false
        /// Photos whose export is not current after this run.
        public var notExported = 0
        public var elapsed = 0.0
    }

    public struct Failure: Sendable, Hashable, Codable {
        public var photo: String
        public var reason: String
    }

    /// Where a run is.
    public struct Progress: Sendable, Hashable {
        public var done: Int
        public var total: Int
    }

    // MARK: - Checks and locks

    /// Refuses what cannot be exported, before anything is written: a BACKUP that is not one,
    /// a DIR that is a file, a non-empty folder that is not an export, and folders inside each
    /// other.
    public static func check(directory: String, backup: String) throws(LibraryError) {
        let target = BackupLayout(root: directory).root, source = BackupLayout(root: backup).root
        guard FileManager.default.fileExists(atPath: BackupLayout(root: source).database) else {
            throw LibraryError("\(source) is not a backup (no \(BackupLayout.stateFolder)/ in it): give the folder flickr backup wrote")
        }
        // Absolute, links resolved where the folder exists: `out` and `../backup/out` compare alike.
        let real = { (p: String) -> String in
            let absolute = URL(fileURLWithPath: p).standardizedFileURL.path
            return (FolderWalk.realPath(absolute) ?? absolute) + "/"
        }
        let (a, b) = (real(target), real(source))
        if a.hasPrefix(b) || b.hasPrefix(a) {
            throw LibraryError("\(target) and \(source) are inside each other: export into a folder outside the backup")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else { throw LibraryError("\(target) is a file, not a folder") }
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: target)) ?? []).filter { $0 != stateFolder }
        if !entries.isEmpty && !FileManager.default.fileExists(atPath: target + "/" + stateFolder + "/export.sqlite") {
            throw LibraryError("\(target) is not empty and is not an export (no \(stateFolder)/ in it): "
                               + "give an empty or new folder, or an earlier export's")
        }
    }

    /// The export's own lock (`DIR/.flickr-export/export.lock`): a second export into the folder
    /// is refused with `RunnerLock.Busy` naming its holder. Creates the folder.
    public static func lock(_ directory: String, command: String) throws -> RunnerLock {
        let root = BackupLayout(root: directory).root
        do {
            return try RunnerLock.acquire("export", in: root + "/" + stateFolder, command: command)
        } catch let error as JobError {
            throw LibraryError("\(root) cannot hold an export: \(error.message)")
        }
    }

    /// The backup, layout, embedding and gallery the last run into `directory` used; nil when
    /// it is no export.
    public static func previous(of directory: String) -> (backup: String, layout: ExportLayout, embed: Bool, gallery: Bool)? {
        let path = BackupLayout(root: directory).root + "/" + stateFolder + "/export.sqlite"
        guard FileManager.default.fileExists(atPath: path), let state = try? ExportState(path: path),
              let backup = try? state.meta("backup") else { return nil }
        let layout = ((try? state.meta("layout")) ?? nil).flatMap(ExportLayout.init(rawValue:)) ?? .set
        return (backup, layout, ((try? state.meta("embed")) ?? nil) == "1", ((try? state.meta("gallery")) ?? nil) == "1")
    }

    /// Marks the photos owning `paths` (faults `--verify` found) to be written again by the
    /// next run.
    public func invalidate(_ paths: [String]) throws(LibraryError) {
        try ExportState(path: stateDirectory + "/export.sqlite").invalidate(owning: Set(paths))
    }

    // MARK: - Reading the backup

    /// A set as the backup keeps it (`sets/SET_ID.json`): its title, description and photos in
    /// the set's order.
    struct BackupSet: Sendable, Hashable {
        var id: String
        var title: String
        var description: String
        var photos: [String]
    }

    /// The backup's photos held whole (original and sidecar), the ids of those held in part,
    /// and its sets.
    func readBackup() throws(LibraryError) -> (photos: [ExportPhoto], incomplete: [String], sets: [String: BackupSet]) {
        let state = try BackupState(BackupLayout(root: backup))
        var byOwner: [String: [BackupState.FileRow.Kind: BackupState.FileRow]] = [:]
        for row in try state.files() { byOwner[row.owner, default: [:]][row.kind] = row }
        var photos: [ExportPhoto] = [], incomplete: [String] = [], sets: [String: BackupSet] = [:]
        for (owner, rows) in byOwner.sorted(by: { $0.key < $1.key }) {
            if let set = rows[.set] {
                if let object = Self.json(backup + "/" + set.path), let id = object["id"] as? String {
                    let members = ((object["photos"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
                    sets[id] = BackupSet(id: id, title: object["title"] as? String ?? "", description: object["description"] as? String ?? "",
                                         photos: members)
                }
                continue
            }
            guard let original = rows[.original], let sidecar = rows[.sidecar], !original.key.hasPrefix("pending:"),
                  !BackupLayout.isBookkeeping(original.path) else {
                if rows[.original] != nil || rows[.sidecar] != nil { incomplete.append(owner) }
                continue
            }
            guard let object = Self.json(backup + "/" + sidecar.path),
                  let photo = ExportPhoto(sidecar: object, original: original.path, sha256: original.sha256) else {
                incomplete.append(owner)
                continue
            }
            photos.append(photo)
        }
        return (photos, incomplete, sets)
    }

    static func json(_ path: String) -> [String: Any]? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }

    /// What a photo's copy is, beyond the photo: the options that change its bytes.
    func fingerprint(_ p: ExportPhoto) -> String { p.fingerprint + "\u{1E}embed=\(embed)" }

    // MARK: - Running

    /// Runs the export. `shouldStop` is read between photos (Ctrl-C: what is done is kept).
    public func run(exifTool: ExifTool, shouldStop: @escaping @Sendable () -> Bool = { false },
                    progress: @escaping @Sendable (Progress) -> Void = { _ in }) throws(LibraryError) -> Summary {
        let started = Date()
        try Self.check(directory: directory, backup: backup)
        do {
            try PrivateFile.makeDirectory(temporary)
        } catch {
            throw LibraryError(error.message)
        }
        let state = try ExportState(path: stateDirectory + "/export.sqlite")
        if let from = try state.meta("backup"), from != (FolderWalk.realPath(backup) ?? backup) {
            throw LibraryError("\(directory) is the export of \(from), not of \(backup): give another folder")
        }
        try state.setMeta("backup", FolderWalk.realPath(backup) ?? backup)
        try state.setMeta("layout", layout.rawValue)
        try state.setMeta("embed", embed ? "1" : "0")
        try state.setMeta("gallery", gallery ? "1" : "0")
        // What a killed run left in tmp/ is no final file: gone.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] {
            try? FileManager.default.removeItem(atPath: temporary + "/" + name)
        }

        let (photos, incomplete, sets) = try readBackup()
        let setTitles = sets.mapValues(\.title)
        var summary = Summary()
        summary.photos = photos.count
        summary.incomplete = incomplete
        let paths = ExportTree.paths(photos, by: layout, setTitles: setTitles)
        let rows = try state.rows()
        // Every path some row names: a file there is this export's to replace.
        var owned = Set(rows.values.flatMap { $0.pathList })

        var pending: [ExportPhoto] = []
        for p in photos {
            let want = paths[p.id] ?? []
            if let row = rows[p.id], row.fingerprint == fingerprint(p), row.pathList == want, sound(row) {
                summary.unchanged += 1
            } else {
                pending.append(p)
            }
        }
        progress(Progress(done: 0, total: pending.count))
        var done = 0
        for p in pending {
            if shouldStop() { summary.interrupted = true; break }
            let want = paths[p.id] ?? []
            do {
                let moved = try put(p, at: want, row: rows[p.id], owned: owned, state: state, exifTool: exifTool)
                if moved { summary.moved += 1 } else { summary.written += 1 }
                owned.formUnion(want)
            } catch let error as LibraryError where error.diskFull {
                summary.failed.append(Failure(photo: p.id, reason: error.message))
                summary.diskFull = true
                break
            } catch {
                summary.failed.append(Failure(photo: p.id, reason: "\(error)"))
            }
            done += 1
            progress(Progress(done: done, total: pending.count))
        }
        // What the backup no longer holds (deleted on Flickr and pruned, or never whole).
        if !summary.interrupted && !summary.diskFull {
            let held = Set(photos.map(\.id))
            for (id, row) in rows where !held.contains(id) && !incomplete.contains(id) {
                for path in row.pathList { removeFile(path, xmp: row.xmp) }
                try state.forget(id)
                summary.removed += 1
            }
        }
        let current = try state.rows()
        if gallery && !summary.interrupted && !summary.diskFull {
            let entries = photos.compactMap { p in current[p.id]?.pathList.first.map { ExportGallery.Entry(photo: p, path: $0) } }
            summary.pages = try writePages(ExportGallery.pages(entries, sets: sets))
        }
        summary.notExported = photos.filter { p in
            guard let row = current[p.id] else { return true }
            return row.fingerprint != fingerprint(p) || row.pathList != (paths[p.id] ?? [])
        }.count
        summary.elapsed = Date().timeIntervalSince(started)
        return summary
    }

    /// Writes the site's pages whose text changed (each in tmp/ first, then renamed into place)
    /// and removes the pages of `gallery/` no longer made; returns how many were written.
    func writePages(_ pages: [String: String]) throws(LibraryError) -> Int {
        var written = 0
        for (path, text) in pages.sorted(by: { $0.key < $1.key }) {
            let target = absolute(path), data = Data(text.utf8)
            if (try? Data(contentsOf: URL(fileURLWithPath: target))) == data { continue }
            let staged = temporary + "/page.html"
            do {
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try data.write(to: URL(fileURLWithPath: staged))
            } catch {
                throw LibraryError.write(target, errno: SystemErrors.posixCode(error) ?? EIO)
            }
            try rename(staged, target)
            written += 1
        }
        let folder = absolute(ExportGallery.folder)
        let walker = FileManager.default.enumerator(atPath: folder)
        while let relative = walker?.nextObject() as? String {
            let path = ExportGallery.folder + "/" + relative
            if relative.hasSuffix(".html") && pages[path] == nil { removeFile(path, xmp: false) }
        }
        return written
    }

    /// Whether a row's files are all there, at their recorded size and time, one file (hard
    /// links): a copy changed since (an editor saving over it) is written again. A change that
    /// keeps both (a flipped bit) is what `--verify` finds and `--verify --repair` mends.
    func sound(_ row: ExportState.Row) -> Bool {
        var first: (dev: UInt64, ino: UInt64)?
        for path in row.pathList {
            var st = stat()
            guard stat(absolute(path), &st) == 0, Int64(st.st_size) == row.size, Int64(st.st_mtim.tv_sec) == row.mtime else { return false }
            let id = (UInt64(st.st_dev), UInt64(st.st_ino))
            if let first, first != id { return false }
            first = id
            if row.xmp && access(absolute(path) + ".xmp", F_OK) != 0 { return false }
        }
        return first != nil
    }

    /// Puts photo `p` at `paths`: the copy (made again, or taken from a sound file of the
    /// photo's old row when only its places changed) renamed into the first, hard links in the
    /// others; then removes the old row's other paths. Returns whether it only moved.
    func put(_ p: ExportPhoto, at paths: [String], row old: ExportState.Row?, owned: Set<String>, state: ExportState,
             exifTool: ExifTool) throws -> Bool {
        guard let first = paths.first else { throw LibraryError("photo \(p.id) has no place in the export") }
        let mine = Set(old?.pathList ?? [])
        for path in paths where !mine.contains(path) && !owned.contains(path) && FileManager.default.fileExists(atPath: absolute(path)) {
            throw LibraryError("\(absolute(path)) exists and is not this export's: move it away and run the export again")
        }
        let staged = temporary + "/\(p.id).\(p.fileExtension.isEmpty ? "bin" : p.fileExtension)"
        let fp = fingerprint(p)
        var moved = false
        var xmp = embed && p.isVideo
        // Only the places changed: the old copy is whole and current, so it moves (a link to
        // it in tmp/, renamed into place) instead of being copied and embedded again.
        if let old, old.fingerprint == fp, sound(old), let source = old.pathList.first {
            guard link(absolute(source), staged) == 0 else { throw LibraryError.write(staged, errno: errno) }
            if old.xmp { _ = link(absolute(source) + ".xmp", staged + ".xmp") }
            (moved, xmp) = (true, old.xmp)
        } else {
            try copyOriginal(p, to: staged)
            if embed {
                do {
                    if p.isVideo {
                        try exifTool.write(staged + ".xmp", ExportEmbedding.xmp(p))
                    } else {
                        try exifTool.write(staged, ExportEmbedding.assignments(p))
                    }
                } catch {
                    try? FileManager.default.removeItem(atPath: staged)
                    try? FileManager.default.removeItem(atPath: staged + ".xmp")
                    throw LibraryError("photo \(p.id): \(error.description)")
                }
            }
            if let date = p.modificationTime {
                try? FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: staged)
                if xmp { try? FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: staged + ".xmp") }
            }
        }
        let digest: (size: Int64, sha256: String)
        do { digest = try FileDigest.of(file: staged) } catch { throw LibraryError(error.message) }
        var st = stat()
        guard stat(staged, &st) == 0 else { throw LibraryError("cannot read \(staged): \(String(cString: strerror(errno)))") }
        let mtime = Int64(st.st_mtim.tv_sec)
        // Pending from here: a kill leaves each path with a whole old or new file, and the next
        // run finds the row pending and puts the photo again.
        try state.save(ExportState.Row(id: p.id, fingerprint: "pending:" + fp, paths: ExportState.Row.encode(paths),
                                       size: digest.size, sha256: digest.sha256, source: p.sha256, xmp: xmp, mtime: mtime))
        for (n, path) in paths.enumerated() {
            let target = absolute(path)
            let parent = (target as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw LibraryError.write(parent, errno: SystemErrors.posixCode(error) ?? EIO)
            }
            if n > 0 {
                // A link made in tmp/ and renamed: the place holds the old file or the new.
                try linkStaged(absolute(first), staged)
                if xmp { try linkStaged(absolute(first) + ".xmp", staged + ".xmp") }
            }
            if xmp { try rename(staged + ".xmp", target + ".xmp") }
            try rename(staged, target)
        }
        for path in mine.subtracting(paths) { removeFile(path, xmp: old?.xmp ?? false) }
        try state.save(ExportState.Row(id: p.id, fingerprint: fp, paths: ExportState.Row.encode(paths),
                                       size: digest.size, sha256: digest.sha256, source: p.sha256, xmp: xmp, mtime: mtime))
        return moved
    }

    func linkStaged(_ source: String, _ staged: String) throws(LibraryError) {
        try? FileManager.default.removeItem(atPath: staged)
        guard link(source, staged) == 0 else { throw LibraryError.write(staged, errno: errno) }
    }

    func rename(_ from: String, _ to: String) throws(LibraryError) {
        guard Foundation.rename(from, to) == 0 else { throw LibraryError.write(to, errno: errno) }
    }

    /// Copies the backup's original of `p` to `staged`, hashing what it reads: an original
    /// whose SHA-256 is not the manifest's is refused (the backup's --verify --repair mends it).
    func copyOriginal(_ p: ExportPhoto, to staged: String) throws(LibraryError) {
        let source = backup + "/" + p.original
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw LibraryError("cannot read \(source): \(String(cString: strerror(errno)))") }
        defer { close(input) }
        // The backup's mode: a private photo's original is its owner's alone (0600), and so is its copy.
        var st = stat()
        let mode = fstat(input, &st) == 0 ? mode_t(st.st_mode & 0o777) : 0o600
        let output = open(staged, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard output >= 0 else { throw LibraryError.write(staged, errno: errno) }
        _ = fchmod(output, mode)
        var closed = false
        defer { if !closed { close(output) } }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        while true {
            let n = read(input, buffer.baseAddress, buffer.count)
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw LibraryError("cannot read \(source): \(String(cString: strerror(errno)))")
            }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            var written = 0
            while written < n {
                let w = Foundation.write(output, buffer.baseAddress! + written, n - written)
                if w < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    try? FileManager.default.removeItem(atPath: staged)
                    throw LibraryError.write(staged, errno: code)
                }
                written += w
            }
        }
        closed = true
        if fsync(output) != 0 || close(output) != 0 {
            let code = errno
            try? FileManager.default.removeItem(atPath: staged)
            throw LibraryError.write(staged, errno: code)
        }
        guard FileDigest.hex(hasher.finalize()) == p.sha256 else {
            try? FileManager.default.removeItem(atPath: staged)
            throw LibraryError("the backup's original \(source) is not the one its manifest names (SHA-256 differs): "
                               + "run flickr backup --verify --repair \(backup), then export again")
        }
    }

    /// Removes a file this export wrote (and its sidecar), then the folders that leaves empty.
    func removeFile(_ path: String, xmp: Bool) {
        let target = absolute(path)
        try? FileManager.default.removeItem(atPath: target)
        if xmp { try? FileManager.default.removeItem(atPath: target + ".xmp") }
        var folder = (target as NSString).deletingLastPathComponent
        while folder.count > directory.count, folder.hasPrefix(directory + "/"),
              ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? ["?"]).isEmpty {
            try? FileManager.default.removeItem(atPath: folder)
            folder = (folder as NSString).deletingLastPathComponent
        }
    }
}
