import FlickrProtocol
import Foundation

extension PhotoSize {
    /// The label `flickr.photos.getSizes` gives this size (`Medium 640`).
    public var label: String {
        switch self {
        case .square75: "Square"
        case .square150: "Large Square"
        case .thumbnail: "Thumbnail"
        case .small240: "Small"
        case .small320: "Small 320"
        case .small400: "Small 400"
        case .medium500: "Medium"
        case .medium640: "Medium 640"
        case .medium800: "Medium 800"
        case .large1024: "Large"
        case .large1600: "Large 1600"
        case .large2048: "Large 2048"
        case .xLarge3K: "X-Large 3K"
        case .xLarge4K: "X-Large 4K"
        case .xLarge4KF: "X-Large 4K"
        case .xLarge5K: "X-Large 5K"
        case .xLarge6K: "X-Large 6K"
        case .original: "Original"
        }
    }

    /// The sizes from the largest to the smallest (the original first).
    public static let largestFirst: [PhotoSize] = [
        .original, .xLarge6K, .xLarge5K, .xLarge4K, .xLarge4KF, .xLarge3K, .large2048, .large1600, .large1024,
        .medium800, .medium640, .medium500, .small400, .small320, .small240, .square150, .thumbnail, .square75,
    ]
}

/// A photo's image chosen for download.
public struct PhotoSource: Sendable, Hashable {
    /// The file's URL on Flickr's image host (or a video's play URL).
    public var url: String
    /// The size the URL is of.
    public var size: PhotoSize
    /// True for a video's own file (getSizes' "Video Original", a play URL), false for an image
    /// (a photo, or a video's still).
    public var isVideo: Bool

    /// A source at `url` of size `size`.
    public init(url: String, size: PhotoSize, isVideo: Bool = false) {
        self.url = url
        self.size = size
        self.isVideo = isVideo
    }

    /// `ID_SUFFIX.EXT` (`52000000001_o.jpg`; the 500 px size has no suffix, as on Flickr). EXT is
    /// the URL's; a video's play URL has none, so a video is named `.mp4` here and
    /// ``FlickrClient/downloadPhoto(id:photo:size:path:directory:progress:)`` renames it after the
    /// bytes are in when they say another container (`.mov`, …).
    public func fileName(photoID: String) -> String {
        fileName(photoID: photoID, extension: nil)
    }

