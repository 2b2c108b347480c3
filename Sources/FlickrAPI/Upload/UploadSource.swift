import NIOCore

/// What to upload: a file on disk (streamed, never copied) or any async sequence of bytes —
/// the analogue of ObjectiveFlickr's `NSInputStream`.
public struct UploadSource: Sendable {
    enum Kind: Sendable {
        case file(path: String)
        case stream(makeIterator: @Sendable () -> ChunkIterator, length: Int64?)
    }

    let kind: Kind
    /// The file name sent with the `photo` part (Flickr uses it as the default title).
    public var filename: String
    /// The part's content type; nil means "from the file name, else sniffed".
    public var mimeType: String?

    /// A file on disk, read in 256 KiB pieces while sending.
    public static func file(_ path: String, filename: String? = nil, mimeType: String? = nil) -> UploadSource {
        let name = filename ?? String(path.split(separator: "/").last ?? Substring(path))
        return UploadSource(kind: .file(path: path), filename: name, mimeType: mimeType)
    }

    /// Any async sequence of byte chunks. With `length` the request carries a Content-Length;
    /// without it the body is sent chunked. A stream can be sent only once (no retries).
    public static func stream<S: AsyncSequence & Sendable>(
        _ sequence: S, length: Int64?, filename: String, mimeType: String? = nil
    ) -> UploadSource where S.Element == [UInt8] {
        UploadSource(kind: .stream(makeIterator: { ChunkIterator(sequence) }, length: length),
                     filename: filename, mimeType: mimeType)
    }

    /// In-memory bytes (small images, tests).
    public static func bytes(_ bytes: [UInt8], filename: String, mimeType: String? = nil) -> UploadSource {
        struct One: AsyncSequence, Sendable {
            typealias Element = [UInt8]
            let bytes: [UInt8]
            struct AsyncIterator: AsyncIteratorProtocol {
                var bytes: [UInt8]?
                mutating func next() async throws -> [UInt8]? {
                    defer { bytes = nil }
                    return bytes
                }
            }
            func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes.isEmpty ? nil : bytes) }
        }
        return stream(One(bytes: bytes), length: Int64(bytes.count), filename: filename, mimeType: mimeType)
    }
}

/// A type-erased iterator over byte chunks; used by one task at a time.
final class ChunkIterator: @unchecked Sendable {
    private let nextChunk: () async throws -> [UInt8]?

    init<S: AsyncSequence>(_ sequence: S) where S.Element == [UInt8] {
        var iterator = sequence.makeAsyncIterator()
        nextChunk = {
            // Skip empty chunks so that "nil" alone means the end.
            while let chunk = try await iterator.next() {
                if !chunk.isEmpty { return chunk }
            }
            return nil
        }
    }

    func next() async throws -> [UInt8]? { try await nextChunk() }
}
