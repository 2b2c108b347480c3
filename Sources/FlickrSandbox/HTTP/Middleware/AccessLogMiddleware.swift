import FlickrProtocol
import Hummingbird

/// The outermost middleware: reads the request line (path, query, route) into the context,
/// counts the request in flight, and writes its `--log` line once it is answered — or, when no
/// answer was sent (a fault dropped the connection, or it failed), with a null status.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = SandboxRequestContext
    let controls: SandboxControls
    /// `--log FILE`, when given.
    let log: AccessLog?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let entry = context.entry
        entry.http = request.method.rawValue
        controls.requestStarted()
        defer { controls.requestEnded() }
        let target = request.head.path ?? "/"
        var queryString = ""
        if let q = target.firstIndex(of: "?") {
            context.path = String(target[..<q])
            queryString = String(target[target.index(after: q)...])
        } else {
            context.path = target
        }
        context.query = FormEncoding.parse(queryString)
        context.route = SandboxRoute(path: context.path)
        entry.path = context.path
        entry.note(context.query.reduce(into: [:]) { $0[$1.0] = $1.1 })
        do {
            let response = try await next(request, context)
            if entry.status == nil { entry.status = Int(response.status.code) }
            log?.append(entry)
            return response
        } catch {
            entry.status = nil  // dropped on purpose (a fault) or failed: no answer was sent
            log?.append(entry)
            throw error
        }
    }
}
