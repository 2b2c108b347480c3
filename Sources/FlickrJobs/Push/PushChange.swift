/// What a push does with one file (``PushChange``). Files already on Flickr as they are
/// (`skip`) are reported by the plan and are no part of the job.
public enum PushAction: String, Sendable, Hashable, Codable, CaseIterable {
    /// A file Flickr does not have: uploaded (asking Flickr's duplicate check), then its set.
    case upload
    /// The same bytes at another path: set membership follows the folder, nothing uploaded.
    case move
    /// A file uploaded from this path whose bytes changed: `photos.replace` (`--replace`).
    case replace
    /// Only the file's metadata or its sidecar changed: one write per changed field group.
    case meta
    /// A photo this push uploaded whose file is gone (`--delete`): its original kept in
    /// `DIR/.flickr-deleted/`, then deleted on Flickr. An undo's `delete` takes back an upload.
    case delete
}

/// The writes a push sends to a photo besides its bytes and its sets, each group one call (or,
/// for tags, one per tag removed and one for those added).
public struct PushWrites: Sendable, Hashable, Codable {
    /// `photos.setMeta` with both (Flickr sets the two together).
    public var meta: Bool = false
    public var title: String = ""
    public var description: String = ""
    public var addTags: [String] = []
    public var removeTags: [String] = []
    /// `photos.setDates`.
    public var dateTaken: String?
    /// `photos.geo.setLocation` (`[latitude, longitude]`), or `photos.geo.removeLocation`.
    public var geo: [Double]?
    public var clearGeo: Bool = false
    /// `photos.licenses.setLicense`.
    public var license: Int?

    public init() {}

    /// Nothing to write.
    public var isEmpty: Bool { self == PushWrites() }

    /// Calls it makes (a tag removal reads the photo's tag ids first: one more).
    public var calls: Int {
        (meta ? 1 : 0) + (addTags.isEmpty ? 0 : 1) + (removeTags.isEmpty ? 0 : 1 + removeTags.count)
            + (dateTaken == nil ? 0 : 1) + (geo != nil || clearGeo ? 1 : 0) + (license == nil ? 0 : 1)
    }

    /// The field groups it writes, for the plan's lines.
    public var groups: [String] {
        var g: [String] = []
        if meta { g.append("title/description") }
        if !addTags.isEmpty || !removeTags.isEmpty {
            g.append("tags" + (addTags.isEmpty ? "" : " +" + addTags.joined(separator: " +"))
                     + (removeTags.isEmpty ? "" : " -" + removeTags.joined(separator: " -")))
        }
        if let dateTaken { g.append("taken \(dateTaken)") }
        if let geo { g.append("geo \(geo.map { String($0) }.joined(separator: ","))") }
        if clearGeo { g.append("geo removed") }
        if let license { g.append("license \(license)") }
        return g
    }
}

/// One step of a push job, as the journal stores it: a file to upload, or a photo already on
/// Flickr to move between sets, replace, write metadata to or delete.
public struct PushChange: Sendable, Hashable, Codable {
    public var action: PushAction
    /// The journal's key: the photo's id, or `file:ROOT/PATH` for a file not yet uploaded.
    public var key: String
    /// The Flickr photo (nil for an upload until its answer).
    public var photo: String?
    /// The folder pushed (its real path), and the file's path relative to it.
    public var root: String
    public var path: String
    /// A move's path before, and its folder when another of the push's folders held it.
    public var from: String?
    public var fromRoot: String?
    public var size: Int64
    /// The file's modification time (seconds since 1970).
    public var mtime: Double
    public var sha256: String
    public var video: Bool
    /// The sidecar's size and mtime as `SIZE:MTIME` (nil: none), recorded with the file.
    public var sidecar: String?
    /// The file's metadata now (with its sidecar's), which the library records as pushed.
    public var meta: PushMeta?
    /// The metadata the library recorded as pushed before this step (an undo writes it back).
    public var before: PushMeta?
    /// An upload's fields (privacy, safety, hidden, and what Flickr would not read from the
    /// bytes by itself: a sidecar's title, the tags).
    public var upload: [String: String] = [:]
    public var writes = PushWrites()
    /// The set the photo joins (by title; created when missing), and the one it leaves.
    public var joinSet: String?
    public var leaveSet: String?
    /// A delete keeps the original first (`DIR/.flickr-deleted/ID.EXT` and `ID.json`); an
    /// undo's delete of a photo the job uploaded does not (the file is in the folder).
    public var keepOriginal = false
    /// The photo's `lastupdate` when planned (0 for an upload).
    public var lastUpdate: Int = 0

    public init(action: PushAction, key: String, root: String, path: String, size: Int64, mtime: Double, sha256: String, video: Bool) {
        (self.action, self.key, self.root, self.path) = (action, key, root, path)
        (self.size, self.mtime, self.sha256, self.video) = (size, mtime, sha256, video)
    }

    /// The file on disk.
    public var file: String { root + "/" + path }
}

extension PushChange: JobChange {
    public var photoID: String { key }
}

/// What a push records in the library for each file it has seen: the path, size, mtime and
/// SHA-256 (a file whose size and mtime did not change is not read again), and for a file on
/// Flickr its photo, set and the metadata last pushed.
public struct PushRecord: Sendable, Hashable {
    public var root: String
    public var path: String
    public var size: Int64
    public var mtime: Double
    public var sha256: String
    public var video: Bool
    /// The photo this file is on Flickr (nil: hashed only, not pushed).
    public var photo: String?
    /// The set it was put in (title).
    public var set: String?
    public var meta: PushMeta?
    public var sidecar: String?
    /// The job that uploaded it.
    public var job: String?

    public init(root: String, path: String, size: Int64, mtime: Double, sha256: String, video: Bool, photo: String? = nil,
                set: String? = nil, meta: PushMeta? = nil, sidecar: String? = nil, job: String? = nil) {
        (self.root, self.path, self.size, self.mtime, self.sha256, self.video) = (root, path, size, mtime, sha256, video)
        (self.photo, self.set, self.meta, self.sidecar, self.job) = (photo, set, meta, sidecar, job)
    }
}

/// The library as a push's memory (FlickrLibrary's `LibraryJobSource`): which files were pushed
/// as which photos, the hashes of files seen, and the hashes a backup knows.
public protocol PushLedger: JobSource {
    /// Every record under these folders (real paths).
    func pushRecords(roots: [String]) throws -> [PushRecord]
    /// A record on Flickr for each SHA-256 pushed from any folder.
    func pushedHashes() throws -> [String: PushRecord]
    /// Stores records (replacing those of the same folder and path).
    func remember(_ records: [PushRecord]) throws
    /// Forgets the record of `path` under `root`.
    func forget(root: String, path: String) throws
    /// SHA-256 → photo id of every original in the backups this library made (`flickr backup`).
    func backupHashes() throws -> [String: String]
    /// The account's sets as the library knows them, title → id (the first of equal titles).
    func setIDs() throws -> [String: String]
}

extension JobStore {
    /// The steps of a push job (or of its undo) in plan order.
    public func pushSteps(of job: String) throws(JobError) -> [JournalEntry<PushChange>] { try entries(of: job, as: PushChange.self) }
}
