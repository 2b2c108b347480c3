import FlickrJobs
import FlickrProtocol
import Foundation
import GRDB

/// A photo as the library holds it: the fields of the listing extras (named like them), and
/// what `getInfo` adds on a deep sync.
public struct LibraryPhoto: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "photo"

    public var id: String
    public var owner: String
    public var secret: String?
    public var server: String?
    public var farm: Int?
    public var title: String
    public var description: String
    public var ispublic: Int
    public var isfriend: Int
    public var isfamily: Int
    public var license: String?
    /// Unix seconds.
    public var date_upload: Int?
    /// `YYYY-MM-DD HH:MM:SS`, as Flickr gives it.
    public var date_taken: String?
    public var date_taken_granularity: Int?
    public var date_taken_unknown: Int?
    /// Unix seconds.
    public var last_update: Int?
    public var views: Int?
    /// `photo` or `video`.
    public var media: String?
    public var original_format: String?
    public var original_secret: String?
    public var o_width: Int?
    public var o_height: Int?
    public var latitude: Double?
    public var longitude: Double?
    public var accuracy: Int?
    public var url_o: String?
    /// Clean forms, space-separated (machine tags left out).
    public var tags: String
    /// Clean forms of the machine tags, space-separated.
    public var machine_tags: String
    /// The raw tags from `getInfo` (JSON of ``PhotoTag``s), on a deep sync.
    public var raw_tags: String?
    /// `last_update` when `getInfo` was read: the raw tags are current when it equals `last_update`.
    public var deep_update: Int?
    public var notes: Int?
    public var people: Int?
    public var comments: Int?
    /// Unix seconds when a complete listing no longer had it; nil while it exists.
    public var deleted: Int?

    /// The extras a sync asks every listing for: every field above that a listing gives.
    public static let extras = "description,license,date_upload,date_taken,owner_name,original_format,last_update,geo,tags,"
        + "machine_tags,o_dims,views,media,url_o"

    /// Reads a `<photo>` of a listing (`people.getPhotos`, `recentlyUpdated`, `search` with ``extras``).
    public init?(listing p: FlickrNode, owner fallback: String) {
        guard let id = p["id"]?.string else { return nil }
        self.id = id
        owner = p["owner"]?.string ?? fallback
        secret = p["secret"]?.string
        server = p["server"]?.string
        farm = p["farm"]?.int
        title = p["title"]?.text ?? ""
        description = p["description"]?.text ?? ""
        ispublic = p["ispublic"]?.int ?? 0
        isfriend = p["isfriend"]?.int ?? 0
        isfamily = p["isfamily"]?.int ?? 0
        license = p["license"]?.string
        date_upload = p["dateupload"]?.int
        date_taken = p["datetaken"]?.string
        date_taken_granularity = p["datetakengranularity"]?.int
        date_taken_unknown = p["datetakenunknown"]?.int
        last_update = p["lastupdate"]?.int
        views = p["views"]?.int
        media = p["media"]?.string
        original_format = p["originalformat"]?.string
        original_secret = p["originalsecret"]?.string
        o_width = p["o_width"]?.int
        o_height = p["o_height"]?.int
        let lat = p["latitude"]?.string.flatMap(Double.init), lon = p["longitude"]?.string.flatMap(Double.init)
        let acc = p["accuracy"]?.int ?? 0
        // Flickr answers 0/0/0 for a photo without a location.
        if let lat, let lon, acc > 0 || lat != 0 || lon != 0 {
            (latitude, longitude, accuracy) = (lat, lon, acc)
        }
        url_o = p["url_o"]?.string
        tags = p["tags"]?.string ?? ""
        machine_tags = p["machine_tags"]?.string ?? ""
    }

    /// The raw tags read by a deep sync, if current: read at the photo's last update, or
    /// before an edit of something else (a title), as long as they still give the photo's clean
    /// tags. A sync that sees the tags change forgets them (`deep_update` nil) until the next read.
    public var rawTags: [PhotoTag]? {
        guard let raw_tags, deep_update != nil,
              let tags = try? JSONDecoder().decode([PhotoTag].self, from: Data(raw_tags.utf8)) else { return nil }
        if deep_update == last_update { return tags }
        let listed = Set((self.tags + " " + machine_tags).split(separator: " ").map(String.init))
        return Set(tags.map { TagString.clean($0.raw) }) == listed ? tags : nil
    }

    /// What the retag planner reads (`getInfo`'s view), when the deep fields are current.
    public var photoTags: PhotoTags? {
        guard let tags = rawTags, let last_update else { return nil }
        return PhotoTags(photoID: id, owner: owner, lastUpdate: last_update, tags: tags)
    }
}

extension LibraryPhoto {
    /// A photo known only by its id and owner (every other field empty), to be filled in.
    public init(id: String, owner: String) {
        (self.id, self.owner, title, description, ispublic, isfriend, isfamily, tags, machine_tags) = (id, owner, "", "", 0, 0, 0, "", "")
    }
}
