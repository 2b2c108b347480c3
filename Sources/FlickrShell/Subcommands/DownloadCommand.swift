import FlickrAPI
import FlickrCommandLine
import FlickrProtocol
import Foundation

/// `flickr download (PHOTO_ID... | --set ID | --search key=value...) [--size SIZE] [--dir DIR]`
///
/// Thin over what `flickr.download` does for scripts (``FlickrClient/downloadPhoto(id:photo:size:path:directory:progress:)``):
/// each file streams to `DIR/ID_SIZE.EXT.part` and is renamed when complete, its modification
/// time the photo's date taken; a file an earlier run wrote from the same image is skipped with
/// no request (one without that stamp, when the image host announces the same size). Listings ask for the `url_*` extras so that no photo needs a
/// `getSizes` call of its own. Exit 0 when every photo is on disk, 1 when one failed, 2 on a
/// usage error.
enum DownloadCommand {
    static func run(_ args: [String], _ inv: Invocation, _ env: [String: String]) async throws -> Int32 {
        let options = try CommandLineParser.parse(args, for: "download")
        let words = options.positional
        var size: PhotoSize?
        if let text = options["size"] {
            guard let s = PhotoSize(suffix: text) else {
                throw Invocation.UsageError(message: "--size: '\(text)' is not one of \(CommandLineSpec.photoSizes.joined(separator: " "))")
            }
            size = s
        }
        let search = options["search"] != nil
        let set = options["set"]
        guard [search, set != nil, !words.isEmpty && !search].filter({ $0 }).count == 1 else {
            throw Invocation.UsageError(message: "give photo ids, or --set ID, or --search key=value... (see flickr download --help)")
        }
        var searchArguments: [(String, String)] = []
        if search {
            for word in words {
                guard let eq = word.firstIndex(of: "="), eq != word.startIndex else {
                    throw Invocation.UsageError(message: "search argument '\(word)' is not key=value")
                }
                searchArguments.append((String(word[..<eq]), String(word[word.index(after: eq)...])))
            }
        } else if set == nil {
            if let bad = words.first(where: { $0.isEmpty || !$0.allSatisfy(\.isNumber) }) {
                throw Invocation.UsageError(message: "'\(bad)' is not a photo id (digits)")
            }
        }
        let directory = options["dir"] ?? "."
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw Invocation.UsageError(message: "--dir \(directory): cannot create it: \(error.localizedDescription)")
        }

        let opened = try await Subcommands.session(inv, env)
        defer { opened.close() }
        let session = opened.session
        let client = session.client
        guard !client.context.apiKey.isEmpty else { throw FlickrError.missingCredentials("API key", method: "download") }

        // What to fetch: (id, the photo's listing entry when there is one).
        var photos: [(id: String, photo: FlickrNode?)] = words.isEmpty || search ? [] : words.map { ($0, nil) }
        // `media` too: a video's url_o is its still, so its entry sends the download to getSizes
        // for the video itself (PhotoSource.fromExtras).
        // `date_taken`: each file's modification time, so that file browsers sort by it.
        let extras = (size.map { [$0.extrasKey, "url_o"] } ?? PhotoSize.largestFirst.map(\.extrasKey)) + ["media", "date_taken"]
        if let set {
            photos = try await listing("flickr.photosets.getPhotos", [("photoset_id", set)], key: "photoset",
                                       extras: extras, client: client)
        } else if search {
            photos = try await searchListing(searchArguments, extras: extras, client: client)
        }
        guard !photos.isEmpty else {
            FileHandleOutput.standardError("flickr download: no photos to download\n")
            return 0
        }

