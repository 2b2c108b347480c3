import FlickrProtocol
import Foundation

/// `flickr.test.*`: echo, login, null.
struct TestHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.test.echo": { _, call in
            // Argument names that are not XML names (`a b`, `1x`) cannot be elements: they are
            // left out, so the answer stays well-formed.
            .nodes(call.request.plainPairs.filter { XMLNode.isName($0.0) }.map { XMLNode.text($0.0, $0.1) })
        },
        "flickr.test.null": { _, _ in .empty },
        "flickr.test.login": { store, call in
            let nsid = try call.requireUser()
            let user = store.read { $0.user(nsid: nsid) }
            return .nodes([XMLNode("user", [("id", .string(nsid)), ("path_alias", .string(user?.pathAlias ?? ""))],
                                   children: [.text("username", user?.username ?? "")])])
        },
    ]
}
