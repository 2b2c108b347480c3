import FlickrProtocol
import Foundation

/// `flickr.photos.*` (with `flickr.photos.licenses.*`, `flickr.photos.transform.*` and `flickr.photos.upload.*`): search, info, sizes, tags, meta, permissions, deletion, edits (`PhotosHandlers+Edits.swift`) and the lists and contexts (`PhotosHandlers+Lists.swift`).
struct PhotosHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = coreMethods.merging(listsMethods) { a, _ in a }.merging(editsMethods) { a, _ in a }

    /// The core of the namespace.
    static let coreMethods: [String: MethodHandler] = [
        "flickr.photos.search": { store, call in try PhotosHandlers.search(store, call) },
        "flickr.photos.getRecent": { store, call in
            store.read { s in
                let photos = s.photos.values.filter { $0.isPublic && $0.hidden != 2 }
                    .sorted { ($0.datePosted, $0.id) > ($1.datePosted, $1.id) }
                return .nodes([PhotoElements.photoList(photos, call: call, state: s)])
            }
        },
        "flickr.photos.getInfo": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user)
                if let secret = call.string("secret"), secret != photo.secret {
                    throw APIFailure(.photoNotFoundInvalidID, "Photo \"\(photo.id)\" not found (invalid ID)")
                }
                return .nodes([PhotosHandlers.infoElement(photo, state: s, call: call)])
            }
        },
        // A photo that is not there (or not to be seen) is 1 "Photo not found", as recorded; one
        // that is answers its own element with no EXIF: the sandbox keeps no photo's EXIF tags
        // (SANDBOX.md), and the documented example's Canon is no photo's data.
        "flickr.photos.getExif": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found")
                return .nodes([XMLNode("photo", [("id", .string(photo.id)), ("secret", .string(photo.secret)),
                                                  ("server", .string(photo.server)), ("farm", .number(photo.farm)), ("camera", "")],
                                       lists: ["exif"])])
            }
        },
        "flickr.photos.getSizes": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found")
                let page = s.photosURL(for: photo.owner, base: call.baseURL) + photo.id + "/sizes/"
                var sizes: [XMLNode] = []
                for size in PhotoSize.ladder {
                    guard let dims = size.dimensions(width: photo.width, height: photo.height) else { continue }
                    sizes.append(XMLNode("size", [
                        ("label", .string(size.label)), ("width", .number(dims.width)), ("height", .number(dims.height)),
                        ("source", .string(size.source(for: photo, base: call.baseURL))),
                        ("url", .string(page + size.pageKey + "/")), ("media", "photo"),
                    ]))
                }
                if photo.isVideo, call.caller.user == photo.owner { sizes.append(PhotosHandlers.videoOriginal(photo, state: s, call: call)) }
                return .nodes([XMLNode("sizes", [("canblog", .number(0)), ("canprint", .number(0)), ("candownload", .number(1))],
                                       children: sizes, lists: ["size"])])
            }
        },
        "flickr.photos.addTags": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                guard let id = call.string("photo_id"), let photo = s.photos[id], s.canSee(photo, caller: user),
                      photo.owner == user || photo.permAddMeta > 0 else { throw APIFailure(.photoNotFound, "Photo not found") }
                guard let author = s.user(nsid: user) else { throw APIFailure(.photoNotFound, "Photo not found") }
                let existing = Set(photo.tags.map(\.clean))
                let fresh = TagString.parse(call.params["tags"] ?? "").filter { !existing.contains(TagString.clean($0)) }
                guard photo.tags.count + fresh.count <= SandboxLimits.tagsPerPhoto else {
                    throw APIFailure(.maximumNumberOfTagsReached, "Maximum number of tags reached")
                }
                var updated = photo
                for raw in fresh { updated.tags.append(s.makeTag(raw: raw, author: author, photoID: id)) }
                updated.stampUpdate(call.now)
                s.photos[id] = updated
            }
            return .empty
        },
        "flickr.photos.setTags": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                var photo = try s.ownedPhoto(call.string("photo_id"), caller: user)
                guard let author = s.user(nsid: user) else { throw APIFailure(.photoNotFound, "Photo not found") }
                let others = photo.tags.filter { $0.author != user }
                let otherCleans = Set(others.map(\.clean))
                let mine = TagString.parse(call.params["tags"] ?? "").filter { !otherCleans.contains(TagString.clean($0)) }
                guard others.count + mine.count <= SandboxLimits.tagsPerPhoto else {
                    throw APIFailure(.maximumNumberOfTagsReached, "Maximum number of tags reached")
                }
                var kept: [SandboxTag] = []
                var ownIndex = 0
                // Keep the order: the owner's new tags where the owner's old ones were, then the rest.
                let newTags = mine.map { s.makeTag(raw: $0, author: author, photoID: photo.id) }
                for tag in photo.tags {
                    if tag.author == user {
                        if ownIndex < newTags.count {
                            kept.append(newTags[ownIndex])
                            ownIndex += 1
                        }
                    } else {
                        kept.append(tag)
                    }
                }
                kept.append(contentsOf: newTags[ownIndex...])
                photo.tags = kept
                photo.stampUpdate(call.now)
                s.photos[photo.id] = photo
            }
            return .empty
        },
        "flickr.photos.removeTag": { store, call in
            let user = try call.requireUser()
            let tagID = call.string("tag_id") ?? ""
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                // Tag ids are {author}-{photo}-{n}: the middle part finds the photo at once.
                let parts = tagID.split(separator: "-")
                let candidates: [String] = parts.count == 3 ? [String(parts[1])] : Array(s.photos.keys)
                for id in candidates {
                    guard var photo = s.photos[id], let i = photo.tags.firstIndex(where: { $0.id == tagID }) else { continue }
                    guard photo.tags[i].author == user || photo.owner == user else { break }
                    photo.tags.remove(at: i)
                    photo.stampUpdate(call.now)
                    s.photos[id] = photo
                    return
                }
                throw APIFailure(.tagNotFound, "Tag not found")
            }
            return .empty
        },
        "flickr.photos.setMeta": { store, call in
            let user = try call.requireUser()
            guard call.params["title"] != nil || call.params["description"] != nil else {
                throw APIFailure(.atLeastOneOfTitleOrDescriptionMustBeSet, "At least one of title or description must be set")
            }
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                var photo = try s.ownedPhoto(call.string("photo_id"), caller: user)
                if let title = call.params["title"] { photo.title = title }
                if let description = call.params["description"] { photo.description = description }
                photo.stampUpdate(call.now)
                s.photos[photo.id] = photo
            }
            return .empty
        },
        "flickr.photos.setPerms": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                var photo = try s.ownedPhoto(call.string("photo_id"), caller: user)
                photo.isPublic = call.flag("is_public") ?? photo.isPublic
                photo.isFriend = call.flag("is_friend") ?? photo.isFriend
                photo.isFamily = call.flag("is_family") ?? photo.isFamily
                if let c = call.int("perm_comment"), (0...3).contains(c) { photo.permComment = c }
                if let a = call.int("perm_addmeta"), (0...3).contains(a) { photo.permAddMeta = a }
                photo.stampUpdate(call.now)
                s.photos[photo.id] = photo
            }
            return .empty
        },
        "flickr.photos.getPerms": { store, call in
            let user = try call.requireUser()
            let photo = try store.read { (s: SandboxState) throws(APIFailure) -> SandboxPhoto in
                try s.ownedPhoto(call.string("photo_id"), caller: user)
            }
            return .nodes([XMLNode("perms", [
                ("id", .string(photo.id)), ("ispublic", .number(photo.isPublic ? 1 : 0)),
                ("isfriend", .number(photo.isFriend ? 1 : 0)), ("isfamily", .number(photo.isFamily ? 1 : 0)),
                ("permcomment", .number(photo.permComment)), ("permaddmeta", .number(photo.permAddMeta)),
            ])])
        },
        "flickr.photos.delete": { store, call in
            let user = try call.requireUser()
            let removed = try store.update { (s: inout SandboxState) throws(APIFailure) -> SandboxPhoto in
                let photo = try s.ownedPhoto(call.string("photo_id"), caller: user)
                s.deletePhoto(photo.id, now: call.now)
                return photo
            }
            if let file = removed.storedFile { try? FileManager.default.removeItem(at: store.originalURL(file)) }
            return .empty
        },
        "flickr.photos.getNotInSet": { store, call in
            let user = try call.requireUser()
            return store.read { s in
                let inSets = Set(s.photosets.filter { $0.owner == user }.flatMap(\.photos))
                var query = PhotoQuery(call)
                query.owner = user
                let photos = s.photos.values.filter { !inSets.contains($0.id) && query.matches($0) }
                return .nodes([PhotoElements.photoList(query.sorted(photos), call: call, state: s)])
            }
        },
        "flickr.photos.upload.checkTickets": { store, call in
            let ids = (call.string("tickets") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            let tickets = store.read { s in ids.map { ($0, s.tickets[$0]) } }
            return .nodes([XMLNode("uploader", children: tickets.map { id, ticket in
                guard let ticket else { return XMLNode("ticket", [("id", .string(id)), ("invalid", .number(1))]) }
                var node = XMLNode("ticket", [("id", .string(id)), ("complete", .number(ticket.complete))])
                if let photo = ticket.photoID { node.set("photoid", .string(photo)) }
                return node
            }, lists: ["ticket"])])
        },
    ]

    /// getSizes' `<size label="Video Original">` of a video, for its owner: Flickr's play URL of
    /// the original file (`…/photos/{alias or NSID}/{id}/play/orig/{originalsecret}/`).
    static func videoOriginal(_ photo: SandboxPhoto, state s: SandboxState, call: MethodCall) -> XMLNode {
        let page = s.photosURL(for: photo.owner, base: call.baseURL) + photo.id + "/"
        return XMLNode("size", [
            ("label", "Video Original"), ("width", .number(photo.width)), ("height", .number(photo.height)),
            ("source", .string(page + "play/orig/" + photo.originalSecret + "/")), ("url", .string(page)), ("media", "video"),
        ])
    }

    /// A list of the caller's own photos that pass `keep` and the usual filters (dates,
    /// privacy, media), newest first.
    static func ownPhotoList(_ store: SandboxStore, _ call: MethodCall, _ keep: @escaping (SandboxPhoto) -> Bool) throws(APIFailure) -> MethodPayload {
        let user = try call.requireUser()
        return store.read { s in
            var query = PhotoQuery(call)
            query.owner = user
            let ids = query.search(s.photos, where: keep)
            return .nodes([PhotoElements.photoList(ids.lazy.map { s.photos[$0]! }, call: call, state: s)])
        }
    }

    /// `<prevphoto/>`, `<nextphoto/>` (id 0 at either end) and `<count>` for a photo in an
    /// ordered list.
    static func context(of id: String, in list: [SandboxPhoto], state s: SandboxState, call: MethodCall) -> [XMLNode] {
        let i = list.firstIndex { $0.id == id }
        func element(_ name: String, _ photo: SandboxPhoto?) -> XMLNode {
            guard let photo else { return XMLNode(name, [("id", .number(0))]) }
            return XMLNode(name, [
                ("id", .string(photo.id)), ("secret", .string(photo.secret)), ("server", .string(photo.server)),
                ("farm", .number(photo.farm)), ("title", .string(photo.title)),
                ("url", .string(s.photosURL(for: photo.owner, base: "") + photo.id + "/")),
                ("thumb", .string(PhotoSize.ladder.first { $0.extrasKey == "t" }?.source(for: photo, base: call.baseURL) ?? "")),
                ("media", .string(photo.media)),
            ])
        }
        let prev = i.flatMap { $0 > 0 ? list[$0 - 1] : nil }
        let next = i.flatMap { $0 + 1 < list.count ? list[$0 + 1] : nil }
        return [.text("count", String(list.count)), element("prevphoto", prev), element("nextphoto", next)]
    }

    /// `flickr.photos.search`.
    static func search(_ store: SandboxStore, _ call: MethodCall) throws(APIFailure) -> MethodPayload {
        try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
            var query = PhotoQuery(call)
            if let owner = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                              failure: APIFailure(.unknownUser, "Unknown user")) {
                query.owner = owner.nsid
            }
            if query.tagModeAll, query.tags.count > 20 { throw APIFailure(.tooManyTagsInAllQuery, "Too many tags in ALL query") }
            if !query.machineTags.isEmpty,
               !query.machineTags.allSatisfy({ $0.contains(":") }) { throw APIFailure(.noValidMachineTags, "No valid machine tags") }
            guard query.hasCriteria || call.string("media") != nil || call.string("privacy_filter") != nil else {
                throw APIFailure(.parameterlessSearchesHaveBeenDisabled, "Parameterless searches have been disabled. Please use flickr.photos.getRecent instead.")
            }
            let caller = call.caller.user
            let table = s.photos
            let hits = query.search(table) { p in
                let own = caller != nil && p.owner == caller
                guard own || (s.canSee(p, caller: caller) && (p.hidden != 2 || query.owner == p.owner)) else { return false }
                // privacy_filter only narrows the caller's own photos; others' are public anyway.
                return true
            }
            return .nodes([PhotoElements.photoList(hits.lazy.map { table[$0]! }, call: call, state: s, cap: SandboxLimits.searchCap)])
        }
    }

    /// The full `<photo>` of `flickr.photos.getInfo`, shaped like the live answers.
    static func infoElement(_ photo: SandboxPhoto, state s: SandboxState, call: MethodCall) -> XMLNode {
        let owner = s.user(nsid: photo.owner)
        let isOwner = call.caller.user == photo.owner
        let faved = call.caller.user.map { u in s.favorites.contains { $0.user == u && $0.photo == photo.id } } ?? false
        var attributes: [(String, XMLNode.Value)] = [
            ("id", .string(photo.id)), ("secret", .string(photo.secret)), ("server", .string(photo.server)),
            ("farm", .number(photo.farm)), ("dateuploaded", .string(String(photo.datePosted))),
            ("isfavorite", .number(faved ? 1 : 0)), ("license", .string(String(photo.license))),
            // getInfo counts from 0 (0 safe, 1 moderate, 2 restricted: 45 of the recorded answers say "0"); setSafetyLevel takes 1–3.
            ("safety_level", .string(String(max(0, photo.safetyLevel - 1)))), ("rotation", .number(photo.rotation)),
        ]
        if isOwner || photo.isPublic {
            attributes += [("originalsecret", .string(photo.originalSecret)), ("originalformat", .string(photo.answeredOriginalFormat))]
        }
        attributes += [("views", .string(String(photo.views))), ("media", .string(photo.media))]
        let tags = photo.tags.map { tag in
            XMLNode("tag", [
                ("id", .string(tag.id)), ("author", .string(tag.author)),
                ("authorname", .string(s.user(nsid: tag.author)?.username ?? "")), ("raw", .string(tag.raw)),
                ("machine_tag", .number(tag.isMachineTag ? 1 : 0)),
            ], text: tag.clean)
        }
        var children: [XMLNode] = [
            XMLNode("owner", [
                ("nsid", .string(photo.owner)), ("username", .string(owner?.username ?? "")),
                ("realname", .string(owner?.realname ?? "")), ("location", .string(owner?.location ?? "")),
                ("iconserver", .string("65535")), ("iconfarm", .number(66)), ("path_alias", .string(owner?.pathAlias ?? "")),
            ]),
            .text("title", photo.title),
            .text("description", photo.description),
            XMLNode("visibility", [("ispublic", .number(photo.isPublic ? 1 : 0)), ("isfriend", .number(photo.isFriend ? 1 : 0)),
                                   ("isfamily", .number(photo.isFamily ? 1 : 0))]),
            XMLNode("dates", [("posted", .string(String(photo.datePosted))), ("taken", .string(photo.dateTaken)),
                              ("takengranularity", .string(String(photo.takenGranularity))), ("takenunknown", .string("0")),
                              ("lastupdate", .string(String(photo.lastUpdate)))]),
        ]
        if isOwner {
            children.append(XMLNode("permissions", [("permcomment", .number(photo.permComment)),
                                                    ("permaddmeta", .number(photo.permAddMeta))]))
        }
        let canAddMeta = isOwner || (call.caller.user != nil && photo.permAddMeta > 0)
        children += [
            XMLNode("editability", [("cancomment", .number(call.caller.user != nil ? 1 : 0)),
                                    ("canaddmeta", .number(canAddMeta ? 1 : 0))]),
            XMLNode("publiceditability", [("cancomment", .number(1)), ("canaddmeta", .number(photo.permAddMeta == 3 ? 1 : 0))]),
            XMLNode("usage", [("candownload", .number(1)), ("canblog", .number(isOwner ? 1 : 0)),
                              ("canprint", .number(isOwner ? 1 : 0)), ("canshare", .number(1))]),
            .text("comments", String(photo.comments.count)),
            XMLNode("notes", children: photo.notes.map { note in
                XMLNode("note", [("id", .string(note.id)), ("author", .string(note.author)),
                                 ("authorname", .string(s.user(nsid: note.author)?.username ?? "")),
                                 ("x", .number(note.x)), ("y", .number(note.y)), ("w", .number(note.w)), ("h", .number(note.h))],
                        text: note.text)
            }, lists: ["note"]),
            XMLNode("people", [("haspeople", .number(photo.people.isEmpty ? 0 : 1))]),
            XMLNode("tags", children: tags, lists: ["tag"]),
            XMLNode("urls", children: [
                XMLNode("url", [("type", "photopage")], text: s.photosURL(for: photo.owner, base: call.baseURL) + photo.id + "/"),
            ], lists: ["url"]),
        ]
        if let geo = photo.geo, s.canSeeLocation(of: photo, caller: call.caller.user) {
            children.append(PhotosGeoHandlers.locationElement(geo))
            if isOwner {
                children.append(XMLNode("geoperms", [
                    ("ispublic", .number(geo.isPublic ? 1 : 0)), ("iscontact", .number(geo.isContact ? 1 : 0)),
                    ("isfriend", .number(geo.isFriend ? 1 : 0)), ("isfamily", .number(geo.isFamily ? 1 : 0)),
                ]))
            }
        }
        return XMLNode("photo", attributes, children: children)
    }
}