    /// `ID_SUFFIX.EXT` with `ext` in place of the URL's when given.
    func fileName(photoID: String, extension forced: String?) -> String {
        let last = url.split(separator: "/").last.map(String.init) ?? ""
        let fromURL = last.split(separator: "?").first.flatMap { name in
            name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) }
        } ?? ""
        let ext = forced ?? (fromURL.isEmpty ? (isVideo ? "mp4" : "jpg") : fromURL)
        return photoID + (size.rawValue.isEmpty ? "" : "_" + size.rawValue) + "." + ext
    }

    /// The source in a `flickr.photos.getSizes` answer: `size`, or with nil the original and
    /// else the largest size offered. Throws a usage error naming the sizes there are.
    ///
    /// A video's original (nil `size`) is its file, getSizes' "Video Original" (Flickr lists it
    /// to the video's owner only); without one — someone else's video — it is the largest still,
    /// as for a photo. A named size, `.original` too, is always a still: "Original" is the JPEG
    /// Flickr makes of a video's first frame. The other video entries (`Video Player`, `700`,
    /// `Site MP4`, …: re-encodings and players) are never chosen.
    public static func choose(fromSizes rsp: FlickrNode, size: PhotoSize?, photoID: String) throws(FlickrError) -> PhotoSource {
        if size == nil {
            for entry in rsp["sizes.size"]?.array ?? [] where entry["label"]?.string == "Video Original" {
                if let source = entry["source"]?.string, !source.isEmpty {
                    return PhotoSource(url: source, size: .original, isVideo: true)
                }
            }
        }
        var offered: [(PhotoSize, String)] = []
        for entry in rsp["sizes.size"]?.array ?? [] {
            guard entry["media"]?.string != "video" || entry["label"]?.string == "Original",
                  let label = entry["label"]?.string, let source = entry["source"]?.string,
                  let known = PhotoSize.largestFirst.first(where: { $0.label == label }) else { continue }
            offered.append((known, source))
        }
        if let size {
            if let hit = offered.first(where: { $0.0.label == size.label }) { return PhotoSource(url: hit.1, size: size) }
            let names = offered.map { $0.0.rawValue.isEmpty ? "-" : $0.0.rawValue }
            throw FlickrError.usage("photo \(photoID) has no size \(size.rawValue.isEmpty ? "-" : size.rawValue)"
                                    + (names.isEmpty ? "" : " (it has: \(names.joined(separator: " ")))"), method: "download")
        }
        for wanted in PhotoSize.largestFirst {
            if let hit = offered.first(where: { $0.0 == wanted }) { return PhotoSource(url: hit.1, size: hit.0) }
        }
        throw FlickrError(kind: .api, message: "photo \(photoID) offers no image to download", method: "download")
    }

    /// The source from a photo map's `url_*` extras (or, for sizes up to `b`, its secret; for
    /// the original, getInfo's `originalsecret`), when it has what `size` needs; nil means "ask
    /// getSizes". With nil `size` only an `url_o` or,
    /// failing that, the largest `url_*` present is taken — never for a video (`media` is
    /// `video`, when the listing asked for the `media` extra): its `url_*` are stills and its
    /// file is in getSizes only.
    public static func fromExtras(_ photo: FlickrNode, size: PhotoSize?, images: String) -> PhotoSource? {
        if let size {
            // The extra, the shared secret (sizes up to 1024), or the original's own secret.
            guard let url = try? PhotoURL.source(photo, size: size, images: images) else { return nil }
            return PhotoSource(url: url, size: size)
        }
        if photo["media"]?.string == "video" { return nil }
        for wanted in PhotoSize.largestFirst {
            if let url = photo[wanted.extrasKey]?.string, !url.isEmpty { return PhotoSource(url: url, size: wanted) }
        }
        // getInfo's map: the original from its `originalsecret` and `originalformat`.
        return (try? PhotoURL.source(photo, size: .original, images: images)).map { PhotoSource(url: $0, size: .original) }
    }
}

/// What ``FlickrClient/downloadPhoto(id:photo:size:path:directory:progress:)`` did.
public struct PhotoDownload: Sendable, Hashable {
    /// The photo's id.
    public var photoID: String
    /// The image (or video file) that was chosen.
    public var source: PhotoSource
    /// How the download went: the file's path and size, whether it was already there.
    public var outcome: DownloadOutcome
}

