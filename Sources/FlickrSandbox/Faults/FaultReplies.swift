import FlickrProtocol
import Foundation
import NIOCore
import NIOPosix

/// Flickr's failure shapes as the fault middleware answers them: 5xx and 429 pages, the
/// maintenance page, the API errors 105 and 106, a reset connection.
enum FaultReplies {
    static let maintenancePage = """
        <!DOCTYPE html>
        <html><head><title>Flickr: Site temporarily unavailable</title></head>
        <body><h1>Flickr will be back soon</h1><p>We're doing some maintenance. Please try again in a few minutes.</p></body></html>

        """

    /// The API error of a drawn 105/106 fault for this call, or nil when it does not apply
    /// (106 only fails writes, as on Flickr; the write then does not happen).
    static func apiFailure(_ kind: FaultKind, for request: SandboxRequest) -> APIFailure? {
        switch kind {
        case .unavailable: return APIFailure(.serviceUnavailable, "Service currently unavailable")
        case .writeFailed:
            guard let name = request.parameters["method"], let method = MethodCatalog.shared.method(name),
                  method.perms >= .write else { return nil }
            return APIFailure(.writeFailed, "Write operation failed")
        default: return nil
        }
    }

    /// A complete answer that is not well-formed XML: U+0001 inside an element, which XML 1.0
    /// forbids (the `malformed` fault).
    static func malformed() -> SandboxReply {
        SandboxReply(status: 200, contentType: "text/xml; charset=utf-8",
                     body: "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n<a>x\u{1}y</a>\n</rsp>\n")
    }

    /// Flickr's 429: a small HTML page and `Retry-After` in whole seconds.
    static func tooManyRequests(retryAfter: Int = 1) -> SandboxReply {
        .html(429, "<html><body><h1>429 Too Many Requests</h1>\nYou have sent too many requests in a given amount of time.\n</body></html>",
              headers: [("Retry-After", String(retryAfter))])
    }

    static func serverError(_ status: Int) -> SandboxReply {
        .html(status, """
            <!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd">
            <html><head><title>Flickr</title></head>
            <body><!-- status code : \(status) -->
            <h1>Will be right back...</h1>
            <p>Thank you for your patience. Our engineers are working quickly to resolve the issue.</p>
            </body></html>

            """)
    }

    /// Closes the connection with an RST (SO_LINGER 0) and no response.
    static func reset(_ channel: any Channel) async {
        if let provider = channel as? SocketOptionProvider {
            try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }
}
