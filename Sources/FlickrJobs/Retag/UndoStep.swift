import FlickrProtocol

/// What undoing a job does to one photo: the raw tags the job added leave, the raw tags it
/// removed come back, every other tag stays (a tag added since the job is not the job's to
/// erase). A pure function, tested apart from any I/O.
public struct UndoStep: Sendable, Hashable {
    /// The job's raw forms added and removed (a case-only rename is both).
    public var added: [String]
    public var removed: [String]
    /// The job wrote this photo completely (`done`); otherwise (a run cut short) some of its
    /// writes may be missing, which is then not a sign of someone else's edit.
    public var wroteAll: Bool

    public init(job change: PhotoChange, wroteAll: Bool) {
        let before = change.pre.ownerTags.map(\.raw)
        added = change.target.filter { !before.contains($0) }
        removed = before.filter { !change.target.contains($0) }
        self.wroteAll = wroteAll
    }

    /// The owner's raw tags after the undo, from `current` (the owner's raw tags now), and the
    /// conflict that stops it, if any: a tag the job added that is gone or written otherwise,
    /// or a tag it removed that is back. `force` undoes anyway: what the job added leaves,
    /// what it removed comes back as it was written before the job.
    public func target(current: [String], force: Bool) -> (target: [String], conflict: String?) {
        let removedClean = Set(removed.map(TagString.clean))
        var conflict: String?
        if wroteAll, let gone = added.first(where: { !current.contains($0) }) {
            conflict = "tag \"\(gone)\" that the job added was changed or removed since; the undo would not put back what was there"
        } else if wroteAll, let back = current.first(where: { removedClean.contains(TagString.clean($0)) && !added.contains($0) }) {
            conflict = "tag \"\(back)\" was added again since the job removed it"
        }
        let undone = undo(current, force: force)
        // Already as the undo would leave it (undone by hand, say): nothing to do, no conflict.
        if Set(undone) == Set(current) { return (current, nil) }
        if conflict != nil, !force { return (current, conflict) }
        return (undone, nil)
    }

    /// `current` with what the job added taken out and what it removed put back.
    func undo(_ current: [String], force: Bool) -> [String] {
        let removedClean = Set(removed.map(TagString.clean))
        // Leave: the job's own raw forms; with force also a later tag standing where a removed
        // one comes back.
        var out = current.filter { raw in
            if added.contains(raw) { return false }
            if force, removedClean.contains(TagString.clean(raw)) { return false }
            return true
        }
        for raw in removed where !out.contains(where: { TagString.clean($0) == TagString.clean(raw) }) {
            out.append(raw)
        }
        var seen = Set<String>()
        return out.filter { seen.insert(TagString.clean($0)).inserted }
    }
}
