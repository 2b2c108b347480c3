import FlickrProtocol
import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport

@Suite("photos.search: filters, sort, paging, extras; photo lists", .timeLimit(.minutes(3)), .tags(.integration))
struct SearchTests {
    static func ids(_ xml: String) -> [String] { XMLProbe.attributes("id", of: "photo", in: xml) }

    @Test("user_id (NSID, username, me), tags any/all, machine tags, text")
    func filters() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let nsid = server.credentials.userNSID
            let mine = try await me.ok("flickr.photos.search", [("user_id", "me"), ("per_page", "500")])
            let byNSID = try await me.ok("flickr.photos.search", [("user_id", nsid), ("per_page", "500")])
            #expect(Self.ids(mine) == Self.ids(byNSID))
            #expect(XMLProbe.attributes("owner", of: "photo", in: mine).allSatisfy { $0 == nsid })
            #expect(Self.ids(mine).count > 80)

            let any = try await me.json("flickr.photos.search", [("tags", "fog,snow"), ("tag_mode", "any"), ("extras", "tags"), ("per_page", "500")])
            let anyPhotos = try #require((any["photos"] as? [String: Any])?["photo"] as? [[String: Any]])
            #expect(!anyPhotos.isEmpty)
            for p in anyPhotos {
                let tags = Set(((p["tags"] as? String) ?? "").split(separator: " ").map(String.init))
                #expect(tags.contains("fog") || tags.contains("snow"))
            }
            let all = try await me.json("flickr.photos.search", [("tags", "fog,harbour"), ("tag_mode", "all"), ("extras", "tags"), ("per_page", "500")])
            let allPhotos = try #require((all["photos"] as? [String: Any])?["photo"] as? [[String: Any]])
            #expect(!allPhotos.isEmpty && allPhotos.count < anyPhotos.count)
            for p in allPhotos {
                let tags = Set(((p["tags"] as? String) ?? "").split(separator: " ").map(String.init))
                #expect(tags.isSuperset(of: ["fog", "harbour"]))
            }
            // Multi-word tags search by their clean form.
            let multi = try await me.ok("flickr.photos.search", [("tags", "golden gate"), ("per_page", "5")])
            #expect(!Self.ids(multi).isEmpty)

            let machine = try await me.json("flickr.photos.search", [("machine_tags", "camera:make=fujifilm"), ("extras", "machine_tags"), ("per_page", "500")])
            let mPhotos = try #require((machine["photos"] as? [String: Any])?["photo"] as? [[String: Any]])
            #expect(!mPhotos.isEmpty)
            #expect(mPhotos.allSatisfy { ($0["machine_tags"] as? String)?.contains("camera:make=fujifilm") == true })
            let wildcard = try await me.ok("flickr.photos.search", [("machine_tags", "geo:"), ("per_page", "500")])
            #expect(Self.ids(wildcard).count >= mPhotos.count)

            let text = try await me.json("flickr.photos.search", [("text", "lighthouse"), ("per_page", "500")])
            let tPhotos = try #require((text["photos"] as? [String: Any])?["photo"] as? [[String: Any]])
            #expect(!tPhotos.isEmpty && tPhotos.allSatisfy { ($0["title"] as? String)?.lowercased().contains("lighthouse") == true })

