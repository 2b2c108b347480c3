// Uses FlickrAPI as an application does, with only `import FlickrAPI`, against the sandbox
// named by FLICKR_ENDPOINT (credentials in FLICKR_*). Prints one `ok …` line per check and
// exits 1 at the first check that fails.
import FlickrAPI
import Foundation

/// How many checks failed.
@MainActor enum Checks {
    static var failures = 0
}

@MainActor func check(_ name: String, _ condition: Bool, _ detail: @autoclosure () -> String = "") {
    if condition {
        print("ok \(name)")
    } else {
        print("FAIL \(name) \(detail())")
        Checks.failures += 1
    }
}

/// A view controller as an app writes one: main-actor isolated, no @preconcurrency.
@MainActor final class PhotoViewController: FlickrRequestDelegate {
    var title: String?
    var failure: FlickrError?
    var done: CheckedContinuation<Void, Never>?

    func flickrRequest(_ request: FlickrRequest, didCompleteWith response: FlickrNode) {
        MainActor.preconditionIsolated()
        title = response["photo.title"]?.text
        done?.resume()
    }

    func flickrRequest(_ request: FlickrRequest, didFailWith error: FlickrError) {
        MainActor.preconditionIsolated()
        failure = error
        done?.resume()
    }
}

@MainActor func run() async throws {
    // Credentials as every SwiftFlickr program finds them; with none, an error that says what to set.
    do {
        _ = try FlickrContext.resolve(environment: [:], store: ProfileStore(directory: URL(fileURLWithPath: "/nonexistent-profiles")))
        check("resolve without credentials throws", false)
    } catch {
        check("resolve without credentials throws", error.localizedDescription.contains("FLICKR_API_KEY"), error.localizedDescription)
    }
    var context = try FlickrContext.resolve()
    context.ratePolicy = .unlimited
    let client = FlickrClient(context: context)

    // The string form, FlickrNode and FlickrMap reading.
    let echo = try await client.call("flickr.test.echo", ["greeting": "hello"])
    check("call + FlickrNode", echo["greeting"]?.text == "hello", "\(echo)")

    // Photos, their URLs on the client's own host, the page URL with its @.
    let found = try await client.call("flickr.photos.search", ["user_id": "me", "per_page": "5", "extras": "owner_name"])
    let photos = found["photos.photo"]?.array ?? []
    check("search", !photos.isEmpty)
    guard let photo = photos.first, let id = photo["id"]?.string else { return }
    let url = try client.photoURL(for: photo, size: .medium640)
    check("photoURL on the client's host", url.absoluteString.hasPrefix(context.endpoints.images), url.absoluteString)
    let page = try client.pageURL(for: photo)
    check("pageURL keeps @", page.absoluteString.contains("@") && !page.absoluteString.contains("%40"), page.absoluteString)
    let sizes: [PhotoSize] = [.small240, .medium640, .large1024]
    // Flickr names the extras apart from the suffixes: 240 px is `m` but `url_s`, 1024 px `b` but `url_l`.
    check("PhotoSize", sizes.map(\.rawValue) == ["m", "z", "b"] && sizes.map(\.extrasKey) == ["url_s", "url_z", "url_l"],
          "\(sizes.map(\.extrasKey))")

    // Tags written with TagString, read back.
    _ = try await client.call("flickr.photos.addTags", ["photo_id": id, "tags": TagString.join(["consumer", "black cat"])])
    let info = try await client.call("flickr.photos.getInfo", ["photo_id": id])
    let raws = (info["photo.tags.tag"]?.array ?? []).compactMap { $0["raw"]?.string }
    check("TagString", raws.contains("black cat") && raws.contains("consumer"), "\(raws)")

    // Typed calls generated from the catalog: labels, Int/Bool/[String]/Date arguments.
    let typed = try await client.photos.search(userID: "me", tags: ["consumer"], minUploadDate: Date(timeIntervalSince1970: 0),
                                               extras: ["date_upload", "views"], perPage: 5)
    let typedIDs = (typed["photos.photo"]?.array ?? []).compactMap { $0["id"]?.string }
    check("typed search", typedIDs.contains(id), "\(typedIDs)")
    let comment = try await client.photos.comments.addComment(photoID: id, commentText: "From a Swift package")
    check("typed addComment", comment["comment.id"]?.string != nil, "\(comment)")
    try await client.photos.setPerms(photoID: id, isPublic: true, isFriend: false, isFamily: false)

    // Reading answers: .string for element text and attributes alike; .int, .bool, .date, .double.
    let read = try await client.photos.getInfo(photoID: id)
    check(".string reads element text", read["photo.title"]?.string == read["photo.title"]?.text, "\(read)")
    check(".bool", read["photo.visibility.ispublic"]?.bool == true, "\(String(describing: read["photo.visibility"]))")
    check(".int", (read["photo.comments"]?.int ?? 0) >= 1, "\(String(describing: read["photo.comments"]))")
    check(".date", read["photo.dates.posted"]?.date != nil && read["photo.dates.taken"]?.date != nil,
          "\(String(describing: read["photo.dates"]))")
    check(".double", FlickrNode.string("51.5").double == 51.5)

    // Decodable: Flickr's keys as they are, and converted from snake case.
    struct Photo: Decodable {
        let id: String
        let title: String
        let dateupload: Date
        let views: Int
    }
    let decoded = try FlickrNodeDecoder().decode([Photo].self, from: typed["photos.photo"] ?? .list([]))
    check("FlickrNodeDecoder", decoded.map(\.id) == typedIDs && decoded.allSatisfy { $0.dateupload.timeIntervalSince1970 > 0 }, "\(decoded)")
    struct Visibility: Decodable {
        let isPublic: Bool
        let isFamily: Bool
        enum CodingKeys: String, CodingKey { case isPublic = "ispublic", isFamily = "isfamily" }
    }
    struct PhotoInfo: Decodable { let id: String; let safetyLevel: Int; let views: Int }   // safety_level
    let visibility = try FlickrNodeDecoder().decode(Visibility.self, from: read["photo.visibility"] ?? .list([]))
    let info2 = try FlickrNodeDecoder(keyDecodingStrategy: .convertFromSnakeCase).decode(PhotoInfo.self, from: read["photo"] ?? .list([]))
    check("keyDecodingStrategy", visibility.isPublic && !visibility.isFamily && info2.id == id, "\(visibility) \(info2)")

    // Errors: Flickr's code as FlickrErrorCode, a LocalizedError in Swift terms.
    do {
        _ = try await client.call("flickr.photos.getInfo", ["photo_id": "1"])
        check("api error", false)
    } catch {
        check("FlickrErrorCode", error.kind == .api && error.code.map { FlickrErrorCode(rawValue: $0) } == FlickrErrorCode(rawValue: 1), "\(error)")
        check("LocalizedError", error.localizedDescription.hasPrefix("flickr.photos.getInfo: [1] "), error.localizedDescription)
    }
    do {
        _ = try await client.call("flickr.photos.getInfo", ["photoid": id])
        check("refused before sending", false)
    } catch {
        check("Swift advice", error.localizedDescription.contains("strict: false") && !error.localizedDescription.contains("--no-strict"),
              error.localizedDescription)
    }

    // A delegate that is a main-actor view controller, called back on the main actor.
    let controller = PhotoViewController()
    let request = FlickrRequest(client: client)
    request.delegate = controller
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
        controller.done = c
        request.callAPIMethod(withGET: "flickr.photos.getInfo", arguments: ["photo_id": id])
    }
    check("main-actor delegate", controller.title != nil && controller.failure == nil, "\(String(describing: controller.failure))")
}

do {
    try await run()
} catch {
    print("FAIL error \(error.localizedDescription)")
    exit(1)
}
exit(await MainActor.run { Checks.failures } == 0 ? 0 : 1)
