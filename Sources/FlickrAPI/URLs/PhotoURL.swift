import FlickrProtocol

/// Flickr's photo sizes (https://www.flickr.com/services/api/misc.urls.html).
public enum PhotoSize: String, Sendable, CaseIterable {
    /// `s`: 75 × 75 px, cropped square.
    case square75 = "s"
    /// `q`: 150 × 150 px, cropped square.
    case square150 = "q"
    /// `t`: 100 px on the longest side.
    case thumbnail = "t"
    /// `m`: 240 px on the longest side.
    case small240 = "m"
    /// `n`: 320 px on the longest side.
    case small320 = "n"
    /// `w`: 400 px on the longest side.
    case small400 = "w"
    /// No suffix: 500 px on the longest side.
    case medium500 = ""
    /// `z`: 640 px on the longest side.
    case medium640 = "z"
    /// `c`: 800 px on the longest side.
    case medium800 = "c"
    /// `b`: 1024 px on the longest side.
    case large1024 = "b"
    /// `h`: 1600 px on the longest side (its own secret).
    case large1600 = "h"
    /// `k`: 2048 px on the longest side (its own secret).
    case large2048 = "k"
    /// `3k`: 3072 px on the longest side (its own secret).
    case xLarge3K = "3k"
    /// `4k`: 4096 px on the longest side (its own secret).
    case xLarge4K = "4k"
    /// `f`: 4096 px on the longest side, for photos of aspect ratio 2:1 only (its own secret).
    case xLarge4KF = "f"
    /// `5k`: 5120 px on the longest side (its own secret).
    case xLarge5K = "5k"
    /// `6k`: 6144 px on the longest side (its own secret).
    case xLarge6K = "6k"
    /// `o`: the original file as uploaded, in its own format (its own secret).
    case original = "o"

    /// The size for a suffix (`""` or `"-"` is the 500 px size).
    public init?(suffix: String) {
        self.init(rawValue: suffix == "-" ? "" : suffix)
    }

    /// Sizes below 1600 px share the photo's `secret`; larger ones and the original have their own.
    public var usesSharedSecret: Bool {
        switch self {
        case .square75, .square150, .thumbnail, .small240, .small320, .small400, .medium500, .medium640, .medium800, .large1024:
            return true
        default:
            return false
        }
    }

    /// The `extras` value whose `url_*` attribute carries this size's URL.
    public var extrasKey: String {
        switch self {
        case .square75: "url_sq"
        case .square150: "url_q"
        case .thumbnail: "url_t"
        case .small240: "url_s"
        case .small320: "url_n"
        case .small400: "url_w"
        case .medium500: "url_m"
        case .medium640: "url_z"
        case .medium800: "url_c"
        case .large1024: "url_l"
        case .large1600: "url_h"
        case .large2048: "url_k"
        case .xLarge3K: "url_3k"
        case .xLarge4K: "url_4k"
        case .xLarge4KF: "url_f"
        case .xLarge5K: "url_5k"
        case .xLarge6K: "url_6k"
        case .original: "url_o"
        }
    }
}

/// Photo source, page and short URLs — `OFFlickrAPIContext`'s URL helpers.
public enum PhotoURL {
    /// The image URL of `photo` (a photo map from search/getInfo/getRecent…) at `size`.
    ///
    /// Sizes up to `b` are built from `server`, `id` and `secret`; `h`, `k`, `3k`, `4k`, `f`,
    /// `5k`, `6k` need their `url_*` extra, and `o` needs `url_o` or `originalsecret` +
    /// `originalformat`. Otherwise the error names the extras to ask for.
    public static func source(_ photo: FlickrNode, size: PhotoSize,
                              images: String = Endpoints.flickr.images) throws(FlickrError) -> String {
        if let url = photo[size.extrasKey]?.string, !url.isEmpty { return url }
        guard let id = photo["id"]?.string ?? photo["id"]?.text, let server = photo["server"]?.string else {
            throw FlickrError.usage("a photo needs `id` and `server` to build its URL")
        }
        if size.usesSharedSecret {
            guard let secret = photo["secret"]?.string else { throw FlickrError.usage("photo \(id) has no `secret`") }
            return images + server + "/" + id + "_" + secret + (size.rawValue.isEmpty ? "" : "_" + size.rawValue) + ".jpg"
        }
        if size == .original, let osecret = photo["originalsecret"]?.string, let format = photo["originalformat"]?.string {
            return images + server + "/" + id + "_" + osecret + "_o." + format
        }
        let extra = size == .original ? "`original_format` (originalsecret/originalformat) or `url_o`" : "`\(size.extrasKey)`"
        throw FlickrError.usage("size \(size.rawValue) of photo \(id) has its own secret: ask for the \(extra) extra, "
                                + "or call flickr.photos.getSizes")
    }

    /// `https://www.flickr.com/photos/{path_alias or owner}/{id}/`; an NSID's `@` stays as it
    /// is (a path may hold it), as Flickr writes its own page URLs.
    public static func page(_ photo: FlickrNode, web: String = Endpoints.flickr.web) throws(FlickrError) -> String {
        guard let id = photo["id"]?.string ?? photo["id"]?.text else { throw FlickrError.usage("a photo needs `id`") }
        let owner = photo["owner"]
        let candidates = [photo["pathalias"]?.string, photo["path_alias"]?.string, owner?["path_alias"]?.string,
                          owner?.string, owner?["nsid"]?.string]
        guard let user = candidates.compactMap({ $0 }).first(where: { !$0.isEmpty }) else {
            throw FlickrError.usage("photo \(id) has no `owner` (or path alias) to build its page URL")
        }
        return web + "photos/" + PercentEncoding.encodePathSegment(user) + "/" + id + "/"
    }

    /// `https://flic.kr/p/{base58(id)}`.
    public static func short(photoID: String) throws(FlickrError) -> String {
        guard let n = UInt64(photoID) else { throw FlickrError.usage("photo id \(photoID) is not a number") }
        return "https://flic.kr/p/" + Base58.encode(n)
    }

    /// The photo id of a `flic.kr/p/…` URL or bare short code.
    public static func photoID(fromShortURL url: String) throws(FlickrError) -> String {
        var code = Substring(url)
        if let r = code.range(of: "/p/") { code = code[r.upperBound...] }
        while code.hasSuffix("/") { code = code.dropLast() }
        guard let n = Base58.decode(String(code)) else { throw FlickrError.usage("not a flic.kr short URL: \(url)") }
        return String(n)
    }
}
