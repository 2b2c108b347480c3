import FlickrProtocol

extension SandboxState {
    /// The index of the group `id` (an NSID or its name), or `missing`.
    func groupIndex(_ id: String?, missing: APIFailure) throws(APIFailure) -> Int {
        guard let id, let i = community.groups.firstIndex(where: { $0.nsid == id }) else { throw missing }
        return i
    }
}
