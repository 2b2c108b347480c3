import FlickrProtocol
import Foundation

/// `flickr.photosets.comments.*`: comments on a set.
struct PhotosetsCommentsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.photosets.comments.addComment": { store, call in
            let user = try call.requireUser()
            guard let text = call.string("comment_text") else { throw APIFailure(.blankComment, "Blank comment") }
            let id = try store.update { (s: inout SandboxState) throws(APIFailure) -> String in
                let set = s.photosets[try s.photosetIndex(call.string("photoset_id"))]
                let id = s.commentID(author: user, target: set.id)
                s.community.setComments[set.id, default: []].append(SandboxComment(id: id, author: user, text: text, dateCreate: call.now))
                return id
            }
            return .nodes([XMLNode("comment", [("id", .string(id))])])
        },
        "flickr.photosets.comments.editComment": { store, call in
            let user = try call.requireUser()
            guard let text = call.string("comment_text") else { throw APIFailure(.blankComment, "Blank comment") }
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let (setID, i) = try s.setComment(call.string("comment_id"))
                guard s.community.setComments[setID]![i].author == user else { throw APIFailure(.commentNotFound, "Comment not found.") }
                s.community.setComments[setID]![i].text = text
            }
            return .empty
        },
        "flickr.photosets.comments.deleteComment": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let (setID, i) = try s.setComment(call.string("comment_id"))
                let owner = s.photosets.first { $0.id == setID }?.owner
                guard s.community.setComments[setID]![i].author == user || owner == user else {
                    throw APIFailure(.commentNotFound, "Comment not found.")
                }
                s.community.setComments[setID]!.remove(at: i)
            }
            return .empty
        },
        "flickr.photosets.comments.getList": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let set = s.photosets[try s.photosetIndex(call.string("photoset_id"))]
                let page = s.photosURL(for: set.owner, base: call.baseURL) + "sets/\(set.id)/"
                let comments = s.community.setComments[set.id] ?? []
                return .nodes([XMLNode("comments", [("photoset_id", .string(set.id))],
                                       children: comments.map { PhotosCommentsHandlers.commentElement($0, page: page, state: s, dateKey: "date_create") },
                                       lists: ["comment"])])
            }
        },
    ]
}
