import Foundation
import Hummingbird

/// `--budget N/SECONDS`: counts each REST, upload and replace call against its API key's
/// ``CallBudget`` window and answers Flickr's 429 with `Retry-After` past it (a refused upload's
/// file is deleted). Calls that name no key are not counted: authentication refuses them anyway.
struct BudgetMiddleware: RouterMiddleware {
    typealias Context = SandboxRequestContext
    let controls: SandboxControls

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.route.isAPI else { return try await next(request, context) }
        let params = context.flickrRequest(request).parameters
        guard let key = params["oauth_consumer_key"] ?? params["api_key"],
              let wait = controls.admitBudget(apiKey: key) else { return try await next(request, context) }
        if let file = context.upload?.file { try? FileManager.default.removeItem(at: file) }
        return context.answer(FaultReplies.tooManyRequests(retryAfter: max(1, Int(wait.rounded(.up)))), noting: params)
    }
}
