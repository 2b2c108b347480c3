import Hummingbird

/// Latency, the `--rate-limit` and fault injection. Every request waits `--latency`; API calls
/// pass the rate limit (429 past it); API calls and the OAuth token endpoints draw a fault
/// (`/static/` downloads and a video's play URL draw an image fault). A drawn 5xx, 429 or HTML page is answered here;
/// a reset drops the connection; `truncate` and `stall` cut the answer the rest of the chain
/// makes (but for the budget's 429); an API error (105/106) is left in the context for
/// ``APIFaultMiddleware``, which answers it once the budget has counted the call.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = SandboxRequestContext
    let controls: SandboxControls
    /// `--log FILE`: a reset is logged before the connection goes.
    let log: AccessLog?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let latency = controls.latencyMilliseconds
        if latency > 0 { try? await Task.sleep(for: .milliseconds(latency)) }
        let route = context.route
        guard route.isAPI || route.isTokenEndpoint || route.isDownload else { return try await next(request, context) }
        if route.isAPI { guard controls.admit() else { return context.answer(FaultReplies.tooManyRequests()) } }
        var context = context
        switch route.isDownload ? controls.drawImageFault() : controls.drawFault() {
        case .reset?:
            context.entry.status = nil
            log?.append(context.entry)  // before the reset: whoever sees it finds its line
            await FaultReplies.reset(context.channel)
            throw ConnectionDropped()
        case .serverError?:
            return context.answer(FaultReplies.serverError(Bool.random() ? 502 : 503))
        case .tooManyRequests?:
            return context.answer(FaultReplies.tooManyRequests())
        case .html?:
            return context.answer(.html(200, FaultReplies.maintenancePage))
        case .malformed? where route == .rest:
            return context.answer(FaultReplies.malformed())
        case let kind? where kind == .truncate || kind == .stall:
            let response = try await next(request, context)
            // The budget's refusal is the one answer made after this point that is never cut.
            guard response.status != .tooManyRequests else { return response }
            return CutResponse.cut(response, channel: context.channel, stall: kind == .stall)
        case let kind? where kind == .unavailable || kind == .writeFailed:
            // Flickr's own error answers, on REST calls only (decided once the method is known).
            if route == .rest { context.apiFault = kind }
            return try await next(request, context)
        default:
            return try await next(request, context)
        }
    }
}
