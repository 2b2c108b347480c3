import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import FoundationXML
import NIOCore
import Testing

/// Text with characters XML 1.0 cannot carry: Flickr drops them from what it stores, so every
/// answer stays a well-formed document (a title with `\u{0B}` once made every listing that
/// showed it malformed, and every sync after it failed).
@Suite("Control characters in text", .timeLimit(.minutes(3)), .tags(.integration))
struct ControlCharacterTests {
    /// Every C0 control character, DEL, U+FFFE and U+FFFF, between `a` and `z`.
    static let sent = "a" + (0x00...0x1F).map { String(Character(Unicode.Scalar($0)!)) }.joined() + "\u{7F}\u{FFFE}\u{FFFF}z"
    /// What Flickr keeps of it: tab, line feed, carriage return and DEL (XML's `Char`).
    static let stored = "a\t\n\r\u{7F}z"

    /// Whether `xml` is a well-formed document (FoundationXML's parser, libxml2's).
    static func wellFormed(_ xml: String) -> Bool {
        XMLParser(data: Data(xml.utf8)).parse()
    }

    @Test("every control character through each write that takes text: what XML cannot carry is dropped (tab, LF, CR kept), every answer well-formed")
    func everyWriteKeepsDocumentsWellFormed() async throws {
        try await withSandbox { server in
            let me = SandboxClient.writer(server)
            let text = Self.sent
            let up = try await UploadTests.upload(server, fields: [("title", text), ("description", text), ("tags", "\"\(text)\" plain")],
                                                  photoLength: 4, photoChunks: UploadTests.small([0xFF, 0xD8, 0xFF, 0xD9]))
            #expect(up.status == 200 && Self.wellFormed(up.body), "\(up.body)")
            let id = try #require(XMLProbe.texts(of: "photoid", in: up.body).first)
            let second = try #require(XMLProbe.texts(of: "photoid", in: try await UploadTests.upload(
                server, fields: [("title", "second")], photoLength: 4, photoChunks: UploadTests.small([0xFF, 0xD8, 0xFF, 0xD9])).body).first)
            // Every write that takes text, with the text in each of its text arguments.
            _ = try await me.ok("flickr.photos.addTags", [("photo_id", id), ("tags", "\"\(text) 2\"")])
            let created = try await me.ok("flickr.photosets.create", [("title", text), ("description", text), ("primary_photo_id", id)])
            let set = try #require(XMLProbe.attributes("id", of: "photoset", in: created).first)
            _ = try await me.ok("flickr.photosets.editMeta", [("photoset_id", set), ("title", text), ("description", text)])
            _ = try await me.ok("flickr.photos.comments.addComment", [("photo_id", id), ("comment_text", text)])
            _ = try await me.ok("flickr.photos.setMeta", [("photo_id", second), ("title", text), ("description", text)])
            _ = try await me.ok("flickr.photos.setTags", [("photo_id", second), ("tags", "\"\(text)\"")])
            // Every answer that shows the text: well-formed, as XML and as JSON.
            let reads: [(String, [(String, String)])] = [
                ("flickr.photos.getInfo", [("photo_id", id)]), ("flickr.photos.getInfo", [("photo_id", second)]),
                ("flickr.photos.search", [("user_id", "me"), ("extras", "description,tags,machine_tags")]),
                ("flickr.photosets.getList", []), ("flickr.photosets.getInfo", [("photoset_id", set)]),
                ("flickr.photosets.getPhotos", [("photoset_id", set), ("extras", "description,tags")]),
                ("flickr.photos.comments.getList", [("photo_id", id)]), ("flickr.tags.getListPhoto", [("photo_id", id)]),
                ("flickr.tags.getListUser", []), ("flickr.tags.getListUserRaw", []),
            ]
            for (method, params) in reads {
                let xml = try await me.ok(method, params, verb: "GET")
                #expect(Self.wellFormed(xml), "\(method) answered a malformed document:\n\(xml)")
                #expect(!xml.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" && $0 != "\n" && $0 != "\r" }, "\(method)")
                _ = try await me.json(method, params, verb: "GET")  // decodes
            }
            // What is stored: the text without what XML cannot carry.
            for photo in [id, second] {
                let info = try await me.json("flickr.photos.getInfo", [("photo_id", photo)], verb: "GET")
                let p = try #require(info["photo"] as? [String: Any])
                #expect((p["title"] as? [String: Any])?["_content"] as? String == Self.stored, "\(photo): \(p["title"] ?? "")")
                #expect((p["description"] as? [String: Any])?["_content"] as? String == Self.stored)
            }
            let sets = try await me.json("flickr.photosets.getInfo", [("photoset_id", set)], verb: "GET")
            #expect(((sets["photoset"] as? [String: Any])?["title"] as? [String: Any])?["_content"] as? String == Self.stored)
        }
    }
}
