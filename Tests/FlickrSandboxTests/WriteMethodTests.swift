import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// Every write and delete method of the catalog changes the state: for each, the call, the read
/// that must show its effect, and a refusal (another member, or a missing right).
@Suite("Every write method changes state", .timeLimit(.minutes(3)), .tags(.integration))
struct WriteMethodTests {
    /// The demo world with the default member (`bees`), another member (`jamalfanaian`) and a
    /// read-only token of the default member.
    struct World: Sendable {
        let server: FlickrSandboxServer
        let me: SandboxClient
        let other: SandboxClient
        let reader: SandboxClient
        let otherNSID = "21207597@N07"
        let start: Int

        static func make(_ server: FlickrSandboxServer) async throws -> World {
            let o = try await server.issueToken(username: "jamalfanaian", perms: .delete)
            let r = try await server.issueToken(username: nil, perms: .read)
            let m = try await server.issueToken(username: nil, perms: .delete)
            return World(server: server, me: SandboxClient(server, token: m.token, tokenSecret: m.secret), other: SandboxClient(server, token: o.token, tokenSecret: o.secret),
                         reader: SandboxClient(server, token: r.token, tokenSecret: r.secret),
                         start: Int(Date().timeIntervalSince1970))
        }

        /// The default member's public photos, oldest id first.
        func myPhotos() async throws -> [String] {
            let xml = try await me.ok("flickr.people.getPhotos", [("user_id", "me"), ("per_page", "500"), ("privacy_filter", "1")], verb: "GET")
            return XMLProbe.attributes("id", of: "photo", in: xml).sorted()
        }

        /// Another member's public photos.
        func othersPhotos() async throws -> [String] {
            let xml = try await me.ok("flickr.people.getPublicPhotos", [("user_id", otherNSID), ("per_page", "500")], verb: "GET")
            return XMLProbe.attributes("id", of: "photo", in: xml).sorted()
        }

        func info(_ photo: String, as client: SandboxClient? = nil) async throws -> String {
            try await (client ?? me).ok("flickr.photos.getInfo", [("photo_id", photo)], verb: "GET")
        }

        /// The error code of a call expected to fail.
        func code(_ client: SandboxClient, _ method: String, _ params: [(String, String)]) async throws -> Int? {
            let r = try await client.call(method, params)
            #expect(r.body.contains("stat=\"fail\""), "\(method) should have failed: \(r.body)")
            return XMLProbe.errorCode(r.body)
        }

        /// Whether `recentlyUpdated` since the test began lists `photo` (every photo edit must).
        func recentlyUpdated(_ photo: String) async throws -> Bool {
            let xml = try await me.ok("flickr.photos.recentlyUpdated", [("min_date", String(start)), ("per_page", "500")], verb: "GET")
            return XMLProbe.attributes("id", of: "photo", in: xml).contains(photo)
        }

        func id(_ attribute: String = "id", of element: String, in xml: String) throws -> String {
            try #require(XMLProbe.attributes(attribute, of: element, in: xml).first)
        }
    }

    typealias Case = @Sendable (World) async throws -> Void

    // MARK: Photos

