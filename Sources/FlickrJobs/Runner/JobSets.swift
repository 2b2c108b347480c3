import FlickrAPI
import FlickrProtocol

/// The sets a job creates, once each, whatever its kind (an edit's `--create-set`, a push's
/// folder sets): the create journaled before it is sent, and a create left without an answer
/// settled by reading the sets' list before anything is sent again; and the order and primary
/// photo of each set a job takes photos out of, recorded before the first removal and put back
/// by the undo's last step.
struct JobSets: Sendable {
    let store: JobStore

    /// Creates the set `title` with the photo as its primary (which makes it a member), once.
    /// The create is journaled before it is sent; an answer lost (a cut connection, a kill)
    /// is settled by reading the sets' list before anything is sent again.
    func create(_ title: String, photo: String, job: String, link: RunLink, calls: inout Int) async throws -> String {
        if let made = try await settleCreates(job: job, link: link, calls: &calls)[title] { return made }
        try store.recordCreatingSet(job, title: title, photo: photo)
        let rsp: FlickrNode
        do {
            rsp = try await link.call("flickr.photosets.create", ["title": title, "primary_photo_id": photo], calls: &calls)
        } catch let error as FlickrError where !EditRunner.isRefusal(error) {
            // Perhaps made: look before the next attempt sends it again.
            if let made = try await settleCreates(job: job, link: link, calls: &calls)[title] { return made }
            throw error
        }
        CrashPoint.afterWrite()
        guard let setID = rsp["photoset"]?["id"]?.string else { throw JobError("photosets.create answered without the set's id") }
        try store.recordCreatedSet(job, title: title, id: setID)
        return setID
    }

    /// The sets the job created, title → id, after settling each create journaled without an
    /// answer: a set of that title whose primary photo is the one it was created with is the
    /// job's (recorded now); none means the create never happened, and it is sent again when
    /// a photo next joins the set. Costs the sets' list only when such a create is pending.
    func settleCreates(job: String, link: RunLink, calls: inout Int) async throws -> [String: String] {
        let pending = try store.setsBeingCreated(job)
        if !pending.isEmpty {
            var page = 1
            var found: [String: (id: String, created: Int)] = [:]
            while true {
                let rsp = try await link.call("flickr.photosets.getList", ["per_page": "500", "page": String(page)], calls: &calls)
                for set in rsp["photosets"]?["photoset"]?.array ?? [] {
                    guard let title = set["title"]?.text, let id = set["id"]?.string, pending[title] == set["primary"]?.string,
                          (set["date_create"]?.int ?? 0) >= (found[title]?.created ?? 0) else { continue }
                    found[title] = (id, set["date_create"]?.int ?? 0)
                }
                if page >= (rsp["photosets"]?["pages"]?.int ?? 1) { break }
                page += 1
            }
            for (title, made) in found { try store.recordCreatedSet(job, title: title, id: made.id) }
        }
        return try store.createdSets(job)
    }

    /// Records set `set`'s order and primary photo in the job, once, before the job first
    /// takes a photo out of it (`photosets.getPhotos`, every page): what an undo restores.
    func rememberOrder(of set: String, job: String, link: RunLink, calls: inout Int) async throws {
        guard try store.setOrder(job, set: set) == nil else { return }
        let (order, primary) = try await members(of: set, link: link, calls: &calls)
        try store.recordSetOrder(job, set: set, SetOrder(photos: order, primary: primary))
    }

    /// Set `set`'s photos in their order, and its primary photo.
    func members(of set: String, link: RunLink, calls: inout Int) async throws -> (photos: [String], primary: String?) {
        var photos: [String] = []
        var primary: String?
        var page = 1
        while true {
            let rsp = try await link.call("flickr.photosets.getPhotos",
                                          ["photoset_id": set, "per_page": "500", "page": String(page), "media": "all"], calls: &calls)
            primary = rsp["photoset"]?["primary"]?.string ?? primary
            photos += (rsp["photoset"]?["photo"]?.array ?? []).compactMap { $0["id"]?.string }
            if page >= (rsp["photoset"]?["pages"]?.int ?? 1) { break }
            page += 1
        }
        return (photos, primary)
    }

    /// The end of an undo of an edit job: each set the job took photos out of gets back the
    /// order and primary photo it had before (the photos put back rejoined it at the end). A
    /// photo added to the set since keeps its place after those the job knew; a set already in
    /// that order costs one read and no write.
    func restoreOrders(undoing parent: String, link: RunLink, calls: inout Int) async throws {
        for (set, before) in try store.setOrders(parent) {
            let now: (photos: [String], primary: String?)
            do {
                now = try await members(of: set, link: link, calls: &calls)
            } catch let error as FlickrError where error.kind == .api && FlickrErrorCode.photoNotFound.matches(error.code) {
                continue  // The set is gone (its last photo left it): nothing to order.
            }
            let order = SetOrder.restored(before.photos, current: now.photos)
            if order != now.photos {
                _ = try await link.call("flickr.photosets.reorderPhotos",
                                        ["photoset_id": set, "photo_ids": order.joined(separator: ",")], calls: &calls)
            }
            if let primary = before.primary, primary != now.primary, now.photos.contains(primary) {
                _ = try await link.call("flickr.photosets.setPrimaryPhoto", ["photoset_id": set, "photo_id": primary], calls: &calls)
            }
        }
    }
}
