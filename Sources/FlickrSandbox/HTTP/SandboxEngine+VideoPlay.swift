import Foundation

extension SandboxEngine {
    /// `/photos/{alias or NSID}/{id}/play/orig/{originalsecret}/`, Flickr's play URL of a video's
    /// original file (getSizes' "Video Original", listed for the owner only): the uploaded file
    /// when there is one, else ``placeholderVideo(photoID:container:)``. 404 when the photo is
    /// no video, the secret is not its original secret, or the path names someone other than
    /// its owner. (Flickr checks the owner's web session; image downloads carry no credentials,
    /// so the sandbox checks that the URL is the owner's own.)
    func handleVideoPlay(path: String) -> SandboxReply {
        let parts = path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        guard parts.count == 6, parts[0] == "photos", parts[3] == "play", parts[4] == "orig" else { return .notFound() }
        let (user, id, secret) = (parts[1], parts[2], parts[5])
        let photo: SandboxPhoto? = store.read { s in
            guard let photo = s.photos[id], photo.isVideo, photo.originalSecret == secret,
                  let owner = s.user(nsid: photo.owner), user == owner.nsid || user == owner.pathAlias else { return nil }
            return photo
        }
        guard let photo else { return .notFound() }
        let container = photo.videoContainer
        if let stored = photo.storedFile {
            var reply = SandboxReply(status: 200, contentType: Self.mimeType(container), bytes: [])
            reply.file = store.originalURL(stored)
            return reply
        }
        let type = container == "mov" ? "video/quicktime" : "video/mp4"
        return SandboxReply(status: 200, contentType: type, bytes: Self.placeholderVideo(photoID: photo.id, container: container))
    }

    /// A small deterministic ISO base-media file for a seeded video that has no uploaded file:
    /// an `ftyp` box (brand `isom`, or `qt  ` for a `mov`) — what magic-byte sniffers recognise —
    /// then a `free` box naming the photo, so that two videos never share their bytes.
    static func placeholderVideo(photoID: String, container: String) -> [UInt8] {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + payload
        }
        let brand = container == "mov" ? "qt  " : "isom"
        let compatible = container == "mov" ? ["qt  "] : ["isom", "iso2", "mp41"]
        let ftyp = box("ftyp", Array(brand.utf8) + [0, 0, 2, 0] + compatible.flatMap { Array($0.utf8) })
        return ftyp + box("free", Array("flickr-sandbox video \(photoID)".utf8))
    }
}
