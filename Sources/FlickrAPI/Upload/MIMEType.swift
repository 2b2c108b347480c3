import Foundation

/// MIME types for upload parts. What is sent is decided by the content: its first bytes (magic
/// numbers) must be a photo or video Flickr takes, whatever the file is named — a text file
/// named `fake.jpg` is refused before any byte is sent. The extension is only a fallback name
/// for the part's type where the bytes say "ISO media" without a more precise brand.
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

    /// How many leading bytes ``sniff(_:)`` looks at (an MPEG transport stream's second sync
    /// byte is at 188, a Blu-ray one's at 196).
    public static let headLength = 256

    /// The type of the file at `path` as an upload would send it, from its first bytes; nil
    /// when it is not a photo or video Flickr accepts (or cannot be read).
    public static func forFile(atPath path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: headLength)) ?? Data()
        return sniff(Array(head))
    }

    /// The type for `filename`, or nil when its extension is unknown.
    public static func forFilename(_ filename: String) -> String? {
        guard let dot = filename.lastIndex(of: "."), dot != filename.startIndex else { return nil }
        return byExtension[filename[filename.index(after: dot)...].lowercased()]
    }

    /// The type from the magic bytes at the start of a file (up to ``headLength`` of them), or
    /// nil when they are not those of a photo or video container Flickr takes: JPEG, PNG,
    /// GIF, TIFF, BMP, WebP, HEIC/HEIF/AVIF, MP4/MOV/3GP (ISO media), AVI, MPEG program and
    /// transport streams, WMV (ASF), Ogg, Matroska/WebM.
    public static func sniff(_ head: [UInt8]) -> String? {
        func starts(_ sig: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + sig.count && Array(head[offset..<offset + sig.count]) == sig
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if ascii("GIF87a") || ascii("GIF89a") { return "image/gif" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "image/tiff" }
        if ascii("RIFF"), ascii("WEBP", at: 8) { return "image/webp" }
        if ascii("RIFF"), ascii("AVI ", at: 8) { return "video/x-msvideo" }
        if ascii("ftyp", at: 4), head.count >= 12 { return isoMedia(brand: String(decoding: head[8..<12], as: UTF8.self)) }
        if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(where: { ascii($0, at: 4) }) { return "video/quicktime" }
        if starts([0x00, 0x00, 0x01, 0xBA]) || starts([0x00, 0x00, 0x01, 0xB3]) { return "video/mpeg" }
        if head.count > 188, head[0] == 0x47, head[188] == 0x47 { return "video/mp2t" }
        if head.count > 196, head[4] == 0x47, head[196] == 0x47 { return "video/mp2t" }
        if starts([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) { return "video/x-ms-wmv" }
        if ascii("OggS") { return "video/ogg" }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) {
            return head.firstRange(of: Array("webm".utf8)) != nil ? "video/webm" : "video/x-matroska"
        }
        if ascii("BM"), head.count >= 14, head[6] == 0, head[7] == 0, head[8] == 0, head[9] == 0 { return "image/bmp" }
        return nil
    }

    /// An ISO base media file's type from its major brand.
    static func isoMedia(brand: String) -> String {
        switch brand {
        case "heic", "heix", "hevc", "hevx", "heim", "heis": return "image/heic"
        case "mif1", "msf1", "heif": return "image/heif"
        case "avif", "avis": return "image/avif"
        case "qt  ": return "video/quicktime"
        case "M4V ", "M4VH", "M4VP": return "video/x-m4v"
        default: return brand.hasPrefix("3g") ? "video/3gpp" : "video/mp4"
        }
    }

    /// The refusal of content that is no photo or video: names the file and shows its first
    /// bytes, so that a person sees what it is.
    static func notMedia(_ name: String, head: [UInt8], service: String) -> FlickrError {
        let shown = head.prefix(8).map { String(format: "%02X", $0) }.joined(separator: " ")
        let text = String(decoding: head.prefix(16), as: UTF8.self).filter { $0.isLetter || $0.isNumber || $0 == " " }
        return FlickrError.usage("cannot upload \(name): its content is not a photo or video Flickr accepts "
                                 + "(it starts with " + (head.isEmpty ? "nothing: the file is empty" : shown)
                                 + (text.count >= 4 ? ", \"\(text)…\"" : "") + "); the name does not decide, the bytes do; nothing was sent",
                                 method: service)
    }
}

extension MIMEType {
    /// The usual file extension of a photo or video type ``sniff(_:)`` gives (`image/jpeg` →
    /// `jpg`), or nil for another type.
    public static func fileExtension(forType type: String) -> String? {
        switch type {
        case "image/jpeg": "jpg"
        case "image/png": "png"
        case "image/gif": "gif"
        case "image/tiff": "tif"
        case "image/bmp": "bmp"
        case "image/webp": "webp"
        case "image/heic": "heic"
        case "image/heif": "heif"
        case "image/avif": "avif"
        case "video/mp4": "mp4"
        case "video/x-m4v": "m4v"
        case "video/quicktime": "mov"
        case "video/x-msvideo": "avi"
        case "video/mpeg": "mpg"
        case "video/mp2t": "m2ts"
        case "video/x-ms-wmv": "wmv"
        case "video/3gpp": "3gp"
        case "video/ogg": "ogv"
        case "video/webm": "webm"
        case "video/x-matroska": "mkv"
        default: nil
        }
    }
}
