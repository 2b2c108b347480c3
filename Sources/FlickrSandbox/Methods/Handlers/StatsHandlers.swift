import FlickrProtocol
import Foundation

/// `flickr.stats.*`: views, computed from the photos.
struct StatsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.stats.getPopularPhotos": { store, call in
            let user = try call.requireUser()
            let sort = call.string("sort") ?? "views"
            guard ["views", "comments", "favorites"].contains(sort) else { throw APIFailure(.invalidSort, "Invalid sort") }
            if let d = call.string("date"), SandboxDates.parse(d) == nil { throw APIFailure(.invalidDate, "Invalid date") }
            return store.read { s in
                let photos = s.photos.values.filter { $0.owner == user }.sorted { a, b in
                    let (x, y) = (s.popularity(a, by: sort), s.popularity(b, by: sort))
                    return x != y ? x > y : a.id > b.id
                }
                var list = PhotoElements.photoList(photos, call: call, state: s)
                for i in list.children.indices {
                    guard let id = list.children[i].attributes.first(where: { $0.0 == "id" })?.1.text, let p = s.photos[id] else { continue }
                    list.children[i].children.append(StatsHandlers.statsElement(p, state: s))
                }
                return .nodes([list])
            }
        },
        "flickr.stats.getPhotoStats": { store, call in
            let user = try call.requireUser()
            guard SandboxDates.parse(call.string("date") ?? "") != nil else { throw APIFailure(.invalidDate, "Invalid date") }
            return try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.ownedPhoto(call.string("photo_id"), caller: user, code: .photoNotFoundCode4)
                return .nodes([StatsHandlers.statsElement(photo, state: s)])
            }
        },
        "flickr.stats.getTotalViews": { store, call in
            let user = try call.requireUser()
            if let d = call.string("date"), SandboxDates.parse(d) == nil { throw APIFailure(.invalidDate, "Invalid date") }
            return store.read { s in
                let photos = s.photos.values.filter { $0.owner == user }.reduce(0) { $0 + $1.views }
                let sets = s.photosets.filter { $0.owner == user }.reduce(0) { $0 + $1.views }
                return .nodes([XMLNode("stats", children: [
                    XMLNode("total", [("views", .number(photos + sets))]), XMLNode("photos", [("views", .number(photos))]),
                    XMLNode("photostream", [("views", .number(0))]), XMLNode("sets", [("views", .number(sets))]),
                    XMLNode("collections", [("views", .number(0))]),
                ])])
            }
        },
    ]

    /// `<stats views comments favorites/>` of a photo.
    static func statsElement(_ p: SandboxPhoto, state s: SandboxState) -> XMLNode {
        XMLNode("stats", [("views", .number(p.views)), ("comments", .number(p.comments.count)),
                          ("favorites", .number(s.favorites.filter { $0.photo == p.id }.count))])
    }
}
