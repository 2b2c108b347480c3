import FlickrProtocol
import Foundation
import Synchronization

/// `--log FILE`: one JSON object per request, appended with one `write(2)` per line (so a line
/// is on disk as soon as the request is answered, and lines of concurrent requests never mix):
///
///     {"t": 1763822400.123, "http": "POST", "path": "/services/rest/", "method": "flickr.photos.setTags",
///      "status": 200, "stat": "ok", "code": null, "api_key": "…", "photo_id": "…", "ms": 1.2}
///
/// Never a secret, a token or a signature: the API key and a photo id are identifiers.
/// `status` is null for a connection dropped on purpose (the `reset` fault).
final class AccessLog: Sendable {
    private let fd: Int32

    init(path: String) throws {
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SandboxError("--log \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    /// What one request was, as far as the responder learned it.
    final class Entry: @unchecked Sendable {  // filled by the one task answering the request
        let start = ContinuousClock.now
        let time = Date().timeIntervalSince1970
        var http = ""
        var path = ""
        var method: String?
        var apiKey: String?
        var photoID: String?
        var status: Int?
        var stat: String?
        var code: Int?
        /// Already written: ``AccessLog/append(_:)`` writes an entry once (a reset is logged
        /// before the connection goes, so that whoever sees the reset finds its line).
        var logged = false

        /// Takes the Flickr-level facts from the request's parameters.
        func note(_ parameters: [String: String]) {
            method = parameters["method"] ?? method
            apiKey = parameters["api_key"] ?? parameters["oauth_consumer_key"] ?? apiKey
            photoID = parameters["photo_id"] ?? photoID
        }

        /// Takes `stat` and the error code from an XML or JSON answer.
        func note(_ reply: SandboxReply) {
            status = reply.status
            let head = String(decoding: reply.body.prefix(4096), as: UTF8.self)
            if head.contains("stat=\"ok\"") || head.contains("\"stat\":\"ok\"") {
                stat = "ok"
            } else if head.contains("stat=\"fail\"") || head.contains("\"stat\":\"fail\"") {
                stat = "fail"
                let digits = head.range(of: "code=\"").map { head[$0.upperBound...] }
                    ?? head.range(of: "\"code\":").map { head[$0.upperBound...] }
                code = digits.flatMap { Int($0.prefix { $0.isNumber }) }
            }
        }
    }

    /// Writes `e`'s line, once: an entry already written is left alone.
    func append(_ e: Entry) {
        guard !e.logged else { return }
        e.logged = true
        func text(_ s: String?) -> String { s.map { FlickrJSON.quote($0) } ?? "null" }
        let ms = Double((ContinuousClock.now - e.start).components.attoseconds) / 1e15
            + Double((ContinuousClock.now - e.start).components.seconds) * 1000
        let line = "{\"t\": \(String(format: "%.3f", e.time)), \"http\": \(text(e.http)), \"path\": \(text(e.path)), "
            + "\"method\": \(text(e.method)), \"status\": \(e.status.map(String.init) ?? "null"), \"stat\": \(text(e.stat)), "
            + "\"code\": \(e.code.map(String.init) ?? "null"), \"api_key\": \(text(e.apiKey)), "
            + "\"photo_id\": \(text(e.photoID)), \"ms\": \(String(format: "%.1f", ms))}\n"
        let bytes = Array(line.utf8)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }
}
