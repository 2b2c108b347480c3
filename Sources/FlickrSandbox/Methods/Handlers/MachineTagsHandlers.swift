import FlickrProtocol
import Foundation

/// `flickr.machinetags.*`: namespaces, predicates, pairs and values of the machine tags in use.
struct MachineTagsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.machinetags.getNamespaces": { store, call in
            try MachineTagsHandlers.machineTagList(store, call, name: "namespaces", item: "namespace") { (tags: [MachineTagUse]) throws(APIFailure) -> [XMLNode] in
                let predicate = call.string("predicate")?.lowercased()
                let chosen = tags.filter { predicate == nil || $0.predicate == predicate }
                if predicate != nil, chosen.isEmpty { throw APIFailure(.notAValidPredicateCode1, "Not a valid predicate.") }
                return Dictionary(grouping: chosen, by: \.namespace).sorted { $0.key < $1.key }.map { ns, uses in
                    XMLNode("namespace", [("usage", .number(uses.count)), ("predicates", .number(Set(uses.map(\.predicate)).count))], text: ns)
                }
            }
        },
        "flickr.machinetags.getPredicates": { store, call in
            try MachineTagsHandlers.machineTagList(store, call, name: "predicates", item: "predicate") { (tags: [MachineTagUse]) throws(APIFailure) -> [XMLNode] in
                let namespace = call.string("namespace")?.lowercased()
                let chosen = tags.filter { namespace == nil || $0.namespace == namespace }
                if namespace != nil, chosen.isEmpty { throw APIFailure(.notAValidNamespace, "Not a valid namespace") }
                return Dictionary(grouping: chosen, by: \.predicate).sorted { $0.key < $1.key }.map { p, uses in
                    XMLNode("predicate", [("usage", .number(uses.count)), ("namespaces", .number(Set(uses.map(\.namespace)).count))], text: p)
                }
            }
        },
        "flickr.machinetags.getPairs": { store, call in
            try MachineTagsHandlers.machineTagList(store, call, name: "pairs", item: "pair") { (tags: [MachineTagUse]) throws(APIFailure) -> [XMLNode] in
                let namespace = call.string("namespace")?.lowercased()
                let predicate = call.string("predicate")?.lowercased()
                var chosen = tags.filter { namespace == nil || $0.namespace == namespace }
                if namespace != nil, chosen.isEmpty { throw APIFailure(.notAValidNamespace, "Not a valid namespace") }
                chosen = chosen.filter { predicate == nil || $0.predicate == predicate }
                if predicate != nil, chosen.isEmpty { throw APIFailure(.notAValidPredicate, "Not a valid predicate") }
                return Dictionary(grouping: chosen, by: { $0.namespace + ":" + $0.predicate }).sorted { $0.key < $1.key }.map { pair, uses in
                    XMLNode("pair", [("namespace", .string(uses[0].namespace)), ("predicate", .string(uses[0].predicate)),
                                     ("usage", .number(uses.count))], text: pair)
                }
            }
        },
        "flickr.machinetags.getValues": { store, call in
            let namespace = call.string("namespace")?.lowercased() ?? ""
            let predicate = call.string("predicate")?.lowercased() ?? ""
            return try MachineTagsHandlers.machineTagList(store, call, name: "values", item: "value",
                                             attributes: [("namespace", .string(namespace)), ("predicate", .string(predicate))]) {
                (tags: [MachineTagUse]) throws(APIFailure) -> [XMLNode] in
                guard tags.contains(where: { $0.namespace == namespace }) else { throw APIFailure(.notAValidNamespace, "Not a valid namespace") }
                let chosen = tags.filter { $0.namespace == namespace && $0.predicate == predicate }
                guard !chosen.isEmpty else { throw APIFailure(.notAValidPredicate, "Not a valid predicate") }
                return Dictionary(grouping: chosen, by: \.value).sorted { $0.key < $1.key }.map { value, uses in
                    XMLNode("value", [("usage", .number(uses.count))], text: value)
                }
            }
        },
        "flickr.machinetags.getRecentValues": { store, call in
            let namespace = call.string("namespace")?.lowercased()
            let predicate = call.string("predicate")?.lowercased()
            let since = call.string("added_since").flatMap(SandboxDates.parse) ?? 0
            return try MachineTagsHandlers.machineTagList(store, call, name: "values", item: "value",
                                             attributes: [("namespace", .string(namespace ?? "")), ("predicate", .string(predicate ?? ""))]) {
                (tags: [MachineTagUse]) throws(APIFailure) -> [XMLNode] in
                let chosen = tags.filter {
                    (namespace == nil || $0.namespace == namespace) && (predicate == nil || $0.predicate == predicate) && $0.added >= since
                }
                return Dictionary(grouping: chosen, by: { "\($0.namespace):\($0.predicate)=\($0.value)" })
                    .map { _, uses in uses }.sorted { ($0.map(\.added).max()!, $0[0].value) > ($1.map(\.added).max()!, $1[0].value) }
                    .map { uses in
                        XMLNode("value", [("usage", .number(uses.count)), ("namespace", .string(uses[0].namespace)),
                                          ("predicate", .string(uses[0].predicate)),
                                          ("first_added", .string(String(uses.map(\.added).min()!))),
                                          ("last_added", .string(String(uses.map(\.added).max()!)))], text: uses[0].value)
                    }
            }
        },
    ]

    /// One use of a machine tag on a photo.
    struct MachineTagUse {
        var namespace: String
        var predicate: String
        var value: String
        /// When the photo carrying it last changed (posted or edited).
        var added: Int
    }

    /// A paged machine-tag listing (`<NAME page pages total perpage>` of `ITEM`s) over the
    /// machine tags of the public photos and the caller's own.
    static func machineTagList(_ store: SandboxStore, _ call: MethodCall, name: String, item: String, attributes: [(String, XMLNode.Value)] = [],
                        _ items: ([MachineTagUse]) throws(APIFailure) -> [XMLNode]) throws(APIFailure) -> MethodPayload {
        try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
            var uses: [MachineTagUse] = []
            for p in s.photos.values where p.isPublic || p.owner == call.caller.user {
                for tag in p.tags where tag.isMachineTag {
                    guard let (ns, pred, value) = TagString.machineTagParts(tag.clean) else { continue }
                    uses.append(MachineTagUse(namespace: ns.lowercased(), predicate: pred.lowercased(), value: value,
                                              added: max(p.datePosted, p.lastUpdate)))
                }
            }
            let all = try items(uses)
            let perPage = min(max(call.int("per_page") ?? 100, 1), 500)
            let page = max(1, call.int("page") ?? 1)
            let start = min(all.count, (page - 1) * perPage)
            return .nodes([XMLNode(name, attributes + [
                ("page", .number(page)), ("pages", .number(max(1, (all.count + perPage - 1) / perPage))),
                ("total", .number(all.count)), ("perpage", .number(perPage)),
            ], children: Array(all[start..<min(all.count, start + perPage)]), lists: [item])])
        }
    }
}
