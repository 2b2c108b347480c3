import FlickrProtocol
import Logging

/// The REST methods by name: a dictionary from a Flickr method name to its handler, filled by
/// the handler groups of each catalog namespace. A call reaches it authenticated (see
/// `AuthenticationMiddleware`); the router makes the catalog checks (method, verb, signature,
/// permissions, required arguments), then runs the handler or answers the documented example.
struct MethodRouter: Sendable {
    private(set) var handlers: [String: MethodHandler] = [:]

    /// The router of the sandbox: every group registered.
    static let flickr: MethodRouter = {
        var router = MethodRouter()
        // Every namespace the sandbox models.
        let groups: [any MethodGroup.Type] = [
            TestHandlers.self, AuthHandlers.self, ReflectionHandlers.self, PeopleHandlers.self, PhotosHandlers.self,
            PhotosCommentsHandlers.self, PhotosGeoHandlers.self, PhotosNotesHandlers.self, PhotosPeopleHandlers.self,
            PhotosSuggestionsHandlers.self, PhotosetsHandlers.self, PhotosetsCommentsHandlers.self, TagsHandlers.self,
            MachineTagsHandlers.self, FavoritesHandlers.self, GalleriesHandlers.self, GroupsHandlers.self,
            GroupsDiscussHandlers.self, InterestingnessHandlers.self, StatsHandlers.self, TestimonialsHandlers.self,
            BlogsHandlers.self, URLsHandlers.self, ProfileHandlers.self,
        ]
        for group in groups { group.register(on: &router) }
        return router
    }()

    /// Routes `name` to `handler` (the first registration of a name stays).
    mutating func register(_ name: String, _ handler: @escaping MethodHandler) {
        if handlers[name] == nil { handlers[name] = handler }
    }

    /// The methods answered from the state, sorted.
    var names: [String] { handlers.keys.sorted() }

    /// The catalog checks, then the handler or the documented example.
    func dispatch(_ request: SandboxRequest, caller: SandboxCaller, now: Int, store: SandboxStore,
                  logger: Logger) throws(APIFailure) -> MethodPayload {
        let params = request.parameters
        let name = params["method"] ?? ""
        guard let method = MethodCatalog.shared.method(name), method.name == name else {
            throw APIFailure(.methodNotFound, "Method \"\(name)\" not found")
        }
        if method.verb == "POST", request.verb != "POST" {
            throw APIFailure(.postRequired, "The POST method is now required for all setters")
        }
        if method.perms > caller.perms {
            throw APIFailure(.insufficientPermissions, "Insufficient permissions. Method requires \(method.perms.rawValue) privileges; \(caller.perms.rawValue) granted.")
        }
        if caller.scheme != .oauth, method.needsSigning, params["api_sig"] == nil {
            throw APIFailure(.missingSignature, "Missing signature")
        }
        for argument in method.requiredInPractice {
            // Present but empty counts as given (setTags with "" clears the tags, as on Flickr).
            if params[argument] == nil {
                throw Self.missingArgument(method)
            }
        }
        // What Flickr stores of text holds no character XML cannot carry (XMLText).
        let call = MethodCall(method: method, request: request, params: params.mapValues(XMLText.storable), caller: caller, now: now)
        guard let handler = handlers[method.name] else { return Self.exampleAnswer(call) }
        let payload: MethodPayload
        do { payload = try handler(store, call) } catch let failure as APIFailure { throw failure } catch {
            logger.error("\(method.name) failed: \(error)")
            throw APIFailure(.writeFailed, "Write operation failed")
        }
        // A write is answered as done only once it is on disk (with --state).
        if method.perms >= .write, let failure = store.failure {
            logger.error("\(method.name): the state cannot be written: \(failure)")
            throw APIFailure(.writeFailed, "Write operation failed")
        }
        return payload
    }

    /// Flickr's answer to a missing required argument: the method's own "missing"/"required"
    /// error when the catalog lists one, else `1 Required parameter missing`.
    static func missingArgument(_ method: FlickrMethod) -> APIFailure {
        if let e = method.errors.first(where: {
            let m = $0.message.lowercased()
            return m.contains("missing") || m.contains("required") || m.contains("not specified")
        }) {
            return APIFailure(code: e.code, message: e.message)
        }
        return APIFailure(.requiredParameterMissing, "Required parameter missing")
    }

    /// Every method without its own handler: the documented example, or the empty success.
    static func exampleAnswer(_ call: MethodCall) -> MethodPayload {
        if let example = MethodCatalog.examples[call.method.name] {
            return .example(method: call.method.name, xml: example)
        }
        return .empty
    }
}
