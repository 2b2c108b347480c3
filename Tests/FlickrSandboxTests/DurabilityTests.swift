import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Synchronization
import Testing

/// `--state` keeps every answered write through `kill -9`, and concurrent writers lose nothing.
@Suite("Durable state: kill -9, concurrent writers", .timeLimit(.minutes(3)), .tags(.command))
struct DurabilityTests {
    /// Starts `flickr-sandbox --state DIR` and returns it with a client of its default user.
    static func start(_ dir: URL) async throws -> (InteractiveProcess, SandboxClient) {
        let sandbox = try InteractiveProcess(try Products.executable("flickr-sandbox"), ["--port", "0", "--state", dir.path],
                                             environment: ProcessInfo.processInfo.environment)
        guard await sandbox.waitForLine(timeout: 120, { $0 == "ready" }) != nil else {
            sandbox.process.terminate()
            throw TestFailure("flickr-sandbox did not start: \(sandbox.stderr)")
        }
        var values: [String: String] = [:]
        for line in sandbox.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        let credentials = SandboxCredentials(apiKey: values["api_key"] ?? "", apiSecret: values["api_secret"] ?? "",
                                             oauthToken: values["oauth_token"] ?? "", oauthTokenSecret: values["oauth_token_secret"] ?? "",
                                             userNSID: values["user_nsid"] ?? "", username: values["username"] ?? "")
        return (sandbox, SandboxClient(url: values["url"] ?? "", credentials: credentials))
    }

    static func tags(_ client: SandboxClient, _ photo: String) async throws -> Set<String> {
        Set(XMLProbe.attributes("raw", of: "tag", in: try await client.ok("flickr.photos.getInfo", [("photo_id", photo)], verb: "GET")))
    }

    @Test("kill -9 while 8 clients write: after a restart every answered write is there")
    func killNine() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (sandbox, client) = try await Self.start(dir)
        defer { if sandbox.process.isRunning { sandbox.process.terminate() } }
        let list = try await client.ok("flickr.people.getPhotos", [("user_id", "me"), ("per_page", "8")], verb: "GET")
        let photos = XMLProbe.attributes("id", of: "photo", in: list)
        try #require(photos.count == 8)
        // Each writer clears its photo, then adds one tag per call until the server dies.
        for p in photos { _ = try await client.ok("flickr.photos.setTags", [("photo_id", p), ("tags", "")]) }
        let answered = Answered()
        let pid = sandbox.process.processIdentifier
        await withTaskGroup(of: Void.self) { group in
            for (w, photo) in photos.enumerated() {
                group.addTask {
                    for n in 0..<70 {
                        let tag = "w\(w)n\(n)"
                        guard let r = try? await client.call("flickr.photos.addTags", [("photo_id", photo), ("tags", tag)]),
                              r.body.contains("stat=\"ok\"") else { return }
                        // The 150th answer pulls the plug while the other writers are mid-call.
                        if answered.record(tag, on: photo) == 150 { kill(pid, SIGKILL) }
                    }
                }
            }
        }
        _ = await sandbox.wait(timeout: 60)
        let written = answered.all
        #expect(written.values.map(\.count).reduce(0, +) >= 150)
        let (again, client2) = try await Self.start(dir)
        defer { again.process.terminate() }
        for photo in photos {
            let present = try await Self.tags(client2, photo)
            let missing = (written[photo] ?? []).filter { !present.contains($0) }
            #expect(missing.isEmpty, "photo \(photo) lost \(missing)")
        }
        again.process.terminate()
        _ = await again.wait(timeout: 60)
    }

    @Test("16 concurrent writers on one photo and one set lose no update, in memory and on disk")
    func concurrentWriters() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-16-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let configuration = SandboxConfiguration(stateDirectory: dir.path)
        let photo = try await withSandbox(configuration) { server in
            let me = SandboxClient.writer(server)
            let list = try await me.ok("flickr.people.getPhotos", [("user_id", "me"), ("per_page", "1")], verb: "GET")
            let photo = try #require(XMLProbe.attributes("id", of: "photo", in: list).first)
            _ = try await me.ok("flickr.photos.setTags", [("photo_id", photo), ("tags", "")])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for w in 0..<16 {
                    group.addTask {
                        for n in 0..<4 { _ = try await me.ok("flickr.photos.addTags", [("photo_id", photo), ("tags", "c\(w)x\(n)")]) }
                        for n in 0..<5 {
                            _ = try await me.ok("flickr.photos.comments.addComment", [("photo_id", photo), ("comment_text", "c\(w)x\(n)")])
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await Self.tags(me, photo).count == 64)
            return photo
        }
        try await withSandbox(configuration) { server in
            let me = SandboxClient.writer(server)
            #expect(try await Self.tags(me, photo).count == 64)
            let comments = try await me.ok("flickr.photos.comments.getList", [("photo_id", photo)], verb: "GET")
            #expect(Set(XMLProbe.texts(of: "comment", in: comments)).count == 80)
        }
    }
}

/// The writes a server answered as done, by photo.
final class Answered: Sendable {
    private let tags = Mutex<[String: [String]]>([:])

    /// Records one answered tag; returns how many have been recorded in all.
    func record(_ tag: String, on photo: String) -> Int {
        tags.withLock {
            $0[photo, default: []].append(tag)
            return $0.values.map(\.count).reduce(0, +)
        }
    }

    var all: [String: [String]] { tags.withLock { $0 } }
}
