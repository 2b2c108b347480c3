import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Synchronization
import Testing

/// `--state` keeps every answered write through `kill -9`, and concurrent writers lose nothing.
@Suite("Durable state: kill -9, concurrent writers", .timeLimit(.minutes(3)), .tags(.command))
struct DurabilityTests {
    /// A client of the sandbox's default user.
    static func client(_ sandbox: SandboxWorld) -> SandboxClient {
        SandboxClient(url: sandbox.url, credentials: sandbox.credentials)
    }

    static func tags(_ client: SandboxClient, _ photo: String) async throws -> Set<String> {
        Set(XMLProbe.attributes("raw", of: "tag", in: try await client.ok("flickr.photos.getInfo", [("photo_id", photo)], verb: "GET")))
    }

    @Test("kill -9 while 8 clients write: after a restart every answered write is there")
    func killNine() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let answered = Answered()
        let photoIDs = try await SandboxWorld.withProcess(["--state", dir.path]) { sandbox in
            let client = Self.client(sandbox)
            let process = try #require(sandbox.process).process
            let list = try await client.ok("flickr.people.getPhotos", [("user_id", "me"), ("per_page", "8")], verb: "GET")
            let photos = XMLProbe.attributes("id", of: "photo", in: list)
            try #require(photos.count == 8)
            // Each writer clears its photo, then adds one tag per call until the server dies.
            for p in photos { _ = try await client.ok("flickr.photos.setTags", [("photo_id", p), ("tags", "")]) }
            let pid = process.process.processIdentifier
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
            _ = await process.wait(timeout: 60)
            return photos
        }
        let written = answered.all
        #expect(written.values.map(\.count).reduce(0, +) >= 150)
        try await SandboxWorld.withProcess(["--state", dir.path]) { again in
            let client2 = Self.client(again)
            for photo in photoIDs {
                let present = try await Self.tags(client2, photo)
                let missing = (written[photo] ?? []).filter { !present.contains($0) }
                #expect(missing.isEmpty, "photo \(photo) lost \(missing)")
            }
            let process = try #require(again.process).process
            process.process.terminate()
            _ = await process.wait(timeout: 60)
        }
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