    static let photoCases: [String: Case] = [
        "flickr.photos.addTags": { w in
            let p = try await w.myPhotos()[0]
            _ = try await w.me.ok("flickr.photos.addTags", [("photo_id", p), ("tags", "\"brand new\"")])
            #expect(XMLProbe.attributes("raw", of: "tag", in: try await w.info(p)).contains("brand new"))
            #expect(try await w.recentlyUpdated(p))
            // The demo photos allow others to add tags (permaddmeta 2); a private photo of mine is not found.
            #expect(try await w.code(w.reader, "flickr.photos.addTags", [("photo_id", p), ("tags", "x")]) == 99)
        },
        "flickr.photos.setTags": { w in
            let p = try await w.myPhotos()[1]
            _ = try await w.me.ok("flickr.photos.setTags", [("photo_id", p), ("tags", "one \"two words\"")])
            let raws = XMLProbe.attributes("raw", of: "tag", in: try await w.info(p))
            #expect(raws.contains("two words") && raws.contains("one") && !raws.contains("fog"))
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.other, "flickr.photos.setTags", [("photo_id", p), ("tags", "x")]) == 1)
        },
        "flickr.photos.removeTag": { w in
            let p = try await w.myPhotos()[2]
            let tagID = try w.id(of: "tag", in: try await w.info(p))
            #expect(try await w.code(w.other, "flickr.photos.removeTag", [("tag_id", tagID)]) == 1)
            _ = try await w.me.ok("flickr.photos.removeTag", [("tag_id", tagID)])
            #expect(!XMLProbe.attributes("id", of: "tag", in: try await w.info(p)).contains(tagID))
            #expect(try await w.recentlyUpdated(p))
        },
        "flickr.photos.setMeta": { w in
            let p = try await w.myPhotos()[3]
            _ = try await w.me.ok("flickr.photos.setMeta", [("photo_id", p), ("title", "Renamed")])
            #expect(XMLProbe.texts(of: "title", in: try await w.info(p)) == ["Renamed"])
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.other, "flickr.photos.setMeta", [("photo_id", p), ("title", "x")]) == 1)
        },
        "flickr.photos.setPerms": { w in
            let p = try await w.myPhotos()[4]
            _ = try await w.me.ok("flickr.photos.setPerms", [("photo_id", p), ("is_public", "0"), ("is_friend", "1"), ("is_family", "0")])
            #expect(XMLProbe.attributes("ispublic", of: "visibility", in: try await w.info(p)) == ["0"])
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.other, "flickr.photos.setPerms", [("photo_id", p), ("is_public", "1"), ("is_friend", "0"), ("is_family", "0")]) == 1)
        },
        "flickr.photos.setDates": { w in
            let p = try await w.myPhotos()[5]
            _ = try await w.me.ok("flickr.photos.setDates", [("photo_id", p), ("date_taken", "2001-02-03 04:05:06"), ("date_posted", "1200000000")])
            let info = try await w.info(p)
            #expect(XMLProbe.attributes("taken", of: "dates", in: info) == ["2001-02-03 04:05:06"])
            #expect(XMLProbe.attributes("posted", of: "dates", in: info) == ["1200000000"])
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.me, "flickr.photos.setDates", [("photo_id", p), ("date_taken_granularity", "5")]) == 3)
            #expect(try await w.code(w.other, "flickr.photos.setDates", [("photo_id", p), ("date_posted", "1200000000")]) == 1)
        },
        "flickr.photos.setSafetyLevel": { w in
            let p = try await w.myPhotos()[6]
            _ = try await w.me.ok("flickr.photos.setSafetyLevel", [("photo_id", p), ("safety_level", "3")])
            #expect(XMLProbe.attributes("safety_level", of: "photo", in: try await w.info(p)) == ["2"], "getInfo counts safety from 0: restricted is 2")
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.me, "flickr.photos.setSafetyLevel", [("photo_id", p), ("safety_level", "9")]) == 2)
            #expect(try await w.code(w.other, "flickr.photos.setSafetyLevel", [("photo_id", p), ("safety_level", "1")]) == 1)
        },
        "flickr.photos.setContentType": { w in
            let p = try await w.myPhotos()[7]
            _ = try await w.me.ok("flickr.photos.setContentType", [("photo_id", p), ("content_type", "2")])
            let found = try await w.me.ok("flickr.photos.search", [("user_id", "me"), ("content_types", "2"), ("per_page", "500")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: found).contains(p))
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.other, "flickr.photos.setContentType", [("photo_id", p), ("content_type", "1")]) == 1)
        },
        "flickr.photos.licenses.setLicense": { w in
            let p = try await w.myPhotos()[8]
            // An id licenses.getInfo lists (today's 0–16: see SANDBOX.md).
            _ = try await w.me.ok("flickr.photos.licenses.setLicense", [("photo_id", p), ("license_id", "8")])
            #expect(XMLProbe.attributes("license", of: "photo", in: try await w.info(p)) == ["8"])
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.me, "flickr.photos.licenses.setLicense", [("photo_id", p), ("license_id", "99")]) == 2)
            #expect(try await w.code(w.other, "flickr.photos.licenses.setLicense", [("photo_id", p), ("license_id", "1")]) == 1)
        },
        "flickr.photos.transform.rotate": { w in
            let p = try await w.myPhotos()[9]
            _ = try await w.me.ok("flickr.photos.transform.rotate", [("photo_id", p), ("degrees", "90")])
            #expect(XMLProbe.attributes("rotation", of: "photo", in: try await w.info(p)) == ["90"])
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.me, "flickr.photos.transform.rotate", [("photo_id", p), ("degrees", "45")]) == 2)
            #expect(try await w.code(w.other, "flickr.photos.transform.rotate", [("photo_id", p), ("degrees", "90")]) == 1)
        },
        "flickr.photos.delete": { w in
            let p = try await w.myPhotos()[10]
            #expect(try await w.code(w.other, "flickr.photos.delete", [("photo_id", p)]) == 1)
            _ = try await w.me.ok("flickr.photos.delete", [("photo_id", p)])
            #expect(try await w.code(w.me, "flickr.photos.getInfo", [("photo_id", p)]) == 1)
        },
        "flickr.favorites.add": { w in
            let p = try await w.othersPhotos()[0]
            _ = try? await w.me.call("flickr.favorites.remove", [("photo_id", p)])
            _ = try await w.me.ok("flickr.favorites.add", [("photo_id", p)])
            let faves = try await w.me.ok("flickr.photos.getFavorites", [("photo_id", p), ("per_page", "50")], verb: "GET")
            #expect(XMLProbe.attributes("nsid", of: "person", in: faves).contains(w.server.credentials.userNSID))
            #expect(try await w.code(w.me, "flickr.favorites.add", [("photo_id", try await w.myPhotos()[0])]) == 2)
        },
        "flickr.favorites.remove": { w in
            let p = try await w.othersPhotos()[1]
            _ = try? await w.me.call("flickr.favorites.add", [("photo_id", p)])
            _ = try await w.me.ok("flickr.favorites.remove", [("photo_id", p)])
            let faves = try await w.me.ok("flickr.photos.getFavorites", [("photo_id", p), ("per_page", "50")], verb: "GET")
            #expect(!XMLProbe.attributes("nsid", of: "person", in: faves).contains(w.server.credentials.userNSID))
            #expect(try await w.code(w.me, "flickr.favorites.remove", [("photo_id", p)]) == 1)
        },
    ]

    // MARK: Geo

    static let geoCases: [String: Case] = [
        "flickr.photos.geo.setLocation": { w in
            let p = try await w.myPhotos()[11]
            _ = try await w.me.ok("flickr.photos.geo.setLocation", [("photo_id", p), ("lat", "48.8584"), ("lon", "2.2945"), ("accuracy", "15")])
            let loc = try await w.me.ok("flickr.photos.geo.getLocation", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.attributes("latitude", of: "location", in: loc) == ["48.8584"])
            let with = try await w.me.ok("flickr.photos.getWithGeoData", [("per_page", "500")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: with).contains(p))
            #expect(try await w.recentlyUpdated(p))
            #expect(try await w.code(w.me, "flickr.photos.geo.setLocation", [("photo_id", p), ("lat", "91"), ("lon", "0")]) == 3)
            #expect(try await w.code(w.other, "flickr.photos.geo.setLocation", [("photo_id", p), ("lat", "1"), ("lon", "1")]) == 1)
        },
        "flickr.photos.geo.removeLocation": { w in
            let p = try await w.myPhotos()[12]
            _ = try await w.me.ok("flickr.photos.geo.setLocation", [("photo_id", p), ("lat", "1"), ("lon", "2")])
            #expect(try await w.code(w.other, "flickr.photos.geo.removeLocation", [("photo_id", p)]) == 1)
            _ = try await w.me.ok("flickr.photos.geo.removeLocation", [("photo_id", p)])
            #expect(try await w.code(w.me, "flickr.photos.geo.getLocation", [("photo_id", p)]) == 2)
            let without = try await w.me.ok("flickr.photos.getWithoutGeoData", [("per_page", "500")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: without).contains(p))
            #expect(try await w.code(w.me, "flickr.photos.geo.removeLocation", [("photo_id", p)]) == 2)
        },
        "flickr.photos.geo.setContext": { w in
            let p = try await w.myPhotos()[13]
            _ = try await w.me.ok("flickr.photos.geo.setLocation", [("photo_id", p), ("lat", "1"), ("lon", "2")])
            _ = try await w.me.ok("flickr.photos.geo.setContext", [("photo_id", p), ("context", "2")])
            let loc = try await w.me.ok("flickr.photos.geo.getLocation", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.attributes("context", of: "location", in: loc) == ["2"])
            #expect(try await w.code(w.me, "flickr.photos.geo.setContext", [("photo_id", p), ("context", "7")]) == 2)
            #expect(try await w.code(w.other, "flickr.photos.geo.setContext", [("photo_id", p), ("context", "1")]) == 1)
        },
        "flickr.photos.geo.setPerms": { w in
            let p = try await w.myPhotos()[14]
            _ = try await w.me.ok("flickr.photos.geo.setLocation", [("photo_id", p), ("lat", "1"), ("lon", "2")])
            let flags = [("is_public", "0"), ("is_contact", "0"), ("is_friend", "0"), ("is_family", "0")]
            _ = try await w.me.ok("flickr.photos.geo.setPerms", [("photo_id", p)] + flags)
            let perms = try await w.me.ok("flickr.photos.geo.getPerms", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.attributes("ispublic", of: "perms", in: perms) == ["0"])
            // Now only the owner sees where it was taken.
            #expect(try await w.code(w.other, "flickr.photos.geo.getLocation", [("photo_id", p)]) == 2)
            #expect(try await w.code(w.other, "flickr.photos.geo.setPerms", [("photo_id", p)] + flags) == 1)
        },
        "flickr.photos.geo.correctLocation": { w in
            let p = try await w.myPhotos()[15]
            _ = try await w.me.ok("flickr.photos.geo.setLocation", [("photo_id", p), ("lat", "1"), ("lon", "2")])
            let before = try await w.info(p)
            _ = try await w.me.ok("flickr.photos.geo.correctLocation", [("photo_id", p), ("foursquare_id", "4b5f7d8cf964a520")])
            #expect(try await w.recentlyUpdated(p))
            #expect(XMLProbe.attributes("lastupdate", of: "dates", in: try await w.info(p)) != [] && before.contains("<location"))
            #expect(try await w.code(w.other, "flickr.photos.geo.correctLocation", [("photo_id", p), ("foursquare_id", "x")]) == 1)
        },
        "flickr.photos.geo.batchCorrectLocation": { w in
            let ps = try await w.myPhotos()
            for p in ps[16...17] {
                _ = try await w.me.ok("flickr.photos.geo.setLocation", [("photo_id", p), ("lat", "10.5"), ("lon", "20.25"), ("accuracy", "11")])
            }
            _ = try await w.me.ok("flickr.photos.geo.batchCorrectLocation", [("lat", "10.5"), ("lon", "20.25"), ("accuracy", "11"), ("place_id", "kH8dLOubBZRvX_YZ")])
            #expect(try await w.recentlyUpdated(ps[16]))
            // Nothing of the other member's is at that point.
            #expect(try await w.code(w.other, "flickr.photos.geo.batchCorrectLocation", [("lat", "10.5"), ("lon", "20.25"), ("accuracy", "11"), ("place_id", "x")]) == 6)
        },
        "flickr.photos.suggestions.suggestLocation": { w in
            let p = try await w.othersPhotos()[2]
            let s = try await w.me.ok("flickr.photos.suggestions.suggestLocation", [("photo_id", p), ("lat", "5"), ("lon", "6")])
            let id = try w.id(of: "suggestion", in: s)
            let list = try await w.other.ok("flickr.photos.suggestions.getList", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "suggestion", in: list) == [id])
            #expect(try await w.code(w.other, "flickr.photos.suggestions.suggestLocation", [("photo_id", p), ("lat", "5"), ("lon", "6")]) == 2)
        },
        "flickr.photos.suggestions.approveSuggestion": { w in
            let p = try await w.othersPhotos()[3]
            let id = try w.id(of: "suggestion", in: try await w.me.ok("flickr.photos.suggestions.suggestLocation", [("photo_id", p), ("lat", "7.25"), ("lon", "8")]))
            #expect(try await w.code(w.me, "flickr.photos.suggestions.approveSuggestion", [("suggestion_id", id)]) == 1)
            _ = try await w.other.ok("flickr.photos.suggestions.approveSuggestion", [("suggestion_id", id)])
            let loc = try await w.other.ok("flickr.photos.geo.getLocation", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.attributes("latitude", of: "location", in: loc) == ["7.25"])
        },
        "flickr.photos.suggestions.rejectSuggestion": { w in
            let p = try await w.othersPhotos()[4]
            let id = try w.id(of: "suggestion", in: try await w.me.ok("flickr.photos.suggestions.suggestLocation", [("photo_id", p), ("lat", "1"), ("lon", "1")]))
            #expect(try await w.code(w.me, "flickr.photos.suggestions.rejectSuggestion", [("suggestion_id", id)]) == 1)
            _ = try await w.other.ok("flickr.photos.suggestions.rejectSuggestion", [("suggestion_id", id)])
            let list = try await w.other.ok("flickr.photos.suggestions.getList", [("photo_id", p), ("status_id", "2")], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "suggestion", in: list) == [id])
        },
        "flickr.photos.suggestions.removeSuggestion": { w in
            let p = try await w.othersPhotos()[5]
            let id = try w.id(of: "suggestion", in: try await w.me.ok("flickr.photos.suggestions.suggestLocation", [("photo_id", p), ("lat", "1"), ("lon", "1")]))
            #expect(try await w.code(w.other, "flickr.photos.suggestions.removeSuggestion", [("suggestion_id", id)]) == 1)
            _ = try await w.me.ok("flickr.photos.suggestions.removeSuggestion", [("suggestion_id", id)])
            let list = try await w.other.ok("flickr.photos.suggestions.getList", [("photo_id", p)], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "suggestion", in: list).isEmpty)
        },
    ]
}
