import Hummingbird

/// The innermost middleware: a path the router does not know is answered the sandbox's 404
/// (and logged as such), not Hummingbird's error.
struct UnknownPathMiddleware: RouterMiddleware {
    typealias Context = SandboxRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return context.answer(.notFound())
        }
    }
}
