import FlickrProtocol
import Foundation
import Hummingbird

/// OAuth 1.0a or legacy authentication of REST, upload and replace calls
/// (``SandboxEngine/authenticate(_:now:)``): the caller goes into the context for the endpoint;
/// a failure is answered here — HTTP 401 `oauth_problem=…` for OAuth, Flickr's API error for
/// the legacy scheme (in the call's format for REST, XML for uploads, whose file is deleted).
/// A REST call in an unknown format is refused first (`111 Format "…" not found`, in XML).
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = SandboxRequestContext
    let engine: SandboxEngine

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.route.isAPI else { return try await next(request, context) }
        var context = context
        let flickrRequest = context.flickrRequest(request)
        let params = flickrRequest.parameters
        let format = context.route == .rest ? ResponseFormat(params) : .xml
        if case .unknown(let name) = format {
            return context.answer(ResponseFormat.xml.render(APIFailure(.formatNotFound, "Format \"\(name)\" not found")), noting: params)
        }
        context.now = SandboxEngine.now()
        do {
            context.caller = try engine.authenticate(flickrRequest, now: context.now)
        } catch {
            if let file = context.upload?.file { try? FileManager.default.removeItem(at: file) }
            switch error {
            case .oauth(let problem): return context.answer(.oauth(problem), noting: params)
            case .api(let failure): return context.answer(format.render(failure), noting: params)
            }
        }
        return try await next(request, context)
    }
}
