import FlickrProtocol
import Foundation

/// `flickr.photosets.*`: sets, their photos and order (the edits of many photos at once in `PhotosetsHandlers+Edits.swift`).
struct PhotosetsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = coreMethods.merging(editsMethods) { a, _ in a }

    /// The core of the namespace.
    static let coreMethods: [String: MethodHandler] = [
        "flickr.photosets.getContext": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found")
                let set = s.photosets[try s.photosetIndex(call.string("photoset_id"))]
                guard set.photos.contains(photo.id) else { throw APIFailure(.photoNotInSet, "Photo not in set") }
                let members = set.photos.compactMap { s.photos[$0] }.filter { s.canSee($0, caller: call.caller.user) }
                return .nodes(PhotosHandlers.context(of: photo.id, in: members, state: s, call: call))
            }
        },
        "flickr.photosets.getList": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let user = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                              failure: APIFailure(.userNotFound, "User not found"))
                guard let nsid = user?.nsid ?? call.caller.user else { throw APIFailure(.userNotFound, "User not found") }
                let sets = s.photosets.filter { $0.owner == nsid }
                let perPage = min(max(call.int("per_page") ?? 500, 1), 500)
                let page = max(1, call.int("page") ?? 1)
                let start = min(sets.count, (page - 1) * perPage)
                let slice = sets[start..<min(sets.count, start + perPage)]
                return .nodes([XMLNode("photosets", [
                    ("page", .number(page)), ("pages", .number(max(1, (sets.count + perPage - 1) / perPage))),
                    ("perpage", .number(perPage)), ("total", .number(sets.count)), ("cancreate", .number(1)),
                ], children: slice.map { PhotosetsHandlers.photosetElement($0, state: s, forList: true) }, lists: ["photoset"])])
            }
        },
        "flickr.photosets.getInfo": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let set = s.photosets[try s.photosetIndex(call.string("photoset_id"))]
                return .nodes([PhotosetsHandlers.photosetElement(set, state: s, forList: false)])
            }
        },
        "flickr.photosets.getPhotos": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let set = s.photosets[try s.photosetIndex(call.string("photoset_id"))]
                if let u = call.string("user_id"), u != "me", s.resolveUser(u) == nil { throw APIFailure(.userNotFoundCode2, "User not found") }
                var query = PhotoQuery(call)
                query.sort = ""
                let photos = set.photos.compactMap { s.photos[$0] }.filter {
                    s.canSee($0, caller: call.caller.user) && query.matches($0)
                }
                var list = PhotoElements.photoList(photos, call: call, state: s, name: "photoset") { photo in
                    [("isprimary", .string(photo.id == set.primary ? "1" : "0"))]
                }
                let owner = s.user(nsid: set.owner)
                let paging = list.attributes
                var attributes: [(String, XMLNode.Value)] = [
                    ("id", .string(set.id)), ("primary", .string(set.primary)), ("owner", .string(set.owner)),
                    ("ownername", .string(owner?.username ?? "")),
                ]
                attributes += paging.filter { $0.0 == "page" }
                attributes.append(("per_page", paging.first { $0.0 == "perpage" }!.1))
                attributes += paging.filter { $0.0 != "page" }
                attributes.append(("title", .string(set.title)))
                list.attributes = attributes
                return .nodes([list])
            }
        },
        "flickr.photosets.create": { store, call in
            let user = try call.requireUser()
            guard let title = call.string("title") else { throw APIFailure(.noTitleSpecified, "No title specified") }
            let set = try store.update { (s: inout SandboxState) throws(APIFailure) -> SandboxPhotoset in
                let primary = try s.ownedPhoto(call.string("primary_photo_id"), caller: user, code: .photoNotFoundCode2)
                let set = SandboxPhotoset(
                    id: String(72_157_600_000_000_000 + s.nextPhotosetID), owner: user, title: title,
                    description: call.params["description"] ?? "", primary: primary.id, photos: [primary.id],
                    secret: SandboxIDs.hex(10), dateCreate: call.now, dateUpdate: call.now, views: 0)
                s.nextPhotosetID += 1
                s.photosets.append(set)
                s.touch([primary.id], now: call.now)
                return set
            }
            let url = store.read { $0.photosURL(for: user, base: call.baseURL) } + "sets/\(set.id)/"
            return .nodes([XMLNode("photoset", [("id", .string(set.id)), ("url", .string(url))])])
        },
        "flickr.photosets.delete": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let i = try s.photosetIndex(call.string("photoset_id"), ownedBy: user)
                s.touch(s.photosets[i].photos, now: call.now)
                s.community.setComments[s.photosets[i].id] = nil
                s.photosets.remove(at: i)
            }
            return .empty
        },
        "flickr.photosets.addPhoto": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let i = try s.photosetIndex(call.string("photoset_id"), ownedBy: user)
                let photo = try s.ownedPhoto(call.string("photo_id"), caller: user, code: .photoNotFoundCode2)
                guard !s.photosets[i].photos.contains(photo.id) else { throw APIFailure(.photoAlreadyInSet, "Photo already in set") }
                s.photosets[i].photos.append(photo.id)
                s.photosets[i].dateUpdate = call.now
                s.touch([photo.id], now: call.now)
            }
            return .empty
        },
        "flickr.photosets.removePhoto": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let i = try s.photosetIndex(call.string("photoset_id"), ownedBy: user)
                let photo = try s.ownedPhoto(call.string("photo_id"), caller: user, code: .photoNotFoundCode2)
                guard let at = s.photosets[i].photos.firstIndex(of: photo.id) else { throw APIFailure(.photoNotInSetCode3, "Photo not in set") }
                s.photosets[i].photos.remove(at: at)
                s.photosets[i].dateUpdate = call.now
                s.touch([photo.id], now: call.now)
                if s.photosets[i].photos.isEmpty {
                    s.photosets.remove(at: i)
                } else if s.photosets[i].primary == photo.id {
                    s.photosets[i].primary = s.photosets[i].photos[0]
                }
            }
            return .empty
        },
        "flickr.photosets.editMeta": { store, call in
            let user = try call.requireUser()
            guard let title = call.string("title") else { throw APIFailure(.noTitleSpecifiedCode2, "No title specified") }
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let i = try s.photosetIndex(call.string("photoset_id"), ownedBy: user)
                s.photosets[i].title = title
                if let d = call.params["description"] { s.photosets[i].description = d }
                s.photosets[i].dateUpdate = call.now
            }
            return .empty
        },
    ]

    /// A `<photoset>` of getList (`forList`) or getInfo, with the attributes Flickr answers
    /// today: both give the owner, `count_photos`/`count_videos` (photos and videos apart) and
    /// `date_update`; getList adds `photos` and `videos` (apart, as its documented example),
    /// getInfo's `photos` is the two together (its documented example: 55 = 43 + 12).
    static func photosetElement(_ set: SandboxPhotoset, state s: SandboxState, forList: Bool) -> XMLNode {
        let primary = s.photos[set.primary]
        let videos = set.photos.filter { s.photos[$0]?.isVideo == true }.count
        let stills = set.photos.count - videos
        var attributes: [(String, XMLNode.Value)] = [
            ("id", .string(set.id)), ("owner", .string(set.owner)), ("username", .string(s.user(nsid: set.owner)?.username ?? "")),
            ("primary", .string(set.primary)), ("secret", .string(primary?.secret ?? set.secret)),
            ("server", .string(primary?.server ?? "65535")), ("farm", .number(primary?.farm ?? 66)),
        ]
        if !forList { attributes.append(("photos", .number(set.photos.count))) }
        attributes += [
            ("count_views", .string(String(set.views))),
            ("count_comments", .string(String(s.community.setComments[set.id]?.count ?? 0))),
            ("count_photos", .number(stills)), ("count_videos", .number(videos)),
            ("can_comment", .number(1)), ("date_create", .string(String(set.dateCreate))),
            ("date_update", .string(String(set.dateUpdate))),
        ]
        if forList { attributes += [("photos", .number(stills)), ("videos", .number(videos))] }
        attributes += [("visibility_can_see_set", .number(1)), ("needs_interstitial", .number(0))]
        return XMLNode("photoset", attributes, children: [.text("title", set.title), .text("description", set.description)])
    }
}
