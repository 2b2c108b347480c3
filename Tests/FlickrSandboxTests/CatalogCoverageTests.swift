import FlickrProtocol
import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport

@Suite("Every catalog method answers", .timeLimit(.minutes(3)), .tags(.integration))
struct CatalogCoverageTests {
    /// Plausible values for required arguments, pointing at real objects where that matters.
    static func value(for argument: String, server: FlickrSandboxServer, photo: String, set: String) -> String {
        switch argument {
        case "photo_id", "primary_photo_id": return photo
        case "photo_ids": return photo
        case "user_id": return server.credentials.userNSID
        case "photoset_id": return set
        case "tags": return "alpha \"beta gamma\""
        case "url": return server.url + "/photos/bees/"
        case "method_name": return "flickr.test.echo"
        case "username": return server.credentials.username
        case "tickets": return "1"
        case "title", "description", "comment_text", "message", "note_text", "subject", "text": return "Hello"
        case "date": return "2020-01-01"
        case "lat": return "51.5"
        case "lon": return "-0.12"
        case "is_public", "is_friend", "is_family": return "1"
        default: return "1"
        }
    }

    /// The codes a failure of `method` may carry: its own errors, Flickr's global codes (95…116,
    /// listed once in the catalog), and 1 — the code live Flickr gives a missing or invalid object
    /// even where the documentation lists no error (recorded in Tests/Fixtures/real:
    /// galleries.getListForPhoto, photos.licenses.getLicenseHistory).
    static func acceptedCodes(_ method: FlickrMethod) -> Set<Int> {
        Set(method.errors.map(\.code)).union(method.globalErrors).union(MethodCatalog.shared.globalErrors.map(\.code)).union([1])
    }