extension FlickrClient {
    /// Downloads one photo or video (see ``download(from:to:progress:)`` for how the file is written).
    ///
    /// The file's modification time is the photo's date taken (local time), and the file is
    /// stamped with the image it holds (``DownloadedFile``): when the photo's map tells which
    /// image is wanted (a listing's `url_*` extras, getInfo's secrets), a copy already stamped
    /// with it is taken as it is, with no request to the image host and no getSizes call.
    /// Without a map, one `flickr.photos.getInfo` call gives those details.
    ///
    /// - Parameters:
    ///   - id: the photo's id.
    ///   - photo: the photo's map from a search or a set listing, if at hand: its `url_*` extras
    ///     spare the `flickr.photos.getSizes` call.
    ///   - size: the size; nil means the original, or the largest size offered when the original
    ///     is not. A video's original is its file (getSizes' "Video Original", offered to its
    ///     owner), not the JPEG still its `url_o` and "Original" are; a named size is a still.
    ///   - path: the file to write; nil means `directory/ID_SUFFIX.EXT` (a video's EXT from its
    ///     bytes: `ID_o.mp4`, `ID_o.mov`, …).
    ///   - directory: where the default name goes (default: the current directory).
    ///   - progress: called with the bytes written so far and the total when known.
    public func downloadPhoto(id: String, photo: FlickrNode? = nil, size: PhotoSize? = nil, path: String? = nil,
                              directory: String? = nil,
                              progress: DownloadProgress? = nil) async throws(FlickrError) -> PhotoDownload {
        guard !id.isEmpty, id.allSatisfy(\.isNumber) else {
            throw FlickrError.usage("'\(id)' is not a photo id (digits)", method: "download")
        }
        // The photo's details: the listing's map, else getInfo — one call that tells the date
        // taken, the secrets and the media: enough to name the file, to know that a copy on disk
        // is current, and (the original, the sizes up to 1024) to fetch it without getSizes.
        let listed: FlickrNode
        if let photo {
            listed = photo
        } else {
            guard let info = try await call("flickr.photos.getInfo", ["photo_id": id])["photo"] else {
                throw FlickrError(kind: .parse, message: "flickr.photos.getInfo answered no photo for \(id)", method: "download")
            }
            listed = info
        }
        let taken = listed["datetaken"]?.string ?? listed["dates"]?["taken"]?.string
        let images = context.endpoints.images
        let folder = directory ?? "."
        let wantsVideo = size == nil && listed["media"]?.string == "video"
        let known = wantsVideo ? nil : PhotoSource.fromExtras(listed, size: size, images: images)
        // What a current copy holds, when the listing tells it: the image's name (a video's
        // file, by the name of its still).
        let still = wantsVideo ? (try? PhotoURL.source(listed, size: .original, images: images)) : known?.url
        let identity = still.map { (wantsVideo ? "video " : "") + DownloadedFile.sourceName($0) }
        if let identity {
            let candidates = path.map { [$0] }
                ?? (wantsVideo ? Self.videoExtensions.map { (folder as NSString).appendingPathComponent("\(id)_o.\($0)") }
                    : [(folder as NSString).appendingPathComponent(known!.fileName(photoID: id))])
            for candidate in candidates where await DownloadedFile.holds(identity, at: candidate) {
                guard let bytes = Self.fileSize(candidate) else { continue }
                let source = known ?? PhotoSource(url: still!, size: .original, isVideo: true)
                return PhotoDownload(photoID: id, source: source, outcome: DownloadOutcome(path: candidate, bytes: bytes, skipped: true, attempts: 0))
            }
        }
        let source: PhotoSource
        if let known {
            source = known
        } else {
            let sizes = try await call("flickr.photos.getSizes", ["photo_id": id])
            source = try PhotoSource.choose(fromSizes: sizes, size: size, photoID: id)
        }
        var result = try await fetch(source, id: id, path: path, folder: folder, progress: progress)
        // Stamped whether written now or found complete by its size: the next run asks nothing.
        DownloadedFile.setTaken(taken, at: result.outcome.path)
        let written = source.isVideo ? identity : identity ?? DownloadedFile.sourceName(source.url)
        if let written { await DownloadedFile.stamp(written, at: result.outcome.path) }
        result.source = source
        return result
    }

    /// Downloads `source` to `path` or its default name in `folder`.
    private func fetch(_ source: PhotoSource, id: String, path: String?, folder: String,
                       progress: DownloadProgress?) async throws(FlickrError) -> PhotoDownload {
        guard path == nil, source.isVideo else {
            let target = path ?? (folder as NSString).appendingPathComponent(source.fileName(photoID: id))
            let outcome = try await download(from: source.url, to: target, progress: progress)
            return PhotoDownload(photoID: id, source: source, outcome: outcome)
        }
        // A video's file under its default name: the play URL names no container, so the name
        // is that of a copy already there (`ID_o.mov` from an earlier run, compared by size as
        // usual) or `ID_o.mp4`, and once the bytes are in, the extension their magic bytes call
        // for (`MIMEType.forFile`: mov, m4v, avi, …) replaces it.
        let candidates = Self.videoExtensions.map { (folder as NSString).appendingPathComponent(source.fileName(photoID: id, extension: $0)) }
        let target = candidates.first { Self.fileSize($0) != nil } ?? candidates[0]
        var outcome = try await download(from: source.url, to: target, progress: progress)
        if let type = MIMEType.forFile(atPath: target), let ext = MIMEType.fileExtension(forType: type) {
            let named = (folder as NSString).appendingPathComponent(source.fileName(photoID: id, extension: ext))
            if named != target {
                guard rename(target, named) == 0 else {
                    throw FlickrError.usage("cannot rename \(target) to \(named): \(String(cString: strerror(errno)))", method: "download")
                }
                outcome.path = named
            }
        }
        return PhotoDownload(photoID: id, source: source, outcome: outcome)
    }

    /// The extensions a video's file may get (``MIMEType/fileExtension(forType:)``'s video
    /// ones), `mp4` first: the name taken before the bytes say.
    static let videoExtensions = ["mp4", "mov", "m4v", "3gp", "avi", "mpg", "m2ts", "wmv", "ogv", "webm", "mkv"]
}
