import FlickrProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a multipart body could not be read.
package struct MultipartError: Error, Sendable, CustomStringConvertible {
    var message: String
    package var description: String { message }
}

/// A streaming `multipart/form-data` reader: bytes go in as they arrive, part boundaries and
/// part data come out, and only a delimiter's worth of bytes is ever held back. Bodies of any
/// size pass through in constant memory.
package struct MultipartStreamParser {
    /// One part's headers.
    package struct PartHead: Sendable, Equatable {
        package var name: String
        package var filename: String?
        package var contentType: String?
    }

    package enum Event {
        case begin(PartHead)
        case data(UnsafeRawBufferPointer)
        case end
    }

    private enum State { case preamble, afterDelimiter, headers, body, done }

    private let delimiter: [UInt8]
    private var buffer: [UInt8] = []
    private var state = State.preamble
    /// Limit for one part's header block.
    private let maxHeaderBytes = 16 * 1024

    package var isComplete: Bool { state == .done }

    /// `boundary` from the Content-Type parameter.
    package init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        // A virtual CRLF lets the first boundary match the same delimiter as the others.
        buffer = [13, 10]
    }

    /// The boundary parameter of a `multipart/form-data` Content-Type, nil for anything else.
    package static func boundary(fromContentType contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let kind = parts.first, kind.lowercased() == "multipart/form-data" else { return nil }
        for p in parts.dropFirst() {
            guard let eq = p.firstIndex(of: "=") else { continue }
            guard p[..<eq].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = p[p.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty || value.utf8.count > 200 ? nil : value
        }
        return nil
    }

    /// Feeds the next bytes of the body; `handler` receives the events in order.
    package mutating func feed(_ bytes: UnsafeRawBufferPointer, _ handler: (Event) throws -> Void) throws {
        guard state != .done else { return }
        buffer.append(contentsOf: bytes)
        var consumed = 0
        var state = self.state
        defer {
            self.state = state
            if consumed > 0 { buffer.removeFirst(consumed) }
        }
        let delimiter = self.delimiter
        let maxHeaderBytes = self.maxHeaderBytes
        let pending = buffer
        try pending.withUnsafeBytes { raw in
            while true {
                let rest = UnsafeRawBufferPointer(rebasing: raw[consumed...])
                switch state {
                case .done:
                    consumed = raw.count
                    return
                case .preamble:
                    guard let at = Self.find(delimiter, in: rest) else {
                        // Keep only what could still start a delimiter.
                        consumed += max(0, rest.count - (delimiter.count - 1))
                        return
                    }
                    consumed += at + delimiter.count
                    state = .afterDelimiter
                case .afterDelimiter:
                    guard rest.count >= 2 else { return }
                    if rest[0] == UInt8(ascii: "-"), rest[1] == UInt8(ascii: "-") {
                        state = .done
                        consumed = raw.count
                        return
                    }
                    // Transport padding (spaces/tabs) may precede the CRLF.
                    var i = 0
                    while i < rest.count, rest[i] == 32 || rest[i] == 9 { i += 1 }
                    guard i + 2 <= rest.count else { return }
                    guard rest[i] == 13, rest[i + 1] == 10 else { throw MultipartError(message: "malformed boundary line") }
                    consumed += i + 2
                    state = .headers
                case .headers:
                    guard let end = Self.find(Array("\r\n\r\n".utf8), in: rest) else {
                        if rest.count > maxHeaderBytes { throw MultipartError(message: "part headers too large") }
                        return
                    }
                    let head = try Self.parseHeaders(String(decoding: UnsafeRawBufferPointer(rebasing: rest[..<end]), as: UTF8.self))
                    consumed += end + 4
                    state = .body
                    try handler(.begin(head))
                case .body:
                    if let at = Self.find(delimiter, in: rest) {
                        if at > 0 { try handler(.data(UnsafeRawBufferPointer(rebasing: rest[..<at]))) }
                        try handler(.end)
                        consumed += at + delimiter.count
                        state = .afterDelimiter
                    } else {
                        let safe = rest.count - (delimiter.count - 1)
                        if safe > 0 {
                            try handler(.data(UnsafeRawBufferPointer(rebasing: rest[..<safe])))
                            consumed += safe
                        }
                        return
                    }
                }
            }
        }
    }

    /// Call after the last bytes: fails when the closing delimiter never came.
    package func finish() throws {
        guard state == .done else { throw MultipartError(message: "the multipart body ended before its closing boundary") }
    }

    /// Offset of `needle` in `haystack` (memchr for the first byte, then memcmp).
    static func find(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, let base = haystack.baseAddress else { return nil }
        let first = Int32(needle[0])
        var offset = 0
        let last = haystack.count - needle.count
        return needle.withUnsafeBytes { n -> Int? in
            while offset <= last {
                guard let hit = memchr(base + offset, first, last - offset + 1) else { return nil }
                let at = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + at, n.baseAddress!, needle.count) == 0 { return at }
                offset = at + 1
            }
            return nil
        }
    }

    static func parseHeaders(_ block: String) throws -> PartHead {
        var name: String?
        var filename: String?
        var contentType: String?
        for line in block.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if key == "content-type" { contentType = value }
            guard key == "content-disposition" else { continue }
            for param in Self.splitParameters(value).dropFirst() {
                guard let eq = param.firstIndex(of: "=") else { continue }
                let k = param[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
                var v = param[param.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 {
                    v = String(v.dropFirst().dropLast()).replacingAll("\\\"", with: "\"")
                }
                if k == "name" { name = v }
                // Browsers (and FlickrAPI) write `"`, CR and LF in a file name as %22, %0D, %0A.
                if k == "filename" {
                    filename = v.replacingAll("%22", with: "\"").replacingAll("%0D", with: "\r").replacingAll("%0A", with: "\n")
                }
                if k == "filename*", filename == nil, let tick = v.range(of: "''") {
                    filename = String(v[tick.upperBound...]).removingPercentEncodingSafely()
                }
            }
        }
        guard let name else { throw MultipartError(message: "a part without a name") }
        return PartHead(name: name, filename: filename, contentType: contentType)
    }

    /// Splits `form-data; name="a;b"; filename="c"` on semicolons outside quotes.
    static func splitParameters(_ value: String) -> [String] {
        var out: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for ch in value {
            if escaped {
                current.append(ch)
                escaped = false
                continue
            }
            if ch == "\\" && quoted { escaped = true; current.append(ch); continue }
            if ch == "\"" { quoted.toggle() }
            if ch == ";" && !quoted {
                out.append(current)
                current = ""
            } else {
                current.append(ch)
            }
        }
        out.append(current)
        return out
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let r = rest.range(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }

    func removingPercentEncodingSafely() -> String {
        FlickrProtocol.PercentEncoding.decode(self)
    }
}
