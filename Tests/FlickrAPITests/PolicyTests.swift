import Foundation
import Testing
import FlickrTestSupport
import NIOCore
@testable import FlickrAPI

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct PolicyTests {
    @Test func backoffGrowsWithJitterWithinBounds() {
        let p = RetryPolicy(maxAttempts: 5, baseDelay: 0.5, maxDelay: 4)
        for attempt in 1...6 {
            let cap = min(4, 0.5 * Double(1 << (attempt - 1)))
            for _ in 0..<50 {
                let d = p.backoff(afterAttempt: attempt)
                #expect(d >= cap * 0.1 - 1e-9 && d <= cap + 1e-9)
            }
        }
    }

    @Test func writesAreNotRetriedUnlessIdempotent() async {
        let client = FlickrClient(context: FlickrContext(apiKey: "k", sharedSecret: "s", ratePolicy: .unlimited))
        client.updateContext { $0.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.001, maxDelay: 0.002) }
        final class Counter: @unchecked Sendable { var n = 0 }
        for (method, isWrite, expected) in [("flickr.photos.delete", true, 1), ("flickr.photos.setTags", true, 3),
                                            ("flickr.photos.search", false, 3)] {
            let counter = Counter()
            do throws(FlickrError) {
                _ = try await client.withRetries(method: method, isWrite: isWrite) { () async throws(FlickrError) -> Int in
                    counter.n += 1
                    throw FlickrError(kind: .http, message: "HTTP 502", httpStatus: 502)
                }
            } catch {
                #expect(error.httpStatus == 502)
            }
            #expect(counter.n == expected, "\(method)")
        }
    }

    @Test func nonTransientErrorsAreNotRetried() async {
        let client = FlickrClient(context: FlickrContext(apiKey: "k", sharedSecret: "s", ratePolicy: .unlimited))
        final class Counter: @unchecked Sendable { var n = 0 }
        let counter = Counter()
        do throws(FlickrError) {
            _ = try await client.withRetries(method: "flickr.photos.search", isWrite: false) { () async throws(FlickrError) -> Int in
                counter.n += 1
                throw FlickrError(kind: .api, code: 100, message: "Invalid API Key")
            }
        } catch {
            #expect(error.code == 100)
        }
        #expect(counter.n == 1)
    }

    /// A call right after `updateContext` is paced by the new rate policy. The limiter used to
    /// learn of it in a Task of its own, so the calls that came next could still take the old
    /// policy: go at once where the new one has no token left, or wait 1,000 s for a token of a
    /// bucket the update had just made unlimited.
    @Test func aCallRightAfterAnUpdateUsesTheNewRatePolicy() async throws {
        func attempt(_ client: FlickrClient) async throws(FlickrError) {
            _ = try await client.withRetries(method: "flickr.test.echo", isWrite: false) { () async throws(FlickrError) in true }
        }
        let clock = ContinuousClock()
        let fiveASecond = RatePolicy(callsPerSecond: 5, burst: 1)
        for round in 0..<20 {
            // Unlimited → 5/s with a burst of 1: the second call waits 200 ms.
            let client = FlickrClient(context: FlickrContext(apiKey: "k", sharedSecret: "s", ratePolicy: .unlimited))
            client.updateContext { $0.ratePolicy = fiveASecond }
            #expect(client.limiter.policy == fiveASecond)
            let elapsed = try await clock.measure {
                try await attempt(client)
                try await attempt(client)
            }
            #expect(elapsed >= .milliseconds(150), "round \(round): the second call went at once, under the old policy")
        }
        // 1 per 1,000 s, its one token taken → unlimited: the next call goes at once.
        let client = FlickrClient(context: FlickrContext(apiKey: "k", sharedSecret: "s",
                                                         ratePolicy: RatePolicy(callsPerSecond: 0.001, burst: 1)))
        try await attempt(client)
        client.updateContext { $0.ratePolicy = .unlimited }
        let wentAtOnce = await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await attempt(client)) != nil }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(wentAtOnce, "the call waited for the old policy's token")
    }

    @Test func tokenBucketHoldsTheRate() async throws {
        // 12 calls at 20/s with a burst of 4 need at least (12 - 4) / 20 = 0.4 s.
        let limiter = RateLimiter(policy: RatePolicy(callsPerSecond: 20, burst: 4))
        let clock = ContinuousClock()
        let elapsed = try await clock.measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<12 { group.addTask { try await limiter.acquire() } }
                try await group.waitForAll()
            }
        }
        #expect(elapsed >= .milliseconds(390))
        let free = RateLimiter(policy: .unlimited)
        let fast = try await clock.measure { for _ in 0..<1000 { try await free.acquire() } }
        #expect(fast < .seconds(1))
    }
}

