import Crypto
import FlickrMedia
import FlickrProtocol
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// An upload body after streaming: its form fields and the `photo` part on disk.
struct ReceivedUpload: Sendable {
    var fields: [(String, String)] = []
    var file: URL?
    var filename: String?
    var size = 0
    var sha256 = ""
    /// The first bytes of the photo (type and size detection).
    var head: [UInt8] = []
}

extension SandboxEngine {
    /// Limits for the non-file fields of an upload form.
    static let maxFieldBytes = 1 << 20
    static let maxFieldsTotal = 8 << 20

    /// Streams a multipart upload body: fields to memory (bounded), the `photo` part to a temp
    /// file in the originals directory, hashing as it goes. Memory stays constant whatever the size.
    func receiveUpload<Body: AsyncSequence>(contentType: String, body: Body) async throws -> ReceivedUpload
    where Body.Element == ByteBuffer {
        guard let boundary = MultipartStreamParser.boundary(fromContentType: contentType) else {
            // Not multipart: a urlencoded form (no photo), or nothing useful.
            var collected: [UInt8] = []
            for try await chunk in body {
                collected += chunk.readableBytesView
                if collected.count > Self.maxFieldsTotal { throw MultipartError(message: "form body too large") }
            }
            var r = ReceivedUpload()
            if contentType.lowercased().hasPrefix("application/x-www-form-urlencoded") {
                r.fields = FormEncoding.parse(String(decoding: collected, as: UTF8.self))
            }
            return r
        }
        var parser = MultipartStreamParser(boundary: boundary)
        let sink = UploadSink(directory: store.originalsDirectory)
        var result = ReceivedUpload()
        var currentName: String?
        var isPhoto = false
        var fieldBytes: [UInt8] = []
        var fieldsTotal = 0
        var hasher = SHA256()
        var hashing = false
        var photoSeen = false
        do {
            for try await chunk in body {
                try chunk.withUnsafeReadableBytes { raw in
                    try parser.feed(raw) { event in
                        switch event {
                        case .begin(let head):
                            currentName = head.name
                            isPhoto = head.name == "photo" && !photoSeen
                            if isPhoto {
                                photoSeen = true
                                // Hashing costs as much as the disk write: do it only when a
                                // duplicate check was asked for (else it is done later, on demand).
                                hashing = result.fields.contains { $0.0 == "dedup_check" && ($0.1 == "1" || $0.1 == "2") }
                                result.filename = head.filename
                                try sink.open()
                            }
                            fieldBytes = []
                        case .data(let bytes):
                            if isPhoto {
                                if hashing { hasher.update(bufferPointer: bytes) }
                                if result.head.count < 65_536 {
                                    result.head += bytes.prefix(65_536 - result.head.count)
                                }
                                result.size += bytes.count
                                try sink.append(bytes)
                            } else {
                                fieldsTotal += bytes.count
                                guard fieldBytes.count + bytes.count <= Self.maxFieldBytes, fieldsTotal <= Self.maxFieldsTotal else {
                                    throw MultipartError(message: "form field \(currentName ?? "") too large")
                                }
                                fieldBytes += bytes
                            }
                        case .end:
                            if !isPhoto, let name = currentName {
                                result.fields.append((name, String(decoding: fieldBytes, as: UTF8.self)))
                            }
                            currentName = nil
                            isPhoto = false
                        }
                    }
                }
                if sink.pendingBytes >= UploadSink.flushThreshold { try await sink.flush() }
            }
            try parser.finish()
            try await sink.close()
        } catch {
            await sink.discard()
            throw error
        }
        if photoSeen {
            result.file = sink.url
            if hashing { result.sha256 = Self.hex(hasher.finalize()) }
        }
        return result
    }

