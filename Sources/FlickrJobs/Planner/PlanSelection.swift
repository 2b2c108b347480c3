import FlickrAPI
import FlickrProtocol

/// The first step of every plan: whose photos, and which. With a source (the library on disk)
/// it is brought up to date first and answers what it can; Flickr answers the rest
/// (`flickr.test.login` for the owner, ``PhotoEnumerator`` for a search).
struct PlanSelection: Sendable {
    /// The account whose photos the job may change (a photo of anyone else is left out).
    var owner: String
    /// The photos selected, in the selection's order.
    var photos: [ListedPhoto]

    /// `find` (the library's filter keys) is answered by the source alone; `query` (Flickr's
    /// search arguments) by the source when `mirrorQueries` and it can, else by Flickr.
    static func select(client: FlickrClient, source: (any JobSource)?, query: [String: String], find: [String: String]?,
                       mirrorQueries: Bool) async throws -> PlanSelection {
        // (Its calls are counted where the plan's are: what the client sent, JobPlanner.)
        var selection = PlanSelection(owner: "", photos: [])
        if let source {
            _ = try await source.refresh()
            selection.owner = source.account
        } else {
            let login = try await client.call("flickr.test.login")
            guard let nsid = login["user"]?["id"]?.string else { throw JobError("flickr.test.login did not name the user") }
            selection.owner = nsid
        }
        if let find {
            guard let source else {
                throw JobError("--find reads the library on disk, and there is none for this account: run `flickr sync` first, or select with --query")
            }
            selection.photos = try source.ids(find: find).map { ListedPhoto(id: $0, cleanTags: [], lastUpdate: 0) }
        } else if mirrorQueries, let mirrored = try source?.photos(query: query) {
            selection.photos = mirrored
        } else {
            selection.photos = try await PhotoEnumerator(client: client).photos(query: query).photos
        }
        return selection
    }
}

/// Reads photos a few at a time (`concurrency` calls in flight), each with `read`; the results
/// in the order of `ids`, nil where `read` found nothing (a photo deleted since it was listed).
/// Every planner's reads go through it.
func readConcurrently<T: Sendable>(_ ids: [String], concurrency: Int,
                                   _ read: @escaping @Sendable (String) async throws -> T?) async throws -> [T?] {
    var results = [T?](repeating: nil, count: ids.count)
    var next = 0
    try await withThrowingTaskGroup(of: (Int, T?).self) { group in
        func start() {
            guard next < ids.count else { return }
            let (i, id) = (next, ids[next])
            next += 1
            group.addTask { (i, try await read(id)) }
        }
        for _ in 0..<max(1, concurrency) { start() }
        while let (i, value) = try await group.next() {
            results[i] = value
            start()
        }
    }
    return results
}

/// A photo's `getInfo` answer, or nil when it is gone (deleted since it was listed: the next
/// listing says so). Every planner's read of one photo starts here.
func readInfo(_ id: String, client: FlickrClient) async throws -> FlickrNode? {
    do {
        return try await client.call("flickr.photos.getInfo", ["photo_id": id])
    } catch {
        if error.kind == .api && FlickrErrorCode.photoNotFound.matches(error.code) { return nil }
        throw error
    }
}
