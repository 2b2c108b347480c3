/// Where a job's planner can find photos without asking Flickr: a local mirror (FlickrLibrary's
/// library on disk, `LibraryJobSource`), one for every kind of job. The planner refreshes it,
/// selects from it and takes each photo's pre-image from it; the runner tells it what it wrote.
/// Jobs work without one, reading Flickr.
public protocol JobSource: Sendable {
    /// The account (NSID) it mirrors.
    var account: String { get }
    /// Brings it up to date (an incremental sync); returns the calls that took.
    func refresh() async throws -> Int

    /// The photos `query` (retag's `--query` keys) selects, with their clean tags; nil when it
    /// cannot answer that query (then the planner lists from Flickr).
    func photos(query: [String: String]) throws -> [ListedPhoto]?
    /// The ids `find` selects (`flickr find`'s filter keys), in its order; throws a usage
    /// error for a key or value it does not take.
    func ids(find: [String: String]) throws -> [String]

    /// The current raw tags of those of `ids` it knows (a deep mirror); the others are read.
    func tags(of ids: [String]) throws -> [String: PhotoTags]
    /// What it knows of these photos: the pre-image (with the sets; raw tags only when
    /// current; safety level and content type never — they are read from Flickr when an edit
    /// changes them) and the fields templates read. Photos it does not hold are left out.
    func metadata(of ids: [String]) throws -> [String: (metadata: PhotoMetadata, fields: [String: String], rawTagsCurrent: Bool)]

    /// Records that a job set the owner's raw tags of `photo` to `tags` (the mirror then holds
    /// what the job wrote when the job ends).
    func wrote(photo: String, tags: [String]) throws
    /// Records what an edit wrote (the mirror is a cache: a failure here fails nothing).
    func wrote(_ metadata: PhotoMetadata) throws
}
