import FlickrProtocol

extension SandboxState {
    /// A new comment id for `author` on `target` (a photo or set id).
    mutating func commentID(author: String, target: String) -> String {
        "\(user(nsid: author)?.internalID ?? 0)-\(target)-\(community.newNumber())"
    }

    /// The photo and index of a photo comment: `2 Comment not found.` otherwise.
    func photoComment(_ id: String?) throws(APIFailure) -> (String, Int) {
        let parts = id?.split(separator: "-") ?? []
        guard let id, parts.count == 3, let photo = photos[String(parts[1])] else { throw APIFailure(.commentNotFound, "Comment not found.") }
        guard let i = photo.comments.firstIndex(where: { $0.id == id }) else { throw APIFailure(.commentNotFound, "Comment not found.") }
        return (photo.id, i)
    }

    /// The set and index of a photoset comment: `2 Comment not found.` otherwise.
    func setComment(_ id: String?) throws(APIFailure) -> (String, Int) {
        let parts = id?.split(separator: "-") ?? []
        guard let id, parts.count == 3, let list = community.setComments[String(parts[1])],
              let i = list.firstIndex(where: { $0.id == id }) else { throw APIFailure(.commentNotFound, "Comment not found.") }
        return (String(parts[1]), i)
    }
}
