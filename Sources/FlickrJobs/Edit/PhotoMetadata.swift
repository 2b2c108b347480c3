import FlickrProtocol
import Foundation

/// Who may see a photo (`setPerms`). `private` is none of the three.
public struct Privacy: Sendable, Hashable, Codable, CustomStringConvertible {
    public var isPublic: Bool
    public var isFriend: Bool
    public var isFamily: Bool

    public init(isPublic: Bool, isFriend: Bool, isFamily: Bool) {
        (self.isPublic, self.isFriend, self.isFamily) = (isPublic, isFriend, isFamily)
    }

    /// `public`, `private`, `friends`, `family` or `friends,family` (either order).
    public static func parse(_ text: String) throws(EditSpecError) -> Privacy {
        let words = Set(text.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        switch words {
        case ["public"]: return Privacy(isPublic: true, isFriend: false, isFamily: false)
        case ["private"]: return Privacy(isPublic: false, isFriend: false, isFamily: false)
        case ["friends"]: return Privacy(isPublic: false, isFriend: true, isFamily: false)
        case ["family"]: return Privacy(isPublic: false, isFriend: false, isFamily: true)
        case ["friends", "family"]: return Privacy(isPublic: false, isFriend: true, isFamily: true)
        default:
            throw EditSpecError("--privacy: '\(text)' is not one of public, private, friends, family, friends,family")
        }
    }

    public var description: String {
        if isPublic { return "public" }
        switch (isFriend, isFamily) {
        case (true, true): return "friends,family"
        case (true, false): return "friends"
        case (false, true): return "family"
        case (false, false): return "private"
        }
    }
}

/// A photo's location as `geo.setLocation` takes it.
public struct GeoPoint: Sendable, Hashable, Codable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double
    /// 1 (world) to 16 (street); Flickr's default is 16.
    public var accuracy: Int

    public init(latitude: Double, longitude: Double, accuracy: Int = 16) {
        (self.latitude, self.longitude, self.accuracy) = (latitude, longitude, accuracy)
    }

    /// `LAT,LON[,ACCURACY]`, refused with the reason when out of Flickr's ranges.
    public static func parse(_ text: String) throws(EditSpecError) -> GeoPoint {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 || parts.count == 3, let lat = Double(parts[0]), let lon = Double(parts[1]) else {
            throw EditSpecError("--geo: '\(text)' is not LAT,LON[,ACCURACY] (e.g. 64.1466,-21.9426,16)")
        }
        guard (-90...90).contains(lat) else { throw EditSpecError("--geo: latitude \(parts[0]) is outside -90..90") }
        guard (-180...180).contains(lon) else { throw EditSpecError("--geo: longitude \(parts[1]) is outside -180..180") }
        var accuracy = 16
        if parts.count == 3 {
            guard let a = Int(parts[2]), (1...16).contains(a) else {
                throw EditSpecError("--geo: accuracy '\(parts[2])' is not a whole number from 1 (world) to 16 (street)")
            }
            accuracy = a
        }
        return GeoPoint(latitude: lat, longitude: lon, accuracy: accuracy)
    }

    public var description: String { "\(latitude),\(longitude),\(accuracy)" }
}

/// What an edit job reads of a photo and may change: the pre-image it records before any
/// write, and what it compares with when it settles, resumes or undoes.
public struct PhotoMetadata: Sendable, Hashable, Codable {
    public var photoID: String
    public var owner: String
    /// Unix seconds (`dates.lastupdate`).
    public var lastUpdate: Int
    public var title: String
    public var description: String
    /// `YYYY-MM-DD HH:MM:SS`, as Flickr gives it.
    public var dateTaken: String
    /// 0 (to the second), 4 (month), 6 (year), 8 (circa).
    public var takenGranularity: Int
    public var privacy: Privacy
    public var license: Int
    /// `setSafetyLevel`'s scale: 1 safe, 2 moderate, 3 restricted.
    public var safety: Int
    /// 1 photo, 2 screenshot, 3 other — nil when unknown (getInfo does not give it).
    public var contentType: Int?
    public var geo: GeoPoint?
    /// The sets it is in (nil when not read).
    public var sets: [String]?
    public var tags: [PhotoTag]

    public init(photoID: String, owner: String, lastUpdate: Int = 0, title: String = "", description: String = "",
                dateTaken: String = "", takenGranularity: Int = 0, privacy: Privacy = Privacy(isPublic: true, isFriend: false, isFamily: false),
                license: Int = 0, safety: Int = 1, contentType: Int? = nil, geo: GeoPoint? = nil, sets: [String]? = nil,
                tags: [PhotoTag] = []) {
        self.photoID = photoID
        self.owner = owner
        self.lastUpdate = lastUpdate
        self.title = title
        self.description = description
        self.dateTaken = dateTaken
        self.takenGranularity = takenGranularity
        self.privacy = privacy
        self.license = license
        self.safety = safety
        self.contentType = contentType
        self.geo = geo
        self.sets = sets
        self.tags = tags
    }

