import FlickrProtocol
import Foundation
import Testing
import FlickrTestSupport
@testable import FlickrSandbox

/// `--log FILE`: a JSON line per request, written as each is answered, with no secret in it.
@Suite("Access log", .timeLimit(.minutes(3)), .tags(.integration))
struct AccessLogTests {
    @Test func oneLinePerRequestWithoutSecrets() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-log-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        var configuration = SandboxConfiguration()
        configuration.logFile = file.path
        try await withSandbox(configuration) { server in
            let client = SandboxClient.writer(server)
            let mine = try await client.ok("flickr.photos.search", [("user_id", "me"), ("per_page", "1")], verb: "GET")
            let photo = try #require(XMLProbe.attributes("id", of: "photo", in: mine).first)
            _ = try await client.ok("flickr.photos.addTags", [("photo_id", photo), ("tags", "logged")])
            _ = try await client.call("flickr.photos.getInfo", [("photo_id", "1")], verb: "GET", json: true)
            _ = try await TestHTTP.get(server.url + "/static/none.jpg")
            await server.setFaults(try FaultSpec.parse("5xx=1"))
            _ = try await client.call("flickr.test.echo", verb: "GET")
            await server.setFaults(.none)

            let text = try String(contentsOf: file, encoding: .utf8)
            let lines = text.split(separator: "\n").map(String.init)
            #expect(lines.count == 5, "\(text)")
            let entries = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            for e in entries {
                for key in ["t", "http", "path", "method", "status", "stat", "code", "api_key", "photo_id", "ms"] {
                    #expect(e.keys.contains(key), "\(key) missing in \(e)")
                }
            }
            #expect(entries[0]["method"] as? String == "flickr.photos.search" && entries[0]["http"] as? String == "GET")
            #expect(entries[0]["stat"] as? String == "ok" && entries[0]["api_key"] as? String == server.credentials.apiKey)
            #expect(entries[1]["method"] as? String == "flickr.photos.addTags" && entries[1]["photo_id"] as? String == photo
                    && entries[1]["http"] as? String == "POST" && entries[1]["status"] as? Int == 200)
            #expect(entries[2]["stat"] as? String == "fail" && entries[2]["code"] as? Int == 1, "\(entries[2])")
            #expect(entries[3]["path"] as? String == "/static/none.jpg" && entries[3]["status"] as? Int == 404
                    && entries[3]["method"] is NSNull)
            #expect(entries[4]["status"] as? Int ?? 0 >= 500 && entries[4]["stat"] is NSNull)
            let c = server.credentials
            for secret in [c.apiSecret, c.oauthToken, c.oauthTokenSecret, "oauth_signature"] {
                #expect(!text.contains(secret), "the log holds \(secret)")
            }
        }
    }
}