    /// Answers `/services/upload/` and `/services/replace/` once the body is on disk and the
    /// caller authenticated (at `now`).
    func completeUpload(_ request: SandboxRequest, upload: ReceivedUpload, caller: SandboxCaller, now: Int,
                        replace: Bool) -> SandboxReply {
        var keepFile = false
        defer { if !keepFile, let file = upload.file { try? FileManager.default.removeItem(at: file) } }
        let fail = { (f: APIFailure) in ResponseFormat.xml.render(f) }
        guard caller.perms >= .write, let user = caller.user else {
            return fail(APIFailure(.insufficientPermissions, "Insufficient permissions. Method requires write privileges; \(caller.perms.rawValue) granted."))
        }
        guard let file = upload.file else { return fail(APIFailure(.noPhotoSpecified, "No photo specified")) }
        guard upload.size > 0 else { return fail(APIFailure(.filesizeWasZero, "Filesize was zero")) }
        guard let probe = ImageProbe.probe(upload.head) else { return fail(APIFailure(.filetypeWasNotRecognised, "Filetype was not recognised")) }
        guard Int64(upload.size) <= UploadLimits.bytes(forMIME: probe.media == "video" ? "video/" : "image/") else {
            return fail(APIFailure(.filesizeTooLarge, "Filesize was too large"))
        }
        let params = request.parameters.mapValues(XMLText.storable)  // title, description, tags as Flickr stores them
        // A new photo's title, description, keywords, date taken and position, as Flickr reads
        // them from the file (docs/SANDBOX.md, "What an upload reads from the file").
        let embedded = replace || probe.media != "photo" ? EmbeddedMetadata() : readEmbedded(file)
        let isAsync = params["async"] == "1"
        let originalSecret = SandboxIDs.hex(10)
        let dedup = !replace && (params["dedup_check"] == "1" || params["dedup_check"] == "2")
        var contentHash = upload.sha256.isEmpty ? nil : upload.sha256
        var knownHashes: [String: String] = [:]  // photo id → hash computed now
        if dedup {
            contentHash = contentHash ?? Self.sha256(of: file)
            // Only photos of the same owner and size can be duplicates; hash those not hashed yet.
            let candidates = store.read { s in
                s.photos.values.filter { $0.owner == user && $0.fileSize == upload.size && $0.contentHash == nil }
                    .compactMap { p in p.storedFile.map { (p.id, $0) } }
            }
            for (id, stored) in candidates {
                if let h = Self.sha256(of: store.originalURL(stored)) { knownHashes[id] = h }
            }
        }
        let outcome: Result<(SandboxPhoto, String?), APIFailure> = store.update { s in
            for (id, h) in knownHashes { s.photos[id]?.contentHash = h }
            if dedup, let contentHash,
               let dup = s.photos.values.first(where: { $0.owner == user && $0.contentHash == contentHash }) {
                return .failure(APIFailure(.duplicatePhoto, "Duplicate photo/video detected", extra: [.text("duplicate_photo_id", dup.id)]))
            }
            var photo: SandboxPhoto
            if replace {
                guard let id = params["photo_id"], let existing = s.photos[id], existing.owner == user else {
                    return .failure(APIFailure(.photoNotFound, "Photo not found"))
                }
                photo = existing
                photo.secret = SandboxIDs.hex(10)
                photo.stampUpdate(now)
            } else {
                let id = s.newPhotoID()
                let title = params["title"] ?? embedded.title.map(XMLText.storable)
                    ?? upload.filename.map { ($0 as NSString).deletingPathExtension } ?? ""
                photo = SandboxPhoto(SandboxPhotoRecord(
                    id: id, owner: user, secret: SandboxIDs.hex(10), server: "65535", farm: 66, originalSecret: "",
                    originalFormat: "", title: title, description: params["description"] ?? embedded.description.map(XMLText.storable) ?? "",
                    datePosted: now, dateTaken: embedded.dateTaken ?? SandboxDates.format(now), takenGranularity: 0, lastUpdate: now,
                    isPublic: params["is_public"].map { $0 == "1" } ?? true,
                    isFriend: params["is_friend"] == "1", isFamily: params["is_family"] == "1",
                    safetyLevel: Int(params["safety_level"] ?? "").flatMap { (1...3).contains($0) ? $0 : nil } ?? 1,
                    license: 0, views: 0, media: probe.media, width: 0, height: 0, rotation: 0,
                    contentType: Int(params["content_type"] ?? "").flatMap { (1...3).contains($0) ? $0 : nil } ?? 1,
                    hidden: params["hidden"] == "2" ? 2 : 1, permComment: 3, permAddMeta: 2, tags: [],
                    storedFile: nil, contentHash: nil, fileSize: nil))
                if let author = s.user(nsid: user) {
                    // The tags asked for, then the file's keywords (each one tag, spaces and all), each once.
                    var raws = TagString.parse(params["tags"] ?? "")
                    for keyword in embedded.keywords.map(XMLText.storable) where !raws.contains(where: { TagString.clean($0) == TagString.clean(keyword) }) {
                        raws.append(keyword)
                    }
                    for raw in raws.prefix(SandboxLimits.tagsPerPhoto) {
                        photo.tags.append(s.makeTag(raw: raw, author: author, photoID: id))
                    }
                }
                if let lat = embedded.latitude, let lon = embedded.longitude, (-90...90).contains(lat), (-180...180).contains(lon),
                   lat != 0 || lon != 0 {
                    // Who may see it: the account's default for locations (public), as an
                    // account that imports EXIF locations has it.
                    photo.geo = SandboxGeo(latitude: lat, longitude: lon, accuracy: 16)
                }
            }
            let previousFile = photo.storedFile
            photo.originalSecret = originalSecret
            photo.originalFormat = probe.format
            photo.media = probe.media
            photo.width = probe.width.flatMap { $0 > 0 ? $0 : nil } ?? 1024
            photo.height = probe.height.flatMap { $0 > 0 ? $0 : nil } ?? 768
            photo.contentHash = contentHash
            photo.fileSize = upload.size
            photo.storedFile = "\(photo.id)_\(originalSecret)_o.\(probe.format)"
            // The bytes take their final name before the record is committed, so a crash
            // never leaves a photo whose original is missing.
            guard rename(file.path, store.originalURL(photo.storedFile!).path) == 0 else {
                return .failure(APIFailure(.generalUploadFailure, "General upload failure"))
            }
            s.photos[photo.id] = photo
            return .success((photo, previousFile))
        }
        let photo: SandboxPhoto
        switch outcome {
        case .failure(let failure): return fail(failure)
        case .success(let (p, previous)):
            photo = p
            keepFile = true
            if let previous, previous != p.storedFile { try? FileManager.default.removeItem(at: store.originalURL(previous)) }
        }
        if let failure = store.failure {
            logger.error("upload: the state cannot be written: \(failure)")
            return fail(APIFailure(.generalUploadFailure, "General upload failure"))
        }
        if isAsync {
            let ticket = store.write { s -> SandboxTicket in
                let t = SandboxTicket(id: "\(s.nextTicket)-\(SandboxIDs.digits(5))", photoID: photo.id, complete: 1, owner: user)
                s.nextTicket += 1
                s.tickets[t.id] = t
                return t
            }
            return ResponseFormat.xml.render(.nodes([.text("ticketid", ticket.id)]))
        }
        return ResponseFormat.xml.render(.nodes([
            XMLNode("photoid", [("secret", .string(photo.secret)), ("originalsecret", .string(photo.originalSecret))],
                    text: photo.id),
        ]))
    }
}

