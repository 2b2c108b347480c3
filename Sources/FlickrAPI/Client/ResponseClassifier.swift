import Foundation
import FlickrProtocol

/// Turns one HTTP answer into a mapped response or the right ``FlickrError`` — a pure function,
/// tested on the error bodies Flickr has been seen to send (Tests/Fixtures/errors).
package enum ResponseClassifier {
    /// Classifies a REST, upload or replace answer.
    /// - Parameters:
    ///   - method: the Flickr method (or `upload`/`replace`) for error messages.
    ///   - retryAfter: the raw `Retry-After` header, if any.
    package static func classify(status: Int, contentType: String?, retryAfter: String?,
                                body: [UInt8], method: String?) throws(FlickrError) -> FlickrNode {
        if status == 401, let problem = oauthProblem(body) {
            throw problem.withMethod(method, status: status)
        }
        if status == 429 {
            throw FlickrError(kind: .http, message: "rate limited by Flickr (HTTP 429 Too Many Requests)",
                              method: method, httpStatus: status, retryAfter: parseRetryAfter(retryAfter),
                              bodyExcerpt: excerpt(body))
        }
        if !(200..<300).contains(status) {
            throw FlickrError(kind: .http, message: "HTTP \(status) \(reason(status))", method: method,
                              httpStatus: status, retryAfter: parseRetryAfter(retryAfter), bodyExcerpt: excerpt(body))
        }
        guard body.contains(where: { !isSpace($0) }) else {
            throw FlickrError(kind: .parse, message: "empty response body (HTTP \(status))", method: method,
                              httpStatus: status, bodyExcerpt: "")
        }
        if looksLikeHTML(body) {
            throw FlickrError(kind: .http, message: "HTTP \(status) answered with an HTML page, not a Flickr response",
                              method: method, httpStatus: status, bodyExcerpt: excerpt(body))
        }
        let tree: FlickrNode
        do throws(FlickrParseError) {
            tree = isXML(body) ? try FlickrXML.parse(body) : try FlickrJSON.parse(Data(body))
        } catch {
            throw FlickrError(kind: .parse, message: "malformed response: \(error.description)", method: method,
                              httpStatus: status, bodyExcerpt: excerpt(body))
        }
        switch tree["stat"]?.string {
        case "ok"?:
            return tree
        case "fail"?:
            throw apiError(tree, method: method, status: status)
        default:
            throw FlickrError(kind: .parse, message: "not a Flickr response (no stat=\"ok\"/\"fail\")",
                              method: method, httpStatus: status, bodyExcerpt: excerpt(body))
        }
    }

    /// True when `body` is an XML `<rsp stat="ok">` document that ends with `</rsp>`: a complete
    /// success answer (an XML declaration and whitespace may come first and last). Cheap: it looks
    /// at the first and last bytes only; well-formedness is the mapper's job.
    package static func isCompleteSuccessXML(_ body: [UInt8]) -> Bool {
        var start = 0
        while start < body.count, isSpace(body[start]) { start += 1 }
        if body[start...].starts(with: Array("<?xml".utf8)) {
            guard let close = body[start...].firstIndex(of: UInt8(ascii: ">")) else { return false }
            start = close + 1
            while start < body.count, isSpace(body[start]) { start += 1 }
        }
        guard body[start...].starts(with: Array("<rsp stat=\"ok\"".utf8)) else { return false }
        var end = body.count
        while end > start, isSpace(body[end - 1]) { end -= 1 }
        let closing = Array("</rsp>".utf8)
        return end - start >= closing.count && Array(body[(end - closing.count)..<end]) == closing
    }

    /// The API error of a `stat="fail"` tree (XML `<err code msg>` or JSON `code`/`message`).
    static func apiError(_ tree: FlickrNode, method: String?, status: Int) -> FlickrError {
        let code = tree["err.code"]?.int ?? tree["code"]?.int
        let message = tree["err.msg"]?.string ?? tree["message"]?.string
            ?? code.flatMap(FlickrErrorCode.message(for:)) ?? "unknown error"
        let duplicate = tree["duplicate_photo_id"]?.text ?? tree["err.duplicate_photo_id"]?.string
        return FlickrError(kind: .api, code: code, message: message, method: method, httpStatus: status,
                           duplicatePhotoID: duplicate)
    }

    /// `oauth_problem=…[&debug_sbs=…]` bodies → an OAuth error; nil for anything else.
    package static func oauthProblem(_ body: [UInt8]) -> FlickrError? {
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("oauth_problem=") else { return nil }
        // debug_sbs is the raw base string: it holds '&' itself, so it runs to the end of the body.
        var problem = text.dropFirst("oauth_problem=".count)
        var debugSBS: String?
        if let r = problem.range(of: "&debug_sbs=") {
            debugSBS = String(problem[r.upperBound...])
            problem = problem[..<r.lowerBound]
        } else if let amp = problem.firstIndex(of: "&") {
            problem = problem[..<amp]
        }
        let name = PercentEncoding.decode(problem)
        return FlickrError(kind: .oauth, message: "OAuth \(name.replacingOccurrences(of: "_", with: " "))",
                           oauthProblem: name, debugSBS: debugSBS)
    }

    /// Seconds from `Retry-After`: delta-seconds or an HTTP date.
    package static func parseRetryAfter(_ value: String?) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let s = Double(value) { return max(0, s) }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = f.date(from: value) else { return nil }
        return max(0, date.timeIntervalSinceNow)
    }

    /// The start of a body for error messages: at most 200 characters, whitespace collapsed.
    package static func excerpt(_ body: [UInt8], limit: Int = 200) -> String {
        let text = String(decoding: body.prefix(limit * 4), as: UTF8.self)
        var out = ""
        var lastSpace = false
        for ch in text {
            if ch.isWhitespace {
                if !lastSpace && !out.isEmpty { out.append(" ") }
                lastSpace = true
            } else {
                out.append(ch)
                lastSpace = false
            }
            if out.count >= limit { return out + "…" }
        }
        return out.trimmingCharacters(in: .whitespaces)
    }

    /// Whether `body` starts (past whitespace) with an HTML page's first tag, in any case. On
    /// the bytes: every answer passes here, and a String's Foundation trimming and lowercasing
    /// cost more than the rest of a small answer's checks.
    static func looksLikeHTML(_ body: [UInt8]) -> Bool {
        var start = body.startIndex
        while start < body.endIndex, isSpace(body[start]) { start += 1 }
        let head = body[start..<min(start + 16, body.endIndex)].map { (65...90).contains($0) ? $0 + 32 : $0 }
        return htmlStarts.contains { head.starts(with: $0) }
    }

    /// The lowercased beginnings of an HTML page (Flickr's error pages among them).
    private static let htmlStarts: [[UInt8]] = ["<!doctype html", "<html", "<head", "<body", "<!-- status code"].map { Array($0.utf8) }

    /// Whether a body is XML (its first byte past whitespace is `<`) rather than JSON.
    static func isXML(_ body: [UInt8]) -> Bool {
        body.first(where: { !isSpace($0) }) == UInt8(ascii: "<")
    }

    @inline(__always) static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 413: "Payload Too Large"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}

extension FlickrError {
    func withMethod(_ method: String?, status: Int?) -> FlickrError {
        var e = self
        if e.method == nil { e.method = method }
        if e.httpStatus == nil { e.httpStatus = status }
        return e
    }
}
