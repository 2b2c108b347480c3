import FlickrAPI
import FlickrProtocol
import Foundation

/// Plans an edit job: reads only. Selects the photos (`--find` from the library, `--query` from
/// Flickr), reads each one's pre-image (from the library when it holds every field the edit
/// changes, else `getInfo`, with `getAllContexts` when sets change), computes each photo's
/// targets, refuses what Flickr would refuse for a photo, and stores the job — pre-images and
/// targets — before anything is written. A set `--create-set` asks for is named `new:TITLE` in
/// the targets and created by apply.
public struct EditPlanner: Sendable {
    public let client: FlickrClient
    public let store: JobStore
    /// Reads in flight at once.
    public var concurrency = 4
    /// Photos read, planned and stored together: a plan's memory grows with it, not with the
    /// number of photos selected.
    public var batch = 1_000
    /// The library on disk, refreshed first; nil plans from Flickr alone.
    public var source: (any JobSource)?
    /// The licence ids Flickr offers, when read (``licenses(client:)``): a licence a ``Custom``
    /// asks for that is not among them is refused for that photo. Nil: not checked.
    public var licenses: Set<Int>?
    /// Calls made for this plan before ``plan(_:query:find:rules:custom:)`` (the licences' and
    /// sets' lists read to check the options): the job counts them with its own.
    public var lookupCalls = 0

    public init(client: FlickrClient, store: JobStore) {
        self.client = client
        self.store = store
    }

    /// What planning found. The photos are in the job database, in plan order (read back a
    /// page at a time: ``JobStore/eachPage(of:as:statuses:size:_:)``, ``EditReport``); the
    /// result holds their counts.
    public struct Result: Sendable {
        public var job: String
        public var enumerated: Int
        /// Photos it will change (stored as planned).
        public var changed: Int
        /// Photos whose change Flickr would refuse (stored as refused, never sent).
        public var refused: Int
        /// Photos an undo leaves alone: changed since the job's write in what it would put back
        /// (stored as conflicts).
        public var conflicts: Int = 0
        public var calls: Int
        public var warnings: [String] = []
    }

    /// A per-photo rewrite run after the options (`--lua`, a Lua `rule`): the pre-image and the
    /// template fields in, the groups to change out (nil: unchanged). Its values are checked as
    /// the options' are (``EditValue/refusal(on:licenses:now:)``); one Flickr would refuse
    /// refuses that photo, with the reason, and so does an ``EditRefusal`` it throws. Any other
    /// error stops the plan, nothing stored.
    public typealias Custom = @Sendable (PhotoMetadata, [String: String]) async throws -> [EditValue]?

    /// Plans `spec` over the photos `find` (the library's filter keys) or `query` (Flickr's
    /// search arguments) selects, by the one planning path (``JobPlanner``); `rules` is the
    /// options as given, kept with the job.
    public func plan(_ spec: EditSpec, query: [String: String], find: [String: String]?, rules: [String],
                     custom: Custom? = nil) async throws -> Result {
        var planner = JobPlanner(client: client, store: store)
        (planner.concurrency, planner.source, planner.lookupCalls, planner.batch) = (concurrency, source, lookupCalls, batch)
        let recorded = find.map { Dictionary(uniqueKeysWithValues: $0.map { ("find:" + $0.key, $0.value) }) } ?? query
        let work = EditPlanWork(spec: spec, rules: rules, recordedQuery: recorded, custom: custom, licenses: licenses)
        let p = try await planner.plan(work, query: query, find: find, mirrorQueries: false)
        return Result(job: p.job, enumerated: p.enumerated, changed: p.changed, refused: p.refused, calls: p.calls, warnings: p.warnings)
    }

