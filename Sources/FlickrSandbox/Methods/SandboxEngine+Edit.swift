import FlickrProtocol

extension SandboxEngine {
    /// Runs `change` on the photo `photo_id` when the caller owns it (else error `code`
    /// `message`, Flickr's "Photo not found" for someone else's photo) and stamps its
    /// `lastupdate`; every edit of a photo goes through here or ``touch(_:now:)``.
    func editOwnedPhoto(_ call: MethodCall, code: Int = 1, message: String = "Photo not found",
                        _ change: (inout SandboxPhoto, inout SandboxState) throws(APIFailure) -> Void) throws(APIFailure) {
        let user = try call.requireUser()
        try store.update { (s: inout SandboxState) throws(APIFailure) in
            var photo = try s.ownedPhoto(call.string("photo_id"), caller: user, code: code, message: message)
            try change(&photo, &s)
            photo.lastUpdate = max(call.now, photo.lastUpdate)
            s.photos[photo.id] = photo
        }
    }
}

extension SandboxState {
    /// Stamps `lastupdate` on photos changed by something other than their own record (a set,
    /// a pool, a gallery listing them).
    mutating func touch(_ ids: some Sequence<String>, now: Int) {
        for id in ids where photos[id] != nil { photos[id]!.lastUpdate = max(now, photos[id]!.lastUpdate) }
    }

    /// A photo the caller may see and annotate (comments, notes, people): error `code` otherwise.
    func annotatablePhoto(_ id: String?, caller: String, code: Int = 1, message: String = "Photo not found") throws(APIFailure) -> SandboxPhoto {
        guard let id, let photo = photos[id], canSee(photo, caller: caller) else { throw APIFailure(code, message) }
        return photo
    }
}

extension MethodCall {
    /// A required numeric argument, or `failure` when it is absent or not a number.
    func double(_ name: String, or failure: APIFailure) throws(APIFailure) -> Double {
        guard let v = string(name).flatMap(Double.init), v.isFinite else { throw failure }
        return v
    }

    /// A comma-separated list of ids.
    func list(_ name: String) -> [String] {
        (string(name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
