import FlickrJobs

/// A streamed plan read back whole from the job database, for assertions (the commands read it a
/// page at a time).
extension EditPlanner.Result {
    /// The changes it planned, in plan order (whatever a run did with them since).
    func changes(_ store: JobStore) throws -> [EditChange] {
        try store.editPhotos(of: job).filter { $0.status != .refused }.map(\.change)
    }

    /// The photos it refused, with the refusal as the journal keeps it.
    func refusals(_ store: JobStore) throws -> [(photo: String, refusal: EditRefusal)] {
        try store.editPhotos(of: job).filter { $0.status == .refused }.compactMap { p in
            p.detail.flatMap(EditRefusal.init(journalDetail:)).map { (p.change.pre.photoID, $0) }
        }
    }

    /// The diff as `flickr edit plan` prints it.
    func diff(_ store: JobStore) throws -> String {
        var text = ""
        try EditReport.writeDiff(self, store: store, budget: nil, names: EditReport.Names()) { text += $0 }
        return text
    }

    /// The plan's JSON document as `--json` prints it.
    func document(_ store: JobStore) throws -> String {
        var text = ""
        try EditReport.writePlanJSON(self, store: store, names: EditReport.Names()) { text += $0 }
        return text
    }
}
