import FlickrAPI
import FlickrJobs
import FlickrLibrary
import FlickrProtocol
@testable import FlickrSandbox
import FlickrTestSupport
import Foundation

/// A photo of a generated world, as the test knows it (the truth the library is checked against).
struct SeedPhoto: Sendable {
    var id: String
    var title: String
    var description: String
    /// Raw tags; those with `:` and `=` are machine tags.
    var tags: [String]
    var isPublic: Int, isFriend: Int, isFamily: Int
    var license: Int
    var posted: Int
    var taken: String
    var views: Int
    var media: String
    var latitude: Double?
    var longitude: Double?

    var cleanTags: Set<String> { Set(tags.filter { !TagString.isMachineTag($0) }.map(TagString.clean)) }
    var cleanMachineTags: Set<String> { Set(tags.filter(TagString.isMachineTag).map(TagString.clean)) }
}

struct SeedSet: Sendable {
    var id: String
    var title: String
    var photos: [String]
}

/// A generated library: `count` photos of alice (tags from a small vocabulary, machine tags,
/// privacy mixes, licences, dates over 2015–2020, 5 % videos, 30 % with a location) and sets,
/// one of them larger than a page of 500. Served by an in-process sandbox with an access log.
struct LibraryWorld {
    static let vocabulary = ["paris", "lisbon", "tram", "night", "old town", "Café", "river", "bridge", "snow", "beach",
                             "family", "street photography", "sunset", "cat", "Reykjavík"]
    static let machine = ["camera:make=Fujifilm", "camera:make=Nikon", "geo:country=Portugal", "geo:country=France", "film:stock=Portra 400"]
    static let words = ["Tram", "Morning", "Harbour", "Window", "Market", "Garden", "Station"]

    var photos: [SeedPhoto] = []
    var sets: [SeedSet] = []

