import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// What the library mirror (`flickr sync`) and `flickr backup` rely on, as Flickr does it:
/// `photos.recentlyUpdated` after every kind of edit, `people.getInfo`'s photo count,
/// `people.getPhotos` past the 4,000 cap, sets' counts and `date_update`, deletions everywhere,
/// and video originals (a JPEG still as "Original", the file at getSizes' "Video Original").
@Suite("Library faithfulness: recentlyUpdated, counts, sets, deletions, video originals", .timeLimit(.minutes(3)),
       .tags(.integration, .heavy))
struct LibraryFaithfulnessTests {
    /// The extras `flickr sync` asks every listing for (FlickrLibrary's `LibraryPhoto.extras`).
    static let libraryExtras = "description,license,date_upload,date_taken,owner_name,original_format,last_update,geo,tags,"
        + "machine_tags,o_dims,views,media,url_o"
    static let firstPosted = 1_500_000_000
    static let alice = "20000001@N01"

    /// Alice's photo `i` of the seed.
    static func p(_ i: Int) -> String { String(8_100_000_000 + i) }

    /// Photo `i` is a video when `i % 10 == 9`, private (to alice alone) when `i % 5 == 3`,
    /// geotagged when `i % 4 == 0`.
    static func isVideo(_ i: Int) -> Bool { i % 10 == 9 }
    static func isPrivate(_ i: Int) -> Bool { i % 5 == 3 }