    /// Plans the undo of edit job `parent`: on every photo it touched, each group it wrote goes
    /// back to its pre-image (sets: the sets joined are left, those left joined again) — nothing
    /// else. A group changed since the job's write is a conflict, left as it is, unless `force`.
    public func planUndo(of parent: String, force: Bool = false) async throws -> Result {
        let planTime = Int(Date().timeIntervalSince1970) - 1
        let header = try store.header(parent)
        let touched = try store.editPhotos(of: parent).filter { $0.status == .done || $0.status == .conflict || $0.status == .failed || $0.status == .writing }
            .filter { !$0.change.targets.isEmpty }
        let created = try store.createdSets(parent)
        let needsSets = touched.contains { $0.change.fields.contains(.sets) }
        var (now, calls) = try await readAll(touched.map(\.change.pre.photoID), sets: needsSets)
        // Flickr deletes a set when its last photo leaves it: such a set cannot be joined again.
        var existing: Set<String>?
        if needsSets {
            existing = Set(try await Self.sets(client: client).map(\.id))
            calls += 1
        }
        var changes: [EditChange] = []
        var conflicts: [(photo: String, reason: String)] = []
        // What the undo cannot put back and no one can change (a set Flickr deleted): said, not a conflict.
        var notes: [String] = []
        for photo in touched {
            guard let current = now[photo.change.pre.photoID]?.metadata else { continue }
            let job = Self.resolving(photo.change, created: created)
            var targets: [EditValue] = []
            var reasons: [String] = []
            for wanted in job.targets {
                let field = wanted.field
                let before = job.pre.value(field)
                // A content type read is unknown (getInfo has none): taken to be as the job wrote it.
                let value = field == .contentType && current.contentType == nil ? wanted : current.value(field)
                if value.matches(before) { continue }            // never written, or already undone
                if case .sets(let nowSets) = value, case .sets(let pre) = before, case .sets(let target) = wanted {
                    // Undo only the job's own joins and leaves; a set joined since stays.
                    var back = nowSets.subtracting(target.subtracting(pre)).union(pre.subtracting(target))
                    if let existing, case let gone = back.subtracting(existing).subtracting(nowSets), !gone.isEmpty {
                        back.subtract(gone)
                        notes.append("photo \(photo.change.pre.photoID): set\(gone.count == 1 ? "" : "s") \(gone.sorted().joined(separator: ", ")) "
                                     + "no longer exist\(gone.count == 1 ? "s" : "") (Flickr deletes a set when its last photo leaves it): not joined again")
                    }
                    if !value.matches(.sets(back)) { targets.append(.sets(back)) }
                    continue
                }
                if case .tags(let nowTags) = value, case .tags(let pre) = before, case .tags(let target) = wanted {
                    // Retag's rule: the tags the job added leave, those it removed come back, and a
                    // tag added since stays — never a conflict.
                    let (added, removed) = (Set(target).subtracting(pre), Set(pre).subtracting(target))
                    let kept = nowTags.filter { !added.contains($0) }
                    let back = kept + pre.filter { removed.contains($0) && !kept.contains($0) }
                    if !value.matches(.tags(back)) { targets.append(.tags(back)) }
                    continue
                }
                if value.matches(wanted) || force {
                    targets.append(before)
                } else {
                    reasons.append("\(field.rawValue) changed since the job wrote it (now \(value)); left as it is (--force puts back \(before))")
                }
            }
            if !reasons.isEmpty && !force {
                // As retag's undo: a photo changed since in what the undo would put back is left
                // as it is, counted and named; `--force` undoes it anyway.
                conflicts.append((photo.change.pre.photoID, reasons.joined(separator: "; ")))
                continue
            }
            if !targets.isEmpty { changes.append(EditChange(pre: current, targets: targets)) }
        }
        let id = JobStore.newID(kind: "undo")
        try store.create(NewJob(id: id, kind: .edit, undoOf: parent, owner: header.owner, endpoint: header.endpoint,
                                    rules: ["undo \(parent)" + (force ? " --force" : "")], query: [:], planTime: planTime,
                                    enumerated: touched.count, calls: calls, changes: []),
                             changes: changes + conflicts.compactMap { conflict in now[conflict.photo].map { EditChange(pre: $0.metadata, targets: []) } })
        for (photo, reason) in conflicts {
            try store.record(job: id, photo: photo, .conflict, detail: reason)
        }
        return Result(job: id, enumerated: touched.count, changed: changes.count, refused: 0, conflicts: conflicts.count, calls: calls,
                      warnings: notes)
    }

    /// A change with the sets apply created put in place of their `new:TITLE` names.
    static func resolving(_ change: EditChange, created: [String: String]) -> EditChange {
        guard !created.isEmpty else { return change }
        var out = change
        out.targets = change.targets.map { target in
            guard case .sets(let ids) = target else { return target }
            return .sets(Set(ids.map { id in id.hasPrefix("new:") ? created[String(id.dropFirst(4))] ?? id : id }))
        }
        return out
    }

    // MARK: Reading

    /// `getInfo` (and `getAllContexts` when `sets`) for each photo, a few at a time; a photo
    /// deleted since it was listed is left out. Returns the pre-images with their template fields.
    func readAll(_ ids: [String], sets: Bool) async throws -> ([String: (metadata: PhotoMetadata, fields: [String: String])], Int) {
        var out: [String: (metadata: PhotoMetadata, fields: [String: String])] = [:]
        for case let (id, metadata, fields)? in try await readConcurrently(ids, concurrency: concurrency, { [client] id in
            try await Self.read(id, sets: sets, client: client)
        }) {
            out[id] = (metadata, fields)
        }
        return (out, ids.count * (sets ? 2 : 1))
    }

