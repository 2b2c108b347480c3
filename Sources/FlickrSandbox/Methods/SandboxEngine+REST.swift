import FlickrProtocol
import Foundation

extension SandboxEngine {
    /// Answers `/services/rest/`: authentication, catalog checks, then the method.
    func handleREST(_ request: SandboxRequest) -> SandboxReply {
        let params = request.parameters
        let format = ResponseFormat(params)
        if case .unknown(let name) = format {
            return ResponseFormat.xml.render(APIFailure(111, "Format \"\(name)\" not found"))
        }
        let now = Self.now()
        let caller: SandboxCaller
        do { caller = try authenticate(request, now: now) } catch {
            switch error {
            case .oauth(let problem): return .oauth(problem)
            case .api(let failure): return format.render(failure)
            }
        }
        do {
            let payload = try dispatch(request: request, params: params, caller: caller, now: now)
            return format.render(payload)
        } catch {
            return format.render(error)
        }
    }

    /// The catalog checks (method, verb, signature, permissions, required arguments), then the
    /// handler or the documented example.
    func dispatch(request: SandboxRequest, params: [String: String], caller: SandboxCaller,
                  now: Int) throws(APIFailure) -> MethodPayload {
        let name = params["method"] ?? ""
        guard let method = MethodCatalog.shared.method(name), method.name == name else {
            throw APIFailure(112, "Method \"\(name)\" not found")
        }
        if method.verb == "POST", request.verb != "POST" {
            throw APIFailure(116, "The POST method is now required for all setters")
        }
        if method.perms > caller.perms {
            throw APIFailure(99, "Insufficient permissions. Method requires \(method.perms.rawValue) privileges; \(caller.perms.rawValue) granted.")
        }
        if caller.scheme != .oauth, method.needsSigning, params["api_sig"] == nil {
            throw APIFailure(97, "Missing signature")
        }
        for argument in method.requiredInPractice {
            // Present but empty counts as given (setTags with "" clears the tags, as on Flickr).
            if params[argument] == nil {
                throw Self.missingArgument(method)
            }
        }
        let call = MethodCall(method: method, request: request, params: params, caller: caller, now: now)
        if let handler = Self.handlers[method.name] {
            let payload: MethodPayload
            do { payload = try handler(self, call) } catch let failure as APIFailure { throw failure } catch {
                logger.error("\(method.name) failed: \(error)")
                throw APIFailure(106, "Write operation failed")
            }
            // A write is answered as done only once it is on disk (with --state).
            if method.perms >= .write, let failure = store.failure {
                logger.error("\(method.name): the state cannot be written: \(failure)")
                throw APIFailure(106, "Write operation failed")
            }
            return payload
        }
        return try exampleAnswer(call)
    }


    /// Flickr's answer to a missing required argument: the method's own "missing"/"required"
    /// error when the catalog lists one, else `1 Required parameter missing`.
    static func missingArgument(_ method: FlickrMethod) -> APIFailure {
        if let e = method.errors.first(where: {
            let m = $0.message.lowercased()
            return m.contains("missing") || m.contains("required") || m.contains("not specified")
        }) {
            return APIFailure(e.code, e.message)
        }
        return APIFailure(1, "Required parameter missing")
    }

    /// Every method without its own handler: the documented example, or the empty success.
    func exampleAnswer(_ call: MethodCall) throws(APIFailure) -> MethodPayload {
        if let example = MethodCatalog.examples[call.method.name] {
            return .example(method: call.method.name, xml: example)
        }
        return .empty
    }
}

/// `format=rest` (XML), `format=json` (with `jsonFlickrApi(…)` or `nojsoncallback=1`).
enum ResponseFormat: Sendable {
    case xml
    case json(callback: String?)
    case unknown(String)

    /// XML for an unknown format (how Flickr answers a failure it reports before the format).
    var orXML: ResponseFormat {
        if case .unknown = self { return .xml }
        return self
    }

