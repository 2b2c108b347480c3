import FlickrProtocol

/// The reads that look across the world: `flickr.tags.*` beyond one photo, `flickr.machinetags.*`, `flickr.interestingness.*`, `flickr.stats.*`, `flickr.urls.*` and a few popularity lists of `flickr.photos`, `flickr.people`, `flickr.favorites`, `flickr.groups` and `flickr.photos.geo`.
///
/// Tag statistics, machine tags, interestingness and stats, computed from the photos there
/// are (their tags and view counts); and the URL helpers for groups and galleries.
struct DiscoveryHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.tags.getHotList": { store, call in
            let period = call.string("period") ?? "day"
            guard let seconds = ["day": 86_400, "week": 7 * 86_400][period] else { throw APIFailure(.invalidPeriod, "Invalid period") }
            let count = min(max(call.int("count") ?? 20, 1), 200)
            return store.read { s in
                // Tags of public photos posted or edited within the period, by how many carry them.
                let since = call.now - seconds
                let recent = s.photos.values.filter { $0.isPublic && max($0.datePosted, $0.lastUpdate) >= since }
                let ranked = DiscoveryHandlers.tagCounts(recent).prefix(count)
                return .nodes([XMLNode("hottags", [("period", .string(period)), ("count", .number(ranked.count))],
                                       children: ranked.map { XMLNode("tag", [("score", .number($0.count))], text: $0.tag) },
                                       lists: ["tag"])])
            }
        },
        "flickr.tags.getRelated": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let tag = TagString.clean(call.string("tag") ?? "")
                let related = DiscoveryHandlers.coTags(of: tag, in: s.publicPhotos(carrying: tag)).prefix(20)
                guard !related.isEmpty else { throw APIFailure(.tagNotFound, "Tag not found") }
                return .nodes([XMLNode("tags", [("source", .string(tag))], children: related.map { .text("tag", $0.tag) },
                                       lists: ["tag"])])
            }
        },
        "flickr.tags.getClusters": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let tag = TagString.clean(call.string("tag") ?? "")
                let clusters = DiscoveryHandlers.clusters(of: tag, state: s)
                guard !clusters.isEmpty else { throw APIFailure(.tagClusterNotFound, "Tag cluster not found") }
                return .nodes([XMLNode("clusters", [("source", .string(tag)), ("total", .number(clusters.count))],
                                       children: clusters.map { cluster in
                    XMLNode("cluster", [("total", .number(cluster.count))], children: cluster.map { .text("tag", $0) }, lists: ["tag"])
                }, lists: ["cluster"])])
            }
        },
        "flickr.tags.getClusterPhotos": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let tag = TagString.clean(call.string("tag") ?? "")
                let id = call.string("cluster_id") ?? ""
                guard let cluster = DiscoveryHandlers.clusters(of: tag, state: s).first(where: { $0.joined(separator: "-") == id }) else {
                    throw APIFailure(.tagClusterNotFound, "Tag cluster not found")
                }
                let photos = s.publicPhotos(carrying: tag).filter { p in p.tags.contains { cluster.contains($0.clean) } }
                    .sorted { ($0.views, $0.id) > ($1.views, $1.id) }
                return .nodes([PhotoElements.photoList(Array(photos.prefix(24)), call: call, state: s)])
            }
        },
        "flickr.tags.getListUserPopular": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                guard let nsid = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                    failure: APIFailure(.userNotFound, "User not found"))?.nsid ?? call.caller.user else {
                    throw APIFailure(.userNotFound, "User not found")
                }
                return .nodes([DiscoveryHandlers.userTagCounts(nsid, state: s, caller: call.caller.user, limit: call.int("count") ?? 10)])
            }
        },
        "flickr.tags.getMostFrequentlyUsed": { store, call in
            let user = try call.requireUser()
            return store.read { s in .nodes([DiscoveryHandlers.userTagCounts(user, state: s, caller: user, limit: 10)]) }
        },
        "flickr.machinetags.getNamespaces": { store, call in
            try DiscoveryHandlers.machineTagList(store, call, name: "namespaces", item: "namespace") { (tags: [MachineTagUse]) throws(APIFailure) -> [XMLNode] in
                let predicate = call.string("predicate")?.lowercased()
                let chosen = tags.filter { predicate == nil || $0.predicate == predicate }
                if predicate != nil, chosen.isEmpty { throw APIFailure(.notAValidPredicateCode1, "Not a valid predicate.") }
                return Dictionary(grouping: chosen, by: \.namespace).sorted { $0.key < $1.key }.map { ns, uses in
                    XMLNode("namespace", [("usage", .number(uses.count)), ("predicates", .number(Set(uses.map(\.predicate)).count))], text: ns)
                }
            }
        },
        "flickr.machinetags.getPredicates": { store, call in
            try DiscoveryHandlers.machineTagList(store, call, name: "predicates", item: "predicate") { (tags: [MachineTagUse]) throws(APIFailure) -> [XMLNode] in
                let namespace = call.string("namespace")?.lowercased()
                let chosen = tags.filter { namespace == nil || $0.namespace == namespace }
                if namespace != nil, chosen.isEmpty { throw APIFailure(.notAValidNamespace, "Not a valid namespace") }
                return Dictionary(grouping: chosen, by: \.predicate).sorted { $0.key < $1.key }.map { p, uses in
                    XMLNode("predicate", [("usage", .number(uses.count)), ("namespaces", .number(Set(uses.map(\.namespace)).count))], text: p)
                }
            }
        },
        "flickr.machinetags.getPairs": { store, call in
            try DiscoveryHandlers.machineTagList(store, call, name: "pairs", item: "pair") { (tags: [MachineTagUse]) throws(APIFailure) -> [XMLNode] in
                let namespace = call.string("namespace")?.lowercased()
                let predicate = call.string("predicate")?.lowercased()
                var chosen = tags.filter { namespace == nil || $0.namespace == namespace }
                if namespace != nil, chosen.isEmpty { throw APIFailure(.notAValidNamespace, "Not a valid namespace") }
                chosen = chosen.filter { predicate == nil || $0.predicate == predicate }
                if predicate != nil, chosen.isEmpty { throw APIFailure(.notAValidPredicate, "Not a valid predicate") }
                return Dictionary(grouping: chosen, by: { $0.namespace + ":" + $0.predicate }).sorted { $0.key < $1.key }.map { pair, uses in
                    XMLNode("pair", [("namespace", .string(uses[0].namespace)), ("predicate", .string(uses[0].predicate)),
                                     ("usage", .number(uses.count))], text: pair)
                }
            }
        },
        "flickr.machinetags.getValues": { store, call in
            let namespace = call.string("namespace")?.lowercased() ?? ""
            let predicate = call.string("predicate")?.lowercased() ?? ""
            return try DiscoveryHandlers.machineTagList(store, call, name: "values", item: "value",
                                             attributes: [("namespace", .string(namespace)), ("predicate", .string(predicate))]) {
                (tags: [MachineTagUse]) throws(APIFailure) -> [XMLNode] in
                guard tags.contains(where: { $0.namespace == namespace }) else { throw APIFailure(.notAValidNamespace, "Not a valid namespace") }
                let chosen = tags.filter { $0.namespace == namespace && $0.predicate == predicate }
                guard !chosen.isEmpty else { throw APIFailure(.notAValidPredicate, "Not a valid predicate") }
                return Dictionary(grouping: chosen, by: \.value).sorted { $0.key < $1.key }.map { value, uses in
                    XMLNode("value", [("usage", .number(uses.count))], text: value)
                }
            }
        },
        "flickr.machinetags.getRecentValues": { store, call in
            let namespace = call.string("namespace")?.lowercased()
            let predicate = call.string("predicate")?.lowercased()
            let since = call.string("added_since").flatMap(SandboxDates.parse) ?? 0
            return try DiscoveryHandlers.machineTagList(store, call, name: "values", item: "value",
                                             attributes: [("namespace", .string(namespace ?? "")), ("predicate", .string(predicate ?? ""))]) {
                (tags: [MachineTagUse]) throws(APIFailure) -> [XMLNode] in
                let chosen = tags.filter {
                    (namespace == nil || $0.namespace == namespace) && (predicate == nil || $0.predicate == predicate) && $0.added >= since
                }
                return Dictionary(grouping: chosen, by: { "\($0.namespace):\($0.predicate)=\($0.value)" })
                    .map { _, uses in uses }.sorted { ($0.map(\.added).max()!, $0[0].value) > ($1.map(\.added).max()!, $1[0].value) }
                    .map { uses in
                        XMLNode("value", [("usage", .number(uses.count)), ("namespace", .string(uses[0].namespace)),
                                          ("predicate", .string(uses[0].predicate)),
                                          ("first_added", .string(String(uses.map(\.added).min()!))),
                                          ("last_added", .string(String(uses.map(\.added).max()!)))], text: uses[0].value)
                    }
            }
        },
        "flickr.interestingness.getList": { store, call in
            var day: Int?
            if let date = call.string("date") {
                guard date.count == 10, let t = SandboxDates.parse(date) else { throw APIFailure(.notAValidDateString, "Not a valid date string.") }
                day = t
            }
            return store.read { s in
                // The most viewed public photos (of one posting day when `date` is given).
                let photos = s.photos.values.filter { p in
                    p.isPublic && p.hidden != 2 && (day.map { p.datePosted >= $0 && p.datePosted < $0 + 86_400 } ?? true)
                }.sorted { ($0.views, $0.id) > ($1.views, $1.id) }
                return .nodes([PhotoElements.photoList(Array(photos.prefix(500)), call: call, state: s)])
            }
        },
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
                    list.children[i].children.append(DiscoveryHandlers.statsElement(p, state: s))
                }
                return .nodes([list])
            }
        },
        "flickr.stats.getPhotoStats": { store, call in
            let user = try call.requireUser()
            guard SandboxDates.parse(call.string("date") ?? "") != nil else { throw APIFailure(.invalidDate, "Invalid date") }
            return try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.ownedPhoto(call.string("photo_id"), caller: user, code: .photoNotFoundCode4)
                return .nodes([DiscoveryHandlers.statsElement(photo, state: s)])
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
                return .nodes(PhotoReadsHandlers.context(of: photo.id, in: list, state: s, call: call))
            }
        },
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
        "flickr.photos.geo.photosForLocation": { store, call in
            let user = try call.requireUser()
            let lat = try call.double("lat", or: APIFailure(.requiredArgumentsMissing, "Required arguments missing"))
            let lon = try call.double("lon", or: APIFailure(.requiredArgumentsMissing, "Required arguments missing"))
            let accuracy = call.int("accuracy") ?? 16
            return try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photos = s.photos.values.filter { p in
                    guard p.owner == user, let g = p.geo else { return false }
                    return g.accuracy == accuracy && abs(g.latitude - lat) < 1e-6 && abs(g.longitude - lon) < 1e-6
                }.sorted { ($0.datePosted, $0.id) > ($1.datePosted, $1.id) }
                guard !photos.isEmpty else { throw APIFailure(.noPhotosFound, "No photos found") }
                return .nodes([PhotoElements.photoList(photos, call: call, state: s)])
            }
        },
        "flickr.urls.getUserPhotos": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                guard let nsid = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                    failure: APIFailure(.userNotFound, "User not found"))?.nsid ?? call.caller.user else {
                    throw APIFailure(.noUserSpecified, "No user specified")
                }
                return .nodes([XMLNode("user", [("nsid", .string(nsid)), ("url", .string(s.photosURL(for: nsid, base: call.baseURL)))])])
            }
        },
        "flickr.urls.getUserProfile": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                guard let nsid = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                    failure: APIFailure(.userNotFound, "User not found"))?.nsid ?? call.caller.user else {
                    throw APIFailure(.noUserSpecified, "No user specified")
                }
                return .nodes([XMLNode("user", [("nsid", .string(nsid)), ("url", .string("\(call.baseURL)/people/\(nsid)/"))])])
            }
        },
        "flickr.urls.getGroup": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let g = s.community.groups[try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupNotFound, "Group not found"))]
                return .nodes([XMLNode("group", [("nsid", .string(g.nsid)), ("url", .string("\(call.baseURL)/groups/\(g.nsid)/"))])])
            }
        },
        "flickr.urls.lookupGroup": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let url = call.string("url") ?? ""
                guard let g = s.community.groups.first(where: { url.contains("/groups/\($0.nsid)") }) else {
                    throw APIFailure(.groupNotFound, "Group not found")
                }
                return .nodes([XMLNode("group", [("id", .string(g.nsid))], children: [.text("groupname", g.name)])])
            }
        },
        "flickr.urls.lookupGallery": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let url = call.string("url") ?? ""
                guard let g = s.community.galleries.first(where: { url.contains("/galleries/\($0.number)") }) else {
                    throw APIFailure(.galleryNotFound, "Gallery not found")
                }
                return .nodes([GalleriesHandlers.galleryElement(g, state: s, call: call)])
            }
        },
    ]

    /// One use of a machine tag on a photo.
    struct MachineTagUse {
        var namespace: String
        var predicate: String
        var value: String
        /// When the photo carrying it last changed (posted or edited).
        var added: Int
    }

    /// A paged machine-tag listing (`<NAME page pages total perpage>` of `ITEM`s) over the
    /// machine tags of the public photos and the caller's own.
    static func machineTagList(_ store: SandboxStore, _ call: MethodCall, name: String, item: String, attributes: [(String, XMLNode.Value)] = [],
                        _ items: ([MachineTagUse]) throws(APIFailure) -> [XMLNode]) throws(APIFailure) -> MethodPayload {
        try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
            var uses: [MachineTagUse] = []
            for p in s.photos.values where p.isPublic || p.owner == call.caller.user {
                for tag in p.tags where tag.isMachineTag {
                    guard let (ns, pred, value) = TagString.machineTagParts(tag.clean) else { continue }
                    uses.append(MachineTagUse(namespace: ns.lowercased(), predicate: pred.lowercased(), value: value,
                                              added: max(p.datePosted, p.lastUpdate)))
                }
            }
            let all = try items(uses)
            let perPage = min(max(call.int("per_page") ?? 100, 1), 500)
            let page = max(1, call.int("page") ?? 1)
            let start = min(all.count, (page - 1) * perPage)
            return .nodes([XMLNode(name, attributes + [
                ("page", .number(page)), ("pages", .number(max(1, (all.count + perPage - 1) / perPage))),
                ("total", .number(all.count)), ("perpage", .number(perPage)),
            ], children: Array(all[start..<min(all.count, start + perPage)]), lists: [item])])
        }
    }

    /// Clean tags by how many of `photos` carry them (most first, then by name).
    static func tagCounts(_ photos: [SandboxPhoto]) -> [(tag: String, count: Int)] {
        var counts: [String: Int] = [:]
        for p in photos { for clean in Set(p.tags.filter { !$0.isMachineTag }.map(\.clean)) { counts[clean, default: 0] += 1 } }
        return counts.map { ($0.key, $0.value) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.tag < $1.tag }
    }

    /// The tags carried together with `tag` on `photos`, most frequent first.
    static func coTags(of tag: String, in photos: [SandboxPhoto]) -> [(tag: String, count: Int)] {
        tagCounts(photos).filter { $0.tag != tag }
    }

    /// Up to three clusters of `tag`: for each of its three most frequent companions, that
    /// companion and the two tags most often carried with both.
    static func clusters(of tag: String, state s: SandboxState) -> [[String]] {
        let photos = s.publicPhotos(carrying: tag)
        return coTags(of: tag, in: photos).prefix(3).map { seed in
            let both = photos.filter { p in p.tags.contains { $0.clean == seed.tag } }
            return [seed.tag] + coTags(of: tag, in: both).filter { $0.tag != seed.tag }.prefix(2).map(\.tag)
        }
    }

    /// `<who id><tags><tag count>…` of a member's own tags, most used first.
    static func userTagCounts(_ nsid: String, state s: SandboxState, caller: String?, limit: Int) -> XMLNode {
        let photos = s.photos.values.filter { $0.owner == nsid && s.canSee($0, caller: caller) }
        var counts: [String: Int] = [:]
        for p in photos { for tag in p.tags where tag.author == nsid { counts[tag.clean, default: 0] += 1 } }
        let ranked = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(max(1, limit))
        return XMLNode("who", [("id", .string(nsid))], children: [
            XMLNode("tags", children: ranked.map { XMLNode("tag", [("count", .number($0.value))], text: $0.key) }, lists: ["tag"]),
        ])
    }

    /// `<stats views comments favorites/>` of a photo.
    static func statsElement(_ p: SandboxPhoto, state s: SandboxState) -> XMLNode {
        XMLNode("stats", [("views", .number(p.views)), ("comments", .number(p.comments.count)),
                          ("favorites", .number(s.favorites.filter { $0.photo == p.id }.count))])
    }
}
