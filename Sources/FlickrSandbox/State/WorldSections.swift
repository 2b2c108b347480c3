/// The world but its photos and tag numbers, in the sections `--state` stores apart: the
/// scalars in one row, each list a row per element, each table a row per key. Holding the last
/// committed sections costs nothing (they share storage with the state), and comparing an
/// untouched section with it is immediate, so a call pays only for the sections it changed.
struct WorldSections: Sendable {
    /// The scalars: format, app, default user and the id counters.
    struct Meta: Codable, Sendable, Equatable {
        var formatVersion: Int
        var app: SandboxApp
        var defaultUser: String
        var nextPhotoID: Int
        var nextPhotosetID: Int
        var nextTagNumber: Int
        var nextTicket: Int
        var nextNumber: Int
    }

    var meta: Meta
    var users: [SandboxUser]
    var photosets: [SandboxPhotoset]
    var favorites: [SandboxFavorite]
    var galleries: [SandboxGallery]
    var groups: [SandboxGroup]
    var testimonials: [SandboxTestimonial]
    var blogPosts: [SandboxBlogPost]
    var tokens: [String: SandboxToken]
    var frobs: [String: SandboxFrob]
    var tickets: [String: SandboxTicket]
    var setComments: [String: [SandboxComment]]

    /// The names of the lists in the `item` table.
    enum List: String, CaseIterable, Sendable {
        case users, photosets, favorites, galleries, groups, testimonials, blogPosts
    }

    /// The names of the tables in the `entry` table.
    enum Table: String, CaseIterable, Sendable {
        case tokens, frobs, tickets, setComments
    }

    /// A world made of these sections, with no photos and no tag numbers yet.
    var state: SandboxState {
        var s = SandboxState(app: meta.app, defaultUser: meta.defaultUser, users: users, photos: [:], photosets: photosets,
                             favorites: favorites, tokens: tokens, frobs: frobs, tickets: tickets, tagNumbers: [:],
                             nextPhotoID: meta.nextPhotoID, nextPhotosetID: meta.nextPhotosetID,
                             nextTagNumber: meta.nextTagNumber, nextTicket: meta.nextTicket)
        s.formatVersion = meta.formatVersion
        s.community = SandboxCommunity(galleries: galleries, groups: groups, testimonials: testimonials,
                                       blogPosts: blogPosts, setComments: setComments, nextNumber: meta.nextNumber)
        return s
    }
}

extension WorldSections {
    /// The sections of a world.
    init(_ s: SandboxState) {
        meta = Meta(formatVersion: s.formatVersion, app: s.app, defaultUser: s.defaultUser, nextPhotoID: s.nextPhotoID,
                    nextPhotosetID: s.nextPhotosetID, nextTagNumber: s.nextTagNumber, nextTicket: s.nextTicket,
                    nextNumber: s.community.nextNumber)
        users = s.users
        photosets = s.photosets
        favorites = s.favorites
        galleries = s.community.galleries
        groups = s.community.groups
        testimonials = s.community.testimonials
        blogPosts = s.community.blogPosts
        tokens = s.tokens
        frobs = s.frobs
        tickets = s.tickets
        setComments = s.community.setComments
    }
}
