import FlickrProtocol
import Foundation

/// `flickr.tags.*`: tags of a photo or a user, and the statistics over all photos (hot, related, clusters).
struct TagsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.tags.getHotList": { store, call in
            let period = call.string("period") ?? "day"
            guard let seconds = ["day": 86_400, "week": 7 * 86_400][period] else { throw APIFailure(.invalidPeriod, "Invalid period") }
            let count = min(max(call.int("count") ?? 20, 1), 200)
            return store.read { s in
                // Tags of public photos posted or edited within the period, by how many carry them.
                let since = call.now - seconds
                let recent = s.photos.values.filter { $0.isPublic && max($0.datePosted, $0.lastUpdate) >= since }
                let ranked = TagsHandlers.tagCounts(recent).prefix(count)
                return .nodes([XMLNode("hottags", [("period", .string(period)), ("count", .number(ranked.count))],
                                       children: ranked.map { XMLNode("tag", [("score", .number($0.count))], text: $0.tag) },
                                       lists: ["tag"])])
            }
        },
        "flickr.tags.getRelated": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let tag = TagString.clean(call.string("tag") ?? "")
                let related = TagsHandlers.coTags(of: tag, in: s.publicPhotos(carrying: tag)).prefix(20)
                guard !related.isEmpty else { throw APIFailure(.tagNotFound, "Tag not found") }
                return .nodes([XMLNode("tags", [("source", .string(tag))], children: related.map { .text("tag", $0.tag) },
                                       lists: ["tag"])])
            }
        },
        "flickr.tags.getClusters": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let tag = TagString.clean(call.string("tag") ?? "")
                let clusters = TagsHandlers.clusters(of: tag, state: s)
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
                guard let cluster = TagsHandlers.clusters(of: tag, state: s).first(where: { $0.joined(separator: "-") == id }) else {
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
                return .nodes([TagsHandlers.userTagCounts(nsid, state: s, caller: call.caller.user, limit: call.int("count") ?? 10)])
            }
        },
        "flickr.tags.getMostFrequentlyUsed": { store, call in
            let user = try call.requireUser()
            return store.read { s in .nodes([TagsHandlers.userTagCounts(user, state: s, caller: user, limit: 10)]) }
        },
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
}
