// The FlickrAPI tour, run against the in-process sandbox (or any endpoint with credentials in
// FLICKR_* variables when --endpoint is given). It doubles as a compiled example of the library.
//
//   swift run flickr-demo                 # sandbox
//   swift run flickr-demo --endpoint URL  # FLICKR_API_KEY, FLICKR_API_SECRET, FLICKR_OAUTH_TOKEN(_SECRET)
import FlickrAPI
import FlickrProtocol
import FlickrSandbox
import Foundation

@main
struct Demo {
    static func main() async {
        do {
            try await run()
        } catch let error as FlickrError {
            FileHandle.standardError.write(Data("flickr-demo: \(error)\n".utf8))
            exit(1)
        } catch {
            FileHandle.standardError.write(Data("flickr-demo: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() async throws {
        let arguments = CommandLine.arguments
        var sandbox: FlickrSandboxServer?
        let context: FlickrContext
        if let i = arguments.firstIndex(of: "--endpoint"), i + 1 < arguments.count {
            // Credentials as every SwiftFlickr program finds them: FLICKR_* variables, then the profile.
            context = try FlickrContext.resolve(explicit: FlickrProfile(endpoint: arguments[i + 1]))
        } else {
            let server = try await FlickrSandboxServer.start(SandboxConfiguration())
            sandbox = server
            let c = server.credentials
            print("sandbox: \(server.url) (user \(c.username), \(c.userNSID))")
            context = FlickrContext(apiKey: c.apiKey, sharedSecret: c.apiSecret, oauthToken: c.oauthToken,
                                    oauthTokenSecret: c.oauthTokenSecret, endpoints: Endpoints(baseURL: server.url),
                                    ratePolicy: .unlimited)
        }
        let flickr = FlickrClient(context: context)
        let images = context.endpoints.images

        let echo = try await flickr.call("flickr.test.echo", ["greeting": "hello, Flickr"])
        print("1. test.echo → greeting = \(echo["greeting"]?.text ?? "?")")

        let login = try await flickr.call("flickr.test.login")
        print("2. test.login → \(login["user.username"]?.text ?? "?") (\(login["user.id"]?.string ?? "?"))")

        let search = try await flickr.call("flickr.photos.search",
                                           ["user_id": "me", "extras": "tags,url_q,date_upload", "per_page": "3", "sort": "date-posted-desc"])
        let photos = search["photos.photo"]?.array ?? []
        print("3. photos.search → \(search["photos.total"]?.string ?? "?") photos; the newest \(photos.count):")
        for p in photos {
            print("   \(p["id"]?.string ?? "?")  \(p["title"]?.string ?? "")  [\(p["tags"]?.string ?? "")]")
        }
        guard let first = photos.first, let id = first["id"]?.string else { return }

        let info = try await flickr.call("flickr.photos.getInfo", ["photo_id": id])
        print("4. photos.getInfo \(id) → \"\(info["photo.title"]?.text ?? "")\", \(info["photo.tags.tag"]?.array.count ?? 0) tags, "
              + "posted \(info["photo.dates.posted"]?.string ?? "?")")

        print("5. URLs:")
        for size in [PhotoSize.square150, .small320, .medium640, .large1024] {
            print("   \(size.rawValue.isEmpty ? "-" : size.rawValue): \(try PhotoURL.source(first, size: size, images: images))")
        }
        print("   page:  \(try PhotoURL.page(info["photo"]!, web: context.endpoints.web))")
        print("   short: \(try PhotoURL.short(photoID: id))")

        _ = try await flickr.call("flickr.photos.addTags", ["photo_id": id, "tags": TagString.join(["swiftflickr tour"])])
        let tagged = try await flickr.call("flickr.tags.getListPhoto", ["photo_id": id])
        let tag = (tagged["photo.tags.tag"]?.array ?? []).first { $0["raw"]?.string == "swiftflickr tour" }
        print("6. addTags \"swiftflickr tour\" → clean \(tag?.text ?? "?"), id \(tag?["id"]?.string ?? "?")")
        if let tagID = tag?["id"]?.string {
            _ = try await flickr.call("flickr.photos.removeTag", ["tag_id": tagID])
            print("   removeTag \(tagID) → done")
        }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("swiftflickr-tour.jpg")
        try Data(tinyJPEG()).write(to: file)
        let uploaded = try await flickr.upload(.file(file.path), arguments: ["title": "Tour upload", "tags": "tour \"swift flickr\""],
                                               progress: { sent, total in
            print("   upload progress: \(sent)/\(total.map(String.init) ?? "?") bytes")
        })
        print("7. upload → photo \(uploaded.photoID ?? "?")")
        if let newID = uploaded.photoID {
            let replaced = try await flickr.replace(photoID: newID, with: .file(file.path))
            print("8. replace → photo \(replaced.photoID ?? "?"), new secret \(replaced.secret ?? "?")")
        }
        try? FileManager.default.removeItem(at: file)
        try await sandbox?.stop()
        print("done.")
    }

    /// A small valid JPEG header + padding: enough for the sandbox (and Flickr's type check).
    static func tinyJPEG() -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
            + (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 31) } + [0xFF, 0xD9]
    }
}