            let unknown = try await me.call("flickr.photos.search", [("user_id", "nobody-at-all")])
            #expect(XMLProbe.errorCode(unknown.body) == 2)
            let parameterless = try await me.call("flickr.photos.search", [])
            #expect(XMLProbe.errorCode(parameterless.body) == 3)
        }
    }

    @Test("Dates, privacy, sort orders")
    func datesPrivacySort() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let all = try await me.json("flickr.photos.search", [("user_id", "me"), ("extras", "date_upload,date_taken"), ("per_page", "500"), ("sort", "date-posted-asc")])
            let photos = try #require((all["photos"] as? [String: Any])?["photo"] as? [[String: Any]])
            let uploads = photos.compactMap { ($0["dateupload"] as? String).flatMap(Int.init) }
            #expect(uploads == uploads.sorted())
            let middle = uploads[uploads.count / 2]
            let after = try await me.json("flickr.photos.search", [("user_id", "me"), ("min_upload_date", String(middle)), ("extras", "date_upload"), ("per_page", "500")])
            let afterPhotos = try #require((after["photos"] as? [String: Any])?["photo"] as? [[String: Any]])
            #expect(afterPhotos.allSatisfy { (($0["dateupload"] as? String).flatMap(Int.init) ?? 0) >= middle })
            #expect(afterPhotos.count < photos.count)
            let takenDesc = try await me.json("flickr.photos.search", [("user_id", "me"), ("sort", "date-taken-desc"), ("extras", "date_taken"), ("per_page", "500"),
                                                                     ("max_taken_date", "2020-01-01 00:00:00")])
            let taken = ((takenDesc["photos"] as? [String: Any])?["photo"] as? [[String: Any]] ?? []).compactMap { $0["datetaken"] as? String }
            #expect(!taken.isEmpty && taken == taken.sorted(by: >) && taken.allSatisfy { $0 < "2020-01-01" })

            let privateOnly = try await me.json("flickr.photos.search", [("user_id", "me"), ("privacy_filter", "5"), ("per_page", "500")])
            let priv = ((privateOnly["photos"] as? [String: Any])?["photo"] as? [[String: Any]]) ?? []
            #expect(!priv.isEmpty && priv.allSatisfy { ($0["ispublic"] as? Int) == 0 && ($0["isfriend"] as? Int) == 0 && ($0["isfamily"] as? Int) == 0 })
            // Someone else never sees the default user's private photos.
            let anonymous = SandboxClient(server)
            let others = try await anonymous.json("flickr.photos.search", [("user_id", server.credentials.userNSID), ("per_page", "500")])
            let seen = Set(((others["photos"] as? [String: Any])?["photo"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
            #expect(seen.isDisjoint(with: priv.compactMap { $0["id"] as? String }))
        }
    }

    @Test("per_page up to 500 (larger is clamped), page, totals")
    func paging() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let big = try await me.json("flickr.photos.search", [("text", "the"), ("per_page", "1000")])
            let photos = try #require(big["photos"] as? [String: Any])
            #expect(photos["perpage"] as? Int == 500)
            let total = try #require(photos["total"] as? Int)
            #expect((photos["photo"] as? [Any])?.count == min(total, 500))
            let page1 = try await me.ok("flickr.photos.search", [("user_id", "me"), ("per_page", "7"), ("page", "1")])
            let page2 = try await me.ok("flickr.photos.search", [("user_id", "me"), ("per_page", "7"), ("page", "2")])
            #expect(Self.ids(page1).count == 7 && Self.ids(page2).count == 7)
            #expect(Set(Self.ids(page1)).isDisjoint(with: Self.ids(page2)))
            let meta = XMLProbe.attributes("pages", of: "photos", in: page1)
            let totalMine = try #require(XMLProbe.attributes("total", of: "photos", in: page1).first.flatMap(Int.init))
            #expect(meta == [String((totalMine + 6) / 7)])
            let past = try await me.ok("flickr.photos.search", [("user_id", "me"), ("per_page", "7"), ("page", "999")])
            #expect(Self.ids(past).isEmpty)
        }
    }

    @Test("extras add Flickr's attributes; description is a child; url_* points at /static and is served")
    func extras() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let extras = "tags,machine_tags,url_sq,url_t,url_m,url_o,url_l,o_dims,description,date_upload,date_taken,owner_name,views,media,path_alias,original_format,last_update,license"
            let xml = try await me.ok("flickr.photos.search", [("user_id", "me"), ("per_page", "1"), ("extras", extras)])
            for attribute in ["tags", "machine_tags", "url_sq", "height_sq", "width_sq", "url_m", "url_o", "o_width", "o_height",
                              "dateupload", "datetaken", "datetakengranularity", "ownername", "views", "media", "media_status",
                              "pathalias", "originalsecret", "originalformat", "lastupdate", "license"] {
                #expect(XMLProbe.attributes(attribute, of: "photo", in: xml).count == 1, "missing \(attribute)")
            }
            #expect(XMLProbe.texts(of: "description", in: xml).count == 1 || xml.contains("<description />"))
            #expect(XMLProbe.attributes("sq", of: "photo", in: xml).isEmpty)
            #expect(XMLProbe.attributes("width_sq", of: "photo", in: xml) == ["75"])
            let square = try #require(XMLProbe.attributes("url_sq", of: "photo", in: xml).first)
            #expect(square.hasPrefix(server.url + "/static/65535/") && square.hasSuffix("_s.jpg"))
            let image = try await TestHTTP.get(square)
            #expect(image.status == 200 && image.header("Content-Type") == "image/jpeg" && image.bytes.prefix(2) == [0xFF, 0xD8])
            let missing = try await TestHTTP.get(server.url + "/static/65535/1_deadbeef_s.jpg")
            #expect(missing.status == 404)
            // getSizes agrees with the extras.
            let id = try #require(XMLProbe.attributes("id", of: "photo", in: xml).first)
            let sizes = try await me.ok("flickr.photos.getSizes", [("photo_id", id)], verb: "GET")
            #expect(XMLProbe.attributes("source", of: "size", in: sizes).contains(square))
            #expect(XMLProbe.attributes("label", of: "size", in: sizes).last == "Original")
        }
    }

    @Test("getRecent, people.getPhotos/getPublicPhotos, getNotInSet")
    func otherLists() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let recent = try await me.ok("flickr.photos.getRecent", [("per_page", "10")], verb: "GET")
            #expect(XMLProbe.attributes("ispublic", of: "photo", in: recent) == Array(repeating: "1", count: 10))
            let all = try await me.ok("flickr.people.getPhotos", [("user_id", "me"), ("per_page", "500")], verb: "GET")
            let pub = try await me.ok("flickr.people.getPublicPhotos", [("user_id", server.credentials.userNSID), ("per_page", "500")], verb: "GET")
            #expect(Set(Self.ids(pub)).isStrictSubset(of: Set(Self.ids(all))))
            let notInSet = try await me.ok("flickr.photos.getNotInSet", [("per_page", "500")], verb: "GET")
            let sets = try await me.ok("flickr.photosets.getList", [], verb: "GET")
            var inSets = Set<String>()
            for set in XMLProbe.attributes("id", of: "photoset", in: sets) {
                let photos = try await me.ok("flickr.photosets.getPhotos", [("photoset_id", set), ("per_page", "500")], verb: "GET")
                inSets.formUnion(Self.ids(photos))
            }
            #expect(Set(Self.ids(notInSet)).isDisjoint(with: inSets))
            #expect(Set(Self.ids(notInSet)).union(inSets) == Set(Self.ids(all)))
        }
    }
}
