import FlickrProtocol
import Foundation

/// The `--data SEED.json` format (also documented in `SEED-FORMAT.md`).
///
/// ```json
/// {
///   "app": {"api_key": "32 hex", "api_secret": "16 hex"},            // optional; random if absent
///   "default_user": "alice",                                          // username or NSID; default: first user
///   "users": [{"nsid": "10000001@N01", "username": "alice", "realname": "Alice A.",
///              "path_alias": "alice", "location": "Lisbon", "description": "", "ispro": true,
///              "email": "alice@example.com"}],
///   "photos": [{"id": "5000000001", "owner": "alice", "title": "Tram 28", "description": "",
///               "tags": "lisbon tram \"old town\" camera:make=Fuji",       // tag string, or an array of raw tags
///                                                                          // and {"raw": …, "author": "bob"} (added by bob)
///               "is_public": 1, "is_friend": 0, "is_family": 0, "safety_level": 1, "license": 0,
///               "date_posted": 1556700000, "date_taken": "2019-05-01 10:00:00", "date_taken_granularity": 0,
///               "views": 0, "media": "photo", "width": 4032, "height": 3024, "original_format": "jpg",
///               "secret": "10 hex", "original_secret": "10 hex"}],
///   "photosets": [{"id": "72157600000000001", "owner": "alice", "title": "Lisbon", "description": "",
///                  "photos": ["5000000001"], "primary": "5000000001"}],
///   "favorites": [{"user": "bob", "photo": "5000000001", "date": 1556800000}],
///   "tokens": [{"token": "72157…-16hex", "secret": "16 hex", "user": "alice", "perms": "write"}]
/// }
/// ```
/// Only `users` is required (at least one). Users are referenced by username or NSID; photo ids
/// are generated when absent; everything else has Flickr-like defaults.
enum SeedFile {
    struct App: Codable { var api_key: String; var api_secret: String }
    struct User: Codable {
        var nsid: String?
        var username: String
        var realname: String?
        var path_alias: String?
        var location: String?
        var description: String?
        var ispro: Bool?
        /// The address `people.findByEmail` finds the user by.
        var email: String? = nil
    }
    /// A tag of a seed photo: its raw form, and who added it when not the photo's owner
    /// (`"great shot"`, or `{"raw": "great shot", "author": "bob"}`).
    struct SeedTag: Codable, Equatable {
        var raw: String
        var author: String?

        init(raw: String, author: String? = nil) { (self.raw, self.author) = (raw, author) }

        private enum Keys: String, CodingKey { case raw, author }

        init(from decoder: Decoder) throws {
            if let raw = try? decoder.singleValueContainer().decode(String.self) {
                self.init(raw: raw)
                return
            }
            let c = try decoder.container(keyedBy: Keys.self)
            self.init(raw: try c.decode(String.self, forKey: .raw), author: try c.decodeIfPresent(String.self, forKey: .author))
        }

