/// A photo's location (`flickr.photos.geo.*`).
struct SandboxGeo: Codable, Sendable, Hashable {
    var latitude: Double
    var longitude: Double
    /// 1 (world) … 16 (street).
    var accuracy: Int
    /// 0 not defined, 1 indoors, 2 outdoors.
    var context: Int = 0
    /// Who may see the location (`geo.setPerms`); public by default, as Flickr's account default.
    var isPublic = true
    var isContact = false
    var isFriend = false
    var isFamily = false
    /// A place reference set by `geo.correctLocation` (a Foursquare venue id), if any.
    var foursquareID: String? = nil
}

/// A comment on a photo or a photoset. Ids are `{author internal id}-{photo or set id}-{n}`, as
/// Flickr's, so the target is found from the id.
struct SandboxComment: Codable, Sendable, Hashable {
    var id: String
    var author: String
    var text: String
    var dateCreate: Int
}

/// A note: a rectangle on a photo with text.
struct SandboxNote: Codable, Sendable, Hashable {
    var id: String
    var author: String
    var x: Int
    var y: Int
    var w: Int
    var h: Int
    var text: String
}

/// A person tagged in a photo, with an optional box.
struct SandboxPersonTag: Codable, Sendable, Hashable {
    var user: String
    var addedBy: String
    var box: [Int]? = nil
}

/// A location suggested for someone else's photo (`photos.suggestions.*`).
struct SandboxSuggestion: Codable, Sendable, Hashable {
    var id: String
    var photo: String
    var suggestedBy: String
    var latitude: Double
    var longitude: Double
    var accuracy: Int
    var note: String
    var dateSuggested: Int
    /// 0 pending, 1 approved, 2 rejected.
    var status: Int
}

/// A gallery: a curated list of other people's photos, with a comment each.
struct SandboxGallery: Codable, Sendable, Hashable {
    /// `{owner internal id}-{n}`.
    var id: String
    var owner: String
    var title: String
    var description: String
    var primary: String?
    var photos: [String]
    var comments: [String: String]
    var dateCreate: Int
    var dateUpdate: Int
}

/// A group: members, a pool, discussions.
struct SandboxGroup: Codable, Sendable, Hashable {
    var nsid: String
    var name: String
    var description: String
    /// 1 private, 2 invite-only public, 3 public and open.
    var privacy: Int
    var rules: String
    var admins: [String]
    var members: [String]
    /// Users who asked to join (private groups), with their messages.
    var joinRequests: [String: String]
    /// Photo ids, newest first, with who added them and when.
    var pool: [SandboxPoolItem]
    var topics: [SandboxTopic]
}

/// A photo in a group pool.
struct SandboxPoolItem: Codable, Sendable, Hashable {
    var photo: String
    var addedBy: String
    var dateAdded: Int
}

/// A discussion topic and its replies.
struct SandboxTopic: Codable, Sendable, Hashable {
    var id: String
    var author: String
    var subject: String
    var message: String
    var dateCreate: Int
    var replies: [SandboxDiscussionReply]
}

/// A reply in a discussion topic.
struct SandboxDiscussionReply: Codable, Sendable, Hashable {
    var id: String
    var author: String
    var message: String
    var dateCreate: Int
    var lastEdit: Int
}

/// A testimonial one member wrote about another.
struct SandboxTestimonial: Codable, Sendable, Hashable {
    var id: String
    var by: String
    var about: String
    var body: String
    var dateCreate: Int
    var dateApproved: Int
    var approved: Bool
}

/// A photo posted to a blog (`blogs.postPhoto`): recorded, since the sandbox has no blogs to post to.
struct SandboxBlogPost: Codable, Sendable, Hashable {
    var user: String
    var photo: String
    var blogID: String?
    var service: String?
    var title: String
    var description: String
    var date: Int
}

/// Everything of the world beyond photos, sets, favourites and auth: galleries, groups,
/// testimonials, blog posts, set comments. Absent from older state files (decoded empty).
struct SandboxCommunity: Codable, Sendable, Hashable, EmptyInitializable {
    var galleries: [SandboxGallery] = []
    var groups: [SandboxGroup] = []
    var testimonials: [SandboxTestimonial] = []
    var blogPosts: [SandboxBlogPost] = []
    /// Photoset id → its comments.
    var setComments: [String: [SandboxComment]] = [:]
    /// The number behind new comment, note, reply, topic, gallery, testimonial and suggestion ids.
    var nextNumber = 72_157_700_000_000_000

    mutating func newNumber() -> String {
        defer { nextNumber += 1 }
        return String(nextNumber)
    }
}
