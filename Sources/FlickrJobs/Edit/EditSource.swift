/// Where an edit plan may read photos without a call: the library on disk (FlickrLibrary's
/// `LibraryEditSource`), brought up to date first. Nil fields are read from Flickr.
public protocol EditSource: Sendable {
    /// The account the library mirrors.
    var account: String { get }
    /// Brings the library up to date; returns the calls it made.
    func refresh() async throws -> Int
    /// The ids `find` selects (`flickr find`'s filter keys), in its order; throws a usage
    /// error for a key or value it does not take.
    func ids(find: [String: String]) throws -> [String]
    /// What the library knows of these photos: the pre-image (with the sets; raw tags only
    /// when current; safety level and content type never — they are read from Flickr when an
    /// edit changes them) and the fields templates read. Photos it does not hold are left out.
    func metadata(of ids: [String]) throws -> [String: (metadata: PhotoMetadata, fields: [String: String], rawTagsCurrent: Bool)]
    /// Records what an edit wrote (the library is a cache: a failure here fails nothing).
    func wrote(_ metadata: PhotoMetadata) throws
}