    /// From a `flickr.photos.getInfo` answer and, when read, the ids of `getAllContexts`' sets.
    public init?(getInfo rsp: FlickrNode, sets: [String]? = nil) {
        guard let photo = rsp["photo"], let id = photo["id"]?.string, let owner = photo["owner"]?["nsid"]?.string else { return nil }
        let visibility = photo["visibility"]
        var geo: GeoPoint?
        if let location = photo["location"], let lat = location["latitude"]?.string.flatMap(Double.init),
           let lon = location["longitude"]?.string.flatMap(Double.init) {
            geo = GeoPoint(latitude: lat, longitude: lon, accuracy: location["accuracy"]?.int ?? 16)
        }
        self.init(photoID: id, owner: owner, lastUpdate: photo["dates"]?["lastupdate"]?.int ?? 0,
                  title: photo["title"]?.text ?? "", description: photo["description"]?.text ?? "",
                  dateTaken: photo["dates"]?["taken"]?.string ?? "", takenGranularity: photo["dates"]?["takengranularity"]?.int ?? 0,
                  privacy: Privacy(isPublic: visibility?["ispublic"]?.int == 1, isFriend: visibility?["isfriend"]?.int == 1,
                                   isFamily: visibility?["isfamily"]?.int == 1),
                  license: photo["license"]?.int ?? 0,
                  // getInfo says 0 safe, 1 moderate, 2 restricted; setSafetyLevel takes 1, 2, 3.
                  safety: (photo["safety_level"]?.int ?? 0) + 1,
                  geo: geo, sets: sets,
                  tags: (photo["tags"]?["tag"]?.array ?? []).compactMap { t in
                      guard let id = t["id"]?.string, let author = t["author"]?.string, let raw = t["raw"]?.string else { return nil }
                      return PhotoTag(id: id, author: author, raw: raw)
                  })
    }

    /// The owner's raw tags, in order.
    public var ownerTags: [String] { tags.filter { $0.author == owner }.map(\.raw) }

    /// The value of one group, as the job compares and writes it.
    public func value(_ field: EditField) -> EditValue {
        switch field {
        case .meta: .meta(title: title, description: description)
        case .dates: .dates(taken: dateTaken, granularity: takenGranularity)
        case .perms: .perms(privacy)
        case .license: .license(license)
        case .safety: .safety(safety)
        case .contentType: .contentType(contentType)
        case .geo: .geo(geo)
        case .sets: .sets(sets.map(Set.init) ?? [])
        case .tags: .tags(ownerTags)
        }
    }

    /// This metadata with one group set to `value` (what a write that took effect leaves).
    public func with(_ value: EditValue) -> PhotoMetadata {
        var m = self
        switch value {
        case .meta(let t, let d): (m.title, m.description) = (t, d)
        case .dates(let taken, let granularity): (m.dateTaken, m.takenGranularity) = (taken, granularity)
        case .perms(let p): m.privacy = p
        case .license(let l): m.license = l
        case .safety(let s): m.safety = s
        case .contentType(let c): m.contentType = c
        case .geo(let g): m.geo = g
        case .sets(let s): m.sets = s.sorted()
        case .tags(let raws):
            let others = tags.filter { $0.author != owner }
            m.tags = others + raws.map { PhotoTag(id: "", author: owner, raw: $0) }
        }
        return m
    }
}

/// One group's value: what the pre-image holds, what the job wants, what a read finds.
public enum EditValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case meta(title: String, description: String)
    case dates(taken: String, granularity: Int)
    case perms(Privacy)
    case license(Int)
    case safety(Int)
    case contentType(Int?)
    case geo(GeoPoint?)
    case sets(Set<String>)
    case tags([String])

    public var field: EditField {
        switch self {
        case .meta: .meta
        case .dates: .dates
        case .perms: .perms
        case .license: .license
        case .safety: .safety
        case .contentType: .contentType
        case .geo: .geo
        case .sets: .sets
        case .tags: .tags
        }
    }

    public var description: String {
        switch self {
        case .meta(let t, let d): "title \(JSONValue.quote(t)), description \(JSONValue.quote(d))"
        case .dates(let taken, let g): "taken \(taken) (known to the \(TakenDate.granularityName(g)))"
        case .perms(let p): p.description
        case .license(let l): "licence \(l)"
        case .safety(let s): ["safe", "moderate", "restricted"][max(0, min(2, s - 1))]
        case .contentType(let c): c.map { ["photo", "screenshot", "other"][max(0, min(2, $0 - 1))] } ?? "unknown"
        case .geo(let g): g.map(\.description) ?? "no location"
        case .sets(let s): s.isEmpty ? "in no set" : "in " + s.sorted().joined(separator: ", ")
        case .tags(let t): TagString.join(t)
        }
    }

    /// Whether `self` (as read) holds what `other` (as wanted) asks. Tags and sets compare as
    /// sets; a location compares to Flickr's six decimals.
    public func matches(_ other: EditValue) -> Bool {
        switch (self, other) {
        case let (.tags(a), .tags(b)): return Set(a) == Set(b) && a.count == b.count
        case let (.geo(a?), .geo(b?)):
            return abs(a.latitude - b.latitude) < 5e-7 && abs(a.longitude - b.longitude) < 5e-7 && a.accuracy == b.accuracy
        default: return self == other
        }
    }
}

/// An edit the user asked for that cannot be made, said before any request.
public struct EditSpecError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
