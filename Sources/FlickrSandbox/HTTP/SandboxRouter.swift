import FlickrProtocol
import HTTPTypes
import Hummingbird

/// The sandbox as a Hummingbird application: the middleware chain every request passes, in
/// order — access log, form body, latency/rate limit/faults, upload body, budget, API faults,
/// authentication — then Hummingbird's router over Flickr's paths (``SandboxEndpoints``), with
/// REST calls routed on by method name (``MethodRouter``).
enum SandboxRouter {
    /// Flickr's paths answer whatever the verb (a REST setter sent with GET is refused by the
    /// method router with Flickr's 116, not by HTTP).
    static let verbs: [HTTPRequest.Method] = [.get, .post, .put, .delete, .head, .patch, .options]

    static func make(engine: SandboxEngine, log: AccessLog?) -> Router<SandboxRequestContext> {
        let router = Router(context: SandboxRequestContext.self)
        router.add(middleware: AccessLogMiddleware(controls: engine.controls, log: log))
        router.add(middleware: FormBodyMiddleware())
        router.add(middleware: FaultMiddleware(controls: engine.controls, log: log))
        router.add(middleware: UploadBodyMiddleware(engine: engine))
        router.add(middleware: BudgetMiddleware(controls: engine.controls))
        router.add(middleware: APIFaultMiddleware())
        router.add(middleware: AuthenticationMiddleware(engine: engine))
        router.add(middleware: UnknownPathMiddleware())
        let endpoints = SandboxEndpoints(engine: engine, methods: .flickr)
        for verb in verbs {
            for service in FlickrService.allCases {
                switch SandboxRoute(path: service.path) {
                case .rest:
                    router.on(RouterPath(service.path), method: verb) { request, context in endpoints.rest(request, context: context) }
                case .upload, .replace:
                    router.on(RouterPath(service.path), method: verb) { request, context in endpoints.upload(request, context: context) }
                default:
                    router.on(RouterPath(service.path), method: verb) { request, context in
                        endpoints.authorization(request, context: context)
                    }
                }
            }
            router.on(RouterPath(FlickrService.imagesPath + "**"), method: verb) { request, context in
                endpoints.image(request, context: context)
            }
            router.on(RouterPath(SandboxRoute.photoPagesPath + "**"), method: verb) { request, context in
                endpoints.video(request, context: context)
            }
            router.on("/", method: verb) { request, context in endpoints.index(request, context: context) }
        }
        return router
    }
}