    /// A seed of `count` photos of alice (path alias `alice-a`), posted and last updated an hour
    /// apart from 2017 on, with tags, videos (`original_format` mp4, as LibraryWorld writes
    /// them), private photos and locations; bob with two photos; `extra` merged on top.
    static func seed(count: Int, extra: [String: Any] = [:]) throws -> URL {
        var photos: [[String: Any]] = []
        for i in 0..<count {
            let posted = firstPosted + i * 3600
            var photo: [String: Any] = [
                "id": p(i), "owner": "alice", "title": "Photo \(i)", "description": "", "tags": ["tram", "Old Town", "camera:make=Fujifilm"],
                "is_public": isPrivate(i) ? 0 : 1, "date_posted": posted, "last_update": posted,
                "date_taken": SandboxDatesForTests.format(posted - 86_400), "license": 0,
                "media": isVideo(i) ? "video" : "photo", "original_format": isVideo(i) ? "mp4" : "jpg",
            ]
            if i % 4 == 0 { (photo["latitude"], photo["longitude"], photo["accuracy"]) = (38.7 + Double(i) / 1000, -9.1, 16) }
            photos.append(photo)
        }
        photos.append(["id": "8200000001", "owner": "bob", "title": "Bob's", "date_posted": firstPosted])
        photos.append(["id": "8200000002", "owner": "bob", "title": "Bob's too", "date_posted": firstPosted])
        var seed: [String: Any] = [
            "users": [["username": "alice", "nsid": alice, "path_alias": "alice-a"], ["username": "bob", "nsid": "20000002@N01"]],
            "default_user": "alice", "photos": photos,
        ]
        seed.merge(extra) { _, new in new }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("library-seed-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: seed).write(to: url)
        return url
    }

    /// Runs `body` against a sandbox serving `seed`, with alice's client (a delete token:
    /// `photos.delete` needs one) and bob's (write).
    static func withWorld<T>(_ seed: URL, _ body: (FlickrSandboxServer, SandboxClient, SandboxClient) async throws -> T) async throws -> T {
        defer { try? FileManager.default.removeItem(at: seed) }
        return try await withSandbox(SandboxConfiguration(dataFile: seed.path)) { server in
            let aliceToken = try await server.issueToken(username: "alice", perms: .delete)
            let bobToken = try await server.issueToken(username: "bob", perms: .write)
            return try await body(server, SandboxClient(server, token: aliceToken.token, tokenSecret: aliceToken.secret),
                                  SandboxClient(server, token: bobToken.token, tokenSecret: bobToken.secret))
        }
    }

    static var now: Int { Int(Date().timeIntervalSince1970) }

    /// The `<photo>` maps of a JSON photo list (`photos` or `photoset`).
    static func photos(_ rsp: [String: Any], list: String = "photos") -> [[String: Any]] {
        ((rsp[list] as? [String: Any])?["photo"] as? [[String: Any]]) ?? []
    }

    static func int(_ value: Any?) -> Int? { (value as? Int) ?? (value as? String).flatMap { Int($0) } }

    /// A small MP4 (an `ftyp` box, then bytes that say which).
    static func mp4(_ marker: UInt8) -> [UInt8] {
        [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isommp41".utf8) + [0, 0, 0, 9] + Array("free".utf8) + [marker]
    }

    // MARK: 1. recentlyUpdated

    @Test("Every kind of edit stamps lastupdate with the call's time; recentlyUpdated lists exactly those photos, newest first, paged, with the extras search gives")
    func recentlyUpdated() async throws {
        try await Self.withWorld(try Self.seed(count: 40)) { server, me, bob in
            let start = Self.now
            let tagID = try #require(XMLProbe.attributes("id", of: "tag", in: try await me.ok("flickr.photos.getInfo", [("photo_id", Self.p(3))], verb: "GET")).first)
            let edits: [(Int, SandboxClient, String, [(String, String)])] = [
                (0, me, "flickr.photos.setMeta", [("title", "New title")]),
                (1, me, "flickr.photos.setMeta", [("description", "Only the description")]),
                (2, me, "flickr.photos.addTags", [("tags", "added")]),
                (3, me, "flickr.photos.removeTag", [("tag_id", tagID)]),
                (4, me, "flickr.photos.setTags", [("tags", "replaced")]),
                (5, me, "flickr.photos.setPerms", [("is_public", "0"), ("is_friend", "1"), ("is_family", "0")]),
                (6, me, "flickr.photos.setDates", [("date_taken", "2001-02-03 04:05:06")]),
                (7, me, "flickr.photos.licenses.setLicense", [("license_id", "4")]),
                (8, me, "flickr.photos.setSafetyLevel", [("safety_level", "2")]),
                (10, me, "flickr.photos.setContentType", [("content_type", "2")]),
                (11, me, "flickr.photos.geo.setLocation", [("lat", "48.85"), ("lon", "2.35")]),
                (12, me, "flickr.photos.geo.removeLocation", []),
                (13, me, "flickr.photos.notes.add", [("note_x", "1"), ("note_y", "1"), ("note_w", "10"), ("note_h", "10"), ("note_text", "hi")]),
                (14, bob, "flickr.photos.comments.addComment", [("comment_text", "Nice")]),
                (16, me, "flickr.photos.transform.rotate", [("degrees", "90")]),
            ]
            for (i, client, method, params) in edits { _ = try await client.ok(method, [("photo_id", Self.p(i))] + params) }
            // Replacing the file is an update too.
            let jpeg = UploadTests.jpegHead(width: 8, height: 6) + [1, 0xFF, 0xD9]
            let replaced = try await UploadTests.upload(server, path: "/services/replace/", fields: [("photo_id", Self.p(15))],
                                                       photoLength: jpeg.count, photoChunks: UploadTests.small(jpeg))
            #expect(XMLProbe.texts(of: "photoid", in: replaced.body) == [Self.p(15)])
            let end = Self.now
            let edited = Set(edits.map { Self.p($0.0) } + [Self.p(15)])

            let rsp = try await me.json("flickr.photos.recentlyUpdated", [("min_date", String(start)), ("extras", Self.libraryExtras), ("per_page", "500")], verb: "GET")
            let listed = Self.photos(rsp)
            #expect(Set(listed.compactMap { $0["id"] as? String }) == edited)
            #expect(listed.count == edited.count)
            let stamps = listed.compactMap { Self.int($0["lastupdate"]) }
            #expect(stamps.count == listed.count && stamps.allSatisfy { (start...end).contains($0) })
            #expect(stamps == stamps.sorted(by: >), "newest first")
            // getInfo agrees.
            let info = try await me.ok("flickr.photos.getInfo", [("photo_id", Self.p(0))], verb: "GET")
            let infoStamp = XMLProbe.attributes("lastupdate", of: "dates", in: info).first.flatMap { Int($0) }
            #expect(infoStamp == Self.int(listed.first { $0["id"] as? String == Self.p(0) }?["lastupdate"]))

            // The extras are search's, key for key and value for value.
            let search = try await me.json("flickr.photos.search", [("user_id", "me"), ("extras", Self.libraryExtras), ("per_page", "500")], verb: "GET")
            let byID = Dictionary(Self.photos(search).map { ($0["id"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
            for photo in listed {
                let id = photo["id"] as? String ?? ""
                let twin = try #require(byID[id])
                #expect(NSDictionary(dictionary: photo).isEqual(to: twin), "photo \(id): recentlyUpdated \(photo) vs search \(twin)")
                for key in ["description", "license", "dateupload", "datetaken", "ownername", "originalformat", "lastupdate", "latitude",
                            "longitude", "accuracy", "tags", "machine_tags", "o_width", "o_height", "views", "media", "url_o"] {
                    #expect(photo[key] != nil, "photo \(id) lacks \(key)")
                }
            }

            // Paged: 5 a page gives every photo once; at most 500 a page.
            var paged: [String] = []
            let first = try await me.json("flickr.photos.recentlyUpdated", [("min_date", String(start)), ("per_page", "5"), ("page", "1")], verb: "GET")
            let pages = try #require(Self.int((first["photos"] as? [String: Any])?["pages"]))
            #expect(pages == (edited.count + 4) / 5)
            paged += Self.photos(first).compactMap { $0["id"] as? String }
            for n in 2...pages {
                let page = try await me.json("flickr.photos.recentlyUpdated", [("min_date", String(start)), ("per_page", "5"), ("page", String(n))], verb: "GET")
                paged += Self.photos(page).compactMap { $0["id"] as? String }
            }
            #expect(paged == listed.compactMap { $0["id"] as? String })
            let wide = try await me.ok("flickr.photos.recentlyUpdated", [("min_date", "1"), ("per_page", "1000")], verb: "GET")
            #expect(XMLProbe.attributes("perpage", of: "photos", in: wide) == ["500"])
            #expect(XMLProbe.attributes("total", of: "photos", in: wide) == ["40"], "alice's photos only")
        }
    }

    // MARK: 2. people.getInfo

    @Test("people.getInfo: the owner's count is every photo of theirs (private ones too); upload and delete move it")
    func photoCount() async throws {
        try await Self.withWorld(try Self.seed(count: 40)) { server, me, bob in
            func count(_ client: SandboxClient) async throws -> Int? {
                let xml = try await client.ok("flickr.people.getInfo", [("user_id", Self.alice)], verb: "GET")
                return XMLProbe.texts(of: "count", in: xml).first.flatMap { Int($0) }
            }
            #expect(try await count(me) == 40)
            #expect(try await count(bob) == (0..<40).filter { !Self.isPrivate($0) }.count, "others count what they may see")
            let jpeg = UploadTests.jpegHead(width: 4, height: 3) + [2, 0xFF, 0xD9]
            let up = try await UploadTests.upload(server, fields: [("is_public", "0")], photoLength: jpeg.count, photoChunks: UploadTests.small(jpeg))
            let id = try #require(XMLProbe.texts(of: "photoid", in: up.body).first)
            #expect(try await count(me) == 41)
            _ = try await me.ok("flickr.photos.delete", [("photo_id", id)])
            _ = try await me.ok("flickr.photos.delete", [("photo_id", Self.p(0))])
            #expect(try await count(me) == 39)
        }
    }

    // MARK: 3. people.getPhotos past the cap

    @Test("people.getPhotos user_id=me lists all 4,300 photos past the 4,000 cap, 500 a page, with the library's extras")
    func uncappedListing() async throws {
        try await Self.withWorld(try Self.seed(count: 4_300)) { _, me, _ in
            var ids: [String] = []
            var last: [[String: Any]] = []
            for n in 1...9 {
                let rsp = try await me.json("flickr.people.getPhotos", [("user_id", "me"), ("extras", Self.libraryExtras), ("per_page", "500"), ("page", String(n))], verb: "GET")
                let list = try #require(rsp["photos"] as? [String: Any])
                #expect(Self.int(list["total"]) == 4_300 && Self.int(list["pages"]) == 9)
                last = Self.photos(rsp)
                ids += last.compactMap { $0["id"] as? String }
            }
            #expect(ids.count == 4_300 && Set(ids) == Set((0..<4_300).map(Self.p)))
            #expect(last.count == 300)
            // The oldest photos (page 9): every extra is there; videos answer a JPEG original.
            for photo in last {
                #expect(Self.int(photo["lastupdate"]) == Self.int(photo["dateupload"]))
                #expect(photo["originalformat"] as? String == "jpg")
                #expect((photo["url_o"] as? String)?.hasSuffix("_o.jpg") == true)
                #expect(photo["datetaken"] != nil && photo["tags"] as? String == "tram oldtown" && photo["machine_tags"] as? String == "camera:make=fujifilm")
            }
            #expect(last.contains { $0["media"] as? String == "video" } && last.contains { $0["ispublic"] as? Int == 0 })
        }
    }

    // MARK: 4. Sets

    /// Sets 0–9 of the sets test: set `k` holds photos 3k and 3k+1 (set 3 holds the video 9).
    static func setsSeed() throws -> URL {
        let sets: [[String: Any]] = (0..<10).map { k in
            ["id": String(72_157_600_000_000_200 + k), "owner": "alice", "title": "Set \(k)", "photos": [p(3 * k), p(3 * k + 1)]]
        }
        return try seed(count: 40, extra: ["photosets": sets])
    }

    static func set(_ k: Int) -> String { String(72_157_600_000_000_200 + k) }

    @Test("photosets.getList: counts as Flickr gives them; date_update moves on every change of a set, on a member's deletion; deleted and emptied sets leave the list")
    func sets() async throws {
        try await Self.withWorld(try Self.setsSeed()) { _, me, _ in
            func list() async throws -> [String: [String: Any]] {
                let rsp = try await me.json("flickr.photosets.getList", [("per_page", "500")], verb: "GET")
                let sets = ((rsp["photosets"] as? [String: Any])?["photoset"] as? [[String: Any]]) ?? []
                return Dictionary(sets.map { ($0["id"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
            }
            let before = try await list()
            #expect(before.count == 10)
            let video = try #require(before[Self.set(3)])
            #expect(Self.int(video["photos"]) == 1 && Self.int(video["videos"]) == 1)
            #expect(Self.int(video["count_photos"]) == 1 && Self.int(video["count_videos"]) == 1)
            #expect(video["owner"] as? String == Self.alice)
            let info = try await me.json("flickr.photosets.getInfo", [("photoset_id", Self.set(3))], verb: "GET")
            let infoSet = try #require(info["photoset"] as? [String: Any])
            #expect(Self.int(infoSet["photos"]) == 2 && Self.int(infoSet["count_photos"]) == 1 && Self.int(infoSet["count_videos"]) == 1)
            for (_, seeded) in before { #expect(Self.int(seeded["date_update"]).map { $0 < Self.firstPosted + 40 * 3600 } == true) }

            let start = Self.now
            _ = try await me.ok("flickr.photosets.addPhoto", [("photoset_id", Self.set(0)), ("photo_id", Self.p(30))])
            _ = try await me.ok("flickr.photosets.removePhoto", [("photoset_id", Self.set(1)), ("photo_id", Self.p(4))])
            _ = try await me.ok("flickr.photosets.removePhotos", [("photoset_id", Self.set(2)), ("photo_ids", Self.p(6))])
            _ = try await me.ok("flickr.photosets.reorderPhotos", [("photoset_id", Self.set(3)), ("photo_ids", "\(Self.p(10)),\(Self.p(9))")])
            _ = try await me.ok("flickr.photosets.editPhotos", [("photoset_id", Self.set(4)), ("primary_photo_id", Self.p(13)),
                                                                  ("photo_ids", "\(Self.p(13)),\(Self.p(12)),\(Self.p(31))")])
            _ = try await me.ok("flickr.photosets.editMeta", [("photoset_id", Self.set(5)), ("title", "Renamed"), ("description", "Now described")])
            _ = try await me.ok("flickr.photosets.setPrimaryPhoto", [("photoset_id", Self.set(6)), ("photo_id", Self.p(19))])
            _ = try await me.ok("flickr.photos.delete", [("photo_id", Self.p(21))])  // a member of set 7
            _ = try await me.ok("flickr.photosets.delete", [("photoset_id", Self.set(8))])
            _ = try await me.ok("flickr.photos.delete", [("photo_id", Self.p(27))])  // set 9 loses both members: gone
            _ = try await me.ok("flickr.photos.delete", [("photo_id", Self.p(28))])
            let end = Self.now

            let after = try await list()
            #expect(Set(after.keys) == Set((0..<8).map(Self.set)), "the deleted set and the emptied one are gone")
            for k in 0..<8 {
                let stamp = Self.int(after[Self.set(k)]?["date_update"])
                #expect(stamp.map { (start...end).contains($0) } == true, "set \(k): date_update \(stamp.map(String.init) ?? "nil") not moved")
            }
            let counts = (0..<8).map { Self.int(after[Self.set($0)]?["photos"]) }
            #expect(counts == [3, 1, 1, 1, 3, 2, 1, 1], "photos apart from videos (set 6 holds the video 19)")
            #expect(Self.int(after[Self.set(3)]?["videos"]) == 1)
            #expect(after[Self.set(4)]?["primary"] as? String == Self.p(13))
            #expect(after[Self.set(6)]?["primary"] as? String == Self.p(19))
            let members = try await me.ok("flickr.photosets.getPhotos", [("photoset_id", Self.set(7))], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: members) == [Self.p(22)])
            #expect(XMLProbe.attributes("primary", of: "photoset", in: members) == [Self.p(22)])
        }
    }

    // MARK: 5. Deletion

    @Test("photos.delete removes the photo everywhere: sets, galleries, favourites, pools, listings, recentlyUpdated, the count")
    func deletion() async throws {
        let target = Self.p(30), kept = Self.p(31)
        let seed = try Self.seed(count: 40, extra: [
            "photosets": [["id": "72157600000000300", "owner": "alice", "title": "Holds it", "photos": [target, Self.p(32)], "primary": target]],
            "favorites": [["user": "bob", "photo": target, "date": Self.firstPosted], ["user": "bob", "photo": kept, "date": Self.firstPosted]],
            "galleries": [["owner": "bob", "title": "Bob's picks", "photos": [target, kept], "primary": target]],
            "groups": [["nsid": "90000001@N01", "name": "Trams", "members": ["alice", "bob"], "pool": [target, kept]]],
        ])
        try await Self.withWorld(seed) { _, me, bob in
            let start = Self.now
            _ = try await me.ok("flickr.photos.setMeta", [("photo_id", target), ("title", "About to go")])
            let recent = try await me.ok("flickr.photos.recentlyUpdated", [("min_date", String(start))], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: recent) == [target])
            let gallery = try #require(XMLProbe.attributes("id", of: "gallery", in: try await bob.ok("flickr.galleries.getList", [("user_id", "me")], verb: "GET")).first)

            _ = try await me.ok("flickr.photos.delete", [("photo_id", target)])

            #expect(XMLProbe.errorCode(try await me.call("flickr.photos.getInfo", [("photo_id", target)], verb: "GET").body) == 1)
            #expect(XMLProbe.attributes("id", of: "photo", in: try await me.ok("flickr.photos.recentlyUpdated", [("min_date", String(start))], verb: "GET")).isEmpty)
            let listing = try await me.ok("flickr.people.getPhotos", [("user_id", "me"), ("per_page", "500")], verb: "GET")
            #expect(!XMLProbe.attributes("id", of: "photo", in: listing).contains(target))
            #expect(XMLProbe.attributes("total", of: "photos", in: listing) == ["39"])
            let set = try await me.ok("flickr.photosets.getPhotos", [("photoset_id", "72157600000000300")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: set) == [Self.p(32)])
            #expect(XMLProbe.attributes("primary", of: "photoset", in: set) == [Self.p(32)])
            let faves = try await bob.ok("flickr.favorites.getList", [], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: faves) == [kept])
            let picks = try await bob.ok("flickr.galleries.getPhotos", [("gallery_id", gallery)], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: picks) == [kept])
            let galleryInfo = try await bob.ok("flickr.galleries.getInfo", [("gallery_id", gallery)], verb: "GET")
            #expect(XMLProbe.attributes("primary_photo_id", of: "gallery", in: galleryInfo) == [kept])
            #expect(XMLProbe.attributes("count_photos", of: "gallery", in: galleryInfo) == ["1"])
            let pool = try await bob.ok("flickr.groups.pools.getPhotos", [("group_id", "90000001@N01")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: pool) == [kept])
            let info = try await me.ok("flickr.people.getInfo", [("user_id", "me")], verb: "GET")
            #expect(XMLProbe.texts(of: "count", in: info) == ["39"])
        }
    }

    // MARK: 6. Video originals

    @Test("A video's original is a JPEG still; getSizes gives its owner \"Video Original\", a play URL serving the file (404 for a wrong secret or someone else's path)")
    func videoOriginals() async throws {
        try await Self.withWorld(try Self.seed(count: 40)) { server, me, bob in
            let video = Self.p(9), still = Self.p(8)
            let info = try await me.ok("flickr.photos.getInfo", [("photo_id", video)], verb: "GET")
            #expect(XMLProbe.attributes("originalformat", of: "photo", in: info) == ["jpg"])
            #expect(XMLProbe.attributes("media", of: "photo", in: info) == ["video"])
            let secret = try #require(XMLProbe.attributes("originalsecret", of: "photo", in: info).first)
            let listed = try await me.json("flickr.photos.search", [("user_id", "me"), ("extras", Self.libraryExtras), ("per_page", "500")], verb: "GET")
            let entry = try #require(Self.photos(listed).first { $0["id"] as? String == video })
            #expect(entry["originalformat"] as? String == "jpg" && entry["media"] as? String == "video")
            let urlO = try #require(entry["url_o"] as? String)
            #expect(urlO.hasSuffix("/\(video)_\(secret)_o.jpg"))
            let stillBytes = try await TestHTTP.get(urlO)
            #expect(stillBytes.status == 200 && stillBytes.header("content-type") == "image/jpeg" && stillBytes.bytes.starts(with: [0xFF, 0xD8]))

            // getSizes: the stills are media="photo" (as the live answer); the owner also gets the file.
            let sizes = try await me.ok("flickr.photos.getSizes", [("photo_id", video)], verb: "GET")
            let labels = XMLProbe.attributes("label", of: "size", in: sizes)
            let sources = XMLProbe.attributes("source", of: "size", in: sizes)
            let media = XMLProbe.attributes("media", of: "size", in: sizes)
            let original = try #require(labels.firstIndex(of: "Original"))
            #expect(sources[original] == urlO && media[original] == "photo")
            let play = try #require(labels.firstIndex(of: "Video Original"))
            #expect(media[play] == "video")
            let playURL = sources[play]
            #expect(playURL == "\(server.url)/photos/alice-a/\(video)/play/orig/\(secret)/")
            let others = try await bob.ok("flickr.photos.getSizes", [("photo_id", video)], verb: "GET")
            #expect(XMLProbe.attributes("label", of: "size", in: others).contains("Original"))
            #expect(!XMLProbe.attributes("label", of: "size", in: others).contains("Video Original"))
            let photoSizes = try await me.ok("flickr.photos.getSizes", [("photo_id", still)], verb: "GET")
            #expect(!XMLProbe.attributes("label", of: "size", in: photoSizes).contains("Video Original"))

            // The play URL: a small deterministic MP4 for a seeded video.
            let served = try await TestHTTP.get(playURL)
            #expect(served.status == 200 && served.header("content-type") == "video/mp4")
            #expect(Array(served.bytes.dropFirst(4).prefix(4)) == Array("ftyp".utf8))
            #expect(try await TestHTTP.get(playURL).bytes == served.bytes)
            let byNSID = try await TestHTTP.get("\(server.url)/photos/\(Self.alice)/\(video)/play/orig/\(secret)/")
            #expect(byNSID.status == 200 && byNSID.bytes == served.bytes)
            let otherVideo = try await TestHTTP.get(try #require(XMLProbe.attributes("source", of: "size", in: try await me.ok("flickr.photos.getSizes", [("photo_id", Self.p(19))], verb: "GET")).last))
            #expect(otherVideo.status == 200 && otherVideo.bytes != served.bytes)
            #expect(try await TestHTTP.get("\(server.url)/photos/alice-a/\(video)/play/orig/0123456789/").status == 404)
            #expect(try await TestHTTP.get("\(server.url)/photos/bob/\(video)/play/orig/\(secret)/").status == 404)
            #expect(try await TestHTTP.get("\(server.url)/photos/alice-a/\(video)/play/700/\(secret)/").status == 404)
            #expect(try await TestHTTP.get(String(urlO.dropLast(3)) + "mp4").status == 404, "the file is not at the still's address")
            let stillSecret = try #require(XMLProbe.attributes("originalsecret", of: "photo", in: try await me.ok("flickr.photos.getInfo", [("photo_id", still)], verb: "GET")).first)
            #expect(try await TestHTTP.get("\(server.url)/photos/alice-a/\(still)/play/orig/\(stillSecret)/").status == 404, "no video there")

            // An uploaded video: the play URL serves its bytes; the original is still a JPEG.
            let bytes = Self.mp4(0x5A)
            let up = try await UploadTests.upload(server, fields: [], photoLength: bytes.count, photoChunks: UploadTests.small(bytes))
            let id = try #require(XMLProbe.texts(of: "photoid", in: up.body).first)
            let upSizes = try await me.ok("flickr.photos.getSizes", [("photo_id", id)], verb: "GET")
            let upLabels = XMLProbe.attributes("label", of: "size", in: upSizes)
            let upSources = XMLProbe.attributes("source", of: "size", in: upSizes)
            let upPlay = try #require(upLabels.firstIndex(of: "Video Original"))
            let file = try await TestHTTP.get(upSources[upPlay])
            #expect(file.status == 200 && file.header("content-type") == "video/mp4" && file.bytes == bytes)
            let upOriginal = try #require(upLabels.firstIndex(of: "Original"))
            #expect(upSources[upOriginal].hasSuffix("_o.jpg"))
            let upStill = try await TestHTTP.get(upSources[upOriginal])
            #expect(upStill.status == 200 && upStill.header("content-type") == "image/jpeg")
        }
    }
}
