import FlickrProtocol

extension SandboxState {
    /// The public photos carrying clean tag `tag`.
    func publicPhotos(carrying tag: String) -> [SandboxPhoto] {
        guard !tag.isEmpty, let number = photos.index.tagNumber(tag) else { return [] }
        var out: [SandboxPhoto] = []
        for r in photos.index.rows.indices where photos.index.tags(ofRow: r).contains(number) {
            if let p = photos[photos.index.rows[r].id], p.isPublic { out.append(p) }
        }
        return out
    }

    /// What `getPopular`/`stats` sort by: views, comments, favourites (interesting: views).
    func popularity(_ p: SandboxPhoto, by sort: String) -> Int {
        switch sort {
        case "comments": return p.comments.count
        case "favorites", "faves": return favorites.filter { $0.photo == p.id }.count
        default: return p.views
        }
    }
}