        let progress = Terminal.stderrIsTerminal ? BatchProgress(verb: "downloading", files: photos.count, batchTotal: nil) : nil
        // Ctrl-C: stop after the file in flight; a second one aborts it (its .part file goes).
        // Either way the summary is printed and the exit status is 130.
        let watch = InterruptWatch.forTransfers(progress: progress)
        defer { watch.stop() }
        let outcome = await watch.abortable { () -> Outcome in
            var outcome = Outcome()
            for (index, item) in photos.enumerated() {
                if watch.interrupted { break }
                progress?.begin(item.id, index: index + 1)
                do {
                    let result = try await client.downloadPhoto(id: item.id, photo: item.photo, size: size, directory: directory,
                                                                progress: progress?.callback)
                    progress?.end(bytes: result.outcome.bytes)
                    if result.outcome.skipped {
                        outcome.present += 1
                    } else {
                        outcome.fetched += 1
                        outcome.bytes += result.outcome.bytes
                    }
                    if progress == nil { FileHandleOutput.standardOutput(result.outcome.path + "\n") }
                } catch let error as FlickrError where error.kind == .cancelled && watch.interrupted {
                    progress?.end(bytes: 0)
                    break
                } catch {
                    progress?.end(bytes: 0)
                    outcome.failed.append((item.id, "\(error)"))
                }
            }
            return outcome
        }
        progress?.close()
        for (id, error) in outcome.failed { FileHandleOutput.standardError("failed: photo \(id): \(error)\n") }
        let finished = outcome.fetched + outcome.present + outcome.failed.count
        let files = outcome.fetched == 1 ? "file" : "files"
        var summary = "downloaded \(outcome.fetched) \(files) (\(ProgressBar.mebibytes(outcome.bytes))) into \(directory)"
        if outcome.present > 0 { summary += ", \(outcome.present) already there" }
        if !outcome.failed.isEmpty { summary += ", \(outcome.failed.count) failed" }
        if watch.interrupted { summary += ", interrupted: \(photos.count - finished) not downloaded" }
        FileHandleOutput.standardError(summary + "\n")
        if watch.interrupted { return watch.interruptStatus }
        return outcome.failed.isEmpty ? 0 : 1
    }

    /// What the transfers gave: files fetched (and their bytes), already there, failures.
    struct Outcome: Sendable {
        var fetched = 0
        var present = 0
        var bytes: Int64 = 0
        var failed: [(id: String, error: String)] = []
    }

    /// Every photo of a paged listing (500 a page) with `extras`.
    /// Flickr's search answers at most 4,000 photos a query (its pages stop there): a search
    /// that matches more is listed by upload-date windows, halved until each holds at most the
    /// cap, as `flickr.walk{ windows = true }` and job plans list; each photo once.
    static let searchCap = 4_000

    static func searchListing(_ arguments: [(String, String)], extras: [String],
                              client: FlickrClient) async throws(FlickrError) -> [(id: String, photo: FlickrNode?)] {
        let given = Dictionary(arguments, uniquingKeysWith: { _, last in last })
        let lo = given["min_upload_date"].flatMap { Int($0) } ?? 0
        let hi = given["max_upload_date"].flatMap { Int($0) } ?? Int(Date().timeIntervalSince1970) + 86_400
        var out: [(id: String, photo: FlickrNode?)] = []
        var seen = Set<String>()
        try await window(arguments, lo, hi, extras: extras, client: client, into: &out, seen: &seen)
        return out
    }

    /// The photos of one upload-date window `lo...hi` (both inclusive), split while past the cap.
    private static func window(_ arguments: [(String, String)], _ lo: Int, _ hi: Int, extras: [String], client: FlickrClient,
                               into out: inout [(id: String, photo: FlickrNode?)], seen: inout Set<String>) async throws(FlickrError) {
        var args = arguments.filter { !["min_upload_date", "max_upload_date"].contains($0.0) }
        args += [("min_upload_date", String(lo)), ("max_upload_date", String(hi))]
        let first = try await client.call("flickr.photos.search",
                                          arguments: args.filter { !["page", "per_page", "extras"].contains($0.0) } + [("per_page", "1")])
        let total = Int(first["photos.total"]?.string ?? "0") ?? 0
        if total > searchCap, hi > lo {
            let mid = lo + (hi - lo) / 2
            try await window(arguments, lo, mid, extras: extras, client: client, into: &out, seen: &seen)
            try await window(arguments, mid + 1, hi, extras: extras, client: client, into: &out, seen: &seen)
            return
        }
        for item in try await listing("flickr.photos.search", args, key: "photos", extras: extras, client: client)
        where seen.insert(item.id).inserted {
            out.append(item)
        }
    }

    static func listing(_ method: String, _ arguments: [(String, String)], key: String, extras: [String],
                        client: FlickrClient) async throws(FlickrError) -> [(id: String, photo: FlickrNode?)] {
        var out: [(id: String, photo: FlickrNode?)] = []
        var seen = Set<String>()
        var page = 1
        while true {
            var args = arguments.filter { $0.0 != "page" && $0.0 != "per_page" && $0.0 != "extras" }
            args += [("extras", extras.joined(separator: ",")), ("per_page", "500"), ("page", String(page))]
            let rsp = try await client.call(method, arguments: args)
            for photo in rsp["\(key).photo"]?.array ?? [] {
                guard let id = photo["id"]?.string, seen.insert(id).inserted else { continue }
                out.append((id, photo))
            }
            let pages = Int(rsp["\(key).pages"]?.string ?? "1") ?? 1
            if page >= pages { break }
            page += 1
        }
        return out
    }
}
