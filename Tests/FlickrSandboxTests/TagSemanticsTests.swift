import FlickrProtocol
import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport

@Suite("Tags: raw and clean, authors, ids, machine tags, limits", .timeLimit(.minutes(3)), .tags(.integration))
struct TagSemanticsTests {
    /// The default user's newest photo (no other author has tagged it in the demo world).
    static func myPhoto(_ client: SandboxClient) async throws -> String {
        let xml = try await client.ok("flickr.photos.search", [("user_id", "me"), ("per_page", "1"), ("sort", "date-posted-desc")])
        return try #require(XMLProbe.attributes("id", of: "photo", in: xml).first)
    }

    @Test("addTags keeps raw forms, cleans them, records the author and ids {author}-{photo}-{n}")
    func addTagsForms() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let photo = try await Self.myPhoto(me)
            _ = try await me.ok("flickr.photos.setTags", [("photo_id", photo), ("tags", "")])
            _ = try await me.ok("flickr.photos.addTags", [("photo_id", photo),
                                                          ("tags", #"Hasselblad "X-Pro II" "lens:type=17-55mm F/2.8" TaG taG"#)])
            let xml = try await me.ok("flickr.photos.getInfo", [("photo_id", photo)], verb: "GET")
            let raws = XMLProbe.attributes("raw", of: "tag", in: xml)
            let cleans = XMLProbe.texts(of: "tag", in: xml)
            let mine = raws.indices.filter { XMLProbe.attributes("author", of: "tag", in: xml)[$0] == server.credentials.userNSID }
            #expect(mine.map { raws[$0] } == ["Hasselblad", "X-Pro II", "lens:type=17-55mm F/2.8", "TaG"])
            #expect(mine.map { cleans[$0] } == ["hasselblad", "xproii", "lens:type=1755mmf28", "tag"])
            let flags = XMLProbe.attributes("machine_tag", of: "tag", in: xml)
            #expect(mine.map { flags[$0] } == ["0", "0", "1", "0"])
            for id in XMLProbe.attributes("id", of: "tag", in: xml) {
                let parts = id.split(separator: "-")
                #expect(parts.count == 3 && parts[1] == Substring(photo), "tag id \(id)")
            }
            // Same clean form again: nothing new.
            _ = try await me.ok("flickr.photos.addTags", [("photo_id", photo), ("tags", "HASSELBLAD")])
            let again = try await me.ok("flickr.tags.getListPhoto", [("photo_id", photo)], verb: "GET")
            #expect(XMLProbe.attributes("raw", of: "tag", in: again).filter { $0.lowercased() == "hasselblad" }.count == 1)
        }
    }

    @Test("setTags replaces only the owner's tags; another author's tags stay; removeTag by id")
    func setTagsAndRemove() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let other = try await server.issueToken(username: "jamalfanaian", perms: .write)
            let visitor = SandboxClient(server, token: other.token, tokenSecret: other.secret)
            let photo = try await Self.myPhoto(me)
            _ = try await visitor.ok("flickr.photos.addTags", [("photo_id", photo), ("tags", "visitor-tag")])
            _ = try await me.ok("flickr.photos.setTags", [("photo_id", photo), ("tags", #"one "two words" three"#)])
            var xml = try await me.ok("flickr.tags.getListPhoto", [("photo_id", photo)], verb: "GET")
            let raws = XMLProbe.attributes("raw", of: "tag", in: xml)
            let authors = XMLProbe.attributes("author", of: "tag", in: xml)
            let ownRaws = raws.indices.filter { authors[$0] == server.credentials.userNSID }.map { raws[$0] }
            #expect(ownRaws == ["one", "two words", "three"])
            #expect(raws.contains("visitor-tag"))

            // The visitor may not setTags on someone else's photo.
            let denied = try await visitor.call("flickr.photos.setTags", [("photo_id", photo), ("tags", "x")])
            #expect(XMLProbe.errorCode(denied.body) == 1)

            // removeTag: the visitor removes their own tag; the owner may remove any tag on the photo.
            let ids = XMLProbe.attributes("id", of: "tag", in: xml)
            let visitorTag = try #require(ids.indices.first { raws[$0] == "visitor-tag" }.map { ids[$0] })
            let ownTag = try #require(ids.indices.first { raws[$0] == "two words" }.map { ids[$0] })
            let refused = try await visitor.call("flickr.photos.removeTag", [("tag_id", ownTag)])
            #expect(XMLProbe.errorCode(refused.body) == 1)
            _ = try await visitor.ok("flickr.photos.removeTag", [("tag_id", visitorTag)])
            _ = try await me.ok("flickr.photos.removeTag", [("tag_id", ownTag)])
            xml = try await me.ok("flickr.tags.getListPhoto", [("photo_id", photo)], verb: "GET")
            #expect(XMLProbe.attributes("raw", of: "tag", in: xml) == ["one", "three"])
            let gone = try await me.call("flickr.photos.removeTag", [("tag_id", ownTag)])
            #expect(gone.body.contains("<err code=\"1\" msg=\"Tag not found\" />"))
        }
    }

    @Test("75 tags per photo: beyond it err 2 and nothing changes")
    func tagLimit() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let photo = try await Self.myPhoto(me)
            let seventyFive = (1...75).map { "t\($0)" }.joined(separator: " ")
            _ = try await me.ok("flickr.photos.setTags", [("photo_id", photo), ("tags", seventyFive)])
            var xml = try await me.ok("flickr.tags.getListPhoto", [("photo_id", photo)], verb: "GET")
            let before = XMLProbe.attributes("raw", of: "tag", in: xml).count
            #expect(before >= 75)
            let more = try await me.call("flickr.photos.addTags", [("photo_id", photo), ("tags", "extra")])
            #expect(more.body.contains("<err code=\"2\" msg=\"Maximum number of tags reached\" />"))
            let tooMany = try await me.call("flickr.photos.setTags", [("photo_id", photo), ("tags", seventyFive + " t76")])
            #expect(XMLProbe.errorCode(tooMany.body) == 2)
            xml = try await me.ok("flickr.tags.getListPhoto", [("photo_id", photo)], verb: "GET")
            #expect(XMLProbe.attributes("raw", of: "tag", in: xml).count == before)
        }
    }

    @Test("tags.getListUser / getListUserRaw list clean and raw forms")
    func userTagLists() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let photo = try await Self.myPhoto(me)
            _ = try await me.ok("flickr.photos.addTags", [("photo_id", photo), ("tags", #""Zebra Crossing""#)])
            let list = try await me.ok("flickr.tags.getListUser", [], verb: "GET")
            #expect(XMLProbe.texts(of: "tag", in: list).contains("zebracrossing"))
            let raw = try await me.ok("flickr.tags.getListUserRaw", [("tag", "zebracrossing")], verb: "GET")
            #expect(XMLProbe.attributes("clean", of: "tag", in: raw) == ["zebracrossing"])
            #expect(XMLProbe.texts(of: "raw", in: raw) == ["Zebra Crossing"])
        }
    }
}
