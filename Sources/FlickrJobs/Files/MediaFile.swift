import FlickrAPI
import Foundation

/// Whether a file is one Flickr takes, decided by its content (not its name) and Flickr's size
/// limits, before a byte is sent: `flickr upload` and `flickr push` ask the same question.
package enum MediaFile {
    /// Why `path` (of `size` bytes) is not a photo or video Flickr accepts, or nil with its MIME
    /// type when it is one.
    package static func check(_ path: String, size: Int64) -> (mime: String?, refusal: String?) {
        if access(path, R_OK) != 0 { return (nil, "unreadable: \(String(cString: strerror(errno)))") }
        if size == 0 { return (nil, "empty file") }
        guard let mime = MIMEType.forFile(atPath: path) else {
            // The content decides, not the name: a text file named .jpg is not sent.
            return (nil, MIMEType.forFilename(path) != nil ? "named like a photo or video, but its content is not one Flickr accepts"
                                                             : "not a photo or video Flickr accepts")
        }
        if let refusal = UploadLimits.refusal(size: size, mime: mime) { return (mime, refusal) }
        return (mime, nil)
    }
}
