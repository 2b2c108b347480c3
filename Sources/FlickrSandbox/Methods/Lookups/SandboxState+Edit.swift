import FlickrProtocol

extension SandboxState {
    /// Stamps `lastupdate` on photos changed by something other than their own record (a set,
    /// a pool, a gallery listing them).
    mutating func touch(_ ids: some Sequence<String>, now: Int) {
        for id in ids where photos[id] != nil { photos[id]!.stampUpdate(now) }
    }

    /// A photo the caller may see and annotate (comments, notes, people): error `code` otherwise.
    func annotatablePhoto(_ id: String?, caller: String, code: FlickrErrorCode = .photoNotFound, message: String = "Photo not found") throws(APIFailure) -> SandboxPhoto {
        guard let id, let photo = photos[id], canSee(photo, caller: caller) else { throw APIFailure(code, message) }
        return photo
    }
}
