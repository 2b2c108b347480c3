/// Where a retag job can find photos without asking Flickr: a local mirror (FlickrLibrary's
/// library on disk). The planner refreshes it, selects from it, and takes raw tags from it;
/// the runner tells it what it wrote. Jobs work without one, reading Flickr.
public protocol RetagSource: Sendable {
    /// The account (NSID) it mirrors.
    var account: String { get }
    /// Brings it up to date (an incremental sync); returns the calls that took.
    func refresh() async throws -> Int
    /// The photos `query` (retag's `--query` keys) selects, with their clean tags; nil when it
    /// cannot answer that query (then the planner lists from Flickr).
    func photos(query: [String: String]) throws -> [ListedPhoto]?
    /// The current raw tags of those of `ids` it knows (a deep mirror); the others are read.
    func tags(of ids: [String]) throws -> [String: PhotoTags]
    /// Records that a job set the owner's raw tags of `photo` to `tags` (the mirror then holds
    /// what the job wrote when the job ends).
    func wrote(photo: String, tags: [String]) throws
}
