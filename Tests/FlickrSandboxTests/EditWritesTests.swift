import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// The field writes `flickr edit` makes, as Flickr checks and shows them: each one
/// refused with Flickr's code and message where Flickr refuses it, needing the perms the
/// catalog names, moving `lastupdate`, and read back in getInfo, in search's extras and
/// filters, in getAllContexts and in recentlyUpdated.
@Suite("Edit writes: setMeta, setDates, setPerms, setLicense, setSafetyLevel, setContentType, geo, sets, setTags",
       .timeLimit(.minutes(3)), .tags(.integration, .heavy))
struct EditWritesTests {
    typealias World = LibraryFaithfulnessTests
    static func p(_ i: Int) -> String { World.p(i) }

    /// The `<err>` of a call expected to fail: (code, message).
    static func refusal(_ client: SandboxClient, _ method: String, _ params: [(String, String)]) async throws -> (Int?, String?) {
        let r = try await client.call(method, params)
        #expect(r.body.contains("<rsp stat=\"fail\">"), "\(method) \(params) was not refused: \(r.body)")
        return (XMLProbe.errorCode(r.body), XMLProbe.attributes("msg", of: "err", in: r.body).first)
    }

    static func info(_ client: SandboxClient, _ id: String) async throws -> String {
        try await client.ok("flickr.photos.getInfo", [("photo_id", id)], verb: "GET")
    }

    static func lastUpdate(_ client: SandboxClient, _ id: String) async throws -> Int {
        try #require(XMLProbe.attributes("lastupdate", of: "dates", in: try await info(client, id)).first.flatMap { Int($0) })
    }

