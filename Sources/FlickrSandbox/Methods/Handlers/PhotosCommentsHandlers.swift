import FlickrProtocol
import Foundation

/// `flickr.photos.comments.*`: comments on a photo.
struct PhotosCommentsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.photos.comments.addComment": { store, call in
            let user = try call.requireUser()
            guard let text = call.string("comment_text") else { throw APIFailure(.blankComment, "Blank comment.") }
            let id = try store.update { (s: inout SandboxState) throws(APIFailure) -> String in
                let photo = try s.annotatablePhoto(call.string("photo_id"), caller: user, message: "Photo not found.")
                let id = s.commentID(author: user, target: photo.id)
                s.photos[photo.id]!.comments.append(SandboxComment(id: id, author: user, text: text, dateCreate: call.now))
                s.touch([photo.id], now: call.now)
                return id
            }
            return .nodes([XMLNode("comment", [("id", .string(id))])])
        },
        "flickr.photos.comments.editComment": { store, call in
            let user = try call.requireUser()
            guard let text = call.string("comment_text") else { throw APIFailure(.blankComment, "Blank comment.") }
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let (photoID, i) = try s.photoComment(call.string("comment_id"))
                guard s.photos[photoID]!.comments[i].author == user else { throw APIFailure(.commentNotFound, "Comment not found.") }
                s.photos[photoID]!.comments[i].text = text
                s.touch([photoID], now: call.now)
            }
            return .empty
        },
        "flickr.photos.comments.deleteComment": { store, call in
            let user = try call.requireUser()
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                let (photoID, i) = try s.photoComment(call.string("comment_id"))
                let photo = s.photos[photoID]!
                // The author or the photo's owner may delete a comment.
                guard photo.comments[i].author == user || photo.owner == user else { throw APIFailure(.commentNotFound, "Comment not found.") }
                s.photos[photoID]!.comments.remove(at: i)
                s.touch([photoID], now: call.now)
            }
            return .empty
        },
        "flickr.photos.comments.getList": { store, call in
            try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                let photo = try s.visiblePhoto(call.string("photo_id"), caller: call.caller.user, message: "Photo not found")
                let minDate = call.string("min_comment_date").flatMap(SandboxDates.parse)
                let maxDate = call.string("max_comment_date").flatMap(SandboxDates.parse)
                let comments = photo.comments.filter { (c: SandboxComment) -> Bool in
                    c.dateCreate >= (minDate ?? Int.min) && c.dateCreate <= (maxDate ?? Int.max)
                }
                let page = s.photosURL(for: photo.owner, base: call.baseURL) + photo.id + "/"
                return .nodes([XMLNode("comments", [("photo_id", .string(photo.id))],
                                       children: comments.map { PhotosCommentsHandlers.commentElement($0, page: page, state: s, dateKey: "datecreate") },
                                       lists: ["comment"])])
            }
        },
    ]

    /// A `<comment>` of a comment list. A photo's (`datecreate`) carries what the recorded live
    /// answers do, in their order: `author_is_deleted`, the author's buddy icon (`iconserver`,
    /// `iconfarm`), `path_alias` and `realname`; a set's (`date_create`) the documented fields.
    static func commentElement(_ c: SandboxComment, page: String, state s: SandboxState, dateKey: String) -> XMLNode {
        let number = c.id.split(separator: "-").last.map(String.init) ?? c.id
        let author = s.user(nsid: c.author)
        guard dateKey == "datecreate" else {
            return XMLNode("comment", [
                ("id", .string(c.id)), ("author", .string(c.author)), ("authorname", .string(author?.username ?? "")),
                (dateKey, .string(String(c.dateCreate))), ("permalink", .string(page + "#comment" + number)),
            ], text: c.text)
        }
        return XMLNode("comment", [
            ("id", .string(c.id)), ("author", .string(c.author)), ("author_is_deleted", .string(author == nil ? "1" : "0")),
            ("authorname", .string(author?.username ?? "")), ("iconserver", .string("65535")), ("iconfarm", .number(66)),
            (dateKey, .string(String(c.dateCreate))), ("permalink", .string(page + "#comment" + number)),
            ("path_alias", .string(author?.pathAlias ?? "")), ("realname", .string(author?.realname ?? "")),
        ], text: c.text)
    }
}
