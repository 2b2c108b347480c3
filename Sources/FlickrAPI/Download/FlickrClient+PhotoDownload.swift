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
    public var url: String
    public var size: PhotoSize

    /// `ID_SUFFIX.EXT` (`52000000001_o.jpg`; the 500 px size has no suffix, as on Flickr).
    public func fileName(photoID: String) -> String {
        let last = url.split(separator: "/").last.map(String.init) ?? ""
        let ext = last.split(separator: "?").first.flatMap { name in
            name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) }
        } ?? "jpg"
        return photoID + (size.rawValue.isEmpty ? "" : "_" + size.rawValue) + "." + (ext.isEmpty ? "jpg" : ext)
    }

    /// The source in a `flickr.photos.getSizes` answer: `size`, or with nil the original and
    /// else the largest size offered. Throws a usage error naming the sizes there are.
    public static func choose(fromSizes rsp: FlickrNode, size: PhotoSize?, photoID: String) throws(FlickrError) -> PhotoSource {
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

    /// The source from a photo map's `url_*` extras (or, for sizes up to `b`, its secret), when
    /// it has what `size` needs; nil means "ask getSizes". With nil `size` only an `url_o` or,
    /// failing that, the largest `url_*` present is taken.
    public static func fromExtras(_ photo: FlickrNode, size: PhotoSize?, images: String) -> PhotoSource? {
        if let size {
            if let url = photo[size.extrasKey]?.string, !url.isEmpty { return PhotoSource(url: url, size: size) }
            guard size.usesSharedSecret, let url = try? PhotoURL.source(photo, size: size, images: images) else { return nil }
            return PhotoSource(url: url, size: size)
        }
        for wanted in PhotoSize.largestFirst {
            if let url = photo[wanted.extrasKey]?.string, !url.isEmpty { return PhotoSource(url: url, size: wanted) }
        }
        return nil
    }
}

/// What ``FlickrClient/downloadPhoto(id:photo:size:path:directory:progress:)`` did.
public struct PhotoDownload: Sendable, Hashable {
    public var photoID: String
    public var source: PhotoSource
    public var outcome: DownloadOutcome
}

extension FlickrClient {
    /// Downloads one photo (see ``download(from:to:progress:)`` for how the file is written).
    ///
    /// - Parameters:
    ///   - id: the photo's id.
    ///   - photo: the photo's map from a search or a set listing, if at hand: its `url_*` extras
    ///     spare the `flickr.photos.getSizes` call.
    ///   - size: the size; nil means the original, or the largest size offered when the original
    ///     is not.
    ///   - path: the file to write; nil means `directory/ID_SUFFIX.EXT`.
    ///   - directory: where the default name goes (default: the current directory).
    public func downloadPhoto(id: String, photo: FlickrNode? = nil, size: PhotoSize? = nil, path: String? = nil,
                              directory: String? = nil,
                              progress: DownloadProgress? = nil) async throws(FlickrError) -> PhotoDownload {
        guard !id.isEmpty, id.allSatisfy(\.isNumber) else {
            throw FlickrError.usage("'\(id)' is not a photo id (digits)", method: "download")
        }
        let source: PhotoSource
        if let photo, let known = PhotoSource.fromExtras(photo, size: size, images: context.endpoints.images) {
            source = known
        } else {
            let sizes = try await call("flickr.photos.getSizes", ["photo_id": id])
            source = try PhotoSource.choose(fromSizes: sizes, size: size, photoID: id)
        }
        let target = path ?? ((directory ?? ".") as NSString).appendingPathComponent(source.fileName(photoID: id))
        let outcome = try await download(from: source.url, to: target, progress: progress)
        return PhotoDownload(photoID: id, source: source, outcome: outcome)
    }
}
