import FlickrProtocol
import Foundation

/// `flickr.groups.discuss.topics.*` and `flickr.groups.discuss.replies.*`: group discussions (members post; authors edit; authors and admins delete).
struct GroupsDiscussHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.groups.discuss.topics.add": { store, call in
            let user = try call.requireUser()
            guard let subject = call.string("subject"), let message = call.string("message") else {
                throw APIFailure(.missingRequiredArgumentsCode4, "Missing required arguments")
            }
            guard message.utf8.count <= SandboxLimits.messageBytes else { throw APIFailure(.messageIsTooLong, "Message is too long") }
            let id = try store.update { (s: inout SandboxState) throws(APIFailure) -> String in
                let i = try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupNotFound, "Group not found"))
                guard s.community.groups[i].members.contains(user) else { throw APIFailure(.cannotPostToGroup, "Cannot post to group") }
                let id = s.community.newNumber()
                s.community.groups[i].topics.insert(SandboxTopic(id: id, author: user, subject: subject, message: message,
                                                                 dateCreate: call.now, replies: []), at: 0)
                return id
            }
            return .nodes([XMLNode("topic", [("id", .string(id))])])
        },
        "flickr.groups.discuss.topics.getList": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let g = s.community.groups[try s.groupIndex(call.string("group_id"), missing: APIFailure(.groupNotFound, "Group not found"))]
                let p = call.page(of: g.topics)
                return .nodes([XMLNode("topics", [
                    ("group_id", .string(g.nsid)), ("name", .string(g.name)), ("members", .number(g.members.count)),
                    ("privacy", .number(g.privacy)), ("total", .number(g.topics.count)), ("page", .number(p.page)),
                    ("per_page", .number(p.perPage)), ("pages", .number(p.pages)),
                ], children: p.items.map {
                    GroupsDiscussHandlers.topicElement($0, group: g, state: s, caller: call.caller.user)
                }, lists: ["topic"])])
            }
        },
        "flickr.groups.discuss.topics.getInfo": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let (g, t) = try s.topic(call)
                return .nodes([GroupsDiscussHandlers.topicElement(g.topics[t], group: g, state: s, caller: call.caller.user)])
            }
        },
        "flickr.groups.discuss.replies.add": { store, call in
            let user = try call.requireUser()
            guard let message = call.string("message") else { throw APIFailure(.missingRequiredArguments, "Missing required arguments") }
            let id = try store.update { (s: inout SandboxState) throws(APIFailure) -> String in
                let (g, t) = try s.topic(call)
                guard g.members.contains(user) else { throw APIFailure(.cannotPostToGroup, "Cannot post to group") }
                let gi = try s.groupIndex(g.nsid, missing: APIFailure(.topicNotFound, "Topic not found"))
                let id = s.community.newNumber()
                s.community.groups[gi].topics[t].replies.append(
                    SandboxDiscussionReply(id: id, author: user, message: message, dateCreate: call.now, lastEdit: 0))
                return id
            }
            return .nodes([XMLNode("reply", [("id", .string(id))])])
        },
        "flickr.groups.discuss.replies.edit": { store, call in
            let user = try call.requireUser()
            guard let message = call.string("message") else { throw APIFailure(.missingRequiredArguments, "Missing required arguments") }
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let (gi, t, r) = try s.reply(call)
                guard s.community.groups[gi].topics[t].replies[r].author == user else { throw APIFailure(.cannotEditReply, "Cannot edit reply") }
                s.community.groups[gi].topics[t].replies[r].message = message
                s.community.groups[gi].topics[t].replies[r].lastEdit = call.now
            }
            return .empty
        },
        "flickr.groups.discuss.replies.delete": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let (gi, t, r) = try s.reply(call)
                guard s.community.groups[gi].topics[t].replies[r].author == user || s.community.groups[gi].admins.contains(user) else {
                    throw APIFailure(.cannotDeleteReply, "Cannot delete reply")
                }
                s.community.groups[gi].topics[t].replies.remove(at: r)
            }
            return .empty
        },
        "flickr.groups.discuss.replies.getList": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let (g, t) = try s.topic(call)
                let topic = g.topics[t]
                let p = call.page(of: topic.replies)
                var head = GroupsDiscussHandlers.topicElement(topic, group: g, state: s, caller: call.caller.user)
                head.name = "topic"
                head.attributes = [("topic_id", .string(topic.id))] + head.attributes.filter { $0.0 != "id" } + [
                    ("group_id", .string(g.nsid)), ("total", .number(topic.replies.count)), ("page", .number(p.page)),
                    ("per_page", .number(p.perPage)), ("pages", .number(p.pages)),
                ]
                let replies = p.items.map {
                    GroupsDiscussHandlers.replyElement($0, group: g, state: s, caller: call.caller.user)
                }
                return .nodes([XMLNode("replies", children: [head] + replies, lists: ["reply"])])
            }
        },
        "flickr.groups.discuss.replies.getInfo": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let (gi, t, r) = try s.reply(call)
                let g = s.community.groups[gi]
                return .nodes([GroupsDiscussHandlers.replyElement(g.topics[t].replies[r], group: g, state: s, caller: call.caller.user)])
            }
        },
    ]

    static func topicElement(_ t: SandboxTopic, group g: SandboxGroup, state s: SandboxState, caller: String?) -> XMLNode {
        XMLNode("topic", [
            ("id", .string(t.id)), ("subject", .string(t.subject)), ("author", .string(t.author)),
            ("authorname", .string(s.user(nsid: t.author)?.username ?? "")),
            ("role", .string(g.admins.contains(t.author) ? "admin" : "member")), ("count_replies", .number(t.replies.count)),
            ("can_edit", .number(caller == t.author ? 1 : 0)),
            ("can_delete", .number(caller.map { g.admins.contains($0) } ?? false ? 1 : 0)),
            ("can_reply", .number(caller.map { g.members.contains($0) } ?? false ? 1 : 0)), ("is_sticky", .number(0)),
            ("is_locked", .number(0)), ("datecreate", .string(String(t.dateCreate))),
            ("datelastpost", .string(String(t.replies.last?.dateCreate ?? t.dateCreate))),
        ], children: [.text("message", t.message)])
    }

    static func replyElement(_ r: SandboxDiscussionReply, group g: SandboxGroup, state s: SandboxState, caller: String?) -> XMLNode {
        XMLNode("reply", [
            ("id", .string(r.id)), ("author", .string(r.author)), ("authorname", .string(s.user(nsid: r.author)?.username ?? "")),
            ("role", .string(g.admins.contains(r.author) ? "admin" : "member")),
            ("can_edit", .number(caller == r.author ? 1 : 0)),
            ("can_delete", .number(caller == r.author || (caller.map { g.admins.contains($0) } ?? false) ? 1 : 0)),
            ("datecreate", .string(String(r.dateCreate))), ("lastedit", .string(String(r.lastEdit))),
        ], children: [.text("message", r.message)])
    }
}
