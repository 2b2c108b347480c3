import FlickrProtocol
import Foundation

/// `flickr.people.*`: finding users, their info, photos, groups.
struct PeopleHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.people.getPublicGroups": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                guard let user = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                    failure: APIFailure(.userNotFound, "User not found")) else { throw APIFailure(.userNotFound, "User not found") }
                let groups = s.community.groups.filter { $0.privacy == 3 && $0.members.contains(user.nsid) }
                return .nodes([XMLNode("groups", children: groups.map { g in
                    XMLNode("group", [("nsid", .string(g.nsid)), ("name", .string(g.name)),
                                      ("admin", .number(g.admins.contains(user.nsid) ? 1 : 0)), ("eighteenplus", .number(0)),
                                      ("invitation_only", .number(0))])
                }, lists: ["group"])])
            }
        },
        "flickr.people.getGroups": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                guard let person = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                      failure: APIFailure(.userNotFound, "User not found")) else { throw APIFailure(.userNotFound, "User not found") }
                let groups = s.community.groups.filter { $0.members.contains(person.nsid) }
                return .nodes([XMLNode("groups", children: groups.map { g in
                    XMLNode("group", [("nsid", .string(g.nsid)), ("name", .string(g.name)), ("iconfarm", .number(1)),
                                      ("iconserver", .string("1")), ("admin", .number(g.admins.contains(person.nsid) ? 1 : 0)),
                                      ("eighteenplus", .number(0)), ("invitation_only", .number(g.privacy == 3 ? 0 : 1)),
                                      ("members", .number(g.members.count)), ("pool_count", .number(g.pool.count))])
                }, lists: ["group"])])
            }
        },
        "flickr.people.getInfo": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                guard let user = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                    failure: APIFailure(.userNotFound, "User not found")) else {
                    throw APIFailure(.userNotFound, "User not found")
                }
                let mine = s.photos.values.filter { $0.owner == user.nsid }
                let visible = mine.filter { s.canSee($0, caller: call.caller.user) }
                let first = visible.min { $0.datePosted < $1.datePosted }
                let firstTaken = visible.map(\.dateTaken).min()
                let alias = user.pathAlias ?? ""
                let who = alias.isEmpty ? user.nsid : alias
                var photos = XMLNode("photos", children: [])
                if let firstTaken { photos.children.append(.text("firstdatetaken", firstTaken)) }
                if let first { photos.children.append(.text("firstdate", String(first.datePosted))) }
                photos.children.append(.text("count", String(visible.count)))
                var attributes: [(String, XMLNode.Value)] = [
                    ("id", .string(user.nsid)), ("nsid", .string(user.nsid)), ("ispro", .number(user.isPro ? 1 : 0)),
                    ("is_deleted", .number(0)), ("iconserver", .string("65535")), ("iconfarm", .number(66)),
                    ("path_alias", .string(alias)), ("has_stats", .number(0)),
                ]
                // A pro account as the recorded answers show one: its badge, when the subscription
                // ends (guess: ten years after joining) and the subscription's perks.
                if user.isPro {
                    attributes += [("pro_badge", .string("standard")), ("expire", .string(String(user.dateJoined + 315_360_000))),
                                   ("has_adfree", .number(0)), ("has_free_standard_shipping", .number(0)),
                                   ("has_free_educational_resources", .number(0))]
                }
                return .nodes([XMLNode("person", attributes, children: [
                    .text("username", user.username), .text("realname", user.realname),
                    .text("location", user.location), .text("description", user.description),
                    .text("photosurl", "\(call.baseURL)/photos/\(who)/"),
                    .text("profileurl", "\(call.baseURL)/people/\(who)/"),
                    .text("mobileurl", "\(call.baseURL)/photos/\(who)/"),
                    photos,
                ])])
            }
        },
        // An address no user of the world has is 1 "User not found", as Flickr answers it; the
        // addresses come from the seed (`users[].email`).
        "flickr.people.findByEmail": { store, call in
            let email = (call.string("find_email") ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            guard !email.isEmpty, let user = store.read({ s in s.users.first { $0.email?.lowercased() == email } }) else {
                throw APIFailure(.userNotFound, "User not found")
            }
            return .nodes([XMLNode("user", [("id", .string(user.nsid)), ("nsid", .string(user.nsid))],
                                   children: [.text("username", user.username)])])
        },
        "flickr.people.findByUsername": { store, call in
            let name = call.string("username") ?? ""
            guard let user = store.read({ $0.user(named: name) }) else { throw APIFailure(.userNotFound, "User not found") }
            return .nodes([XMLNode("user", [("id", .string(user.nsid)), ("nsid", .string(user.nsid))],
                                   children: [.text("username", user.username)])])
        },
        "flickr.people.getPhotos": { store, call in
            try PeopleHandlers.userPhotos(store, call, publicOnly: false, unknownUser: APIFailure(.unknownUser, "Unknown user"))
        },
        "flickr.people.getPublicPhotos": { store, call in
            try PeopleHandlers.userPhotos(store, call, publicOnly: true, unknownUser: APIFailure(.userNotFound, "User not found"))
        },
        "flickr.people.getUploadStatus": { store, call in
            let nsid = try call.requireUser()
            return store.read { s in
                let user = s.user(nsid: nsid)
                let used = s.photos.values.filter { $0.owner == nsid && $0.datePosted >= call.now - 30 * 86_400 }
                    .reduce(0) { $0 + ($1.fileSize ?? 0) }
                let sets = s.photosets.filter { $0.owner == nsid }.count
                let max = 1_073_741_824
                return .nodes([XMLNode("user", [("id", .string(nsid)), ("ispro", .number(user?.isPro == true ? 1 : 0))], children: [
                    .text("username", user?.username ?? ""),
                    XMLNode("bandwidth", [("maxbytes", .string(String(max))), ("maxkb", .string(String(max / 1024))),
                                          ("usedbytes", .string(String(used))), ("usedkb", .string(String(used / 1024))),
                                          ("remainingbytes", .string(String(Swift.max(0, max - used)))),
                                          ("remainingkb", .string(String(Swift.max(0, max - used) / 1024))),
                                          ("unlimited", .number(user?.isPro == true ? 1 : 0))]),
                    XMLNode("filesize", [("maxbytes", "1073741824"), ("maxkb", "1048576"), ("maxmb", "1024")]),
                    XMLNode("videosize", [("maxbytes", "1073741824"), ("maxkb", "1048576"), ("maxmb", "1024")]),
                    XMLNode("sets", [("created", .number(sets)), ("remaining", "lots")]),
                    XMLNode("videos", [("uploaded", .number(s.photos.values.filter { $0.owner == nsid && $0.media == "video" }.count)),
                                       ("remaining", "lots")]),
                ])])
            }
        },
        "flickr.people.getPhotosOf": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                guard let person = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                      failure: APIFailure(.userNotFound, "User not found")) else {
                    throw APIFailure(.userNotFound, "User not found")
                }
                var query = PhotoQuery(call)
                query.sort = "date-posted-desc"
                let photos = s.photos.values.filter { p in
                    p.people.contains { $0.user == person.nsid } && s.canSee(p, caller: call.caller.user) && query.matches(p)
                }
                var list = PhotoElements.photoList(query.sorted(photos), call: call, state: s)
                list.attributes.append(("has_next_page", .number(0)))
                return .nodes([list])
            }
        },
    ]

    /// people.getPhotos / getPublicPhotos: a user's photos the caller may see, filtered and paged.
    static func userPhotos(_ store: SandboxStore, _ call: MethodCall, publicOnly: Bool, unknownUser: APIFailure) throws(APIFailure) -> MethodPayload {
        try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
            guard let user = try s.userArgument(call.string("user_id"), caller: call.caller.user, failure: unknownUser) else {
                throw unknownUser
            }
            var query = PhotoQuery(call)
            query.owner = user.nsid
            query.sort = "date-posted-desc"
            let ids = query.search(s.photos) { publicOnly ? $0.isPublic : s.canSee($0, caller: call.caller.user) }
            return .nodes([PhotoElements.photoList(ids.lazy.map { s.photos[$0]! }, call: call, state: s)])
        }
    }
}
