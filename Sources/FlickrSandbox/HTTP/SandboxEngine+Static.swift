import Foundation

extension SandboxEngine {
    /// A 1×1 grey baseline JPEG (one 8×8 block, DC only), served for every size but originals.
    static let placeholderJPEG: [UInt8] = {
        var b: [UInt8] = [0xFF, 0xD8]
        b += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)  // quantisation table
        b += [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x11, 0x00]  // SOF0 1×1 grey
        b += [0xFF, 0xC4, 0x00, 0x14, 0x00, 0x01] + [UInt8](repeating: 0, count: 15) + [0x00]  // DC: one code
        b += [0xFF, 0xC4, 0x00, 0x14, 0x10, 0x01] + [UInt8](repeating: 0, count: 15) + [0x00]  // AC: EOB only
        b += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]  // SOS
        b += [0x3F]  // DC diff 0, EOB, padded with ones
        b += [0xFF, 0xD9]
        return b
    }()

    /// `/static/{server}/{id}_{secret}[_{suffix}].{ext}`: the uploaded bytes for a photo's
    /// original, the placeholder JPEG for other sizes and for a video's original (its still),
    /// 404 for anything unknown.
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
            return SandboxReply(status: 200, contentType: "image/jpeg", bytes: Self.placeholderJPEG)
        }
        guard pieces[1] == photo.secret, ext == "jpg",
              suffix.isEmpty || PhotoSize.ladder.contains(where: { $0.suffix == suffix }) else { return .notFound() }
        return SandboxReply(status: 200, contentType: "image/jpeg", bytes: Self.placeholderJPEG)
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