        func encode(to encoder: Encoder) throws {
            guard let author else {
                var c = encoder.singleValueContainer()
                return try c.encode(raw)
            }
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(raw, forKey: .raw)
            try c.encode(author, forKey: .author)
        }
    }
    /// A photo's tags: a tag string (all the owner's), or a list of ``SeedTag``s.
    enum Tags: Codable {
        case string(String)
        case list([SeedTag])
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let s = try? c.decode(String.self) { self = .string(s) } else { self = .list(try c.decode([SeedTag].self)) }
        }
        func encode(to encoder: Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .string(let s): try c.encode(s)
            case .list(let l): try c.encode(l)
            }
        }
        var tags: [SeedTag] {
            switch self {
            case .string(let s): return TagString.parse(s).map { SeedTag(raw: $0) }
            case .list(let l):
                return l.map { SeedTag(raw: $0.raw.trimmingCharacters(in: .whitespaces), author: $0.author) }
                    .filter { !TagString.clean($0.raw).isEmpty }
            }
        }
    }
    struct Photo: Codable {
        var id: String?
        var owner: String
        var title: String?
        var description: String?
        var tags: Tags?
        var is_public: Int?
        var is_friend: Int?
        var is_family: Int?
        var safety_level: Int?
        var license: Int?
        var date_posted: Int?
        var date_taken: String?
        /// 0 exact, 4 month, 6 year, 8 circa (Flickr's granularities).
        var date_taken_granularity: Int?
        var views: Int?
        var media: String?
        var width: Int?
        var height: Int?
        var original_format: String?
        var secret: String?
        var original_secret: String?
        var last_update: Int?
        var latitude: Double?
        var longitude: Double?
        var accuracy: Int?
    }
    struct Group: Codable {
        var nsid: String?
        var name: String
        var description: String?
        var privacy: Int?
        var rules: String?
        var admins: [String]?
        var members: [String]
        var pool: [String]?
    }
    struct Gallery: Codable {
        var owner: String
        var title: String
        var description: String?
        var photos: [String]
        var primary: String?
    }
    struct Photoset: Codable {
        var id: String?
        var owner: String
        var title: String
        var description: String?
        var photos: [String]
        var primary: String?
    }
    struct Favorite: Codable { var user: String; var photo: String; var date: Int? }
    struct Token: Codable { var token: String; var secret: String; var user: String; var perms: String }
    struct File: Codable {
        var app: App?
        var default_user: String?
        var users: [User]
        var photos: [Photo]?
        var photosets: [Photoset]?
        var favorites: [Favorite]?
        var tokens: [Token]?
        var groups: [Group]?
        var galleries: [Gallery]?
    }

    /// Reads and checks a seed file; errors name the offending entry.
    static func load(path: String) throws -> SandboxState {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw SandboxError("--data: cannot read \(path): \(error.localizedDescription)")
        }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw SandboxError("--data: \(path) does not match the seed format (SEED-FORMAT.md): \(describe(error))")
        }
        return try build(file)
    }

    static func describe(_ error: Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let c)?:
            return "missing \"\(key.stringValue)\" at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        case .typeMismatch(_, let c)?, .valueNotFound(_, let c)?, .dataCorrupted(let c)?:
            return "\(c.debugDescription) at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        default:
            return "\(error)"
        }
    }

    static func build(_ file: File) throws -> SandboxState {
        guard !file.users.isEmpty else { throw SandboxError("--data: \"users\" must list at least one user") }
        var rng = SeededGenerator(seed: DemoWorld.seed)
        let now = Int(Date().timeIntervalSince1970)
        var state = SandboxState(
            app: SandboxApp(apiKey: file.app?.api_key ?? SandboxIDs.hex(32), apiSecret: file.app?.api_secret ?? SandboxIDs.hex(16)),
            defaultUser: "", users: [], photos: [:], photosets: [], favorites: [], tokens: [:], frobs: [:], tickets: [:],
            tagNumbers: [:], nextPhotoID: 52_000_000_000, nextPhotosetID: 1, nextTagNumber: 1000, nextTicket: 1)
        for (i, u) in file.users.enumerated() {
            let nsid = u.nsid ?? "\(10_000_000 + i * 7)@N01"
            guard !state.users.contains(where: { $0.nsid == nsid || $0.username.lowercased() == u.username.lowercased() }) else {
                throw SandboxError("--data: users[\(i)] repeats an nsid or username")
            }
            state.users.append(SandboxUser(nsid: nsid, username: u.username, realname: u.realname ?? u.username,
                                           pathAlias: u.path_alias, location: u.location ?? "", description: u.description ?? "",
                                           isPro: u.ispro ?? false, internalID: 30_000_000 + i * 7919, dateJoined: now,
                                           email: u.email))
        }
        func userRef(_ ref: String, _ context: String) throws -> SandboxUser {
            guard let u = state.resolveUser(ref) else { throw SandboxError("--data: \(context): unknown user \"\(ref)\"") }
            return u
        }
        state.defaultUser = try file.default_user.map { try userRef($0, "default_user").nsid } ?? state.users[0].nsid
        for (i, p) in (file.photos ?? []).enumerated() {
            let owner = try userRef(p.owner, "photos[\(i)].owner")
            let id = p.id ?? state.newPhotoID()
            guard !id.isEmpty, id.allSatisfy(\.isNumber), state.photos[id] == nil else {
                throw SandboxError("--data: photos[\(i)].id must be a new numeric id")
            }
            if let n = Int(id), n >= state.nextPhotoID { state.nextPhotoID = n + 1 }
            let posted = p.date_posted ?? now - (file.photos!.count - i) * 3600
            var photo = SandboxPhoto(SandboxPhotoRecord(
                id: id, owner: owner.nsid, secret: p.secret ?? SandboxIDs.hex(10, using: &rng), server: "65535", farm: 66,
                originalSecret: p.original_secret ?? SandboxIDs.hex(10, using: &rng), originalFormat: p.original_format ?? "jpg",
                title: p.title ?? "", description: p.description ?? "", datePosted: posted,
                dateTaken: p.date_taken ?? SandboxDates.format(posted), takenGranularity: p.date_taken_granularity ?? 0, lastUpdate: p.last_update ?? posted,
                isPublic: (p.is_public ?? 1) == 1, isFriend: p.is_friend == 1, isFamily: p.is_family == 1,
                safetyLevel: p.safety_level ?? 1, license: p.license ?? 0, views: p.views ?? 0, media: p.media ?? "photo",
                width: p.width ?? 4032, height: p.height ?? 3024, rotation: 0, contentType: 1, hidden: 1, permComment: 3,
                permAddMeta: 2, tags: [], storedFile: nil, contentHash: nil, fileSize: nil))
            guard [0, 4, 6, 8].contains(p.date_taken_granularity ?? 0) else {
                throw SandboxError("--data: photos[\(i)].date_taken_granularity must be 0, 4, 6 or 8")
            }
            let tags = p.tags?.tags ?? []
            guard tags.count <= SandboxLimits.tagsPerPhoto else {
                throw SandboxError("--data: photos[\(i)] has more than \(SandboxLimits.tagsPerPhoto) tags")
            }
            for (j, tag) in tags.enumerated() {
                let author = try tag.author.map { try userRef($0, "photos[\(i)].tags[\(j)].author") } ?? owner
                photo.tags.append(state.makeTag(raw: tag.raw, author: author, photoID: id))
            }
            switch (p.latitude, p.longitude) {
            case let (lat?, lon?):
                guard (-90...90).contains(lat), (-180...180).contains(lon), (1...16).contains(p.accuracy ?? 16) else {
                    throw SandboxError("--data: photos[\(i)]: latitude, longitude or accuracy out of range")
                }
                photo.geo = SandboxGeo(latitude: lat, longitude: lon, accuracy: p.accuracy ?? 16)
            case (nil, nil): break
            default: throw SandboxError("--data: photos[\(i)]: give both latitude and longitude, or neither")
            }
            state.photos[id] = photo
        }
        for (i, s) in (file.photosets ?? []).enumerated() {
            let owner = try userRef(s.owner, "photosets[\(i)].owner")
            for pid in s.photos where state.photos[pid]?.owner != owner.nsid {
                throw SandboxError("--data: photosets[\(i)]: photo \(pid) does not exist or is not \(owner.username)'s")
            }
            guard let primary = s.primary ?? s.photos.first, s.photos.contains(primary) else {
                throw SandboxError("--data: photosets[\(i)] needs at least one photo and a primary among them")
            }
            let id = s.id ?? String(72_157_600_000_000_000 + state.nextPhotosetID)
            state.nextPhotosetID += 1
            let created = s.photos.compactMap { state.photos[$0]?.datePosted }.max() ?? now
            state.photosets.append(SandboxPhotoset(id: id, owner: owner.nsid, title: s.title, description: s.description ?? "",
                                                   primary: primary, photos: s.photos, secret: SandboxIDs.hex(10, using: &rng),
                                                   dateCreate: created, dateUpdate: created, views: 0))
        }
        for (i, f) in (file.favorites ?? []).enumerated() {
            let user = try userRef(f.user, "favorites[\(i)].user")
            guard let photo = state.photos[f.photo] else { throw SandboxError("--data: favorites[\(i)]: no photo \(f.photo)") }
            state.favorites.append(SandboxFavorite(user: user.nsid, photo: photo.id, date: f.date ?? now))
        }
        for (i, g) in (file.groups ?? []).enumerated() {
            let members = try g.members.map { try userRef($0, "groups[\(i)].members").nsid }
            let admins = try (g.admins ?? Array(members.prefix(1))).map { try userRef($0, "groups[\(i)].admins").nsid }
            guard !members.isEmpty, admins.allSatisfy(members.contains) else {
                throw SandboxError("--data: groups[\(i)] needs members, and its admins among them")
            }
            guard (1...3).contains(g.privacy ?? 3) else { throw SandboxError("--data: groups[\(i)].privacy must be 1, 2 or 3") }
            var pool: [SandboxPoolItem] = []
            for pid in g.pool ?? [] {
                guard let photo = state.photos[pid], members.contains(photo.owner) else {
                    throw SandboxError("--data: groups[\(i)].pool: photo \(pid) does not exist or its owner is not a member")
                }
                pool.append(SandboxPoolItem(photo: pid, addedBy: photo.owner, dateAdded: photo.datePosted))
            }
            let nsid = g.nsid ?? "\(50_000_000 + i * 13)@N0\(i % 10)"
            guard !state.community.groups.contains(where: { $0.nsid == nsid }) else {
                throw SandboxError("--data: groups[\(i)] repeats the nsid \(nsid)")
            }
            state.community.groups.append(SandboxGroup(
                nsid: nsid, name: g.name, description: g.description ?? "", privacy: g.privacy ?? 3, rules: g.rules ?? "",
                admins: admins, members: members, joinRequests: [:], pool: pool, topics: []))
        }
        for (i, g) in (file.galleries ?? []).enumerated() {
            let owner = try userRef(g.owner, "galleries[\(i)].owner")
            for pid in g.photos {
                guard let photo = state.photos[pid], state.canFeature(photo, in: owner.nsid) else {
                    throw SandboxError("--data: galleries[\(i)]: photo \(pid) does not exist, is not public or is the owner's own")
                }
            }
            guard g.primary.map(g.photos.contains) ?? true else {
                throw SandboxError("--data: galleries[\(i)].primary must be one of its photos")
            }
            state.community.galleries.append(SandboxGallery(
                id: "\(owner.internalID)-\(state.community.newNumber())", owner: owner.nsid, title: g.title,
                description: g.description ?? "", primary: g.primary ?? g.photos.first, photos: g.photos, comments: [:],
                dateCreate: now, dateUpdate: now))
        }
        for (i, t) in (file.tokens ?? []).enumerated() {
            let user = try userRef(t.user, "tokens[\(i)].user")
            guard let perms = FlickrPermission(rawValue: t.perms), perms != .none else {
                throw SandboxError("--data: tokens[\(i)].perms must be read, write or delete")
            }
            state.tokens[t.token] = SandboxToken(token: t.token, secret: t.secret, kind: .access, user: user.nsid, perms: perms,
                                                 callback: nil, verifier: nil)
        }
        return state
    }
}
