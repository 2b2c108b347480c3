import FlickrProtocol
import Foundation
import Hummingbird

/// Streams an upload or replace body to disk (``SandboxEngine/receiveUpload(contentType:body:)``)
/// once the request has passed the faults, so that the budget and authentication can read its
/// fields. A malformed body is answered `3 General upload failure`.
struct UploadBodyMiddleware: RouterMiddleware {
    typealias Context = SandboxRequestContext
    let engine: SandboxEngine

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.route.isUpload else { return try await next(request, context) }
        var context = context
        do {
            context.upload = try await engine.receiveUpload(contentType: request.headers[.contentType] ?? "", body: request.body)
        } catch let error as MultipartError {
            return context.answer(ResponseFormat.xml.render(APIFailure(.generalUploadFailure, "General upload failure: \(error.message)")),
                                  noting: context.flickrRequest(request).parameters)
        }
        return try await next(request, context)
    }
}