    @Test("Every write is read back: getInfo, search extras and filters, getAllContexts; each moves lastupdate and recentlyUpdated lists exactly those photos")
    func writesShowEverywhere() async throws {
        try await World.withWorld(try World.seed(count: 20)) { server, me, _ in
            let start = World.now
            let set = try #require(XMLProbe.attributes("id", of: "photoset", in: try await me.ok("flickr.photosets.create",
                [("title", "Iceland"), ("primary_photo_id", Self.p(1))])).first)
            let before = try await Self.lastUpdate(me, Self.p(12))
            #expect(before < start, "the seed's lastupdate is in 2017")
            let writes: [(Int, String, [(String, String)])] = [
                (2, "flickr.photos.setMeta", [("title", "Reykjavík"), ("description", "Harbour <b>at</b> dusk")]),
                (3, "flickr.photos.setDates", [("date_taken", "2019-07-02 10:11:12"), ("date_taken_granularity", "0"), ("date_posted", "1600000000")]),
                (4, "flickr.photos.setDates", [("date_taken", "1980-06"), ("date_taken_granularity", "4")]),
                (5, "flickr.photos.setPerms", [("is_public", "0"), ("is_friend", "1"), ("is_family", "1"), ("perm_comment", "1"), ("perm_addmeta", "2")]),
                (6, "flickr.photos.licenses.setLicense", [("license_id", "5")]),
                (7, "flickr.photos.setSafetyLevel", [("safety_level", "3")]),
                (8, "flickr.photos.setContentType", [("content_type", "2")]),
                (10, "flickr.photos.geo.setLocation", [("lat", "64.1466"), ("lon", "-21.9426"), ("accuracy", "11"), ("context", "2")]),
                (12, "flickr.photos.geo.removeLocation", []),
                (13, "flickr.photosets.addPhoto", [("photoset_id", set)]),
                (14, "flickr.photos.setTags", [("tags", "iceland \"black sand\"")]),
            ]
            for (i, method, params) in writes { _ = try await me.ok(method, [("photo_id", Self.p(i))] + params) }
            for (i, method, _) in writes {
                #expect(try await Self.lastUpdate(me, Self.p(i)) >= start, "\(method) did not move lastupdate")
            }
            #expect(try await Self.lastUpdate(me, Self.p(11)) < start, "an untouched photo moved")

            // getInfo.
            let meta = try await Self.info(me, Self.p(2))
            #expect(XMLProbe.texts(of: "title", in: meta) == ["Reykjavík"])
            #expect(XMLProbe.texts(of: "description", in: meta) == ["Harbour &lt;b&gt;at&lt;/b&gt; dusk"])
            let dated = try await Self.info(me, Self.p(3))
            #expect(XMLProbe.attributes("taken", of: "dates", in: dated) == ["2019-07-02 10:11:12"])
            #expect(XMLProbe.attributes("takengranularity", of: "dates", in: dated) == ["0"])
            #expect(XMLProbe.attributes("posted", of: "dates", in: dated) == ["1600000000"])
            #expect(XMLProbe.attributes("dateuploaded", of: "photo", in: dated) == ["1600000000"])
            let month = try await Self.info(me, Self.p(4))
            #expect(XMLProbe.attributes("taken", of: "dates", in: month) == ["1980-06-01 00:00:00"], "\"you can leave off as much of the date as you want\"")
            #expect(XMLProbe.attributes("takengranularity", of: "dates", in: month) == ["4"])
            let perms = try await Self.info(me, Self.p(5))
            #expect(XMLProbe.attributes("ispublic", of: "visibility", in: perms) == ["0"])
            #expect(XMLProbe.attributes("isfriend", of: "visibility", in: perms) == ["1"])
            #expect(XMLProbe.attributes("isfamily", of: "visibility", in: perms) == ["1"])
            #expect(XMLProbe.attributes("permcomment", of: "permissions", in: perms) == ["1"])
            #expect(XMLProbe.attributes("permaddmeta", of: "permissions", in: perms) == ["2"])
            #expect(XMLProbe.attributes("license", of: "photo", in: try await Self.info(me, Self.p(6))) == ["5"])
            #expect(XMLProbe.attributes("safety_level", of: "photo", in: try await Self.info(me, Self.p(7))) == ["2"], "restricted is 2 in getInfo")
            let typed = try await Self.info(me, Self.p(8))
            #expect(!typed.contains("content_type") && !typed.contains("contenttype"), "getInfo carries no content type, as on Flickr")
            let located = try await Self.info(me, Self.p(10))
            #expect(XMLProbe.attributes("latitude", of: "location", in: located).first.flatMap(Double.init) == 64.1466)
            #expect(XMLProbe.attributes("longitude", of: "location", in: located).first.flatMap(Double.init) == -21.9426)
            #expect(XMLProbe.attributes("accuracy", of: "location", in: located) == ["11"])
            #expect(XMLProbe.attributes("context", of: "location", in: located) == ["2"])
            #expect(!(try await Self.info(me, Self.p(12))).contains("<location"), "the location was removed")
            let tagged = try await Self.info(me, Self.p(14))
            #expect(XMLProbe.attributes("raw", of: "tag", in: tagged) == ["iceland", "black sand"])

            // getAllContexts: the set.
            let contexts = try await me.ok("flickr.photos.getAllContexts", [("photo_id", Self.p(13))], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "set", in: contexts) == [set])

            // search's extras.
            let listed = try await me.json("flickr.photos.search", [("user_id", "me"), ("per_page", "500"),
                ("extras", "description,license,date_upload,date_taken,last_update,geo,tags")], verb: "GET")
            let entries = Dictionary(uniqueKeysWithValues: World.photos(listed).compactMap { e in (e["id"] as? String).map { ($0, e) } })
            func entry(_ i: Int) throws -> [String: Any] { try #require(entries[Self.p(i)], "photo \(i) is listed") }
            let (e2, e3, e4, e5, e6, e10, e12, e14) = (try entry(2), try entry(3), try entry(4), try entry(5), try entry(6),
                                                      try entry(10), try entry(12), try entry(14))
            #expect(e2["title"] as? String == "Reykjavík")
            #expect((e2["description"] as? [String: Any])?["_content"] as? String == "Harbour <b>at</b> dusk")
            #expect(e3["datetaken"] as? String == "2019-07-02 10:11:12" && World.int(e3["datetakengranularity"]) == 0)
            #expect(World.int(e3["dateupload"]) == 1_600_000_000)
            #expect(e4["datetaken"] as? String == "1980-06-01 00:00:00" && World.int(e4["datetakengranularity"]) == 4)
            #expect(World.int(e5["ispublic"]) == 0 && World.int(e5["isfriend"]) == 1 && World.int(e5["isfamily"]) == 1)
            #expect(World.int(e6["license"]) == 5)
            #expect(World.int(e10["accuracy"]) == 11 && World.int(e10["context"]) == 2)
            let latitude = (e10["latitude"] as? NSNumber)?.doubleValue ?? (e10["latitude"] as? String).flatMap(Double.init)
            #expect(latitude == 64.1466, "\(String(describing: e10["latitude"]))")
            #expect((World.int(e12["accuracy"]) ?? 0) == 0, "no location after removeLocation")
            #expect(e14["tags"] as? String == "iceland blacksand")
            for (i, _, _) in writes {
                let stamp = try World.int(entry(i)["lastupdate"]) ?? 0
                #expect(stamp >= start, "photo \(i)")
            }

            // The content type is read through search's content type filter (the catalog's
            // content_type: 1 photos, 2 screenshots, 3 other, 4–7 unions; content_types alike).
            for name in ["content_type", "content_types"] {
                let screenshots = try await me.json("flickr.photos.search", [("user_id", "me"), (name, "2"), ("per_page", "500")], verb: "GET")
                #expect(World.photos(screenshots).compactMap { $0["id"] as? String } == [Self.p(8)], "\(name)")
            }
            let withOther = try await me.json("flickr.people.getPhotos", [("user_id", "me"), ("content_type", "5"), ("per_page", "500")], verb: "GET")
            #expect(World.photos(withOther).compactMap { $0["id"] as? String } == [Self.p(8)])
            let photosOnly = try await me.json("flickr.photos.search", [("user_id", "me"), ("content_type", "1"), ("per_page", "500")], verb: "GET")
            #expect(!World.photos(photosOnly).contains { $0["id"] as? String == Self.p(8) })
            #expect(World.photos(photosOnly).contains { $0["id"] as? String == Self.p(7) })

            // recentlyUpdated: exactly the photos written, and the set's primary (photosets.create
            // put it in a set: a change of its contexts).
            let recent = try await me.json("flickr.photos.recentlyUpdated", [("min_date", String(start)), ("per_page", "500")], verb: "GET")
            let recentIDs = Set(World.photos(recent).compactMap { $0["id"] as? String })
            #expect(recentIDs == Set(writes.map { Self.p($0.0) } + [Self.p(1)]), "\(recentIDs.sorted())")

            // removePhoto: gone from the contexts, moved again.
            let added = try await Self.lastUpdate(me, Self.p(13))
            _ = try await me.ok("flickr.photosets.removePhoto", [("photoset_id", set), ("photo_id", Self.p(13))])
            #expect(XMLProbe.attributes("id", of: "set", in: try await me.ok("flickr.photos.getAllContexts", [("photo_id", Self.p(13))], verb: "GET")).isEmpty)
            #expect(try await Self.lastUpdate(me, Self.p(13)) >= added)
            _ = server
        }
    }

    @Test("What Flickr refuses is refused with its code and message, and changes nothing (lastupdate neither)")
    func refusals() async throws {
        try await World.withWorld(try World.seed(count: 12)) { _, me, bob in
            let photo = Self.p(1)
            let bobSet = try #require(XMLProbe.attributes("id", of: "photoset", in: try await bob.ok("flickr.photosets.create",
                [("title", "Bob's"), ("primary_photo_id", "8200000001")])).first)
            let mySet = try #require(XMLProbe.attributes("id", of: "photoset", in: try await me.ok("flickr.photosets.create",
                [("title", "Mine"), ("primary_photo_id", Self.p(2))])).first)
            let infoBefore = try await Self.info(me, photo)
            let future = SandboxDatesForTests.format(World.now + 3 * 86_400)
            let cases: [(String, [(String, String)], Int, String)] = [
                ("flickr.photos.setDates", [("date_taken", "1899-12-31 23:59:59")], 6, "Invalid Date Taken"),
                ("flickr.photos.setDates", [("date_taken", "1850-01-01")], 6, "Invalid Date Taken"),
                ("flickr.photos.setDates", [("date_taken", future)], 6, "Invalid Date Taken"),
                ("flickr.photos.setDates", [("date_taken", "2019-13-01")], 5, "Invalid Date Taken Format"),
                ("flickr.photos.setDates", [("date_taken", "1562061072")], 5, "Invalid Date Taken Format"),
                ("flickr.photos.setDates", [("date_taken", "2019-07-02"), ("date_taken_granularity", "2")], 3, "Invalid granularity"),
                ("flickr.photos.setDates", [("date_posted", String(World.now + 86_400))], 4, "Invalid date_posted"),
                ("flickr.photos.setDates", [], 2, "Not enough arguments"),
                ("flickr.photos.setMeta", [], 2, "At least one of title or description must be set"),
                ("flickr.photos.setPerms", [("is_public", "1"), ("is_friend", "0")], 2, "Required arguments missing"),
                ("flickr.photos.licenses.setLicense", [("license_id", "99")], 2, "License not found"),
                ("flickr.photos.licenses.setLicense", [("license_id", "-1")], 2, "License not found"),
                ("flickr.photos.licenses.setLicense", [("license_id", "cc-by")], 2, "License not found"),
                ("flickr.photos.setSafetyLevel", [("safety_level", "4")], 2, "Invalid or missing arguments"),
                ("flickr.photos.setSafetyLevel", [("safety_level", "0")], 2, "Invalid or missing arguments"),
                ("flickr.photos.setContentType", [("content_type", "4")], 2, "Required arguments missing"),
                ("flickr.photos.geo.setLocation", [("lat", "90.5"), ("lon", "10")], 3, "Not a valid latitude."),
                ("flickr.photos.geo.setLocation", [("lat", "-91"), ("lon", "10")], 3, "Not a valid latitude."),
                ("flickr.photos.geo.setLocation", [("lat", "10"), ("lon", "180.01")], 4, "Not a valid longitude."),
                ("flickr.photos.geo.setLocation", [("lat", "10"), ("lon", "10"), ("accuracy", "17")], 5, "Not a valid accuracy."),
                ("flickr.photos.geo.setLocation", [("lat", "10"), ("lon", "10"), ("accuracy", "0")], 5, "Not a valid accuracy."),
                ("flickr.photos.geo.removeLocation", [], 2, "Photo has no location information"),
                ("flickr.photosets.addPhoto", [("photoset_id", bobSet)], 1, "Photoset not found"),
                ("flickr.photosets.addPhoto", [("photoset_id", "72157000000000999")], 1, "Photoset not found"),
                ("flickr.photosets.removePhoto", [("photoset_id", bobSet)], 1, "Photoset not found"),
                ("flickr.photosets.removePhoto", [("photoset_id", mySet)], 3, "Photo not in set"),
            ]
            for (method, params, code, message) in cases {
                let (gotCode, gotMessage) = try await Self.refusal(me, method, [("photo_id", photo)] + params)
                #expect(gotCode == code && gotMessage == message, "\(method) \(params): \(String(describing: gotCode)) \(gotMessage ?? "")")
            }
            // Already in the set; someone else's photo into my set; my photo written by someone else.
            var (code, message) = try await Self.refusal(me, "flickr.photosets.addPhoto", [("photoset_id", mySet), ("photo_id", Self.p(2))])
            #expect(code == 3 && message == "Photo already in set")
            (code, message) = try await Self.refusal(me, "flickr.photosets.addPhoto", [("photoset_id", mySet), ("photo_id", "8200000001")])
            #expect(code == 2 && message == "Photo not found")
            for (method, params) in [("flickr.photos.setMeta", [("title", "Bob was here")]),
                                     ("flickr.photos.licenses.setLicense", [("license_id", "4")]),
                                     ("flickr.photos.setDates", [("date_taken", "2001-01-01")]),
                                     ("flickr.photos.geo.setLocation", [("lat", "1"), ("lon", "1")])] {
                (code, message) = try await Self.refusal(bob, method, [("photo_id", photo)] + params)
                #expect(code == 1 && message == "Photo not found", "\(method) by another user")
            }
            // Nothing changed: getInfo is the same to the byte (lastupdate included).
            #expect(try await Self.info(me, photo) == infoBefore)
            // The edges are taken: 1900-01-01, ±90/±180, accuracy 1 and 16, every licence listed.
            _ = try await me.ok("flickr.photos.setDates", [("photo_id", photo), ("date_taken", "1900-01-01 00:00:00")])
            _ = try await me.ok("flickr.photos.geo.setLocation", [("photo_id", photo), ("lat", "-90"), ("lon", "180"), ("accuracy", "1")])
            _ = try await me.ok("flickr.photos.geo.setLocation", [("photo_id", photo), ("lat", "90"), ("lon", "-180"), ("accuracy", "16")])
            let licenses = XMLProbe.attributes("id", of: "license", in: try await me.ok("flickr.photos.licenses.getInfo", [], verb: "GET"))
            #expect(!licenses.isEmpty)
            for id in licenses { _ = try await me.ok("flickr.photos.licenses.setLicense", [("photo_id", photo), ("license_id", id)]) }
            let unlisted = (licenses.compactMap { Int($0) }.max() ?? 0) + 1
            (code, message) = try await Self.refusal(me, "flickr.photos.licenses.setLicense", [("photo_id", photo), ("license_id", String(unlisted))])
            #expect(code == 2 && message == "License not found", "licence \(unlisted) is not listed by getInfo")
        }
    }

    @Test("Each write needs the perms the catalog names (write): a read token is refused with 99, nothing changed")
    func permsNeeded() async throws {
        try await World.withWorld(try World.seed(count: 4)) { server, me, _ in
            let readToken = try await server.issueToken(username: "alice", perms: .read)
            let reader = SandboxClient(server, token: readToken.token, tokenSecret: readToken.secret)
            let catalog = try JSONSerialization.jsonObject(with: try Fixtures.data("methods_spec.json")) as? [String: Any] ?? [:]
            let writes: [(String, [(String, String)])] = [
                ("flickr.photos.setMeta", [("title", "x")]),
                ("flickr.photos.setDates", [("date_taken", "2001-01-01")]),
                ("flickr.photos.setPerms", [("is_public", "0"), ("is_friend", "0"), ("is_family", "0")]),
                ("flickr.photos.licenses.setLicense", [("license_id", "4")]),
                ("flickr.photos.setSafetyLevel", [("safety_level", "2")]),
                ("flickr.photos.setContentType", [("content_type", "3")]),
                ("flickr.photos.geo.setLocation", [("lat", "1"), ("lon", "1")]),
                ("flickr.photos.geo.removeLocation", []),
                ("flickr.photosets.addPhoto", [("photoset_id", "1")]),
                ("flickr.photosets.removePhoto", [("photoset_id", "1")]),
                ("flickr.photos.setTags", [("tags", "x")]),
            ]
            let before = try await Self.info(me, Self.p(0))
            for (method, params) in writes {
                let spec = try #require(catalog[method] as? [String: Any], "\(method) is in the catalog")
                #expect(spec["requiredperms"] as? String == "write", "\(method)")
                let (code, message) = try await Self.refusal(reader, method, [("photo_id", Self.p(0))] + params)
                #expect(code == 99 && message == "Insufficient permissions. Method requires write privileges; read granted.", "\(method): \(message ?? "")")
            }
            #expect(try await Self.info(me, Self.p(0)) == before)
        }
    }
}