    /// One photo as an edit sees it, with the fields its templates read; nil when it is gone.
    static func read(_ id: String, sets: Bool, client: FlickrClient) async throws -> (String, PhotoMetadata, [String: String])? {
        guard let info = try await readInfo(id, client: client) else { return nil }
        var setIDs: [String]?
        if sets {
            let contexts = try await client.call("flickr.photos.getAllContexts", ["photo_id": id])
            setIDs = (contexts["set"]?.array ?? []).compactMap { $0["id"]?.string }
        }
        guard let metadata = PhotoMetadata(getInfo: info, sets: setIDs) else { return nil }
        return (id, metadata, fields(metadata, info: info["photo"]))
    }

    /// The fields templates read, from the pre-image and (when at hand) getInfo's answer.
    public static func fields(_ m: PhotoMetadata, info: FlickrNode?) -> [String: String] {
        var f: [String: String] = ["id": m.photoID, "title": m.title, "description": m.description, "date_taken": m.dateTaken,
                                   "owner": m.owner, "license": String(m.license), "last_update": String(m.lastUpdate),
                                   "ispublic": m.privacy.isPublic ? "1" : "0", "isfriend": m.privacy.isFriend ? "1" : "0",
                                   "isfamily": m.privacy.isFamily ? "1" : "0",
                                   "tags": m.ownerTags.filter { !TagString.isMachineTag($0) }.joined(separator: " "),
                                   "machine_tags": m.ownerTags.filter(TagString.isMachineTag).joined(separator: " ")]
        if let geo = m.geo {
            (f["latitude"], f["longitude"], f["accuracy"]) = (String(geo.latitude), String(geo.longitude), String(geo.accuracy))
        }
        if let info {
            f["date_upload"] = info["dates"]?["posted"]?.string
            f["views"] = info["views"]?.string
            f["media"] = info["media"]?.string
            f["original_format"] = info["originalformat"]?.string
        }
        return f
    }

    /// Each photo's content type, which getInfo does not give: the account's photos listed per
    /// type (`people.getPhotos` with `content_types`, 500 a page).
    static func contentTypes(client: FlickrClient) async throws -> [String: Int] {
        var out: [String: Int] = [:]
        for type in 1...3 {
            var page = 1
            while true {
                let rsp = try await client.call("flickr.people.getPhotos", ["user_id": "me", "content_types": String(type),
                                                                            "per_page": "500", "page": String(page)])
                for p in rsp["photos"]?["photo"]?.array ?? [] { if let id = p["id"]?.string { out[id] = type } }
                if page >= (rsp["photos"]?["pages"]?.int ?? 1) { break }
                page += 1
            }
        }
        return out
    }

    /// The licences Flickr offers (`photos.licenses.getInfo`, one call): id and name.
    public static func licenses(client: FlickrClient) async throws -> [(id: Int, name: String)] {
        let rsp = try await client.call("flickr.photos.licenses.getInfo")
        return (rsp["licenses"]?["license"]?.array ?? []).compactMap { l in
            guard let id = l["id"]?.int, let name = l["name"]?.string else { return nil }
            return (id, name)
        }
    }

    /// The caller's sets (`photosets.getList`, every page): id, title and size (photos and videos).
    public static func sets(client: FlickrClient) async throws -> [(id: String, title: String, size: Int)] {
        var out: [(id: String, title: String, size: Int)] = []
        var page = 1
        while true {
            let rsp = try await client.call("flickr.photosets.getList", ["per_page": "500", "page": String(page)])
            for s in rsp["photosets"]?["photoset"]?.array ?? [] {
                if let id = s["id"]?.string {
                    out.append((id, s["title"]?.text ?? "", (s["photos"]?.int ?? 0) + (s["videos"]?.int ?? 0)))
                }
            }
            if page >= (rsp["photosets"]?["pages"]?.int ?? 1) { break }
            page += 1
        }
        return out
    }

    /// `--add-to-set` / `--remove-from-set`'s TITLE or ID among the caller's sets; with
    /// `create`, a title no set has becomes `new:TITLE` (apply creates it). A set of another
    /// user, or an unknown one, is refused before any write.
    public static func resolveSet(_ given: String, among sets: [(id: String, title: String, size: Int)], create: Bool,
                                  option: String) throws(EditSpecError) -> String {
        if sets.contains(where: { $0.id == given }) { return given }
        let titled = sets.filter { $0.title == given }
        if titled.count == 1 { return titled[0].id }
        if titled.count > 1 {
            throw EditSpecError("\(option): \(titled.count) of your sets are titled \"\(given)\" (\(titled.map(\.id).joined(separator: ", "))); give its id")
        }
        if create, !given.allSatisfy(\.isNumber) { return "new:" + given }
        throw EditSpecError("\(option): you have no set \(given.allSatisfy(\.isNumber) ? "with id" : "titled") \"\(given)\""
                            + (given.allSatisfy(\.isNumber) ? " (a set of another user cannot be changed)" : " (--create-set makes it)"))
    }
}