@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct MultipartTests {
    @Test func fileChunksReportProgressAtLeastEveryPercentOr256KiB() {
        #expect(FlickrClient.progressChunkLength(fileSize: 180_000) == 1_800)        // 1 %: a hundred steps
        #expect(FlickrClient.progressChunkLength(fileSize: 10 << 30) == 256 << 10)   // 256 KiB at most
        #expect(FlickrClient.progressChunkLength(fileSize: 5_000) == 1_024)          // and 1 KiB at least
        for size: Int64 in [1, 90_000, 1 << 20, 25 << 20, 1 << 40] {
            let chunk = FlickrClient.progressChunkLength(fileSize: size)
            #expect(chunk <= max(1_024, size / 100) && chunk <= 256 << 10)
        }
    }

    @Test func layoutAndProgress() async throws {
        final class Log: @unchecked Sendable { var events: [(Int64, Int64?)] = [] }
        let log = Log()
        let payload: [UInt8] = Array(repeating: 0xAB, count: 3000)
        let body = MultipartBody(fields: [("title", "Cat \"quoted\""), ("tags", "cat \"black cat\"")], filename: "c\"at.jpg",
                                 mimeType: "image/jpeg", contentLength: 3000, content: {
            var sent = false
            return MultipartBody.ContentIterator {
                if sent { return nil }
                sent = true
                return ByteBuffer(bytes: payload)
            }
        }, progress: { s, t in log.events.append((s, t)) })
        var all = ByteBuffer()
        for try await var chunk in body { all.writeBuffer(&chunk) }
        let text = String(decoding: all.readableBytesView, as: UTF8.self)
        #expect(Int64(all.readableBytes) == body.totalLength)
        #expect(text.hasPrefix("--\(body.boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nCat \"quoted\"\r\n"))
        #expect(text.contains("name=\"photo\"; filename=\"c%22at.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"))
        #expect(text.hasSuffix("\r\n--\(body.boundary)--\r\n"))
        #expect(log.events.first.map { $0.0 == 0 && $0.1 == 3000 } == true)   // the file's bytes, not the body's
        #expect(log.events.last.map { $0.0 == 3000 && $0.1 == 3000 } == true)
        #expect(zip(log.events, log.events.dropFirst()).allSatisfy { $0.0 < $1.0 })
    }

    @Test func mimeTypes() {
        #expect(MIMEType.forFilename("a.JPG") == "image/jpeg")
        #expect(MIMEType.forFilename("movie.mov") == "video/quicktime")
        #expect(MIMEType.forFilename("noext") == nil)
        #expect(MIMEType.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == "image/jpeg")
        #expect(MIMEType.sniff(Array("GIF89a".utf8)) == "image/gif")
        #expect(MIMEType.sniff([0, 1]) == nil)
    }

    @Test("The content decides: magic bytes of each photo and video container Flickr takes; text, PDF and ZIP are none")
    func mediaByContent() {
        func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }
        let iso: (String) -> [UInt8] = { brand in [0, 0, 0, 0x18] + ascii("ftyp") + ascii(brand) + [0, 0, 0, 0] }
        var ts = [UInt8](repeating: 0, count: 200)
        ts[0] = 0x47
        ts[188] = 0x47
        var m2ts = [UInt8](repeating: 0, count: 200)
        m2ts[4] = 0x47
        m2ts[196] = 0x47
        let cases: [([UInt8], String?)] = [
            ([0x89] + ascii("PNG\r\n") + [0x1A, 0x0A], "image/png"),
            (ascii("GIF87a"), "image/gif"),
            ([0x49, 0x49, 0x2A, 0x00], "image/tiff"), ([0x4D, 0x4D, 0x00, 0x2A], "image/tiff"),
            (ascii("RIFF") + [0, 0, 0, 0] + ascii("WEBPVP8 "), "image/webp"),
            (ascii("RIFF") + [0, 0, 0, 0] + ascii("AVI LIST"), "video/x-msvideo"),
            (iso("heic"), "image/heic"), (iso("mif1"), "image/heif"), (iso("avif"), "image/avif"),
            (iso("qt  "), "video/quicktime"), (iso("isom"), "video/mp4"), (iso("3gp5"), "video/3gpp"), (iso("M4V "), "video/x-m4v"),
            ([0, 0, 0, 8] + ascii("moov"), "video/quicktime"),
            ([0, 0, 1, 0xBA, 0x44], "video/mpeg"), (ts, "video/mp2t"), (m2ts, "video/mp2t"),
            ([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6], "video/x-ms-wmv"),
            (ascii("OggS\0\u{2}"), "video/ogg"),
            ([0x1A, 0x45, 0xDF, 0xA3, 0x9F] + ascii("B\u{82}\u{84}webm"), "video/webm"),
            ([0x1A, 0x45, 0xDF, 0xA3, 0x9F] + ascii("B\u{82}\u{88}matroska"), "video/x-matroska"),
            (ascii("BM") + [0x36, 0x10, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0], "image/bmp"),
            (ascii("just text, named fake.jpg\n"), nil), (ascii("%PDF-1.7\n"), nil), ([0x50, 0x4B, 0x03, 0x04], nil),
            (ascii("BMW is a car brand"), nil), ([], nil),
        ]
        for (head, type) in cases { #expect(MIMEType.sniff(head) == type, "\(head.prefix(12))") }
    }
}
