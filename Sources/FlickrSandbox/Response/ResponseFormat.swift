import FlickrProtocol
import Foundation

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
