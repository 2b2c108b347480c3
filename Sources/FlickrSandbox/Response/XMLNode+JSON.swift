import FlickrProtocol

extension XMLNode {
    /// Flickr's XML → JSON rules: attributes become members, text becomes `_content`, child
    /// elements become members named after them; a child that repeats, that the node declares
    /// as a list, or that the catalog's list rule knows as a list becomes an array. The value is
    /// FlickrProtocol's `JSONValue` (members in document order), rendered with `/` escaped as
    /// Flickr does.
    func jsonValue() -> JSONValue {
        var members: [(String, JSONValue)] = []
        for (k, v) in attributes {
            switch v {
            case .string(let s): members.append((k, .string(s)))
            case .number(let n): members.append((k, .number(n)))
            }
        }
        var order: [String] = []
        var groups: [String: [XMLNode]] = [:]
        for child in children {
            if groups[child.name] == nil { order.append(child.name) }
            groups[child.name, default: []].append(child)
        }
        for childName in order {
            let group = groups[childName]!
            if group.count > 1 || listChildren.contains(childName)
                || MethodCatalog.listRule.isList(parent: name, child: childName) {
                members.append((childName, .array(group.map { $0.jsonValue() })))
            } else {
                members.append((childName, group[0].jsonValue()))
            }
        }
        for listName in listChildren.sorted() where groups[listName] == nil {
            members.append((listName, .array([])))
        }
        if children.isEmpty, groups.isEmpty, listChildren.isEmpty, let text {
            members.append(("_content", .string(text)))
        } else if let text, !text.isEmpty {
            members.append(("_content", .string(text)))
        } else if children.isEmpty, attributes.isEmpty, listChildren.isEmpty {
            // `<title />` → {"_content":""}
            members.append(("_content", .string("")))
        }
        return .object(members)
    }

    /// The whole answer as Flickr's JSON object: one member per payload element plus `stat`.
    static func jsonDocument(payload: [XMLNode]) -> String {
        var members: [(String, JSONValue)] = []
        var order: [String] = []
        var groups: [String: [XMLNode]] = [:]
        for node in payload {
            if groups[node.name] == nil { order.append(node.name) }
            groups[node.name, default: []].append(node)
        }
        for name in order {
            let group = groups[name]!
            members.append((name, group.count > 1 ? .array(group.map { $0.jsonValue() }) : group[0].jsonValue()))
        }
        members.append(("stat", .string("ok")))
        return JSONValue.object(members).render(escapingSlashes: true)
    }

    /// `{"stat":"fail","code":N,"message":"…"}` (plus extra members such as `duplicate_photo_id`).
    static func jsonFailure(code: Int, message: String, extra: [XMLNode] = []) -> String {
        var members: [(String, JSONValue)] = [("stat", .string("fail")), ("code", .number(code)),
                                              ("message", .string(message))]
        for node in extra { members.append((node.name, node.jsonValue())) }
        return JSONValue.object(members).render(escapingSlashes: true)
    }
}
