import FlickrProtocol
import Foundation

/// `flickr.reflection.*`: the catalog about itself.
struct ReflectionHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.reflection.getMethods": { _, _ in
            .nodes([XMLNode("methods", children: MethodCatalog.shared.names.map { .text("method", $0) }, lists: ["method"])])
        },
        "flickr.reflection.getMethodInfo": { _, call in
            let name = call.string("method_name") ?? ""
            guard let m = MethodCatalog.shared.method(name), m.name == name else { throw APIFailure(.methodNotFoundCode1, "Method not found") }
            let permsCode: Int = switch m.perms {
            case .none: 0
            case .read: 1
            case .write: 2
            case .delete: 3
            }
            var method = XMLNode("method", [
                ("name", .string(m.name)), ("needslogin", .number(m.needsLogin ? 1 : 0)),
                ("needssigning", .number(m.needsSigning ? 1 : 0)), ("requiredperms", .number(permsCode)),
            ], children: [.text("description", m.description)])
            if let example = MethodCatalog.examples[m.name] { method.children.append(.text("response", example)) }
            method.children.append(.text("explanation", m.explanation))
            let args = XMLNode("arguments", children: [
                XMLNode("argument", [("name", "api_key"), ("optional", .number(0))],
                        text: "Your API application key. <a href=\"/services/api/misc.api_keys.html\">See here</a> for more details."),
            ] + m.arguments.map {
                XMLNode("argument", [("name", .string($0.name)), ("optional", .number($0.optional ? 1 : 0))], text: $0.description)
            }, lists: ["argument"])
            let globals = MethodCatalog.shared.globalErrors.filter { m.globalErrors.contains($0.code) }
            let errors = XMLNode("errors", children: (m.errors + globals).map {
                XMLNode("error", [("code", .number($0.code)), ("message", .string($0.message))], text: $0.description)
            }, lists: ["error"])
            return .nodes([method, args, errors])
        },
    ]
}
