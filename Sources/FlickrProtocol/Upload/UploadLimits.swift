/// The largest files Flickr takes (its help pages: photos up to 200 MB, videos up to 1 GB),
/// checked by the client before a byte is sent and enforced by the sandbox as Flickr does
/// (upload error 8, "Filesize was too large").
public enum UploadLimits {
    /// 200 MB.
    public static let photoBytes: Int64 = 200 * 1_048_576
    /// 1 GB.
    public static let videoBytes: Int64 = 1_024 * 1_048_576

    /// The limit for a file of MIME type `mime` (`video/…` or anything else).
    public static func bytes(forMIME mime: String) -> Int64 {
        mime.hasPrefix("video/") ? videoBytes : photoBytes
    }

    /// Why a file of `size` bytes and type `mime` is refused, or nil when Flickr takes it:
    /// `too large: 2048 MB, over Flickr's limit of 200 MB for a photo`.
    public static func refusal(size: Int64, mime: String) -> String? {
        let limit = bytes(forMIME: mime)
        guard size > limit else { return nil }
        return "too large: \(megabytes(size)) MB, over Flickr's limit of \(megabytes(limit)) MB for a \(mime.hasPrefix("video/") ? "video" : "photo")"
    }

    /// Whole megabytes, rounded up (a file 1 byte over 200 MB says 201).
    static func megabytes(_ n: Int64) -> Int64 { (n + 1_048_575) / 1_048_576 }
}
