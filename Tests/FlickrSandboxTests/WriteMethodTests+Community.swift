import FlickrProtocol
import FlickrSandbox
import Foundation
import Testing

extension WriteMethodTests {
    /// Demo groups: open (bees a member, jamal not), and private (bees the admin).
    static let openGroup = "34427465497@N01"
    static let privateGroup = "52240293230@N01"

    static func groupsOf(_ w: World, _ client: SandboxClient, _ user: String) async throws -> [String] {
        XMLProbe.attributes("nsid", of: "group", in: try await client.ok("flickr.people.getGroups", [("user_id", user)], verb: "GET"))
    }

    static func newTopic(_ w: World) async throws -> String {
        try w.id(of: "topic", in: try await w.me.ok("flickr.groups.discuss.topics.add", [("group_id", openGroup), ("subject", "S"), ("message", "M")]))
    }

    static func newReply(_ w: World, _ topic: String) async throws -> String {
        try w.id(of: "reply", in: try await w.me.ok("flickr.groups.discuss.replies.add", [("group_id", openGroup), ("topic_id", topic), ("message", "R")]))
    }

    static func replies(_ w: World, _ topic: String) async throws -> String {
        try await w.me.ok("flickr.groups.discuss.replies.getList", [("group_id", openGroup), ("topic_id", topic), ("per_page", "100")], verb: "GET")
    }

    static func newGallery(_ w: World) async throws -> String {
        try w.id(of: "gallery", in: try await w.me.ok("flickr.galleries.create", [("title", "G"), ("description", "D")]))
    }

    static func galleryPhotos(_ w: World, _ g: String) async throws -> String {
        try await w.me.ok("flickr.galleries.getPhotos", [("gallery_id", g)], verb: "GET")
    }

