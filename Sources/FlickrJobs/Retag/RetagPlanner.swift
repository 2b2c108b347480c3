import FlickrAPI
import FlickrProtocol
import Foundation

/// Plans a retag job: reads only. Lists the selection, reads the raw tags of each photo a rule
/// may change (one `getInfo`), computes the target, and stores the job (pre-images and
/// targets) before anything is written.
public struct RetagPlanner: Sendable {
    public let client: FlickrClient
    public let store: JobStore
    /// Reads in flight at once.
    public var concurrency = 4
    /// A local mirror to select from and take raw tags from (FlickrLibrary's), refreshed first;
    /// nil plans from Flickr alone.
    public var source: (any JobSource)?

    public init(client: FlickrClient, store: JobStore) {
        self.client = client
        self.store = store
    }

    /// What planning found. The photos are in the job database, in plan order (read back a
    /// page at a time: ``JobStore/eachPage(of:as:statuses:size:_:)``); the result holds their
    /// counts.
    public struct Result: Sendable {
        public var job: String
        public var enumerated: Int
        /// Photos it will change (stored as planned).
        public var changed: Int
        /// Photos a rule could not apply to (over Flickr's 75 tags; stored as refused, with the reason).
        public var refused: Int
        /// Photos an undo leaves alone: changed since the job's write in what it would touch
        /// (stored as conflicts, with the reason).
        public var conflicts: Int = 0
        public var calls: Int
        /// Tags a `custom` rule returned that Flickr stores otherwise (or not at all).
        public var warnings: [String] = []
    }

    /// Plans `rules` (and `custom`, a per-photo rewrite run after them) over the photos
    /// `query` selects, by the one planning path (``JobPlanner``).
    public func plan(rules: [RetagRule], query: [String: String],
                     custom: (@Sendable (PhotoTags, [String]) async throws -> [String])? = nil) async throws -> Result {
        var planner = JobPlanner(client: client, store: store)
        (planner.concurrency, planner.source) = (concurrency, source)
        let p = try await planner.plan(RetagPlanWork(tagRules: rules, custom: custom, query: query), query: query, find: nil,
                                       mirrorQueries: true)
        return Result(job: p.job, enumerated: p.enumerated, changed: p.changed, refused: p.refused, calls: p.calls, warnings: p.warnings)
    }

    /// Plans the undo of `parent`: on every photo it touched, the tags it added are removed and
    /// the tags it removed come back — nothing else (``UndoStep``). A photo changed since the
    /// job's own write in what the undo would touch is a conflict, recorded and left as it is,
    /// unless `force`. Reads each photo as it is now.
    public func planUndo(of parent: String, force: Bool = false) async throws -> Result {
        let planTime = Int(Date().timeIntervalSince1970) - 1
        let header = try store.header(parent)
        let touched = try store.photos(of: parent).filter { $0.status != .planned && $0.status != .conflict }
        let byID = Dictionary(touched.map { ($0.change.pre.photoID, $0) }, uniquingKeysWith: { a, _ in a })
        let now = try await readTags(touched.map(\.change.pre.photoID))
        var changes: [PhotoChange] = []
        var conflicts: [(PhotoChange, String)] = []
        for current in now {
            guard let original = byID[current.photoID] else { continue }
            let step = UndoStep(job: original.change, wroteAll: original.status == .done)
            let (target, conflict) = step.target(current: current.ownerTags.map(\.raw), force: force)
            let change = PhotoChange(pre: current, target: target)
            if let conflict {
                conflicts.append((change, conflict))
            } else if PhotoStep.next(change, current: nil) != .done {
                changes.append(change)
            }
        }
        let id = JobStore.newID(kind: "undo")
        try store.create(NewJob(id: id, kind: .retag, undoOf: parent, owner: header.owner, endpoint: header.endpoint,
                                rules: ["undo \(parent)" + (force ? " --force" : "")], query: [:], planTime: planTime,
                                enumerated: touched.count, calls: now.count, changes: changes + conflicts.map(\.0)))
        for (change, reason) in conflicts {
            try store.record(job: id, photo: change.pre.photoID, .conflict, detail: reason)
        }
        return Result(job: id, enumerated: touched.count, changed: changes.count, refused: 0, conflicts: conflicts.count, calls: now.count)
    }

    /// `getInfo` for each photo, a few at a time, in the order given. A photo deleted since
    /// it was listed is left out.
    func readTags(_ ids: [String]) async throws -> [PhotoTags] {
        try await readConcurrently(ids, concurrency: concurrency) { [client] id in try await Self.read(id, client: client) }.compactMap { $0 }
    }

    /// A photo's tags as `getInfo` gives them; nil when the photo is gone.
    static func read(_ id: String, client: FlickrClient) async throws -> PhotoTags? {
        try await readInfo(id, client: client).flatMap { PhotoTags(getInfo: $0) }
    }
}

/// Retag's plan of one photo: its owner's tags after the rules (and a `--lua` function), other
/// members' tags kept and never added again, at most Flickr's 75 tags.
struct RetagPlanWork: PlanWork {
    static let kind = JobKind.retag
    let tagRules: [RetagRule]
    let custom: (@Sendable (PhotoTags, [String]) async throws -> [String])?
    let query: [String: String]

    var rules: [String] { tagRules.map(\.description) + (custom != nil ? ["--lua"] : []) }
    var recordedQuery: [String: String] { query }

    /// A photo no rule can touch by its clean tags is not read (a `--lua` function may touch any).
    func mayChange(_ photo: ListedPhoto) -> Bool {
        custom != nil || tagRules.contains { $0.mayAffect(cleanTags: photo.cleanTags) }
    }

    func mirrored(_ ids: [String], source: any JobSource) throws -> [String: PhotoTags] { try source.tags(of: ids) }

    func read(_ id: String, client: FlickrClient) async throws -> PhotoTags? { try await RetagPlanner.read(id, client: client) }

    func owner(of pre: PhotoTags) -> String { pre.owner }

    func plan(_ pre: PhotoTags) async throws -> (PhotoPlan<PhotoChange, String>, warnings: [String]) {
        var warnings: [String] = []
        var target = RetagRule.apply(tagRules, to: pre.ownerTags.map(\.raw))
        if let custom {
            // What the function returns is shown and written as Flickr will store it.
            var kept: [String] = []
            for raw in try await custom(pre, target) {
                if let stored = TagString.stored(raw) {
                    if stored != raw { warnings.append("photo \(pre.photoID): --lua tag '\(raw)' will be stored as '\(stored)'") }
                    kept.append(stored)
                } else {
                    warnings.append("photo \(pre.photoID): --lua tag '\(raw)' has no letter or digit; Flickr would not store it, so it is left out")
                }
            }
            target = RetagRule.apply([], to: kept)
        }
        // A tag another member already put on the photo is there: it is not added again.
        let others = Set(pre.otherTags.map { TagString.clean($0.raw) })
        target = target.filter { !others.contains(TagString.clean($0)) }
        let change = PhotoChange(pre: pre, target: target)
        guard PhotoStep.next(change, current: nil) != .done else { return (.unchanged, warnings) }
        if target.count + pre.otherTags.count > 75 {
            return (.refused(change, "would carry \(target.count + pre.otherTags.count) tags; Flickr allows 75"), warnings)
        }
        return (.change(change), warnings)
    }

    func detail(_ refusal: String) -> String { refusal }
}
