import FlickrAPI
import FlickrProtocol
import FlickrSandbox
import FlickrTestSupport
import Foundation
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5)), .tags(.integration)) struct UploadTests {
    /// How many JPEGs were made: each gets its own random stream (so uploads differ), reproducibly.
    static let jpegCount = Mutex(0)

    /// A small valid JPEG (SOI, APP0, EOI) padded with `size` random bytes so each upload differs.
    static func jpeg(size: Int = 4096) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        var rng = TestRandom("jpeg #\(jpegCount.withLock { n in n += 1; return n })")
        bytes += (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return bytes + [0xFF, 0xD9]
    }

    static func writeTemp(_ bytes: [UInt8], name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    final class Progress: Sendable {
        let events = Mutex<[(Int64, Int64?)]>([])
        var callback: UploadProgress { { s, t in self.events.withLock { $0.append((s, t)) } } }
        var last: (Int64, Int64?)? { events.withLock { $0.last } }
        var monotonic: Bool { events.withLock { e in zip(e, e.dropFirst()).allSatisfy { $0.0 < $1.0 } } }
    }

    @Test func uploadFileWithProgressThenReplace() async throws {
        try await SandboxHarness.with { h in
            let photo = Self.jpeg(size: 3 << 20)
            let size = Int64(photo.count)
            let path = try Self.writeTemp(photo, name: "Black Cat.jpg")
            let progress = Progress()
            let result = try await h.client.upload(.file(path), arguments: ["title": "Cat é", "tags": TagString.join(["cat", "black cat"]), "is_public": "0"],
                                                   progress: progress.callback)
            let id = try #require(result.photoID)
            #expect(progress.monotonic)
            let last = try #require(progress.last)
            // The file's bytes are counted, not the form around them: from 0 to the file's size.
            #expect(progress.events.withLock { $0.first.map { $0.0 == 0 && $0.1 == size } } == true)
            #expect(last.0 == size && last.1 == size)
            let info = try await h.client.call("flickr.photos.getInfo", ["photo_id": id])
            #expect(info["photo.title"]?.text == "Cat é")
            #expect(info["photo.visibility.ispublic"]?.string == "0")
            let raws = Set((info["photo.tags.tag"]?.array ?? []).compactMap { $0["raw"]?.string })
            #expect(raws == ["cat", "black cat"])
            let oldSecret = info["photo.secret"]?.string
            // The original's bytes come back exactly.
            let original = try PhotoURL.source(info["photo"]!, size: .original, images: h.client.context.endpoints.images)
            let fetched = try await SandboxHarness.fetch(original)
            #expect(fetched.status == 200)

            let replacement = try Self.writeTemp(Self.jpeg(size: 1000), name: "cat2.jpg")
            let replaceProgress = Progress()
            let replaced = try await h.client.replace(photoID: id, with: .file(replacement), progress: replaceProgress.callback)
            #expect(replaced.photoID == id)
            #expect(replaced.secret != nil && replaced.secret != oldSecret)
            #expect(replaceProgress.last?.0 == replaceProgress.last?.1)
            let after = try await h.client.call("flickr.photos.getInfo", ["photo_id": id])
            #expect(after["photo.title"]?.text == "Cat é")
            #expect(after["photo.secret"]?.string == replaced.secret)
        }
    }

    @Test func uploadFromAStreamOfUnknownLength() async throws {
        try await SandboxHarness.with { h in
            let first = Self.jpeg(size: 10_000)
            let chunks = AsyncStream<[UInt8]> { c in
                c.yield(first)
                for _ in 0..<20 { c.yield(Array(repeating: 0x42, count: 65_536)) }
                c.finish()
            }
            let progress = Progress()
            let result = try await h.client.upload(.stream(chunks, length: nil, filename: "stream.jpg"), arguments: ["title": "streamed"],
                                                   progress: progress.callback)
            #expect(result.photoID != nil)
            #expect(progress.last?.1 == nil)
            #expect(progress.last?.0 == Int64(first.count + 20 * 65_536))
        }
    }

    @Test("Flickr's size limits: a photo over 200 MB is refused before a byte is sent when its length is known; of unknown length, the sandbox answers 8 Filesize was too large")
    func photosOverTheLimit() async throws {
        try await SandboxHarness.with { h in
            let megabyte = Array(repeating: UInt8(0x42), count: 1_048_576)
            let over = Int(UploadLimits.photoBytes / 1_048_576) + 1
            let known = AsyncStream<[UInt8]> { c in
                c.yield(Self.jpeg(size: 10_000))
                c.finish()
            }
            do {
                _ = try await h.client.upload(.stream(known, length: UploadLimits.photoBytes + 1, filename: "big.jpg"))
                Issue.record("a photo over the limit was taken")
            } catch let error as FlickrError {
                #expect(error.kind == .usage && error.message.contains("too large") && error.message.contains("200 MB"), "\(error)")
            }
            let unknown = AsyncStream<[UInt8]> { c in
                c.yield(Self.jpeg(size: 10_000))
                for _ in 0..<over { c.yield(megabyte) }
                c.finish()
            }
            do {
                _ = try await h.client.upload(.stream(unknown, length: nil, filename: "big.jpg"))
                Issue.record("the sandbox took a photo over 200 MB")
            } catch let error as FlickrError {
                #expect(error.kind == .api && error.code == 8 && error.message == "Filesize was too large", "\(error)")
            }
        }
    }

    @Test func asyncUploadGivesATicket() async throws {
        try await SandboxHarness.with { h in
            let result = try await h.client.upload(.bytes(Self.jpeg(), filename: "async.jpg"), async: true)
            let ticket = try #require(result.ticketID)
            #expect(result.photoID == nil)
            let tickets = try await h.client.waitForTickets([ticket, "no-such-ticket"], pollInterval: 0.1, timeout: 20)
            #expect(tickets[0].status == .complete)
            let photoID = try #require(tickets[0].photoID)
            #expect(tickets[1].status == .invalid)
            let info = try await h.client.call("flickr.photos.getInfo", ["photo_id": photoID])
            #expect(info["photo.id"]?.string == photoID)
        }
    }

    @Test func duplicateCarriesThePhotoID() async throws {
        try await SandboxHarness.with { h in
            let bytes = Self.jpeg()
            let first = try await h.client.upload(.bytes(bytes, filename: "dup.jpg"), arguments: ["dedup_check": "1"])
            do {
                _ = try await h.client.upload(.bytes(bytes, filename: "dup.jpg"), arguments: ["dedup_check": "1"])
                Issue.record("duplicate accepted")
            } catch let error as FlickrError {
                #expect(error.kind == .api && error.code == 9)
                #expect(error.duplicatePhotoID == first.photoID)
            }
        }
    }

    @Test func unreadableFileIsAUsageError() async throws {
        try await SandboxHarness.with { h in
            do {
                _ = try await h.client.upload(.file("/nonexistent/cat.jpg"))
                Issue.record("uploaded a missing file")
            } catch let error as FlickrError {
                #expect(error.kind == .usage && error.message.contains("/nonexistent/cat.jpg"))
            }
        }
    }

    @Test func uploadWithoutTokenNamesTheFix() async throws {
        try await SandboxHarness.with(token: false) { h in
            do {
                _ = try await h.client.upload(.bytes(Self.jpeg(), filename: "x.jpg"))
                Issue.record("uploaded without a token")
            } catch let error as FlickrError {
                // The command line's advice in `description`, a Swift program's in `localizedDescription`.
                #expect(error.kind == .usage && error.message.contains("OAuth token") && error.description.contains("flickr login"),
                        "\(error)")
                #expect(error.localizedDescription.contains("FlickrContext(") && !error.localizedDescription.contains("flickr login"),
                        "\(error.localizedDescription)")
            }
        }
    }
}
