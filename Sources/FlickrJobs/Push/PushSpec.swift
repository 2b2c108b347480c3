import FlickrProtocol

/// What `flickr push plan` (and `flickr.push.plan`) is asked to do: the folders and how their
/// files go to Flickr. Checked before any request (``check()``); a licence by name is resolved
/// by the front end with Flickr's list.
public struct PushSpec: Sendable, Hashable, Codable {
    /// Where a photo goes: the set named after its folder (relative to DIR, `/`-joined; the
    /// folder's own name for files at its top), none, or one set of this title.
    public enum Sets: Sendable, Hashable, Codable {
        case folder
        case none
        case title(String)

        /// `folder`, `none`, or a title.
        public static func parse(_ text: String) -> Sets {
            switch text {
            case "folder": .folder
            case "none": .none
            default: .title(text)
            }
        }
    }

    /// The folders as given.
    public var dirs: [String]
    public var sets: Sets = .folder
    /// Tags every uploaded photo gets (a tag string), besides its keywords.
    public var tags: String?
    public var privacy: Privacy?
    public var license: Int?
    /// 1 safe, 2 moderate, 3 restricted (upload's `safety_level`).
    public var safety: Int?
    /// Hidden from public searches (upload's `hidden=2`).
    public var hidden = false
    public var replace = false
    public var delete = false
    /// Globs matched against a file's path relative to its DIR (and its name, for a glob
    /// without a `/`).
    public var ignore: [String] = []
    /// Hierarchical keywords whole (`a|b|c`), not as their last part.
    public var fullKeywords = false
    public var titleFromFilename = false
    /// The options as given, kept with the job.
    public var rules: [String] = []

    public init(dirs: [String]) { self.dirs = dirs }

    /// Refuses what cannot be planned, before any request: no folder, a tag Flickr would not store.
    public func check() throws(JobError) {
        guard !dirs.isEmpty else { throw JobError("no folder given: flickr push plan DIR… (see flickr push --help)") }
        if let tags {
            let lost = TagString.unstorable(in: tags)
            guard lost.isEmpty else {
                throw JobError("--tags: " + lost.map { "'\($0)'" }.joined(separator: ", ")
                               + " has no letter or digit, so Flickr would not store it as a tag")
            }
        }
        if case .title(let title) = sets, title.trimmingCharacters(in: .whitespaces).isEmpty {
            throw JobError("--sets: give folder, none or a set's title")
        }
    }
}
