import FlickrProtocol

extension SandboxState {
    /// Whether `photo` may go into a gallery of `curator`: someone else's public photo.
    func canFeature(_ photo: SandboxPhoto, in curator: String) -> Bool { photo.isPublic && photo.owner != curator }

    /// The gallery `id`, or `1 Invalid gallery ID`.
    func gallery(_ id: String?) throws(APIFailure) -> SandboxGallery {
        guard let id, let g = community.galleries.first(where: { $0.id == id }) else { throw APIFailure(.invalidGalleryID, "Invalid gallery ID") }
        return g
    }
}
