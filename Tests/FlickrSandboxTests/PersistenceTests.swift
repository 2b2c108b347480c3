import FlickrProtocol
import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport

@Suite("Seed files and --state persistence", .timeLimit(.minutes(3)), .tags(.integration))
struct PersistenceTests {
    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static let seed = """
        {
          "app": {"api_key": "0123456789abcdef0123456789abcdef", "api_secret": "fedcba9876543210"},
          "default_user": "alice",
          "users": [
            {"nsid": "10000001@N01", "username": "alice", "realname": "Alice Archer", "path_alias": "alice"},
            {"username": "bob"}
          ],
          "photos": [
            {"id": "5000000001", "owner": "alice", "title": "Tram 28", "tags": "lisbon tram \\"old town\\" camera:make=Fujifilm",
             "date_taken": "2019-05-01 10:00:00", "width": 800, "height": 600},
            {"id": "5000000002", "owner": "alice", "title": "Private", "is_public": 0},
            {"owner": "bob", "title": "Bob's", "tags": ["Raw Tag", "x"]}
          ],
          "photosets": [{"owner": "alice", "title": "Lisbon", "photos": ["5000000001", "5000000002"]}],
          "favorites": [{"user": "bob", "photo": "5000000001"}],
          "tokens": [{"token": "72157600000000001-0123456789abcdef", "secret": "0123456789abcdef", "user": "bob", "perms": "read"}]
        }
        """

    @Test("A seed file defines the world, the app and extra tokens")
    func seedFile() async throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("seed.json")
        try Data(Self.seed.utf8).write(to: file)
        try await withSandbox(SandboxConfiguration(dataFile: file.path)) { server in
            #expect(server.credentials.apiKey == "0123456789abcdef0123456789abcdef")
            #expect(server.credentials.username == "alice" && server.credentials.userNSID == "10000001@N01")
            let me = SandboxClient.writer(server)
            let info = try await me.ok("flickr.photos.getInfo", [("photo_id", "5000000001")], verb: "GET")
            #expect(XMLProbe.attributes("raw", of: "tag", in: info) == ["lisbon", "tram", "old town", "camera:make=Fujifilm"])
            #expect(XMLProbe.attributes("taken", of: "dates", in: info) == ["2019-05-01 10:00:00"])
            let bob = SandboxClient(server, token: "72157600000000001-0123456789abcdef", tokenSecret: "0123456789abcdef")
            let faves = try await bob.ok("flickr.favorites.getList", [], verb: "GET")
            #expect(XMLProbe.attributes("id", of: "photo", in: faves) == ["5000000001"])
            let hidden = try await bob.call("flickr.photos.getInfo", [("photo_id", "5000000002")], verb: "GET")
            #expect(hidden.body.contains("<err code=\"1\" msg=\"Photo &quot;5000000002&quot; not found (invalid ID)\" />"))
            let sets = try await me.ok("flickr.photosets.getList", [], verb: "GET")
            #expect(XMLProbe.texts(of: "title", in: sets) == ["Lisbon"])
        }
    }

    @Test("Bad seed files are refused with a message naming the problem")
    func badSeeds() async throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(String, String)] = [
            ("{}", "users"),
            (#"{"users": []}"#, "at least one user"),
            (#"{"users": [{"username": "a"}], "photos": [{"owner": "zed"}]}"#, "photos[0].owner: unknown user \"zed\""),
            (#"{"users": [{"username": "a"}], "photos": [{"owner": "a", "tags": 5}]}"#, "photos"),
            ("not json", "seed format"),
        ]
        for (i, (text, fragment)) in cases.enumerated() {
            let file = dir.appendingPathComponent("bad\(i).json")
            try Data(text.utf8).write(to: file)
            do {
                try await SandboxWorld.with(SandboxConfiguration(dataFile: file.path)) { _ in }
                Issue.record("seed \(i) was accepted")
            } catch let error as SandboxError {
                #expect(error.message.contains(fragment), "\(error.message)")
            }
        }
        await #expect(throws: SandboxError.self) {
            try await SandboxWorld.with(SandboxConfiguration(dataFile: dir.appendingPathComponent("missing.json").path)) { _ in }
        }
    }

    @Test("--state DIR keeps tags, sets, favourites, uploads and tokens across a restart, written atomically")
    func stateAcrossRestart() async throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = SandboxConfiguration(stateDirectory: dir.path)
        let (credentials, photo, set, uploaded, originalSecret) = try await withSandbox(config) { server in
            let me = SandboxClient.writer(server)
            let search = try await me.ok("flickr.photos.search", [("user_id", "me"), ("per_page", "1")])
            let photo = try #require(XMLProbe.attributes("id", of: "photo", in: search).first)
            _ = try await me.ok("flickr.photos.setTags", [("photo_id", photo), ("tags", #"persisted "across restarts""#)])
            let created = try await me.ok("flickr.photosets.create", [("title", "Kept"), ("primary_photo_id", photo)])
            let set = try #require(XMLProbe.attributes("id", of: "photoset", in: created).first)
            let jpeg = UploadTests.jpegHead(width: 4, height: 3) + [7, 7, 0xFF, 0xD9]
            let up = try await UploadTests.upload(server, fields: [("title", "Stored")], photoLength: jpeg.count, photoChunks: UploadTests.small(jpeg))
            let uploaded = try #require(XMLProbe.texts(of: "photoid", in: up.body).first)
            let osecret = try #require(XMLProbe.attributes("originalsecret", of: "photoid", in: up.body).first)
            return (server.credentials, photo, set, uploaded, osecret)
        }
        let stateFile = dir.appendingPathComponent("state.sqlite")
        #expect(FileManager.default.fileExists(atPath: stateFile.path))
        try await withSandbox(config) { server in
            #expect(server.credentials == credentials)
            let me = SandboxClient.writer(server)
            let tags = try await me.ok("flickr.tags.getListPhoto", [("photo_id", photo)], verb: "GET")
            #expect(XMLProbe.attributes("raw", of: "tag", in: tags) == ["persisted", "across restarts"])
            let info = try await me.ok("flickr.photosets.getInfo", [("photoset_id", set)], verb: "GET")
            #expect(XMLProbe.texts(of: "title", in: info) == ["Kept"])
            let original = try await TestHTTP.get(server.url + "/static/65535/\(uploaded)_\(originalSecret)_o.jpg")
            #expect(original.bytes == UploadTests.jpegHead(width: 4, height: 3) + [7, 7, 0xFF, 0xD9])
        }
    }

    @Test("A corrupt state database is refused, not overwritten")
    func corruptState() async throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("state.sqlite")
        let garbage = Data(("not a database " + String(repeating: "x", count: 200)).utf8)
        try garbage.write(to: file)
        await #expect(throws: SandboxError.self) { try await SandboxWorld.with(SandboxConfiguration(stateDirectory: dir.path)) { _ in } }
        #expect(try Data(contentsOf: file) == garbage)
    }
}
