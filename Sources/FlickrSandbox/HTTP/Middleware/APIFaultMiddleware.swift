import Hummingbird

/// Answers a REST call for which ``FaultMiddleware`` drew Flickr's API error 105 (any call) or
/// 106 (a write, which then does not happen), after the budget counted it and before
/// authentication.
struct APIFaultMiddleware: RouterMiddleware {
    typealias Context = SandboxRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.route == .rest, let kind = context.apiFault else { return try await next(request, context) }
        let flickrRequest = context.flickrRequest(request)
        guard let failure = FaultReplies.apiFailure(kind, for: flickrRequest) else { return try await next(request, context) }
        let params = flickrRequest.parameters
        return context.answer(ResponseFormat(params).orXML.render(failure), noting: params)
    }
}
