import Foundation

extension SandboxEngine {
    /// `/static/{server}/{id}_{secret}[_{suffix}].{ext}`: the uploaded bytes for a photo's
    /// original; else an image of the format and dimensions getSizes states (``GeneratedImage``):
    /// a seeded photo's original in its `originalformat` (PNG, GIF; JPEG for the rest), every
    /// other size and a video's original (its still) as JPEG. 404 for anything unknown.
    func handleStatic(path: String) -> SandboxReply {
        let parts = path.split(separator: "/")
        guard parts.count == 3, parts[0] == "static", let dot = parts[2].lastIndex(of: ".") else { return .notFound() }
        let server = String(parts[1])
        let name = parts[2][..<dot]
        let ext = String(parts[2][parts[2].index(after: dot)...]).lowercased()
        let pieces = name.split(separator: "_").map(String.init)
        guard pieces.count == 2 || pieces.count == 3 else { return .notFound() }
        let suffix = pieces.count == 3 ? pieces[2] : ""
        guard let photo = store.read({ $0.photos[pieces[0]] }), photo.server == server else { return .notFound() }
        if suffix == "o" {
            guard pieces[1] == photo.originalSecret, ext == photo.answeredOriginalFormat else { return .notFound() }
            // A video's "Original" is its JPEG still; the file itself is at the play URL.
            if !photo.isVideo, let stored = photo.storedFile {
                var reply = SandboxReply(status: 200, contentType: Self.mimeType(photo.originalFormat), bytes: [])
                reply.file = store.originalURL(stored)
                return reply
            }
            let format = photo.answeredOriginalFormat
            let (w, h) = (max(1, photo.width), max(1, photo.height))
            switch format {
            case "png": return SandboxReply(status: 200, contentType: "image/png", bytes: GeneratedImage.png(width: w, height: h))
            case "gif": return SandboxReply(status: 200, contentType: "image/gif", bytes: GeneratedImage.gif(width: w, height: h))
            default: return SandboxReply(status: 200, contentType: "image/jpeg", bytes: GeneratedImage.jpeg(width: w, height: h))
            }
        }
        guard pieces[1] == photo.secret, ext == "jpg", let size = PhotoSize.ladder.first(where: { $0.suffix == suffix }) else {
            return .notFound()
        }
        // A size larger than the original (a URL built from the shared secret): the original's.
        let dims = size.dimensions(width: photo.width, height: photo.height) ?? (max(1, photo.width), max(1, photo.height))
        return SandboxReply(status: 200, contentType: "image/jpeg", bytes: GeneratedImage.jpeg(width: dims.width, height: dims.height))
    }

    static func mimeType(_ format: String) -> String {
        switch format {
        case "jpg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "tif": return "image/tiff"
        case "bmp": return "image/bmp"
        case "webp": return "image/webp"
        case "heic": return "image/heic"
        case "mp4": return "video/mp4"
        case "mov": return "video/quicktime"
        default: return "application/octet-stream"
        }
    }
}
