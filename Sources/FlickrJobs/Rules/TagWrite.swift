import FlickrAPI
import FlickrProtocol

/// The one tag writer of every job (retag's, and edit's tag group): the calls that take the
/// owner's tags on a photo to a target while never removing a tag the owner did not add.
///
/// Flickr does not document whether `flickr.photos.setTags` keeps the tags other members put on
/// the owner's photo, and no source we have establishes it; so it is sent only to a photo that
/// carries no other member's tag, and otherwise the owner's tags that leave are removed one by
/// one by id and those that arrive added, which touches nothing else.
public enum TagWrite: Sendable, Hashable, CustomStringConvertible {
    /// One `flickr.photos.setTags` with the whole target, for a photo with no other member's
    /// tag. Idempotent: a retry after a lost answer does no harm.
    case setTags([String])
    /// `flickr.photos.removeTag` by id for each tag leaving, then one `flickr.photos.addTags`
    /// for those arriving. A lost answer is settled by reading the photo (a second removeTag of
    /// the same id fails).
    case removeThenAdd(remove: [PhotoTag], add: [String])

    /// The write that takes `owner`'s tags among `tags` (the photo as last read) to `target`
    /// (raw forms).
    public static func toward(_ target: [String], tags: [PhotoTag], owner: String) -> TagWrite {
        let own = tags.filter { $0.author == owner }
        guard own.count < tags.count else { return .setTags(target) }
        return .removeThenAdd(remove: own.filter { !target.contains($0.raw) },
                              add: target.filter { raw in !own.contains { $0.raw == raw } })
    }

    /// The calls it makes.
    public var calls: Int {
        switch self {
        case .setTags: return 1
        case .removeThenAdd(let r, let a): return r.count + (a.isEmpty ? 0 : 1)
        }
    }

    /// Whether a tag to remove has no known id (a pre-image from a source that does not keep
    /// them): the photo must be read before this write can be sent.
    public var needsTagIDs: Bool {
        if case .removeThenAdd(let remove, _) = self { return remove.contains { $0.id.isEmpty } }
        return false
    }

    /// The requests, in order. `removeTag` names its tag by `tag_id` alone; the others get
    /// `photo_id` when `photo` is given (edit's runner adds it to each group's calls itself).
    public func requests(photo: String?) -> [(method: String, arguments: [String: String])] {
        func on(_ arguments: [String: String]) -> [String: String] {
            var arguments = arguments
            if let photo { arguments["photo_id"] = photo }
            return arguments
        }
        switch self {
        case .setTags(let tags):
            return [("flickr.photos.setTags", on(["tags": TagString.join(tags)]))]
        case .removeThenAdd(let remove, let add):
            return remove.map { ("flickr.photos.removeTag", ["tag_id": $0.id]) }
                + (add.isEmpty ? [] : [("flickr.photos.addTags", on(["tags": TagString.join(add)]))])
        }
    }

    /// Whether `error` proves the write did not happen: Flickr refused it (not with 105 or 106,
    /// after which it may have happened), or it was never sent. A removeTag "not found" is no
    /// proof: an earlier attempt may have removed it.
    public func isRefusal(_ error: FlickrError) -> Bool {
        switch error.kind {
        case .usage, .oauth: return true
        case .api:
            if case .removeThenAdd = self { return false }
            return !FlickrErrorCode.serviceUnavailable.matches(error.code) && !FlickrErrorCode.writeFailed.matches(error.code)
        default: return false
        }
    }

    /// The journal's intent line.
    public var description: String {
        switch self {
        case .setTags(let tags): return "setTags " + TagString.join(tags)
        case .removeThenAdd(let r, let a): return "removeTag " + r.map(\.id).joined(separator: ",") + "; addTags " + TagString.join(a)
        }
    }
}
