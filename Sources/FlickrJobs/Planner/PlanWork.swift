import FlickrAPI

/// What a kind of job plans — the planner's counterpart of ``PhotoWork``: which listed photos
/// are worth reading, how a photo's pre-image is read (from the library, or from Flickr), and
/// what the job will do to it. ``JobPlanner`` is the one path every kind takes around it.
protocol PlanWork: Sendable {
    /// What the plan knows of a photo before it changes anything.
    associatedtype Pre: Sendable
    /// What the job will do to one photo, as the journal stores it.
    associatedtype Change: JobChange
    /// Why Flickr would refuse a photo's change (never sent).
    associatedtype Refusal: Sendable

    static var kind: JobKind { get }
    /// The job's options as given, kept with it.
    var rules: [String] { get }
    /// The selection as the job records it.
    var recordedQuery: [String: String] { get }

    /// Whether a listed photo may change at all (only those are read).
    func mayChange(_ photo: ListedPhoto) -> Bool
    /// The pre-images the library holds for this plan (current enough for what it changes).
    func mirrored(_ ids: [String], source: any JobSource) throws -> [String: Pre]
    /// A photo's pre-image from Flickr; nil when it is gone.
    func read(_ id: String, client: FlickrClient) async throws -> Pre?
    /// The work with what it reads once for the whole plan, before any photo (e.g. the content
    /// types an edit may change, which no pre-image carries).
    func prepared(client: FlickrClient) async throws -> Self
    /// Adds what ``prepared(client:)`` read to a batch's pre-images.
    func complete(_ pres: inout [String: Pre])
    func owner(of pre: Pre) -> String

    /// One photo's plan, and what to warn about.
    func plan(_ pre: Pre) async throws -> (PhotoPlan<Change, Refusal>, warnings: [String])
    /// The journal's detail of a refusal.
    func detail(_ refusal: Refusal) -> String
}

extension PlanWork {
    func mayChange(_ photo: ListedPhoto) -> Bool { true }
    func prepared(client: FlickrClient) async throws -> Self { self }
    func complete(_ pres: inout [String: Pre]) {}
}

/// What a plan does with one photo.
enum PhotoPlan<Change: Sendable, Refusal: Sendable>: Sendable {
    /// Already as the job would make it.
    case unchanged
    case change(Change)
    /// Flickr would refuse it: stored, recorded as failed, never sent.
    case refused(Change, Refusal)
}