extension SandboxEngine {
    /// The file's embedded metadata; none when ExifTool is not installed (said once in the log)
    /// or cannot read the file.
    func readEmbedded(_ file: URL) -> EmbeddedMetadata {
        do { return try embedded.read(file.path) } catch {
            if Self.embeddedWarning.exchange(false, ordering: .relaxed) {
                logger.warning("upload: the file's own metadata is not read: \(error)")
            }
            return EmbeddedMetadata()
        }
    }

    /// Whether the warning above is still to be given (once a process).
    static let embeddedWarning = Atomic<Bool>(true)

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    /// SHA-256 of a file, read in 1 MiB pieces; nil when it cannot be read.
    static func sha256(of url: URL) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hex(hasher.finalize())
    }
}

/// Writes an upload's photo part to a temp file, batching writes and doing them on NIO's
/// blocking-I/O thread pool so request handling never waits on the disk.
///
/// One batch is written while the next fills: ``flush()`` hands the full batch to a write and
/// returns as soon as the write before it is done, so the body keeps arriving while the disk
/// works (one after the other, a 1 GiB upload took the receiving time plus the writing time).
/// At most one write is in flight, so memory stays at two batches. Used by one task at a time
/// (the request's).
final class UploadSink: @unchecked Sendable {
    static let flushThreshold = 1 << 20
    let url: URL
    private var fd: Int32 = -1
    private var pending: [UInt8] = []
    /// The batch being written, which it gives back once written (its storage is then reused).
    private var writing: Task<[UInt8], any Error>?

    var pendingBytes: Int { pending.count }

    init(directory: URL) {
        url = directory.appendingPathComponent(".upload-\(SandboxIDs.hex(16))")
    }

    func open() throws {
        guard fd < 0 else { return }
        fd = Foundation.open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw SandboxError("cannot create \(url.path): \(String(cString: strerror(errno)))") }
        pending.reserveCapacity(Self.flushThreshold + 65_536)
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        pending.append(contentsOf: bytes)
    }

    /// Starts writing what has been appended, once the previous write is done; throws that
    /// write's error.
    func flush() async throws {
        guard fd >= 0, !pending.isEmpty else { return }
        var next = try await finishWriting() ?? []
        next.removeAll(keepingCapacity: true)
        let batch = pending
        pending = next
        let fd = self.fd
        writing = Task {
            try await NIOThreadPool.singleton.runIfActive {
                try batch.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                        if n < 0 {
                            if errno == EINTR { continue }
                            throw SandboxError("write failed: \(String(cString: strerror(errno)))")
                        }
                        offset += n
                    }
                }
                return batch
            }
        }
    }

    /// Waits for the write in flight, if any; its batch (to reuse), or its error.
    private func finishWriting() async throws -> [UInt8]? {
        guard let writing else { return nil }
        self.writing = nil
        return try await writing.value
    }

    /// Writes what is left and closes the file: every byte is on it when this returns.
    func close() async throws {
        try await flush()
        _ = try await finishWriting()
        closeDescriptor()
    }

    /// Drops the file: after the write in flight is over (the descriptor must not close under
    /// it), whatever it came to.
    func discard() async {
        _ = try? await finishWriting()
        closeDescriptor()
        try? FileManager.default.removeItem(at: url)
    }

    /// Closes the file, once no write is in flight.
    private func closeDescriptor() {
        guard fd >= 0 else { return }
        Foundation.close(fd)
        fd = -1
    }
}
