import FlickrProtocol

extension SandboxState {
    /// The photo and index of a note: `1 Note not found` otherwise.
    func note(_ id: String?) throws(APIFailure) -> (String, Int) {
        guard let id else { throw APIFailure(.noteNotFound, "Note not found") }
        for photo in photos.values {
            if let i = photo.notes.firstIndex(where: { $0.id == id }) { return (photo.id, i) }
        }
        throw APIFailure(.noteNotFound, "Note not found")
    }

    /// The photo and index of a suggestion: `1 Suggestion not found` otherwise.
    func suggestion(_ id: String?) throws(APIFailure) -> (String, Int) {
        guard let id else { throw APIFailure(.suggestionNotFound, "Suggestion not found") }
        for photo in photos.values {
            if let i = photo.suggestions.firstIndex(where: { $0.id == id }) { return (photo.id, i) }
        }
        throw APIFailure(.suggestionNotFound, "Suggestion not found")
    }

    /// The photo (`photo_id`, visible to the caller) and the index of the person `user_id` in it.
    func personTag(_ call: MethodCall, caller: String) throws(APIFailure) -> (SandboxPhoto, Int) {
        guard let person = resolveUser(call.string("user_id") ?? "") else { throw APIFailure(.personNotFound, "Person not found") }
        let photo = try annotatablePhoto(call.string("photo_id"), caller: caller, code: .photoNotFoundCode2)
        guard let i = photo.people.firstIndex(where: { $0.user == person.nsid }) else { throw APIFailure(.personNotFound, "Person not found") }
        return (photo, i)
    }
}
