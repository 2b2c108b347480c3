import AsyncHTTPClient
import FlickrSandbox
import Foundation
import NIOCore
import Testing
import FlickrTestSupport

/// The 190 MiB upload on its own, with room for a loaded machine: a debug build parses the
/// multipart body at 7–10 MiB/s while the other suites run (35–39 s seen on CI, once past the 50 s
/// request deadline the shared upload suite used), so it gets a 4-minute deadline and its own limit.
@Suite("Large streamed upload", .timeLimit(.minutes(5)), .tags(.integration))
struct LargeUploadTests {
    /// The shared test client gives up after 30 s without reading a byte, which a body this
    /// large can take to send on a loaded machine (the upload then failed with "I/O on closed
    /// channel" after 63 s on CI); this one waits as long as the request's deadline.
    static let patientClient = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(30), read: .seconds(240))))

    @Test("A 190 MiB upload (under Flickr's 200 MB for a photo) streams to disk: server memory stays bounded")
    func largeStreamedUpload() async throws {
        try await withSandbox { server in
            let mib = 1 << 20
            let size = 190 * mib
            let head = UploadTests.jpegHead(width: 6000, height: 4000)
            let filler = ByteBuffer(bytes: [UInt8](repeating: 0x5A, count: mib))
            let first = ByteBuffer(bytes: head + [UInt8](repeating: 0x5A, count: mib - head.count))
            let before = UploadTests.residentBytes()
            let peak = PeakSampler()
            let sampler = Task { await peak.run(every: .milliseconds(20), sample: UploadTests.residentBytes) }
            let clock = ContinuousClock()
            let started = clock.now
            let r = try await UploadTests.upload(server, fields: [("title", "Big one"), ("tags", "huge \"stream test\"")],
                                                photoLength: size, photoChunks: {
                AsyncStream { c in
                    c.yield(first)
                    for _ in 1..<190 { c.yield(filler) }
                    c.finish()
                }
            }, timeout: .seconds(240), client: Self.patientClient)
            let elapsed = clock.now - started
            sampler.cancel()
            let growth = await peak.max - before
            print("190 MiB upload: \(elapsed), RSS before \(before / mib) MiB, peak growth \(growth / mib) MiB")
            #expect(r.status == 200, "\(r.body)")
            let id = try #require(XMLProbe.texts(of: "photoid", in: r.body).first)
            #expect(growth < 128 * mib, "RSS grew by \(growth / mib) MiB")
            let client = SandboxClient.writer(server)
            let info = try await client.json("flickr.photos.search", [("user_id", "me"), ("text", "Big one"), ("extras", "o_dims,original_format,tags")])
            let photo = try #require(((info["photos"] as? [String: Any])?["photo"] as? [[String: Any]])?.first)
            #expect(photo["id"] as? String == id)
            #expect(photo["o_width"] as? String == "6000" && photo["o_height"] as? String == "4000")
            #expect(photo["originalformat"] as? String == "jpg")
            #expect(photo["tags"] as? String == "huge streamtest")
            let status = try await client.ok("flickr.people.getUploadStatus", [], verb: "GET")
            #expect((XMLProbe.attributes("usedbytes", of: "bandwidth", in: status).first.flatMap(Int.init) ?? 0) >= size)
        }
    }
}