/// An edit's plan of one photo: the groups `spec` (and a `--lua` or Lua rule) change, those
/// already holding their target left out, and what Flickr would refuse refused.
struct EditPlanWork: PlanWork {
    /// A photo's pre-image and the fields its templates read.
    struct Pre: Sendable {
        var metadata: PhotoMetadata
        var fields: [String: String]
    }

    static let kind = JobKind.edit
    let spec: EditSpec
    let rules: [String]
    let recordedQuery: [String: String]
    let custom: EditPlanner.Custom?
    let licenses: Set<Int>?
    /// Each photo's content type (``prepared(client:)``), when the edit may change it.
    var contentTypes: [String: Int]?

    /// The sets a photo is in are read when the edit changes sets (or a rule may).
    var needsSets: Bool { !spec.addToSets.isEmpty || !spec.removeFromSets.isEmpty || custom != nil }

    /// The library answers for a photo when it holds every group the edit reads: not the
    /// safety level or the content type, raw tags only when current.
    func mirrored(_ ids: [String], source: any JobSource) throws -> [String: Pre] {
        guard spec.safety == nil, custom == nil else { return [:] }
        var known: [String: Pre] = [:]
        for (id, entry) in try source.metadata(of: ids) where spec.tagRules.isEmpty || entry.rawTagsCurrent {
            known[id] = Pre(metadata: entry.metadata, fields: entry.fields)
        }
        return known
    }

    func read(_ id: String, client: FlickrClient) async throws -> Pre? {
        try await EditPlanner.read(id, sets: needsSets, client: client).map { Pre(metadata: $0.1, fields: $0.2) }
    }

    /// Each photo's content type, which getInfo does not give, when the edit may change it:
    /// read once for the plan (a few calls per 500 photos).
    func prepared(client: FlickrClient) async throws -> Self {
        guard spec.contentType != nil || custom != nil else { return self }
        var work = self
        work.contentTypes = try await EditPlanner.contentTypes(client: client)
        return work
    }

    func complete(_ pres: inout [String: Pre]) {
        guard let contentTypes else { return }
        for (id, pre) in pres { pres[id]?.metadata.contentType = contentTypes[id] ?? pre.metadata.contentType }
    }

    func owner(of pre: Pre) -> String { pre.metadata.owner }

    func plan(_ photo: Pre) async throws -> (PhotoPlan<EditChange, EditRefusal>, warnings: [String]) {
        let (pre, fields) = (photo.metadata, photo.fields)
        let refused = { (refusal: EditRefusal) in (PhotoPlan<EditChange, EditRefusal>.refused(EditChange(pre: pre, targets: []), refusal), warnings: [String]()) }
        var targets: [EditValue]
        switch spec.targets(for: pre, fields: fields) {
        case .success(let t): targets = t
        case .failure(let refusal): return refused(refusal)
        }
        if let custom {
            let more: [EditValue]?
            do { more = try await custom(pre, fields) } catch let refusal as EditRefusal { return refused(refusal) }
            let asked = (more ?? []).filter { !pre.value($0.field).matches($0) }
            if let refusal = asked.lazy.compactMap({ $0.refusal(on: pre, licenses: licenses) }).first { return refused(refusal) }
            for value in more ?? [] {
                targets.removeAll { $0.field == value.field }
                if !pre.value(value.field).matches(value) { targets.append(value) }
            }
        }
        // A shifted date known only to the month or year moves whole (TakenDate.shifted): said, so
        // that nobody takes it for a shift to the hour.
        var warnings: [String] = []
        if spec.shiftTaken != nil, pre.takenGranularity != 0,
           case .dates(let taken, let granularity)? = targets.first(where: { $0.field == .dates }) {
            let unit = TakenDate.granularityName(granularity)
            warnings.append("photo \(pre.photoID): its date taken is known to the \(unit) only (\(pre.dateTaken)): "
                            + "moved by whole \(unit == "month" ? "months" : "years"), to \(taken)")
        }
        return (targets.isEmpty ? .unchanged : .change(EditChange(pre: pre, targets: targets)), warnings)
    }

    func detail(_ refusal: EditRefusal) -> String { refusal.journalDetail }
}
