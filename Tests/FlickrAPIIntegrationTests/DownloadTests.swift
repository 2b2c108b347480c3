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
@Suite(.timeLimit(.minutes(2)), .tags(.integration), .kind("integration"))
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
