import HTTPTypes
import Hummingbird
import NIOCore

/// The `truncate` and `stall` faults: a 200 that declares the whole body but sends only its
/// first half, then (for `stall`) holds the connection silent, then closes it.
enum CutResponse {
    /// `response` cut in half.
    static func cut(_ response: Response, channel: any Channel, stall: Bool) -> Response {
        var headers = response.headers
        var body = response.body
        var length = headers[.contentLength].flatMap { Int($0) } ?? body.contentLength ?? 0
        if length < 2 {
            let stand = ByteBuffer(string: "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n</rsp>\n")
            length = stand.readableBytes
            body = ResponseBody(byteBuffer: stand)
        }
        headers[.contentLength] = String(length)
        headers[.connection] = "close"
        let whole = body
        let half = length / 2
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let collector = HalfCollector(limit: half)
            do { try await whole.write(collector) } catch is HalfCollector.Full {}
            try await writer.write(collector.box.bytes)
            if stall { await holdOpen(channel) }
            try? await Task.sleep(for: .milliseconds(5))
            try? await channel.close()
            throw ConnectionDropped()
        })
    }

    /// Nothing more is sent while the client keeps the connection, for at most two minutes
    /// (the client's deadline is what ends it).
    static func holdOpen(_ channel: any Channel) async {
        let clock = ContinuousClock()
        let end = clock.now + .seconds(120)
        while channel.isActive, clock.now < end {
            do { try await Task.sleep(for: .milliseconds(50)) } catch { return }
        }
    }
}

/// Keeps the first `limit` bytes a body writes, then stops it (``Full``).
private struct HalfCollector: ResponseBodyWriter {
    struct Full: Error {}

    final class Box: @unchecked Sendable {  // used by the one task writing the body
        var bytes = ByteBuffer()
        let limit: Int
        init(limit: Int) { self.limit = limit }
    }

    let box: Box

    init(limit: Int) { box = Box(limit: limit) }

    mutating func write(_ buffer: ByteBuffer) async throws {
        let room = box.limit - box.bytes.readableBytes
        if buffer.readableBytes >= room {
            var part = buffer.getSlice(at: buffer.readerIndex, length: room) ?? ByteBuffer()
            box.bytes.writeBuffer(&part)
            throw Full()
        }
        var copy = buffer
        box.bytes.writeBuffer(&copy)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
