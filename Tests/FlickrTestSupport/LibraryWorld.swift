import FlickrAPI
import FlickrProtocol
import FlickrSandbox
import Foundation

/// A photo of a generated world, as the test knows it (the truth the library is checked against).
public struct SeedPhoto: Sendable, Equatable {
    public var id: String
    public var title: String
    public var description: String
    /// Raw tags, the owner's and those other users added; those with `:` and `=` are machine tags.
    public var tags: [String]
    public var isPublic: Int, isFriend: Int, isFamily: Int
    public var license: Int
    public var posted: Int
    public var taken: String
    public var views: Int
    public var media: String
    public var latitude: Double?
    public var longitude: Double?

    public var cleanTags: Set<String> { Set(tags.filter { !TagString.isMachineTag($0) }.map(TagString.clean)) }
    public var cleanMachineTags: Set<String> { Set(tags.filter(TagString.isMachineTag).map(TagString.clean)) }
}

public struct SeedSet: Sendable {
    public var id: String
    public var title: String
    public var photos: [String]
}

/// A generated library: the sandbox's one generator (``GeneratedWorld``, `flickr-sandbox
/// --photos`) with `count` photos of alice's and its seven sets, one of them larger than a page
/// of 500; served by an in-process sandbox (``SandboxWorld``) with an access log. `photos` and
/// `sets` are the truth the tests check against.
public struct LibraryWorld {
    /// The generator's vocabulary and title words: what queries over the world look for.
    public static let vocabulary = GeneratedWorld.vocabulary
    public static let words = GeneratedWorld.words

    public let generated: GeneratedWorld
    /// The photos, as the test wants them served: a test may change them before ``serve``.
    public var photos: [SeedPhoto] = []
    public var sets: [SeedSet] = []
    /// The generator's seed file and its photos as generated.
    private let seedData: Data
    private let generatedPhotos: [SeedPhoto]

    /// The world of `count` photos made from `seed`; its photos and sets read back from the
    /// seed file the sandbox serves (the truth the tests check against).
    public init(count: Int, seed: String) {
        generated = GeneratedWorld(photos: count, seed: seed)
        seedData = (try? generated.seedFile()) ?? Data("{}".utf8)
        let file = (try? JSONSerialization.jsonObject(with: seedData) as? [String: Any]) ?? [:]
        photos = (file["photos"] as? [[String: Any]] ?? []).map { p in
            let tags = (p["tags"] as? [Any] ?? []).compactMap { $0 as? String ?? ($0 as? [String: Any])?["raw"] as? String }
            return SeedPhoto(id: p["id"] as? String ?? "", title: p["title"] as? String ?? "", description: p["description"] as? String ?? "",
                             tags: tags, isPublic: p["is_public"] as? Int ?? 1, isFriend: p["is_friend"] as? Int ?? 0,
                             isFamily: p["is_family"] as? Int ?? 0, license: p["license"] as? Int ?? 0, posted: p["date_posted"] as? Int ?? 0,
                             taken: p["date_taken"] as? String ?? "", views: p["views"] as? Int ?? 0, media: p["media"] as? String ?? "photo",
                             latitude: p["latitude"] as? Double, longitude: p["longitude"] as? Double)
        }
        sets = (file["photosets"] as? [[String: Any]] ?? []).map {
            SeedSet(id: $0["id"] as? String ?? "", title: $0["title"] as? String ?? "", photos: $0["photos"] as? [String] ?? [])
        }
        generatedPhotos = photos
    }

    /// Writes the seed file into `directory`: the generator's, with the photos a test changed as
    /// it changed them (changed tags are all the owner's).
    public func writeSeed(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("seed.json")
        guard photos != generatedPhotos, var file = try JSONSerialization.jsonObject(with: seedData) as? [String: Any],
              var seeded = file["photos"] as? [[String: Any]] else {
            try seedData.write(to: url)
            return url
        }
        for (i, p) in photos.enumerated() where i < seeded.count && p != generatedPhotos[i] {
            var o = seeded[i]
            (o["title"], o["description"], o["views"], o["media"]) = (p.title, p.description, p.views, p.media)
            (o["is_public"], o["is_friend"], o["is_family"], o["license"]) = (p.isPublic, p.isFriend, p.isFamily, p.license)
            (o["date_posted"], o["date_taken"]) = (p.posted, p.taken)
            if p.tags != generatedPhotos[i].tags { o["tags"] = p.tags }
            o["latitude"] = p.latitude
            o["longitude"] = p.longitude
            if p.latitude == nil { o["accuracy"] = nil }
            seeded[i] = o
        }
        file["photos"] = seeded
        try JSONSerialization.data(withJSONObject: file).write(to: url)
        return url
    }

    /// Serves the world from an in-process sandbox (latency in ms) with an access log, and gives
    /// the body the server, alice's client, the environment for `flickr` and the log.
    public func serve<T>(latency: Int = 0, _ body: (FlickrSandboxServer, FlickrClient, [String: String], URL) async throws -> T) async throws -> T {
        let world = try CommandWorld("library")
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let file = try writeSeed(in: world.directory)
        let log = world.directory.appendingPathComponent("access.jsonl")
        var configuration = SandboxConfiguration()
        configuration.latencyMilliseconds = latency
        return try await SandboxWorld.with(configuration, seed: .file(file), accessLog: log) { sandbox in
            let alice = Self.client(sandbox.credentials, url: sandbox.url)
            var env = world.environment
            env["XDG_DATA_HOME"] = world.directory.path + "/data"
            return try await body(try sandbox.inProcessServer(), alice, sandbox.environment(env), log)
        }
    }

    /// Alice's token that may delete, and bob's that may write (add tags to alice's photos).
    public static let deleteToken = GeneratedWorld.ownerToken
    public static let bobToken = GeneratedWorld.bobToken

    /// A client of a sandbox with another of its tokens.
    public static func client(_ c: SandboxCredentials, url: String, token: (token: String, secret: String)) -> FlickrClient {
        FlickrClient(context: FlickrContext(apiKey: c.apiKey, sharedSecret: c.apiSecret, oauthToken: token.token,
                                            oauthTokenSecret: token.secret, endpoints: Endpoints(baseURL: url)))
    }

    /// Alice's client of a sandbox.
    public static func client(_ c: SandboxCredentials, url: String, attempts: Int? = nil) -> FlickrClient {
        var context = FlickrContext(apiKey: c.apiKey, sharedSecret: c.apiSecret, oauthToken: c.oauthToken,
                                    oauthTokenSecret: c.oauthTokenSecret, endpoints: Endpoints(baseURL: url))
        if let attempts { context.retryPolicy.maxAttempts = attempts }
        return FlickrClient(context: context)
    }

    /// The API calls in the access log (one JSON line per request with a Flickr method).
    public static func calls(in log: URL) -> [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["method"] as? String
        }.filter { !$0.isEmpty }
    }
}

extension LibraryWorld {
    /// Alice's NSID in every generated world.
    public static let alice = GeneratedWorld.ownerNSID

    /// Runs the calls of `body` and gives how many API calls the access log gained.
    public static func counting<T>(_ log: URL, _ body: () async throws -> T) async rethrows -> (T, Int) {
        let before = calls(in: log).count
        let result = try await body()
        return (result, calls(in: log).count - before)
    }
}
