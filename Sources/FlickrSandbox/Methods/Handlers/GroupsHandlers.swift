import FlickrProtocol
import Foundation

/// `flickr.groups.*`, `flickr.groups.members.*` and `flickr.groups.pools.*`: groups, membership and pools.
struct GroupsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.groups.search": { store, call in
            let text = (call.string("text") ?? "").lowercased()
            return store.read { s in
                let found = s.community.groups.filter {
                    $0.privacy != 1 && ($0.name.lowercased().contains(text) || $0.description.lowercased().contains(text))
                }
                let p = call.page(of: found)
                return .nodes([XMLNode("groups", [
                    ("page", .number(p.page)), ("pages", .number(p.pages)),
                    ("perpage", .number(p.perPage)), ("total", .number(found.count)),
                ], children: p.items.map { g in
                    XMLNode("group", [("nsid", .string(g.nsid)), ("name", .string(g.name)), ("eighteenplus", .number(0))])
                }, lists: ["group"])])
            }
        },
        "flickr.groups.join": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let i = try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupDoesNotExist, "Group does not exist"))
                let g = s.community.groups[i]
                guard !g.members.contains(user) else { throw APIFailure(.accountIsAlreadyInThatGroup, "Account is already in that group") }
                guard g.privacy == 3 else { throw APIFailure(.membershipInGroupIsByInvitationOnly, "Membership in group is by invitation only.") }
                guard g.rules.isEmpty || call.flag("accept_rules") == true else {
                    throw APIFailure(.userMustAcceptTheGroupRulesBeforeJoining, "User must accept the group rules before joining")
                }
                s.community.groups[i].members.append(user)
            }
            return .empty
        },
        "flickr.groups.joinRequest": { store, call in
            let user = try call.requireUser()
            guard let message = call.string("message") else { throw APIFailure(.requiredArgumentsMissing, "Required arguments missing") }
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let i = try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupDoesNotExist, "Group does not exist"))
                let g = s.community.groups[i]
                guard !g.members.contains(user) else { throw APIFailure(.accountIsAlreadyInThatGroup, "Account is already in that group") }
                guard g.privacy != 3 else { throw APIFailure(.groupIsPublicAndOpen, "Group is public and open") }
                guard call.flag("accept_rules") == true else { throw APIFailure(.userMustAcceptTheGroupRulesBeforeJoining, "User must accept the group rules before joining") }
                guard g.joinRequests[user] == nil else { throw APIFailure(.userHasAlreadyRequestedToJoinThatGroup, "User has already requested to join that group") }
                s.community.groups[i].joinRequests[user] = message
            }
            return .empty
        },
        "flickr.groups.leave": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let i = try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupDoesNotExist, "Group does not exist"))
                guard s.community.groups[i].members.contains(user) else { throw APIFailure(.accountIsNotInThatGroup, "Account is not in that group") }
                s.community.groups[i].members.removeAll { $0 == user }
                s.community.groups[i].admins.removeAll { $0 == user }
                if call.flag("delete_photos") == true {
                    let mine = s.community.groups[i].pool.filter { s.photos[$0.photo]?.owner == user }.map(\.photo)
                    s.community.groups[i].pool.removeAll { mine.contains($0.photo) }
                    s.touch(mine, now: call.now)
                }
            }
            return .empty
        },
        "flickr.groups.pools.add": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let photo = try s.ownedPhoto(call.string("photo_id"), caller: user)
                let i = try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupNotFoundCode2, "Group not found"))
                guard s.community.groups[i].members.contains(user) else { throw APIFailure(.groupNotFoundCode2, "Group not found") }
                guard !s.community.groups[i].pool.contains(where: { $0.photo == photo.id }) else {
                    throw APIFailure(.photoAlreadyInPool, "Photo already in pool")
                }
                s.community.groups[i].pool.insert(SandboxPoolItem(photo: photo.id, addedBy: user, dateAdded: call.now), at: 0)
                s.touch([photo.id], now: call.now)
            }
            return .empty
        },
        "flickr.groups.pools.remove": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let i = try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupNotFound, "Group not found"))
                guard let id = call.string("photo_id"), let at = s.community.groups[i].pool.firstIndex(where: { $0.photo == id }) else {
                    throw APIFailure(.photoNotInPoolCode2, "Photo not in pool")
                }
                guard s.photos[id]?.owner == user || s.community.groups[i].admins.contains(user) else {
                    throw APIFailure(.insufficientPermissionToRemovePhoto, "Insufficient permission to remove photo")
                }
                s.community.groups[i].pool.remove(at: at)
                s.touch([id], now: call.now)
            }
            return .empty
        },
        "flickr.groups.pools.getPhotos": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let g = s.community.groups[try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupNotFound, "Group not found"))]
                var query = PhotoQuery(call)
                query.sort = ""
                if let u = call.string("user_id") { query.owner = s.resolveUser(u)?.nsid ?? u }
                var added: [String: Int] = [:]
                let photos = g.pool.compactMap { item -> SandboxPhoto? in
                    guard let p = s.photos[item.photo], s.canSee(p, caller: call.caller.user), query.matches(p) else { return nil }
                    added[p.id] = item.dateAdded
                    return p
                }
                return .nodes([PhotoElements.photoList(photos, call: call, state: s) { p in
                    [("ownername", .string(s.user(nsid: p.owner)?.username ?? "")), ("dateadded", .string(String(added[p.id] ?? 0)))]
                }])
            }
        },
        "flickr.groups.pools.getGroups": { store, call in
            let user = try call.requireUser()
            return store.read { s in
                let mine = s.community.groups.filter { $0.members.contains(user) }
                return .nodes([XMLNode("groups", [("page", .number(1)), ("pages", .number(1)), ("per_page", .number(400)),
                                                  ("total", .number(mine.count))], children: mine.map { g in
                    XMLNode("group", [("nsid", .string(g.nsid)), ("name", .string(g.name)),
                                      ("admin", .number(g.admins.contains(user) ? 1 : 0)), ("privacy", .number(g.privacy)),
                                      ("photos", .number(g.pool.count)), ("iconserver", .string("1"))])
                }, lists: ["group"])])
            }
        },
        "flickr.groups.pools.getContext": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let g = s.community.groups[try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupNotFoundCode2, "Group not found"))]
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found")
                guard g.pool.contains(where: { $0.photo == photo.id }) else { throw APIFailure(.photoNotInPool, "Photo not in pool") }
                let members = g.pool.compactMap { s.photos[$0.photo] }.filter { s.canSee($0, caller: call.caller.user) }
                return .nodes(PhotosHandlers.context(of: photo.id, in: members, state: s, call: call))
            }
        },
        "flickr.groups.getInfo": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let g = s.community.groups[try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupNotFound, "Group not found"))]
                return .nodes([XMLNode("group", [("id", .string(g.nsid)), ("iconserver", .string("1")), ("iconfarm", .number(1)),
                                                 ("lang", .string("en-us")), ("ispoolmoderated", .number(0))], children: [
                    .text("name", g.name), .text("description", g.description), .text("rules", g.rules),
                    .text("members", String(g.members.count)), .text("pool_count", String(g.pool.count)),
                    .text("topic_count", String(g.topics.count)), .text("privacy", String(g.privacy)),
                ])])
            }
        },
        "flickr.groups.members.getList": { store, call in
            _ = try call.requireUser()
            return try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let g = s.community.groups[try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupNotFound, "Group not found"))]
                let p = call.page(of: g.members)
                return .nodes([XMLNode("members", [
                    ("page", .number(p.page)), ("pages", .number(p.pages)),
                    ("perpage", .number(p.perPage)), ("total", .number(g.members.count)),
                ], children: p.items.map { m in
                    XMLNode("member", [("nsid", .string(m)), ("username", .string(s.user(nsid: m)?.username ?? "")),
                                       ("iconserver", .string("1")), ("iconfarm", .number(1)),
                                       ("membertype", .number(g.admins.contains(m) ? 4 : 2))])
                }, lists: ["member"])])
            }
        },
    ]
}