    init(count: Int, seed: String) {
        var random = TestRandom(seed)
        for i in 0..<count {
            let id = String(7_000_000_000 + i)
            var tags: [String] = []
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let t = Self.vocabulary.randomElement(using: &random)!
                if !tags.contains(where: { TagString.clean($0) == TagString.clean(t) }) { tags.append(t) }
            }
            if Bool.random(using: &random) { tags.append(Self.machine.randomElement(using: &random)!) }
            let privacy = Int.random(in: 0..<5, using: &random)
            let posted = 1_420_070_400 + i * 26_000 + Int.random(in: 0..<3600, using: &random)
            let takenDate = Date(timeIntervalSince1970: Double(posted - Int.random(in: 0..<86_400 * 30, using: &random)))
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "yyyy-MM-dd HH:mm:ss"
            let geo = Int.random(in: 0..<10, using: &random) < 3
            photos.append(SeedPhoto(
                id: id, title: "\(Self.words.randomElement(using: &random)!) \(i)", description: i % 7 == 0 ? "Seen from the \(Self.words.randomElement(using: &random)!.lowercased())" : "",
                tags: tags, isPublic: privacy == 0 || privacy == 1 ? 1 : 0, isFriend: privacy == 2 || privacy == 4 ? 1 : 0,
                isFamily: privacy == 3 || privacy == 4 ? 1 : 0, license: Int.random(in: 0...8, using: &random), posted: posted,
                taken: f.string(from: takenDate), views: Int.random(in: 0...5000, using: &random),
                media: Int.random(in: 0..<20, using: &random) == 0 ? "video" : "photo",
                latitude: geo ? Double(Int.random(in: -80_000...80_000, using: &random)) / 1000 : nil,
                longitude: geo ? Double(Int.random(in: -170_000...170_000, using: &random)) / 1000 : nil))
        }
        let ids = photos.map(\.id)
        let big = min(ids.count, 1_200)
        sets.append(SeedSet(id: "72157600000000100", title: "Everything early", photos: Array(ids.prefix(big))))
        for s in 1...6 {
            let members = ids.enumerated().filter { $0.offset % (s + 6) == s }.map(\.element).prefix(40 * s)
            sets.append(SeedSet(id: String(72_157_600_000_000_100 + s), title: "Set \(s)", photos: Array(members)))
        }
    }

    /// The seed file's JSON.
    var seed: [String: Any] {
        ["users": [["username": "alice", "nsid": "10000001@N01"], ["username": "bob"]],
         "photos": photos.map { p -> [String: Any] in
             var o: [String: Any] = ["id": p.id, "owner": "alice", "title": p.title, "description": p.description, "tags": p.tags,
                                     "is_public": p.isPublic, "is_friend": p.isFriend, "is_family": p.isFamily, "license": p.license,
                                     "date_posted": p.posted, "date_taken": p.taken, "views": p.views, "media": p.media,
                                     "original_format": p.media == "video" ? "mp4" : "jpg"]
             if let lat = p.latitude, let lon = p.longitude { (o["latitude"], o["longitude"], o["accuracy"]) = (lat, lon, 16) }
             return o
         },
         "photosets": sets.map { ["id": $0.id, "owner": "alice", "title": $0.title, "photos": $0.photos] },
         "tokens": [["token": Self.deleteToken.token, "secret": Self.deleteToken.secret, "user": "alice", "perms": "delete"],
                    ["token": Self.bobToken.token, "secret": Self.bobToken.secret, "user": "bob", "perms": "write"]]]
    }

    /// Writes the seed file into `directory`.
    func writeSeed(in directory: URL) throws -> URL {
        let file = directory.appendingPathComponent("seed.json")
        try JSONSerialization.data(withJSONObject: seed).write(to: file)
        return file
    }

    /// Serves the world from an in-process sandbox (latency in ms) with an access log, and gives
    /// the body the server, alice's client, the environment for `flickr` and the log.
    func serve<T>(latency: Int = 0, _ body: (FlickrSandboxServer, FlickrClient, [String: String], URL) async throws -> T) async throws -> T {
        let world = try CommandWorld("library")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let file = try writeSeed(in: world.directory)
        let log = world.directory.appendingPathComponent("access.jsonl")
        var configuration = SandboxConfiguration(dataFile: file.path)
        configuration.logFile = log.path
        configuration.latencyMilliseconds = latency
        let server = try await FlickrSandboxServer.start(configuration)
        do {
            let alice = Self.client(server.credentials, url: server.url)
            var env = world.environment
            env["XDG_DATA_HOME"] = world.directory.path + "/data"
            env["FLICKR_ENDPOINT"] = server.url
            env["FLICKR_API_KEY"] = server.credentials.apiKey
            env["FLICKR_API_SECRET"] = server.credentials.apiSecret
            env["FLICKR_OAUTH_TOKEN"] = server.credentials.oauthToken
            env["FLICKR_OAUTH_TOKEN_SECRET"] = server.credentials.oauthTokenSecret
            let result = try await body(server, alice, env, log)
            try await server.stop()
            return result
        } catch {
            try? await server.stop()
            throw error
        }
    }

    /// Alice's token that may delete, and bob's that may write (add tags to alice's photos).
    static let deleteToken = (token: "72157600000000010-00000000000000aa", secret: "aaaaaaaaaaaaaaaa")
    static let bobToken = (token: "72157600000000009-00000000000000bb", secret: "bbbbbbbbbbbbbbbb")

    /// A client of a sandbox with another of its tokens.
    static func client(_ c: SandboxCredentials, url: String, token: (token: String, secret: String)) -> FlickrClient {
        FlickrClient(context: FlickrContext(apiKey: c.apiKey, sharedSecret: c.apiSecret, oauthToken: token.token,
                                            oauthTokenSecret: token.secret, endpoints: Endpoints(baseURL: url)))
    }

    /// Alice's client of a sandbox.
    static func client(_ c: SandboxCredentials, url: String, attempts: Int? = nil) -> FlickrClient {
        var context = FlickrContext(apiKey: c.apiKey, sharedSecret: c.apiSecret, oauthToken: c.oauthToken,
                                    oauthTokenSecret: c.oauthTokenSecret, endpoints: Endpoints(baseURL: url))
        if let attempts { context.retryPolicy.maxAttempts = attempts }
        return FlickrClient(context: context)
    }

    /// The library of `env` (the one `flickr sync` wrote), opened by the test.
    static func store(_ env: [String: String]) throws -> LibraryStore {
        try LibraryStore.existing(endpoint: env["FLICKR_ENDPOINT"].map { Endpoints(baseURL: $0).rest } ?? "", environment: env)
    }

    /// The API calls in the access log (one JSON line per request with a Flickr method).
    static func calls(in log: URL) -> [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["method"] as? String
        }.filter { !$0.isEmpty }
    }
}

extension LibraryWorld {
    /// Alice's NSID in every generated world.
    static let alice = "10000001@N01"

    /// Runs the calls of `body` and gives how many API calls the access log gained.
    static func counting<T>(_ log: URL, _ body: () async throws -> T) async rethrows -> (T, Int) {
        let before = calls(in: log).count
        let result = try await body()
        return (result, calls(in: log).count - before)
    }

    /// Where the mirror differs from the sandbox's world (alice's photos and sets), field by
    /// field; empty when they are equal. `deep`: the raw tags (author, id) must be current and
    /// equal too.
    static func differences(_ store: LibraryStore, _ server: FlickrSandboxServer, deep: Bool = false) throws -> [String] {
        let (photos, sets) = server.engine.store.read { (s: SandboxState) in
            (s.photos.values.filter { $0.owner == alice }.map(\.record), s.photosets.filter { $0.owner == alice })
        }
        let videos = Set(photos.filter { $0.media == "video" }.map(\.id))
        return try differences(store, photos: photos, sets: sets.map {
            WorldSet(id: $0.id, title: $0.title, description: $0.description, primary: $0.primary, members: $0.photos,
                     videos: $0.photos.filter(videos.contains).count)
        }, deep: deep)
    }

    /// A set as the world has it.
    struct WorldSet {
        var id, title, description, primary: String
        var members: [String]
        var videos: Int
    }

