import FlickrProtocol

/// `flickr.blogs.*`: posting a photo to a blog (kept as a blog post of the world).
struct BlogsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = [
        "flickr.blogs.postPhoto": { store, call in
            let user = try call.requireUser()
            guard let title = call.string("title") else { throw APIFailure(.blogPostFailed, "Blog post failed") }
            try store.update { (s: inout SandboxState) throws(APIFailure) in
                guard let id = call.string("photo_id"), let photo = s.photos[id], s.canSee(photo, caller: user) else {
                    throw APIFailure(.photoNotFoundCode2, "Photo not found")
                }
                guard call.string("blog_id") != nil || call.string("service") != nil else { throw APIFailure(.blogNotFound, "Blog not found") }
                s.community.blogPosts.append(SandboxBlogPost(
                    user: user, photo: id, blogID: call.string("blog_id"), service: call.string("service"), title: title,
                    description: call.params["description"] ?? "", date: call.now))
            }
            return .empty
        },
    ]
}
