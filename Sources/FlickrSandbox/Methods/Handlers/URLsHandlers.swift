import FlickrProtocol
import Foundation

/// `flickr.urls.*`: URLs of users, groups and galleries, and their lookups.
struct URLsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.urls.getUserPhotos": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                guard let nsid = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                    failure: APIFailure(.userNotFound, "User not found"))?.nsid ?? call.caller.user else {
                    throw APIFailure(.noUserSpecified, "No user specified")
                }
                return .nodes([XMLNode("user", [("nsid", .string(nsid)), ("url", .string(s.photosURL(for: nsid, base: call.baseURL)))])])
            }
        },
        "flickr.urls.getUserProfile": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                guard let nsid = try s.userArgument(call.string("user_id"), caller: call.caller.user,
                                                    failure: APIFailure(.userNotFound, "User not found"))?.nsid ?? call.caller.user else {
                    throw APIFailure(.noUserSpecified, "No user specified")
                }
                return .nodes([XMLNode("user", [("nsid", .string(nsid)), ("url", .string("\(call.baseURL)/people/\(nsid)/"))])])
            }
        },
        "flickr.urls.getGroup": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let g = s.community.groups[try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupNotFound, "Group not found"))]
                return .nodes([XMLNode("group", [("nsid", .string(g.nsid)), ("url", .string("\(call.baseURL)/groups/\(g.nsid)/"))])])
            }
        },
        "flickr.urls.lookupGroup": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let url = call.string("url") ?? ""
                guard let g = s.community.groups.first(where: { url.contains("/groups/\($0.nsid)") }) else {
                    throw APIFailure(.groupNotFound, "Group not found")
                }
                return .nodes([XMLNode("group", [("id", .string(g.nsid))], children: [.text("groupname", g.name)])])
            }
        },
        "flickr.urls.lookupGallery": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let url = call.string("url") ?? ""
                guard let g = s.community.galleries.first(where: { url.contains("/galleries/\($0.number)") }) else {
                    throw APIFailure(.galleryNotFound, "Gallery not found")
                }
                return .nodes([GalleriesHandlers.galleryElement(g, state: s, call: call)])
            }
        },
        "flickr.urls.lookupUser": { store, call in
            let url = call.string("url") ?? ""
            var path = url
            if let scheme = path.range(of: "://") { path = String(path[scheme.upperBound...]) }
            let parts = path.split(separator: "/").map(String.init)
            var candidate: String?
            if let i = parts.firstIndex(where: { $0 == "photos" || $0 == "people" }), i + 1 < parts.count {
                candidate = PercentEncoding.decode(parts[i + 1])
            }
            guard let candidate, let user = store.read({ $0.resolveUser(candidate) }) else {
                throw APIFailure(.userNotFound, "User not found")
            }
            return .nodes([XMLNode("user", [("id", .string(user.nsid))], children: [.text("username", user.username)])])
        },
    ]
}
