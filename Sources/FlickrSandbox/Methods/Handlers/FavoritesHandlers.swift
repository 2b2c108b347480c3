import FlickrProtocol
import Foundation

/// `flickr.favorites.*`: adding, removing and listing favourites.
struct FavoritesHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.favorites.getPublicList": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                guard let user = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                    failure: APIFailure(.userNotFound, "User not found")) else { throw APIFailure(.userNotFound, "User not found") }
                let faves = s.favorites.filter { $0.user == user.nsid }.sorted { ($0.date, $0.photo) > ($1.date, $1.photo) }
                let photos = faves.compactMap { s.photos[$0.photo] }.filter(\.isPublic)
                let dates = Dictionary(faves.map { ($0.photo, $0.date) }, uniquingKeysWith: { a, _ in a })
                return .nodes([PhotoElements.photoList(photos, call: call, state: s) { p in
                    [("date_faved", .string(String(dates[p.id] ?? 0)))]
                }])
            }
        },
        "flickr.favorites.getContext": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found")
                guard let user = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                    failure: APIFailure(.userNotFoundCode2, "User not found")) else { throw APIFailure(.userNotFoundCode2, "User not found") }
                let faves = s.favorites.filter { $0.user == user.nsid }.sorted { ($0.date, $0.photo) > ($1.date, $1.photo) }
                guard faves.contains(where: { $0.photo == photo.id }) else { throw APIFailure(.photoNotAFavorite, "Photo not a favorite") }
                let list = faves.compactMap { s.photos[$0.photo] }.filter { s.canSee($0, caller: call.caller.user) }
                return .nodes(PhotosHandlers.context(of: photo.id, in: list, state: s, call: call))
            }
        },
        "flickr.favorites.add": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                guard let id = call.string("photo_id"), let photo = s.photos[id] else { throw APIFailure(.photoNotFound, "Photo not found") }
                guard s.canSee(photo, caller: user) else { throw APIFailure(.userCannotSeePhoto, "User cannot see photo") }
                guard photo.owner != user else { throw APIFailure(.photoIsOwnedByYou, "Photo is owned by you") }
                guard !s.favorites.contains(where: { $0.user == user && $0.photo == id }) else {
                    throw APIFailure(.photoIsAlreadyInFavorites, "Photo is already in favorites")
                }
                s.favorites.append(SandboxFavorite(user: user, photo: id, date: call.now))
            }
            return .empty
        },
        "flickr.favorites.remove": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let id = call.string("photo_id") ?? ""
                guard let i = s.favorites.firstIndex(where: { $0.user == user && $0.photo == id }) else {
                    throw APIFailure(.photoNotInFavorites, "Photo not in favorites")
                }
                s.favorites.remove(at: i)
            }
            return .empty
        },
        "flickr.favorites.getList": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let user = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                              failure: APIFailure(.userNotFound, "User not found"))
                guard let nsid = user?.nsid ?? call.caller.user else { throw APIFailure(.userNotFound, "User not found") }
                let minDate = call.string("min_fave_date").flatMap(SandboxDates.parse)
                let maxDate = call.string("max_fave_date").flatMap(SandboxDates.parse)
                let faves = s.favorites.filter { fave in
                    fave.user == nsid && (minDate.map { fave.date >= $0 } ?? true) && (maxDate.map { fave.date <= $0 } ?? true)
                }.sorted { ($0.date, $0.photo) > ($1.date, $1.photo) }
                var dates: [String: Int] = [:]
                let photos = faves.compactMap { fave -> SandboxPhoto? in
                    guard let p = s.photos[fave.photo], s.canSee(p, caller: call.caller.user) else { return nil }
                    dates[p.id] = fave.date
                    return p
                }
                return .nodes([PhotoElements.photoList(photos, call: call, state: s) { photo in
                    [("date_faved", .string(String(dates[photo.id] ?? 0)))]
                }])
            }
        },
    ]
}
