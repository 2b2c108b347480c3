import Foundation

/// MIME types for upload parts, from the file name's extension (what Flickr accepts: photos and
/// videos), falling back to a look at the first bytes, then `application/octet-stream`.
public enum MIMEType {
    static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg", "png": "image/png",
        "gif": "image/gif", "tif": "image/tiff", "tiff": "image/tiff", "bmp": "image/bmp",
        "webp": "image/webp", "heic": "image/heic", "heif": "image/heif", "avif": "image/avif",
        "mp4": "video/mp4", "m4v": "video/x-m4v", "mov": "video/quicktime", "avi": "video/x-msvideo",
        "mpg": "video/mpeg", "mpeg": "video/mpeg", "wmv": "video/x-ms-wmv", "3gp": "video/3gpp",
        "m2ts": "video/mp2t", "mts": "video/mp2t", "ogv": "video/ogg", "webm": "video/webm",
        "mkv": "video/x-matroska",
    ]

    /// The extensions of the photos and videos Flickr accepts, sorted.
    public static var acceptedExtensions: [String] { byExtension.keys.sorted() }

    /// The type of the file at `path` as an upload would send it: from its extension, else from
    /// its first bytes; nil when it is not a photo or video Flickr accepts (or cannot be read).
    public static func forFile(atPath path: String) -> String? {
        if let type = forFilename(path) { return type }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        return sniff(Array(head))
    }

    /// The type for `filename`, or nil when its extension is unknown.
    public static func forFilename(_ filename: String) -> String? {
        guard let dot = filename.lastIndex(of: "."), dot != filename.startIndex else { return nil }
        return byExtension[filename[filename.index(after: dot)...].lowercased()]
    }

    /// The type from magic bytes, or nil.
    public static func sniff(_ head: [UInt8]) -> String? {
        func starts(_ sig: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + sig.count && Array(head[offset..<offset + sig.count]) == sig
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if starts(Array("GIF8".utf8)) { return "image/gif" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "image/tiff" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("ftyp".utf8), at: 4) {
            if starts(Array("qt".utf8), at: 8) { return "video/quicktime" }
            if starts(Array("heic".utf8), at: 8) { return "image/heic" }
            return "video/mp4"
        }
        if starts(Array("BM".utf8)) { return "image/bmp" }
        return nil
    }
}