    static func differences(_ store: LibraryStore, photos: [SandboxPhotoRecord], sets: [WorldSet], deep: Bool) throws -> [String] {
        var out: [String] = []
        let ids = try store.ids(LibraryFilter([:]))
        let world = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, $0) })
        let missing = Set(world.keys).subtracting(ids), extra = Set(ids).subtracting(world.keys)
        if !missing.isEmpty { out.append("missing from the mirror: \(missing.sorted().prefix(10)) (\(missing.count))") }
        if !extra.isEmpty { out.append("in the mirror, not in the world: \(extra.sorted().prefix(10)) (\(extra.count))") }
        for record in try store.records(ids) {
            guard let w = world[record.photo.id] else { continue }
            out += photoDifferences(record, w, deep: deep)
            if out.count > 30 { return out }
        }
        let mirrored = try store.sets()
        if mirrored.map(\.id) != sets.map(\.id) { out.append("sets: \(mirrored.map(\.id)) != \(sets.map(\.id))") }
        for (m, w) in zip(mirrored, sets) {
            if (m.title, m.description, m.primary ?? "") != (w.title, w.description, w.primary) {
                out.append("set \(w.id): header \((m.title, m.description, m.primary ?? "")) != \((w.title, w.description, w.primary))")
            }
            if m.members != w.members { out.append("set \(w.id): members differ (\(m.members.count) vs \(w.members.count))") }
            if (m.photos, m.videos) != (w.members.count - w.videos, w.videos) { out.append("set \(w.id): counts \((m.photos, m.videos))") }
        }
        // Every membership a record shows is a set's.
        for record in try store.records(ids) {
            let expected = sets.filter { $0.members.contains(record.photo.id) }.map(\.id).sorted()
            if record.sets.sorted() != expected { out.append("photo \(record.photo.id): sets \(record.sets) != \(expected)") }
            if out.count > 30 { break }
        }
        return out
    }

    static func photoDifferences(_ r: LibraryRecord, _ w: SandboxPhotoRecord, deep: Bool) -> [String] {
        let p = r.photo
        var out: [String] = []
        func check<V: Equatable>(_ name: String, _ mirror: V, _ world: V) {
            if mirror != world { out.append("photo \(w.id) \(name): mirror \(mirror), world \(world)") }
        }
        check("owner", p.owner, w.owner)
        check("secret", p.secret, w.secret)
        check("server", p.server, w.server)
        check("title", p.title, w.title)
        check("description", p.description, w.description)
        check("privacy", [p.ispublic, p.isfriend, p.isfamily], [w.isPublic, w.isFriend, w.isFamily].map { $0 ? 1 : 0 })
        check("license", p.license, String(w.license))
        check("date_upload", p.date_upload, w.datePosted)
        check("date_taken", p.date_taken, w.dateTaken)
        check("date_taken_granularity", p.date_taken_granularity, w.takenGranularity)
        check("last_update", p.last_update, w.lastUpdate)
        check("views", p.views, w.views)
        check("media", p.media, w.media)
        // Flickr answers a JPEG still as a video's original.
        check("original_format", p.original_format, w.media == "video" ? "jpg" : w.originalFormat)
        check("original_secret", p.original_secret, w.originalSecret)
        check("o_dims", [p.o_width, p.o_height], [w.width, w.height])
        check("geo", p.latitude == nil, w.geo == nil)
        if let g = w.geo, let lat = p.latitude, let lon = p.longitude {
            if abs(lat - g.latitude) > 1e-6 || abs(lon - g.longitude) > 1e-6 || p.accuracy != g.accuracy {
                out.append("photo \(w.id) geo: mirror \((lat, lon, p.accuracy ?? -1)), world \((g.latitude, g.longitude, g.accuracy))")
            }
        }
        let plain = w.tags.filter { !$0.isMachineTag }, machine = w.tags.filter(\.isMachineTag)
        check("tags", p.tags, plain.map(\.clean).joined(separator: " "))
        check("machine_tags", p.machine_tags, machine.map(\.clean).joined(separator: " "))
        if deep {
            check("raw tags", p.rawTags.map { Set($0) }, Set(w.tags.map { PhotoTag(id: $0.id, author: $0.author, raw: $0.raw) }))
            check("notes", p.notes, w.notes.count)
            check("comments", p.comments, w.comments.count)
            // The record's tags are the raw forms, machine tags apart: one per tag, the owner's
            // where the owner has it, else the member's who added it.
            var forms: [String: String] = [:]
            for t in plain.filter({ $0.author == w.owner }) + plain.filter({ $0.author != w.owner }) where forms[t.clean] == nil {
                forms[t.clean] = t.raw
            }
            check("record tags", r.tags.sorted(), forms.values.sorted())
        } else {
            check("record tags", Set(r.tags.map(TagString.clean)), Set(plain.map(\.clean)))
        }
        check("record machine tags", Set(r.machineTags.map(TagString.clean)), Set(machine.map(\.clean)))
        return out
    }

    /// `PRAGMA integrity_check` of a library.
    static func integrity(_ store: LibraryStore) throws -> String {
        let (_, rows) = try store.sql("PRAGMA integrity_check")
        // A text value's description is quoted.
        return rows.map { $0.map { $0.description.trimmingCharacters(in: ["\""]) }.joined(separator: " ") }.joined(separator: "; ")
    }
}