    /// Why `xml` (format=rest) or `json` (format=json) is not a real answer of `method`, or nil
    /// when both are: HTTP 200 and a well-formed Flickr response whose stat is "ok", or "fail"
    /// with a code of ``acceptedCodes(_:)``. Each is judged alone: the JSON call comes second and
    /// may find the world changed by the first (a delete).
    static func problem(with method: FlickrMethod, xml: HTTPResult, json: HTTPResult) -> String? {
        let accepted = acceptedCodes(method)
        func judge(stat: String?, code: Int?, body: String, format: String) -> String? {
            switch stat {
            case "ok":
                return code == nil ? nil : "\(format): stat ok with an error code: \(body.prefix(200))"
            case "fail":
                guard let code else { return "\(format): stat fail without a code: \(body.prefix(200))" }
                return accepted.contains(code) ? nil
                    : "\(format): error \(code) is not one it may answer (\(accepted.sorted())): \(body.prefix(200))"
            default:
                return "\(format): no stat: \(body.prefix(200))"
            }
        }
        guard xml.status == 200 else { return "XML: HTTP \(xml.status)" }
        guard let tree = try? FlickrXML.parse(xml.bytes) else { return "XML that does not parse: \(xml.body.prefix(200))" }
        if let problem = judge(stat: tree["stat"]?.string, code: tree["err.code"]?.int, body: xml.body, format: "XML") {
            return problem
        }
        guard json.status == 200 else { return "JSON: HTTP \(json.status)" }
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any] else {
            return "JSON that does not parse: \(json.body.prefix(200))"
        }
        return judge(stat: object["stat"] as? String, code: object["code"] as? Int, body: json.body, format: "JSON")
    }

    @Test("No method answers 112, none crashes, XML and JSON both parse; methods without state answer their example")
    func everyMethod() async throws {
        try await withSandbox { server in
            let deleteToken = try await server.issueToken(username: nil, perms: .delete)
            let client = SandboxClient(server, token: deleteToken.token, tokenSecret: deleteToken.secret)
            let search = try await client.ok("flickr.photos.search", [("user_id", "me"), ("per_page", "2")])
            let photo = try #require(XMLProbe.attributes("id", of: "photo", in: search).last)
            let sets = try await client.ok("flickr.photosets.getList", [])
            let set = try #require(XMLProbe.attributes("id", of: "photoset", in: sets).first)
            var answered = 0
            for method in MethodCatalog.shared.methods {
                // OAuth carries oauth_token itself; the legacy auth methods get dummy tokens and
                // answer 98/108, which is right for them.
                let args = method.requiredArguments.filter { !$0.hasPrefix("oauth_") }.map { ($0, Self.value(for: $0, server: server, photo: photo, set: set)) }
                let xml = try await client.call(method.name, args)
                #expect(xml.status == 200, "\(method.name): HTTP \(xml.status)")
                #expect(xml.header("Content-Type") == "text/xml; charset=utf-8")
                #expect(xml.body.hasPrefix("<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat="), "\(method.name): \(xml.body.prefix(80))")
                #expect(XMLProbe.errorCode(xml.body) != 112, "\(method.name) answered 112")
                if !method.name.hasPrefix("flickr.auth.") {
                    #expect(XMLProbe.errorCode(xml.body).map { $0 < 95 } ?? true, "\(method.name): \(xml.body)")
                }
                if MethodCatalog.examples[method.name] != nil, !Self.stateful.contains(method.name) {
                    #expect(xml.body.contains("<rsp stat=\"ok\">"), "\(method.name): \(xml.body)")
                }
                let json = try await client.call(method.name, args, json: true)
                let object = try? JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any]
                #expect(object?["stat"] != nil, "\(method.name): JSON \(json.body.prefix(200))")
                #expect((object?["code"] as? Int) != 112)
                if let example = MethodCatalog.examples[method.name], example.contains("<"), !Self.stateful.contains(method.name) {
                    // The example's elements made it into the JSON (the example reader understood it).
                    #expect((object?.count ?? 0) >= 2, "\(method.name): JSON \(json.body.prefix(200))")
                }
                // Counted only when the sandbox gave a real answer.
                if let problem = Self.problem(with: method, xml: xml, json: json) {
                    Issue.record("\(method.name): \(problem)")
                } else {
                    answered += 1
                }
            }
            #expect(answered == MethodCatalog.shared.methods.count)
            #expect(answered >= 220)
        }
    }

    /// Methods whose answers come from the state (they may legitimately fail with a method error).
    static let stateful = Set(FlickrSandboxServer.modelledMethods).union(["flickr.auth.oauth.getAccessToken", "flickr.auth.getToken"])

    @Test("METHODS.md lists exactly the methods that answer their documented example")
    func exampleOnlyList() throws {
        let text = try String(contentsOf: Fixtures.repository.appendingPathComponent("Sources/FlickrSandbox/METHODS.md"), encoding: .utf8)
        let listed = text.split(separator: "\n").filter { $0.hasPrefix("- `") }.map { String($0.dropFirst(3).dropLast()) }
        let modelled = Set(FlickrSandboxServer.modelledMethods)
        let exampleOnly = MethodCatalog.shared.methods.map(\.name).filter { !modelled.contains($0) }.sorted()
        #expect(listed == exampleOnly)
        // Every write method is modelled.
        #expect(MethodCatalog.shared.methods.filter { $0.perms >= .write }.allSatisfy { modelled.contains($0.name) })
    }

    @Test("Unknown methods answer 112 in XML and JSON, as Flickr words it")
    func unknownMethod() async throws {
        try await withSandbox { server in
            let client = SandboxClient.writer(server)
            let xml = try await client.call("flickr.photos.doesNotExist", [], verb: "GET")
            #expect(xml.body == "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"fail\">\n\t<err code=\"112\" msg=\"Method &quot;flickr.photos.doesNotExist&quot; not found\" />\n</rsp>\n")
            let json = try await client.call("flickr.photos.doesNotExist", [], verb: "GET", json: true)
            #expect(json.body == #"{"stat":"fail","code":112,"message":"Method \"flickr.photos.doesNotExist\" not found"}"#)
        }
    }

    @Test("photos.licenses.getInfo answers today's list (ids 0–16, named CC BY 2.0 and so on) in Flickr's order, as the recorded live answer does, not the documented example of 2008; setLicense takes each of them")
    func licensesAsRecorded() async throws {
        let file = try #require(try Fixtures.files(in: "real/flickr-foundation-cassettes", suffix: "flickr.photos.licenses.getInfo.200.xml").first)
        let recorded = try Fixtures.string(file)
        try await withSandbox { server in
            let client = SandboxClient.writer(server)
            let served = try await client.call("flickr.photos.licenses.getInfo", [], verb: "GET").body
            for attribute in ["id", "name", "url"] {
                let (a, b) = (XMLProbe.attributes(attribute, of: "license", in: served), XMLProbe.attributes(attribute, of: "license", in: recorded))
                #expect(a == b && a.count == 17, "\(attribute): \(a) vs \(b)")
            }
        }
    }

    @Test("A documented example is served verbatim in XML and mapped to Flickr's JSON")
    func exampleShapes() async throws {
        try await withSandbox { server in
            let client = SandboxClient.writer(server)
            // The pandas are the same three on Flickr as in its documentation: the example is the data.
            let example = try #require(MethodCatalog.examples["flickr.panda.getList"])
            let xml = try await client.call("flickr.panda.getList", [], verb: "GET")
            #expect(xml.body == "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n" + example + "\n</rsp>\n")
            let json = try await client.json("flickr.panda.getList", [], verb: "GET")
            let pandas = try #require((json["pandas"] as? [String: Any])?["panda"] as? [[String: Any]])
            #expect(pandas.compactMap { $0["_content"] as? String } == ["ling ling", "hsing hsing", "wang wang"])
            #expect(json["stat"] as? String == "ok")
        }
    }
}
