import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// Unmodified third-party clients against the sandbox.
@Suite("Interop with real clients", .timeLimit(.minutes(3)), .tags(.crossCheck))
struct InteropTests {
    /// A minimal JPEG for uploads: the markers and a 64×48 frame header, no image data.
    static let jpegHex: String = {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x30, 0x00, 0x40, 0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9]
        return bytes.map { String(format: "%02x", $0) }.joined()
    }()

    @Test("python-flickrapi 2.4: OAuth dance, search, getInfo, tags, upload, replace")
    func pythonFlickrAPI() async throws {
        try await withSandbox { server in
            let c = server.credentials
            let run = try await Products.python("sandbox_flickrapi_interop.py", [server.url, c.apiKey, c.apiSecret, Self.jpegHex])
            try #require(run.status == 0, "python failed: \(run.stderr)")
            let out = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            #expect((out["verifier"] as? String)?.wholeMatch(of: /\d{3}-\d{3}-\d{3}/) != nil)
            #expect(out["token_perms"] as? String == "delete")
            #expect(out["token_valid"] as? Bool == true)
            #expect(out["login"] as? String == c.username)
            #expect(out["nsid"] as? String == c.userNSID)
            #expect((out["search_total"] as? Int ?? 0) > 0)
            let first = try #require(out["search_first"] as? [String: Any])
            #expect(first["owner"] as? String == c.userNSID)
            #expect((first["tags"] as? String)?.split(separator: " ").contains("fog") == true)
            #expect((first["url_m"] as? String)?.hasPrefix(server.url + "/static/") == true)
            #expect(first["o_width"] != nil && first["datetaken"] != nil && first["ownername"] as? String == c.username)

            let afterAdd = try #require(out["after_add"] as? [[String]])
            #expect(afterAdd.contains(["added by python", "addedbypython"]))
            #expect(afterAdd.contains(["python:lib=flickrapi", "python:lib=flickrapi"]))
            let afterSet = try #require(out["after_set"] as? [[String]])
            #expect(afterSet.map { $0[0] } == ["replaced", "new york", "fog"])
            #expect(out["after_remove"] as? [String] == ["new york", "fog"])

            // The state changes are visible to another client too.
            let photoID = try #require(out["photo_id"] as? String)
            let xml = try await SandboxClient.writer(server).ok("flickr.tags.getListPhoto", [("photo_id", photoID)], verb: "GET")
            #expect(XMLProbe.attributes("raw", of: "tag", in: xml) == ["new york", "fog"])
            #expect(!xml.contains(try #require(out["removed_id"] as? String)))

            let uploaded = try #require(out["upload_id"] as? String)
            #expect(out["upload_title"] as? String == "Uploaded from Python")
            #expect(out["upload_tags"] as? [String] == ["upload", "python test"])
            #expect(out["replace_id"] as? String == uploaded)
            #expect(out["replaced_secret"] as? String != out["upload_secret"] as? String)
            #expect(out["replaced_osecret"] as? String != out["upload_osecret"] as? String)
            #expect(out["original_bytes_match"] as? Bool == true)
        }
    }

    @Test("A request signed with a wrong secret gets 401 signature_invalid with the client's base string")
    func wrongSecret() async throws {
        try await withSandbox { server in
            let c = server.credentials
            let run = try await Products.python("sandbox_wrong_secret.py", [server.url, c.apiKey, c.oauthToken, c.oauthTokenSecret])
            try #require(run.status == 0, "python failed: \(run.stderr)")
            let out = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            #expect(out["status"] as? Int == 401)
            #expect(out["content_type"] as? String == "text/plain;charset=UTF-8")
            let body = try #require(out["body"] as? String)
            let clientBase = try #require(out["client_base_string"] as? String)
            #expect(body == "oauth_problem=signature_invalid&debug_sbs=" + clientBase)
            #expect(clientBase.hasPrefix("POST&" + PercentEncoding.encode(server.url + "/services/rest/") + "&"))
        }
    }
}
