import FlickrCommandLine
import FlickrSandbox
import Foundation

extension FuzzTarget {
    /// The sandbox's streaming multipart reader (boundary `XyZ`). Property: fed in pieces of any
    /// size (the first byte sets them), it reports the same parts and the same bytes as fed at
    /// once, and fails in the same way.
    public static let multipart = FuzzTarget(name: "multipart") { bytes in
        guard let first = bytes.first else { return }
        let body = UnsafeRawBufferPointer(rebasing: bytes.dropFirst())
        let whole = Self.parts(body, piece: max(1, body.count))
        let pieces = Self.parts(body, piece: Int(first % 17) + 1)
        FuzzCheck.require(whole == pieces, "pieces of \(Int(first % 17) + 1) bytes read differently")
    }

    /// What the reader makes of `body` fed `piece` bytes at a time: each part's head and bytes,
    /// and the error (or "incomplete") at the end.
    static func parts(_ body: UnsafeRawBufferPointer, piece: Int) -> [String] {
        var parser = MultipartStreamParser(boundary: "XyZ")
        var out: [String] = []
        var current: [UInt8] = []
        do {
            var offset = 0
            while offset < body.count {
                let n = min(piece, body.count - offset)
                try parser.feed(UnsafeRawBufferPointer(rebasing: body[offset..<(offset + n)])) { event in
                    switch event {
                    case .begin(let head): out.append("part \(head.name) \(head.filename ?? "-") \(head.contentType ?? "-")")
                    case .data(let data): current += data
                    case .end:
                        out.append("bytes \(current.count) \(current.hashValue)")
                        current = []
                    }
                }
                offset += n
            }
            try parser.finish()
            out.append("complete")
        } catch {
            out.append("error \(error)")
        }
        return out
    }

    /// The lua.c-style command line of `flickr`: any words parse or fail with a usage error.
    /// NUL bytes split the input into words.
    public static let commandLine = FuzzTarget(name: "command-line") { bytes in
        let words = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        _ = try? Invocation.parse(["flickr"] + words)
    }
}
