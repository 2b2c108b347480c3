import FlickrAPI
import FlickrProtocol
import FlickrSandbox
import Foundation
import Testing
import FlickrTestSupport

/// What the client refuses before a request (the sandbox's request count proves none was made),
/// and reads too long for a GET going as POST.
@Suite(.timeLimit(.minutes(5)), .tags(.integration)) struct PreflightTests {
    /// Calls `body`, which must fail with a usage error and make no request; returns the error.
    static func refused(_ h: SandboxHarness, _ body: () async throws(FlickrError) -> FlickrNode) async -> FlickrError? {
        let before = h.server.requestCount()
        do {
            _ = try await body()
            Issue.record("accepted")
            return nil
        } catch {
            #expect(error.kind == .usage, "\(error)")
            #expect(h.server.requestCount() == before, "a refused call made a request: \(error)")
            return error
        }
    }

    @Test func catalogChecksCostNoRequest() async throws {
        try await SandboxHarness.with { h in
            var e = await Self.refused(h) { () throws(FlickrError) in try await h.client.call("flickr.photos.getInfo") }
            #expect(e?.description == "flickr.photos.getInfo: missing required argument photo_id")
            e = await Self.refused(h) { () throws(FlickrError) in try await h.client.call("flickr.photos.getInfo", ["photoid": "1"]) }
            #expect(e?.message.contains("unknown argument photoid (did you mean photo_id?)") == true, "\(String(describing: e))")
            e = await Self.refused(h) { () throws(FlickrError) in try await h.client.call("flickr.photos.serch", ["text": "x"]) }
            #expect(e?.message.contains("did you mean flickr.photos.search") == true, "\(String(describing: e))")
            // Another case of a known name is that method; strict: false sends what the catalog lacks.
            let rsp = try await h.client.call("FLICKR.PHOTOS.SEARCH", ["user_id": "me", "per_page": "1"])
            #expect(rsp["photos.photo"]?.array.count == 1)
            let loose = try await h.client.call("flickr.photos.search", ["user_id": "me", "per_page": "1", "newer": "1"], strict: false)
            #expect(loose["stat"]?.string == "ok")
        }
    }

    @Test func userMeNeedsALogin() async throws {
        try await SandboxHarness.with(token: false) { h in
            let e = await Self.refused(h) { () throws(FlickrError) in try await h.client.call("flickr.photos.search", ["user_id": "me"]) }
            #expect(e?.message.contains("no login is configured") == true)
            // Without `me` the same client can read.
            let nsid = h.server.credentials.userNSID
            let rsp = try await h.client.call("flickr.people.getPublicPhotos", ["user_id": nsid])
            #expect(rsp["stat"]?.string == "ok")
        }
    }

    /// A read past 8 KiB of URL goes as POST (the trace shows the verb), signed both ways.
    @Test func longReadsGoAsPost() async throws {
        try await SandboxHarness.with { h in
            // One long word: past 8 KiB of URL as the test needs, without making the sandbox's
            // search match 25,000 words against every photo (which, under a loaded CI, ran past
            // the client's 10 s).
            let long = String(repeating: "fog", count: 33_000)
            for placement in [SignaturePlacement.parameters, .header] {
                h.client.updateContext { $0.signaturePlacement = placement }
                let before = h.log.count(containing: "→ POST")
                let rsp = try await h.client.call("flickr.test.echo", ["text": long])
                #expect(rsp["text"]?.text == long)
                #expect(h.log.count(containing: "→ POST") == before + 1, "\(placement)")
                let search = try await h.client.call("flickr.photos.search", ["user_id": "me", "text": long])
                #expect(search["stat"]?.string == "ok")
            }
            // A short read stays a GET.
            let gets = h.log.count(containing: "→ GET")
            _ = try await h.client.call("flickr.test.echo", ["text": "short"])
            #expect(h.log.count(containing: "→ GET") == gets + 1)
        }
    }
}
