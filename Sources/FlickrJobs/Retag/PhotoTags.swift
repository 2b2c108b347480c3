import FlickrProtocol

/// One tag on a photo as `flickr.photos.getInfo` reports it.
public struct PhotoTag: Sendable, Hashable, Codable {
    public var id: String
    public var author: String
    public var raw: String

    public init(id: String, author: String, raw: String) {
        self.id = id
        self.author = author
        self.raw = raw
    }
}

/// A photo's tags and `lastupdate`, read from Flickr.
public struct PhotoTags: Sendable, Hashable, Codable {
    public var photoID: String
    public var owner: String
    public var lastUpdate: Int
    public var tags: [PhotoTag]

    public init(photoID: String, owner: String, lastUpdate: Int, tags: [PhotoTag]) {
        self.photoID = photoID
        self.owner = owner
        self.lastUpdate = lastUpdate
        self.tags = tags
    }

    /// The owner's own tags (the only ones a job touches).
    public var ownerTags: [PhotoTag] { tags.filter { $0.author == owner } }
    /// Other members' tags (kept as they are: raw form, author and id).
    public var otherTags: [PhotoTag] { tags.filter { $0.author != owner } }

    /// Reads them from a `flickr.photos.getInfo` answer.
    public init?(getInfo rsp: FlickrNode) {
        guard let photo = rsp["photo"], let id = photo["id"]?.string, let owner = photo["owner"]?["nsid"]?.string else { return nil }
        photoID = id
        self.owner = owner
        lastUpdate = photo["dates"]?["lastupdate"]?.int ?? 0
        tags = (photo["tags"]?["tag"]?.array ?? []).compactMap { t in
            guard let id = t["id"]?.string, let author = t["author"]?.string, let raw = t["raw"]?.string else { return nil }
            return PhotoTag(id: id, author: author, raw: raw)
        }
    }
}

/// What a job does to one photo: from the owner's tags in `pre` to `target` (raw forms).
public struct PhotoChange: Sendable, Hashable, Codable {
    public var pre: PhotoTags
    public var target: [String]

    public init(pre: PhotoTags, target: [String]) {
        self.pre = pre
        self.target = target
    }

    /// Raw forms removed and added, for the diff.
    public var removed: [String] { pre.ownerTags.map(\.raw).filter { !target.contains($0) } }
    public var added: [String] { target.filter { raw in !pre.ownerTags.contains { $0.raw == raw } } }
}

/// The next step for one photo, decided from what the job planned and what the photo holds
/// now. A pure function (a state machine's transition), tested apart from any I/O.
public enum PhotoStep: Sendable, Hashable {
    /// The owner's tags are the target: nothing to do.
    case done
    case write(TagWrite)
    /// The photo was changed by someone else: never overwritten.
    case conflict(String)

    /// `current` is the photo as read now; nil when the job has not written it yet and trusts
    /// the plan's pre-image (the conflict check was made by other means).
    public static func next(_ change: PhotoChange, current: PhotoTags?) -> PhotoStep {
        let now = current ?? change.pre
        let own = now.ownerTags
        if Set(own.map(\.raw)) == Set(change.target), own.count == change.target.count { return .done }
        if let current {
            // Other members' tags must be as planned, and every own tag either from the
            // pre-image or the target (a partial run of ours); anything else is someone's edit.
            guard Set(current.otherTags) == Set(change.pre.otherTags) else {
                return .conflict("another member's tags changed since the plan")
            }
            let known = Set(change.pre.ownerTags.map(\.raw)).union(change.target)
            if let stranger = own.first(where: { !known.contains($0.raw) }) {
                return .conflict("tag \"\(stranger.raw)\" was added since the plan")
            }
        }
        return .write(TagWrite.toward(change.target, tags: now.tags, owner: now.owner))
    }
}
