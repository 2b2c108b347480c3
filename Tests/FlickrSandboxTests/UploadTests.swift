import AsyncHTTPClient
import FlickrProtocol
import FlickrSandbox
import Foundation
import NIOCore
import Testing
import FlickrTestSupport

@Suite("Upload and replace", .timeLimit(.minutes(3)), .tags(.integration))
struct UploadTests {
    /// A JPEG header declaring `width × height`, then filler.
    static func jpegHead(width: Int, height: Int) -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
               0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
    }

    /// A multipart upload whose `photo` part streams `photoChunks` (never assembled in memory).
    static func upload(_ server: FlickrSandboxServer, path: String = "/services/upload/", fields: [(String, String)],
                       photoLength: Int, photoChunks: @escaping @Sendable () -> AsyncStream<ByteBuffer>,
                       token: String? = nil, secret: String? = nil, consumerSecret: String? = nil,
                       timeout: TimeAmount = .seconds(50), client: HTTPClient = TestHTTP.client) async throws -> HTTPResult {
        let url = server.url + path
        let c = server.credentials
        let oauth = OAuthParameters.fresh(consumerKey: c.apiKey, token: token ?? c.oauthToken)
        let sig = OAuthSignature.sign(method: "POST", url: url, parameters: fields + oauth.pairs,
                                      consumerSecret: consumerSecret ?? c.apiSecret, tokenSecret: secret ?? c.oauthTokenSecret)
        let boundary = "sandbox-\(UUID().uuidString)"
        var head = ""
        for (k, v) in fields {
            head += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(k)\"\r\n\r\n\(v)\r\n"
        }
        head += "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"big.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
        let tail = "\r\n--\(boundary)--\r\n"
        let preamble = head
        let total = head.utf8.count + photoLength + tail.utf8.count
        let body = AsyncStream<ByteBuffer> { continuation in
            let task = Task {
                continuation.yield(ByteBuffer(string: preamble))
                for await chunk in photoChunks() { continuation.yield(chunk) }
                continuation.yield(ByteBuffer(string: tail))
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Authorization", value: oauth.authorizationHeader(signature: sig.signature))
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        request.body = .stream(body, length: .known(Int64(total)))
        let response = try await client.execute(request, timeout: timeout)
        let bytes = Array(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        return HTTPResult(status: Int(response.status.code), headers: response.headers, body: String(decoding: bytes, as: UTF8.self), bytes: bytes)
    }

    static func small(_ bytes: [UInt8]) -> @Sendable () -> AsyncStream<ByteBuffer> {
        { AsyncStream { c in
            if !bytes.isEmpty { c.yield(ByteBuffer(bytes: bytes)) }
            c.finish()
        } }
    }

    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
    }

    @Test("A slow upload in progress does not hold up other clients")
    func concurrentClients() async throws {
        try await withSandbox { server in
            let head = Self.jpegHead(width: 100, height: 100)
            let chunk = ByteBuffer(bytes: [UInt8](repeating: 0x33, count: 64 * 1024))
            let (gate, opener) = AsyncStream.makeStream(of: Void.self)
            let upload = Task {
                try await Self.upload(server, fields: [("title", "slow")], photoLength: head.count + 64 * 1024 * 8) {
                    AsyncStream { c in
                        let t = Task {
                            c.yield(ByteBuffer(bytes: head))
                            for _ in 0..<4 { c.yield(chunk) }
                            for await _ in gate { break }  // the upload stalls here until the other calls are done
                            for _ in 0..<4 { c.yield(chunk) }
                            c.finish()
                        }
                        c.onTermination = { _ in t.cancel() }
                    }
                }
            }
            let me = SandboxClient.writer(server)
            let clock = ContinuousClock()
            let elapsed = try await clock.measure {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for i in 0..<20 {
                        group.addTask { _ = try await me.ok("flickr.test.echo", [("n", String(i))], verb: "GET") }
                    }
                    try await group.waitForAll()
                }
            }
            opener.yield()
            opener.finish()
            let r = try await upload.value
            #expect(r.status == 200 && !XMLProbe.texts(of: "photoid", in: r.body).isEmpty, "\(r.body)")
            // Held up, they would never finish: the upload resumes only after them (the client's
            // read timeout is 30 s). The bound leaves room for a loaded machine (a CI run under
            // load took 10.3 s; alone it takes under 0.5 s).
            #expect(elapsed < .seconds(25))
        }
    }

    @Test("async=1 answers a ticket; checkTickets reports it complete, unknown tickets invalid")
    func asyncTickets() async throws {
        try await withSandbox { server in
            let jpeg = Self.jpegHead(width: 10, height: 20) + [0xFF, 0xD9]
            let r = try await Self.upload(server, fields: [("async", "1"), ("title", "Async")], photoLength: jpeg.count,
                                          photoChunks: Self.small(jpeg))
            let ticket = try #require(XMLProbe.texts(of: "ticketid", in: r.body).first)
            #expect(ticket.contains("-"))
            let check = try await SandboxClient.writer(server).ok("flickr.photos.upload.checkTickets", [("tickets", "\(ticket),nope")], verb: "GET")
            #expect(XMLProbe.attributes("complete", of: "ticket", in: check) == ["1"])
            #expect(XMLProbe.attributes("invalid", of: "ticket", in: check) == ["1"])
            let photo = try #require(XMLProbe.attributes("photoid", of: "ticket", in: check).first)
            let info = try await SandboxClient.writer(server).ok("flickr.photos.getInfo", [("photo_id", photo)], verb: "GET")
            #expect(XMLProbe.texts(of: "title", in: info) == ["Async"])
        }
    }

    @Test("A photo of several write batches is stored byte for byte: the same bytes again are its duplicate (the sandbox hashes the stored file), one byte changed is not")
    func storedExactly() async throws {
        try await withSandbox { server in
            // 5 MiB and a bit in uneven pieces: five batches and a tail, each written while the next
            // arrives; every byte depends on its position, so a lost, doubled or reordered batch shows.
            let size = 5 * (1 << 20) + 12_345
            let head = Self.jpegHead(width: 64, height: 48)
            var photo = head + (head.count..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
            func pieces(_ bytes: [UInt8]) -> @Sendable () -> AsyncStream<ByteBuffer> {
                { AsyncStream { c in
                    var at = 0
                    var step = 7_000
                    while at < bytes.count {
                        let end = min(bytes.count, at + step)
                        c.yield(ByteBuffer(bytes: bytes[at..<end]))
                        at = end
                        step = step * 3 % 300_007 + 1
                    }
                    c.finish()
                } }
            }
            let first = try await Self.upload(server, fields: [("title", "Batches")], photoLength: size, photoChunks: pieces(photo))
            let id = try #require(XMLProbe.texts(of: "photoid", in: first.body).first, "\(first.body)")
            let again = try await Self.upload(server, fields: [("dedup_check", "1")], photoLength: size, photoChunks: pieces(photo))
            #expect(XMLProbe.errorCode(again.body) == 9, "\(again.body)")
            #expect(XMLProbe.texts(of: "duplicate_photo_id", in: again.body) == [id])
            photo[3 * (1 << 20) + 17] ^= 0xFF
            let changed = try await Self.upload(server, fields: [("dedup_check", "1")], photoLength: size, photoChunks: pieces(photo))
            #expect(XMLProbe.texts(of: "photoid", in: changed.body).count == 1, "\(changed.body)")
        }
    }

    @Test("Upload failures: duplicate (9 + duplicate_photo_id), no photo (2), empty (4), not an image (5), read token (99), bad signature (401)")
    func failures() async throws {
        try await withSandbox { server in
            let jpeg = Self.jpegHead(width: 8, height: 8) + [1, 2, 3, 0xFF, 0xD9]
            let first = try await Self.upload(server, fields: [("dedup_check", "1")], photoLength: jpeg.count, photoChunks: Self.small(jpeg))
            let id = try #require(XMLProbe.texts(of: "photoid", in: first.body).first)
            let dup = try await Self.upload(server, fields: [("dedup_check", "1")], photoLength: jpeg.count, photoChunks: Self.small(jpeg))
            #expect(dup.body.contains("<err code=\"9\" msg=\"Duplicate photo/video detected\" />"))
            #expect(XMLProbe.texts(of: "duplicate_photo_id", in: dup.body) == [id])

            let empty = try await Self.upload(server, fields: [], photoLength: 0, photoChunks: Self.small([]))
            #expect(XMLProbe.errorCode(empty.body) == 4)
            let text = Array("just some text".utf8)
            let notImage = try await Self.upload(server, fields: [], photoLength: text.count, photoChunks: Self.small(text))
            #expect(notImage.body.contains("<err code=\"5\" msg=\"Filetype was not recognised\" />"))
            let read = try await server.issueToken(username: nil, perms: .read)
            let denied = try await Self.upload(server, fields: [], photoLength: jpeg.count, photoChunks: Self.small(jpeg),
                                               token: read.token, secret: read.secret)
            #expect(XMLProbe.errorCode(denied.body) == 99)
            let forged = try await Self.upload(server, fields: [("title", "x")], photoLength: jpeg.count, photoChunks: Self.small(jpeg),
                                               consumerSecret: "wrong")
            #expect(forged.status == 401 && forged.body.hasPrefix("oauth_problem=signature_invalid&debug_sbs=POST&"))
            #expect(forged.body.contains("title%3Dx"))

            // No photo part at all.
            let c = server.credentials
            let url = server.url + "/services/upload/"
            let o = OAuthParameters.fresh(consumerKey: c.apiKey, token: c.oauthToken)
            let s = OAuthSignature.sign(method: "POST", url: url, parameters: [("title", "t")] + o.pairs, consumerSecret: c.apiSecret, tokenSecret: c.oauthTokenSecret)
            let noPhoto = try await TestHTTP.postForm(url, [("title", "t")] + o.pairs + [("oauth_signature", s.signature)])
            #expect(noPhoto.body.contains("<err code=\"2\" msg=\"No photo specified\" />"))
            // A truncated multipart body is a clear upload failure, not a hang or a crash.
            let boundary = "b0undary"
            let broken = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.jpg\"\r\n\r\n\u{FF}".utf8)
            let cut = try await TestHTTP.send(url, method: .POST, headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")], body: broken)
            #expect(XMLProbe.errorCode(cut.body) == 3)
        }
    }

    @Test("Replace keeps the id, changes secrets and serves the new bytes; only the owner may replace")
    func replace() async throws {
        try await withSandbox { server in
            let a = Self.jpegHead(width: 30, height: 20) + [0xAA, 0xFF, 0xD9]
            let b = Self.jpegHead(width: 20, height: 30) + [0xBB, 0xBB, 0xFF, 0xD9]
            let up = try await Self.upload(server, fields: [], photoLength: a.count, photoChunks: Self.small(a))
            let id = try #require(XMLProbe.texts(of: "photoid", in: up.body).first)
            let oldSecret = try #require(XMLProbe.attributes("secret", of: "photoid", in: up.body).first)
            let rep = try await Self.upload(server, path: "/services/replace/", fields: [("photo_id", id)], photoLength: b.count, photoChunks: Self.small(b))
            #expect(XMLProbe.texts(of: "photoid", in: rep.body) == [id])
            let newSecret = try #require(XMLProbe.attributes("secret", of: "photoid", in: rep.body).first)
            let original = try #require(XMLProbe.attributes("originalsecret", of: "photoid", in: rep.body).first)
            #expect(newSecret != oldSecret)
            let bytes = try await TestHTTP.get(server.url + "/static/65535/\(id)_\(original)_o.jpg")
            #expect(bytes.bytes == b)
            let sizes = try await SandboxClient.writer(server).ok("flickr.photos.getSizes", [("photo_id", id)], verb: "GET")
            #expect(XMLProbe.attributes("width", of: "size", in: sizes).last == "20")
            let other = try await server.issueToken(username: "kenji_t", perms: .write)
            let stolen = try await Self.upload(server, path: "/services/replace/", fields: [("photo_id", id)], photoLength: a.count,
                                               photoChunks: Self.small(a), token: other.token, secret: other.secret)
            #expect(XMLProbe.errorCode(stolen.body) == 1)
        }
    }
}

/// Keeps the largest sample seen.
actor PeakSampler {
    private(set) var max = 0

    func record(_ value: Int) { max = Swift.max(max, value) }

    nonisolated func run(every interval: Duration, sample: @Sendable @escaping () -> Int) async {
        while !Task.isCancelled {
            await record(sample())
            try? await Task.sleep(for: interval)
        }
        await record(sample())
    }
}
