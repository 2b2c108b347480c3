import FlickrProtocol

extension SandboxStore {
    /// Runs `change` on the photo `photo_id` when the caller owns it (else error `code`
    /// `message`, Flickr's "Photo not found" for someone else's photo) and stamps its
    /// `lastupdate`; every edit of a photo goes through here or ``touch(_:now:)``.
    func editOwnedPhoto(_ call: MethodCall, code: FlickrErrorCode = .photoNotFound, message: String = "Photo not found",
                        _ change: (inout SandboxPhoto, inout SandboxState) throws(APIFailure) -> Void) throws(APIFailure) {
        let user = try call.requireUser()
        try update { (s: inout SandboxState) throws(APIFailure) in
            var photo = try s.ownedPhoto(call.string("photo_id"), caller: user, code: code, message: message)
            try change(&photo, &s)
            photo.stampUpdate(call.now)
            s.photos[photo.id] = photo
        }
    }
}
