import Foundation

/// An HTTP answer before it is written: status, headers and body (or a file to stream).
struct SandboxReply: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]
    /// Stream this file as the body instead of ``body``.
    var file: URL? = nil

    init(status: Int, contentType: String, body: String, headers: [(String, String)] = []) {
        self.status = status
        self.headers = [("Content-Type", contentType)] + headers
        self.body = Array(body.utf8)
    }

    init(status: Int, contentType: String, bytes: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.headers = [("Content-Type", contentType)] + headers
        self.body = bytes
    }

    static let xmlType = "text/xml; charset=utf-8"
    static let jsonType = "text/javascript; charset=utf-8"
    static let htmlType = "text/html; charset=utf-8"
    static let oauthType = "text/plain;charset=UTF-8"

    /// HTTP 401 `oauth_problem=…[&debug_sbs=…]`, Flickr's OAuth failure.
    static func oauth(_ problem: OAuthProblem) -> SandboxReply {
        var body = "oauth_problem=" + problem.problem
        if let sbs = problem.debugSBS { body += "&debug_sbs=" + sbs }
        return SandboxReply(status: 401, contentType: oauthType, body: body)
    }

    /// A form-encoded 200 (OAuth token endpoints).
    static func form(_ body: String) -> SandboxReply {
        SandboxReply(status: 200, contentType: oauthType, body: body)
    }

    static func notFound() -> SandboxReply {
        SandboxReply(status: 404, contentType: htmlType, body: "")
    }

    static func html(_ status: Int, _ body: String, headers: [(String, String)] = []) -> SandboxReply {
        SandboxReply(status: status, contentType: htmlType, body: body, headers: headers)
    }
}
