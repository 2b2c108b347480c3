import FlickrProtocol
import Foundation

extension PhotosHandlers {
    /// The lists and contexts of the namespace.
    static let listsMethods: [String: MethodHandler] = [
        "flickr.photos.getPopular": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                guard let nsid = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                    failure: APIFailure(.invalidUserID, "Invalid user id"))?.nsid ?? call.caller.user else {
                    throw APIFailure(.invalidUserID, "Invalid user id")
                }
                let sort = call.string("sort") ?? "interesting"
                let photos = s.photos.values.filter { $0.owner == nsid && s.canSee($0, caller: call.caller.user) }
                    .sorted { a, b in
                        let (x, y) = (s.popularity(a, by: sort), s.popularity(b, by: sort))
                        return x != y ? x > y : a.id > b.id
                    }
                return .nodes([PhotoElements.photoList(photos, call: call, state: s)])
            }
        },
        "flickr.photos.getUntagged": { store, call in try PhotosHandlers.ownPhotoList(store, call) { $0.tags.isEmpty } },
        "flickr.photos.getWithGeoData": { store, call in try PhotosHandlers.ownPhotoList(store, call) { $0.geo != nil } },
        "flickr.photos.getWithoutGeoData": { store, call in try PhotosHandlers.ownPhotoList(store, call) { $0.geo == nil } },
        "flickr.photos.recentlyUpdated": { store, call in
            let user = try call.requireUser()
            guard let raw = call.string("min_date") else { throw APIFailure(.requiredArgumentMissing, "Required argument missing.") }
            // A Unix time, a MySQL datetime, or English text ("yesterday", "May 1 2019"), as documented.
            guard let minDate = SandboxDates.parse(raw) ?? SandboxDates.english(raw, now: call.now) else {
                throw APIFailure(.notAValidDate, "Not a valid date")
            }
            return store.read { s in
                let photos = s.photos.values.filter { $0.owner == user && $0.lastUpdate >= minDate }
                    .sorted { ($0.lastUpdate, $0.id) > ($1.lastUpdate, $1.id) }
                return .nodes([PhotoElements.photoList(photos, call: call, state: s) { photo in
                    [("lastupdate", .string(String(photo.lastUpdate)))]
                }])
            }
        },
        "flickr.photos.getCounts": { store, call in
            let user = try call.requireUser()
            let taken = call.string("taken_dates") != nil && call.string("dates") == nil
            let bounds = (call.string("dates") ?? call.string("taken_dates") ?? "").split(separator: ",")
                .compactMap { SandboxDates.parse(String($0)) }.sorted()
            guard bounds.count >= 2 else { throw APIFailure(.noDatesSpecified, "No dates specified") }
            return store.read { s in
                let times = s.photos.values.filter { $0.owner == user }.map {
                    taken ? (SandboxDates.parse($0.dateTaken) ?? $0.datePosted) : $0.datePosted
                }
                let counts = zip(bounds, bounds.dropFirst()).map { from, to in
                    XMLNode("photocount", [("count", .number(times.filter { $0 >= from && $0 < to }.count)),
                                           ("fromdate", .string(String(from))), ("todate", .string(String(to)))])
                }
                return .nodes([XMLNode("photocounts", children: counts, lists: ["photocount"])])
            }
        },
        "flickr.photos.getContext": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found")
                // The owner's photostream, newest first: "prev" is the next newer photo.
                let stream = s.photos.values.filter { $0.owner == photo.owner && s.canSee($0, caller: call.caller.user) }
                    .sorted { ($0.datePosted, $0.id) > ($1.datePosted, $1.id) }
                return .nodes(PhotosHandlers.context(of: photo.id, in: stream, state: s, call: call))
            }
        },
        "flickr.photos.getAllContexts": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found")
                // The attributes of the recorded live answers, in their order: a set's primary photo
                // and counts, a pool's page, icon (the groups' one, as groups.getInfo has it), members
                // and size.
                let sets = s.photosets.filter { $0.photos.contains(photo.id) }.map { set in
                    let primary = s.photos[set.primary]
                    let videos = set.photos.filter { s.photos[$0]?.isVideo == true }.count
                    return XMLNode("set", [
                        ("title", .string(set.title)), ("id", .string(set.id)), ("primary", .string(set.primary)),
                        ("secret", .string(primary?.secret ?? set.secret)), ("server", .string(primary?.server ?? "65535")),
                        ("farm", .number(primary?.farm ?? 66)), ("view_count", .string(String(set.views))),
                        ("comment_count", .string(String(s.community.setComments[set.id]?.count ?? 0))),
                        ("count_photo", .string(String(set.photos.count - videos))), ("count_video", .string(String(videos))),
                    ])
                }
                let pools = s.community.groups.filter { g in g.pool.contains { $0.photo == photo.id } }.map { g in
                    XMLNode("pool", [
                        ("title", .string(g.name)), ("url", .string("/groups/\(g.nsid)/pool/")), ("id", .string(g.nsid)),
                        ("iconserver", .string("1")), ("iconfarm", .number(1)), ("members", .string(String(g.members.count))),
                        ("pool_count", .string(String(g.pool.count))),
                    ])
                }
                return .nodes(sets + pools)
            }
        },
        "flickr.photos.getFavorites": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found")
                let faves = s.favorites.filter { $0.photo == photo.id }.sorted { ($0.date, $0.user) > ($1.date, $1.user) }
                let perPage = min(max(call.int("per_page") ?? 10, 1), 50)
                let page = max(1, call.int("page") ?? 1)
                let start = min(faves.count, (page - 1) * perPage)
                let people = faves[start..<min(faves.count, start + perPage)].map { fave in
                    XMLNode("person", [("nsid", .string(fave.user)), ("username", .string(s.user(nsid: fave.user)?.username ?? "")),
                                       ("favedate", .string(String(fave.date)))])
                }
                return .nodes([XMLNode("photo", [
                    ("id", .string(photo.id)), ("secret", .string(photo.secret)), ("server", .string(photo.server)),
                    ("farm", .number(photo.farm)), ("page", .number(page)),
                    ("pages", .number(max(1, (faves.count + perPage - 1) / perPage))), ("perpage", .number(perPage)),
                    ("total", .number(faves.count)),
                ], children: people, lists: ["person"])])
            }
        },
    ]
}
