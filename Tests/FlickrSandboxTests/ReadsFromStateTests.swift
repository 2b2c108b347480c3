import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// Readers computed from the world rather than documented examples: tag statistics, machine
/// tags, interestingness and stats from views, URLs of groups and galleries.
@Suite("Reads answer from state", .timeLimit(.minutes(3)), .tags(.integration))
struct ReadsFromStateTests {
    static func ids(_ xml: String) -> [String] { XMLProbe.attributes("id", of: "photo", in: xml) }

    @Test("tags: related and clusters come from the tags present; the hot list from recent edits")
    func tags() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let related = XMLProbe.texts(of: "tag", in: try await me.ok("flickr.tags.getRelated", [("tag", "fog")], verb: "GET"))
            #expect(!related.isEmpty)
            for tag in related.prefix(3) {
                let both = try await me.ok("flickr.photos.search", [("tags", "fog,\(tag)"), ("tag_mode", "all")], verb: "GET")
                #expect(!Self.ids(both).isEmpty, "\(tag) is never carried with fog")
            }
            #expect(XMLProbe.errorCode(try await me.call("flickr.tags.getRelated", [("tag", "nosuchtag")], verb: "GET").body) == 1)
            let clusters = try await me.ok("flickr.tags.getClusters", [("tag", "fog")], verb: "GET")
            let first = XMLProbe.texts(of: "tag", in: clusters).prefix(3).joined(separator: "-")
            let photos = try await me.ok("flickr.tags.getClusterPhotos", [("tag", "fog"), ("cluster_id", first)], verb: "GET")
            #expect(!Self.ids(photos).isEmpty)

            let none = try await me.ok("flickr.tags.getHotList", [("period", "day")], verb: "GET")
            #expect(!XMLProbe.texts(of: "tag", in: none).contains("brandnewhot"))
            let mine = try await me.ok("flickr.people.getPublicPhotos", [("user_id", "me"), ("per_page", "2")], verb: "GET")
            for p in Self.ids(mine) { _ = try await me.ok("flickr.photos.addTags", [("photo_id", p), ("tags", "brandnewhot")]) }
            let hot = try await me.ok("flickr.tags.getHotList", [("period", "day")], verb: "GET")
            let i = try #require(XMLProbe.texts(of: "tag", in: hot).firstIndex(of: "brandnewhot"))
            #expect(XMLProbe.attributes("score", of: "tag", in: hot)[i] == "2")
            #expect(XMLProbe.errorCode(try await me.call("flickr.tags.getHotList", [("period", "year")], verb: "GET").body) == 1)
        }
    }

    @Test("machinetags.* list the machine tags present, with usage")
    func machineTags() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let spaces = XMLProbe.texts(of: "namespace", in: try await me.ok("flickr.machinetags.getNamespaces", [], verb: "GET"))
            #expect(spaces.contains("camera") && spaces.contains("geo"))
            #expect(!spaces.contains("sandboxtest"))
            let p = try #require(Self.ids(try await me.ok("flickr.people.getPublicPhotos", [("user_id", "me"), ("per_page", "1")], verb: "GET")).first)
            _ = try await me.ok("flickr.photos.addTags", [("photo_id", p), ("tags", "sandboxtest:run=42")])
            let values = try await me.ok("flickr.machinetags.getValues", [("namespace", "sandboxtest"), ("predicate", "run")], verb: "GET")
            #expect(XMLProbe.texts(of: "value", in: values) == ["42"] && XMLProbe.attributes("usage", of: "value", in: values) == ["1"])
            let pairs = try await me.ok("flickr.machinetags.getPairs", [("namespace", "sandboxtest")], verb: "GET")
            #expect(XMLProbe.texts(of: "pair", in: pairs) == ["sandboxtest:run"])
            let predicates = try await me.ok("flickr.machinetags.getPredicates", [("namespace", "camera")], verb: "GET")
            #expect(Set(XMLProbe.texts(of: "predicate", in: predicates)) == ["make", "model"])
            let recent = try await me.ok("flickr.machinetags.getRecentValues", [("namespace", "sandboxtest"), ("added_since", String(Int(Date().timeIntervalSince1970) - 60))], verb: "GET")
            #expect(XMLProbe.texts(of: "value", in: recent) == ["42"])
            #expect(XMLProbe.errorCode(try await me.call("flickr.machinetags.getValues", [("namespace", "nope"), ("predicate", "x")], verb: "GET").body) == 1)
        }
    }

    @Test("interestingness and stats come from views, comments and favourites")
    func viewsAndStats() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let list = try await me.ok("flickr.interestingness.getList", [("extras", "views"), ("per_page", "50")], verb: "GET")
            let views = XMLProbe.attributes("views", of: "photo", in: list).compactMap { Int($0) }
            #expect(views.count == 50 && views == views.sorted(by: >))
            let p = try #require(Self.ids(try await me.ok("flickr.people.getPublicPhotos", [("user_id", "me"), ("per_page", "1")], verb: "GET")).first)
            let before = try await me.ok("flickr.stats.getPhotoStats", [("photo_id", p), ("date", "2026-01-01")], verb: "GET")
            let comments = Int(XMLProbe.attributes("comments", of: "stats", in: before).first ?? "") ?? -1
            _ = try await me.ok("flickr.photos.comments.addComment", [("photo_id", p), ("comment_text", "counted")])
            let after = try await me.ok("flickr.stats.getPhotoStats", [("photo_id", p), ("date", "2026-01-01")], verb: "GET")
            #expect(XMLProbe.attributes("comments", of: "stats", in: after) == [String(comments + 1)])
            let total = try await me.ok("flickr.stats.getTotalViews", [], verb: "GET")
            #expect((Int(XMLProbe.attributes("views", of: "photos", in: total).first ?? "") ?? 0) > 0)
            let popular = try await me.ok("flickr.stats.getPopularPhotos", [("sort", "views")], verb: "GET")
            let statViews = XMLProbe.attributes("views", of: "stats", in: popular).compactMap { Int($0) }
            #expect(!statViews.isEmpty && statViews == statViews.sorted(by: >))
        }
    }

    @Test("favourites, groups and galleries: public lists, contexts, URLs both ways")
    func listsAndURLs() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let faves = Self.ids(try await me.ok("flickr.favorites.getList", [], verb: "GET"))
            try #require(faves.count >= 2)
            let context = try await me.ok("flickr.favorites.getContext", [("photo_id", faves[1]), ("user_id", "me")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "prevphoto", in: context) == [faves[0]])
            let group = try await me.ok("flickr.urls.getGroup", [("group_id", "34427465497@N01")], verb: "GET")
            let url = try #require(XMLProbe.attributes("url", of: "group", in: group).first)
            let back = try await me.ok("flickr.urls.lookupGroup", [("url", url)], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "group", in: back) == ["34427465497@N01"])
            let galleries = try await me.ok("flickr.galleries.getList", [("user_id", "me")], verb: "GET")
            let galleryURL = try #require(XMLProbe.attributes("url", of: "gallery", in: galleries).first)
            let found = try await me.ok("flickr.urls.lookupGallery", [("url", galleryURL)], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "gallery", in: found) == XMLProbe.attributes("id", of: "gallery", in: galleries).prefix(1).map { $0 })
            let groups = try await me.ok("flickr.groups.search", [("text", "street")], verb: "GET")
            #expect(XMLProbe.attributes("name", of: "group", in: groups) == ["Street Photography"])
        }
    }
}
