import FlickrProtocol

/// The `<photo …/>` lists most photo methods answer, built the same way everywhere.
enum PhotoElements {
    /// The `<photo …/>` of a standard photo list.
    static func listElement(_ photo: SandboxPhoto, extras: PhotoExtras, state: SandboxState, base: String,
                            caller: String?, extra: [(String, XMLNode.Value)] = []) -> XMLNode {
        var node = XMLNode("photo", [
            ("id", .string(photo.id)), ("owner", .string(photo.owner)), ("secret", .string(photo.secret)),
            ("server", .string(photo.server)), ("farm", .number(photo.farm)), ("title", .string(photo.title)),
            ("ispublic", .number(photo.isPublic ? 1 : 0)), ("isfriend", .number(photo.isFriend ? 1 : 0)),
            ("isfamily", .number(photo.isFamily ? 1 : 0)),
        ] + extra)
        extras.apply(to: &node, photo: photo, state: state, base: base, caller: caller)
        return node
    }

    /// A standard photo list, `<photos page pages perpage total>`, paged.
    ///
    /// `cap` is Flickr's search cap: only the first `cap` results can be reached; `total` and
    /// `pages` still count every match, and a page past the cap repeats the last page inside it.
    ///
    /// `photos` may be lazy: only the requested page's elements are read.
    static func photoList<Photos: RandomAccessCollection<SandboxPhoto>>(
        _ photos: Photos, call: MethodCall, state: SandboxState, name: String = "photos", cap: Int? = nil,
        extraAttributes: (SandboxPhoto) -> [(String, XMLNode.Value)] = { _ in [] }
    ) -> XMLNode where Photos.Index == Int {
        let (page, perPage) = call.paging()
        let total = photos.count
        let pages = max(1, (total + perPage - 1) / perPage)
        var start = min(total, (page - 1) * perPage)
        var end = min(total, start + perPage)
        if let cap, total > cap, end > cap {
            // Past the cap: the last page that starts inside it, cut at the cap.
            start = min(start, ((cap - 1) / perPage) * perPage)
            end = min(cap, start + perPage)
        }
        let extras = PhotoExtras(call.params["extras"])
        let items = photos[start..<end].map {
            listElement($0, extras: extras, state: state, base: call.baseURL, caller: call.caller.user, extra: extraAttributes($0))
        }
        return XMLNode(name, [("page", .number(page)), ("pages", .number(pages)), ("perpage", .number(perPage)),
                              ("total", .number(total))], children: items, lists: ["photo"])
    }
}
