import FlickrProtocol
import Foundation

/// A realistic world of N photos for the default user, made from a seed: the one generator the
/// tests, the benchmarks and users (`flickr-sandbox --photos N [--seed S] [--sets K] [--videos V]
/// [--write FILE]`) share. The same parameters make the same world, byte for byte when written.
///
/// What it holds (docs/SANDBOX.md): three users — alice (the default user, pro), bob and carol;
/// alice's N photos with titles, some descriptions, tags from a vocabulary with multi-word tags
/// and machine tags, dates taken spread over five years with every granularity (exact, month,
/// year, circa), a mix of privacy, licences and safety levels, a location on about 30 %, V
/// videos, and on about 6 % a tag that bob or carol added (`getInfo`'s tag `author`); K sets, the
/// first larger than a page of 500 when there are enough photos; bob's favourites; a delete
/// token for alice and a write token for bob.
public struct GeneratedWorld: Sendable, Equatable {
    /// Photos of the default user.
    public var photos: Int
    /// Any text: the same seed makes the same world.
    public var seed: String
    /// Sets of the default user (nil: 7, or fewer for a small world).
    public var sets: Int?
    /// Videos among the photos (nil: one in twenty).
    public var videos: Int?

    /// The world's parameters; ``check()`` says whether they make sense.
    public init(photos: Int, seed: String = "flickr", sets: Int? = nil, videos: Int? = nil) {
        (self.photos, self.seed, self.sets, self.videos) = (photos, seed, sets, videos)
    }

    /// The sets it makes.
    public var setCount: Int { sets ?? min(7, photos) }
    /// The videos it makes.
    public var videoCount: Int { videos ?? photos / 20 }

    /// Refuses parameters that make no world, with what is expected.
    public func check() throws(SandboxError) {
        guard (0...1_000_000).contains(photos) else { throw SandboxError("--photos: give a number of photos from 0 to 1,000,000") }
        guard (0...max(0, photos)).contains(setCount) else { throw SandboxError("--sets: at most one set per photo (0 to \(photos))") }
        guard (0...photos).contains(videoCount) else { throw SandboxError("--videos: at most as many videos as photos (0 to \(photos))") }
    }

    /// alice's NSID: the default user.
    public static let ownerNSID = "10000001@N01"
    /// The other users, who add tags to alice's photos and fave them.
    public static let others = [("bob", "20000002@N02"), ("carol", "30000003@N03")]
    /// A delete token of alice's and a write token of bob's.
    public static let ownerToken = (token: "72157600000000001-a11ce0000000d01e", secret: "a11ce5ec12e70001")
    public static let bobToken = (token: "72157600000000002-b0b0000000000001", secret: "b0b5ec12e7000001")
    /// The first photo's id; the others follow.
    public static let firstPhotoID = 7_000_000_000
    /// The first set's id; the others follow.
    public static let firstSetID = 72_157_600_000_000_100

    /// The tags photos draw from (multi-word tags among them).
    public static let vocabulary = ["paris", "lisbon", "tram", "night", "old town", "Café", "river", "bridge", "snow", "beach",
                             "family", "street photography", "sunset", "cat", "Reykjavík", "New York", "harbour lights"]
    static let machineTags = ["camera:make=Fujifilm", "camera:make=Nikon", "geo:country=Portugal", "geo:country=France",
                              "film:stock=Portra 400", "dc:subject=architecture"]
    static let visitorTags = ["great shot", "wow", "fave", "nice light"]
    /// The words titles start with.
    public static let words = ["Tram", "Morning", "Harbour", "Window", "Market", "Garden", "Station", "Bridge", "Café"]
    static let cities: [(Double, Double)] = [(38.7139, -9.1394), (48.8566, 2.3522), (64.1466, -21.9426), (40.7128, -74.0060)]

