import FlickrAPI
import FlickrAPITesting
import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Testing

/// The FlickrAPITesting product as a Swift user takes it: a client served by the in-process
/// sandbox (SandboxTransport), its exchanges recorded (RecordingTransport), then the same code
/// answered from the cassette with the sandbox stopped (ReplayTransport).
@Suite(.timeLimit(.minutes(3)), .tags(.integration))
struct CassetteTransportTests {
    /// What the code under test does with a client: several calls, an upload, an error answer.
    static func exercise(_ flickr: FlickrClient, photo: [UInt8]) async throws -> [String] {
        var seen: [String] = []
        let echo = try await flickr.call("flickr.test.echo", ["greeting": "hello"])
        seen.append("echo " + (echo["greeting"]?.text ?? "-"))
        let found = try await flickr.call("flickr.photos.search", ["user_id": "me", "per_page": "2"])
        seen.append("search " + (found["photos.photo"]?.array.compactMap { $0["id"]?.string }.joined(separator: ",") ?? "-"))
        let uploaded = try await flickr.upload(.bytes(photo, filename: "cat.jpg"), arguments: ["title": "A cat"])
        let id = uploaded.photoID ?? "-"
        seen.append("uploaded " + id)
        do {
            _ = try await flickr.call("flickr.photos.getInfo", ["photo_id": "1"])
            seen.append("no error")
        } catch {
            seen.append("error \(error.kind.rawValue) \(error.code ?? 0)")
        }
        let info = try await flickr.call("flickr.photos.getInfo", ["photo_id": id])
        seen.append("title " + (info["photo.title"]?.text ?? "-"))
        return seen
    }

    static func jpeg() -> [UInt8] {
        var rng = TestRandom("cassette transport jpeg")
        return [0xFF, 0xD8, 0xFF, 0xE0] + (0..<5000).map { _ in UInt8.random(in: 0...255, using: &rng) } + [0xFF, 0xD9]
    }

    @Test func recordAgainstTheSandboxThenReplayOffline() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-cassette-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("exercise.cassette").path
        let photo = Self.jpeg()

