import FlickrProtocol
import Foundation
import Hummingbird
import NIOCore

/// The per-request context: Hummingbird's core storage, the connection (which fault injection
/// needs to reset or cut a response short), and what the middleware chain learns on the way
/// in — the route, the form or upload body, a drawn API fault, the authenticated caller — for
/// the next middleware and the endpoint.
struct SandboxRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel
    /// This request's access-log line, filled as the request passes.
    let entry = AccessLog.Entry()
    /// The path exactly as requested, without the query.
    var path = "/"
    /// The query's pairs.
    var query: [(String, String)] = []
    var route = SandboxRoute.unknown
    /// The fields of a form-posted body (REST, OAuth endpoints).
    var form: [(String, String)] = []
    /// An upload or replace body, streamed to disk.
    var upload: ReceivedUpload?
    /// A drawn API error (105/106) for a REST call, answered once the budget has counted it.
    var apiFault: FaultKind?
    /// Who is calling, once authenticated (REST, upload, replace).
    var caller: SandboxCaller?
    /// The time of the call as authentication saw it (seconds since 1970).
    var now = 0

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The request as the sandbox reads it: where it went and every parameter (query,
    /// `Authorization: OAuth` header, form or upload fields).
    func flickrRequest(_ request: Request) -> SandboxRequest {
        let authorization = request.headers[.authorization].flatMap { header -> [(String, String)]? in
            header.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("oauth ")
                ? OAuthParameters.parseAuthorizationHeader(header) : nil
        }
        return SandboxRequest(verb: request.method.rawValue, path: path, host: request.head.authority ?? "127.0.0.1",
                              query: query, authorization: authorization, body: upload?.fields ?? form)
    }

    /// Writes `reply` as the response, noting it (and the call's parameters, when given) in the
    /// access log.
    func answer(_ reply: SandboxReply, noting parameters: [String: String]? = nil) -> Response {
        if let parameters { entry.note(parameters) }
        entry.note(reply)
        return reply.response
    }
}