    init(_ params: [String: String]) {
        switch params["format"] ?? "rest" {
        case "rest", "", "xml": self = .xml
        case "json":
            if params["nojsoncallback"] == "1" {
                self = .json(callback: nil)
            } else {
                let name = params["jsoncallback"].flatMap { Self.safeCallback($0) } ?? "jsonFlickrApi"
                self = .json(callback: name)
            }
        case let other: self = .unknown(other)
        }
    }

    /// A callback name made of identifier characters only (it is echoed into the body).
    static func safeCallback(_ name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 64,
              name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "." || $0 == "$" })
        else { return nil }
        return name
    }

    func render(_ payload: MethodPayload) -> SandboxReply {
        switch self {
        case .xml, .unknown:
            switch payload {
            case .nodes(let nodes):
                return SandboxReply(status: 200, contentType: SandboxReply.xmlType,
                                    body: FlickrEnvelope.ok(nodes.map(\.xml).joined(separator: "\n")))
            case .example(_, let xml):
                return SandboxReply(status: 200, contentType: SandboxReply.xmlType,
                                    body: FlickrEnvelope.ok(ExampleCache.innerPayload(xml)))
            }
        case .json(let callback):
            let nodes: [XMLNode]
            switch payload {
            case .nodes(let n): nodes = n
            case .example(let method, _):
                switch ExampleCache.nodes(for: method) {
                case .success(let n): nodes = n
                case .failure(let error):
                    // Never an empty success: the compiled-in example could not be read.
                    return .html(500, "<html><body><h1>500</h1><p>flickr-sandbox: the documented example of \(method) "
                                      + "is unreadable: \(error)</p></body></html>\n")
                }
            }
            return json(XMLNode.jsonDocument(payload: nodes), callback: callback)
        }
    }

    func render(_ failure: APIFailure) -> SandboxReply {
        switch self {
        case .xml, .unknown:
            return SandboxReply(status: 200, contentType: SandboxReply.xmlType,
                                body: FlickrEnvelope.fail(code: failure.code, message: failure.message, extra: failure.extra))
        case .json(let callback):
            return json(XMLNode.jsonFailure(code: failure.code, message: failure.message, extra: failure.extra),
                        callback: callback)
        }
    }

    private func json(_ text: String, callback: String?) -> SandboxReply {
        SandboxReply(status: 200, contentType: SandboxReply.jsonType,
                     body: callback.map { $0 + "(" + text + ")" } ?? text)
    }
}

/// The documented examples read into elements once, for their JSON form. An example that
/// cannot be read keeps its error (a test checks that every one reads).
enum ExampleCache {
    static let parsed: [String: Result<[XMLNode], FlickrParseError>] = {
        var out: [String: Result<[XMLNode], FlickrParseError>] = [:]
        for (name, xml) in MethodCatalog.examples {
            do throws(FlickrParseError) { out[name] = .success(try XMLNode.read(xml)) } catch { out[name] = .failure(error) }
        }
        return out
    }()

    static func nodes(for method: String) -> Result<[XMLNode], FlickrParseError> { parsed[method] ?? .success([]) }

    /// The payload of an example: a few doc examples carry the XML declaration and the `<rsp>`
    /// envelope themselves (some with `stat='ok'`); those are unwrapped so that every answer
    /// has the same envelope.
    static func innerPayload(_ xml: String) -> String {
        guard let open = xml.range(of: "<rsp") else { return xml }
        guard let openEnd = xml[open.upperBound...].firstIndex(of: ">") else { return xml }
        var inner = xml[xml.index(after: openEnd)...]
        if let close = inner.range(of: "</rsp>", options: .backwards) { inner = inner[..<close.lowerBound] }
        while let f = inner.first, f == "\n" || f == "\r" { inner = inner.dropFirst() }
        while let l = inner.last, l.isWhitespace { inner = inner.dropLast() }
        return String(inner)
    }
}
