import FlickrAPI
import FlickrProtocol

/// The sets a job creates, once each, whatever its kind (an edit's `--create-set`, a push's
/// folder sets): the create journaled before it is sent, and a create left without an answer
/// settled by reading the sets' list before anything is sent again.
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
}
