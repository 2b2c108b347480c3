import FlickrAPI
import FlickrProtocol
import FlickrSandbox
import Foundation
import Synchronization
import Testing
import FlickrTestSupport

/// `FlickrClient.download` / `downloadPhoto` against the sandbox's image host: the bytes of an
/// uploaded original come back exactly, a file of the same size is skipped, nothing half-written
/// is ever left under the final name, and the image host's failures are retried or reported.
@Suite(.timeLimit(.minutes(2)), .tags(.integration))
struct DownloadTests {
    static func directory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }

    /// Uploads a random JPEG of `size` bytes; returns its id and bytes.
    static func upload(_ h: SandboxHarness, size: Int) async throws -> (String, [UInt8]) {
        let bytes = UploadTests.jpeg(size: size)
        let path = try UploadTests.writeTemp(bytes, name: "photo.jpg")
        let id = try #require(try await h.client.upload(.file(path)).photoID)
        return (id, bytes)
    }

    final class Events: Sendable {
        let list = Mutex<[(Int64, Int64?)]>([])
        var callback: DownloadProgress { { done, total in self.list.withLock { $0.append((done, total)) } } }
    }

    @Test func originalComesBackExactlyThenIsSkipped() async throws {
        try await SandboxHarness.with { h in
            let (id, bytes) = try await Self.upload(h, size: 600_000)
            let dir = try Self.directory()
            let events = Events()
            let first = try await h.client.downloadPhoto(id: id, directory: dir, progress: events.callback)
            #expect(first.source.size == .original && !first.outcome.skipped)
            #expect(first.outcome.path == dir + "/\(id)_o.jpg")
            #expect(try Data(contentsOf: URL(fileURLWithPath: first.outcome.path)) == Data(bytes))
            #expect(!FileManager.default.fileExists(atPath: first.outcome.path + ".part"))
            let seen = events.list.withLock { $0 }
            #expect(seen.last?.0 == Int64(bytes.count) && seen.last?.1 == Int64(bytes.count))
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.0 <= $1.0 })
            // Same size already there: skipped, untouched.
            let again = try await h.client.downloadPhoto(id: id, directory: dir)
            #expect(again.outcome.skipped && again.outcome.bytes == Int64(bytes.count))
            // A file of another size is replaced.
            try Data("stale".utf8).write(to: URL(fileURLWithPath: first.outcome.path))
            let replaced = try await h.client.downloadPhoto(id: id, directory: dir)
            #expect(!replaced.outcome.skipped)
            #expect(try Data(contentsOf: URL(fileURLWithPath: first.outcome.path)) == Data(bytes))
        }
    }

    @Test func sizesFromGetSizesOrFromExtras() async throws {
        try await SandboxHarness.with { h in
            let (id, _) = try await Self.upload(h, size: 10_000)
            let dir = try Self.directory()
            let square = try await h.client.downloadPhoto(id: id, size: .square150, directory: dir)
            #expect(square.source.size == .square150 && square.outcome.path.hasSuffix("/\(id)_q.jpg"))
            #expect(square.outcome.bytes > 0)
            // A listing's url_* extra spares the getSizes call: the log shows no getSizes.
            let listing = try await h.client.call("flickr.photos.search", ["user_id": "me", "extras": "url_z", "per_page": "1"])
            let photo = try #require(listing["photos.photo.0"])
            let photoID = try #require(photo["id"]?.string)
            let before = h.log.messages.filter { $0.contains("getSizes") }.count
            let medium = try await h.client.downloadPhoto(id: photoID, photo: photo, size: .medium640, directory: dir)
            #expect(medium.source.url == photo["url_z"]?.string)
            #expect(h.log.messages.filter { $0.contains("getSizes") }.count == before)
            // A size the photo lacks: the error names the sizes there are.
            do throws(FlickrError) {
                _ = try await h.client.downloadPhoto(id: id, size: .xLarge6K, directory: dir)
                Issue.record("a missing size did not fail")
            } catch {
                #expect(error.kind == .usage && error.message.contains("has no size 6k") && error.message.contains(" o"))
            }
        }
    }

    /// A small ISO base-media file of `brand` (`isom` an MP4, `qt  ` a QuickTime movie): an
    /// `ftyp` box, then a `free` box of `size` random bytes so that each file differs.
    static func isoMedia(brand: String, size: Int) -> [UInt8] {
        let padding = Array(UploadTests.jpeg(size: size).dropFirst(20).prefix(size))
        let free = withUnsafeBytes(of: UInt32(8 + padding.count).bigEndian, Array.init) + Array("free".utf8) + padding
        return [0, 0, 0, 0x14] + Array("ftyp".utf8) + Array(brand.utf8) + [0, 0, 2, 0] + Array(brand.utf8) + free
    }

    @Test func aVideosOriginalIsItsFileNamedByItsBytes() async throws {
        try await SandboxHarness.with { h in
            let (photoID, photoBytes) = try await Self.upload(h, size: 20_000)
            let mp4 = Self.isoMedia(brand: "isom", size: 50_000), mov = Self.isoMedia(brand: "qt  ", size: 40_000)
            let mp4ID = try #require(try await h.client.upload(.file(try UploadTests.writeTemp(mp4, name: "clip.mp4"))).photoID)
            let movID = try #require(try await h.client.upload(.file(try UploadTests.writeTemp(mov, name: "clip.mov"))).photoID)
            let dir = try Self.directory()
            // No size: the video's own file (getSizes' "Video Original"), its extension from its bytes.
            for (id, bytes, ext) in [(mp4ID, mp4, "mp4"), (movID, mov, "mov")] {
                let first = try await h.client.downloadPhoto(id: id, directory: dir)
                #expect(first.source.isVideo && first.source.size == .original && first.source.url.contains("/play/orig/"), "\(first.source)")
                #expect(first.outcome.path == dir + "/\(id)_o.\(ext)" && !first.outcome.skipped)
                #expect(try Data(contentsOf: URL(fileURLWithPath: first.outcome.path)) == Data(bytes), "\(ext): not the video's bytes")
                let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(id) }
                #expect(names == ["\(id)_o.\(ext)"], "\(ext): \(names)")
                // Again: the copy there (a .mov too) is found and skipped.
                let again = try await h.client.downloadPhoto(id: id, directory: dir)
                #expect(again.outcome.skipped && again.outcome.path == first.outcome.path, "\(ext): \(again.outcome)")
            }
            // A named size, "o" too, is the still.
            let still = try await h.client.downloadPhoto(id: mp4ID, size: .original, directory: dir)
            #expect(!still.source.isVideo && still.outcome.path == dir + "/\(mp4ID)_o.jpg")
            #expect(try Data(contentsOf: URL(fileURLWithPath: still.outcome.path)).starts(with: [0xFF, 0xD8]))
            // A given path is kept as given.
            let named = try await h.client.downloadPhoto(id: movID, path: dir + "/given.bin")
            #expect(named.outcome.path == dir + "/given.bin")
            #expect(try Data(contentsOf: URL(fileURLWithPath: named.outcome.path)) == Data(mov))

            // Listing entries: a video's url_o is its still, so media=video sends it to getSizes;
            // a photo's url_o still spares the call.
            let listing = try await h.client.call("flickr.photos.search", ["user_id": "me", "extras": "url_o,media", "per_page": "500"])
            let entries = listing["photos.photo"]?.array ?? []
            let videoEntry = try #require(entries.first { $0["id"]?.string == mp4ID })
            let photoEntry = try #require(entries.first { $0["id"]?.string == photoID })
            #expect(videoEntry["media"]?.string == "video" && videoEntry["url_o"]?.string?.hasSuffix(".jpg") == true)
            let listedDir = try Self.directory()
            let beforeVideo = h.log.messages.filter { $0.contains("getSizes") }.count
            let video = try await h.client.downloadPhoto(id: mp4ID, photo: videoEntry, directory: listedDir)
            #expect(h.log.messages.filter { $0.contains("getSizes") }.count > beforeVideo, "the video's listing entry did not go to getSizes")
            #expect(video.source.isVideo && video.outcome.path == listedDir + "/\(mp4ID)_o.mp4")
            #expect(try Data(contentsOf: URL(fileURLWithPath: video.outcome.path)) == Data(mp4))
            let beforePhoto = h.log.messages.filter { $0.contains("getSizes") }.count
            let photo = try await h.client.downloadPhoto(id: photoID, photo: photoEntry, directory: listedDir)
            #expect(h.log.messages.filter { $0.contains("getSizes") }.count == beforePhoto)
            #expect(!photo.source.isVideo && photo.source.url == photoEntry["url_o"]?.string)
            #expect(photo.outcome.path == listedDir + "/\(photoID)_o.jpg")
            #expect(try Data(contentsOf: URL(fileURLWithPath: photo.outcome.path)) == Data(photoBytes))
            // And without a listing: the photo's original as before.
            let plain = try await h.client.downloadPhoto(id: photoID, directory: dir)
            #expect(!plain.source.isVideo && plain.outcome.path == dir + "/\(photoID)_o.jpg")
            #expect(try Data(contentsOf: URL(fileURLWithPath: plain.outcome.path)) == Data(photoBytes))
        }
    }

    @Test func chooseFromSizes() throws {
        func sizes(_ entries: [(String, String, String)]) -> FlickrNode {
            let list: [FlickrNode] = entries.map { (e: (String, String, String)) -> FlickrNode in
                ["label": .string(e.0), "source": .string(e.1), "media": .string(e.2)]
            }
            return ["sizes": ["size": .list(list)]]
        }
        let base = "https://live.staticflickr.com/1/5_"
        let video = sizes([("Medium", base + "a.jpg", "photo"), ("Original", base + "b_o.jpg", "photo"),
                               ("Video Player", "https://www.flickr.com/apps/video/stewart.swf?v=1", "video"),
                               ("700", "https://www.flickr.com/photos/x/5/play/700/a/", "video"),
                               ("Video Original", "https://www.flickr.com/photos/x/5/play/orig/b/", "video")])
        let chosen = try PhotoSource.choose(fromSizes: video, size: nil, photoID: "5")
        #expect(chosen == PhotoSource(url: "https://www.flickr.com/photos/x/5/play/orig/b/", size: .original, isVideo: true))
        #expect(chosen.fileName(photoID: "5") == "5_o.mp4")
        #expect(try PhotoSource.choose(fromSizes: video, size: .original, photoID: "5") == PhotoSource(url: base + "b_o.jpg", size: .original))
        // Someone else's video (no "Video Original"): the largest still, never a player or a re-encoding.
        let others = sizes([("Medium", base + "a.jpg", "photo"), ("Video Player", "https://www.flickr.com/apps/video/stewart.swf?v=1", "video"),
                                ("700", "https://www.flickr.com/photos/x/5/play/700/a/", "video")])
        #expect(try PhotoSource.choose(fromSizes: others, size: nil, photoID: "5") == PhotoSource(url: base + "a.jpg", size: .medium500))
        // A listing entry of a video never answers for its original; a named size it does.
        let photo: FlickrNode = ["id": "5", "media": "video", "url_o": .string(base + "b_o.jpg"), "url_z": .string(base + "a_z.jpg")]
        #expect(PhotoSource.fromExtras(photo, size: nil, images: "https://live.staticflickr.com/") == nil)
        #expect(PhotoSource.fromExtras(photo, size: .medium640, images: "https://live.staticflickr.com/")?.url == base + "a_z.jpg")
    }

    @Test func failuresOfTheImageHost() async throws {
        // The access log tells the test when the image host has answered 429.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("download-log-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        var configuration = SandboxConfiguration()
        configuration.logFile = log
        try await SandboxHarness.with(configuration, retry: RetryPolicy(maxAttempts: 10, baseDelay: 0.01, maxDelay: 0.05)) { h in
            let (id, bytes) = try await Self.upload(h, size: 300_000)
            let dir = try Self.directory()
            // 404: reported, nothing written.
            let missing = dir + "/missing.jpg"
            do throws(FlickrError) {
                _ = try await h.client.download(from: h.client.context.endpoints.images + "1/1_x_o.jpg", to: missing)
                Issue.record("a 404 did not fail")
            } catch {
                #expect(error.kind == .http && error.httpStatus == 404)
            }
            #expect(!FileManager.default.fileExists(atPath: missing) && !FileManager.default.fileExists(atPath: missing + ".part"))
            // 429 with Retry-After: 1 — waited for, then the download goes through.
            await h.server.setImageFaults(FaultSpec(probabilities: [.tooManyRequests: 1]))
            let started = ContinuousClock.now
            let task = Task { try await h.client.downloadPhoto(id: id, directory: dir) }
            try await withDeadline(20, "the image host's first 429") {
                while !((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("\"status\": 429") {
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
            await h.server.setImageFaults(.none)
            let result = try await task.value
            #expect(ContinuousClock.now - started >= .seconds(1), "Retry-After: 1 was not honoured")
            #expect(result.outcome.attempts >= 2)
            #expect(try Data(contentsOf: URL(fileURLWithPath: result.outcome.path)) == Data(bytes))
            // Bodies cut short every time: a parse error after the last attempt, no file under the final name.
            try FileManager.default.removeItem(atPath: result.outcome.path)
            await h.server.setImageFaults(FaultSpec(probabilities: [.truncate: 1]))
            do throws(FlickrError) {
                _ = try await h.client.downloadPhoto(id: id, directory: dir)
                Issue.record("a body always cut short did not fail")
            } catch {
                #expect(error.kind == .parse || error.kind == .network, "\(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: result.outcome.path))
            #expect(!FileManager.default.fileExists(atPath: result.outcome.path + ".part"))
            // 5xx, an HTML page on 200 (an outage page), an answer that stalls: each an error of its
            // kind after the last attempt, and nothing saved, neither the page nor a part.
            let ordinary = h.client.context
            for (spec, kind) in [("5xx=1", FlickrError.Kind.http), ("html=1", .http), ("stall=1", .timeout)] {
                await h.server.setImageFaults(try FaultSpec.parse(spec))
                if spec == "stall=1" { h.client.updateContext { $0.requestTimeout = 1; $0.retryPolicy.maxAttempts = 2 } }
                do throws(FlickrError) {
                    _ = try await h.client.downloadPhoto(id: id, directory: dir)
                    Issue.record("\(spec): the download did not fail")
                } catch {
                    #expect(error.kind == kind, "\(spec): \(error)")
                    if spec == "html=1" { #expect(error.message.contains("HTML page"), "\(error)") }
                    if spec == "stall=1" { #expect(error.message.contains("sent nothing for 1 s"), "\(error)") }
                }
                h.client.updateContext { $0 = ordinary }
                #expect(!FileManager.default.fileExists(atPath: result.outcome.path), "\(spec)")
                #expect(!FileManager.default.fileExists(atPath: result.outcome.path + ".part"), "\(spec)")
            }
            // Cut short, reset or an HTML page 30 % of the time: retried until whole (10 attempts: a spurious failure is a 6-in-a-million event).
            await h.server.setImageFaults(FaultSpec(probabilities: [.truncate: 0.1, .reset: 0.1, .html: 0.1]))
            let flaky = try await h.client.downloadPhoto(id: id, directory: dir)
            await h.server.setImageFaults(.none)
            #expect(try Data(contentsOf: URL(fileURLWithPath: flaky.outcome.path)) == Data(bytes))
        }
    }
}
