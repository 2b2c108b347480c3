import FlickrAPI
import FlickrProtocol
import FlickrSandbox
import Foundation
import Synchronization
import Testing
import FlickrTestSupport

/// Sends over HTTP to the sandbox (``FlickrNetworkTransport``) and keeps each request's
/// parameters, so that a test sees what a typed call put on the wire.
final class ParameterRecorder: FlickrTransport {
    private let inner = FlickrNetworkTransport()
    private let sent = Mutex<[(service: String, parameters: [(String, String)])]>([])

    func send(_ request: FlickrTransportRequest) async throws(FlickrError) -> FlickrTransportResponse {
        sent.withLock { $0.append((request.service, request.parameters)) }
        return try await inner.send(request)
    }

    /// The arguments of the last request for `method` (one value per name, the last one).
    func last(_ method: String) -> [String: String] {
        let found = sent.withLock { $0.last { $0.service == method }?.parameters } ?? []
        return Dictionary(found, uniquingKeysWith: { $1 })
    }
}

/// Typed calls (`client.photos.search(userID:tags:perPage:)`, generated from the catalog)
/// against the in-process sandbox over loopback: what each puts on the wire and what comes back.
@Suite(.timeLimit(.minutes(5)), .tags(.integration)) struct TypedCallTests {
    /// A client on the harness's context whose requests are recorded.
    func recordingClient(_ h: SandboxHarness) -> (FlickrClient, ParameterRecorder) {
        let recorder = ParameterRecorder()
        return (FlickrClient(context: h.client.context, transport: recorder), recorder)
    }

    @Test func searchSendsNumbersListsAndDatesInEachArgumentsUnit() async throws {
        try await SandboxHarness.with { h in
            let (client, sent) = recordingClient(h)
            let uploaded = Date(timeIntervalSince1970: 1_000_000_000)   // 2001-09-09 01:46:40 UTC
            let taken = Date(timeIntervalSince1970: 946_684_800)        // 2000-01-01 00:00:00 UTC
            let rsp = try await client.photos.search(userID: "me", tags: ["kyoto", "night"], tagMode: "any",
                                                     minUploadDate: uploaded, minTakenDate: taken,
                                                     extras: ["tags", "date_upload"], perPage: 5, page: 1)
            let args = sent.last("flickr.photos.search")
            #expect(args["per_page"] == "5" && args["page"] == "1")
            #expect(args["tags"] == "kyoto,night" && args["extras"] == "tags,date_upload")
            #expect(args["min_upload_date"] == "1000000000")
            #expect(args["min_taken_date"] == "2000-01-01 00:00:00")
            #expect(args["user_id"] == "me" && args["tag_mode"] == "any")
            #expect(args["max_upload_date"] == nil, "an argument left nil is not sent")
            #expect(rsp["photos.perpage"]?.int == 5)
            // The typed call and the string form send the same request and get the same answer.
            let plain = try await client.call("flickr.photos.search", ["user_id": "me", "per_page": "3", "extras": "date_upload"])
            let typed = try await client.photos.search(userID: "me", extras: ["date_upload"], perPage: 3)
            #expect(plain == typed)
            #expect(typed["photos.photo"]?.array.count == 3)
        }
    }

    @Test func writesSendFlagsDatesAndATagString() async throws {
        try await SandboxHarness.with { h in
            let (client, sent) = recordingClient(h)
            let first = try await client.photos.search(userID: "me", perPage: 1)
            let id = try #require(first["photos.photo.0.id"]?.string)

            // Tags to set: one tag string, a tag with a space quoted.
            _ = try await client.photos.setTags(photoID: id, tags: ["central station", "amsterdam"])
            #expect(sent.last("flickr.photos.setTags")["tags"] == "\"central station\" amsterdam")
            _ = try await client.photos.addTags(photoID: id, tags: ["night walk"])
            #expect(sent.last("flickr.photos.addTags")["tags"] == "\"night walk\"")

            // Flags as 1/0.
            _ = try await client.photos.setPerms(photoID: id, isPublic: false, isFriend: true, isFamily: false,
                                                 permComment: 3, permAddmeta: 2)
            let perms = sent.last("flickr.photos.setPerms")
            #expect(perms["is_public"] == "0" && perms["is_friend"] == "1" && perms["is_family"] == "0")
            #expect(perms["perm_comment"] == "3" && perms["perm_addmeta"] == "2")

            // Dates: posted as a Unix timestamp, taken as a MySQL datetime.
            let posted = Date(timeIntervalSince1970: 1_500_000_000)
            let takenAt = Date(timeIntervalSince1970: 1_400_000_000)   // 2014-05-13 16:53:20 UTC
            _ = try await client.photos.setDates(photoID: id, datePosted: posted, dateTaken: takenAt)
            let dates = sent.last("flickr.photos.setDates")
            #expect(dates["date_posted"] == "1500000000" && dates["date_taken"] == "2014-05-13 16:53:20")

            let comment = try await client.photos.comments.addComment(photoID: id, commentText: "Lovely light")
            #expect(sent.last("flickr.photos.comments.addComment")["comment_text"] == "Lovely light")
            #expect(comment["comment.id"]?.string?.isEmpty == false)

            // What the sandbox stored, read back with the typed accessors.
            let info = try await client.photos.getInfo(photoID: id)
            let raws = info["photo.tags.tag"]?.array.compactMap { $0["raw"]?.string } ?? []
            #expect(Set(raws) == ["central station", "amsterdam", "night walk"])
            #expect(info["photo.visibility.ispublic"]?.bool == false && info["photo.visibility.isfriend"]?.bool == true)
            #expect(info["photo.dates.posted"]?.date == posted)
            #expect(info["photo.dates.taken"]?.date == takenAt)
            #expect(info["photo.comments"]?.int == 1)
        }
    }

    @Test func echoAndTheContextsToken() async throws {
        try await SandboxHarness.with { h in
            let (client, sent) = recordingClient(h)
            let echo = try await client.test.echo(["greeting": "hello", "n": "5"])
            #expect(echo["greeting"]?.string == "hello" && echo["n"]?.int == 5)
            #expect(echo["method"]?.string == "flickr.test.echo")
            // checkToken takes no label: the token checked is the context's.
            let check = try await client.auth.oauth.checkToken()
            #expect(sent.last("flickr.auth.oauth.checkToken")["oauth_token"] == h.server.credentials.oauthToken)
            #expect(check["oauth.user.nsid"]?.string == h.server.credentials.userNSID)
            // Typed calls throw FlickrError as `call` does.
            do throws(FlickrError) {
                _ = try await client.photos.getInfo(photoID: "1")
                Issue.record("a missing photo answered")
            } catch {
                #expect(error.kind == .api && error.code == 1 && error.method == "flickr.photos.getInfo")
            }
        }
    }

    struct Photo: Decodable, Equatable {
        let id: String
        let owner: String
        let title: String
        let ispublic: Bool
        let dateupload: Date
    }

    struct Page: Decodable, Equatable {
        let page: Int
        let perpage: Int
        let total: Int
        let photo: [Photo]
    }

    @Test func answersDecodeAlikeFromXMLAndJSON() async throws {
        let xml = try await SandboxHarness.with(format: .xml) { h in
            try await h.client.photos.search(userID: "me", extras: ["date_upload"], perPage: 4)
        }
        let json = try await SandboxHarness.with(format: .json) { h in
            try await h.client.photos.search(userID: "me", extras: ["date_upload"], perPage: 4)
        }
        let fromXML = try FlickrNodeDecoder().decode(Page.self, from: try #require(xml["photos"]))
        let fromJSON = try FlickrNodeDecoder().decode(Page.self, from: try #require(json["photos"]))
        #expect(fromXML.photo.count == 4 && fromXML.perpage == 4)
        #expect(fromXML.photo.allSatisfy { $0.dateupload > Date(timeIntervalSince1970: 0) })
        // Two sandboxes seeded alike: the same photos either way.
        #expect(fromXML.photo.map(\.id) == fromJSON.photo.map(\.id))
        #expect(fromXML.photo.map(\.title) == fromJSON.photo.map(\.title))
        #expect(fromXML.total == fromJSON.total)
    }
}
