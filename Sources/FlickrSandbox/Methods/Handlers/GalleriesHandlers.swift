import FlickrProtocol
import Foundation

/// `flickr.galleries.*`: a member's curated lists of other members' public photos.
struct GalleriesHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.galleries.create": { store, call in
            let user = try call.requireUser()
            guard let title = call.string("title"), call.params["description"] != nil else {
                throw APIFailure(.invalidTitleOrDescription, "Invalid title or description")
            }
            let gallery = try store.update { (s: inout SandboxState) throws(APIFailure) -> SandboxGallery in
                var primary: String?
                if let p = call.string("primary_photo_id") {
                    guard let photo = s.photos[p], s.canFeature(photo, in: user) else { throw APIFailure(.failedToAddGallery, "Failed to add gallery") }
                    primary = photo.id
                }
                let id = "\(s.user(nsid: user)?.internalID ?? 0)-\(s.community.newNumber())"
                let g = SandboxGallery(id: id, owner: user, title: title, description: call.params["description"] ?? "",
                                       primary: primary, photos: primary.map { [$0] } ?? [], comments: [:],
                                       dateCreate: call.now, dateUpdate: call.now)
                s.community.galleries.append(g)
                return g
            }
            let url = store.read { $0.photosURL(for: user, base: call.baseURL) } + "galleries/" + gallery.number + "/"
            return .nodes([XMLNode("gallery", [("id", .string(gallery.id)), ("url", .string(url))])])
        },
        "flickr.galleries.editMeta": { store, call in
            guard let title = call.string("title") else { throw APIFailure(.invalidTitleOrDescription, "Invalid title or description") }
            try GalleriesHandlers.editGallery(store, call, missing: APIFailure(.requiredParameterMissing, "Required parameter missing")) { (g, _) throws(APIFailure) in
                g.title = title
                if let d = call.params["description"] { g.description = d }
            }
            return .empty
        },
        "flickr.galleries.addPhoto": { store, call in
            try GalleriesHandlers.editGallery(store, call, missing: APIFailure(.invalidGalleryIDCode2, "Invalid gallery ID")) { (g, s) throws(APIFailure) in
                guard let id = call.string("photo_id"), let photo = s.photos[id], s.canFeature(photo, in: g.owner) else {
                    throw APIFailure(.invalidPhotoIDCode3, "Invalid photo ID")
                }
                guard !g.photos.contains(id) else { throw APIFailure(.failedToAddPhoto, "Failed to add photo") }
                guard g.photos.count < SandboxLimits.photosPerGallery else { throw APIFailure(.failedToAddPhoto, "Failed to add photo") }
                g.photos.append(id)
                if g.primary == nil { g.primary = id }
                if let c = call.params["comment"] { g.comments[id] = c }
            }
            return .empty
        },
        "flickr.galleries.editPhoto": { store, call in
            try GalleriesHandlers.editGallery(store, call, missing: APIFailure(.invalidGalleryID, "Invalid gallery ID")) { (g, _) throws(APIFailure) in
                guard let id = call.string("photo_id"), g.photos.contains(id) else { throw APIFailure(.invalidGalleryID, "Invalid gallery ID") }
                g.comments[id] = call.params["comment"] ?? ""
            }
            return .empty
        },
        "flickr.galleries.editPhotos": { store, call in
            let ids = call.list("photo_ids")
            try GalleriesHandlers.editGallery(store, call, missing: APIFailure(.invalidGalleryID, "Invalid gallery ID")) { (g, s) throws(APIFailure) in
                guard !ids.isEmpty, ids.count <= SandboxLimits.photosPerGallery else { throw APIFailure(.invalidPhotoID, "Invalid photo ID") }
                for id in ids {
                    guard let photo = s.photos[id], s.canFeature(photo, in: g.owner) else { throw APIFailure(.invalidPhotoID, "Invalid photo ID") }
                }
                guard let primary = call.string("primary_photo_id"), ids.contains(primary) else {
                    throw APIFailure(.primaryPhotoNotInList, "Primary photo not in list")
                }
                var unique: [String] = []
                for id in ids where !unique.contains(id) { unique.append(id) }
                g.photos = unique
                g.primary = primary
                g.comments = g.comments.filter { unique.contains($0.key) }
            }
            return .empty
        },
        "flickr.galleries.removePhoto": { store, call in
            try GalleriesHandlers.editGallery(store, call, missing: APIFailure(.invalidGalleryID, "Invalid gallery ID")) { (g, _) throws(APIFailure) in
                guard let id = call.string("photo_id"), let i = g.photos.firstIndex(of: id) else {
                    throw APIFailure(.photoNotInGallery, "Photo not in gallery")
                }
                g.photos.remove(at: i)
                g.comments[id] = nil
                if g.primary == id { g.primary = g.photos.first }
            }
            return .empty
        },
        "flickr.galleries.getList": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                guard let owner = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                     failure: APIFailure(.userNotFound, "User not found")) else { throw APIFailure(.userNotFound, "User not found") }
                let all = s.community.galleries.filter { $0.owner == owner.nsid }
                let p = call.page(of: all)
                return .nodes([XMLNode("galleries", [
                    ("total", .number(all.count)), ("page", .number(p.page)),
                    ("pages", .number(p.pages)), ("per_page", .number(p.perPage)),
                    ("user_id", .string(owner.nsid)),
                ], children: p.items.map { GalleriesHandlers.galleryElement($0, state: s, call: call) },
                lists: ["gallery"])])
            }
        },
        "flickr.galleries.getInfo": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let g = try s.gallery(call.string("gallery_id"))
                return .nodes([GalleriesHandlers.galleryElement(g, state: s, call: call)])
            }
        },
        "flickr.galleries.getPhotos": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let g = try s.gallery(call.string("gallery_id"))
                let photos = g.photos.compactMap { s.photos[$0] }.filter { s.canSee($0, caller: call.caller.user) }
                var list = PhotoElements.photoList(photos, call: call, state: s) { photo in
                    [("is_primary", .number(photo.id == g.primary ? 1 : 0)), ("has_comment", .number(g.comments[photo.id] == nil ? 0 : 1))]
                }
                for i in list.children.indices {
                    if let id = list.children[i].attributes.first(where: { $0.0 == "id" })?.1.text, let c = g.comments[id] {
                        list.children[i].children.append(.text("comment", c))
                    }
                }
                return .nodes([list])
            }
        },
        "flickr.galleries.getListForPhoto": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found")
                let all = s.community.galleries.filter { $0.photos.contains(photo.id) }
                let p = call.page(of: all)
                // As recorded: the photo named, and no page at all when it is in no gallery.
                return .nodes([XMLNode("galleries", [
                    ("total", .number(all.count)), ("page", .number(p.page)),
                    ("pages", .number(all.isEmpty ? 0 : p.pages)), ("per_page", .number(p.perPage)), ("photo_id", .string(photo.id)),
                ], children: p.items.map { GalleriesHandlers.galleryElement($0, state: s, call: call) },
                lists: ["gallery"])])
            }
        },
    ]

    /// Runs `change` on the gallery `gallery_id` when the caller owns it, stamping `date_update`.
    static func editGallery(_ store: SandboxStore, _ call: MethodCall, missing: APIFailure,
                     _ change: (inout SandboxGallery, SandboxState) throws(APIFailure) -> Void) throws(APIFailure) {
        let user = try call.requireUser()
        try store.update { (s: inout SandboxState) throws(APIFailure) in
            guard let id = call.string("gallery_id"),
                  let i = s.community.galleries.firstIndex(where: { $0.id == id && $0.owner == user }) else { throw missing }
            var g = s.community.galleries[i]
            try change(&g, s)
            g.dateUpdate = call.now
            s.community.galleries[i] = g
        }
    }

    /// A `<gallery>` of getList / getInfo.
    static func galleryElement(_ g: SandboxGallery, state s: SandboxState, call: MethodCall) -> XMLNode {
        let primary = g.primary.flatMap { s.photos[$0] }
        let videos = g.photos.filter { s.photos[$0]?.media == "video" }.count
        return XMLNode("gallery", [
            ("id", .string(g.id)), ("url", .string(s.photosURL(for: g.owner, base: call.baseURL) + "galleries/" + g.number + "/")),
            ("owner", .string(g.owner)), ("primary_photo_id", .string(g.primary ?? "0")),
            ("date_create", .string(String(g.dateCreate))), ("date_update", .string(String(g.dateUpdate))),
            ("count_photos", .number(g.photos.count - videos)), ("count_videos", .number(videos)),
            ("primary_photo_server", .string(primary?.server ?? "0")), ("primary_photo_farm", .number(primary?.farm ?? 0)),
            ("primary_photo_secret", .string(primary?.secret ?? "")),
        ], children: [.text("title", g.title), .text("description", g.description)])
    }
}
