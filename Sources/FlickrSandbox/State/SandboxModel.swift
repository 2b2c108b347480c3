import FlickrProtocol

/// A member of the sandbox world.
struct SandboxUser: Codable, Sendable, Hashable {
    var nsid: String
    var username: String
    var realname: String
    var pathAlias: String?
    var location: String
    var description: String
    var isPro: Bool
    /// The first part of this author's tag ids (`{internalID}-{photo}-{tag}`), like Flickr's.
    var internalID: Int
    var dateJoined: Int
    /// The address `people.findByEmail` finds the user by (none: no address finds them).
    var email: String? = nil
}

/// One tag on one photo.
struct SandboxTag: Codable, Sendable, Hashable {
    /// `{author internal id}-{photo id}-{global tag number}`.
    var id: String
    /// NSID of whoever added it.
    var author: String
    var raw: String
    var clean: String
    var isMachineTag: Bool
}

/// Everything Flickr keeps about a photo (or video); held by ``SandboxPhoto``.
struct SandboxPhotoRecord: Codable, Sendable, Hashable {
    var id: String
    var owner: String
    var secret: String
    var server: String
    var farm: Int
    var originalSecret: String
    var originalFormat: String
    var title: String
    var description: String
    /// Unix time of the upload.
    var datePosted: Int
    /// `YYYY-MM-DD HH:MM:SS`.
    var dateTaken: String
    var takenGranularity: Int
    var lastUpdate: Int
    var isPublic: Bool
    var isFriend: Bool
    var isFamily: Bool
    /// 1 safe, 2 moderate, 3 restricted.
    var safetyLevel: Int
    var license: Int
    var views: Int
    /// `photo` or `video`.
    var media: String
    var width: Int
    var height: Int
    var rotation: Int
    var contentType: Int
    /// 1 shown in global search, 2 hidden.
    var hidden: Int
    var permComment: Int
    var permAddMeta: Int
    var tags: [SandboxTag]
    /// The original's bytes on disk (uploads only), relative to the originals directory.
    var storedFile: String?
    /// SHA-256 of the uploaded bytes (for `dedup_check`).
    var contentHash: String?
    var fileSize: Int?
    /// Where it was taken, if set.
    var geo: SandboxGeo? = nil
    @DecodedOrEmpty var comments: [SandboxComment] = []
    @DecodedOrEmpty var notes: [SandboxNote] = []
    @DecodedOrEmpty var people: [SandboxPersonTag] = []
    @DecodedOrEmpty var suggestions: [SandboxSuggestion] = []
}

/// A photoset ("album").
struct SandboxPhotoset: Codable, Sendable, Hashable {
    var id: String
    var owner: String
    var title: String
    var description: String
    var primary: String
    var photos: [String]
    var secret: String
    var dateCreate: Int
    var dateUpdate: Int
    var views: Int
}

/// A photo a user marked as a favourite.
struct SandboxFavorite: Codable, Sendable, Hashable {
    var user: String
    var photo: String
    var date: Int
}

/// An OAuth token (request or access) or a legacy auth token.
struct SandboxToken: Codable, Sendable, Hashable {
    enum Kind: String, Codable, Sendable { case request, access, legacy }
    var token: String
    var secret: String
    var kind: Kind
    /// Owner (nil for a request token not yet authorised).
    var user: String?
    var perms: FlickrPermission
    var callback: String?
    var verifier: String?
}

/// A legacy-auth frob, approved by the login page.
struct SandboxFrob: Codable, Sendable, Hashable {
    var frob: String
    var user: String?
    var perms: FlickrPermission
    var created: Int
}

/// An asynchronous upload ticket.
struct SandboxTicket: Codable, Sendable, Hashable {
    var id: String
    var photoID: String?
    /// 0 pending, 1 done, 2 failed.
    var complete: Int
    var owner: String
}

/// The registered application.
struct SandboxApp: Codable, Sendable, Hashable {
    var apiKey: String
    var apiSecret: String
}

/// The whole world, as persisted by `--state DIR`.
struct SandboxState: Codable, Sendable {
    var formatVersion = 1
    var app: SandboxApp
    var defaultUser: String
    var users: [SandboxUser]
    var photos: PhotoTable
    var photosets: [SandboxPhotoset]
    var favorites: [SandboxFavorite]
    var tokens: [String: SandboxToken]
    var frobs: [String: SandboxFrob]
    var tickets: [String: SandboxTicket]
    /// Clean tag → global tag number (the last part of tag ids).
    var tagNumbers: TrackedTable<Int>
    var nextPhotoID: Int
    var nextPhotosetID: Int
    var nextTagNumber: Int
    var nextTicket: Int
    /// Galleries, groups, testimonials, blog posts, set comments.
    @DecodedOrEmpty var community = SandboxCommunity()

    func user(nsid: String) -> SandboxUser? { users.first { $0.nsid == nsid } }

    func user(named username: String) -> SandboxUser? {
        users.first { $0.username.lowercased() == username.lowercased() }
    }

    /// The user a `user_id` argument names: an NSID, a username, a path alias.
    func resolveUser(_ idOrName: String) -> SandboxUser? {
        user(nsid: idOrName) ?? users.first { $0.pathAlias == idOrName } ?? user(named: idOrName)
    }

    mutating func tagNumber(for clean: String) -> Int {
        if let n = tagNumbers[clean] { return n }
        let n = nextTagNumber
        nextTagNumber += 1
        tagNumbers[clean] = n
        return n
    }

    mutating func newPhotoID() -> String {
        defer { nextPhotoID += 1 }
        return String(nextPhotoID)
    }
}
