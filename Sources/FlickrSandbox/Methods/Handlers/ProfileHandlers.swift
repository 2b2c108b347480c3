import FlickrProtocol
import Foundation

/// `flickr.profile.*`: a user's profile, as the recorded live answers give it.
struct ProfileHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        // The asked user's profile (the caller's without user_id), with the recorded answers'
        // attributes in their order; the address only to its owner, as in the recorded answer of
        // one's own profile. No showcase (the sandbox has none: empty, not another set) and no
        // social links. A user the world does not have is 1 "Invalid NSID provided".
        "flickr.profile.getProfile": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let failure = APIFailure(.invalidNSIDProvided, "Invalid NSID provided")
                let asked = try s.userArgument(call.string("user_id"), caller: call.caller.user, failure: failure)
                guard let user = asked ?? call.caller.user.flatMap(s.user(nsid:)) else { throw failure }
                let names = user.realname.split(separator: " ", maxSplits: 1).map(String.init)
                var attributes: [(String, XMLNode.Value)] = [
                    ("id", .string(user.nsid)), ("nsid", .string(user.nsid)), ("join_date", .string(String(user.dateJoined))),
                    ("occupation", ""), ("hometown", .string(user.location)), ("showcase_set", ""),
                    ("showcase_set_title", ""), ("first_name", .string(names.first ?? "")),
                    ("last_name", .string(names.count > 1 ? names[1] : "")),
                ]
                if call.caller.user == user.nsid, let email = user.email { attributes.append(("email", .string(email))) }
                attributes += [("profile_description", .string(user.description)), ("website", ""), ("city", ""), ("country", ""),
                               ("facebook", ""), ("twitter", ""), ("tumblr", ""), ("instagram", ""), ("pinterest", "")]
                return .nodes([XMLNode("profile", attributes)])
            }
        },
    ]
}