    static let communityCases: [String: Case] = [
        "flickr.groups.join": { w in
            _ = try await w.other.ok("flickr.groups.join", [("group_id", openGroup)])
            #expect(try await groupsOf(w, w.other, w.otherNSID).contains(openGroup))
            #expect(try await w.code(w.other, "flickr.groups.join", [("group_id", openGroup)]) == 4)
            #expect(try await w.code(w.other, "flickr.groups.join", [("group_id", privateGroup)]) == 5)
        },
        "flickr.groups.joinRequest": { w in
            #expect(try await w.code(w.other, "flickr.groups.joinRequest", [("group_id", openGroup), ("message", "hi"), ("accept_rules", "1")]) == 5)
            _ = try await w.other.ok("flickr.groups.joinRequest", [("group_id", privateGroup), ("message", "hi"), ("accept_rules", "1")])
            #expect(try await w.code(w.other, "flickr.groups.joinRequest", [("group_id", privateGroup), ("message", "again"), ("accept_rules", "1")]) == 7)
        },
        "flickr.groups.leave": { w in
            _ = try await w.me.ok("flickr.groups.leave", [("group_id", openGroup)])
            #expect(try await !groupsOf(w, w.me, "me").contains(openGroup))
            #expect(try await w.code(w.me, "flickr.groups.leave", [("group_id", openGroup)]) == 3)
        },
        "flickr.groups.pools.add": { w in
            let p = try await w.myPhotos()[56]
            _ = try await w.me.ok("flickr.groups.pools.add", [("group_id", openGroup), ("photo_id", p)])
            let pool = try await w.me.ok("flickr.groups.pools.getPhotos", [("group_id", openGroup), ("per_page", "500")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: pool).contains(p))
            let contexts = try await w.me.ok("flickr.photos.getAllContexts", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "pool", in: contexts) == [openGroup])
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.me, "flickr.groups.pools.add", [("group_id", openGroup), ("photo_id", p)]) == 3)
            #expect(try await w.code(w.other, "flickr.groups.pools.add", [("group_id", openGroup), ("photo_id", p)]) == 1)
        },
        "flickr.groups.pools.remove": { w in
            let p = try await w.myPhotos()[57]
            _ = try await w.me.ok("flickr.groups.pools.add", [("group_id", openGroup), ("photo_id", p)])
            #expect(try await w.code(w.other, "flickr.groups.pools.remove", [("group_id", openGroup), ("photo_id", p)]) == 3)
            _ = try await w.me.ok("flickr.groups.pools.remove", [("group_id", openGroup), ("photo_id", p)])
            let pool = try await w.me.ok("flickr.groups.pools.getPhotos", [("group_id", openGroup), ("per_page", "500")], verb: "GET")
            #expect(!XMLProbe.attributes("id", of: "photo", in: pool).contains(p))
        },
        "flickr.groups.discuss.topics.add": { w in
            let topic = try await newTopic(w)
            let list = try await w.me.ok("flickr.groups.discuss.topics.getList", [("group_id", openGroup)], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "topic", in: list).first == topic)
            #expect(try await w.code(w.other, "flickr.groups.discuss.topics.add", [("group_id", openGroup), ("subject", "S"), ("message", "M")]) == 2)
        },
        "flickr.groups.discuss.replies.add": { w in
            let topic = try await newTopic(w)
            let reply = try await newReply(w, topic)
            #expect(XMLProbe.attributes("id", of: "reply", in: try await replies(w, topic)) == [reply])
            #expect(try await w.code(w.other, "flickr.groups.discuss.replies.add", [("group_id", openGroup), ("topic_id", topic), ("message", "x")]) == 2)
        },
        "flickr.groups.discuss.replies.edit": { w in
            let topic = try await newTopic(w)
            let reply = try await newReply(w, topic)
            #expect(try await w.code(w.other, "flickr.groups.discuss.replies.edit", [("group_id", openGroup), ("topic_id", topic), ("reply_id", reply), ("message", "x")]) == 4)
            _ = try await w.me.ok("flickr.groups.discuss.replies.edit", [("group_id", openGroup), ("topic_id", topic), ("reply_id", reply), ("message", "Edited")])
            #expect(XMLProbe.texts(of: "message", in: try await replies(w, topic)).contains("Edited"))
        },
        "flickr.groups.discuss.replies.delete": { w in
            let topic = try await newTopic(w)
            let reply = try await newReply(w, topic)
            #expect(try await w.code(w.other, "flickr.groups.discuss.replies.delete", [("group_id", openGroup), ("topic_id", topic), ("reply_id", reply)]) == 3)
            _ = try await w.me.ok("flickr.groups.discuss.replies.delete", [("group_id", openGroup), ("topic_id", topic), ("reply_id", reply)])
            #expect(XMLProbe.attributes("id", of: "reply", in: try await replies(w, topic)).isEmpty)
        },
        "flickr.galleries.create": { w in
            let g = try await newGallery(w)
            let list = try await w.me.ok("flickr.galleries.getList", [("user_id", "me")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "gallery", in: list).contains(g))
            #expect(try await w.code(w.reader, "flickr.galleries.create", [("title", "G"), ("description", "D")]) == 99)
        },
        "flickr.galleries.editMeta": { w in
            let g = try await newGallery(w)
            _ = try await w.me.ok("flickr.galleries.editMeta", [("gallery_id", g), ("title", "Renamed")])
            let info = try await w.me.ok("flickr.galleries.getInfo", [("gallery_id", g)], verb: "GET")
            #expect(XMLProbe.texts(of: "title", in: info) == ["Renamed"])
            #expect(try await w.code(w.other, "flickr.galleries.editMeta", [("gallery_id", g), ("title", "x")]) == 1)
        },
        "flickr.galleries.addPhoto": { w in
            let g = try await newGallery(w)
            let theirs = try await w.othersPhotos()[6]
            _ = try await w.me.ok("flickr.galleries.addPhoto", [("gallery_id", g), ("photo_id", theirs), ("comment", "Love it")])
            let photos = try await galleryPhotos(w, g)
            #expect(XMLProbe.attributes("id", of: "photo", in: photos) == [theirs] && XMLProbe.texts(of: "comment", in: photos) == ["Love it"])
            #expect(try await w.code(w.me, "flickr.galleries.addPhoto", [("gallery_id", g), ("photo_id", try await w.myPhotos()[0])]) == 3)
            #expect(try await w.code(w.other, "flickr.galleries.addPhoto", [("gallery_id", g), ("photo_id", theirs)]) == 2)
        },
        "flickr.galleries.editPhoto": { w in
            let g = try await newGallery(w)
            let theirs = try await w.othersPhotos()[7]
            _ = try await w.me.ok("flickr.galleries.addPhoto", [("gallery_id", g), ("photo_id", theirs)])
            _ = try await w.me.ok("flickr.galleries.editPhoto", [("gallery_id", g), ("photo_id", theirs), ("comment", "Now with words")])
            #expect(XMLProbe.texts(of: "comment", in: try await galleryPhotos(w, g)) == ["Now with words"])
            #expect(try await w.code(w.other, "flickr.galleries.editPhoto", [("gallery_id", g), ("photo_id", theirs), ("comment", "x")]) == 1)
        },
        "flickr.galleries.editPhotos": { w in
            let g = try await newGallery(w)
            let theirs = try await w.othersPhotos()
            _ = try await w.me.ok("flickr.galleries.addPhoto", [("gallery_id", g), ("photo_id", theirs[8])])
            _ = try await w.me.ok("flickr.galleries.editPhotos", [("gallery_id", g), ("primary_photo_id", theirs[10]), ("photo_ids", "\(theirs[9]),\(theirs[10])")])
            let photos = try await galleryPhotos(w, g)
            #expect(XMLProbe.attributes("id", of: "photo", in: photos) == [theirs[9], theirs[10]])
            #expect(XMLProbe.attributes("is_primary", of: "photo", in: photos) == ["0", "1"])
            #expect(try await w.code(w.other, "flickr.galleries.editPhotos", [("gallery_id", g), ("primary_photo_id", theirs[9]), ("photo_ids", theirs[9])]) == 1)
        },
        "flickr.galleries.removePhoto": { w in
            let g = try await newGallery(w)
            let theirs = try await w.othersPhotos()[11]
            _ = try await w.me.ok("flickr.galleries.addPhoto", [("gallery_id", g), ("photo_id", theirs)])
            #expect(try await w.code(w.other, "flickr.galleries.removePhoto", [("gallery_id", g), ("photo_id", theirs), ("full_response", "0")]) == 1)
            _ = try await w.me.ok("flickr.galleries.removePhoto", [("gallery_id", g), ("photo_id", theirs), ("full_response", "0")])
            #expect(XMLProbe.attributes("id", of: "photo", in: try await galleryPhotos(w, g)).isEmpty)
        },
        "flickr.testimonials.addTestimonial": { w in
            let t = try w.id(of: "testimonial", in: try await w.me.ok("flickr.testimonials.addTestimonial", [("user_id", w.otherNSID), ("testimonial_text", "Great eye")]))
            let pending = try await w.other.ok("flickr.testimonials.getPendingTestimonialsAbout", [], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "testimonial", in: pending) == [t])
            #expect(try await w.code(w.me, "flickr.testimonials.addTestimonial", [("user_id", w.otherNSID), ("testimonial_text", "again")]) == 4)
            #expect(try await w.code(w.me, "flickr.testimonials.addTestimonial", [("user_id", "me"), ("testimonial_text", "self")]) == 1)
        },
        "flickr.testimonials.approveTestimonial": { w in
            let t = try w.id(of: "testimonial", in: try await w.me.ok("flickr.testimonials.addTestimonial", [("user_id", w.otherNSID), ("testimonial_text", "Great eye")]))
            #expect(try await w.code(w.me, "flickr.testimonials.approveTestimonial", [("testimonial_id", t)]) == 2)
            _ = try await w.other.ok("flickr.testimonials.approveTestimonial", [("testimonial_id", t)])
            let shown = try await w.me.ok("flickr.testimonials.getTestimonialsAbout", [("user_id", w.otherNSID)], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "testimonial", in: shown) == [t])
        },
        "flickr.testimonials.deleteTestimonial": { w in
            let t = try w.id(of: "testimonial", in: try await w.me.ok("flickr.testimonials.addTestimonial", [("user_id", "marisol"), ("testimonial_text", "Bold colours")]))
            #expect(try await w.code(w.other, "flickr.testimonials.deleteTestimonial", [("testimonial_id", t)]) == 2)
            _ = try await w.me.ok("flickr.testimonials.deleteTestimonial", [("testimonial_id", t)])
            #expect(XMLProbe.attributes("id", of: "testimonial", in: try await w.me.ok("flickr.testimonials.getAllTestimonialsBy", [], verb: "GET")).isEmpty)
        },
        "flickr.testimonials.editTestimonial": { w in
            let t = try w.id(of: "testimonial", in: try await w.me.ok("flickr.testimonials.addTestimonial", [("user_id", w.otherNSID), ("testimonial_text", "Great eye")]))
            #expect(try await w.code(w.other, "flickr.testimonials.editTestimonial", [("user_id", w.otherNSID), ("testimonial_id", t), ("testimonial_text", "x")]) == 2)
            _ = try await w.me.ok("flickr.testimonials.editTestimonial", [("user_id", w.otherNSID), ("testimonial_id", t), ("testimonial_text", "Greater eye")])
            let mine = try await w.me.ok("flickr.testimonials.getAllTestimonialsBy", [], verb: "GET")
            #expect(XMLProbe.attributes("body", of: "testimonial", in: mine) == ["Greater eye"])
        },
    ]

    static var allCases: [String: Case] {
        photoCases.merging(geoCases) { a, _ in a }.merging(annotationCases) { a, _ in a }
            .merging(photosetCases) { a, _ in a }.merging(communityCases) { a, _ in a }
    }

    @Test("The table covers every write and delete method of the catalog")
    func coverage() {
        let writes = Set(MethodCatalog.shared.methods.filter { $0.perms >= .write }.map(\.name))
        #expect(writes.count == 66)
        #expect(Set(Self.allCases.keys) == writes)
    }

    @Test("A write changes what the reads report, and is refused to others", arguments: Self.allCases.keys.sorted())
    func write(_ method: String) async throws {
        try await withSandbox { server in
            let world = try await World.make(server)
            try await Self.allCases[method]!(world)
            // A read-only token never writes.
            let r = try await world.reader.call(method, [])
            #expect(XMLProbe.errorCode(r.body) == 99, "\(method) with a read token: \(r.body)")
        }
    }
}
