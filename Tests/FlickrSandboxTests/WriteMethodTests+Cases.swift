import FlickrProtocol
import FlickrSandbox
import Foundation
import Testing

extension WriteMethodTests {
    // MARK: Comments, notes, people

    static let annotationCases: [String: Case] = [
        "flickr.photos.comments.addComment": { w in
            let p = try await w.myPhotos()[20]
            let id = try w.id(of: "comment", in: try await w.other.ok("flickr.photos.comments.addComment", [("photo_id", p), ("comment_text", "Nice!")]))
            let list = try await w.me.ok("flickr.photos.comments.getList", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "comment", in: list).contains(id) && XMLProbe.texts(of: "comment", in: list).contains("Nice!"))
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.me, "flickr.photos.comments.addComment", [("photo_id", p), ("comment_text", " ")]) == 8)
        },
        "flickr.photos.comments.editComment": { w in
            let p = try await w.myPhotos()[21]
            let id = try w.id(of: "comment", in: try await w.other.ok("flickr.photos.comments.addComment", [("photo_id", p), ("comment_text", "Nice!")]))
            #expect(try await w.code(w.me, "flickr.photos.comments.editComment", [("comment_id", id), ("comment_text", "mine now")]) == 2)
            _ = try await w.other.ok("flickr.photos.comments.editComment", [("comment_id", id), ("comment_text", "Very nice!")])
            let list = try await w.me.ok("flickr.photos.comments.getList", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.texts(of: "comment", in: list).contains("Very nice!"))
        },
        "flickr.photos.comments.deleteComment": { w in
            let p = try await w.myPhotos()[22]
            let id = try w.id(of: "comment", in: try await w.me.ok("flickr.photos.comments.addComment", [("photo_id", p), ("comment_text", "note to self")]))
            #expect(try await w.code(w.other, "flickr.photos.comments.deleteComment", [("comment_id", id)]) == 2)
            _ = try await w.me.ok("flickr.photos.comments.deleteComment", [("comment_id", id)])
            let list = try await w.me.ok("flickr.photos.comments.getList", [("photo_id", p)], verb: "GET")
            #expect(!XMLProbe.attributes("id", of: "comment", in: list).contains(id))
        },
        "flickr.photos.notes.add": { w in
            let p = try await w.myPhotos()[23]
            let id = try w.id(of: "note", in: try await w.me.ok("flickr.photos.notes.add", [("photo_id", p), ("note_x", "1"), ("note_y", "2"), ("note_w", "30"), ("note_h", "40"), ("note_text", "here")]))
            let info = try await w.info(p)
            #expect(XMLProbe.attributes("id", of: "note", in: info).contains(id) && XMLProbe.texts(of: "note", in: info).contains("here"))
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.me, "flickr.photos.notes.add", [("photo_id", p), ("note_x", "1"), ("note_y", "2"), ("note_w", "x"), ("note_h", "4"), ("note_text", "t")]) == 3)
        },
        "flickr.photos.notes.edit": { w in
            let p = try await w.myPhotos()[24]
            let id = try w.id(of: "note", in: try await w.me.ok("flickr.photos.notes.add", [("photo_id", p), ("note_x", "1"), ("note_y", "2"), ("note_w", "30"), ("note_h", "40"), ("note_text", "here")]))
            let box = [("note_x", "5"), ("note_y", "6"), ("note_w", "7"), ("note_h", "8")]
            #expect(try await w.code(w.other, "flickr.photos.notes.edit", [("note_id", id), ("note_text", "t")] + box) == 2)
            _ = try await w.me.ok("flickr.photos.notes.edit", [("note_id", id), ("note_text", "there")] + box)
            let info = try await w.info(p)
            #expect(XMLProbe.texts(of: "note", in: info).contains("there") && XMLProbe.attributes("x", of: "note", in: info).contains("5"))
        },
        "flickr.photos.notes.delete": { w in
            let p = try await w.myPhotos()[25]
            let id = try w.id(of: "note", in: try await w.me.ok("flickr.photos.notes.add", [("photo_id", p), ("note_x", "1"), ("note_y", "2"), ("note_w", "30"), ("note_h", "40"), ("note_text", "here")]))
            #expect(try await w.code(w.other, "flickr.photos.notes.delete", [("note_id", id)]) == 2)
            _ = try await w.me.ok("flickr.photos.notes.delete", [("note_id", id)])
            #expect(!XMLProbe.attributes("id", of: "note", in: try await w.info(p)).contains(id))
            #expect(try await w.code(w.me, "flickr.photos.notes.delete", [("note_id", id)]) == 1)
        },
        "flickr.photos.people.add": { w in
            let p = try await w.myPhotos()[26]
            _ = try await w.me.ok("flickr.photos.people.add", [("photo_id", p), ("user_id", w.otherNSID)])
            let list = try await w.me.ok("flickr.photos.people.getList", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.attributes("nsid", of: "person", in: list) == [w.otherNSID])
            let of = try await w.me.ok("flickr.people.getPhotosOf", [("user_id", w.otherNSID), ("per_page", "500")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: of).contains(p))
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.other, "flickr.photos.people.add", [("photo_id", p), ("user_id", "marisol")]) == 4)
        },
        "flickr.photos.people.delete": { w in
            let p = try await w.myPhotos()[27]
            _ = try await w.me.ok("flickr.photos.people.add", [("photo_id", p), ("user_id", "marisol")])
            #expect(try await w.code(w.other, "flickr.photos.people.delete", [("photo_id", p), ("user_id", "marisol")]) == 3)
            _ = try await w.me.ok("flickr.photos.people.delete", [("photo_id", p), ("user_id", "marisol")])
            let list = try await w.me.ok("flickr.photos.people.getList", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.attributes("nsid", of: "person", in: list).isEmpty)
        },
        "flickr.photos.people.editCoords": { w in
            let p = try await w.myPhotos()[28]
            _ = try await w.me.ok("flickr.photos.people.add", [("photo_id", p), ("user_id", "marisol")])
            let box = [("person_x", "11"), ("person_y", "12"), ("person_w", "13"), ("person_h", "14")]
            #expect(try await w.code(w.other, "flickr.photos.people.editCoords", [("photo_id", p), ("user_id", "marisol")] + box) == 3)
            _ = try await w.me.ok("flickr.photos.people.editCoords", [("photo_id", p), ("user_id", "marisol")] + box)
            let list = try await w.me.ok("flickr.photos.people.getList", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.attributes("x", of: "person", in: list) == ["11"])
        },
        "flickr.photos.people.deleteCoords": { w in
            let p = try await w.myPhotos()[29]
            _ = try await w.me.ok("flickr.photos.people.add", [("photo_id", p), ("user_id", "marisol"), ("person_x", "1"), ("person_y", "1"), ("person_w", "1"), ("person_h", "1")])
            #expect(try await w.code(w.other, "flickr.photos.people.deleteCoords", [("photo_id", p), ("user_id", "marisol")]) == 3)
            _ = try await w.me.ok("flickr.photos.people.deleteCoords", [("photo_id", p), ("user_id", "marisol")])
            let list = try await w.me.ok("flickr.photos.people.getList", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.attributes("nsid", of: "person", in: list) != [] && XMLProbe.attributes("x", of: "person", in: list).isEmpty)
        },
        "flickr.blogs.postPhoto": { w in
            let p = try await w.myPhotos()[30]
            #expect(try await w.code(w.me, "flickr.blogs.postPhoto", [("photo_id", p), ("title", "t"), ("description", "d")]) == 1)
            _ = try await w.me.ok("flickr.blogs.postPhoto", [("photo_id", p), ("title", "t"), ("description", "d"), ("service", "beta.blogger.com")])
            #expect(try await w.code(w.me, "flickr.blogs.postPhoto", [("photo_id", "1"), ("title", "t"), ("description", "d"), ("service", "x")]) == 2)
        },
    ]

    // MARK: Photosets

    /// A new set of the default member holding `photos` (the first is primary).
    static func makeSet(_ w: World, _ photos: [String]) async throws -> String {
        let set = try w.id(of: "photoset", in: try await w.me.ok("flickr.photosets.create", [("title", "Test set"), ("primary_photo_id", photos[0])]))
        for p in photos.dropFirst() { _ = try await w.me.ok("flickr.photosets.addPhoto", [("photoset_id", set), ("photo_id", p)]) }
        return set
    }

    static func setPhotos(_ w: World, _ set: String) async throws -> [String] {
        XMLProbe.attributes("id", of: "photo", in: try await w.me.ok("flickr.photosets.getPhotos", [("photoset_id", set)], verb: "GET"))
    }

    static let photosetCases: [String: Case] = [
        "flickr.photosets.create": { w in
            let ps = try await w.myPhotos()
            let set = try await makeSet(w, [ps[31]])
            #expect(try await setPhotos(w, set) == [ps[31]])
            #expect(try await w.recentlyUpdated(ps[31]))
            #expect(try await w.code(w.other, "flickr.photosets.create", [("title", "x"), ("primary_photo_id", ps[31])]) == 2)
        },
        "flickr.photosets.addPhoto": { w in
            let ps = try await w.myPhotos()
            let set = try await makeSet(w, [ps[32], ps[33]])
            #expect(try await setPhotos(w, set) == [ps[32], ps[33]])
            #expect(try await w.code(w.other, "flickr.photosets.addPhoto", [("photoset_id", set), ("photo_id", ps[34])]) == 1)
        },
        "flickr.photosets.removePhoto": { w in
            let ps = try await w.myPhotos()
            let set = try await makeSet(w, [ps[35], ps[36]])
            _ = try await w.me.ok("flickr.photosets.removePhoto", [("photoset_id", set), ("photo_id", ps[35])])
            #expect(try await setPhotos(w, set) == [ps[36]])
            #expect(try await w.code(w.other, "flickr.photosets.removePhoto", [("photoset_id", set), ("photo_id", ps[36])]) == 1)
        },
        "flickr.photosets.removePhotos": { w in
            let ps = try await w.myPhotos()
            let set = try await makeSet(w, [ps[37], ps[38], ps[39]])
            _ = try await w.me.ok("flickr.photosets.removePhotos", [("photoset_id", set), ("photo_ids", "\(ps[37]),\(ps[39])")])
            #expect(try await setPhotos(w, set) == [ps[38]])
            #expect(try await w.code(w.me, "flickr.photosets.removePhotos", [("photoset_id", set), ("photo_ids", ps[37])]) == 2)
            #expect(try await w.code(w.other, "flickr.photosets.removePhotos", [("photoset_id", set), ("photo_ids", ps[38])]) == 1)
        },
        "flickr.photosets.editPhotos": { w in
            let ps = try await w.myPhotos()
            let set = try await makeSet(w, [ps[40]])
            _ = try await w.me.ok("flickr.photosets.editPhotos", [("photoset_id", set), ("primary_photo_id", ps[42]), ("photo_ids", "\(ps[41]),\(ps[42])")])
            #expect(try await setPhotos(w, set) == [ps[41], ps[42]])
            let info = try await w.me.ok("flickr.photosets.getInfo", [("photoset_id", set)], verb: "GET")
            #expect(XMLProbe.attributes("primary", of: "photoset", in: info) == [ps[42]])
            #expect(try await w.code(w.me, "flickr.photosets.editPhotos", [("photoset_id", set), ("primary_photo_id", ps[40]), ("photo_ids", ps[41])]) == 4)
            #expect(try await w.code(w.other, "flickr.photosets.editPhotos", [("photoset_id", set), ("primary_photo_id", ps[41]), ("photo_ids", ps[41])]) == 1)
        },
        "flickr.photosets.reorderPhotos": { w in
            let ps = try await w.myPhotos()
            let set = try await makeSet(w, [ps[43], ps[44], ps[45]])
            _ = try await w.me.ok("flickr.photosets.reorderPhotos", [("photoset_id", set), ("photo_ids", "\(ps[45]),\(ps[43])")])
            #expect(try await setPhotos(w, set) == [ps[45], ps[43], ps[44]])
            #expect(try await w.code(w.other, "flickr.photosets.reorderPhotos", [("photoset_id", set), ("photo_ids", ps[44])]) == 1)
        },
        "flickr.photosets.setPrimaryPhoto": { w in
            let ps = try await w.myPhotos()
            let set = try await makeSet(w, [ps[46], ps[47]])
            _ = try await w.me.ok("flickr.photosets.setPrimaryPhoto", [("photoset_id", set), ("photo_id", ps[47])])
            let info = try await w.me.ok("flickr.photosets.getInfo", [("photoset_id", set)], verb: "GET")
            #expect(XMLProbe.attributes("primary", of: "photoset", in: info) == [ps[47]])
            #expect(try await w.code(w.me, "flickr.photosets.setPrimaryPhoto", [("photoset_id", set), ("photo_id", ps[48])]) == 2)
            #expect(try await w.code(w.other, "flickr.photosets.setPrimaryPhoto", [("photoset_id", set), ("photo_id", ps[46])]) == 1)
        },
        "flickr.photosets.orderSets": { w in
            let ps = try await w.myPhotos()
            let a = try await makeSet(w, [ps[49]])
            let b = try await makeSet(w, [ps[50]])
            _ = try await w.me.ok("flickr.photosets.orderSets", [("photoset_ids", "\(b),\(a)")])
            let list = XMLProbe.attributes("id", of: "photoset", in: try await w.me.ok("flickr.photosets.getList", [], verb: "GET"))
            #expect(Array(list.prefix(2)) == [b, a])
            #expect(try await w.code(w.other, "flickr.photosets.orderSets", [("photoset_ids", a)]) == 1)
        },
        "flickr.photosets.editMeta": { w in
            let ps = try await w.myPhotos()
            let set = try await makeSet(w, [ps[51]])
            _ = try await w.me.ok("flickr.photosets.editMeta", [("photoset_id", set), ("title", "Retitled")])
            let info = try await w.me.ok("flickr.photosets.getInfo", [("photoset_id", set)], verb: "GET")
            #expect(XMLProbe.texts(of: "title", in: info) == ["Retitled"])
            #expect(try await w.code(w.other, "flickr.photosets.editMeta", [("photoset_id", set), ("title", "x")]) == 1)
        },
        "flickr.photosets.delete": { w in
            let ps = try await w.myPhotos()
            let set = try await makeSet(w, [ps[52]])
            #expect(try await w.code(w.other, "flickr.photosets.delete", [("photoset_id", set)]) == 1)
            _ = try await w.me.ok("flickr.photosets.delete", [("photoset_id", set)])
            #expect(try await w.code(w.me, "flickr.photosets.getInfo", [("photoset_id", set)]) == 1)
        },
        "flickr.photosets.comments.addComment": { w in
            let ps = try await w.myPhotos()
            let set = try await makeSet(w, [ps[53]])
            let id = try w.id(of: "comment", in: try await w.other.ok("flickr.photosets.comments.addComment", [("photoset_id", set), ("comment_text", "Great set")]))
            let list = try await w.me.ok("flickr.photosets.comments.getList", [("photoset_id", set)], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "comment", in: list) == [id])
            #expect(try await w.code(w.other, "flickr.photosets.comments.addComment", [("photoset_id", "1"), ("comment_text", "x")]) == 1)
        },
        "flickr.photosets.comments.editComment": { w in
            let ps = try await w.myPhotos()
            let set = try await makeSet(w, [ps[54]])
            let id = try w.id(of: "comment", in: try await w.other.ok("flickr.photosets.comments.addComment", [("photoset_id", set), ("comment_text", "Great set")]))
            #expect(try await w.code(w.me, "flickr.photosets.comments.editComment", [("comment_id", id), ("comment_text", "x")]) == 2)
            _ = try await w.other.ok("flickr.photosets.comments.editComment", [("comment_id", id), ("comment_text", "Greatest set")])
            let list = try await w.me.ok("flickr.photosets.comments.getList", [("photoset_id", set)], verb: "GET")
            #expect(XMLProbe.texts(of: "comment", in: list) == ["Greatest set"])
        },
        "flickr.photosets.comments.deleteComment": { w in
            let ps = try await w.myPhotos()
            let set = try await makeSet(w, [ps[55]])
            let id = try w.id(of: "comment", in: try await w.me.ok("flickr.photosets.comments.addComment", [("photoset_id", set), ("comment_text", "mine")]))
            #expect(try await w.code(w.other, "flickr.photosets.comments.deleteComment", [("comment_id", id)]) == 2)
            _ = try await w.me.ok("flickr.photosets.comments.deleteComment", [("comment_id", id)])
            let list = try await w.me.ok("flickr.photosets.comments.getList", [("photoset_id", set)], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "comment", in: list).isEmpty)
        },
    ]
}
