import Hummingbird

/// What answers each of Flickr's paths once the middleware chain let the request through:
/// REST calls go to the ``MethodRouter``, uploads to the engine, the OAuth and legacy login
/// endpoints, `/static/` images and a video's play URL to the engine's protocol logic.
struct SandboxEndpoints: Sendable {
    let engine: SandboxEngine
    let methods: MethodRouter

    /// `/services/rest/`: the authenticated call, answered by its method in the call's format.
    func rest(_ request: Request, context: SandboxRequestContext) -> Response {
        guard context.route == .rest, let caller = context.caller else { return context.answer(.notFound()) }
        let flickrRequest = context.flickrRequest(request)
        let params = flickrRequest.parameters
        let format = ResponseFormat(params)
        let reply: SandboxReply
        do {
            let payload = try methods.dispatch(flickrRequest, caller: caller, now: context.now, store: engine.store,
                                               logger: engine.logger)
            reply = format.render(payload)
        } catch {
            reply = format.render(error)
        }
        return context.answer(reply, noting: params)
    }

    /// `/services/upload/` and `/services/replace/`: the streamed body, authenticated.
    func upload(_ request: Request, context: SandboxRequestContext) -> Response {
        guard context.route.isUpload, let upload = context.upload, let caller = context.caller else {
            return context.answer(.notFound())
        }
        let flickrRequest = context.flickrRequest(request)
        return context.answer(engine.completeUpload(flickrRequest, upload: upload, caller: caller, now: context.now,
                                                    replace: context.route == .replace),
                              noting: flickrRequest.parameters)
    }

    /// The OAuth endpoints and the legacy login page, which verify their own signatures.
    func authorization(_ request: Request, context: SandboxRequestContext) -> Response {
        let flickrRequest = context.flickrRequest(request)
        let reply: SandboxReply
        switch context.route {
        case .requestToken: reply = engine.handleRequestToken(flickrRequest)
        case .authorize: reply = engine.handleAuthorize(flickrRequest)
        case .accessToken: reply = engine.handleAccessToken(flickrRequest)
        case .legacyLogin: reply = engine.handleLegacyLogin(flickrRequest)
        default: reply = .notFound()
        }
        return context.answer(reply, noting: flickrRequest.parameters)
    }

    /// `/static/…`: image bytes.
    func image(_ request: Request, context: SandboxRequestContext) -> Response {
        guard context.route == .image else { return context.answer(.notFound()) }
        return context.answer(engine.handleStatic(path: context.path), noting: context.flickrRequest(request).parameters)
    }

    /// `/photos/{user}/{id}/play/orig/{originalsecret}/`: a video's original file.
    func video(_ request: Request, context: SandboxRequestContext) -> Response {
        guard context.route == .video else { return context.answer(.notFound()) }
        return context.answer(engine.handleVideoPlay(path: context.path), noting: context.flickrRequest(request).parameters)
    }

    /// `/`: a page saying what this is.
    func index(_ request: Request, context: SandboxRequestContext) -> Response {
        guard context.route == .index else { return context.answer(.notFound()) }
        return context.answer(.html(200, engine.page(title: "Flickr Sandbox",
                                                     body: "<p>A Flickr emulator. REST at <code>/services/rest/</code>.</p>")))
    }
}
