import NIOCore

/// A `multipart/form-data` body produced piece by piece: the form fields, the `photo` part's
/// header, the photo bytes as they are read, then the closing boundary. Nothing but the
/// current chunk is held in memory. Progress counts the photo's bytes handed to the HTTP client
/// (not the form fields around them), so that it ends at the file's size.
struct MultipartBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let boundary: String
    let head: ByteBuffer
    let tail: ByteBuffer
    let content: @Sendable () -> ContentIterator
    let contentLength: Int64?
    let progress: (@Sendable (Int64, Int64?) -> Void)?

    /// The source of the photo bytes.
    final class ContentIterator: @unchecked Sendable {
        let next: () async throws -> ByteBuffer?
        init(next: @escaping () async throws -> ByteBuffer?) { self.next = next }
    }

    init(fields: [(String, String)], filename: String, mimeType: String, contentLength: Int64?,
         content: @escaping @Sendable () -> ContentIterator, progress: (@Sendable (Int64, Int64?) -> Void)?) {
        var rng = SystemRandomNumberGenerator()
        boundary = "SwiftFlickr-" + String(rng.next() as UInt64, radix: 36) + String(rng.next() as UInt64, radix: 36)
        var h = ByteBuffer()
        for (name, value) in fields {
            h.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(name))\"\r\n\r\n")
            h.writeString(value)
            h.writeString("\r\n")
        }
        h.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"\(Self.escape(filename))\"\r\n")
        h.writeString("Content-Type: \(mimeType)\r\n\r\n")
        head = h
        tail = ByteBuffer(string: "\r\n--\(boundary)--\r\n")
        self.contentLength = contentLength
        self.content = content
        self.progress = progress
    }

    /// Quotes in a header parameter would end it early; CR/LF would end the header.
    static func escape(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "\"": out += "%22"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.append(ch)
            }
        }
        return out
    }

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Total bytes when the content length is known.
    var totalLength: Int64? {
        contentLength.map { Int64(head.readableBytes) + $0 + Int64(tail.readableBytes) }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        enum Stage { case head, content, done }
        var stage = Stage.head
        let body: MultipartBody
        var content: ContentIterator?
        /// The photo bytes handed out so far.
        var sent: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            switch stage {
            case .head:
                stage = .content
                content = body.content()
                body.progress?(0, body.contentLength)
                return body.head
            case .content:
                guard let piece = try await content!.next() else {
                    stage = .done
                    return body.tail
                }
                sent += Int64(piece.readableBytes)
                body.progress?(sent, body.contentLength)
                return piece
            case .done:
                return nil
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}