    /// The world as a seed file (the `--data` format).
    func file() -> SeedFile.File {
        var rng = SeededGenerator(seed: Self.hash(seed))
        func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(rng.next() % UInt64(n)) }
        let first = 1_420_070_400  // 2015-01-01: photos are posted over the five years after it
        let span = 5 * 365 * 86_400
        let step = photos > 0 ? max(1, span / photos) : span
        let videoEvery = videoCount > 0 ? max(1, photos / videoCount) : 0
        // All rights reserved more often than any other; only licences setLicense takes, so
        // that a job can put back what it changed.
        // The licences the generator has always drawn (ids 0–8, all rights reserved most often),
        // so that a world made from a seed stays the world it was when Flickr listed only those.
        let licenses = [0, 0] + Array(0...8)
        var out: [SeedFile.Photo] = []
        out.reserveCapacity(photos)
        for i in 0..<photos {
            let posted = first + i * step + below(min(step, 3_600))
            var tags: [SeedFile.SeedTag] = []
            for _ in 0..<below(5) {
                let t = Self.vocabulary[below(Self.vocabulary.count)]
                if !tags.contains(where: { TagString.clean($0.raw) == TagString.clean(t) }) { tags.append(SeedFile.SeedTag(raw: t)) }
            }
            if below(2) == 0 { tags.append(SeedFile.SeedTag(raw: Self.machineTags[below(Self.machineTags.count)])) }
            if below(16) == 0 {
                let visitor = Self.others[below(Self.others.count)].0
                tags.append(SeedFile.SeedTag(raw: Self.visitorTags[below(Self.visitorTags.count)], author: visitor))
            }
            let isVideo = videoEvery > 0 && i % videoEvery == videoEvery - 1 && i / videoEvery < videoCount
            let (taken, granularity) = Self.taken(posted - below(86_400 * 30), granularity: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 6, 8][below(18)])
            let privacy = below(5)
            var photo = SeedFile.Photo(id: String(Self.firstPhotoID + i), owner: "alice")
            photo.title = "\(Self.words[below(Self.words.count)]) \(i)"
            photo.description = i % 7 == 0 ? "Seen from the \(Self.words[below(Self.words.count)].lowercased())" : ""
            photo.tags = .list(tags)
            // 0 public, 1 private, 2 friends, 3 family, 4 friends and family.
            photo.is_public = privacy == 0 ? 1 : 0
            photo.is_friend = privacy == 2 || privacy == 4 ? 1 : 0
            photo.is_family = privacy == 3 || privacy == 4 ? 1 : 0
            photo.license = licenses[below(licenses.count)]
            photo.safety_level = [1, 1, 1, 1, 1, 1, 1, 2, 3][below(9)]
            photo.date_posted = posted
            photo.date_taken = taken
            photo.date_taken_granularity = granularity
            photo.views = below(5_001)
            photo.media = isVideo ? "video" : "photo"
            photo.original_format = isVideo ? "mp4" : "jpg"
            if below(10) < 3 {
                let (lat, lon) = Self.cities[below(Self.cities.count)]
                // Within about 10 km of the city, to the metre.
                photo.latitude = ((lat + Double(below(2_001) - 1_000) / 10_000) * 10_000).rounded() / 10_000
                photo.longitude = ((lon + Double(below(2_001) - 1_000) / 10_000) * 10_000).rounded() / 10_000
                photo.accuracy = [16, 16, 16, 11, 6][below(5)]
            }
            out.append(photo)
        }
        let ids = out.map(\.id!)
        var sets: [SeedFile.Photoset] = []
        for s in 0..<setCount {
            // The first holds the earliest photos, up to 1,200 (more than a page of 500); each
            // other takes every (s + 6)th photo, up to 40 × s.
            let members = s == 0 ? Array(ids.prefix(1_200))
                                 : Array(ids.enumerated().filter { $0.offset % (s + 6) == s }.map(\.element).prefix(40 * s))
            guard !members.isEmpty else { continue }
            sets.append(SeedFile.Photoset(id: String(Self.firstSetID + s), owner: "alice",
                                          title: s == 0 ? "Everything early" : "\(Self.words[s % Self.words.count]) \(s)",
                                          description: s == 0 ? "The first photos" : nil, photos: members, primary: nil))
        }
        let faves = stride(from: 0, to: ids.count, by: 10).map { SeedFile.Favorite(user: "bob", photo: ids[$0], date: out[$0].date_posted.map { $0 + 86_400 }) }
        return SeedFile.File(
            app: nil, default_user: "alice",
            users: [SeedFile.User(nsid: Self.ownerNSID, username: "alice", realname: "Alice Example", path_alias: "alice",
                                  location: "Lisbon, Portugal", description: "Photos of trams and harbours", ispro: true,
                                  email: "alice@example.com")]
                + Self.others.map { SeedFile.User(nsid: $0.1, username: $0.0, realname: $0.0.capitalized, path_alias: nil,
                                                  location: nil, description: nil, ispro: false, email: $0.0 + "@example.com") },
            photos: out, photosets: sets, favorites: faves,
            tokens: [SeedFile.Token(token: Self.ownerToken.token, secret: Self.ownerToken.secret, user: "alice", perms: "delete"),
                     SeedFile.Token(token: Self.bobToken.token, secret: Self.bobToken.secret, user: "bob", perms: "write")],
            groups: nil, galleries: nil)
    }

    /// The world's sandbox state.
    func state() throws -> SandboxState { try SeedFile.build(file()) }

    /// The seed file's bytes (keys sorted, no spaces): the same world is the same file.
    public func seedFile() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(file()) + Data("\n".utf8)
    }

    /// The date taken of a photo taken at `time`, at `granularity` (0 exact, 4 month, 6 year,
    /// 8 circa): a month-, year- or circa-date is the first second of its unit, as Flickr keeps it.
    static func taken(_ time: Int, granularity: Int) -> (String, Int) {
        let full = SandboxDates.format(time)  // "YYYY-MM-DD HH:MM:SS"
        switch granularity {
        case 4: return (String(full.prefix(7)) + "-01 00:00:00", 4)
        case 6, 8: return (String(full.prefix(4)) + "-01-01 00:00:00", granularity)
        default: return (full, 0)
        }
    }

    /// FNV-1a of the seed's bytes: a stable 64-bit start for the generator.
    static func hash(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
