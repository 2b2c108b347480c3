import FlickrProtocol

/// `flickr.tags.*` of one photo or one user.
struct TagsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.tags.getListPhoto": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found")
                let tags = photo.tags.map { tag in
                    XMLNode("tag", [("id", .string(tag.id)), ("author", .string(tag.author)),
                                    ("authorname", .string(s.user(nsid: tag.author)?.username ?? "")),
                                    ("raw", .string(tag.raw)), ("machine_tag", .number(tag.isMachineTag ? 1 : 0))],
                            text: tag.clean)
                }
                return .nodes([XMLNode("photo", [("id", .string(photo.id))],
                                       children: [XMLNode("tags", children: tags, lists: ["tag"])])])
            }
        },
        "flickr.tags.getListUser": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let user = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                              failure: APIFailure(.userNotFound, "User not found"))
                guard let nsid = user?.nsid ?? call.caller.user else { throw APIFailure(.userNotFound, "User not found") }
                var cleans: [String] = []
                var seen = Set<String>()
                for photo in s.photos.values where photo.owner == nsid && s.canSee(photo, caller: call.caller.user) {
                    for tag in photo.tags where tag.author == nsid && seen.insert(tag.clean).inserted {
                        cleans.append(tag.clean)
                    }
                }
                return .nodes([XMLNode("who", [("id", .string(nsid))], children: [
                    XMLNode("tags", children: cleans.sorted().map { .text("tag", $0) }, lists: ["tag"]),
                ])])
            }
        },
        "flickr.tags.getListUserRaw": { store, call in
            let nsid = try call.requireUser()
            return store.read { s in
                let wanted = call.string("tag").map { TagString.clean($0) }
                var raws: [String: [String]] = [:]
                for photo in s.photos.values where photo.owner == nsid {
                    for tag in photo.tags where tag.author == nsid && (wanted == nil || tag.clean == wanted) {
                        if !(raws[tag.clean]?.contains(tag.raw) ?? false) { raws[tag.clean, default: []].append(tag.raw) }
                    }
                }
                let tags = raws.keys.sorted().map { clean in
                    XMLNode("tag", [("clean", .string(clean))], children: raws[clean]!.sorted().map { .text("raw", $0) },
                            lists: ["raw"])
                }
                return .nodes([XMLNode("who", [("id", .string(nsid))], children: [XMLNode("tags", children: tags, lists: ["tag"])])])
            }
        },
    ]
}