        let sandbox = try await SandboxTransport.start()
        let recorder = try RecordingTransport(path: path, endpoint: sandbox.url, through: sandbox)
        let live: [String]
        do {
            live = try await Self.exercise(sandbox.makeClient(through: recorder), photo: photo)
            try await sandbox.stop()
        } catch {
            try? await sandbox.stop()
            throw error
        }
        #expect(live.count == 5 && live[0] == "echo hello" && live[3] == "error api 1" && live[4] == "title A cat", "\(live)")
        #expect(recorder.count == 5)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let c = sandbox.server.credentials
        for secret in [c.apiKey, c.apiSecret, c.oauthToken, c.oauthTokenSecret] { #expect(!text.contains(secret)) }
        #expect(text.contains("file: cat.jpg image/jpeg \(photo.count) sha256:\(Cassette.sha256(photo))\n"))

        // The same code, offline: same results, every exchange played, nothing missed.
        let replay = try ReplayTransport(path: path)
        #expect(replay.cassette.endpoint == sandbox.url)
        let replayed = try await Self.exercise(replay.makeClient(), photo: photo)
        #expect(replayed == live)
        #expect(replay.misses.isEmpty && replay.unplayed.isEmpty)

        // A request the cassette lacks: a usage error naming it and the nearest recorded one.
        let error = await #expect(throws: FlickrError.self) {
            _ = try await replay.makeClient().call("flickr.photos.search", ["user_id": "me", "per_page": "3"])
        }
        #expect(error?.kind == .usage)
        #expect(error?.message.contains("has no request flickr.photos.search {per_page=3, user_id=me}; the nearest recorded is "
                                        + "#2 flickr.photos.search {per_page=2, user_id=me} (per_page is \"3\" here, \"2\" recorded)") == true,
                "\(error?.message ?? "")")
        // Recorded once, asked twice: the second is a miss too.
        let once = ReplayTransport(replay.cassette, path: "exercise.cassette")
        let client = once.makeClient()
        _ = try await client.call("flickr.test.echo", ["greeting": "hello"])
        let again = await #expect(throws: FlickrError.self) { _ = try await client.call("flickr.test.echo", ["greeting": "hello"]) }
        #expect(again?.message.contains("was recorded 1 time in exercise.cassette, and this is request 2 of it") == true)
        #expect(once.misses.count == 1)
    }

    /// docs/CASSETTES.md's example, as written there (its cassette in a temporary folder).
    static func latestTitles(_ flickr: FlickrClient) async throws -> [String] {
        let rsp = try await flickr.call("flickr.photos.search", ["user_id": "me", "per_page": "3"])
        return rsp["photos.photo"]?.array.compactMap { $0["title"]?.string } ?? []
    }

    @Test func theDocumentedExample() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-cassette-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("latest.cassette").path

        let sandbox = try await SandboxTransport.start()
        let recorder = try RecordingTransport(path: path, endpoint: sandbox.url, through: sandbox)
        let titles = try await Self.latestTitles(sandbox.makeClient(through: recorder))
        try await sandbox.stop()
        #expect(titles.count == 3)

        let replay = try ReplayTransport(path: path)
        let offline = try await Self.latestTitles(replay.makeClient())
        #expect(offline == titles)
        #expect(replay.misses.isEmpty)
    }

    @Test func textFormRoundTrips() throws {
        let cassette = Cassette(endpoint: "http://127.0.0.1:8080", exchanges: [
            .init(request: .init(service: "flickr.photos.setMeta", httpMethod: "POST", path: "/services/rest/",
                                 arguments: [.init("title", " padded "), .init("description", "a\nb\t\"c\"\u{1}"), .init("photo_id", "7")]),
                  outcome: .answer(.init(status: 200, headers: [.init("Content-Type", "text/xml")], body: Array("<rsp stat=\"ok\"/>".utf8)))),
            .init(request: .init(service: "upload", httpMethod: "POST", path: "/services/upload/",
                                 file: .init(filename: "my cat.jpg", mimeType: "image/jpeg", size: 3, sha256: "ab")),
                  outcome: .answer(.init(status: 200, body: Array("line\n\n| not a prefix\n".utf8)))),
            .init(request: .init(service: "download", arguments: [.init("url", "http://127.0.0.1:8080/static/1.jpg")]),
                  outcome: .answer(.init(status: 200, body: (0..<200).map { UInt8($0) }))),
            .init(request: .init(service: "flickr.test.null"), outcome: .answer(.init(status: 500, body: []))),
            .init(request: .init(service: "flickr.test.echo"),
                  outcome: .failure(kind: "network", message: "connection refused", unreachable: true, requestNotSent: false)),
        ])
        let text = cassette.text
        #expect(text.hasPrefix(Cassette.versionLine + "\n"))
        #expect(text.contains("arg: description=\"a\\nb\\t\\\"c\\\"\\u0001\"\narg: photo_id=7\narg: title=\" padded \"\n"))
        #expect(text.contains("file: \"my cat.jpg\" image/jpeg 3 sha256:ab\n"))
        #expect(text.contains("body: text\n| line\n|\n| | not a prefix\n|\n"))
        #expect(text.contains("body: base64 200 sha256:\(Cassette.sha256((0..<200).map { UInt8($0) }))\n"))
        #expect(text.contains("error: network, unreachable: connection refused\n"))
        #expect(try Cassette.parse(text) == cassette)
        // A body that is changed by hand without its digest is caught.
        let tampered = text.replacingOccurrences(of: "| AAECAwQF", with: "| AAECAwQA")
        #expect(throws: Cassette.FormatError.self) { try Cassette.parse(tampered) }
    }
}
