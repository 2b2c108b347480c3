import FlickrProtocol

extension SandboxState {
    /// The index of the photoset `id` (owned by `owner` when given): Flickr's error 1 otherwise.
    func photosetIndex(_ id: String?, ownedBy owner: String? = nil) throws(APIFailure) -> Int {
        guard let id, let i = photosets.firstIndex(where: { $0.id == id && (owner == nil || $0.owner == owner) }) else {
            throw APIFailure(.photosetNotFound, "Photoset not found")
        }
        return i
    }
}
